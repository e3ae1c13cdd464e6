// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: the JSON reader (boot.json as `strata status` and `analyze` read it back). */
/* fuzz-sources: json.c */
#include "../../init/json.h"
#include "fuzz.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	static const char *const keys[] = { "mode", "degraded_reason", "name", "" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char big[256], tiny[2];
		uint64_t u;
		int r = json_get_string(text, keys[i], big, sizeof(big));
		FUZZ_ASSERT(r == 0 || r == -ENOENT || r == -EINVAL || r == -ENAMETOOLONG);
		if (r == 0)
			FUZZ_TERMINATED(big);
		if (json_get_string(text, keys[i], tiny, sizeof(tiny)) == 0)
			FUZZ_TERMINATED(tiny);
		r = json_get_u64(text, keys[i], &u);
		FUZZ_ASSERT(r == 0 || r == -ENOENT || r == -EINVAL);
	}
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
