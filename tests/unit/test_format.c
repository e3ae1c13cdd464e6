// SPDX-License-Identifier: GPL-2.0-only
/* The printf engine against the C library's printf, conversion by conversion. */
#define UNIT_NAME "format"
#include "unit.h"
#include "../../init/lib/format.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>

static int ours(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	FILE *f = fmemopen(buf, len, "w");
	va_start(ap, fmt);
	int n = format_vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
	return n;
}

#define SAME(...)                                                                                  \
	do {                                                                                       \
		char ours_[256] = "", libc_[256] = "";                                             \
		int na_ = ours(ours_, sizeof(ours_), __VA_ARGS__);                                 \
		int nb_ = snprintf(libc_, sizeof(libc_), __VA_ARGS__);                             \
		CHECK(na_ == nb_);                                                                 \
		CHECK_STR(ours_, libc_);                                                           \
	} while (0)

static void conversions_match_the_c_library(void)
{
	SAME("plain text");
	SAME("%s|%-8s|%8s|%.3s|%.*s|%-*s|", "abc", "left", "right", "truncated", 2, "xyz", 6, "w");
	SAME("%d %i %5d %-5d| %05d %+d % d %.3d %d", 42, -7, 123, 123, -42, 5, 5, 7, 0);
	SAME("%u %lu %llu %zu %ju", 1u, 123456789ul, 18446744073709551615ull, (size_t)99,
	     (uintmax_t)7);
	SAME("%ld %lld %lld", -123456789l, -9223372036854775807ll - 1, 9223372036854775807ll);
	SAME("%x %X %04x %#x %#o %o %08llx", 255u, 255u, 10u, 255u, 8u, 8u, 0xdeadbeefull);
	SAME("%hhu %hu %hhd %hd", 300, 70000, 200, 40000);
	SAME("%c%c%% 100%%", 'o', 'k');
	SAME("%03llu.%03llu ms", 1ull, 5ull);
	SAME("%.0u|%.0d|%5.0d|", 0u, 0, 0);
	SAME("%p", (void *)0x1234);
	SAME("%s", (const char *)NULL);
}

static void percent_m_is_the_saved_errno(void)
{
	char buf[128], want[128];
	errno = ENOENT;
	ours(buf, sizeof(buf), "cannot open '%s': %m", "x");
	snprintf(want, sizeof(want), "cannot open 'x': %s", strerror(ENOENT));
	CHECK_STR(buf, want);
}

static void long_output_and_truncation_count_everything(void)
{
	char big[1000], small[8];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	char *out = malloc(2048);
	CHECK(ours(out, 2048, "[%s]", big) == 1001);
	CHECK(strlen(out) == 1001 && out[0] == '[' && out[1000] == ']');
	free(out);
	CHECK(ours(small, sizeof(small), "%s", "0123456789") == 10);
}

static void unknown_conversions_are_refused(void)
{
	char buf[16];
	CHECK(ours(buf, sizeof(buf), "%q") == -1);
}

int main(void)
{
	RUN(conversions_match_the_c_library);
	RUN(percent_m_is_the_saved_errno);
	RUN(long_output_and_truncation_count_everything);
	RUN(unknown_conversions_are_refused);
	return UNIT_EXIT();
}
