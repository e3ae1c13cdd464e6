// SPDX-License-Identifier: GPL-2.0-only
/* The boot record, /run/strata/boot.json: written by the phase runner alone. */
#include "log.h"
#include "safefs.h"
#include "boot.h"
#include "util.h"

#include <stdio.h>

void boot_record_close(struct strata_ctx *ctx)
{
	uint64_t user_ns, sys_ns;
	ctx->rec.cpu_ns = process_cpu_ns() - ctx->rec.cpu_ns;
	process_rusage_ns(&user_ns, &sys_ns);
	ctx->rec.cpu_user_ns = user_ns - ctx->rec.cpu_user_ns;
	ctx->rec.cpu_sys_ns = sys_ns - ctx->rec.cpu_sys_ns;
	char status[2048];
	if (read_file("/proc/self/status", status, sizeof(status)) > 0)
		ctx->rec.maxrss_kb = proc_status_kb(status, "VmHWM");
}

void boot_record_write(struct strata_ctx *ctx)
{
	static char json[16384];
	int n = bootrec_format_json(&ctx->rec, json, sizeof(json));
	if (n < 0) {
		log_error_errno(n, "boot record does not fit in %zu bytes", sizeof(json));
		return;
	}
	int r = write_file_atomic(STRATA_BOOT_RECORD, json, (size_t)n, false);
	if (r < 0)
		log_error_errno(r, "cannot write %s: %m", STRATA_BOOT_RECORD);
}
