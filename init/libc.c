// SPDX-License-Identifier: GPL-2.0-only
/*
 * The C library's number parsing (strtoul, strtoull, strtol, atoi) and
 * strstr, replaced in the static musl binary as the allocator is
 * (init/malloc.c). musl builds the first on a stdio scanner (__intscan over a
 * fake FILE) and strstr on the two-way algorithm: about 3 KiB of the binary
 * for parsing short numbers in sysfs files, the command line and the records,
 * and finding a word in a uevent file. Same results, end pointers and ERANGE
 * as the C standard says (tests/unit/test_libc.c compares them with glibc's
 * on every kind of input); strstr is the plain scan, quadratic in the worst
 * case, which its inputs (a few KiB, needles of a few bytes) never reach.
 * Host builds (glibc) keep their own.
 */
#include <stdlib.h> /* __GLIBC__ on glibc */

#if !defined(__GLIBC__) || defined(LIBC_OWN_TEST)
#include <errno.h>
#include <limits.h>
#include <string.h>

static unsigned digit_value(unsigned char c)
{
	if ((unsigned)(c - '0') < 10u)
		return (unsigned)(c - '0');
	c |= 32;
	return (unsigned)(c - 'a') < 26u ? (unsigned)(c - 'a') + 10u : 99u;
}

/*
 * The magnitude of the number at s in base (0: by its prefix), at most lim
 * (else lim + 1 and ERANGE; a ULLONG_MAX limit is reported through *over);
 * *neg for a '-'.
 */
static unsigned long long scan_number(const char *s, char **end, int base, int *neg,
				      unsigned long long lim, int *over)
{
	const char *p = s;
	unsigned long long v = 0;
	*neg = *over = 0;
	if (base < 0 || base == 1 || base > 36) {
		errno = EINVAL;
		if (end)
			*end = (char *)s;
		return 0;
	}
	while (*p == ' ' || (unsigned char)(*p - '\t') < 5u)
		p++;
	*neg = *p == '-';
	if (*p == '+' || *p == '-')
		p++;
	if ((base == 0 || base == 16) && p[0] == '0' && (p[1] | 32) == 'x' &&
	    digit_value((unsigned char)p[2]) < 16) {
		p += 2;
		base = 16;
	} else if (base == 0) {
		base = *p == '0' ? 8 : 10;
	}
	const char *digits = p;
	for (unsigned d; (d = digit_value((unsigned char)*p)) < (unsigned)base; p++) {
		if (v > (lim - d) / (unsigned)base)
			*over = 1;
		else
			v = v * (unsigned)base + d;
	}
	if (end)
		*end = (char *)(p == digits ? s : p);
	if (*over)
		errno = ERANGE;
	return v;
}

unsigned long long strtoull(const char *restrict s, char **restrict end, int base)
{
	int neg, over;
	unsigned long long v = scan_number(s, end, base, &neg, ULLONG_MAX, &over);
	return over ? ULLONG_MAX : neg ? -v : v;
}

unsigned long strtoul(const char *restrict s, char **restrict end, int base)
{
	int neg, over;
	unsigned long long v = scan_number(s, end, base, &neg, ULONG_MAX, &over);
	return over ? ULONG_MAX : neg ? -(unsigned long)v : (unsigned long)v;
}

long strtol(const char *restrict s, char **restrict end, int base)
{
	int neg, over;
	/* the magnitude of LONG_MIN is LONG_MAX + 1: the limit depends on the sign */
	unsigned long long v = scan_number(s, end, base, &neg, (unsigned long)LONG_MAX + 1, &over);
	if (!over && !neg && v > LONG_MAX) {
		over = 1;
		errno = ERANGE;
	}
	if (over)
		return neg ? LONG_MIN : LONG_MAX;
	return neg ? (long)(0 - (unsigned long)v) : (long)v;
}

int atoi(const char *s)
{
	return (int)strtol(s, NULL, 10);
}

char *strstr(const char *h, const char *n)
{
	size_t len = strlen(n);
	for (;; h++) {
		if (strncmp(h, n, len) == 0)
			return (char *)h;
		if (!*h)
			return NULL;
	}
}
#endif
