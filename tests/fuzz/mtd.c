// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: the text of /proc/mtd. */
/* fuzz-sources: mtd.c */
#include "../../init/lib/mtd.h"
#include "fuzz.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	static const char *const names[] = {"rootfs", "rootfs_data", "", "strata_log"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct mtd_part p;
		int r = mtd_find(text, names[i], &p);
		FUZZ_ASSERT(r == 0 || r == -ENOENT || r == -EINVAL);
		if (r == 0)
			FUZZ_ASSERT(strcmp(p.name, names[i]) == 0 && p.index >= 0 &&
				    p.index <= 1023);
	}
	/* the list of names, into buffers from none to roomy */
	for (size_t len = 0; len <= 64; len += 9) {
		char *buf = malloc(len ? len : 1);
		mtd_list_names(text, buf, len);
		if (len)
			FUZZ_ASSERT(memchr(buf, '\0', len) != NULL);
		free(buf);
	}
	free(text);
	return 0;
}
