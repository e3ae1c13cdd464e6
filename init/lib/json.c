// SPDX-License-Identifier: GPL-2.0-only
/* Reading fields back from the JSON strata itself writes. Pure code. */
#include "json.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char *skip_space(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* Past the string literal whose opening quote is at p, escapes included; at its NUL if cut. */
static const char *skip_string(const char *p)
{
	for (p++; *p && *p != '"'; p++)
		if (*p == '\\' && p[1])
			p++;
	return *p ? p + 1 : p;
}

/* Returns the first character of the value of "key", or NULL. */
static const char *find_value(const char *text, const char *key)
{
	size_t klen = strlen(key);
	for (const char *p = strchr(text, '"'); p; p = strchr(skip_string(p), '"')) {
		if (strncmp(p + 1, key, klen) != 0 || p[1 + klen] != '"')
			continue;
		const char *v = skip_space(p + 2 + klen);
		if (*v == ':')
			return skip_space(v + 1);
	}
	return NULL;
}

/*
 * Unescapes the string literal at v (its opening quote) into out and sets
 * *end past its closing quote. Returns 0, -EINVAL, -ENAMETOOLONG.
 */
static int read_string(const char *v, char *out, size_t outlen, const char **end)
{
	size_t used = 0;
	if (*v != '"' || outlen == 0)
		return -EINVAL;
	for (v++; *v && *v != '"'; v++) {
		char c = *v;
		if (c == '\\') {
			v++;
			switch (*v) {
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case '"':
			case '\\':
			case '/':
				c = *v;
				break;
			case 'u': {
				char hex[5] = {0};
				for (int i = 0; i < 4; i++) {
					if (!v[1 + i])
						return -EINVAL;
					hex[i] = v[1 + i];
				}
				char *hex_end;
				unsigned long cp = strtoul(hex, &hex_end, 16);
				if (*hex_end)
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
	*end = v + 1;
	return 0;
}

/*
 * Copies the {...} object at p, nested objects and strings included, into
 * obj and sets *end past it. Returns 0, -EINVAL (unterminated), -ENAMETOOLONG.
 */
static int copy_object(const char *p, char *obj, size_t len, const char **end)
{
	int depth = 0;
	for (const char *q = p; *q; q++) {
		if (*q == '"') {
			q = skip_string(q) - 1; /* at the closing quote, or before the NUL */
			if (!q[1])
				break;
		} else if (*q == '{') {
			depth++;
		} else if (*q == '}' && --depth == 0) {
			size_t n = (size_t)(q - p + 1);
			if (n >= len)
				return -ENAMETOOLONG;
			memcpy(obj, p, n);
			obj[n] = '\0';
			*end = q + 1;
			return 0;
		}
	}
	return -EINVAL;
}

int json_get_string(const char *text, const char *key, char *out, size_t outlen)
{
	const char *v = find_value(text, key), *end;
	return v ? read_string(v, out, outlen, &end) : -ENOENT;
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

/* The literal word at v, and not the start of a longer word ("true" but not "trueish"). */
static bool is_literal(const char *v, const char *word)
{
	size_t n = strlen(word);
	return strncmp(v, word, n) == 0 && !isalnum((unsigned char)v[n]) && v[n] != '_';
}

int json_get_bool(const char *text, const char *key, bool *out)
{
	const char *v = find_value(text, key);
	if (!v)
		return -ENOENT;
	if (is_literal(v, "true"))
		*out = true;
	else if (is_literal(v, "false"))
		*out = false;
	else
		return -EINVAL;
	return 0;
}

int json_get_object(const char *text, const char *key, char *obj, size_t len)
{
	const char *v = find_value(text, key), *end;
	if (!v)
		return -ENOENT;
	return *v == '{' ? copy_object(v, obj, len, &end) : -EINVAL;
}

const char *json_find_array(const char *text, const char *key)
{
	const char *v = find_value(text, key);
	return v && *v == '[' ? v + 1 : NULL;
}

/* The next element of an array at *cursor, or NULL at its end (*result 0) or cut off (-EINVAL). */
static const char *next_element(const char **cursor, int *result)
{
	const char *p = *cursor;
	while (*p == ' ' || *p == ',' || *p == '\n' || *p == '\t' || *p == '\r')
		p++;
	*cursor = p;
	*result = *p == ']' ? 0 : -EINVAL;
	return *p == ']' || *p == '\0' ? NULL : p;
}

int json_array_next(const char **cursor, char *obj, size_t len)
{
	int r;
	const char *p = next_element(cursor, &r);
	if (!p)
		return r;
	if (*p != '{')
		return -EINVAL;
	r = copy_object(p, obj, len, cursor);
	return r < 0 ? r : 1;
}

int json_array_next_string(const char **cursor, char *out, size_t len)
{
	int r;
	const char *p = next_element(cursor, &r);
	if (!p)
		return r;
	r = read_string(p, out, len, cursor);
	return r < 0 ? r : 1;
}
