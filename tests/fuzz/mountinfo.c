// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: /proc/self/mountinfo and overlay option strings, as `strata layers` reads them. */
/* fuzz-sources: inspect.c json.c util.c */
#include "../../init/lib/inspect.h"
#include "fuzz.h"

#include <errno.h>

static void options(const char *opts)
{
	static const char *const keys[] = {"upperdir", "lowerdir", "workdir", ""};
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		char big[512], tiny[4];
		int r = ovl_option(opts, keys[i], big, sizeof(big));
		FUZZ_ASSERT(r == 0 || r == -ENOENT || r == -ENAMETOOLONG);
		if (r == 0)
			FUZZ_TERMINATED(big);
		if (ovl_option(opts, keys[i], tiny, sizeof(tiny)) == 0)
			FUZZ_TERMINATED(tiny);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	static const char *const mps[] = {"/", "/run/strata/system", "/run/strata/data"};
	for (size_t i = 0; i < sizeof(mps) / sizeof(mps[0]); i++) {
		struct mount_entry e;
		int r = mountinfo_find(text, mps[i], &e);
		FUZZ_ASSERT(r == 0 || r == -ENOENT || r == -ENAMETOOLONG);
		if (r == 0) {
			FUZZ_ASSERT(strcmp(e.mountpoint, mps[i]) == 0);
			FUZZ_TERMINATED(e.fstype);
			FUZZ_TERMINATED(e.source);
			FUZZ_TERMINATED(e.options);
			options(e.options);
		}
	}
	options(text);
	free(text);
	return 0;
}
