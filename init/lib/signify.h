/* SPDX-License-Identifier: GPL-2.0-only */
/* signify/usign public keys and detached signatures: parsed strictly, verified with Ed25519. */
#ifndef STRATA_SIGNIFY_H
#define STRATA_SIGNIFY_H

#include "ed25519.h"

#include <stddef.h>
#include <stdint.h>

/*
 * Both files are two lines, as `signify -G`/`-S` (OpenBSD) and `usign -G`/`-S`
 * (OpenWrt) write them:
 *
 *     untrusted comment: <anything, not empty>\n
 *     <base64 of the blob>\n
 *
 * a public key's blob is "Ed" + an 8-byte key number + the 32-byte Ed25519
 * key, a signature's "Ed" + the signing key's number + the 64-byte Ed25519
 * signature of the message itself (not of a digest of it).
 *
 * Stricter than signify, which skips white space inside the base64 and
 * ignores what follows it: here the base64 is canonical (RFC 4648, padded,
 * zero pad bits, nothing but the alphabet) and the file ends after it.
 * Signatures embedded in front of the message (`signify -S -e`) are not read.
 *
 * Large data: Ed25519 hashes the whole message before it can answer, so a
 * bundle is not signed as a whole. Its small header is: it lists each image
 * with its SHA-256 (or fs-verity) digest, the header's signature is checked
 * with signify_verify() before anything in it is believed, and each image is
 * then checked against its listed digest as it is streamed, so a bad image is
 * refused before it is used, not after the last byte of the bundle.
 */

#define SIGNIFY_KEYNUM_SIZE 8
#define SIGNIFY_COMMENT_PREFIX "untrusted comment: "

struct signify_key {
	uint8_t keynum[SIGNIFY_KEYNUM_SIZE]; /* random, names the key pair */
	uint8_t pub[ED25519_PUBLIC_KEY_SIZE];
};

struct signify_sig {
	uint8_t keynum[SIGNIFY_KEYNUM_SIZE]; /* the number of the key that signed */
	uint8_t sig[ED25519_SIGNATURE_SIZE];
};

/*
 * Canonical base64 (RFC 4648 section 4) of len characters at s into out,
 * size bytes; *out_len is the decoded length. -EINVAL for anything but the
 * alphabet, a length not a multiple of 4, '=' other than one or two at the
 * very end, or pad bits that are not zero; -EMSGSIZE when out is too small.
 */
int base64_decode(const char *s, size_t len, uint8_t *out, size_t size, size_t *out_len);

/*
 * A public key file (len bytes of text, need not be NUL-terminated). 0, or
 * -EBADMSG for anything but the form above, including a key that is not a
 * usable Ed25519 point (ed25519_check_public_key()).
 */
int signify_parse_key(const char *text, size_t len, struct signify_key *key);

/* A detached signature file. 0, or -EBADMSG for anything but the form above. */
int signify_parse_sig(const char *text, size_t len, struct signify_sig *sig);

/*
 * 0 when sig is key's signature of the len bytes at msg; -ENOKEY when sig
 * names another key (it was made with another key pair); -EBADMSG when it
 * does not verify.
 */
int signify_verify(const struct signify_key *key, const struct signify_sig *sig, const void *msg,
		   size_t len);

#endif
