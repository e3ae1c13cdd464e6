/* SPDX-License-Identifier: GPL-2.0-only */
/* /proc/mtd parsing: find flash partitions by name. Pure code. */
#ifndef STRATA_MTD_H
#define STRATA_MTD_H

#include <stddef.h>
#include <stdint.h>

struct mtd_part {
	int index;	    /* N of /dev/mtdN, mtdblockN */
	uint64_t size;	    /* bytes */
	uint32_t erasesize; /* bytes */
	char name[64];
};

/*
 * Looks up a partition by exact name in the text of /proc/mtd.
 * Returns 0, -ENOENT when absent, -EINVAL when the text is malformed.
 */
int mtd_find(const char *proc_mtd, const char *name, struct mtd_part *out);

/* Writes the names found, quoted and comma separated ("none" when empty). */
void mtd_list_names(const char *proc_mtd, char *buf, size_t len);

#endif
