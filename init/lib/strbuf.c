// SPDX-License-Identifier: GPL-2.0-only
/* Bounded string building into caller-owned buffers; truncation is an error. */
#include "strbuf.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

void strbuf_init(struct strbuf *sb, char *buf, size_t len)
{
	sb->buf = buf;
	sb->len = len;
	sb->used = 0;
	sb->err = len ? 0 : -ENAMETOOLONG;
	if (len)
		buf[0] = '\0';
}

void strbuf_putc(struct strbuf *sb, char c)
{
	if (sb->err)
		return;
	if (sb->used + 1 >= sb->len) {
		sb->err = -ENAMETOOLONG;
		return;
	}
	sb->buf[sb->used++] = c;
	sb->buf[sb->used] = '\0';
}

void strbuf_puts(struct strbuf *sb, const char *s)
{
	while (*s && !sb->err)
		strbuf_putc(sb, *s++);
}

void strbuf_printf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	if (sb->err)
		return;
	va_start(ap, fmt);
	int n = vsnprintf(sb->buf + sb->used, sb->len - sb->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sb->len - sb->used) {
		sb->buf[sb->used] = '\0';
		sb->err = -ENAMETOOLONG;
		return;
	}
	sb->used += (size_t)n;
}

void strbuf_json_str(struct strbuf *sb, const char *s)
{
	strbuf_putc(sb, '"');
	for (; *s && !sb->err; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			strbuf_putc(sb, '\\');
			strbuf_putc(sb, (char)c);
		} else if (c == '\n') {
			strbuf_puts(sb, "\\n");
		} else if (c < 0x20) {
			strbuf_printf(sb, "\\u%04x", c);
		} else {
			strbuf_putc(sb, (char)c);
		}
	}
	strbuf_putc(sb, '"');
}

int strbuf_result(const struct strbuf *sb)
{
	return sb->err ? sb->err : (int)sb->used;
}
