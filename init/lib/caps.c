// SPDX-License-Identifier: GPL-2.0-only
/* The upper's rename capabilities, cached per kernel release in strata.caps. Pure code. */
#include "caps.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int caps_format(char *buf, size_t len, const char *release, unsigned caps)
{
	int n = snprintf(buf, len, "kernel %s\nrename_whiteout %d\nrename_exchange %d\n", release,
			 !!(caps & CAPS_WHITEOUT), !!(caps & CAPS_EXCHANGE));
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : n;
}

int caps_match(const char *text, size_t len, const char *release)
{
	char expect[256];
	/* the cache is one of four texts: compare it with each */
	for (unsigned c = 0; c < 4; c++) {
		int n = caps_format(expect, sizeof(expect), release, c);
		if (n > 0 && (size_t)n == len && memcmp(text, expect, len) == 0)
			return (int)c;
	}
	return -ENOENT;
}
