// SPDX-License-Identifier: GPL-2.0-only
/*
 * init/libc.c, the static binary's strtoul, strtoull, strtol, atoi and
 * strstr, against glibc's on the same inputs: chosen edge cases, then random
 * strings of signs, blanks, prefixes and digits in every base strata uses
 * and some it does not. Value, end pointer and ERANGE/EINVAL must agree.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIBC_OWN_TEST
#define strtoull own_strtoull
#define strtoul own_strtoul
#define strtol own_strtol
#define atoi own_atoi
#define strstr own_strstr
unsigned long long own_strtoull(const char *restrict s, char **restrict end, int base);
unsigned long own_strtoul(const char *restrict s, char **restrict end, int base);
long own_strtol(const char *restrict s, char **restrict end, int base);
int own_atoi(const char *s);
char *own_strstr(const char *h, const char *n);
#include "../../init/libc.c"
#undef strtoull
#undef strtoul
#undef strtol
#undef atoi
#undef strstr

#define UNIT_NAME "libc"
#include "unit.h"

static unsigned long long seed = 88172645463325252ull;
static unsigned next_random(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (unsigned)(seed >> 11);
}

static int failures;

/* errno as the standard defines it after a call: ERANGE, EINVAL or 0 */
#define CALL(expr, value, err)                                                                     \
	do {                                                                                       \
		errno = 0;                                                                         \
		value = expr;                                                                      \
		err = errno;                                                                       \
	} while (0)

static void compare(const char *s, int base)
{
	char *e1, *e2;
	/* glibc leaves the end pointer alone for a base there is none of */
	bool valid = base == 0 || (base >= 2 && base <= 36);
	int err1, err2;
	unsigned long long u1, u2;
	unsigned long l1, l2;
	long s1, s2;
	CALL(own_strtoull(s, &e1, base), u1, err1);
	CALL(strtoull(s, &e2, base), u2, err2);
	if (u1 != u2 || (valid && e1 != e2) || err1 != err2) {
		fprintf(
		    stderr,
		    "strtoull(\"%s\", %d): %llu end+%td errno %d, glibc %llu end+%td errno %d\n", s,
		    base, u1, e1 - s, err1, u2, e2 - s, err2);
		failures++;
	}
	CALL(own_strtoul(s, &e1, base), l1, err1);
	CALL(strtoul(s, &e2, base), l2, err2);
	if (l1 != l2 || (valid && e1 != e2) || err1 != err2) {
		fprintf(stderr,
			"strtoul(\"%s\", %d): %lu end+%td errno %d, glibc %lu end+%td errno %d\n",
			s, base, l1, e1 - s, err1, l2, e2 - s, err2);
		failures++;
	}
	CALL(own_strtol(s, &e1, base), s1, err1);
	CALL(strtol(s, &e2, base), s2, err2);
	if (s1 != s2 || (valid && e1 != e2) || err1 != err2) {
		fprintf(stderr,
			"strtol(\"%s\", %d): %ld end+%td errno %d, glibc %ld end+%td errno %d\n", s,
			base, s1, e1 - s, err1, s2, e2 - s, err2);
		failures++;
	}
	/* a NULL end pointer is allowed */
	if (own_strtoul(s, NULL, base) != l1) {
		fprintf(stderr, "strtoul(\"%s\", %d) without an end pointer differs\n", s, base);
		failures++;
	}
}

static void numbers_parse_as_glibc_parses_them(void)
{
	static const char *const cases[] = {
	    "",
	    "0",
	    "-0",
	    "+",
	    "-",
	    " \t\n\v\f\r42x",
	    "0x",
	    "0X1f",
	    "0xg",
	    "-0x10",
	    "+0x",
	    "08",
	    "0777",
	    "z",
	    "Zz9",
	    "18446744073709551615",
	    "18446744073709551616",
	    "-18446744073709551615",
	    "-18446744073709551616",
	    "9223372036854775807",
	    "9223372036854775808",
	    "-9223372036854775808",
	    "-9223372036854775809",
	    "99999999999999999999999999999999 tail",
	    "0xffffffffffffffff",
	    "0x10000000000000000",
	    "4294967295",
	    "4294967296",
	    "  +-1",
	    "1 2",
	};
	static const int bases[] = {0, 2, 8, 10, 16, 36, 1, 37, -1};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		for (size_t b = 0; b < sizeof(bases) / sizeof(bases[0]); b++)
			compare(cases[i], bases[b]);

	static const char alphabet[] = " \t+-00001123456789789abcdefxXgzZ";
	char s[40];
	for (unsigned n = 0; n < 200000; n++) {
		unsigned len = next_random() % 26;
		for (unsigned i = 0; i < len; i++)
			s[i] = alphabet[next_random() % (sizeof(alphabet) - 1)];
		s[len] = '\0';
		compare(s, bases[next_random() % 6]);
	}
	/* long runs of digits: the overflow boundaries of every base */
	for (unsigned n = 0; n < 20000; n++) {
		int base = bases[1 + next_random() % 5];
		unsigned len = 1 + next_random() % 36;
		for (unsigned i = 0; i < len; i++) {
			unsigned d = next_random() % (unsigned)(base ? base : 10);
			s[i] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
		}
		s[len] = '\0';
		compare(s, base);
	}
	CHECK(own_atoi("-17x") == -17);
	CHECK(own_atoi(" 2147483647") == 2147483647);
	CHECK(failures == 0);
}

static void strstr_finds_what_glibc_finds(void)
{
	static const char *const cases[][2] = {
	    {"", ""},
	    {"abc", ""},
	    {"", "a"},
	    {"abc", "abc"},
	    {"abc", "abcd"},
	    {"aab", "ab"},
	    {"PARTNAME=rootfs\nPARTNAME=data", "PARTNAME="},
	    {"xyz", "z"},
	    {"xyz", "zz"},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(own_strstr(cases[i][0], cases[i][1]) == strstr(cases[i][0], cases[i][1]));
	char h[24], n[6];
	unsigned bad = 0;
	for (unsigned k = 0; k < 100000; k++) {
		unsigned hl = next_random() % 23, nl = next_random() % 5;
		for (unsigned i = 0; i < hl; i++)
			h[i] = "ab"[next_random() % 2];
		h[hl] = '\0';
		for (unsigned i = 0; i < nl; i++)
			n[i] = "ab"[next_random() % 2];
		n[nl] = '\0';
		bad += own_strstr(h, n) != strstr(h, n);
	}
	CHECK(bad == 0);
}

int main(void)
{
	RUN(numbers_parse_as_glibc_parses_them);
	RUN(strstr_finds_what_glibc_finds);
	return UNIT_EXIT();
}
