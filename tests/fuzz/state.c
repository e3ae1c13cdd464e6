// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: strata.state, which names the live generation of each upper. */
/* fuzz-sources: request.c strbuf.c */
#include "../../init/lib/request.h"
#include "fuzz.h"

#include <errno.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_cstr(data, size);
	struct layer_state st, again;
	char buf[128];
	int r = state_parse(text, &st);
	FUZZ_ASSERT(r == 0 || r == -EBADMSG);
	if (r == 0) {
		FUZZ_ASSERT(st.system_gen && st.user_gen);
		FUZZ_ASSERT(state_format(&st, buf, sizeof(buf)) > 0);
		FUZZ_ASSERT(state_parse(buf, &again) == 0);
		FUZZ_ASSERT(again.system_gen == st.system_gen && again.user_gen == st.user_gen &&
			    again.applied == st.applied);
	}
	free(text);
	return 0;
}
