// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: the add-on layer list in the initramfs (/etc/strata/lowers). */
/* fuzz-sources: lowers.c */
#include "../../init/lib/lowers.h"
#include "fuzz.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lower_layer l[LOWERS_MAX];
	unsigned bad = 0;
	char *text = fuzz_cstr(data, size);
	int n = lowers_parse(text, l, LOWERS_MAX - 1, &bad);
	FUZZ_ASSERT(n == -EBADMSG || (n >= 0 && n <= LOWERS_MAX - 1));
	if (n < 0)
		FUZZ_ASSERT(bad >= 1);
	for (int i = 0; i < n; i++) {
		size_t len = strnlen(l[i].name, sizeof(l[i].name));
		FUZZ_ASSERT(len > 0 && len < sizeof(l[i].name));
		FUZZ_ASSERT(strspn(l[i].name, "abcdefghijklmnopqrstuvwxyz0123456789_-") == len);
		for (int j = 0; j < i; j++)
			FUZZ_ASSERT(strcmp(l[i].name, l[j].name) != 0);
	}
	free(text);
	return 0;
}
