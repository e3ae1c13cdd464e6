// SPDX-License-Identifier: GPL-2.0-only
/* signify/usign files: strict base64, keys and signatures as signify-openbsd writes them, verify.
 */
#define UNIT_NAME "signify"
#include "unit.h"
#include "../../init/lib/signify.h"

#include <errno.h>

/* made with signify-openbsd -G -n -c "strata test key a" and -S -x, and likewise key b */
static const char key_a[] = "untrusted comment: strata test key a public key\n"
			    "RWRMUT2vt6EwQgwCRNTQoL0fSfcJCqVIJuE+KoDpyErp7XOjKLtfoTNT\n";
static const char key_b[] = "untrusted comment: strata test key b public key\n"
			    "RWTGf2LxrhX6bZ0RyrPLRaPyZCZpbJJZAji7zZ3R9h9vxihXDQXakh53\n";
static const char header[] = "version 1\nimage root 4096 0123\n";
static const char header_sig_a[] =
    "untrusted comment: verify with a.pub\n"
    "RWRMUT2vt6EwQt3X0ONn47A+hrBMI/NmI/W2gs4YM2bnzhuMDCFu3Vfe4Mij76dU+"
    "lizDeglXkgCOY4zglIlnA2f4BhKS+szrQs=\n";
static const char header_sig_b[] =
    "untrusted comment: verify with b.pub\n"
    "RWTGf2LxrhX6bafThpDqY60NRjcLDxhxXsgOmjScqyWUEPUBKxfGLWDv3lp5fbyDof"
    "0dWjtK+mRtbkkEDX2CKWR88tzBx2tQMgs=\n";
static const char empty_sig_a[] =
    "untrusted comment: verify with a.pub\n"
    "RWRMUT2vt6EwQvdiBkyZZT1Go9lNVpyTf6OQIvG92L3i7s12v77xSwd07KznQTBsS1"
    "gu7wu5JDUtXARPAJQ5H8E5Kms4FXm0pQk=\n";

static int decode(const char *s, uint8_t *out, size_t size, size_t *n)
{
	return base64_decode(s, strlen(s), out, size, n);
}

