/* SPDX-License-Identifier: GPL-2.0-only */
/* The stack as the running system sees it: mount table, uppers, lowers. For the runtime tool. */
#ifndef STRATA_INSPECT_H
#define STRATA_INSPECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mount_entry {
	char mountpoint[128];
	char fstype[32];
	char source[96];
	char options[1024]; /* per-mount and superblock options, comma separated */
	bool readonly;
};

/* Looks up the last mount at mountpoint in /proc/self/mountinfo text. Pure. */
int mountinfo_find(const char *text, const char *mountpoint, struct mount_entry *out);
/* Copies the value of "key=" from an overlay option string, unescaping '\\'. Pure. */
int ovl_option(const char *options, const char *key, char *out, size_t outlen);
/* The same for the nth occurrence of key (the new mount API repeats "lowerdir+"). */
int ovl_option_at(const char *options, const char *key, unsigned nth, char *out, size_t outlen);

#define STACK_MAX 12 /* two uppers, the lowers (LOWERS_MAX), a data-only layer */

/* One layer of the stack, top first. */
struct stack_layer {
	char role[16]; /* "user", "system", "lower" */
	char dir[160]; /* the layer's directory */
	char stack[8]; /* which overlay it belongs to: "root" or "system" */
	char name[32]; /* lowers: the partition / volume name from the boot record */
	int lower;     /* lowers: index in the system overlay, top first; -1 for uppers */
	/* lowers: the boot's fs-verity check of the layer image (boot record), or empty */
	char verity_state[16], verity_expected[65], verity_measured[65];
	char verity_mode[16];  /* "digest" or "dm-verity" */
	struct mount_entry fs; /* the filesystem holding it */
	uint64_t size, avail;  /* bytes, for the uppers */
};

struct stack {
	struct stack_layer layers[STACK_MAX];
	size_t n;
};

/* Reads the live stack: / (user overlay) over /run/strata/system over the lowers. */
int stack_read(struct stack *st);

/*
 * The overlay levels of the running system: 2 when / is a user overlay over
 * /run/strata/system, 1 when / is the system overlay itself; -errno when
 * there is no /run/strata/system (not booted by strata).
 */
int stack_levels(void);

#endif
