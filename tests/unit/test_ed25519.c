// SPDX-License-Identifier: GPL-2.0-only
/* Ed25519 verification: RFC 8032's test vectors, then every way a signature or key can be wrong. */
#define UNIT_NAME "ed25519"
#include "unit.h"
#include "../../init/lib/ed25519.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

struct vector {
	const char *name, *pub, *msg, *sig;
};

/* RFC 8032 section 7.1 */
static const struct vector rfc8032[] = {
    {
	"TEST 1",
	"d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
	"",
	"e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
	"5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
    },
    {
	"TEST 2",
	"3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
	"72",
	"92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da"
	"085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
    },
    {
	"TEST 3",
	"fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
	"af82",
	"6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac"
	"18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
    },
    {
	"TEST 1024",
	"278117fc144c72340f67d0f2316e8386ceffbf2b2428c9c51fef7c597f1d426e",
	"08b8b2b733424243760fe426a4b54908632110a66c2f6591eabd3345e3e4eb98fa6e264bf09efe12"
	"ee50f8f54e9f77b1e355f6c50544e23fb1433ddf73be84d879de7c0046dc4996d9e773f4bc9efe57"
	"38829adb26c81b37c93a1b270b20329d658675fc6ea534e0810a4432826bf58c941efb65d57a338b"
	"bd2e26640f89ffbc1a858efcb8550ee3a5e1998bd177e93a7363c344fe6b199ee5d02e82d522c4fe"
	"ba15452f80288a821a579116ec6dad2b3b310da903401aa62100ab5d1a36553e06203b33890cc9b8"
	"32f79ef80560ccb9a39ce767967ed628c6ad573cb116dbefefd75499da96bd68a8a97b928a8bbc10"
	"3b6621fcde2beca1231d206be6cd9ec7aff6f6c94fcd7204ed3455c68c83f4a41da4af2b74ef5c53"
	"f1d8ac70bdcb7ed185ce81bd84359d44254d95629e9855a94a7c1958d1f8ada5d0532ed8a5aa3fb2"
	"d17ba70eb6248e594e1a2297acbbb39d502f1a8c6eb6f1ce22b3de1a1f40cc24554119a831a9aad6"
	"079cad88425de6bde1a9187ebb6092cf67bf2b13fd65f27088d78b7e883c8759d2c4f5c65adb7553"
	"878ad575f9fad878e80a0c9ba63bcbcc2732e69485bbc9c90bfbd62481d9089beccf80cfe2df16a2"
	"cf65bd92dd597b0707e0917af48bbb75fed413d238f5555a7a569d80c3414a8d0859dc65a46128ba"
	"b27af87a71314f318c782b23ebfe808b82b0ce26401d2e22f04d83d1255dc51addd3b75a2b1ae078"
	"4504df543af8969be3ea7082ff7fc9888c144da2af58429ec96031dbcad3dad9af0dcbaaaf268cb8"
	"fcffead94f3c7ca495e056a9b47acdb751fb73e666c6c655ade8297297d07ad1ba5e43f1bca32301"
	"651339e22904cc8c42f58c30c04aafdb038dda0847dd988dcda6f3bfd15c4b4c4525004aa06eeff8"
	"ca61783aacec57fb3d1f92b0fe2fd1a85f6724517b65e614ad6808d6f6ee34dff7310fdc82aebfd9"
	"04b01e1dc54b2927094b2db68d6f903b68401adebf5a7e08d78ff4ef5d63653a65040cf9bfd4aca7"
	"984a74d37145986780fc0b16ac451649de6188a7dbdf191f64b5fc5e2ab47b57f7f7276cd419c17a"
	"3ca8e1b939ae49e488acba6b965610b5480109c8b17b80e1b7b750dfc7598d5d5011fd2dcc5600a3"
	"2ef5b52a1ecc820e308aa342721aac0943bf6686b64b2579376504ccc493d97e6aed3fb0f9cd71a4"
	"3dd497f01f17c0e2cb3797aa2a2f256656168e6c496afc5fb93246f6b1116398a346f1a641f3b041"
	"e989f7914f90cc2c7fff357876e506b50d334ba77c225bc307ba537152f3f1610e4eafe595f6d9d9"
	"0d11faa933a15ef1369546868a7f3a45a96768d40fd9d03412c091c6315cf4fde7cb68606937380d"
	"b2eaaa707b4c4185c32eddcdd306705e4dc1ffc872eeee475a64dfac86aba41c0618983f8741c5ef"
	"68d3a101e8a3b8cac60c905c15fc910840b94c00a0b9d0",
	"0aab4c900501b3e24d7cdf4663326a3a87df5e4843b2cbdb67cbf6e460fec350"
	"aa5371b1508f9f4528ecea23c436d94b5e8fcd4f681e30a6ac00a9704a188a03",
    },
    {
	"TEST SHA(abc)",
	"ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
	"ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a8"
	"36ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
	"dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b589"
	"09351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704",
    },
};
#define N_VECTORS (sizeof(rfc8032) / sizeof(rfc8032[0]))

