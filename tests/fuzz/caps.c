// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: the upper's capability cache (strata.caps) against the running kernel release. */
/* fuzz-sources: caps.c */
#include "../../init/lib/caps.h"
#include "fuzz.h"

#include <errno.h>

/* Input: the kernel release, a NUL byte, the cache file's bytes. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *release = fuzz_cstr(data, size);
	size_t rlen = strlen(release);
	const char *cache = rlen < size ? release + rlen + 1 : "";
	size_t clen = rlen < size ? size - rlen - 1 : 0;
	char buf[256];

	int c = caps_match(cache, clen, release);
	FUZZ_ASSERT(c == -ENOENT || (c >= 0 && c <= 3));
	if (c >= 0) /* only the exact text of this release is taken */
		FUZZ_ASSERT(caps_format(buf, sizeof(buf), release, (unsigned)c) == (int)clen &&
			    memcmp(buf, cache, clen) == 0);
	for (unsigned want = 0; want < 4; want++) {
		int n = caps_format(buf, sizeof(buf), release, want);
		FUZZ_ASSERT(n == -ENAMETOOLONG || (n > 0 && (size_t)n < sizeof(buf)));
		if (n > 0)
			FUZZ_ASSERT(caps_match(buf, (size_t)n, release) == (int)want);
	}
	free(release);
	return 0;
}
