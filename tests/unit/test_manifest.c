// SPDX-License-Identifier: GPL-2.0-only
/* The layer manifest parser: good manifests, and each malformed line named by number. */
#define UNIT_NAME "manifest"
#include "unit.h"
#include "../../init/lib/manifest.h"

#include <errno.h>

#define D1 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define D2 "FEDCBA9876543210FEDCBA9876543210FEDCBA9876543210FEDCBA9876543210"

static struct manifest m;
static char err[MANIFEST_ERR_MAX];

static void good_manifest(void)
{
	const char *text = "# layers of the test board\n"
			   "\n"
			   "strata-manifest 1\n"
			   "layer rootfs 991232 " D1 "\n"
			   "  # an add-on\n"
			   "layer\trootfs_addon1  4096\t" D2 " optional\r\n"
			   "layer meta.img 1 " D1;
	CHECK(manifest_parse(&m, text, err) == 0);
	CHECK_STR(err, "");
	CHECK(m.n == 3);
	const struct manifest_layer *l = manifest_find(&m, "rootfs");
	CHECK(l && l->bytes == 991232 && !l->optional && l->digest[0] == 0x01 &&
	      l->digest[31] == 0xef);
	l = manifest_find(&m, "rootfs_addon1");
	CHECK(l && l->bytes == 4096 && l->optional && l->digest[0] == 0xfe);
	l = manifest_find(&m, "meta.img");
	CHECK(l && l->bytes == 1 && !l->optional);
	CHECK(manifest_find(&m, "rootfs_addon") == NULL);
	CHECK(manifest_find(&m, "") == NULL);
}

static void header_only_is_empty(void)
{
	CHECK(manifest_parse(&m, "strata-manifest 1\n", err) == 0 && m.n == 0);
}

static void bad(const char *text, int ret, const char *msg)
{
	int r = manifest_parse(&m, text, err);
	CHECK(r == ret);
	if (strcmp(err, msg) != 0) {
		fprintf(stderr, "  for %s\n", text);
		CHECK_STR(err, msg);
	}
}

static void malformed_lines_are_named(void)
{
	bad("", -EBADMSG, "line 1: no 'strata-manifest 1' header");
	bad("# only a comment\n\n", -EBADMSG, "line 2: no 'strata-manifest 1' header");
	bad("layer rootfs 1 " D1 "\n", -EBADMSG, "line 1: expected the header 'strata-manifest 1'");
	bad("#\nstrata-manifest 2\n", -EBADMSG,
	    "line 2: manifest version '2' is not supported (1 is)");
	bad("strata-manifest\n", -EBADMSG, "line 1: expected the header 'strata-manifest 1'");
	bad("strata-manifest 1\nlayer rootfs 1\n", -EBADMSG,
	    "line 2: expected 'layer NAME BYTES DIGEST [optional]', got 3 fields");
	bad("strata-manifest 1\nlayer rootfs 1 " D1 " maybe\n", -EBADMSG,
	    "line 2: unexpected 'maybe' after the digest");
	bad("strata-manifest 1\nlayer rootfs 1 " D1 " optional extra\n", -EBADMSG,
	    "line 2: unexpected 'extra' after the digest");
	bad("strata-manifest 1\nlayer root/fs 1 " D1 "\n", -EBADMSG,
	    "line 2: bad layer name 'root/fs' (1-63 of A-Z a-z 0-9 _ - .)");
	bad("strata-manifest 1\n\nlayer rootfs 0x10 " D1 "\n", -EBADMSG,
	    "line 3: bad length '0x10' of layer 'rootfs' (decimal bytes > 0)");
	bad("strata-manifest 1\nlayer rootfs 0 " D1 "\n", -EBADMSG,
	    "line 2: bad length '0' of layer 'rootfs' (decimal bytes > 0)");
	bad("strata-manifest 1\nlayer rootfs 99999999999999999999 " D1 "\n", -EBADMSG,
	    "line 2: bad length '99999999999999999999' of layer 'rootfs' (decimal bytes > 0)");
	bad("strata-manifest 1\nlayer rootfs 10 " D1 "0\n", -EBADMSG,
	    "line 2: bad digest of layer 'rootfs' (64 hex digits of a sha256 fs-verity digest)");
	bad("strata-manifest 1\nlayer rootfs 10 sha256:" D1 "\n", -EBADMSG,
	    "line 2: bad digest of layer 'rootfs' (64 hex digits of a sha256 fs-verity digest)");
	bad("strata-manifest 1\nlayer a 1 " D1 "\nlayer a 2 " D2 "\n", -EBADMSG,
	    "line 3: layer 'a' is listed twice");
	bad("strata-manifest 1\nlayers a 1 " D1 "\n", -EBADMSG, "line 2: unknown keyword 'layers'");
	bad("strata-manifest 1\nstrata-manifest 1\n", -EBADMSG,
	    "line 2: unknown keyword 'strata-manifest'");
}

