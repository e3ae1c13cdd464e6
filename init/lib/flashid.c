// SPDX-License-Identifier: GPL-2.0-only
/* What a flash partition holds, from its first bytes, before anything mounts it. Pure code. */
#include "flashid.h"

#include <stdint.h>
#include <string.h>

static const char *const names[] = {
    [FLASH_ERASED] = "erased flash",
    [FLASH_JFFS2] = "jffs2",
    [FLASH_DEADCODE] = "0xdeadc0de format marker",
    [FLASH_UBI] = "UBI",
    [FLASH_UBIFS] = "ubifs",
    [FLASH_SQUASHFS] = "squashfs",
    [FLASH_EXT4] = "ext2/3/4",
    [FLASH_F2FS] = "f2fs",
    [FLASH_UNKNOWN] = "unrecognised data",
};

const char *flash_content_name(enum flash_content c)
{
	return (unsigned)c < sizeof(names) / sizeof(names[0]) ? names[c] : "?";
}

static uint16_t le16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

enum flash_content flash_identify(const unsigned char *buf, size_t len)
{
	if (len >= 4) {
		/* jffs2 nodes start with magic 0x1985 in the host's (here: little) endianness */
		if (le16(buf) == 0x1985 || (buf[0] == 0x19 && buf[1] == 0x85))
			return FLASH_JFFS2;
		if (memcmp(buf, "\xde\xad\xc0\xde", 4) == 0)
			return FLASH_DEADCODE;
		if (memcmp(buf, "UBI#", 4) == 0)
			return FLASH_UBI;
		if (le32(buf) == 0x06101831)
			return FLASH_UBIFS;
		if (memcmp(buf, "hsqs", 4) == 0)
			return FLASH_SQUASHFS;
	}
	if (len >= 1024 + 4 && le32(buf + 1024) == 0xF2F52010)
		return FLASH_F2FS;
	if (len >= 1080 + 2 && le16(buf + 1080) == 0xEF53)
		return FLASH_EXT4;
	size_t n = len < FLASHID_BYTES ? len : FLASHID_BYTES;
	for (size_t i = 0; i < n; i++)
		if (buf[i] != 0xff)
			return FLASH_UNKNOWN;
	return n ? FLASH_ERASED : FLASH_UNKNOWN;
}
