/* SPDX-License-Identifier: GPL-2.0-only */
/* SHA-256 and the fs-verity file digest (sha256, 4096-byte Merkle blocks, no salt), in userspace.
 */
#ifndef STRATA_FSVERITY_H
#define STRATA_FSVERITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FSVERITY_DIGEST_SIZE 32
#define FSVERITY_HEX_SIZE (2 * FSVERITY_DIGEST_SIZE + 1)
#define FSVERITY_BLOCK_SIZE 4096

/* The CPU's SHA-256 instructions (x86 SHA-NI), when it has them. */
bool sha256_have_cpu_insns(void);
/* SHA-256 of one whole message; cpu_insns as returned by sha256_have_cpu_insns(). */
void sha256(const void *data, size_t len, bool cpu_insns, uint8_t out[FSVERITY_DIGEST_SIZE]);
/* The same, streamed: init, update with the message in pieces of any size, final. */
struct sha256_ctx {
	uint32_t st[8];
	uint8_t buf[64];
	uint64_t len;
	bool cpu_insns;
};
void sha256_init(struct sha256_ctx *c, bool cpu_insns);
void sha256_update(struct sha256_ctx *c, const void *data, size_t len);
void sha256_final(struct sha256_ctx *c, uint8_t out[FSVERITY_DIGEST_SIZE]);

/*
 * The fs-verity digest of the first bytes of fd (a file or a raw device that
 * may be longer), equal to what `fsverity digest` prints for a file of that
 * length. Reads with pread only; the data blocks are hashed on up to threads
 * threads (0 or 1: the caller's thread only). Returns 0, -ENODATA when fd ends
 * before bytes, or another -errno from pread or thread setup.
 */
int fsverity_digest_fd(int fd, uint64_t bytes, unsigned threads,
		       uint8_t digest[FSVERITY_DIGEST_SIZE]);

/* Lower-case hex, NUL-terminated. */
void fsverity_to_hex(const uint8_t digest[FSVERITY_DIGEST_SIZE], char hex[FSVERITY_HEX_SIZE]);
/* Exactly 2 * FSVERITY_DIGEST_SIZE hex digits (either case) at s, len bytes. 0 or -EINVAL. */
int fsverity_from_hex(const char *s, size_t len, uint8_t digest[FSVERITY_DIGEST_SIZE]);

#endif
