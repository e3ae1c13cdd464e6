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

int verity_load_manifest(struct strata_ctx *ctx, char *why, size_t whylen)
{
	static char text[4096];
	char err[MANIFEST_ERR_MAX];
	ssize_t n = read_file(STRATA_MANIFEST, text, sizeof(text));
	if (n >= (ssize_t)sizeof(text) - 1)
		n = -EFBIG;
	/* without a manifest nothing can be verified, so nothing may be mounted */
	if (n < 0) {
		snprintf(why, whylen,
			 "cannot read the layer manifest %s: %s; no layer can be verified",
			 STRATA_MANIFEST, strerror((int)-n));
		return (int)n;
	}
	int r = manifest_parse(&ctx->manifest, text, err);
	if (r < 0)
		snprintf(why, whylen, "layer manifest %s: %s; no layer can be verified",
			 STRATA_MANIFEST, err);
	return r;
}

const struct manifest_layer *verity_claim(struct strata_ctx *ctx, const char *name)
{
	const struct manifest_layer *m = manifest_find(&ctx->manifest, name);
	if (m)
		ctx->manifest_used |= 1u << (m - ctx->manifest.layers);
	return m;
}

/* What the worker found for one lower; the main thread gives the verdict. */
struct measurement {
	int r;
	const char *error; /* dm-verity: what failed */
	uint8_t got[FSVERITY_DIGEST_SIZE];
	uint64_t ns;
};

static struct {
	struct measurement m[LOWERS_MAX];
	pthread_t thread;
	bool threaded;
	uint64_t start_ns;
} work;

/*
 * Reads and hashes what the layer's manifest entry covers: the whole image
 * (digest mode) or its hash tree (dm-verity). Only reads: nothing here
 * mounts, maps or decides.
 */
static void measure(const struct manifest_layer *m, const char *dev, struct measurement *out)
{
	uint64_t t0 = now_boottime_ns();
	bool kernel;
	out->error = "";
	out->r = m->dmverity ? dmverity_check(dev, m, &out->error)
			     : layer_measure(dev, m->bytes, out->got, &kernel);
	out->ns = now_boottime_ns() - t0;
}

static void *measure_lowers(void *arg)
{
	struct strata_ctx *ctx = arg;
	for (size_t i = 0; i < ctx->n_lowers; i++) {
		const struct lower_layer *l = &ctx->lowers[i];
		const struct manifest_layer *m = manifest_find(&ctx->manifest, l->name);
		if (l->dev[0] && m)
			measure(m, l->dev, &work.m[i]);
	}
	return NULL;
}

int verity_start(struct strata_ctx *ctx, char *whyout, size_t whylen)
{
	int r = verity_load_manifest(ctx, whyout, whylen);
	if (r < 0)
		return r;
	work.start_ns = now_boottime_ns();
	work.threaded = thread_start(&work.thread, 128 * 1024, measure_lowers, ctx);
	if (!work.threaded)
		measure_lowers(ctx);
	return 0;
}

/*
 * The verdict on lower i from its measurement: 0, 1 for an optional add-on
 * refused and dropped, or -errno with whyout for any other refusal (the boot
 * stops). Recorded in boot.json either way.
 */
static int verdict(struct strata_ctx *ctx, size_t i, char *whyout, size_t whylen)
{
	struct lower_layer *l = &ctx->lowers[i];
	const char *name = l->name, *dev = l->dev;
	const struct manifest_layer *m = verity_claim(ctx, name);
	const struct measurement *ms = &work.m[i];
	struct bootrec_verity scratch, *v = bootrec_add_verity(&ctx->rec);
	char why[400], mapped[48];
	int r = ms->r;

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
	v->ns = ms->ns;
	fsverity_to_hex(m->digest, v->expected);
	if (m->dmverity) {
		const char *error = ms->error;
		uint64_t t0 = now_boottime_ns();
		/* a tree that does not match may have flipped bits that FEC corrects: the kernel
		 * says */
		bool fec = r == -EBADMSG && m->fec_roots;
		/* the tree hashes to the root: the kernel checks each block against it */
		if (r == 0 || fec)
			r = dmverity_map(name, dev, m, fec, mapped, sizeof(mapped), &error);
		if (r == 0 && fec) {
			/* read with EIO on a bad block; then the table with the configured
			 * behaviour */
			r = dmverity_read_tree(mapped, m);
			dmverity_unmap(name);
			if (r < 0) {
				error =
				    "hash tree does not match the root hash, even corrected by FEC";
				r = -EBADMSG;
			} else if ((r = dmverity_map(name, dev, m, false, mapped, sizeof(mapped),
						     &error)) == 0) {
				log_warn(
				    "layer '%s' (%s): its hash tree on the flash has changed bits; "
				    "dm-verity's forward error correction corrected them and the "
				    "kernel checked the result against root %s",
				    name, dev, v->expected);
			}
		}
		v->ns += now_boottime_ns() - t0;
		if (r < 0) {
			v->error = error;
			snprintf(why, sizeof(why),
				 "layer '%s' (%s) refused: %s (dm-verity root %s)%s%s", name, dev,
				 error, v->expected, r == -EBADMSG ? "" : ": ",
				 r == -EBADMSG ? "" : strerror(-r));
			goto refused;
		}
		memcpy(v->measured, v->expected, sizeof(v->measured));
		v->state = "verified";
		log_info("layer '%s' served through dm-verity on %s: hash tree matches root %s "
			 "(%llu bytes, %llu ms)",
			 name, mapped, v->expected, (unsigned long long)m->bytes,
			 (unsigned long long)(v->ns / 1000000));
		return xsnprintf(l->dev, sizeof(l->dev), "%s", mapped) < 0 ? -ENAMETOOLONG : 0;
	}
	if (r < 0) {
		v->error = r == -ENODATA ? "shorter than the manifest says" : "cannot be read";
		snprintf(why, sizeof(why), "layer '%s' (%s) cannot be measured: %s", name, dev,
			 r == -ENODATA ? "the device is shorter than the manifest's length"
				       : strerror(-r));
		goto refused;
	}
	fsverity_to_hex(ms->got, v->measured);
	if (memcmp(ms->got, m->digest, sizeof(ms->got)) != 0) {
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
	if (l->optional && m && m->optional) {
		log_error("%s; it is optional: booting without it", why);
		return 1;
	}
	snprintf(whyout, whylen, "%s", why);
	return r < 0 ? r : -EBADMSG;
}

static int check_unlisted(struct strata_ctx *ctx, char *why, size_t whylen)
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
		snprintf(why, whylen,
			 "the manifest %s lists layer '%s', which this board does not have",
			 STRATA_MANIFEST, m->name);
		return -ENOENT;
	}
	return 0;
}

int verity_finish(struct strata_ctx *ctx, uint64_t span[2], char *why, size_t whylen)
{
	if (work.threaded)
		pthread_join(work.thread, NULL);
	work.threaded = false;
	/* each layer's own time (with its mapping) is its record's "ns" */
	span[0] = work.start_ns;
	span[1] = now_boottime_ns();
	for (size_t i = 0; i < ctx->n_lowers; i++) {
		struct lower_layer *l = &ctx->lowers[i];
		if (!l->dev[0]) {
			/* an optional add-on this device lacks (already said so) */
			verity_claim(ctx, l->name);
			continue;
		}
		/* a refused optional add-on is left out; any other refusal stops the boot */
		int r = verdict(ctx, i, why, whylen);
		if (r < 0)
			return r;
		if (r > 0)
			l->dev[0] = '\0';
	}
	return check_unlisted(ctx, why, whylen);
}
