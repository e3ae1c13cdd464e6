// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: the kernel command line (strata.* keys, MODULE.param= words). */
/* fuzz-sources: opts.c util.c */
#include "../../init/lib/opts.h"
#include "fuzz.h"

static void report(void *arg, const char *key, const char *why)
{
	FUZZ_ASSERT(strncmp(key, "strata.", 7) == 0 && why && *why);
	(*(int *)arg)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *cmdline = fuzz_cstr(data, size);
	struct strata_opts o;
	int reported = 0;
	opts_defaults(&o);
	int rejected = opts_parse_cmdline(&o, cmdline, report, &reported);
	FUZZ_ASSERT(rejected >= 0 && rejected == reported);
	FUZZ_TERMINATED(o.init);
	FUZZ_TERMINATED(o.root_part);
	FUZZ_TERMINATED(o.data_part);
	FUZZ_TERMINATED(o.powercut);
	FUZZ_ASSERT(o.init[0] == '/' && o.root_part[0] && o.data_part[0]);
	FUZZ_ASSERT(o.rootwait_ms <= 600000);
	FUZZ_ASSERT(o.stack_levels >= 1 && o.stack_levels <= STACK_MAX_LEVELS);
	FUZZ_ASSERT(strcmp(fatal_policy_name(o.fatal), "?") != 0);
	FUZZ_ASSERT(strcmp(degraded_policy_name(o.degraded), "?") != 0);

	/* module parameters, into the board line's buffer and into a tight one */
	static const char *const modules[] = {"phram", "block2mtd", "ubi", "x"};
	for (size_t i = 0; i < sizeof(modules) / sizeof(modules[0]); i++) {
		char params[512] = "board=1", tiny[8] = "";
		if (cmdline_module_params(cmdline, modules[i], params, sizeof(params)) == 0)
			FUZZ_ASSERT(strncmp(params, "board=1", 7) == 0);
		FUZZ_TERMINATED(params);
		cmdline_module_params(cmdline, modules[i], tiny, sizeof(tiny));
		FUZZ_TERMINATED(tiny);
	}
	free(cmdline);
	return 0;
}
