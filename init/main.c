// SPDX-License-Identifier: GPL-2.0-only
/* strata: PID 1 in the initramfs, runtime tool everywhere else. */
#include "log.h"
#include "boot.h"
#include "cmd.h"
#include "util.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} commands[] = {
    {"status", cmd_status, "how this boot assembled the root"},
    {"reset", cmd_reset, "drop the user layer or both layers at the next boot"},
    {"revert", cmd_revert, "drop single paths from a layer at the next boot"},
    {"layers", cmd_layers, "the layers behind / and the system overlay"},
    {"which", cmd_which, "which layer provides a path"},
    {"diff", cmd_diff, "what an upper changes against the layers below"},
    {"analyze", cmd_analyze, "this boot's phases as a table or an SVG"},
    {"update", cmd_update, "install a signed firmware bundle into the other slot"},
    {"button", cmd_button, "reset button daemon: hold times select a reset"},
    {"button-event", cmd_button_event, "OpenWrt hotplug button event (BUTTON, ACTION, SEEN)"},
    {"firstboot", cmd_reset, "OpenWrt name: reset --full"},
    {"factoryreset", cmd_reset, "OpenWrt name: reset --full"},
    {"jffs2reset", cmd_reset, "OpenWrt name (fstools): reset --full"},
    {"jffs2mark", cmd_reset, "OpenWrt name (fstools): reset --full -y"},
    {"mount_root", cmd_mount_root, "OpenWrt name (fstools): the root is assembled already"},
};

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

static void usage(FILE *out)
{
	fputs("usage: strata COMMAND [ARGS...]\n\ncommands:\n", out);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].help);
	fputs("\nAs PID 1 in an initramfs, strata assembles the root and switches into it.\n", out);
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
	const char *base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	if (strcmp(base, "strata") != 0 && strcmp(base, "init") != 0) {
		/* multi-call: the program name is the command */
		for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
			if (strcmp(base, commands[i].name) == 0) {
				argv[0] = (char *)base;
				return commands[i].fn(argc, argv);
			}
	}
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		puts("strata " STRATA_VERSION);
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "strata: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
