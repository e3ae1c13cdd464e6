/* SPDX-License-Identifier: GPL-2.0-only */
/* Device-mapper ioctls from the kernel header dm-ioctl.h (a stable ABI, interface 4), which musl
 * lacks. */
#ifndef STRATA_DM_ABI_H
#define STRATA_DM_ABI_H

#include <stdint.h>
#include <sys/ioctl.h>

struct dm_ioctl {
	uint32_t version[3];
	uint32_t data_size;  /* the whole buffer, this header included */
	uint32_t data_start; /* where the payload starts */
	uint32_t target_count;
	int32_t open_count;
	uint32_t flags;
	uint32_t event_nr;
	uint32_t padding;
	uint64_t dev; /* out: the device number (encoded as makedev does) */
	char name[128];
	char uuid[129];
	char data[7];
};

struct dm_target_spec {
	uint64_t sector_start;
	uint64_t length;
	int32_t status;
	uint32_t next; /* from the start of this spec to the next, 8-aligned */
	char target_type[16];
	/* the parameter string follows */
};

#define DM_IOCTL 0xfd
#define DM_DEV_CREATE _IOWR(DM_IOCTL, 3, struct dm_ioctl)
#define DM_DEV_REMOVE _IOWR(DM_IOCTL, 4, struct dm_ioctl)
#define DM_DEV_SUSPEND _IOWR(DM_IOCTL, 6, struct dm_ioctl)
#define DM_TABLE_LOAD _IOWR(DM_IOCTL, 9, struct dm_ioctl)
#define DM_TABLE_STATUS _IOWR(DM_IOCTL, 12, struct dm_ioctl)
#define DM_READONLY_FLAG (1u << 0)

#endif