static void too_many_layers(void)
{
	char text[8192] = "strata-manifest 1\n";
	for (int i = 0; i <= MANIFEST_MAX_LAYERS; i++) {
		size_t n = strlen(text);
		snprintf(text + n, sizeof(text) - n, "layer l%d 1 %s\n", i, D1);
	}
	bad(text, -E2BIG, "line 18: more than 16 layers");
}

static void long_name(void)
{
	char text[512], name[80];
	memset(name, 'a', 64);
	name[64] = '\0';
	snprintf(text, sizeof(text), "strata-manifest 1\nlayer %s 1 %s\n", name, D1);
	CHECK(manifest_parse(&m, text, err) == -EBADMSG);
	CHECK(strncmp(err, "line 2: bad layer name", 22) == 0);
	name[63] = '\0';
	snprintf(text, sizeof(text), "strata-manifest 1\nlayer %s 1 %s\n", name, D1);
	CHECK(manifest_parse(&m, text, err) == 0 && strlen(m.layers[0].name) == 63);
}

static void dm_verity_lines(void)
{
	CHECK(manifest_parse(&m,
			     "strata-manifest 1\n"
			     "dm-verity rootfs 2625536 " D1 " " D2 "\n"
			     "dm-verity extra 4096 " D2 " " D1 " optional\n"
			     "dm-verity fec 8192 " D2 " " D1 " fec=2\n"
			     "dm-verity fec24 8192 " D2 " " D1 " fec=24 optional\n"
			     "layer meta.img 1 " D1 "\n",
			     err) == 0);
	const struct manifest_layer *l = manifest_find(&m, "rootfs");
	CHECK(l && l->dmverity && l->bytes == 2625536 && l->digest[0] == 0x01 &&
	      l->salt[0] == 0xfe && !l->optional);
	l = manifest_find(&m, "extra");
	CHECK(l && l->dmverity && l->optional && l->salt[31] == 0xef && l->fec_roots == 0);
	l = manifest_find(&m, "fec");
	CHECK(l && l->fec_roots == 2 && !l->optional);
	l = manifest_find(&m, "fec24");
	CHECK(l && l->fec_roots == 24 && l->optional);
	CHECK(!manifest_find(&m, "meta.img")->dmverity);
	bad("strata-manifest 1\ndm-verity rootfs 4096 " D1 "\n", -EBADMSG,
	    "line 2: expected 'dm-verity NAME BYTES ROOT-HASH SALT [fec=ROOTS] [optional]', got 4 "
	    "fields");
	bad("strata-manifest 1\ndm-verity rootfs 4097 " D1 " " D2 "\n", -EBADMSG,
	    "line 2: bad salt or length of layer 'rootfs' (64 hex digits; whole 4096-byte blocks)");
	bad("strata-manifest 1\ndm-verity rootfs 4096 " D1 " 00\n", -EBADMSG,
	    "line 2: bad salt or length of layer 'rootfs' (64 hex digits; whole 4096-byte blocks)");
	bad("strata-manifest 1\ndm-verity rootfs 4096 " D1 " " D2 " maybe\n", -EBADMSG,
	    "line 2: unexpected 'maybe' after the salt");
	bad("strata-manifest 1\ndm-verity rootfs 4096 " D1 " " D2 " fec=1\n", -EBADMSG,
	    "line 2: bad 'fec=1' (fec=2 to fec=24)");
	bad("strata-manifest 1\ndm-verity rootfs 4096 " D1 " " D2 " fec=25\n", -EBADMSG,
	    "line 2: bad 'fec=25' (fec=2 to fec=24)");
	bad("strata-manifest 1\ndm-verity rootfs 4096 " D1 " " D2 " fec=2x\n", -EBADMSG,
	    "line 2: bad 'fec=2x' (fec=2 to fec=24)");
	bad("strata-manifest 1\ndm-verity rootfs 4096 " D1 " " D2 " fec=2 maybe\n", -EBADMSG,
	    "line 2: unexpected 'maybe' after the fec= field");
	bad("strata-manifest 1\nlayer rootfs 4096 " D1 " fec=2\n", -EBADMSG,
	    "line 2: unexpected 'fec=2' after the digest");
}

int main(void)
{
	RUN(good_manifest);
	RUN(dm_verity_lines);
	RUN(header_only_is_empty);
	RUN(malformed_lines_are_named);
	RUN(too_many_layers);
	RUN(long_name);
	return UNIT_EXIT();
}
