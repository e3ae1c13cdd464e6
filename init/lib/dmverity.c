// SPDX-License-Identifier: GPL-2.0-only
/* dm-verity's hash tree, checked from the top down in userspace. Pure code. */
#include "dmverity.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
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

static void salted(const uint8_t *salt, const uint8_t *block, uint8_t *buf, bool cpu,
		   uint8_t out[FSVERITY_DIGEST_SIZE])
{
	memcpy(buf, salt, DMVERITY_SALT_SIZE);
	memcpy(buf + DMVERITY_SALT_SIZE, block, DMVERITY_BLOCK);
	sha256(buf, DMVERITY_SALT_SIZE + DMVERITY_BLOCK, cpu, out);
}

int dmverity_check_tree(int fd, uint64_t data_bytes, const uint8_t root[FSVERITY_DIGEST_SIZE],
			const uint8_t salt[DMVERITY_SALT_SIZE])
{
	uint64_t nd = data_bytes / DMVERITY_BLOCK;
	if (nd == 0 || data_bytes % DMVERITY_BLOCK)
		return -EINVAL;
	unsigned nl = levels(nd);
	uint64_t total = dmverity_tree_blocks(nd);
	if (total > (1u << 20))
		return -EFBIG;
	/* one data block has no tree: the root is that block's hash, checked here */
	uint64_t from = total ? data_bytes : 0, count = total ? total : 1;
	uint8_t *tree = malloc(count * DMVERITY_BLOCK),
		*buf = malloc(DMVERITY_SALT_SIZE + DMVERITY_BLOCK);
	int r = tree && buf ? 0 : -ENOMEM;
	for (uint64_t done = 0; r == 0 && done < count * DMVERITY_BLOCK;) {
		ssize_t n =
		    pread(fd, tree + done, count * DMVERITY_BLOCK - done, (off_t)(from + done));
		if (n < 0 && errno == EINTR)
			continue;
		r = n < 0 ? -errno : n == 0 ? -ENODATA : 0;
		done += n > 0 ? (uint64_t)n : 0;
	}
	/* top level first: level i starts after the levels above it */
	uint64_t start[10] = {0}, at = 0;
	for (unsigned i = nl; i-- > 0;) {
		start[i] = at;
		at += level_blocks(nd, i);
	}
	bool cpu = sha256_have_cpu_insns();
	uint8_t h[FSVERITY_DIGEST_SIZE];
	if (r == 0) {
		salted(salt, tree + (nl ? start[nl - 1] : 0) * DMVERITY_BLOCK, buf, cpu, h);
		if (memcmp(h, root, sizeof(h)) != 0)
			r = -EBADMSG;
	}
	/* each block of level i-1 hashes to its entry in level i */
	for (unsigned i = nl ? nl - 1 : 0; r == 0 && i > 0; i--) {
		for (uint64_t j = 0; r == 0 && j < level_blocks(nd, i - 1); j++) {
			salted(salt, tree + (start[i - 1] + j) * DMVERITY_BLOCK, buf, cpu, h);
			if (memcmp(h, tree + start[i] * DMVERITY_BLOCK + j * FSVERITY_DIGEST_SIZE,
				   sizeof(h)) != 0)
				r = -EBADMSG;
		}
	}
	free(tree);
	free(buf);
	return r;
}
