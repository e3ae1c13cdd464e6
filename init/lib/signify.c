// SPDX-License-Identifier: GPL-2.0-only
/* signify/usign public keys and detached signatures: parsed strictly, verified with Ed25519. */
#include "signify.h"

#include <errno.h>
#include <string.h>

#define SIGNIFY_ALG "Ed"
#define SIGNIFY_ALG_SIZE 2

static int base64_value(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int base64_decode(const char *s, size_t len, uint8_t *out, size_t size, size_t *out_len)
{
	size_t n = 0;
	if (len % 4)
		return -EINVAL;
	for (size_t i = 0; i < len; i += 4) {
		uint32_t group = 0;
		unsigned pad = 0;
		for (unsigned j = 0; j < 4; j++) {
			char c = s[i + j];
			int v = base64_value(c);
			if (c == '=' && j >= 2 && i + 4 == len) {
				pad++;
				v = 0;
			} else if (v < 0 || pad) {
				return -EINVAL; /* a stray character, or data after '=' */
			}
			group = group << 6 | (uint32_t)v;
		}
		/* the bits of the last character that no output byte holds must be zero */
		if (group & ((1u << (8 * pad)) - 1))
			return -EINVAL;
		if (3 - pad > size - n)
			return -EMSGSIZE;
		for (unsigned j = 0; j < 3 - pad; j++)
			out[n++] = (uint8_t)(group >> (16 - 8 * j));
	}
	*out_len = n;
	return 0;
}

/* The blob of a two-line file: exactly size bytes, starting with the algorithm. */
static int parse_file(const char *text, size_t len, uint8_t *blob, size_t size)
{
	const size_t prefix = sizeof(SIGNIFY_COMMENT_PREFIX) - 1;
	const char *eol = memchr(text, '\n', len);
	size_t got;
	/* a comment of at least one character, as signify insists */
	if (!eol || (size_t)(eol - text) <= prefix ||
	    memcmp(text, SIGNIFY_COMMENT_PREFIX, prefix) != 0 ||
	    memchr(text, '\0', (size_t)(eol - text)))
		return -EBADMSG;
	const char *b64 = eol + 1;
	size_t rest = len - (size_t)(b64 - text);
	/* the second line ends the file; a third one fails as base64 ('\n' is no digit) */
	if (rest == 0 || b64[rest - 1] != '\n')
		return -EBADMSG;
	if (base64_decode(b64, rest - 1, blob, size, &got) < 0 || got != size ||
	    memcmp(blob, SIGNIFY_ALG, SIGNIFY_ALG_SIZE) != 0)
		return -EBADMSG;
	return 0;
}

int signify_parse_key(const char *text, size_t len, struct signify_key *key)
{
	uint8_t blob[SIGNIFY_ALG_SIZE + SIGNIFY_KEYNUM_SIZE + ED25519_PUBLIC_KEY_SIZE];
	int r = parse_file(text, len, blob, sizeof(blob));
	if (r < 0)
		return r;
	memcpy(key->keynum, blob + SIGNIFY_ALG_SIZE, SIGNIFY_KEYNUM_SIZE);
	memcpy(key->pub, blob + SIGNIFY_ALG_SIZE + SIGNIFY_KEYNUM_SIZE, ED25519_PUBLIC_KEY_SIZE);
	return ed25519_check_public_key(key->pub);
}

int signify_parse_sig(const char *text, size_t len, struct signify_sig *sig)
{
	uint8_t blob[SIGNIFY_ALG_SIZE + SIGNIFY_KEYNUM_SIZE + ED25519_SIGNATURE_SIZE];
	int r = parse_file(text, len, blob, sizeof(blob));
	if (r < 0)
		return r;
	memcpy(sig->keynum, blob + SIGNIFY_ALG_SIZE, SIGNIFY_KEYNUM_SIZE);
	memcpy(sig->sig, blob + SIGNIFY_ALG_SIZE + SIGNIFY_KEYNUM_SIZE, ED25519_SIGNATURE_SIZE);
	return 0;
}

int signify_verify(const struct signify_key *key, const struct signify_sig *sig, const void *msg,
		   size_t len)
{
	if (memcmp(key->keynum, sig->keynum, SIGNIFY_KEYNUM_SIZE) != 0)
		return -ENOKEY;
	return ed25519_verify(sig->sig, msg, len, key->pub);
}
