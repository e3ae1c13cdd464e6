// SPDX-License-Identifier: GPL-2.0-only
/* Remembers degraded and failed boots across reboots in the board's record partition or volume. */
#include "log.h"
#include "flash.h"
#include "record.h"
#include "boot.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void outcome_load(struct strata_ctx *ctx)
{
	struct bootrec *rec = &ctx->rec;
	if (!CONFIG_STRATA_RECORD_PART[0])
		return;
	int r = flash->raw ? flash->raw(CONFIG_STRATA_RECORD_PART, rec->record_dev,
					sizeof(rec->record_dev))
			   : -EOPNOTSUPP;
	if (r < 0) {
		rec->record_dev[0] = '\0';
		log_warn_errno(r, "no boot-outcome record: '%s' not found (%m)",
			       CONFIG_STRATA_RECORD_PART);
		return;
	}
	r = record_read_latest(rec->record_dev, flash->record_is_ubi, &rec->previous,
			       &ctx->record_next);
	if (r == 0) {
		rec->has_previous = true;
		if (strcmp(rec->previous.mode, "degraded") == 0)
			log_warn("the previous boot was degraded: %s (errno %d)",
				 rec->previous.reason, rec->previous.err);
	} else if (r != -ENOENT) {
		log_warn_errno(r, "cannot read the boot-outcome record on %s: %m", rec->record_dev);
	}
}

static void store(struct strata_ctx *ctx, const char *mode, int err, const char *reason)
{
	struct bootrec *rec = &ctx->rec;
	struct outcome_record out = {0};
	out.seq = rec->has_previous ? rec->previous.seq + 1 : 1;
	snprintf(out.mode, sizeof(out.mode), "%s", mode);
	out.err = err;
	snprintf(out.reason, sizeof(out.reason), "%s", reason);
	int r = record_append(rec->record_dev, flash->record_is_ubi, &out, ctx->record_next);
	if (r < 0)
		log_warn_errno(r, "cannot write the boot-outcome record on %s: %m",
			       rec->record_dev);
	else
		log_debug("boot-outcome record %u (%s) written to %s", out.seq, out.mode,
			  rec->record_dev);
}

void outcome_store(struct strata_ctx *ctx)
{
	struct bootrec *rec = &ctx->rec;
	bool degraded = rec->degraded_reason[0] != '\0';
	bool prev_news = rec->has_previous && strcmp(rec->previous.mode, "normal") != 0;
	/* flash is written only when there is news: a degraded boot, or the first good one after
	   a degraded or failed one */
	if (!rec->record_dev[0] || (!degraded && !prev_news))
		return;
	store(ctx, degraded ? "degraded" : "normal", degraded ? rec->degraded_errno : 0,
	      rec->degraded_reason);
}

void outcome_store_failed(struct strata_ctx *ctx, const char *why)
{
	char reason[sizeof(((struct outcome_record *)0)->reason)];
	if (!ctx->rec.record_dev[0])
		return; /* failed before the record's partition was there */
	if (ctx->opts.slot[0])
		snprintf(reason, sizeof(reason), "slot %s: %s", ctx->opts.slot, why);
	else
		snprintf(reason, sizeof(reason), "%s", why);
	store(ctx, "failed", 0, reason);
}