/* L, the group order, little-endian */
static const uint8_t order[32] = {
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10,
};

/* Hex into out (at most size bytes); returns the length, or exits on a typo in this file. */
static size_t unhex(const char *hex, uint8_t *out, size_t size)
{
	size_t n = strlen(hex) / 2;
	if (strlen(hex) % 2 || n > size) {
		fprintf(stderr, "bad hex in the test: %.20s\n", hex);
		exit(2);
	}
	for (size_t i = 0; i < n; i++) {
		unsigned b;
		if (sscanf(hex + 2 * i, "%2x", &b) != 1) {
			fprintf(stderr, "bad hex in the test: %.20s\n", hex);
			exit(2);
		}
		out[i] = (uint8_t)b;
	}
	return n;
}

struct decoded {
	uint8_t pub[32], sig[64], msg[1024];
	size_t len;
};

static void decode(const struct vector *v, struct decoded *d)
{
	CHECK(unhex(v->pub, d->pub, sizeof(d->pub)) == 32);
	CHECK(unhex(v->sig, d->sig, sizeof(d->sig)) == 64);
	d->len = unhex(v->msg, d->msg, sizeof(d->msg));
}

static void rfc8032_vectors_verify(void)
{
	static struct decoded d;
	for (size_t i = 0; i < N_VECTORS; i++) {
		decode(&rfc8032[i], &d);
		int r = ed25519_verify(d.sig, d.msg, d.len, d.pub);
		if (r != 0)
			fprintf(stderr, "  %s: %d\n", rfc8032[i].name, r);
		CHECK(r == 0);
		CHECK(ed25519_check_public_key(d.pub) == 0);
	}
	decode(&rfc8032[3], &d);
	CHECK(d.len == 1023);
}

/* A flipped bit anywhere in R, S, the message or the key is refused. */
static void flipped_bits_are_refused(void)
{
	static const int sig_bits[] = {0, 1, 7, 8, 100, 254, 255, 256, 257, 300, 400, 500, 507};
	static struct decoded d;
	for (size_t i = 0; i < N_VECTORS; i++) {
		decode(&rfc8032[i], &d);
		for (size_t b = 0; b < sizeof(sig_bits) / sizeof(sig_bits[0]); b++) {
			int bit = sig_bits[b];
			d.sig[bit / 8] ^= (uint8_t)(1 << bit % 8);
			CHECK(ed25519_verify(d.sig, d.msg, d.len, d.pub) == -EBADMSG);
			d.sig[bit / 8] ^= (uint8_t)(1 << bit % 8);
		}
		for (int bit = 0; bit < 256; bit += 51) {
			d.pub[bit / 8] ^= (uint8_t)(1 << bit % 8);
			CHECK(ed25519_verify(d.sig, d.msg, d.len, d.pub) == -EBADMSG);
			d.pub[bit / 8] ^= (uint8_t)(1 << bit % 8);
		}
		if (d.len > 0) {
			d.msg[d.len - 1] ^= 0x80;
			CHECK(ed25519_verify(d.sig, d.msg, d.len, d.pub) == -EBADMSG);
			d.msg[d.len - 1] ^= 0x80;
			d.msg[0] ^= 1;
			CHECK(ed25519_verify(d.sig, d.msg, d.len, d.pub) == -EBADMSG);
			d.msg[0] ^= 1;
			CHECK(ed25519_verify(d.sig, d.msg, d.len - 1, d.pub) == -EBADMSG);
		}
		CHECK(ed25519_verify(d.sig, d.msg, d.len, d.pub) == 0);
	}
	/* another vector's key */
	static struct decoded other;
	decode(&rfc8032[0], &d);
	decode(&rfc8032[1], &other);
	CHECK(ed25519_verify(d.sig, d.msg, d.len, other.pub) == -EBADMSG);
}

