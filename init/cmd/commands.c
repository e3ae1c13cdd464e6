// SPDX-License-Identifier: GPL-2.0-only
/*
 * The command table: each command's name, function, summary and usage, the
 * one source of `strata help`, `strata NAME --help`, the usage errors and
 * docs/commands.md (make docs-commands). A command is a row here and its
 * file in init/cmd/.
 */
#include "buttonfsm.h"
#include "cmd.h"
#include "paths.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define KEEP_OPTS "[-y] [-r] [-k PATH]..."
/* one string for the three names (the compiler merges equal literals) */
#define RESET_FULL_USAGE                                                                           \
	"usage: firstboot|factoryreset|jffs2reset " KEEP_OPTS "\n"                                 \
	"  OpenWrt's names for strata reset --full.\n"

static const struct command commands[] = {
    {"help", cmd_help, "the commands, or one command's usage", NULL},
    {"status", cmd_status, "how this boot assembled the root",
     "usage: strata status [--json]\n"
     "  Shows how this boot assembled the root filesystem.\n"
     "  Exit status: 0 normal, 1 degraded or no record, 2 usage.\n"},
    {"reset", cmd_reset, "drop the user layer or both layers at the next boot",
     "usage: strata reset --user|--full " KEEP_OPTS "\n"
     "       strata reset --cancel\n"
     "  --user    drop the user layer: the system layer's state shows again\n"
     "  --full    drop the user and the system layer: the firmware's state shows again\n"
     "  -k PATH   keep PATH with its current content (also: one path a line in " STRATA_KEEP_LIST
     ")\n"
     "  -y        do not ask for confirmation\n"
     "  -r        reboot now; otherwise the reset happens at the next boot\n"
     "  --cancel  withdraw a pending request\n"
     "firstboot and factoryreset are reset --full.\n"},
    {"revert", cmd_revert, "drop single paths from a layer at the next boot",
     "usage: strata revert [--system] [-y] [-r] PATH...\n"
     "  Removes each PATH's copy, whiteout or opaque directory from the user layer\n"
     "  (--system, or a stack without a user overlay: the system layer) at the next\n"
     "  boot, so the version below shows again; a directory reverts with everything\n"
     "  in it.\n"},
    {"layers", cmd_layers, "the layers behind / and the system overlay",
     "usage: strata layers [--json]\n"
     "  The layers behind / (user overlay) and " STRATA_SYSTEM_DIR
     " (system overlay), top first.\n"},
    {"which", cmd_which, "which layer provides a path",
     "usage: strata which [--json] PATH\n"
     "  Which layer provides PATH now: a copy-up, a whiteout or an opaque directory in an\n"
     "  upper, or a file of lower N (with its partition or volume name); for a metacopy file,\n"
     "  the object it redirects to with its pinned and measured fs-verity digest. Paths that\n"
     "  do not exist report the whiteout that hides them.\n"},
    {"diff", cmd_diff, "what an upper changes against the layers below",
     "usage: strata diff [--user|--system] [--json]\n"
     "  What an upper changes against what lies below it: added, modified, deleted\n"
     "  (whiteouts), opaque directories, with sizes. Default: the layer / writes\n"
     "  to (--user; --system on a stack without a user overlay).\n"},
    {"analyze", cmd_analyze, "this boot's phases as a table or an SVG",
     "usage: strata analyze [--json] [--svg FILE]\n"
     "  This boot's init phases from " STRATA_BOOT_RECORD ", as a table or an SVG timeline.\n"},
    {"update", cmd_update, "install a signed firmware bundle into the other slot",
     "usage: strata update install [--allow-downgrade] [--slot A|B] [-n|-c|--keep-all]\n"
     "                             [-k PATH]... [--config FILE] BUNDLE|-\n"
     "       strata update status [--json] [--config FILE]\n"
     "       strata update mark-good [--config FILE]\n"
     "       strata update rollback [--config FILE]\n"
     "  install writes a signed bundle into the slot not running and makes it the next\n"
     "  boot's; its first boot carries this slot's kept paths (-n none, -c all of /etc,\n"
     "  --keep-all everything); mark-good keeps the running slot (a boot not from a\n"
     "  slot: nothing to keep, exit 0); rollback boots the other slot next.\n"
     "  Settings: /etc/strata/update.conf. Exit status: 0 done, 1 refused or failed, 2 usage.\n"},
    {"button", cmd_button, "reset button daemon: hold times select a reset",
     "usage: strata button\n"
     "  The reset-button daemon: how long the button is held selects a reboot, a user\n"
     "  reset or a full reset (settings: " BUTTON_CONF_FILE "). Logs to the kernel log.\n"},
    {"button-event", cmd_button_event, "OpenWrt hotplug button event (BUTTON, ACTION, SEEN)",
     "usage: BUTTON=reset ACTION=pressed|released SEEN=SECONDS strata button-event\n"
     "  OpenWrt's button hotplug handler: the daemon's policy for a release after\n"
     "  SEEN seconds. Other buttons are ignored.\n"},
#define OPENWRT_NAME(name, fn, summary, usage) {#name, fn, summary, usage},
#include "openwrt_names.def"
#undef OPENWRT_NAME
};

