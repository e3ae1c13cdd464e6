// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: the board's module list and modules.dep text, and the load order drawn from them. */
/* fuzz-sources: modules.c util.c */
#include "../../init/lib/modules.h"
#include "fuzz.h"

#include <errno.h>

static void report(void *arg, unsigned line, int err)
{
	FUZZ_ASSERT(line > 0 && (err == -EINVAL || err == -ENAMETOOLONG));
	(*(unsigned *)arg)++;
}

/* Input: the module list, a NUL byte, the dependency text. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *list = fuzz_cstr(data, size);
	size_t llen = strlen(list);
	const char *deps = llen < size ? list + llen + 1 : NULL;
	static struct modplan plan;
	unsigned bad = 0;

	int r = modplan_parse(&plan, list, deps, report, &bad);
	FUZZ_ASSERT(r == 0 || r == -E2BIG);
	FUZZ_ASSERT(plan.n <= MODPLAN_MAX);
	for (size_t i = 0; i < plan.n; i++) {
		FUZZ_TERMINATED(plan.e[i].name);
		FUZZ_TERMINATED(plan.e[i].params);
		FUZZ_ASSERT(plan.e[i].name[0]);
		/* a module only waits for one listed before it: no cycles */
		FUZZ_ASSERT((plan.e[i].deps >> i) == 0);
	}
	/* load everything, failing some: the plan always runs to its end */
	for (size_t step = 0;; step++) {
		FUZZ_ASSERT(step <= plan.n);
		int i = modplan_next(&plan);
		if (i == -ENOENT)
			break;
		FUZZ_ASSERT(i >= 0 &&
			    (size_t)i < plan.n); /* nothing else is loading: never -EAGAIN */
		plan.e[i].state = plan.e[i].name[0] == 'f' ? MOD_FAILED : MOD_DONE;
	}
	for (size_t i = 0; i < plan.n; i++)
		FUZZ_ASSERT(plan.e[i].state != MOD_PENDING && plan.e[i].state != MOD_LOADING);
	free(list);
	return 0;
}
