/* SPDX-License-Identifier: GPL-2.0-only */
/* Fixed configuration for host unit tests, independent of any board's .config. */
#define CONFIG_STRATA_BOARD "test"
#define CONFIG_STRATA_UBI 0
#define CONFIG_STRATA_ROOT_PART "rootfs"
#define CONFIG_STRATA_DATA_PART "rootfs_data"
#define CONFIG_STRATA_RECORD_PART "strata_log"
#define CONFIG_STRATA_INIT "/sbin/init"
#define CONFIG_STRATA_ROOTWAIT_MS 5000
#define CONFIG_STRATA_FATAL_SHELL 1
#define CONFIG_STRATA_FATAL_HANG 0
#define CONFIG_STRATA_FATAL_REBOOT 0
#define CONFIG_STRATA_DEGRADED_TMPFS 1
#define CONFIG_STRATA_DEGRADED_EMERGENCY 0
#define CONFIG_STRATA_DEGRADED_REBOOT 0
#define CONFIG_STRATA_REBOOT_DELAY_S 5
#define CONFIG_STRATA_EMERGENCY_SHELL 1
#define CONFIG_STRATA_DEBUG 0
#define STRATA_VERSION "test"