const struct command *command_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (strcmp(name, commands[i].name) == 0)
			return &commands[i];
	return NULL;
}

static void list_commands(FILE *out)
{
	fputs("usage: strata COMMAND [ARGS...]\n\ncommands:\n", out);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(out, "  %-12s %s\n", commands[i].name, commands[i].summary);
	fputs("\nstrata help COMMAND or strata COMMAND --help: that command's usage.\n"
	      "As PID 1 in an initramfs, strata assembles the root and switches into it.\n",
	      out);
}

void cmd_usage(const char *name, FILE *out)
{
	const struct command *c = command_find(name);
	if (c && c->usage)
		fputs(c->usage, out);
	else
		list_commands(out);
}

static void vusage_error(const char *name, const char *expected, const char *fmt, va_list ap)
{
	fprintf(stderr, "strata%s%s: ", name ? " " : "", name ? name : "");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, ": expected %s\n", expected);
	if (name)
		cmd_usage(name, stderr);
	else
		list_commands(stderr);
}

int cmd_usage_error(const char *name, const char *expected, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vusage_error(name, expected, fmt, ap);
	va_end(ap);
	return 2;
}

/* strata's own usage errors ("strata: ...") */
static int main_usage_error(const char *expected, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static int main_usage_error(const char *expected, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vusage_error(NULL, expected, fmt, ap);
	va_end(ap);
	return 2;
}

static bool is_help(const char *arg)
{
	return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

int cmd_help(int argc, char **argv)
{
	if (argc > 2)
		return cmd_usage_error(argv[0], "at most one COMMAND", "too many arguments");
	if (argc == 2 && !command_find(argv[1]))
		return cmd_usage_error(argv[0], "a command of this list", "unknown command '%s'",
				       argv[1]);
	cmd_usage(argc == 2 ? argv[1] : argv[0], stdout);
	return 0;
}

int command_main(int argc, char **argv)
{
	const char *base = strrchr(argv[0], '/');
	const struct command *c = NULL;
	base = base ? base + 1 : argv[0];
	/* multi-call: the program name is the command */
	if (strcmp(base, "strata") != 0 && strcmp(base, "init") != 0 && (c = command_find(base))) {
		argv[0] = (char *)base;
	} else if (argc < 2) {
		return main_usage_error("a COMMAND", "no command");
	} else if (is_help(argv[1])) {
		list_commands(stdout);
		return 0;
	} else if (strcmp(argv[1], "--version") == 0) {
		puts("strata " STRATA_VERSION);
		return 0;
	} else if (!(c = command_find(argv[1]))) {
		return main_usage_error("a command of this list", "unknown command '%s'", argv[1]);
	} else {
		argc--;
		argv++;
	}
	/* -h or --help anywhere before a "--": the usage, whatever else the line says */
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (is_help(argv[i])) {
			cmd_usage(c->name, stdout);
			return 0;
		}
	return c->fn(argc, argv);
}
