/* SPDX-License-Identifier: GPL-2.0-only */
/* What a flash partition holds, from its first bytes, before anything mounts it. Pure code. */
#ifndef STRATA_FLASHID_H
#define STRATA_FLASHID_H

#include <stddef.h>

enum flash_content {
	FLASH_ERASED,	/* all 0xff: never written, first boot */
	FLASH_JFFS2,	/* a jffs2 node or clean marker */
	FLASH_DEADCODE, /* OpenWrt's "format me" marker 0xdeadc0de */
	FLASH_UBI,	/* UBI erase counter header */
	FLASH_UBIFS,	/* UBIFS node (a volume's contents) */
	FLASH_SQUASHFS,
	FLASH_EXT4, /* ext2/3/4 superblock magic at 1080 */
	FLASH_F2FS,
	FLASH_UNKNOWN, /* anything else: garbage as far as strata knows */
};

/* Needs the first 2048 bytes (fewer: only the checks that fit). */
#define FLASHID_BYTES 2048

enum flash_content flash_identify(const unsigned char *buf, size_t len);
const char *flash_content_name(enum flash_content c);

#endif
