// SPDX-License-Identifier: GPL-2.0-only
/* The C library's printf family (printf, fprintf, snprintf, ...) formats through format.c. */
#include "format.h"

int vfprintf(FILE *restrict f, const char *restrict fmt, va_list ap)
{
	return format_vfprintf(f, fmt, ap);
}
