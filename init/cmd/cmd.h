/* SPDX-License-Identifier: GPL-2.0-only */
/* The runtime commands of the installed tool (init/cmd/): the command table and what they share. */
#ifndef STRATA_CMD_H
#define STRATA_CMD_H

#include "request.h"

#include <stdbool.h>
#include <stdio.h>

/*
 * One row of commands.c's table per command: what `strata help` lists, what
 * `strata NAME --help` prints, what docs/commands.md holds (make
 * docs-commands). The usage starts "usage: strata NAME ..." (synopsis lines,
 * then two-space indented options and notes) and ends in a newline.
 */
struct command {
	const char *name;
	int (*fn)(int argc, char **argv); /* argv[0]: the name; 0 ok, 1 error, 2 usage */
	const char *summary;		  /* one line, lower case, no full stop */
	const char *usage;
};

/* The row of NAME, or NULL. */
const struct command *command_find(const char *name);
/* strata's main once it is not PID 1: help, --version, multi-call names, dispatch. */
int command_main(int argc, char **argv);
/* NAME's usage text to OUT. */
void cmd_usage(const char *name, FILE *out);
/*
 * A usage error of command NAME: "strata NAME: <fmt ...>: expected
 * <expected>" and NAME's usage on stderr. Returns 2, the exit status.
 */
int cmd_usage_error(const char *name, const char *expected, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * The commands. Each is called with argv[0] its row's name and never sees
 * -h or --help (command_main prints the usage for those); a usage error
 * returns cmd_usage_error(argv[0], ...).
 */
int cmd_help(int argc, char **argv);
int cmd_status(int argc, char **argv);
/* reset.c: reset and OpenWrt's names for reset --full (firstboot, factoryreset, jffs2*) */
int cmd_reset(int argc, char **argv);
int cmd_revert(int argc, char **argv);
int cmd_layers(int argc, char **argv);
int cmd_which(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
/*
 * mount.c: OpenWrt's mount_root as preinit and /etc/init.d/done call it; the
 * init assembled the root already, so it checks what fstools would have
 * left (/overlay, /rom) and says so.
 */
int cmd_mount_root(int argc, char **argv);
/* update.c: firmware updates into the slot not running, and the boot counters */
int cmd_update(int argc, char **argv);
/* strata status's line on the slots, when the booted one was rolled back to; silent otherwise */
void update_status_note(char booted);
/* button.c: the reset-button daemon and the hotplug handler */
int cmd_button(int argc, char **argv);
int cmd_button_event(int argc, char **argv);

/*
 * reset.c: records a reset of KIND (REQ_RESET_USER or REQ_RESET_FULL) with
 * the keep list of /etc/strata/keep, after the checks and the confirmation
 * (none with RESET_YES), then reboots with RESET_REBOOT. Messages start
 * "CMD: ". Returns the exit status (0 done, 1 error or declined); with
 * RESET_REBOOT it returns only when it failed.
 */
#define RESET_YES 1u
#define RESET_REBOOT 2u
int reset_request(const char *cmd, enum req_kind kind, unsigned flags);

/* common.c: what layers, which and diff share */
struct stack;
struct stat;
/* S as a JSON string to F ("" when it does not fit) */
void json_str(FILE *f, const char *s);
/* stack_read(), saying why it failed as "strata CMD: ..." */
int read_stack(const char *cmd, struct stack *st);
bool is_whiteout(const struct stat *st);
bool is_opaque(const char *path);
/* "directory", "file", "symlink" or "other" */
const char *kind_of(const struct stat *st);

#endif
