/* SPDX-License-Identifier: GPL-2.0-only */
/* MTD and UBI ioctls from the kernel headers mtd-abi.h and ubi-user.h (a stable ABI), which musl
 * lacks. */
#ifndef STRATA_MTD_ABI_H
#define STRATA_MTD_ABI_H

#include <stdint.h>
#include <sys/ioctl.h>

struct mtd_info_user {
	uint8_t type;
	uint32_t flags;
	uint32_t size;
	uint32_t erasesize;
	uint32_t writesize;
	uint32_t oobsize;
	uint64_t padding;
};
struct erase_info_user {
	uint32_t start;
	uint32_t length;
};
#define MEMGETINFO _IOR('M', 1, struct mtd_info_user)
#define MEMERASE _IOW('M', 2, struct erase_info_user)

#define UBI_VOL_NUM_AUTO (-1)
#define UBI_DYNAMIC_VOLUME 3
#define UBI_MAX_VOLUME_NAME 127
struct ubi_mkvol_req {
	int32_t vol_id;
	int32_t alignment;
	int64_t bytes;
	int8_t vol_type;
	uint8_t flags;
	int16_t name_len;
	int8_t padding2[4];
	char name[UBI_MAX_VOLUME_NAME + 1];
} __attribute__((packed));
#define UBI_IOCMKVOL _IOW('o', 0, struct ubi_mkvol_req)

struct ubi_leb_change_req {
	int32_t lnum;
	int32_t bytes;
	int8_t dtype;
	int8_t padding[7];
} __attribute__((packed));
#define UBI_IOCEBCH _IOW('O', 2, int32_t)
struct ubi_blkcreate_req {
	int8_t padding[128];
};
#define UBI_IOCVOLCRBLK _IOW('O', 7, struct ubi_blkcreate_req)

#define UBI_DEV_NUM_AUTO (-1)
struct ubi_attach_req {
	int32_t ubi_num;
	int32_t mtd_num;
	int32_t vid_hdr_offset;
	int16_t max_beb_per1024;
	int8_t disable_fm;
	int8_t need_resv_pool;
	int8_t padding[8];
};
#define UBI_IOCATT _IOW('o', 64, struct ubi_attach_req)

#endif
