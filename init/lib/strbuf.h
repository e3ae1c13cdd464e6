/* SPDX-License-Identifier: GPL-2.0-only */
/* Bounded string building into caller-owned buffers; truncation is an error. */
#ifndef STRATA_STRBUF_H
#define STRATA_STRBUF_H

#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len, used;
	int err; /* 0 or -ENAMETOOLONG once anything did not fit */
};

void strbuf_init(struct strbuf *sb, char *buf, size_t len);
void strbuf_putc(struct strbuf *sb, char c);
void strbuf_puts(struct strbuf *sb, const char *s);
void strbuf_printf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A JSON string literal, quotes included. */
void strbuf_json_str(struct strbuf *sb, const char *s);
/* Returns the length or sb->err. */
int strbuf_result(const struct strbuf *sb);

#endif
