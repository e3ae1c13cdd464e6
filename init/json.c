// SPDX-License-Identifier: GPL-2.0-only
/* Reading fields back from the JSON strata itself writes. Pure code. */
#include "json.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Returns the first character of the value of "key", or NULL. */
static const char *find_value(const char *text, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text;
	while ((p = strchr(p, '"'))) {
		if (strncmp(p + 1, key, klen) == 0 && p[1 + klen] == '"') {
			const char *v = p + 2 + klen;
			while (*v == ' ' || *v == '\t' || *v == '\n' || *v == '\r')
				v++;
			if (*v == ':') {
				v++;
				while (*v == ' ' || *v == '\t' || *v == '\n' || *v == '\r')
					v++;
				return v;
			}
		}
		p++;
		/* skip the rest of this string literal, escapes included */
		while (*p && *p != '"') {
			if (*p == '\\' && p[1])
				p++;
			p++;
		}
		if (*p)
			p++;
	}
	return NULL;
}

int json_get_string(const char *text, const char *key, char *out, size_t outlen)
{
	const char *v = find_value(text, key);
	size_t used = 0;
	if (!v)
		return -ENOENT;
	if (*v != '"' || outlen == 0)
		return -EINVAL;
	for (v++; *v && *v != '"'; v++) {
		char c = *v;
		if (c == '\\') {
			v++;
			switch (*v) {
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case '"': case '\\': case '/': c = *v; break;
			case 'u': {
				char hex[5] = { 0 };
				for (int i = 0; i < 4; i++) {
					if (!v[1 + i])
						return -EINVAL;
					hex[i] = v[1 + i];
				}
				char *end;
				unsigned long cp = strtoul(hex, &end, 16);
				if (*end)
					return -EINVAL;
				c = cp < 0x80 ? (char)cp : '?';
				v += 4;
				break;
			}
			default:
				return -EINVAL;
			}
		}
		if (used + 1 >= outlen)
			return -ENAMETOOLONG;
		out[used++] = c;
	}
	if (*v != '"')
		return -EINVAL;
	out[used] = '\0';
	return 0;
}

int json_get_u64(const char *text, const char *key, uint64_t *out)
{
	const char *v = find_value(text, key);
	char *end;
	if (!v)
		return -ENOENT;
	if (*v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno)
		return -EINVAL;
	*out = n;
	return 0;
}

const char *json_find_array(const char *text, const char *key)
{
	const char *v = find_value(text, key);
	return v && *v == '[' ? v + 1 : NULL;
}

int json_array_next(const char **cursor, char *obj, size_t len)
{
	const char *p = *cursor;
	while (*p == ' ' || *p == ',' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	if (*p == ']' || *p == '\0') {
		*cursor = p;
		return *p == ']' ? 0 : -EINVAL;
	}
	if (*p != '{')
		return -EINVAL;
	const char *start = p;
	int depth = 0;
	bool in_str = false;
	for (; *p; p++) {
		if (in_str) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == '"')
				in_str = false;
		} else if (*p == '"') {
			in_str = true;
		} else if (*p == '{') {
			depth++;
		} else if (*p == '}' && --depth == 0) {
			size_t n = (size_t)(p - start + 1);
			if (n >= len)
				return -ENAMETOOLONG;
			memcpy(obj, start, n);
			obj[n] = '\0';
			*cursor = p + 1;
			return 1;
		}
	}
	return -EINVAL;
}
