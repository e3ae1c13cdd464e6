/* SPDX-License-Identifier: GPL-2.0-only */
/* The list of add-on lower layers the build put in the initramfs. Pure code. */
#ifndef STRATA_LOWERS_H
#define STRATA_LOWERS_H

#include <stdbool.h>
#include <stddef.h>

#define STRATA_LOWERS_FILE "/etc/strata/lowers"
/* lowers of the system overlay: the base root plus add-ons */
#define LOWERS_MAX 8
#define LOWER_NAME_MAX 32

struct lower_layer {
	char name[LOWER_NAME_MAX]; /* partition / UBI volume name */
	char dev[48];		   /* block device mounted (set by the boot) */
	bool optional;		   /* an add-on the boot may do without */
	bool mounted;
};

/*
 * Parses "NAME [optional]" lines, top first ('#' comments, blank lines).
 * Names are [a-z0-9_-], unique and at most LOWER_NAME_MAX - 1 characters;
 * at most max entries. Returns the number of layers, or -EBADMSG with
 * *bad_line set.
 */
int lowers_parse(const char *text, struct lower_layer *out, size_t max, unsigned *bad_line);

#endif
