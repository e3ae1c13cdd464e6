/* SPDX-License-Identifier: GPL-2.0-only */
/* SHA-512 (FIPS 180-4), streaming: the hash Ed25519 signatures are made with. */
#ifndef STRATA_SHA512_H
#define STRATA_SHA512_H

#include <stddef.h>
#include <stdint.h>

#define SHA512_DIGEST_SIZE 64
#define SHA512_BLOCK_SIZE 128

struct sha512_ctx {
	uint64_t state[8];
	uint64_t bytes; /* hashed so far: messages up to 2^64 - 1 bytes */
	uint8_t block[SHA512_BLOCK_SIZE];
};

void sha512_init(struct sha512_ctx *ctx);
void sha512_update(struct sha512_ctx *ctx, const void *data, size_t len);
/* Writes the digest; ctx is spent (sha512_init it again to reuse it). */
void sha512_final(struct sha512_ctx *ctx, uint8_t digest[SHA512_DIGEST_SIZE]);

#endif
