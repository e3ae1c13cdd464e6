// SPDX-License-Identifier: GPL-2.0-only
/* SHA-512 against the FIPS 180 examples, fed whole, in pieces at every split and streamed. */
#define UNIT_NAME "sha512"
#include "unit.h"
#include "../../init/lib/sha512.h"

static const char *hex_of(const uint8_t *d, size_t n)
{
	static char s[2 * SHA512_DIGEST_SIZE + 1];
	for (size_t i = 0; i < n && i < SHA512_DIGEST_SIZE; i++)
		snprintf(s + 2 * i, 3, "%02x", d[i]);
	return s;
}

static const char *digest_hex(const void *data, size_t len)
{
	struct sha512_ctx c;
	uint8_t d[SHA512_DIGEST_SIZE];
	sha512_init(&c);
	sha512_update(&c, data, len);
	sha512_final(&c, d);
	return hex_of(d, sizeof(d));
}

static void fips_180_examples(void)
{
	CHECK_STR(digest_hex("", 0),
		  "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce"
		  "47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e");
	CHECK_STR(digest_hex("abc", 3),
		  "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
		  "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f");
	/* 896 bits: the length no longer fits the first block's padding */
	static const char m896[] = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
				   "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	CHECK(sizeof(m896) - 1 == 112);
	CHECK_STR(digest_hex(m896, 112),
		  "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018"
		  "501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909");
}

static void a_million_as_streamed(void)
{
	struct sha512_ctx c;
	uint8_t chunk[1000], d[SHA512_DIGEST_SIZE];
	memset(chunk, 'a', sizeof(chunk));
	sha512_init(&c);
	/* pieces of 1000 and 1 bytes: the buffered and the whole-block paths both run */
	for (int i = 0; i < 999; i++)
		sha512_update(&c, chunk, 1000);
	for (int i = 0; i < 1000; i++)
		sha512_update(&c, chunk, 1);
	sha512_final(&c, d);
	CHECK_STR(hex_of(d, sizeof(d)),
		  "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973eb"
		  "de0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b");
}

/* Every length across the padding's edges, split at every point, gives the digest of the whole. */
static void any_split_gives_the_same_digest(void)
{
	uint8_t msg[300], whole[SHA512_DIGEST_SIZE], parts[SHA512_DIGEST_SIZE];
	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 37 + 11);
	for (size_t len = 100; len <= 260; len++) {
		struct sha512_ctx c;
		sha512_init(&c);
		sha512_update(&c, msg, len);
		sha512_final(&c, whole);
		for (size_t cut = 0; cut <= len; cut += 7) {
			sha512_init(&c);
			sha512_update(&c, msg, cut);
			sha512_update(&c, msg + cut, 0);
			sha512_update(&c, msg + cut, len - cut);
			sha512_final(&c, parts);
			CHECK(memcmp(whole, parts, sizeof(whole)) == 0);
		}
	}
	/* a context is reusable after sha512_init */
	struct sha512_ctx c;
	sha512_init(&c);
	sha512_update(&c, "junk", 4);
	sha512_final(&c, parts);
	sha512_init(&c);
	sha512_update(&c, "abc", 3);
	sha512_final(&c, parts);
	CHECK_STR(hex_of(parts, 4), "ddaf35a1");
}

int main(void)
{
	RUN(fips_180_examples);
	RUN(a_million_as_streamed);
	RUN(any_split_gives_the_same_digest);
	return UNIT_EXIT();
}
