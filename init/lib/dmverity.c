// SPDX-License-Identifier: GPL-2.0-only
/* dm-verity's hash tree, checked from the top down in userspace. Pure code. */
#include "dmverity.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#define PER_BLOCK (DMVERITY_BLOCK / FSVERITY_DIGEST_SIZE) /* 128 hashes a block */

/* Blocks of level i (0: the hashes of the data blocks). */
static uint64_t level_blocks(uint64_t data_blocks, unsigned level)
{
	uint64_t n = data_blocks;
	for (unsigned i = 0; i <= level; i++)
		n = (n + PER_BLOCK - 1) / PER_BLOCK;
	return n;
}

/* Levels of the tree: the smallest L with (n - 1) >> (7 L) == 0, as the kernel counts them. */
static unsigned levels(uint64_t data_blocks)
{
	unsigned l = 0;
	while (l < 10 && ((data_blocks - 1) >> (7 * l)) != 0)
		l++;
	return l;
}

uint64_t dmverity_tree_blocks(uint64_t data_blocks)
{
	uint64_t total = 0;
	unsigned n = data_blocks ? levels(data_blocks) : 0;
	for (unsigned i = 0; i < n; i++)
		total += level_blocks(data_blocks, i);
	return total;
}

/* One whole block at off into block; -ENODATA when fd ends first. */
static int read_block(int fd, uint64_t off, uint8_t *block)
{
	for (size_t done = 0; done < DMVERITY_BLOCK;) {
		ssize_t n = pread(fd, block + done, DMVERITY_BLOCK - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENODATA;
		done += (size_t)n;
	}
	return 0;
}

/* sha256(salt || the block at off), buf holding the salt in front of the block. */
static int hash_block(int fd, uint64_t off, uint8_t *buf, bool cpu,
		      uint8_t out[FSVERITY_DIGEST_SIZE])
{
	int r = read_block(fd, off, buf + DMVERITY_SALT_SIZE);
	if (r == 0)
		sha256(buf, DMVERITY_SALT_SIZE + DMVERITY_BLOCK, cpu, out);
	return r;
}

int dmverity_check_tree(int fd, uint64_t data_bytes, const uint8_t root[FSVERITY_DIGEST_SIZE],
			const uint8_t salt[DMVERITY_SALT_SIZE])
{
	uint64_t nd = data_bytes / DMVERITY_BLOCK;
	if (nd == 0 || data_bytes % DMVERITY_BLOCK)
		return -EINVAL;
	unsigned nl = levels(nd);
	/* two blocks of memory whatever the layer's size: a child and its parent */
	uint8_t buf[DMVERITY_SALT_SIZE + DMVERITY_BLOCK], parent[DMVERITY_BLOCK];
	uint8_t h[FSVERITY_DIGEST_SIZE];
	bool cpu = sha256_have_cpu_insns();
	memcpy(buf, salt, DMVERITY_SALT_SIZE);
	/* top level first: level i starts after the levels above it */
	uint64_t start[10] = {0}, at = 0;
	for (unsigned i = nl; i-- > 0;) {
		start[i] = data_bytes + at * DMVERITY_BLOCK;
		at += level_blocks(nd, i);
	}
	/* the top block hashes to the root; one data block has no tree: that block does */
	int r = hash_block(fd, nl ? start[nl - 1] : 0, buf, cpu, h);
	if (r == 0 && memcmp(h, root, sizeof(h)) != 0)
		r = -EBADMSG;
	/* each block of level i-1 hashes to its entry in level i */
	for (unsigned i = nl ? nl - 1 : 0; r == 0 && i > 0; i--) {
		uint64_t cached = UINT64_MAX;
		for (uint64_t j = 0; r == 0 && j < level_blocks(nd, i - 1); j++) {
			if (j / PER_BLOCK != cached) {
				cached = j / PER_BLOCK;
				r = read_block(fd, start[i] + cached * DMVERITY_BLOCK, parent);
			}
			if (r == 0)
				r = hash_block(fd, start[i - 1] + j * DMVERITY_BLOCK, buf, cpu, h);
			if (r == 0 && memcmp(h, parent + (j % PER_BLOCK) * FSVERITY_DIGEST_SIZE,
					     sizeof(h)) != 0)
				r = -EBADMSG;
		}
	}
	return r;
}
