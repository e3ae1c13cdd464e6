/* SPDX-License-Identifier: GPL-2.0-only */
/* UBI volumes: look up by name in sysfs, create the data volume on first boot. */
#ifndef STRATA_UBI_H
#define STRATA_UBI_H

#include <stddef.h>
#include <stdint.h>

/* Returns 0 with *vol_id set, -ENOENT when ubiN has no such volume, -errno. */
int ubi_find_volume(int ubi, const char *name, int *vol_id);
/* Writes the names of ubiN's volumes, quoted and comma separated. */
void ubi_list_volumes(int ubi, char *buf, size_t len);
/* Creates a dynamic volume over percent of the free space. Returns 0 with *vol_id and *bytes, or
 * -errno. */
int ubi_create_volume(int ubi, const char *name, unsigned percent, int *vol_id, uint64_t *bytes);
/* The ubiblock device of a volume, created when missing. Returns 0 or -errno. */
int ubi_block_device(int ubi, int vol_id, char *dev, size_t devlen);

#endif
