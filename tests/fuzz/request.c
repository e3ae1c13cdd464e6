// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: the reset/revert request file on the data flash; what parses formats back the same.
 */
/* fuzz-sources: request.c strbuf.c */
#include "../../init/lib/request.h"
#include "fuzz.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	static struct request req, again;
	static char buf[32768];
	unsigned bad = 0;
	int r = request_parse(text, &req, &bad);
	FUZZ_ASSERT(r == 0 || r == -EBADMSG);
	if (r == 0) {
		FUZZ_ASSERT(req.id && req.kind != REQ_NONE);
		FUZZ_ASSERT(req.n_keep <= REQ_MAX_KEEP && req.n_revert <= REQ_MAX_REVERT);
		FUZZ_ASSERT(request_format(&req, buf, sizeof(buf)) > 0);
		FUZZ_ASSERT(request_parse(buf, &again, &bad) == 0);
		FUZZ_ASSERT(again.id == req.id && again.kind == req.kind);
		FUZZ_ASSERT(again.n_keep == req.n_keep && again.n_revert == req.n_revert);
		for (size_t i = 0; i < req.n_keep; i++)
			FUZZ_ASSERT(strcmp(again.keep[i], req.keep[i]) == 0);
		for (size_t i = 0; i < req.n_revert; i++)
			FUZZ_ASSERT(strcmp(again.revert[i].path, req.revert[i].path) == 0 &&
				    again.revert[i].layer == req.revert[i].layer);
	}
	free(text);
	return 0;
}
