// SPDX-License-Identifier: GPL-2.0-only
/* Fuzz target: boot-outcome record slots read from the strata_log flash. */
/* fuzz-sources: record.c strbuf.c */
#include "../../init/lib/record.h"
#include "fuzz.h"

#include <errno.h>

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void decode(const unsigned char slot[RECORD_SLOT])
{
	struct outcome_record rec, again;
	unsigned char encoded[RECORD_SLOT];
	int r = record_decode(slot, &rec);
	FUZZ_ASSERT(r == 0 || r == -ENODATA || r == -EBADMSG);
	if (r != 0)
		return;
	FUZZ_TERMINATED(rec.mode);
	FUZZ_TERMINATED(rec.reason);
	FUZZ_ASSERT(rec.err >= 0 && rec.err <= 4095);
	/* what decodes encodes back to a slot that decodes the same (a newline in
	   the reason cannot be there: it ends the field) */
	if (record_encode(&rec, encoded) == 0) {
		FUZZ_ASSERT(record_decode(encoded, &again) == 0);
		FUZZ_ASSERT(again.seq == rec.seq && again.err == rec.err &&
			    strcmp(again.mode, rec.mode) == 0 &&
			    strcmp(again.reason, rec.reason) == 0);
	}
}

/*
 * Input: a raw slot (padded with erased bytes), decoded as is; then the same
 * bytes as the text of a slot with a valid header and CRC, so the fields
 * parser is reached, not only the CRC check.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char slot[RECORD_SLOT];
	size_t n = size < RECORD_SLOT ? size : RECORD_SLOT;
	memset(slot, 0xff, sizeof(slot));
	memcpy(slot, data, n);
	decode(slot);

	size_t text = size < RECORD_SLOT - 16 ? size : RECORD_SLOT - 16;
	memset(slot, 0, sizeof(slot));
	memcpy(slot, "STRB", 4);
	put32(slot + 4, size > 0 ? data[0] : 0);
	put32(slot + 12, size > 0 && data[0] == 0xff ? 0xffffffffu : (uint32_t)text);
	memcpy(slot + 16, data, text);
	put32(slot + 8, crc32_ieee(0, slot + 12, RECORD_SLOT - 12));
	decode(slot);
	return 0;
}
