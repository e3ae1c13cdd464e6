/* SPDX-License-Identifier: GPL-2.0-only */
/* Boot options: Kconfig defaults overridden by strata.* kernel command line keys. */
#ifndef STRATA_OPTS_H
#define STRATA_OPTS_H

#include <stdbool.h>
#include <stddef.h>

enum fatal_policy { FATAL_SHELL, FATAL_HANG, FATAL_REBOOT };
enum degraded_policy { DEGRADED_TMPFS, DEGRADED_EMERGENCY, DEGRADED_REBOOT };

struct strata_opts {
	char init[128];	    /* strata.init=     program exec'd after switch_root */
	char root_part[64]; /* strata.root=     MTD name of the squashfs lower */
	char data_part[64]; /* strata.data=     MTD name of the writable upper */
	char user_part[64]; /* strata.user=     the user layer's own partition, "" for none */
	char slot[2];	    /* strata.slot=     the A/B slot the bootloader started, "" for none */
	enum fatal_policy fatal;       /* strata.fatal=    shell|hang|reboot */
	bool fatal_given;	       /* strata.fatal= was on the command line */
	enum degraded_policy degraded; /* strata.degraded= tmpfs|emergency|reboot */
	unsigned rootwait_ms;	       /* strata.rootwait= ms to wait for partitions */
	bool debug;		       /* strata.debug */
	char powercut[24];     /* strata.powercut= test hook (CONFIG_STRATA_FAULT_INJECTION) */
	bool legacy_mount;     /* strata.mountapi=legacy test hook: as if fsopen were ENOSYS */
	bool fault_root_move;  /* strata.fault=root-move test hook: the kernel refuses the move */
	unsigned stack_levels; /* strata.stack=    1: system overlay only, 2: system + user */
	bool stack_collapsed;  /* "system+user": both layers in one overlay, one level */
};

/* The deepest overlay nesting the kernel allows (FILESYSTEM_MAX_STACK_DEPTH). */
#define STACK_MAX_LEVELS 2

/*
 * Parses an overlay stack, bottom first: "system", "system user" (words
 * separated by spaces or commas: the user overlay nested over the system
 * overlay) or "system+user" ('+' joins layers into one overlay: the user and
 * the system layer in one level). Returns NULL with *levels (the layers: 1 or
 * 2) and *collapsed set, or why the text is refused (a complete sentence
 * fragment); both are then untouched.
 */
const char *stack_parse(const char *text, unsigned *levels, bool *collapsed);

/*
 * The partition of lower layer NAME in the booted slot: NAME itself, or with
 * a slot, NAME_<slot in lower case> ("rootfs_b"): each slot has its own
 * lowers; the data partition is shared. -ENAMETOOLONG if it does not fit.
 */
int opts_slot_part(const struct strata_opts *o, const char *name, char *buf, size_t len);

/* Called once per rejected key; why is a complete sentence fragment. */
typedef void (*opts_report_fn)(void *arg, const char *key, const char *why);

void opts_defaults(struct strata_opts *o);
/* Returns the number of rejected keys; valid keys are applied regardless. */
int opts_parse_cmdline(struct strata_opts *o, const char *cmdline, opts_report_fn report,
		       void *arg);

/*
 * Splits the next word off a kernel command line the way the kernel does
 * (double quotes group, a quote may start before the key). Returns 1 with
 * key/val filled, 0 at the end, -ENAMETOOLONG when a word does not fit (it is
 * skipped). val is "" and *has_val false for a bare key.
 */
int cmdline_next(const char **cursor, char *key, size_t keylen, char *val, size_t vallen,
		 bool *has_val);

/*
 * Collects "MODULE.param=value" words for one module, as modprobe does, into
 * "param=value ..." appended to out (which holds a NUL-terminated string).
 * '-' and '_' are the same in module names. Returns 0 or -ENAMETOOLONG.
 */
int cmdline_module_params(const char *cmdline, const char *module, char *out, size_t outlen);

/*
 * What the kernel drops of the command line's words for a built-in phram or
 * block2mtd: until the driver starts it keeps one "phram.phram=" (or
 * "block2mtd.block2mtd=") in one buffer, so only the last creates a device.
 * Every earlier one is appended to out as "phram=value ...", to be written
 * to sysfs as the board's own are. Other modules: nothing. 0 or -ENAMETOOLONG.
 */
int cmdline_builtin_dropped(const char *cmdline, const char *module, char *out, size_t outlen);

const char *fatal_policy_name(enum fatal_policy p);
const char *degraded_policy_name(enum degraded_policy p);

#endif