/* S + L is the same scalar mod L: a verifier that did not insist on S < L would accept it. */
static void s_at_or_above_the_order_is_refused(void)
{
	static struct decoded d;
	for (size_t i = 0; i < N_VECTORS; i++) {
		decode(&rfc8032[i], &d);
		int carry = 0;
		for (int j = 0; j < 32; j++) {
			int sum = d.sig[32 + j] + order[j] + carry;
			d.sig[32 + j] = (uint8_t)sum;
			carry = sum >> 8;
		}
		CHECK(carry == 0);
		CHECK(ed25519_verify(d.sig, d.msg, d.len, d.pub) == -EBADMSG);
	}
	decode(&rfc8032[0], &d);
	memcpy(d.sig + 32, order, 32);
	CHECK(ed25519_verify(d.sig, d.msg, d.len, d.pub) == -EBADMSG);
	memset(d.sig + 32, 0xff, 32);
	CHECK(ed25519_verify(d.sig, d.msg, d.len, d.pub) == -EBADMSG);
	/* L - 1 is in range: the signature is merely wrong */
	memcpy(d.sig + 32, order, 32);
	d.sig[32]--;
	CHECK(ed25519_verify(d.sig, d.msg, d.len, d.pub) == -EBADMSG);
}

static int key_check(const char *hex)
{
	uint8_t pub[32];
	unhex(hex, pub, sizeof(pub));
	return ed25519_check_public_key(pub);
}

static void bad_key_encodings_are_refused(void)
{
	/* y = 3 is on the curve; y = 3 + p is the same y, not canonically encoded */
	CHECK(key_check("0300000000000000000000000000000000000000000000000000000000000000") == 0);
	CHECK(key_check("0300000000000000000000000000000000000000000000000000000000000080") == 0);
	CHECK(key_check("f0ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f") ==
	      -EBADMSG);
	CHECK(key_check("f0ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff") ==
	      -EBADMSG);
	/* y = 2 and y = 7: no x on the curve */
	CHECK(key_check("0200000000000000000000000000000000000000000000000000000000000000") ==
	      -EBADMSG);
	CHECK(key_check("0700000000000000000000000000000000000000000000000000000000000000") ==
	      -EBADMSG);
	/* y = p (zero, not canonical), y = p + 1 (one, not canonical), x = 0 with the sign set */
	CHECK(key_check("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f") ==
	      -EBADMSG);
	CHECK(key_check("eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f") ==
	      -EBADMSG);
	CHECK(key_check("0100000000000000000000000000000000000000000000000000000000000080") ==
	      -EBADMSG);
	/* every point of order 1, 2, 4 and 8 */
	static const char *small_order[] = {
	    "0100000000000000000000000000000000000000000000000000000000000000",
	    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	    "0000000000000000000000000000000000000000000000000000000000000000",
	    "0000000000000000000000000000000000000000000000000000000000000080",
	    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
	    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
	    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
	    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
	};
	for (size_t i = 0; i < sizeof(small_order) / sizeof(small_order[0]); i++)
		CHECK(key_check(small_order[i]) == -EBADMSG);
	/* the base point itself is a fine key */
	CHECK(key_check("5866666666666666666666666666666666666666666666666666666666666666") == 0);
}

/*
 * With the neutral point as key, R = B and S = 1 satisfy [S]B = R + [k]A for
 * every message: refused only because the key is of small order.
 */
static void a_small_order_key_accepts_nothing(void)
{
	uint8_t sig[64] = {0}, pub[32] = {1};
	unhex("5866666666666666666666666666666666666666666666666666666666666666", sig, 32);
	sig[32] = 1;
	CHECK(ed25519_verify(sig, (const uint8_t *)"anything", 8, pub) == -EBADMSG);
	/* an R that is no point at all, and a non-canonical R */
	static struct decoded d;
	decode(&rfc8032[0], &d);
	memset(d.sig, 0, 32);
	d.sig[0] = 2;
	CHECK(ed25519_verify(d.sig, d.msg, d.len, d.pub) == -EBADMSG);
	memset(d.sig, 0xff, 32);
	d.sig[0] = 0xee;
	d.sig[31] = 0x7f;
	CHECK(ed25519_verify(d.sig, d.msg, d.len, d.pub) == -EBADMSG);
}

int main(void)
{
	RUN(rfc8032_vectors_verify);
	RUN(flipped_bits_are_refused);
	RUN(s_at_or_above_the_order_is_refused);
	RUN(bad_key_encodings_are_refused);
	RUN(a_small_order_key_accepts_nothing);
	return UNIT_EXIT();
}
