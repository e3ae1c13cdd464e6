// SPDX-License-Identifier: GPL-2.0-only
/* What PID 1 does when it cannot go on: emergency shell, hang or reboot. It never exits. */
#include "log.h"
#include "boot.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define EMERGENCY_SHELL "/bin/sh"

static void reap_all(void)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
}

static __attribute__((noreturn)) void hang(void)
{
	log_error("system halted; power-cycle the device");
	for (;;) {
		/* PID 1 must keep reaping orphans; wake up for SIGCHLD */
		int st;
		if (waitpid(-1, &st, 0) < 0)
			pause();
	}
}

static __attribute__((noreturn)) void do_reboot(unsigned delay_s)
{
	log_error("rebooting in %u s", delay_s);
	sleep(delay_s);
	sync();
	reboot(RB_AUTOBOOT);
	log_error("reboot failed: %m");
	hang();
}

static void run_shell(void)
{
	pid_t pid = fork();
	if (pid < 0) {
		log_error("cannot fork the emergency shell: %m");
		return;
	}
	if (pid == 0) {
		setsid();
		if (attach_console() == 0)
			ioctl(0, TIOCSCTTY, 1);
		char *const argv[] = {"sh", NULL};
		char *const envp[] = {"PATH=/sbin:/bin:/usr/sbin:/usr/bin", "HOME=/", "TERM=linux",
				      "PS1=(strata emergency) # ", NULL};
		execve(EMERGENCY_SHELL, argv, envp);
		_exit(127);
	}
	for (;;) {
		int st;
		pid_t w = waitpid(-1, &st, 0);
		if (w == pid)
			return;
		if (w < 0 && errno != EINTR)
			return;
	}
}

void emergency_shell_or_hang(const char *reason)
{
	struct stat st;
	if (stat(EMERGENCY_SHELL, &st) < 0) {
		log_error("no emergency shell at %s (CONFIG_STRATA_EMERGENCY_SHELL is off?)",
			  EMERGENCY_SHELL);
		hang();
	}
	for (;;) {
		console_print("\n*** strata: %s\n*** strata: emergency shell; "
			      "the system is NOT booted. Fix and 'reboot -f'.\n",
			      reason);
		run_shell();
		log_warn("emergency shell exited; starting it again");
		sleep(1);
	}
}

void fatal(struct strata_ctx *ctx, const char *fmt, ...)
{
	char reason[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);

	log_error("FATAL: %s", reason);
	reap_all();
	if (ctx->opts.slot[0] && !ctx->opts.fatal_given) {
		/*
		 * The bootloader started this slot and spent one of its tries: the
		 * next boot is its to choose (this slot again, or the other once this
		 * one has none left). A shell here would keep the device down.
		 */
		log_error("slot %s cannot boot: rebooting now, so that the bootloader counts the "
			  "try (strata.fatal= keeps the board's policy)",
			  ctx->opts.slot);
		do_reboot(0);
	}
	switch (ctx->opts.fatal) {
	case FATAL_REBOOT:
		do_reboot(CONFIG_STRATA_REBOOT_DELAY_S);
	case FATAL_HANG:
		hang();
	case FATAL_SHELL:
		break;
	}
	emergency_shell_or_hang(reason);
}
