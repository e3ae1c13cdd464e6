// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: U-Boot environments (one copy, the redundant pair) and GRUB blocks. */
/* fuzz-sources: bootenv.c record.c strbuf.c */
#include "../../init/lib/bootenv.h"
#include "../../init/lib/record.h"
#include "fuzz.h"

#include <errno.h>

static struct bootenv env, again;
static unsigned char img[2 * 8192], out[8192], out2[8192];

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* Every variable of a has the same value in b, and b has no others. */
static void same_vars(const struct bootenv *a, const struct bootenv *b)
{
	static char name[BOOTENV_TEXT_MAX];
	size_t pos = 0;
	const char *e;
	FUZZ_ASSERT(a->count == b->count && a->used == b->used);
	while ((e = bootenv_next(a, &pos))) {
		const char *eq = strchr(e, '=');
		FUZZ_ASSERT(eq && eq > e);
		memcpy(name, e, (size_t)(eq - e));
		name[eq - e] = '\0';
		const char *v = bootenv_get(b, name);
		FUZZ_ASSERT(v && strcmp(v, eq + 1) == 0);
	}
}

/* What parsed writes back, and reads back as the same; written again, the same bytes. */
static void written_back(int grub)
{
	FUZZ_ASSERT(env.count <= BOOTENV_VARS_MAX);
	if (grub) {
		FUZZ_ASSERT(bootenv_serialize_grub(&env, out, env.size) == 0);
		FUZZ_ASSERT(bootenv_parse_grub(&again, out, env.size) == 0);
		FUZZ_ASSERT(bootenv_serialize_grub(&again, out2, env.size) == 0);
		FUZZ_ASSERT(memcmp(out, out2, env.size) == 0);
		/* the order too */
		FUZZ_ASSERT(memcmp(env.text, again.text, env.used) == 0);
	} else {
		int redundant = env.format == BOOTENV_UBOOT_REDUNDANT;
		size_t hdr = redundant ? 5 : 4;
		unsigned copy = 9, copy2 = 9;
		FUZZ_ASSERT(bootenv_serialize_uboot(&env, out, env.size, &copy) == 0);
		FUZZ_ASSERT(copy == (redundant ? env.active ^ 1u : 0));
		if (redundant) { /* the written copy beside a bad one */
			unsigned char *other = img + (copy ^ 1u) * env.size;
			memset(other, 0xff, env.size);
			put32(other, ~crc32_ieee(0, other + 5, env.size - 5));
			memcpy(img + copy * env.size, out, env.size);
			FUZZ_ASSERT(bootenv_parse_uboot(&again, img, 2 * env.size, 1) == 0);
			FUZZ_ASSERT(again.active == copy && again.flag == out[4]);
		} else {
			FUZZ_ASSERT(bootenv_parse_uboot(&again, out, env.size, 0) == 0);
			FUZZ_ASSERT(out[4] != '\0' || env.count == 0);
		}
		FUZZ_ASSERT(bootenv_serialize_uboot(&again, out2, env.size, &copy2) == 0);
		FUZZ_ASSERT(memcmp(out, out2, 4) == 0 &&
			    memcmp(out + hdr, out2 + hdr, env.size - hdr) == 0);
		FUZZ_ASSERT(!redundant ||
			    (copy2 == (copy ^ 1u) && out2[4] == (unsigned char)(out[4] + 1)));
	}
	same_vars(&env, &again);
	/* U-Boot drops "name=" */
	size_t pos = 0;
	const char *e;
	while (!grub && (e = bootenv_next(&again, &pos)))
		FUZZ_ASSERT(strchr(e, '=')[1] != '\0');
}

/*
 * Input: a mode byte, then the image. Mode & 3: 0 one U-Boot copy, 1 a
 * redundant pair (two halves), 2 a GRUB block; mode & 4: the CRCs made right
 * so the data parser is reached. Then RAUC's boot-count step on what parsed.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size - 1 > sizeof(out))
		return 0;
	unsigned mode = data[0];
	size_t len = size - 1;
	memcpy(img, data + 1, len);
	int r, grub = (mode & 3) == 2, redundant = (mode & 3) == 1;
	if (grub) {
		r = bootenv_parse_grub(&env, img, len);
	} else {
		size_t copy = redundant ? len / 2 : len, hdr = redundant ? 5 : 4;
		if ((mode & 4) && copy >= hdr)
			for (int i = 0; i < (redundant ? 2 : 1); i++)
				put32(img + i * copy,
				      crc32_ieee(0, img + i * copy + hdr, copy - hdr));
		r = bootenv_parse_uboot(&env, img, len, redundant);
	}
	FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -EBADMSG || r == -ENODATA || r == -ENOSPC);
	if (r < 0) {
		FUZZ_ASSERT(env.count == 0 && env.used == 0);
		return 0;
	}
	written_back(grub);

	char slot[16];
	r = bootenv_rauc_pick(&env, 3, slot, sizeof(slot));
	FUZZ_ASSERT(r == 0 || r == -ENOENT || r == -ENOSPC || r == -ENAMETOOLONG);
	if (r == 0)
		FUZZ_ASSERT(slot[0] != '\0' && strlen(slot) < sizeof(slot));
	return 0;
}
