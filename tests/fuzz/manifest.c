// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: the layer manifest in the initramfs (/etc/strata/manifest). */
/* fuzz-sources: manifest.c fsverity.c */
#include "../../init/lib/manifest.h"
#include "fuzz.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct manifest m;
	char err[MANIFEST_ERR_MAX];
	char *text = fuzz_cstr(data, size);
	memset(err, 'x', sizeof(err));
	int r = manifest_parse(&m, text, err);
	FUZZ_ASSERT(r == 0 || r == -EBADMSG || r == -E2BIG);
	if (r < 0) {
		/* a refusal names what was wrong */
		FUZZ_TERMINATED(err);
		FUZZ_ASSERT(err[0] != '\0');
	} else {
		FUZZ_ASSERT(m.n <= MANIFEST_MAX_LAYERS);
		for (size_t i = 0; i < m.n; i++) {
			FUZZ_TERMINATED(m.layers[i].name);
			FUZZ_ASSERT(m.layers[i].name[0] != '\0');
			/* every name finds its own entry first */
			const struct manifest_layer *l = manifest_find(&m, m.layers[i].name);
			FUZZ_ASSERT(l && strcmp(l->name, m.layers[i].name) == 0);
		}
	}
	free(text);
	return 0;
}