static void base64_rfc4648_vectors(void)
{
	static const char *const plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
	static const char *const coded[] = {"",		"Zg==",	    "Zm8=",    "Zm9v",
					    "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
	for (size_t i = 0; i < 7; i++) {
		uint8_t out[8];
		size_t n = 99;
		CHECK(decode(coded[i], out, sizeof(out), &n) == 0);
		CHECK(n == strlen(plain[i]) && memcmp(out, plain[i], n) == 0);
	}
	uint8_t all[48];
	size_t n;
	CHECK(decode("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", all,
		     sizeof(all), &n) == 0);
	CHECK(n == 48 && memcmp(all, "\x00\x10\x83", 3) == 0 &&
	      memcmp(all + 45, "\xf3\xdf\xbf", 3) == 0);
}

static void base64_is_strict(void)
{
	static const char *const bad[] = {
	    "Zg=",	/* not a multiple of 4 */
	    "Zg",	/* unpadded */
	    "Zg=a",	/* data after '=' */
	    "Z===",	/* three '=' */
	    "====",	/* nothing but padding */
	    "Zh==",	/* pad bits set: 'h' leaves 0x01 in the unused bits */
	    "Zm9=",	/* pad bits set */
	    "Zg==Zg==", /* padding inside */
	    " Zm9v",	/* white space (signify skips it; we do not) */
	    "Zm9v\n",	/* a newline */
	    "Zm-v",	/* the URL-safe alphabet */
	    "Zm_v",	/* the URL-safe alphabet */
	    "Zm9\x80",	/* a byte above ASCII */
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t out[16];
		size_t n;
		int r = decode(bad[i], out, sizeof(out), &n);
		if (r != -EINVAL)
			fprintf(stderr, "  \"%s\": %d\n", bad[i], r);
		CHECK(r == -EINVAL);
	}
	uint8_t nul[8];
	size_t n;
	CHECK(base64_decode("Zm\0v", 4, nul, sizeof(nul), &n) == -EINVAL);
	/* out too small, by one byte and by a whole group */
	CHECK(decode("Zm9vYmFy", nul, 5, &n) == -EMSGSIZE);
	CHECK(decode("Zm9vYg==", nul, 3, &n) == -EMSGSIZE);
	CHECK(decode("Zm9vYg==", nul, 4, &n) == 0 && n == 4);
}

static void signify_files_parse_and_verify(void)
{
	struct signify_key a, b;
	struct signify_sig sa, sb, se;
	CHECK(signify_parse_key(key_a, strlen(key_a), &a) == 0);
	CHECK(signify_parse_key(key_b, strlen(key_b), &b) == 0);
	CHECK(memcmp(a.keynum, "\x4c\x51\x3d\xaf\xb7\xa1\x30\x42", 8) == 0);
	CHECK(signify_parse_sig(header_sig_a, strlen(header_sig_a), &sa) == 0);
	CHECK(signify_parse_sig(header_sig_b, strlen(header_sig_b), &sb) == 0);
	CHECK(signify_parse_sig(empty_sig_a, strlen(empty_sig_a), &se) == 0);
	CHECK(memcmp(sa.keynum, a.keynum, 8) == 0 && memcmp(sb.keynum, b.keynum, 8) == 0);

	CHECK(signify_verify(&a, &sa, header, strlen(header)) == 0);
	CHECK(signify_verify(&b, &sb, header, strlen(header)) == 0);
	CHECK(signify_verify(&a, &se, "", 0) == 0);
	/* another message: the header changed, cut short, or the other signature's */
	CHECK(signify_verify(&a, &sa, "version 2\nimage root 4096 0123\n", strlen(header)) ==
	      -EBADMSG);
	CHECK(signify_verify(&a, &sa, header, strlen(header) - 1) == -EBADMSG);
	CHECK(signify_verify(&a, &se, header, strlen(header)) == -EBADMSG);
	/* another key pair's signature names its key */
	CHECK(signify_verify(&a, &sb, header, strlen(header)) == -ENOKEY);
	CHECK(signify_verify(&b, &sa, header, strlen(header)) == -ENOKEY);
	/* and claiming the right key number does not make it verify */
	memcpy(sb.keynum, a.keynum, 8);
	CHECK(signify_verify(&a, &sb, header, strlen(header)) == -EBADMSG);
	sa.sig[10] ^= 4;
	CHECK(signify_verify(&a, &sa, header, strlen(header)) == -EBADMSG);
}

static int parse_key(const char *text)
{
	struct signify_key k;
	return signify_parse_key(text, strlen(text), &k);
}

static int parse_sig(const char *text)
{
	struct signify_sig s;
	return signify_parse_sig(text, strlen(text), &s);
}

#define KEY_LINE "RWRMUT2vt6EwQgwCRNTQoL0fSfcJCqVIJuE+KoDpyErp7XOjKLtfoTNT"

static void malformed_files_are_refused(void)
{
	CHECK(parse_key("untrusted comment: k\n" KEY_LINE "\n") == 0);
	static const char *const bad[] = {
	    "",
	    "\n",
	    KEY_LINE "\n",					    /* no comment */
	    "untrusted comment: k\n",				    /* no key */
	    "untrusted comment: k\n" KEY_LINE,			    /* no final newline */
	    "untrusted comment: k\n" KEY_LINE "\n\n",		    /* a third line */
	    "untrusted comment: k\n" KEY_LINE "\nmore\n",	    /* a message after it */
	    "untrusted comment: k\r\n" KEY_LINE "\r\n",		    /* CRLF */
	    "untrusted comment: \n" KEY_LINE "\n",		    /* an empty comment */
	    "untrusted comment:k\n" KEY_LINE "\n",		    /* no space */
	    "Untrusted comment: k\n" KEY_LINE "\n",		    /* case */
	    "trusted comment: k\n" KEY_LINE "\n",		    /* minisign's other line */
	    "untrusted comment: k\n " KEY_LINE "\n",		    /* white space in the base64 */
	    "untrusted comment: k\n" KEY_LINE "=\n",		    /* not a multiple of 4 */
	    "untrusted comment: k\nRWRMUT2vt6EwQgwCRNTQoL0fSfcJ\n", /* too short */
	    /* 43 bytes: one too many */
	    "untrusted comment: k\nRWRMUT2vt6EwQgwCRNTQoL0fSfcJCqVIJuE+KoDpyErp7XOjKLtfoTNTAA==\n",
	    /* 41 bytes: one too few */
	    "untrusted comment: k\nRWRMUT2vt6EwQgwCRNTQoL0fSfcJCqVIJuE+KoDpyErp7XOjKLtfoTM=\n",
	    /* algorithm "EX" */
	    "untrusted comment: k\nRVhMUT2vt6EwQgwCRNTQoL0fSfcJCqVIJuE+KoDpyErp7XOjKLtfoTNT\n",
	    /* "Ed", key a's number, and the neutral point for a key */
	    "untrusted comment: k\nRWRMUT2vt6EwQgEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = parse_key(bad[i]);
		if (r != -EBADMSG)
			fprintf(stderr, "  bad[%zu]: %d\n", i, r);
		CHECK(r == -EBADMSG);
	}
	/* a NUL in the comment, counted in the length */
	static const char nul[] = "untrusted comment: k\0k\n" KEY_LINE "\n";
	struct signify_key k;
	CHECK(signify_parse_key(nul, sizeof(nul) - 1, &k) == -EBADMSG);
	/* the file cut short anywhere */
	for (size_t len = 0; len < strlen(key_a); len++)
		CHECK(signify_parse_key(key_a, len, &k) == -EBADMSG);
	/* a key is no signature and a signature no key */
	CHECK(parse_sig(key_a) == -EBADMSG);
	CHECK(parse_key(header_sig_a) == -EBADMSG);
	struct signify_sig s;
	for (size_t len = 0; len < strlen(header_sig_a); len++)
		CHECK(signify_parse_sig(header_sig_a, len, &s) == -EBADMSG);
}

int main(void)
{
	RUN(base64_rfc4648_vectors);
	RUN(base64_is_strict);
	RUN(signify_files_parse_and_verify);
	RUN(malformed_files_are_refused);
	return UNIT_EXIT();
}
