/* SPDX-License-Identifier: GPL-2.0-only */
/* Where the init leaves the assembled stack and what it reads: the paths the commands share. */
#ifndef STRATA_PATHS_H
#define STRATA_PATHS_H

#ifndef STRATA_RUN_DIR /* the host tests run in a directory of their own */
#define STRATA_RUN_DIR "/run/strata"
#endif
#define STRATA_BOOT_RECORD STRATA_RUN_DIR "/boot.json"
#define STRATA_LOWER_DIR STRATA_RUN_DIR "/lower"
#define STRATA_DATA_DIR STRATA_RUN_DIR "/data"
#define STRATA_STORE STRATA_DATA_DIR "/" CONFIG_STRATA_STORE_DIR
#define STRATA_USERDATA_DIR STRATA_RUN_DIR "/userdata"
#define STRATA_SYSTEM_DIR STRATA_RUN_DIR "/system"
/* strata's names at the top of the data filesystem (docs/reset.md) */
#define STATE_NAME "strata.state"
#define REQUEST_NAME "strata.request"
#define UPDATE_NAME "strata.update"
#define TRASH_NAME "strata.trash"
#define RECOVERED_NAME "strata.recovered"
#define STRATA_REQUEST_FILE STRATA_DATA_DIR "/" REQUEST_NAME
/* space held back on the data filesystem so that a reset can be recorded on a full flash */
#define STRATA_RESERVE_NAME "strata.reserve"
/* the paths a reset keeps, one a line (strata reset -k PATH: one more) */
#define STRATA_KEEP_LIST "/etc/strata/keep"
/* what OpenWrt's sysupgrade keeps: the packages' lists, and their conffiles */
#define KEEP_D "/lib/upgrade/keep.d"
#define OPKG_STATUS "/usr/lib/opkg/status"
#define STRATA_NEWROOT "/newroot"
#define STRATA_MODULE_LIST "/etc/strata/modules"
#define STRATA_MODULE_DEPS "/etc/strata/modules.dep"
#define STRATA_MODULE_BUILTIN "/etc/strata/modules.builtin" /* names built into the kernel */
#define STRATA_MODULE_DIR "/lib/modules"

#endif
