// SPDX-License-Identifier: GPL-2.0-only
/*
 * mount_root: OpenWrt's fstools command, as /lib/preinit/80_mount_root and
 * /etc/init.d/done call it. The init assembled the root before procd ran, so
 * there is nothing to mount: it says what the root is and leaves it alone.
 */
#include "cmd.h"
#include "json.h"
#include "paths.h"
#include "util.h"

#include <stdio.h>
#include <string.h>

int cmd_mount_root(int argc, char **argv)
{
	static char text[16384];
	const char *mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "done") == 0 || strcmp(mode, "stop") == 0)
		return 0; /* no .fs_state to set: the init keeps its own state */
	if (mode[0]) {
		fprintf(stderr,
			"mount_root: '%s' is not supported: strata assembled the root at boot\n",
			mode);
		return 1;
	}
	if (read_file(STRATA_BOOT_RECORD, text, sizeof(text)) <= 0) {
		fprintf(stderr,
			"mount_root: cannot read %s: the root was not assembled by strata\n",
			STRATA_BOOT_RECORD);
		return 1;
	}
	char state[16] = "", reason[256] = "";
	json_get_string(text, "mode", state, sizeof(state));
	json_get_string(text, "degraded_reason", reason, sizeof(reason));
	if (strcmp(state, "degraded") == 0)
		printf(
		    "mount_root: the root is assembled, DEGRADED: changes are kept in RAM (%s)\n",
		    reason);
	else
		printf("mount_root: the root is assembled (strata); nothing to mount\n");
	return 0;
}
