// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: the keep list (/etc/strata/keep, -k paths) and path normalisation. */
/* fuzz-sources: request.c strbuf.c */
#include "../../init/lib/request.h"
#include "fuzz.h"

#include <errno.h>

/* A normalised path is absolute, without "//", "/./", "/../" or a trailing '/'. */
static void check_normal(const char *p)
{
	char again[REQ_PATH_MAX];
	FUZZ_ASSERT(p[0] == '/' && p[1] && p[strlen(p) - 1] != '/');
	FUZZ_ASSERT(!strstr(p, "//") && !strstr(p, "/./") && !strstr(p, "/../"));
	FUZZ_ASSERT(strcmp(p, "/..") != 0 && (strlen(p) < 3 || strcmp(p + strlen(p) - 3, "/..")));
	FUZZ_ASSERT(path_normalize(p, again, sizeof(again)) == 0 && strcmp(p, again) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	static struct request req;
	unsigned bad = 0;
	memset(&req, 0, sizeof(req));
	int r = request_add_keep_list(&req, text, &bad);
	FUZZ_ASSERT(r == 0 || r == -EINVAL || r == -ENAMETOOLONG || r == -E2BIG || r == -EBADMSG);
	FUZZ_ASSERT(r == 0 || bad > 0);
	FUZZ_ASSERT(req.n_keep <= REQ_MAX_KEEP);
	for (size_t i = 0; i < req.n_keep; i++)
		check_normal(req.keep[i]);
	/* the whole input as one path, as `strata revert PATH` takes it */
	char norm[REQ_PATH_MAX], tiny[3];
	if (path_normalize(text, norm, sizeof(norm)) == 0)
		check_normal(norm);
	if (path_normalize(text, tiny, sizeof(tiny)) == 0)
		FUZZ_TERMINATED(tiny);
	free(text);
	return 0;
}
