// SPDX-License-Identifier: GPL-2.0-only
/* Ed25519 signature verification (RFC 8032, pure Ed25519: the message itself is signed). */
#include "ed25519.h"
#include "sha512.h"

#include <errno.h>
#include <string.h>

/*
 * Written for size, not speed: it checks one signature per boot. Field
 * elements mod p = 2^255 - 19 are 16 signed limbs of 16 bits (products of
 * two fit an int64_t with room for the sums), carried only where a bound
 * needs it; every power is square-and-multiply; points are extended
 * coordinates added with one complete formula that also doubles.
 */
typedef int64_t fe[16];

struct point {
	fe x, y, z, t; /* x = X/Z, y = Y/Z, x * y = T/Z */
};

/* little-endian constants, unpacked where they are used */
static const uint8_t curve_d[32] = {
    /* d = -121665 / 121666 */
    0xa3, 0x78, 0x59, 0x13, 0xca, 0x4d, 0xeb, 0x75, 0xab, 0xd8, 0x41, 0x41, 0x4d, 0x0a, 0x70, 0x00,
    0x98, 0xe8, 0x79, 0x77, 0x79, 0x40, 0xc7, 0x8c, 0x73, 0xfe, 0x6f, 0x2b, 0xee, 0x6c, 0x03, 0x52,
};
static const uint8_t sqrt_m1[32] = {
    /* 2^((p - 1) / 4), a square root of -1 */
    0xb0, 0xa0, 0x0e, 0x4a, 0x27, 0x1b, 0xee, 0xc4, 0x78, 0xe4, 0x2f, 0xad, 0x06, 0x18, 0x43, 0x2f,
    0xa7, 0xd7, 0xfb, 0x3d, 0x99, 0x00, 0x4d, 0x2b, 0x0b, 0xdf, 0xc1, 0x4f, 0x80, 0x24, 0x83, 0x2b,
};
static const uint8_t base_point[32] = {
    /* the encoding of B: y = 4/5, x positive */
    0x58, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
    0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66, 0x66,
};
static const uint8_t group_order[32] = {
    /* L = 2^252 + 27742317777372353535851937790883648493 */
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10,
};

/* Limbs into [0, 2^16), the carry out of the top one wrapping round as 2^256 = 38 (mod p). */
static void fe_carry(fe a)
{
	for (int i = 0; i < 16; i++) {
		int64_t c = a[i] >> 16; /* arithmetic shift: a floor division */
		a[i] &= 0xffff;
		if (i < 15)
			a[i + 1] += c;
		else
			a[0] += 38 * c;
	}
}

static void fe_add(fe o, const fe a, const fe b)
{
	for (int i = 0; i < 16; i++)
		o[i] = a[i] + b[i];
}

static void fe_sub(fe o, const fe a, const fe b)
{
	for (int i = 0; i < 16; i++)
		o[i] = a[i] - b[i];
}

/* Inputs have limbs below 2^18 in magnitude: a sum or difference of two carried elements. */
static void fe_mul(fe o, const fe a, const fe b)
{
	int64_t t[31] = {0};
	for (int i = 0; i < 16; i++)
		for (int j = 0; j < 16; j++)
			t[i + j] += a[i] * b[j];
	for (int i = 0; i < 15; i++)
		t[i] += 38 * t[i + 16];
	memcpy(o, t, sizeof(fe));
	fe_carry(o);
	fe_carry(o);
}

/* a^(2^bits - 1 - holes), holes < 2^32: the exponents p - 2 (inverse) and (p - 5) / 8 (root). */
static void fe_pow(fe o, const fe a, int bits, uint32_t holes)
{
	fe c;
	memcpy(c, a, sizeof(fe));
	for (int i = bits - 2; i >= 0; i--) {
		fe_mul(c, c, c);
		if (i >= 32 || !(holes >> i & 1))
			fe_mul(c, c, a);
	}
	memcpy(o, c, sizeof(fe));
}

static void fe_unpack(fe o, const uint8_t s[32])
{
	for (int i = 0; i < 16; i++)
		o[i] = s[2 * i] | (int64_t)s[2 * i + 1] << 8;
	o[15] &= 0x7fff; /* the top bit is the sign of x in a point's encoding */
}

