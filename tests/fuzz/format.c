// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: the printf engine with a fuzzed width, precision and string. */
/* fuzz-sources: format.c */
#include "../../init/lib/format.h"
#include "fuzz.h"

#include <stdarg.h>

static int ours(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	FILE *f = fmemopen(buf, len, "w");
	if (!f)
		abort();
	va_start(ap, fmt);
	int n = format_vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 8)
		return 0;
	int width = (int8_t)data[0], prec = (int8_t)data[1];
	long long v;
	memcpy(&v, data, sizeof(v));
	char *s = fuzz_cstr(data + 8, size - 8);
	char a[512], b[512];
	int na = ours(a, sizeof(a), "[%*.*s|%-*lld|%0*llx|%.*d]", width, prec, s, width, v, width,
		      (unsigned long long)v, prec, (int)v);
	int nb = snprintf(b, sizeof(b), "[%*.*s|%-*lld|%0*llx|%.*d]", width, prec, s, width, v,
			  width, (unsigned long long)v, prec, (int)v);
	FUZZ_ASSERT(na == nb);
	FUZZ_ASSERT(strncmp(a, b, sizeof(a) - 1) == 0);
	free(s);
	return 0;
}
