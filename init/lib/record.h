/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The boot-outcome record: a few bytes on flash of its own that say how the
 * last boots went, so a degraded boot is still known after the reboot that
 * follows it. Encoding is pure code; record_io.c reads and writes flash.
 */
#ifndef STRATA_RECORD_H
#define STRATA_RECORD_H

#include <stddef.h>
#include <stdint.h>

#define RECORD_SLOT 256

struct outcome_record {
	uint32_t seq;  /* grows by one per record written */
	char mode[16]; /* "degraded", or "normal" once a normal boot followed */
	int err;       /* errno of a degraded boot */
	char reason[200];
};

uint32_t crc32_ieee(uint32_t crc, const void *buf, size_t len);
/* Fills a slot: "STRB", seq, crc32, length, then "mode=..\nerrno=..\nreason=..\n". */
int record_encode(const struct outcome_record *rec, unsigned char slot[RECORD_SLOT]);
/* Returns 0, -ENODATA for an erased slot, -EBADMSG for anything else that is not a record. */
int record_decode(const unsigned char slot[RECORD_SLOT], struct outcome_record *rec);

/* record_io.c: dev is /dev/mtdN (a ring of slots) or /dev/ubiX_Y (one slot, atomic LEB change) */
int record_read_latest(const char *dev, int is_ubi, struct outcome_record *rec, uint64_t *next_off);
int record_append(const char *dev, int is_ubi, const struct outcome_record *rec, uint64_t next_off);

#endif
