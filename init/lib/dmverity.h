/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dm-verity's hash tree (format 1, sha256, 4096-byte blocks, no superblock),
 * as veritysetup writes it after the data of a layer image. Pure code.
 */
#ifndef STRATA_DMVERITY_H
#define STRATA_DMVERITY_H

#include "fsverity.h"

#include <stddef.h>
#include <stdint.h>

#define DMVERITY_BLOCK 4096u
#define DMVERITY_SALT_SIZE 32

/* Blocks of the tree for n data blocks (0 for one block: the root hashes it). */
uint64_t dmverity_tree_blocks(uint64_t data_blocks);

/*
 * Checks the whole hash tree of fd (data_bytes of data, the tree right
 * after it) against root: every tree block is read and hashed once, about
 * 1/128 of the data; the data blocks are left to the kernel (a layer of one
 * block has no tree: that block is checked). Returns 0,
 * -EBADMSG when the tree does not hash to root (a changed tree or a wrong
 * root), -ENODATA when fd ends early, or another -errno.
 */
int dmverity_check_tree(int fd, uint64_t data_bytes, const uint8_t root[FSVERITY_DIGEST_SIZE],
			const uint8_t salt[DMVERITY_SALT_SIZE]);

#endif
