// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: the JSON reader (boot.json as `strata status` and `analyze` read it back). */
/* fuzz-sources: json.c */
#include "../../init/lib/json.h"
#include "fuzz.h"

#include <errno.h>

/* A nested object as `strata status` reads it: copied whole, and the copy reads as one object. */
static void check_object(const char *text, const char *key)
{
	char obj[512], again[512], tiny[4];
	bool b;
	int r = json_get_object(text, key, obj, sizeof(obj));
	FUZZ_ASSERT(r == 0 || r == -ENOENT || r == -EINVAL || r == -ENAMETOOLONG);
	if (r < 0)
		return;
	size_t n = strlen(obj);
	FUZZ_ASSERT(n >= 2 && obj[0] == '{' && obj[n - 1] == '}');
	const char *cur = obj;
	FUZZ_ASSERT(json_array_next(&cur, again, sizeof(again)) == 1);
	FUZZ_ASSERT(strcmp(obj, again) == 0 && *cur == '\0');
	r = json_get_object(text, key, tiny, sizeof(tiny));
	FUZZ_ASSERT(n < sizeof(tiny) ? r == 0 : r == -ENAMETOOLONG);
	r = json_get_bool(obj, "rename_whiteout", &b);
	FUZZ_ASSERT(r == 0 || r == -ENOENT || r == -EINVAL);
}

/* An array of strings, as the record's "stack". */
static void check_string_array(const char *text, const char *key)
{
	const char *cur = json_find_array(text, key);
	for (int n = 0; cur; n++) {
		char s[16];
		const char *before = cur;
		int r = json_array_next_string(&cur, s, sizeof(s));
		FUZZ_ASSERT(r == 1 || r == 0 || r == -EINVAL || r == -ENAMETOOLONG);
		if (r <= 0)
			break;
		FUZZ_ASSERT(cur > before && n < 8192);
		FUZZ_TERMINATED(s);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	static const char *const keys[] = {"mode", "degraded_reason", "name", "first_boot", ""};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char big[256], tiny[2];
		uint64_t u;
		bool b;
		int r = json_get_string(text, keys[i], big, sizeof(big));
		FUZZ_ASSERT(r == 0 || r == -ENOENT || r == -EINVAL || r == -ENAMETOOLONG);
		if (r == 0)
			FUZZ_TERMINATED(big);
		if (json_get_string(text, keys[i], tiny, sizeof(tiny)) == 0)
			FUZZ_TERMINATED(tiny);
		r = json_get_u64(text, keys[i], &u);
		FUZZ_ASSERT(r == 0 || r == -ENOENT || r == -EINVAL);
		r = json_get_bool(text, keys[i], &b);
		FUZZ_ASSERT(r == 0 || r == -ENOENT || r == -EINVAL);
		/* a value is one kind: a bool is not also a number, a string or an object */
		if (r == 0)
			FUZZ_ASSERT(json_get_u64(text, keys[i], &u) == -EINVAL &&
				    json_get_string(text, keys[i], big, sizeof(big)) == -EINVAL &&
				    json_get_object(text, keys[i], big, sizeof(big)) == -EINVAL);
	}
	static const char *const objects[] = {"previous_boot", "capabilities", "generations", ""};
	for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); i++)
		check_object(text, objects[i]);
	check_string_array(text, "stack");
	/* every object of an array, each read like a phase of the boot record */
	const char *cur = json_find_array(text, "phases");
	for (int n = 0; cur; n++) {
		char obj[512], name[64];
		uint64_t start;
		const char *before = cur;
		int r = json_array_next(&cur, obj, sizeof(obj));
		FUZZ_ASSERT(r >= -ENAMETOOLONG && r <= 1);
		if (r <= 0)
			break;
		FUZZ_ASSERT(cur > before && n < 8192);
		FUZZ_ASSERT(obj[0] == '{' && obj[strlen(obj) - 1] == '}');
		json_get_string(obj, "name", name, sizeof(name));
		json_get_u64(obj, "start_ns", &start);
	}
	free(text);
	return 0;
}
