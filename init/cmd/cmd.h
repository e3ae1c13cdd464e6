/* SPDX-License-Identifier: GPL-2.0-only */
/* The runtime commands of the installed tool (init/cmd/), dispatched by main.c. */
#ifndef STRATA_CMD_H
#define STRATA_CMD_H

/* argv[0] is the command name; each returns the exit status (0 ok, 1 error, 2 usage) */
int cmd_status(int argc, char **argv);
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
/* boot/button.c: the reset-button daemon and the hotplug handler */
int cmd_button(int argc, char **argv);
int cmd_button_event(int argc, char **argv);

#endif
