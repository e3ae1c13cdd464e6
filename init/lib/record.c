// SPDX-License-Identifier: GPL-2.0-only
/* The boot-outcome record's encoding. Pure code. */
#include "record.h"
#include "strbuf.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDR 16
static const unsigned char magic[4] = {'S', 'T', 'R', 'B'};

uint32_t crc32_ieee(uint32_t crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;
	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
	}
	return ~crc;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int record_encode(const struct outcome_record *rec, unsigned char slot[RECORD_SLOT])
{
	struct strbuf sb;
	memset(slot, 0, RECORD_SLOT);
	strbuf_init(&sb, (char *)slot + HDR, RECORD_SLOT - HDR);
	strbuf_printf(&sb, "mode=%s\nerrno=%d\nreason=", rec->mode, rec->err);
	for (const char *r = rec->reason; *r; r++)
		strbuf_putc(&sb, *r == '\n' ? ' ' : *r);
	strbuf_putc(&sb, '\n');
	if (sb.err)
		return sb.err;
	memcpy(slot, magic, 4);
	put32(slot + 4, rec->seq);
	put32(slot + 12, (uint32_t)sb.used);
	put32(slot + 8, crc32_ieee(0, slot + 12, RECORD_SLOT - 12));
	return 0;
}

/* Copies the value of "key=" from text into out; returns 0 or -EBADMSG. */
static int field(const char *text, const char *key, char *out, size_t outlen)
{
	size_t klen = strlen(key);
	for (const char *p = text; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, klen) != 0 || p[klen] != '=')
			continue;
		const char *v = p + klen + 1, *nl = strchr(v, '\n');
		size_t len = nl ? (size_t)(nl - v) : strlen(v);
		if (len >= outlen)
			return -EBADMSG;
		memcpy(out, v, len);
		out[len] = '\0';
		return 0;
	}
	return -EBADMSG;
}

int record_decode(const unsigned char slot[RECORD_SLOT], struct outcome_record *rec)
{
	char text[RECORD_SLOT - HDR + 1], num[16];
	bool erased = true;
	for (size_t i = 0; i < HDR && erased; i++)
		erased = slot[i] == 0xff;
	if (erased)
		return -ENODATA;
	if (memcmp(slot, magic, 4) != 0 ||
	    get32(slot + 8) != crc32_ieee(0, slot + 12, RECORD_SLOT - 12))
		return -EBADMSG;
	uint32_t len = get32(slot + 12);
	if (len > RECORD_SLOT - HDR)
		return -EBADMSG;
	memcpy(text, slot + HDR, len);
	text[len] = '\0';
	memset(rec, 0, sizeof(*rec));
	rec->seq = get32(slot + 4);
	if (field(text, "mode", rec->mode, sizeof(rec->mode)) < 0 ||
	    field(text, "errno", num, sizeof(num)) < 0 ||
	    field(text, "reason", rec->reason, sizeof(rec->reason)) < 0)
		return -EBADMSG;
	char *end;
	long e = strtol(num, &end, 10);
	if (end == num || *end || e < 0 || e > 4095)
		return -EBADMSG;
	rec->err = (int)e;
	return 0;
}