/* The canonical encoding: the value reduced below p. */
static void fe_pack(uint8_t s[32], const fe a)
{
	fe t;
	memcpy(t, a, sizeof(fe));
	/* three rounds leave every limb in [0, 2^16): t < 2^256 = 2p + 38 */
	fe_carry(t);
	fe_carry(t);
	fe_carry(t);
	for (int round = 0; round < 2; round++) {
		fe m;
		int64_t borrow = 0;
		for (int i = 0; i < 16; i++) {
			m[i] = t[i] - (i == 0 ? 0xffed : i == 15 ? 0x7fff : 0xffff) - borrow;
			borrow = m[i] >> 16 & 1;
			m[i] &= 0xffff;
		}
		if (!borrow) /* t >= p */
			memcpy(t, m, sizeof(fe));
	}
	for (int i = 0; i < 16; i++) {
		s[2 * i] = (uint8_t)t[i];
		s[2 * i + 1] = (uint8_t)(t[i] >> 8);
	}
}

static int fe_is_zero(const fe a)
{
	uint8_t s[32];
	fe_pack(s, a);
	for (int i = 0; i < 32; i++)
		if (s[i])
			return 0;
	return 1;
}

static int fe_odd(const fe a)
{
	uint8_t s[32];
	fe_pack(s, a);
	return s[0] & 1;
}

/* r = p + q; r may be p or q. add-2008-hwcd-3: complete for Ed25519, so it doubles as well. */
static void point_add(struct point *r, const struct point *p, const struct point *q)
{
	fe a, b, c, d, e, f, g, h, k;
	fe_sub(a, p->y, p->x);
	fe_sub(k, q->y, q->x);
	fe_mul(a, a, k);
	fe_add(b, p->y, p->x);
	fe_add(k, q->y, q->x);
	fe_mul(b, b, k);
	fe_unpack(k, curve_d);
	fe_add(k, k, k);
	fe_mul(c, p->t, q->t);
	fe_mul(c, c, k);
	fe_mul(d, p->z, q->z);
	fe_add(d, d, d);
	fe_sub(e, b, a);
	fe_sub(f, d, c);
	fe_add(g, d, c);
	fe_add(h, b, a);
	fe_mul(r->x, e, f);
	fe_mul(r->y, g, h);
	fe_mul(r->z, f, g);
	fe_mul(r->t, e, h);
}

/*
 * The point s encodes (RFC 8032 5.1.3), negated when negate is 1. -EBADMSG
 * for y >= p and a y with no x on the curve. RFC 8032 also refuses x = 0
 * with the sign bit set: that x is only found for y = 1 or -1, points of
 * small order that public_key_decode() refuses anyway.
 */
static int point_decode(struct point *p, const uint8_t s[32], int negate)
{
	fe u, v, v3, x, k, one = {1};
	uint8_t canonical[32];
	int sign = s[31] >> 7;

	fe_unpack(p->y, s);
	fe_pack(canonical, p->y);
	canonical[31] |= (uint8_t)(sign << 7);
	if (memcmp(canonical, s, sizeof(canonical)) != 0)
		return -EBADMSG;
	/* x^2 = u / v with u = y^2 - 1, v = d y^2 + 1 */
	fe_mul(u, p->y, p->y);
	fe_unpack(k, curve_d);
	fe_mul(v, u, k);
	fe_sub(u, u, one);
	fe_add(v, v, one);
	/* candidate root x = u v^3 (u v^7)^((p - 5) / 8) */
	fe_mul(v3, v, v);
	fe_mul(v3, v3, v);
	fe_mul(x, v3, v3);
	fe_mul(x, x, v);
	fe_mul(x, x, u);
	fe_pow(x, x, 252, 0x2);
	fe_mul(x, x, v3);
	fe_mul(x, x, u);
	/* v x^2 is u (a root), -u (x times sqrt(-1) is one), or neither (not a point) */
	fe_mul(v, v, x);
	fe_mul(v, v, x);
	fe_sub(k, v, u);
	if (!fe_is_zero(k)) {
		fe_add(k, v, u);
		if (!fe_is_zero(k))
			return -EBADMSG;
		fe_unpack(k, sqrt_m1);
		fe_mul(x, x, k);
	}
	memset(p->x, 0, sizeof(fe));
	if (fe_odd(x) != (sign ^ negate))
		fe_sub(x, p->x, x);
	memcpy(p->x, x, sizeof(fe));
	memcpy(p->z, one, sizeof(fe));
	fe_mul(p->t, x, p->y);
	return 0;
}

