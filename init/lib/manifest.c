// SPDX-License-Identifier: GPL-2.0-only
/* The layer manifest (/etc/strata/manifest): expected fs-verity digest of each layer. Pure code. */
#include "manifest.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct token {
	const char *s;
	size_t len;
};

#define MAX_TOKENS 7 /* one more than a dm-verity line has, to see extra words */

static size_t split(const char *line, size_t len, struct token *t)
{
	size_t n = 0, i = 0;
	while (i < len && n < MAX_TOKENS) {
		while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
			i++;
		if (i == len)
			break;
		size_t start = i;
		while (i < len && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
			i++;
		t[n].s = line + start;
		t[n++].len = i - start;
	}
	return n;
}

static bool tok_is(const struct token *t, const char *word)
{
	return t->len == strlen(word) && memcmp(t->s, word, t->len) == 0;
}

static bool valid_name(const struct token *t)
{
	if (t->len == 0 || t->len >= MANIFEST_NAME_MAX)
		return false;
	for (size_t i = 0; i < t->len; i++) {
		char c = t->s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.'))
			return false;
	}
	return true;
}

/* Decimal, 1 .. 2^63: an image length. */
static int parse_bytes(const struct token *t, uint64_t *v)
{
	uint64_t x = 0;
	if (t->len == 0 || t->len > 19)
		return -EINVAL;
	for (size_t i = 0; i < t->len; i++) {
		if (t->s[i] < '0' || t->s[i] > '9')
			return -EINVAL;
		x = x * 10 + (uint64_t)(t->s[i] - '0');
	}
	if (x == 0)
		return -EINVAL;
	*v = x;
	return 0;
}

__attribute__((format(printf, 4, 5))) static int bad(char *err, int ret, unsigned line,
						     const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, MANIFEST_ERR_MAX, "line %u: ", line);
	va_start(ap, fmt);
	if (n > 0 && n < MANIFEST_ERR_MAX)
		vsnprintf(err + n, MANIFEST_ERR_MAX - (size_t)n, fmt, ap);
	va_end(ap);
	return ret;
}

static int parse_layer(struct manifest *m, const struct token *t, size_t n, unsigned line,
		       char *err)
{
	struct manifest_layer *l;
	bool dm = tok_is(&t[0], "dm-verity");
	size_t fields = dm ? 5 : 4; /* the salt after the root hash */
	unsigned fec = 0;
	if (n < fields)
		return bad(err, -EBADMSG, line, "expected '%s', got %zu fields",
			   dm ? "dm-verity NAME BYTES ROOT-HASH SALT [fec=ROOTS] [optional]"
			      : "layer NAME BYTES DIGEST [optional]",
			   n);
	/* dm-verity's parity: fec=2 .. fec=24 */
	if (dm && n > fields && t[fields].len > 4 && t[fields].len <= 6 &&
	    memcmp(t[fields].s, "fec=", 4) == 0) {
		for (size_t i = 4; i < t[fields].len; i++)
			fec = t[fields].s[i] >= '0' && t[fields].s[i] <= '9' && fec < 100
				  ? fec * 10 + (unsigned)(t[fields].s[i] - '0')
				  : 100;
		if (fec < 2 || fec > 24)
			return bad(err, -EBADMSG, line, "bad '%.*s' (fec=2 to fec=24)",
				   (int)t[fields].len, t[fields].s);
		fields++;
	}
	if (n > fields && (n > fields + 1 || !tok_is(&t[fields], "optional"))) {
		const struct token *x = &t[tok_is(&t[fields], "optional") ? fields + 1 : fields];
		return bad(err, -EBADMSG, line, "unexpected '%.*s' after the %s",
			   (int)(x->len > 32 ? 32 : x->len), x->s,
			   dm ? (fec ? "fec= field" : "salt") : "digest");
	}
	if (!valid_name(&t[1]))
		return bad(err, -EBADMSG, line, "bad layer name '%.*s' (1-63 of A-Z a-z 0-9 _ - .)",
			   (int)(t[1].len > 40 ? 40 : t[1].len), t[1].s);
	if (m->n >= MANIFEST_MAX_LAYERS)
		return bad(err, -E2BIG, line, "more than %d layers", MANIFEST_MAX_LAYERS);
	l = &m->layers[m->n];
	memcpy(l->name, t[1].s, t[1].len);
	l->name[t[1].len] = '\0';
	if (manifest_find(m, l->name))
		return bad(err, -EBADMSG, line, "layer '%s' is listed twice", l->name);
	if (parse_bytes(&t[2], &l->bytes) < 0)
		return bad(err, -EBADMSG, line,
			   "bad length '%.*s' of layer '%s' (decimal bytes > 0)",
			   (int)(t[2].len > 24 ? 24 : t[2].len), t[2].s, l->name);
	if (fsverity_from_hex(t[3].s, t[3].len, l->digest) < 0)
		return bad(
		    err, -EBADMSG, line,
		    dm ? "bad root hash of layer '%s' (64 hex digits of a sha256 dm-verity root)"
		       : "bad digest of layer '%s' (64 hex digits of a sha256 fs-verity digest)",
		    l->name);
	if (dm && (fsverity_from_hex(t[4].s, t[4].len, l->salt) < 0 || l->bytes % 4096))
		return bad(
		    err, -EBADMSG, line,
		    "bad salt or length of layer '%s' (64 hex digits; whole 4096-byte blocks)",
		    l->name);
	l->dmverity = dm;
	l->fec_roots = fec;
	l->optional = n == fields + 1;
	m->n++;
	return 0;
}

int manifest_parse(struct manifest *m, const char *text, char err[MANIFEST_ERR_MAX])
{
	bool header = false;
	unsigned line = 0;

	m->n = 0;
	err[0] = '\0';
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		struct token t[MAX_TOKENS];
		size_t n = split(p, len, t);
		int r = 0;

		line++;
		p += len + (nl ? 1 : 0);
		if (n == 0 || t[0].s[0] == '#')
			continue;
		if (!header) {
			if (n != 2 || !tok_is(&t[0], "strata-manifest"))
				return bad(err, -EBADMSG, line,
					   "expected the header 'strata-manifest 1'");
			if (!tok_is(&t[1], "1"))
				return bad(err, -EBADMSG, line,
					   "manifest version '%.*s' is not supported (1 is)",
					   (int)(t[1].len > 16 ? 16 : t[1].len), t[1].s);
			header = true;
		} else if (tok_is(&t[0], "layer") || tok_is(&t[0], "dm-verity")) {
			r = parse_layer(m, t, n, line, err);
		} else {
			r = bad(err, -EBADMSG, line, "unknown keyword '%.*s'",
				(int)(t[0].len > 32 ? 32 : t[0].len), t[0].s);
		}
		if (r < 0)
			return r;
	}
	if (!header)
		return bad(err, -EBADMSG, line ? line : 1, "no 'strata-manifest 1' header");
	return 0;
}

const struct manifest_layer *manifest_find(const struct manifest *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->layers[i].name, name) == 0)
			return &m->layers[i];
	return NULL;
}
