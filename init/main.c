// SPDX-License-Identifier: GPL-2.0-only
/* strata: PID 1 in the initramfs, runtime tool everywhere else. */
#include "log.h"
#include "boot.h"
#include "cmd.h"
#include "util.h"

#include <errno.h>
#include <stdint.h>
#include <unistd.h>

/*
 * PID 1 on a root that is not the initramfs (strata booted as init= of a real
 * root, or PID 1 of a container) must not go on: the boot would free '/'.
 * It must not exit either: the shell of that root, or a hang.
 */
static void refuse_unless_initramfs(void)
{
	uint64_t fstype = 0;
	int r = root_is_initramfs(&fstype);
	if (r == 0)
		return;
	if (r == -EINVAL)
		log_error(
		    "'/' is not an initramfs (filesystem type 0x%llx); refusing to run as the "
		    "boot init, it would free the running root",
		    (unsigned long long)fstype);
	else
		log_error_errno(r, "cannot statfs '/' (%m); refusing to run as the boot init, it "
				   "could free the running root");
	emergency_shell_or_hang("refusing to run as the boot init on this root; nothing was "
				"assembled or freed");
}

int main(int argc, char **argv)
{
	if (getpid() == 1) {
		static struct strata_ctx ctx;
		ctx.rec.init_start_ns = now_boottime_ns();
		/* PID 1 ran the kernel's initcalls before it became strata: the CPU
		 * figures are differences from here, taken at exec */
		ctx.rec.cpu_ns = process_cpu_ns();
		process_rusage_ns(&ctx.rec.cpu_user_ns, &ctx.rec.cpu_sys_ns);
		ctx.rec.cap_rename_whiteout = ctx.rec.cap_rename_exchange = -1;
		log_open();
		log_info("starting (" STRATA_VERSION ")");
		refuse_unless_initramfs();
		opts_defaults(&ctx.opts);
		boot_main(&ctx);
	}

	log_use_stderr();
	return command_main(argc, argv);
}