static void point_encode(uint8_t s[32], const struct point *p)
{
	fe zinv, x, y;
	fe_pow(zinv, p->z, 255, 0x14); /* z^(p - 2) = 1/z */
	fe_mul(x, p->x, zinv);
	fe_mul(y, p->y, zinv);
	fe_pack(s, y);
	s[31] |= (uint8_t)(fe_odd(x) << 7);
}

/* a -= L when a >= L; returns whether it did. */
static int scalar_sub_order(uint8_t a[32])
{
	uint8_t t[32];
	int borrow = 0;
	for (int i = 0; i < 32; i++) {
		int diff = a[i] - group_order[i] - borrow;
		t[i] = (uint8_t)diff;
		borrow = diff < 0;
	}
	if (borrow)
		return 0;
	memcpy(a, t, sizeof(t));
	return 1;
}

/* h mod L by Horner's rule, one bit at a time (r < L keeps 2r + 1 below 2^254). */
static void scalar_reduce(uint8_t r[32], const uint8_t h[SHA512_DIGEST_SIZE])
{
	memset(r, 0, 32);
	for (int bit = 8 * SHA512_DIGEST_SIZE - 1; bit >= 0; bit--) {
		int carry = h[bit / 8] >> (bit % 8) & 1;
		for (int i = 0; i < 32; i++) {
			int x = r[i] << 1 | carry;
			r[i] = (uint8_t)x;
			carry = x >> 8;
		}
		scalar_sub_order(r);
	}
}

/* -A from the key; a key of order 1, 2, 4 or 8 (8A is the neutral point, x = 0) is refused. */
static int public_key_decode(struct point *neg_a, const uint8_t pub[ED25519_PUBLIC_KEY_SIZE])
{
	struct point t;
	if (point_decode(neg_a, pub, 1) < 0)
		return -EBADMSG;
	point_add(&t, neg_a, neg_a);
	point_add(&t, &t, &t);
	point_add(&t, &t, &t);
	return fe_is_zero(t.x) ? -EBADMSG : 0;
}

int ed25519_check_public_key(const uint8_t pub[ED25519_PUBLIC_KEY_SIZE])
{
	struct point a;
	return public_key_decode(&a, pub);
}

int ed25519_verify(const uint8_t sig[ED25519_SIGNATURE_SIZE], const uint8_t *msg, size_t len,
		   const uint8_t pub[ED25519_PUBLIC_KEY_SIZE])
{
	struct point neg_a, b, q;
	struct sha512_ctx hash;
	uint8_t digest[SHA512_DIGEST_SIZE], k[32], s[32], r[32];

	memcpy(s, sig + 32, sizeof(s));
	if (scalar_sub_order(s) || public_key_decode(&neg_a, pub) < 0)
		return -EBADMSG;
	point_decode(&b, base_point, 0);
	sha512_init(&hash);
	sha512_update(&hash, sig, 32);
	sha512_update(&hash, pub, ED25519_PUBLIC_KEY_SIZE);
	sha512_update(&hash, msg, len);
	sha512_final(&hash, digest);
	scalar_reduce(k, digest);

	/* [S]B - [k]A, both scalars below L < 2^253, with one doubling per bit */
	memset(&q, 0, sizeof(q));
	q.y[0] = q.z[0] = 1;
	for (int i = 252; i >= 0; i--) {
		point_add(&q, &q, &q);
		if (sig[32 + i / 8] >> (i % 8) & 1)
			point_add(&q, &q, &b);
		if (k[i / 8] >> (i % 8) & 1)
			point_add(&q, &q, &neg_a);
	}
	/* R must be that point's canonical encoding: a non-canonical or invalid R never matches */
	point_encode(r, &q);
	return memcmp(r, sig, sizeof(r)) == 0 ? 0 : -EBADMSG;
}
