// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: identifying what a flash partition holds from its first bytes. */
/* fuzz-sources: flashid.c */
#include "../../init/lib/flashid.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a heap copy of exactly size bytes, so ASan sees any read beyond it */
	unsigned char *buf = malloc(size ? size : 1);
	memcpy(buf, data, size);
	enum flash_content c = flash_identify(buf, size);
	FUZZ_ASSERT(c >= FLASH_ERASED && c <= FLASH_UNKNOWN);
	FUZZ_ASSERT(strcmp(flash_content_name(c), "?") != 0);
	if (c == FLASH_ERASED)
		FUZZ_ASSERT(size > 0 && buf[0] == 0xff);
	free(buf);
	return 0;
}
