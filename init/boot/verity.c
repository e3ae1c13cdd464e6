// SPDX-License-Identifier: GPL-2.0-only
/* Layers measured against the manifest in the initramfs before they are mounted. */
#include "log.h"
#include "store.h"
#include "boot.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void verity_load_manifest(struct strata_ctx *ctx)
{
	static char text[4096];
	char err[MANIFEST_ERR_MAX];
	ssize_t n = read_file(STRATA_MANIFEST, text, sizeof(text));
	if (n >= (ssize_t)sizeof(text) - 1)
		n = -EFBIG;
	/* without a manifest nothing can be verified, so nothing may be mounted */
	if (n < 0)
		fatal(ctx, "cannot read the layer manifest %s: %s; no layer can be verified",
		      STRATA_MANIFEST, strerror((int)-n));
	if (manifest_parse(&ctx->manifest, text, err) < 0)
		fatal(ctx, "layer manifest %s: %s; no layer can be verified", STRATA_MANIFEST, err);
}

const struct manifest_layer *verity_claim(struct strata_ctx *ctx, const char *name)
{
	const struct manifest_layer *m = manifest_find(&ctx->manifest, name);
	if (m)
		ctx->manifest_used |= 1u << (m - ctx->manifest.layers);
	return m;
}

int verity_check_layer(struct strata_ctx *ctx, const char *name, char *dev, size_t devlen,
		       bool droppable)
{
	const struct manifest_layer *m = verity_claim(ctx, name);
	struct bootrec_verity scratch, *v = bootrec_add_verity(&ctx->rec);
	uint8_t got[FSVERITY_DIGEST_SIZE];
	char why[400];
	uint64_t t0 = now_boottime_ns();
	int r;

	if (!v)
		v = &scratch; /* the record is full; the check itself still happens */
	snprintf(v->layer, sizeof(v->layer), "%s", name);
	snprintf(v->device, sizeof(v->device), "%s", dev);
	v->state = "refused";
	if (!m) {
		v->error = "not in the manifest";
		snprintf(why, sizeof(why), "layer '%s' (%s) is not in the manifest %s", name, dev,
			 STRATA_MANIFEST);
		r = -ENOENT;
		goto refused;
	}
	v->bytes = m->bytes;
	v->optional = m->optional;
	v->mode = m->dmverity ? "dm-verity" : "digest";
	fsverity_to_hex(m->digest, v->expected);
	if (m->dmverity) {
		char mapped[48];
		const char *error = "";
		r = dmverity_open(name, dev, m, mapped, sizeof(mapped), &error);
		v->ns = now_boottime_ns() - t0;
		if (r < 0) {
			v->error = error;
			snprintf(why, sizeof(why),
				 "layer '%s' (%s) refused: %s (dm-verity root %s)%s%s", name, dev,
				 error, v->expected, r == -EBADMSG ? "" : ": ",
				 r == -EBADMSG ? "" : strerror(-r));
			goto refused;
		}
		/* the tree hashes to the root: what the kernel will check each block against */
		memcpy(v->measured, v->expected, sizeof(v->measured));
		v->state = "verified";
		log_info("layer '%s' served through dm-verity on %s: hash tree matches root %s "
			 "(%llu bytes, %llu ms)",
			 name, mapped, v->expected, (unsigned long long)m->bytes,
			 (unsigned long long)(v->ns / 1000000));
		return xsnprintf(dev, devlen, "%s", mapped) < 0 ? -ENAMETOOLONG : 0;
	}
	/* an image file on ext4/f2fs with fs-verity: the kernel's digest, O(1) */
	bool kernel;
	r = layer_measure(dev, m->bytes, got, &kernel);
	v->ns = now_boottime_ns() - t0;
	if (r < 0) {
		v->error = r == -ENODATA ? "shorter than the manifest says" : "cannot be read";
		snprintf(why, sizeof(why), "layer '%s' (%s) cannot be measured: %s", name, dev,
			 r == -ENODATA ? "the device is shorter than the manifest's length"
				       : strerror(-r));
		goto refused;
	}
	fsverity_to_hex(got, v->measured);
	if (memcmp(got, m->digest, sizeof(got)) != 0) {
		v->error = "digest mismatch";
		snprintf(why, sizeof(why),
			 "layer '%s' (%s) refused: fs-verity digest %s, the manifest expects %s",
			 name, dev, v->measured, v->expected);
		r = -EBADMSG;
		goto refused;
	}
	v->state = "verified";
	log_info("layer '%s' verified: fs-verity digest %s (%llu bytes, %llu ms)", name,
		 v->measured, (unsigned long long)m->bytes, (unsigned long long)(v->ns / 1000000));
	return 0;

refused:
	if (droppable && m && m->optional) {
		log_error("%s; it is optional: booting without it", why);
		return r;
	}
	/* the record tells why the boot stopped, whatever the fatal policy does next */
	boot_record_write(ctx);
	fatal(ctx, "%s", why);
}

void verity_check_unlisted(struct strata_ctx *ctx)
{
	for (size_t i = 0; i < ctx->manifest.n; i++) {
		const struct manifest_layer *m = &ctx->manifest.layers[i];
		if (ctx->manifest_used & (1u << i))
			continue;
		if (m->optional) {
			log_warn(
			    "the manifest lists the optional layer '%s', which this board does "
			    "not have",
			    m->name);
			continue;
		}
		boot_record_write(ctx);
		fatal(ctx, "the manifest %s lists layer '%s', which this board does not have",
		      STRATA_MANIFEST, m->name);
	}
}
