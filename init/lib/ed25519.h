/* SPDX-License-Identifier: GPL-2.0-only */
/* Ed25519 signature verification (RFC 8032, pure Ed25519: the message itself is signed). */
#ifndef STRATA_ED25519_H
#define STRATA_ED25519_H

#include <stddef.h>
#include <stdint.h>

#define ED25519_PUBLIC_KEY_SIZE 32
#define ED25519_SIGNATURE_SIZE 64

/*
 * 0 when pub is the canonical encoding of a curve point (RFC 8032 5.1.3: y
 * below p, on the curve, no negative zero) whose order is not 1, 2, 4 or 8:
 * such a key would accept forged signatures (the neutral point, any R = [S]B).
 * Otherwise -EBADMSG.
 */
int ed25519_check_public_key(const uint8_t pub[ED25519_PUBLIC_KEY_SIZE]);

/*
 * 0 when sig (R || S) is pub's signature of the len bytes at msg (RFC 8032
 * 5.1.7, checked without the cofactor as signify and usign do), otherwise
 * -EBADMSG: also for an S that is not below the group order L, an R that is
 * not a canonical point encoding, and a key ed25519_check_public_key()
 * refuses. Not constant time: everything it reads is public.
 */
int ed25519_verify(const uint8_t sig[ED25519_SIGNATURE_SIZE], const uint8_t *msg, size_t len,
		   const uint8_t pub[ED25519_PUBLIC_KEY_SIZE]);

#endif
