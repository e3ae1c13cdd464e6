/* SPDX-License-Identifier: GPL-2.0-only */
/* The layer manifest (/etc/strata/manifest): expected fs-verity digest of each layer. Pure code. */
#ifndef STRATA_MANIFEST_H
#define STRATA_MANIFEST_H

#include "fsverity.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define STRATA_MANIFEST "/etc/strata/manifest"
#define MANIFEST_MAX_LAYERS 16
#define MANIFEST_NAME_MAX 64 /* with the NUL */
#define MANIFEST_ERR_MAX 160

/*
 *     strata-manifest 1
 *     layer <name> <bytes> <sha256 fs-verity digest, 64 hex> [optional]
 *     dm-verity <name> <bytes> <root hash, 64 hex> <salt, 64 hex> [fec=<roots>] [optional]
 *
 * '#' starts a comment line. <name> is the partition, UBI volume, GPT
 * partition or image file name as the board finds it; the digest covers the
 * first <bytes> bytes (a raw volume is longer than the image in it). A
 * dm-verity line pins the root hash of the hash tree (sha256, 4096-byte
 * blocks, no superblock) that follows those bytes; fec=<roots> (2-24): the
 * tree is followed by Reed-Solomon parity over data and tree (veritysetup
 * --fec-roots).
 */
struct manifest_layer {
	char name[MANIFEST_NAME_MAX];
	uint64_t bytes;
	uint8_t digest[FSVERITY_DIGEST_SIZE];
	bool optional; /* an add-on the boot may drop when it fails verification */
	bool dmverity; /* digest is the root hash of a dm-verity tree after the data */
	uint8_t salt[FSVERITY_DIGEST_SIZE];
	unsigned fec_roots; /* dm-verity: parity bytes per 255 after the tree, 0: none */
};

struct manifest {
	struct manifest_layer layers[MANIFEST_MAX_LAYERS];
	size_t n;
};

/*
 * Parses the whole text; any bad line rejects the manifest. Returns 0, or
 * -EBADMSG (-E2BIG: more than MANIFEST_MAX_LAYERS) with err set to a message
 * that names the line ("line 3: ...").
 */
int manifest_parse(struct manifest *m, const char *text, char err[MANIFEST_ERR_MAX]);
/* The entry for a layer name, or NULL. */
const struct manifest_layer *manifest_find(const struct manifest *m, const char *name);

#endif
