// SPDX-License-Identifier: GPL-2.0-only
/* U-Boot and GRUB environments: round trips, every rejection, redundant copies, RAUC counting. */
#define UNIT_NAME "bootenv"
#include "unit.h"
#include "../../init/lib/bootenv.h"
#include "../../init/lib/record.h"

#include <errno.h>
#include <stdint.h>

static struct bootenv env, env2;

static void put32le(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* One U-Boot copy made by hand: data (dlen bytes, zero padded), its CRC, the flag if hdr is 5. */
static void mk_copy(unsigned char *copy, size_t size, size_t hdr, unsigned char flag,
		    const char *data, size_t dlen)
{
	memset(copy, 0, size);
	memcpy(copy + hdr, data, dlen);
	if (hdr == 5)
		copy[4] = flag;
	put32le(copy, crc32_ieee(0, copy + hdr, size - hdr));
}

#define DATA(s) s, sizeof(s) - 1 /* a literal with its embedded NULs */

static void crc_is_zlibs(void)
{
	CHECK(crc32_ieee(0, "123456789", 9) == 0xcbf43926u);
}

static void uboot_round_trip(void)
{
	static unsigned char img[0x1000], again[0x1000];
	unsigned copy = 9;
	CHECK(bootenv_init(&env, BOOTENV_UBOOT, sizeof(img)) == 0);
	CHECK(bootenv_set(&env, "bootcmd", "run a\nrun b") == 0);
	CHECK(bootenv_set(&env, "BOOT_ORDER", "A B") == 0);
	CHECK(bootenv_set(&env, "BOOT_A_LEFT", "3") == 0);
	CHECK(bootenv_serialize_uboot(&env, img, sizeof(img), &copy) == 0);
	CHECK(copy == 0);
	/* sorted by name, one empty entry after them, 0x00 to the end */
	static const char data[] = "BOOT_A_LEFT=3\0BOOT_ORDER=A B\0bootcmd=run a\nrun b\0";
	CHECK(memcmp(img + 4, data, sizeof(data)) == 0);
	int zero = 1;
	for (size_t i = 4 + sizeof(data); i < sizeof(img); i++)
		zero &= img[i] == 0;
	CHECK(zero);
	CHECK((img[0] | img[1] << 8 | img[2] << 16 | (uint32_t)img[3] << 24) ==
	      crc32_ieee(0, img + 4, sizeof(img) - 4));

	CHECK(bootenv_parse_uboot(&env2, img, sizeof(img), 0) == 0);
	CHECK(env2.count == 3 && env2.format == BOOTENV_UBOOT);
	CHECK_STR(bootenv_get(&env2, "bootcmd"), "run a\nrun b");
	CHECK_STR(bootenv_get(&env2, "BOOT_ORDER"), "A B");
	CHECK(bootenv_get(&env2, "BOOT") == NULL);
	CHECK(bootenv_serialize_uboot(&env2, again, sizeof(again), &copy) == 0);
	CHECK(memcmp(img, again, sizeof(img)) == 0);

	/* alpha="hello world", zeta=1 in 8 KiB: Python's zlib.crc32 of the data area */
	static unsigned char fw[0x2000];
	CHECK(bootenv_init(&env, BOOTENV_UBOOT, sizeof(fw)) == 0);
	CHECK(bootenv_set(&env, "zeta", "1") == 0);
	CHECK(bootenv_set(&env, "alpha", "hello world") == 0);
	CHECK(bootenv_serialize_uboot(&env, fw, sizeof(fw), &copy) == 0);
	CHECK(fw[0] == 0x65 && fw[1] == 0xa7 && fw[2] == 0x27 && fw[3] == 0x2c);

	/* by name, not by entry: "a" before "a.b" though '.' is below '=' */
	CHECK(bootenv_init(&env, BOOTENV_UBOOT, 64) == 0);
	CHECK(bootenv_set(&env, "a.b", "2") == 0);
	CHECK(bootenv_set(&env, "a", "1") == 0);
	CHECK(bootenv_set(&env, "B", "3") == 0);
	CHECK(bootenv_serialize_uboot(&env, img, 64, &copy) == 0);
	CHECK(memcmp(img + 4, "B=3\0a=1\0a.b=2\0\0", 16) == 0);

	/* an empty environment is one empty entry */
	CHECK(bootenv_init(&env, BOOTENV_UBOOT, 16) == 0);
	CHECK(bootenv_serialize_uboot(&env, img, 16, &copy) == 0);
	CHECK(bootenv_parse_uboot(&env2, img, 16, 0) == 0 && env2.count == 0);
	CHECK(bootenv_serialize_uboot(&env, img, 15, &copy) == -EINVAL);
	CHECK(bootenv_serialize_grub(&env, img, 16) == -EINVAL);
}

static void uboot_import_rules(void)
{
	static unsigned char img[64];
	/* "name=" deletes (also an earlier value), "#..." is a comment, the later value holds */
	mk_copy(img, sizeof(img), 4, 0, DATA("a=1\0b=2\0#note\0a=3\0b=\0c=\0\0"));
	CHECK(bootenv_parse_uboot(&env, img, sizeof(img), 0) == 0);
	CHECK(env.count == 1);
	CHECK_STR(bootenv_get(&env, "a"), "3");
	CHECK(bootenv_get(&env, "b") == NULL && bootenv_get(&env, "c") == NULL);
	/* a value may hold '=' and any byte but NUL */
	mk_copy(img, sizeof(img), 4, 0, DATA("k=x=y\t\x01\xff\0\0"));
	CHECK(bootenv_parse_uboot(&env, img, sizeof(img), 0) == 0);
	CHECK_STR(bootenv_get(&env, "k"), "x=y\t\x01\xff");
	CHECK(bootenv_get(&env, "k=x") == NULL);
	/* the whole data area used, no padding */
	mk_copy(img, 13, 4, 0, DATA("a=1\0b=2\0\0"));
	CHECK(bootenv_parse_uboot(&env, img, 13, 0) == 0 && env.count == 2);
}

static void uboot_rejections(void)
{
	static unsigned char img[64];
	mk_copy(img, sizeof(img), 4, 0, DATA("a=1\0\0"));
	img[5] ^= 1;
	CHECK(bootenv_parse_uboot(&env, img, sizeof(img), 0) == -EBADMSG);
	memset(img, 0xff, sizeof(img));
	CHECK(bootenv_parse_uboot(&env, img, sizeof(img), 0) == -ENODATA);
	memset(img, 0, sizeof(img));
	CHECK(bootenv_parse_uboot(&env, img, sizeof(img), 0) ==
	      -EBADMSG); /* CRC of zeros is not 0 */

	static const struct {
		const char *data;
		size_t len;
	} bad[] = {
	    {DATA("a=1\0noequals\0\0")}, /* a name without '=' */
	    {DATA("=1\0\0")},		 /* an empty name */
	    {DATA("a\x01=1\0\0")},	 /* control characters */
	    {DATA("a\nb=1\0\0")},
	    {DATA("a\x7f=1\0\0")},
	    {DATA(" a=1\0\0")}, /* U-Boot would read "a" */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		mk_copy(img, sizeof(img), 4, 0, bad[i].data, bad[i].len);
		int r = bootenv_parse_uboot(&env, img, sizeof(img), 0);
		if (r != -EBADMSG)
			fprintf(stderr, "  bad[%zu]: %d\n", i, r);
		CHECK(r == -EBADMSG);
		CHECK(env.count == 0 && env.used == 0); /* and ready for a new one */
		CHECK(bootenv_set(&env, "fresh", "1") == 0);
	}
	/* no terminating empty entry: the last entry ends at the end, or is cut */
	mk_copy(img, 12, 4, 0, DATA("a=1\0b=2\0"));
	CHECK(bootenv_parse_uboot(&env, img, 12, 0) == -EBADMSG);
	mk_copy(img, 12, 4, 0, DATA("a=123456"));
	CHECK(bootenv_parse_uboot(&env, img, 12, 0) == -EBADMSG);
	/* sizes no image has */
	CHECK(bootenv_parse_uboot(&env, img, 4, 0) == -EINVAL);
	CHECK(bootenv_parse_uboot(&env, img, 11, 1) == -EINVAL);
	CHECK(bootenv_parse_uboot(&env, img, 10, 1) == -EINVAL);
	CHECK(bootenv_init(&env, BOOTENV_UBOOT, 4) == -EINVAL);
	CHECK(bootenv_init(&env, BOOTENV_GRUB, 25) == -EINVAL);
	CHECK(bootenv_init(&env, (enum bootenv_format)7, 1024) == -EINVAL);
}

static void set_rules_and_enospc(void)
{
	static unsigned char img[32];
	unsigned copy;
	CHECK(bootenv_init(&env, BOOTENV_UBOOT, sizeof(img)) == 0);
	static const char *const bad_names[] = {"", "a=b", "a\nb", "a\tb", "#a", " a", "\x7f"};
	for (size_t i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++) {
		CHECK(bootenv_set(&env, bad_names[i], "1") == -EINVAL);
		CHECK(bootenv_unset(&env, bad_names[i]) == -EINVAL);
	}
	CHECK(bootenv_set(&env, NULL, "1") == -EINVAL);
	CHECK(bootenv_set(&env, "a", NULL) == -EINVAL);
	CHECK(bootenv_set(&env, "a b", "1") == 0); /* U-Boot allows a blank inside */
	CHECK(bootenv_unset(&env, "a b") == 0);
	/* 28 bytes of data: entries and the terminator fit exactly, one more byte does not */
	CHECK(bootenv_set(&env, "a", "0123456789") == 0);  /* 13 */
	CHECK(bootenv_set(&env, "b", "012345678") == 0);   /* 12, 25 */
	CHECK(bootenv_set(&env, "c", "0") == -ENOSPC);	   /* 4, 29 */
	CHECK(bootenv_set(&env, "c", "") == 0);		   /* unsets nothing */
	CHECK(bootenv_set(&env, "b", "0123456789a") == 0); /* 14, 27, + 1 */
	CHECK(bootenv_set(&env, "b", "0123456789ab") == -ENOSPC);
	CHECK_STR(bootenv_get(&env, "b"), "0123456789a"); /* unchanged */
	CHECK(bootenv_serialize_uboot(&env, img, sizeof(img), &copy) == 0);
	CHECK(img[sizeof(img) - 1] == 0 && img[sizeof(img) - 2] == 0);
	/* in place: the other entries stay */
	CHECK(bootenv_set(&env, "a", "1") == 0);
	CHECK_STR(bootenv_get(&env, "a"), "1");
	CHECK_STR(bootenv_get(&env, "b"), "0123456789a");
	CHECK(bootenv_set(&env, "b", "") == 0); /* U-Boot: "" unsets */
	CHECK(bootenv_get(&env, "b") == NULL && env.count == 1);
	CHECK(bootenv_unset(&env, "b") == -ENOENT);
	CHECK(bootenv_unset(&env, "a") == 0);
	CHECK(env.count == 0 && env.used == 0);

	/* the store's bounds: variables, then text */
	static unsigned char big[1 << 17];
	CHECK(bootenv_init(&env, BOOTENV_UBOOT, sizeof(big)) == 0);
	char name[16];
	int ok = 1;
	for (int i = 0; i < BOOTENV_VARS_MAX; i++) {
		snprintf(name, sizeof(name), "v%d", i);
		ok &= bootenv_set(&env, name, "x") == 0;
	}
	CHECK(ok);
	CHECK(bootenv_set(&env, "one_more", "x") == -ENOSPC);
	CHECK(bootenv_set(&env, "v7", "replacing is not one more") == 0);
	CHECK(bootenv_serialize_uboot(&env, big, sizeof(big), &copy) == 0);
	CHECK(bootenv_parse_uboot(&env2, big, sizeof(big), 0) == 0);
	CHECK(env2.count == BOOTENV_VARS_MAX);
	CHECK_STR(bootenv_get(&env2, "v1023"), "x");
	static char huge[BOOTENV_TEXT_MAX];
	memset(huge, 'h', sizeof(huge) - 1);
	huge[sizeof(huge) - 1] = '\0';
	CHECK(bootenv_init(&env, BOOTENV_UBOOT, sizeof(big)) == 0);
	CHECK(bootenv_set(&env, "h", huge) == -ENOSPC);
	huge[sizeof(huge) - 3] = '\0'; /* "h=" and the NUL: exactly the store */
	CHECK(bootenv_set(&env, "h", huge) == 0);
	CHECK(env.used == BOOTENV_TEXT_MAX);
	CHECK(bootenv_serialize_uboot(&env, big, sizeof(big), &copy) == 0);
	CHECK(bootenv_parse_uboot(&env2, big, sizeof(big), 0) == 0);
	/* an image holding more text than the store */
	memset(big + 4, 'h', sizeof(big) - 6);
	big[4] = 'x';
	big[5] = '=';
	big[sizeof(big) - 2] = big[sizeof(big) - 1] = 0;
	put32le(big, crc32_ieee(0, big + 4, sizeof(big) - 4));
	CHECK(bootenv_parse_uboot(&env2, big, sizeof(big), 0) == -ENOSPC);
	CHECK(env2.count == 0);
}

/* A redundant pair by hand: copy 0 with flag f0 and value v0 of "which", copy 1 likewise. */
#define PAIR 64
static unsigned char pair[2 * PAIR];
static void mk_pair(unsigned char f0, int ok0, unsigned char f1, int ok1)
{
	mk_copy(pair, PAIR, 5, f0, DATA("which=0\0\0"));
	mk_copy(pair + PAIR, PAIR, 5, f1, DATA("which=1\0\0"));
	if (!ok0)
		pair[6] ^= 0x40;
	if (!ok1)
		pair[PAIR + 6] ^= 0x40;
}

static int pick(unsigned char f0, int ok0, unsigned char f1, int ok1)
{
	mk_pair(f0, ok0, f1, ok1);
	int r = bootenv_parse_uboot(&env, pair, sizeof(pair), 1);
	if (r < 0)
		return r;
	const char *w = bootenv_get(&env, "which");
	return w && (unsigned)(*w - '0') == env.active ? *w - '0' : -100;
}

static void redundant_copy_selection(void)
{
	CHECK(pick(1, 1, 2, 1) == 1);
	CHECK(pick(2, 1, 1, 1) == 0);
	CHECK(pick(255, 1, 0, 1) == 1); /* 0 follows 255 */
	CHECK(pick(0, 1, 255, 1) == 0);
	CHECK(pick(254, 1, 255, 1) == 1);
	CHECK(pick(0, 1, 1, 1) == 1);
	CHECK(pick(7, 1, 7, 1) == 0); /* equal: copy 0, as U-Boot */
	CHECK(pick(9, 0, 1, 1) == 1); /* the higher flag, but a bad CRC */
	CHECK(pick(1, 1, 9, 0) == 0);
	CHECK(pick(1, 0, 2, 0) == -EBADMSG);
	memset(pair, 0xff, sizeof(pair));
	CHECK(bootenv_parse_uboot(&env, pair, sizeof(pair), 1) == -ENODATA);
	mk_pair(3, 1, 0, 1);
	memset(pair + PAIR, 0xff, PAIR); /* copy 1 erased */
	CHECK(bootenv_parse_uboot(&env, pair, sizeof(pair), 1) == 0 && env.active == 0);
	/* the copy read has a right CRC but bad content: no falling back, as U-Boot */
	mk_pair(1, 1, 2, 1);
	mk_copy(pair + PAIR, PAIR, 5, 2, DATA("nonsense\0\0"));
	CHECK(bootenv_parse_uboot(&env, pair, sizeof(pair), 1) == -EBADMSG);
}

/* 300 writes from a first one in copy first: each goes to the copy not read,
   with the next flag, and reading the pair again finds it. */
static int writes_alternate(unsigned first)
{
	static unsigned char out[PAIR];
	unsigned copy = 9;
	int ok = bootenv_init(&env, BOOTENV_UBOOT_REDUNDANT, PAIR) == 0;
	ok &= bootenv_set(&env, "n", "0") == 0;
	ok &= bootenv_serialize_uboot(&env, out, sizeof(out), &copy) == 0;
	ok &= copy == 1 && out[4] == 1; /* as libubootenv on an erased pair */
	memset(pair, 0xff, sizeof(pair));
	memcpy(pair + PAIR * first, out, PAIR);
	char n[8];
	/* 300 writes: the flag wraps 255 -> 0 */
	for (int i = 1; i <= 300; i++) {
		ok &= bootenv_parse_uboot(&env, pair, sizeof(pair), 1) == 0;
		unsigned was = env.active;
		unsigned char flag = env.flag;
		snprintf(n, sizeof(n), "%d", i);
		ok &= bootenv_set(&env, "n", n) == 0;
		ok &= bootenv_serialize_uboot(&env, out, sizeof(out), &copy) == 0;
		ok &= copy == (was ^ 1u) && out[4] == (unsigned char)(flag + 1);
		memcpy(pair + PAIR * copy, out, PAIR);
	}
	ok &= bootenv_parse_uboot(&env, pair, sizeof(pair), 1) == 0;
	const char *n300 = bootenv_get(&env, "n");
	return ok && n300 && !strcmp(n300, "300") && env.flag == (unsigned char)301;
}

static void redundant_writes_alternate(void)
{
	/* the 255 in copy 1, then in copy 0 */
	CHECK(writes_alternate(1));
	CHECK(writes_alternate(0));
	static unsigned char out[PAIR];
	unsigned copy;
	/* a torn write (bad CRC) leaves the copy read before */
	CHECK(bootenv_set(&env, "n", "torn") == 0);
	CHECK(bootenv_serialize_uboot(&env, out, sizeof(out), &copy) == 0);
	out[10] ^= 1;
	memcpy(pair + PAIR * copy, out, PAIR);
	CHECK(bootenv_parse_uboot(&env, pair, sizeof(pair), 1) == 0);
	CHECK_STR(bootenv_get(&env, "n"), "300");
	/* the redundant header is a byte longer */
	CHECK(bootenv_init(&env, BOOTENV_UBOOT, 10) == 0);
	CHECK(bootenv_set(&env, "a", "12") == 0);
	CHECK(bootenv_init(&env, BOOTENV_UBOOT_REDUNDANT, 10) == 0);
	CHECK(bootenv_set(&env, "a", "12") == -ENOSPC);
	CHECK(bootenv_set(&env, "a", "1") == 0);
}

#define GRUB_HEAD                                                                                  \
	"# GRUB Environment Block\n"                                                               \
	"# WARNING: Do not edit this file by tools other than grub-editenv!!!\n"

static void grub_round_trip_and_escaping(void)
{
	static char blk[BOOTENV_GRUB_SIZE], again[BOOTENV_GRUB_SIZE];
	CHECK(bootenv_init(&env, BOOTENV_GRUB, sizeof(blk)) == 0);
	CHECK(bootenv_serialize_grub(&env, blk, sizeof(blk)) == 0);
	CHECK(memcmp(blk, GRUB_HEAD, sizeof(GRUB_HEAD) - 1) == 0);
	CHECK(blk[sizeof(GRUB_HEAD) - 1] == '#' && blk[sizeof(blk) - 1] == '#');

	CHECK(bootenv_set(&env, "zeta", "1") == 0);
	CHECK(bootenv_set(&env, "path", "C:\\dir") == 0);
	CHECK(bootenv_set(&env, "lines", "one\ntwo\\\n") == 0);
	CHECK(bootenv_set(&env, "empty", "") == 0);  /* GRUB keeps it */
	CHECK(bootenv_set(&env, "zeta", "22") == 0); /* keeps its place */
	CHECK(bootenv_serialize_grub(&env, blk, sizeof(blk)) == 0);
	static const char body[] = GRUB_HEAD "zeta=22\n"
					     "path=C:\\\\dir\n"
					     "lines=one\\\ntwo\\\\\\\n\n"
					     "empty=\n";
	CHECK(memcmp(blk, body, sizeof(body) - 1) == 0);
	int pad = 1;
	for (size_t i = sizeof(body) - 1; i < sizeof(blk); i++)
		pad &= blk[i] == '#';
	CHECK(pad);

	CHECK(bootenv_parse_grub(&env2, blk, sizeof(blk)) == 0);
	CHECK(env2.count == 4 && env2.grub_warning);
	CHECK_STR(bootenv_get(&env2, "path"), "C:\\dir");
	CHECK_STR(bootenv_get(&env2, "lines"), "one\ntwo\\\n");
	CHECK_STR(bootenv_get(&env2, "empty"), "");
	CHECK(bootenv_serialize_grub(&env2, again, sizeof(again)) == 0);
	CHECK(memcmp(blk, again, sizeof(blk)) == 0);
	size_t pos = 0;
	CHECK_STR(bootenv_next(&env2, &pos), "zeta=22");
	CHECK_STR(bootenv_next(&env2, &pos), "path=C:\\dir");
	CHECK(bootenv_unset(&env2, "path") == 0);
	pos = 0;
	CHECK_STR(bootenv_next(&env2, &pos), "zeta=22");
	CHECK_STR(bootenv_next(&env2, &pos), "lines=one\ntwo\\\n");
	CHECK_STR(bootenv_next(&env2, &pos), "empty=");
	CHECK(bootenv_next(&env2, &pos) == NULL);

	/* a block without the warning line (older grub-editenv) is written back without it;
	   other comments are dropped, any escaped byte read as itself */
	static const char old[] = "# GRUB Environment Block\n"
				  "a=1\n"
				  "# a comment \\\n continued\n"
				  "b=\\x\\\\\n"
				  "####";
	CHECK(bootenv_parse_grub(&env2, old, sizeof(old) - 1) == 0);
	CHECK(!env2.grub_warning && env2.count == 2);
	CHECK_STR(bootenv_get(&env2, "b"), "x\\");
	CHECK(bootenv_serialize_grub(&env2, again, sizeof(old) - 1) == 0);
	static const char rewritten[] = "# GRUB Environment Block\na=1\nb=x\\\\\n";
	CHECK(memcmp(again, rewritten, sizeof(rewritten) - 1) == 0);
	pad = 1;
	for (size_t i = sizeof(rewritten) - 1; i < sizeof(old) - 1; i++)
		pad &= again[i] == '#';
	CHECK(pad);
	/* a block full to the last byte, and a name given twice (the later holds) */
	static const char full[] = "# GRUB Environment Block\nk=1\nk=2\n";
	CHECK(bootenv_parse_grub(&env2, full, sizeof(full) - 1) == 0);
	CHECK(env2.count == 1);
	CHECK_STR(bootenv_get(&env2, "k"), "2");
}

static void grub_rejections(void)
{
	static const char *const bad[] = {
	    "# GRUB Environment Blocc\n#####",
	    "# GRUB Environment Block\nnoequals\n###",
	    "# GRUB Environment Block\na=1\n\n###", /* an empty line */
	    "# GRUB Environment Block\n=1\n###",
	    "# GRUB Environment Block\na\tb=1\n###",
	    "# GRUB Environment Block\n a=1\n###",
	    "# GRUB Environment Block\na=1",	 /* no newline before the end */
	    "# GRUB Environment Block\na=1\\\n", /* the newline escaped */
	    "# GRUB Environment Block\na=1\\",	 /* a backslash at the end */
	    "# GRUB Environment Block\na=1\\\0\n" /* a NUL (length below) */,
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		size_t len = strlen(bad[i]) + (i == 9 ? 2 : 0);
		int r = bootenv_parse_grub(&env, bad[i], len);
		if (r != -EBADMSG)
			fprintf(stderr, "  bad[%zu]: %d\n", i, r);
		CHECK(r == -EBADMSG);
		CHECK(env.count == 0);
	}
	static const char nul[] = "# GRUB Environment Block\na=\0\n#";
	CHECK(bootenv_parse_grub(&env, nul, sizeof(nul) - 1) == -EBADMSG);
	CHECK(bootenv_parse_grub(&env, "# GRUB Environment Block\n", 25) == -EINVAL);
	CHECK(bootenv_parse_grub(&env, "# GRUB Environment Block\n#", 26) == 0);
	CHECK(env.count == 0 && !env.grub_warning);

	/* escaping counts: the header lines take 94 bytes, "k=" and the newline 3 */
	static char blk[128];
	CHECK(bootenv_init(&env, BOOTENV_GRUB, sizeof(blk)) == 0);
	char v[40];
	memset(v, '\\', 15);
	v[15] = '\0';
	CHECK(bootenv_set(&env, "k", v) == 0);	      /* 94 + 3 + 30 = 127 */
	CHECK(bootenv_set(&env, "x", "") == -ENOSPC); /* 3 more */
	strcat(v, "n");
	CHECK(bootenv_set(&env, "k", v) == 0); /* 128 */
	strcat(v, "\n");
	CHECK(bootenv_set(&env, "k", v) == -ENOSPC); /* 130 */
	CHECK(bootenv_serialize_grub(&env, blk, sizeof(blk)) == 0);
	CHECK(blk[sizeof(blk) - 1] == '\n');
	CHECK(bootenv_parse_grub(&env2, blk, sizeof(blk)) == 0);
	CHECK(strlen(bootenv_get(&env2, "k")) == 16);
	CHECK(bootenv_serialize_grub(&env2, blk, 64) == -EINVAL);
	CHECK(bootenv_serialize_uboot(&env2, blk, sizeof(blk), &(unsigned){0}) == -EINVAL);
}

static void rauc_slot_selection(void)
{
	char slot[8];
	CHECK(bootenv_init(&env, BOOTENV_UBOOT, 0x1000) == 0);
	/* the script's defaults, then A three times, B three times, then a reset */
	static const char *const want[] = {"A", "A", "A", "B", "B", "B"};
	int ok = 1;
	for (size_t i = 0; i < 6; i++) {
		ok &= bootenv_rauc_pick(&env, 3, slot, sizeof(slot)) == 0;
		ok &= strcmp(slot, want[i]) == 0;
	}
	CHECK(ok);
	CHECK_STR(bootenv_get(&env, "BOOT_ORDER"), "A B");
	CHECK_STR(bootenv_get(&env, "BOOT_A_LEFT"), "0");
	CHECK_STR(bootenv_get(&env, "BOOT_B_LEFT"), "0");
	CHECK(bootenv_rauc_pick(&env, 3, slot, sizeof(slot)) == -ENOENT);
	CHECK_STR(bootenv_get(&env, "BOOT_A_LEFT"), "3");
	CHECK_STR(bootenv_get(&env, "BOOT_B_LEFT"), "3");
	CHECK(bootenv_rauc_pick(&env, 3, slot, sizeof(slot)) == 0);
	CHECK_STR(slot, "A");
	CHECK_STR(bootenv_get(&env, "BOOT_A_LEFT"), "2");

	/* the order the update set; mark good refills; names without a count are skipped */
	CHECK(bootenv_set(&env, "BOOT_ORDER", " C\tB  A ") == 0);
	CHECK(bootenv_rauc_pick(&env, 3, slot, sizeof(slot)) == 0);
	CHECK_STR(slot, "B");
	CHECK_STR(bootenv_get(&env, "BOOT_B_LEFT"), "2");
	CHECK(bootenv_rauc_mark_good(&env, "B", 3) == 0);
	CHECK_STR(bootenv_get(&env, "BOOT_B_LEFT"), "3");
	CHECK(bootenv_rauc_mark_good(&env, "", 3) == -EINVAL);
	CHECK(bootenv_rauc_mark_good(&env, "A B", 3) == -EINVAL);
	CHECK(bootenv_rauc_mark_good(&env, "A=", 3) == -EINVAL);

	/* U-Boot's arithmetic: test reads decimal, setexpr hex in and out */
	CHECK(bootenv_set(&env, "BOOT_ORDER", "A B") == 0);
	CHECK(bootenv_set(&env, "BOOT_A_LEFT", "10") == 0);
	CHECK(bootenv_rauc_pick(&env, 3, slot, sizeof(slot)) == 0);
	CHECK_STR(slot, "A");
	CHECK_STR(bootenv_get(&env, "BOOT_A_LEFT"), "f"); /* 0x10 - 1 */
	CHECK(bootenv_rauc_pick(&env, 3, slot, sizeof(slot)) == 0);
	CHECK_STR(slot, "B"); /* test reads "f" as 0 */
	CHECK(bootenv_set(&env, "BOOT_A_LEFT", "0x2") == 0);
	CHECK(bootenv_set(&env, "BOOT_B_LEFT", "-1") == 0);
	CHECK(bootenv_rauc_pick(&env, 3, slot, sizeof(slot)) == 0);
	CHECK_STR(slot, "A");
	CHECK_STR(bootenv_get(&env, "BOOT_A_LEFT"), "1");
	CHECK(bootenv_set(&env, "BOOT_A_LEFT", "") == 0); /* unset: the default again */
	CHECK(bootenv_rauc_pick(&env, 5, slot, sizeof(slot)) == 0);
	CHECK_STR(bootenv_get(&env, "BOOT_A_LEFT"), "4");

	/* a slot name longer than the caller's buffer: nothing changes */
	CHECK(bootenv_set(&env, "BOOT_ORDER", "recovery") == 0);
	CHECK(bootenv_set(&env, "BOOT_recovery_LEFT", "1") == 0);
	CHECK(bootenv_rauc_pick(&env, 3, slot, sizeof(slot)) == -ENAMETOOLONG);
	CHECK_STR(bootenv_get(&env, "BOOT_recovery_LEFT"), "1");
	char wide[16];
	CHECK(bootenv_rauc_pick(&env, 3, wide, sizeof(wide)) == 0);
	CHECK_STR(wide, "recovery");
	CHECK_STR(bootenv_get(&env, "BOOT_recovery_LEFT"), "0");

	/* no room for the defaults */
	CHECK(bootenv_init(&env, BOOTENV_UBOOT, 16) == 0);
	CHECK(bootenv_rauc_pick(&env, 3, slot, sizeof(slot)) == -ENOSPC);
}

int main(void)
{
	RUN(crc_is_zlibs);
	RUN(uboot_round_trip);
	RUN(uboot_import_rules);
	RUN(uboot_rejections);
	RUN(set_rules_and_enospc);
	RUN(redundant_copy_selection);
	RUN(redundant_writes_alternate);
	RUN(grub_round_trip_and_escaping);
	RUN(grub_rejections);
	RUN(rauc_slot_selection);
	return UNIT_EXIT();
}
