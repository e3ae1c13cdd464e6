// SPDX-License-Identifier: GPL-2.0-only
/*
 * A small printf engine without floating point. musl's vfprintf carries a
 * complete floating-point formatter (about 8 KiB of the static binary) that
 * nothing in strata needs; printf.c routes the C library's printf family here.
 */
#include "format.h"

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct out {
	FILE *f;
	size_t n;
	int total;
	char buf[256];
};

static void flush(struct out *o)
{
	if (o->n)
		fwrite(o->buf, 1, o->n, o->f);
	o->n = 0;
}

static void put(struct out *o, const char *s, size_t len)
{
	o->total += (int)len;
	while (len) {
		size_t room = sizeof(o->buf) - o->n, k = len < room ? len : room;
		memcpy(o->buf + o->n, s, k);
		o->n += k;
		s += k;
		len -= k;
		if (o->n == sizeof(o->buf))
			flush(o);
	}
}

static void pad(struct out *o, char c, int count)
{
	while (count-- > 0)
		put(o, &c, 1);
}

int format_vfprintf(FILE *f, const char *fmt, va_list ap)
{
	int saved_errno = errno;
	struct out o = {.f = f};
	while (*fmt) {
		const char *pct = strchr(fmt, '%');
		size_t lit = pct ? (size_t)(pct - fmt) : strlen(fmt);
		put(&o, fmt, lit);
		if (!pct)
			break;
		fmt = pct + 1;

		bool left = false, zero = false, alt = false;
		char sign = 0;
		for (;; fmt++) {
			if (*fmt == '-')
				left = true;
			else if (*fmt == '0')
				zero = true;
			else if (*fmt == '#')
				alt = true;
			else if (*fmt == '+' || (*fmt == ' ' && sign != '+'))
				sign = *fmt;
			else
				break;
		}
		int width = 0, prec = -1;
		if (*fmt == '*') {
			width = va_arg(ap, int);
			if (width < 0) {
				left = true;
				width = -width;
			}
			fmt++;
		} else {
			while (*fmt >= '0' && *fmt <= '9')
				width = width * 10 + (*fmt++ - '0');
		}
		if (*fmt == '.') {
			fmt++;
			prec = 0;
			if (*fmt == '*') {
				prec = va_arg(ap, int);
				fmt++;
			} else {
				while (*fmt >= '0' && *fmt <= '9')
					prec = prec * 10 + (*fmt++ - '0');
			}
		}
		int size = 0; /* -2 hh, -1 h, 0 int, 1 long, 2 long long / intmax_t / size_t */
		for (;; fmt++) {
			if (*fmt == 'h')
				size--;
			else if (*fmt == 'l')
				size++;
			else if (*fmt == 'j' || *fmt == 'z' || *fmt == 't')
				size = 2;
			else
				break;
		}
		char conv = *fmt++, num[24];
		const char *s = num, *prefix = "";
		size_t len = 0;
		uintmax_t v = 0;
		bool is_num = true;
		switch (conv) {
		case '%':
			put(&o, "%", 1);
			continue;
		case 'c':
			num[0] = (char)va_arg(ap, int);
			len = 1;
			is_num = false;
			break;
		case 'm':
		case 's':
			s = conv == 'm' ? strerror(saved_errno) : va_arg(ap, const char *);
			if (!s)
				s = "(null)";
			len = strnlen(s, prec >= 0 ? (size_t)prec : SIZE_MAX);
			is_num = false;
			break;
		case 'd':
		case 'i': {
			intmax_t iv = size >= 2	  ? va_arg(ap, long long)
				      : size == 1 ? va_arg(ap, long)
						  : va_arg(ap, int);
			if (size == -1)
				iv = (short)iv;
			else if (size <= -2) /* the low byte, sign-extended */
				iv = (intmax_t)(uint8_t)iv - ((uint8_t)iv > 127 ? 256 : 0);
			v = iv < 0 ? -(uintmax_t)iv : (uintmax_t)iv;
			prefix = iv < 0 ? "-" : sign == '+' ? "+" : sign == ' ' ? " " : "";
			break;
		}
		case 'p':
			v = (uintptr_t)va_arg(ap, void *);
			prefix = "0x";
			conv = 'x';
			break;
		case 'u':
		case 'x':
		case 'X':
		case 'o':
			v = size >= 2	? va_arg(ap, unsigned long long)
			    : size == 1 ? va_arg(ap, unsigned long)
					: va_arg(ap, unsigned int);
			if (size == -1)
				v = (unsigned short)v;
			else if (size <= -2)
				v = (unsigned char)v;
			if (alt && v && conv != 'u')
				prefix = conv == 'o' ? "0" : conv == 'x' ? "0x" : "0X";
			break;
		default:
			flush(&o);
			errno = EINVAL;
			return -1;
		}
		if (is_num) {
			unsigned base = conv == 'o' ? 8 : conv == 'x' || conv == 'X' ? 16 : 10;
			const char *dig = conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
			char *e = num + sizeof(num), *p = e;
			/* zero with precision 0 has no digits */
			if (v || prec != 0) {
				do {
					*--p = dig[v % base];
					v /= base;
				} while (v);
			}
			s = p;
			len = (size_t)(e - p);
		} else {
			prec = -1;
			zero = false;
		}
		/* precision of a number: at least that many digits */
		int zeros = prec > (int)len ? prec - (int)len : 0;
		if (prec >= 0)
			zero = false;
		int body = (int)strlen(prefix) + zeros + (int)len;
		if (zero && !left && width > body) {
			zeros += width - body;
			body = width;
		}
		if (!left)
			pad(&o, ' ', width - body);
		put(&o, prefix, strlen(prefix));
		pad(&o, '0', zeros);
		put(&o, s, len);
		if (left)
			pad(&o, ' ', width - body);
	}
	flush(&o);
	return o.total;
}
