// SPDX-License-Identifier: GPL-2.0-only
/* Update bundles' headers and the installer's configuration (bundle.h). */
#include "bundle.h"

#include "fsverity.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Splits line in place at runs of blanks; returns the count, max+1 for more. */
static int split(char *line, char **tok, int max)
{
	int n = 0;
	for (char *p = line;;) {
		while (*p == ' ' || *p == '\t')
			*p++ = '\0';
		if (!*p)
			return n;
		if (n == max)
			return max + 1;
		tok[n++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
}

static int why_line(char *why, size_t len, unsigned line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int why_line(char *why, size_t len, unsigned line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(why, len, "line %u: ", line);
	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < len)
		vsnprintf(why + n, len - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static bool is_name(const char *s)
{
	if (!*s || strlen(s) >= BUNDLE_NAME_MAX)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' ||
		      *s == '-'))
			return false;
	return true;
}

static bool is_word(const char *s, size_t max)
{
	if (!*s || strlen(s) >= max)
		return false;
	for (; *s; s++)
		if (*s <= ' ' || *s > '~')
			return false;
	return true;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int bundle_parse_header(const char *text, size_t len, struct bundle_header *h, char *why,
			size_t whylen)
{
	char buf[BUNDLE_HEADER_MAX + 1], *tok[5];
	unsigned line = 0;
	bool ended = false;

	memset(h, 0, sizeof(*h));
	if (len > BUNDLE_HEADER_MAX)
		return snprintf(why, whylen, "header longer than %d bytes", BUNDLE_HEADER_MAX),
		       -EBADMSG;
	if (len == 0 || text[len - 1] != '\n' || memchr(text, '\0', len))
		return snprintf(why, whylen, "header is not lines of text"), -EBADMSG;
	memcpy(buf, text, len);
	buf[len] = '\0';
	for (char *p = buf, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		*nl = '\0';
		line++;
		if (ended)
			return why_line(why, whylen, line, "text after 'end'"), -EBADMSG;
		if (line == 1) {
			if (strcmp(p, BUNDLE_MAGIC) != 0)
				return why_line(why, whylen, 1, "not '" BUNDLE_MAGIC "'"), -EBADMSG;
			continue;
		}
		int n = split(p, tok, 4);
		if (n == 1 && strcmp(tok[0], "end") == 0) {
			ended = true;
		} else if (n == 2 && strcmp(tok[0], "compatible") == 0 && !h->compatible[0] &&
			   is_word(tok[1], sizeof(h->compatible))) {
			snprintf(h->compatible, sizeof(h->compatible), "%s", tok[1]);
		} else if (n == 2 && strcmp(tok[0], "version") == 0 && !h->version[0] &&
			   is_word(tok[1], sizeof(h->version))) {
			snprintf(h->version, sizeof(h->version), "%s", tok[1]);
		} else if (n == 4 && strcmp(tok[0], "image") == 0) {
			struct bundle_image *im = &h->image[h->count];
			if (h->count == BUNDLE_IMAGES_MAX)
				return why_line(why, whylen, line, "more than %d images",
						BUNDLE_IMAGES_MAX),
				       -EBADMSG;
			if (!is_name(tok[1]))
				return why_line(why, whylen, line, "bad image name '%.40s'",
						tok[1]),
				       -EBADMSG;
			for (unsigned i = 0; i < h->count; i++)
				if (strcmp(h->image[i].name, tok[1]) == 0)
					return why_line(why, whylen, line, "image '%s' twice",
							tok[1]),
					       -EBADMSG;
			if ((tok[2][0] == '0' && tok[2][1]) || parse_u64(tok[2], &im->size) < 0)
				return why_line(why, whylen, line, "bad size '%.40s'", tok[2]),
				       -EBADMSG;
			if (strlen(tok[3]) != 64 || fsverity_from_hex(tok[3], 64, im->sha256) < 0)
				return why_line(why, whylen, line, "bad sha256 '%.70s'", tok[3]),
				       -EBADMSG;
			snprintf(im->name, sizeof(im->name), "%s", tok[1]);
			h->count++;
		} else {
			return why_line(why, whylen, line, "unexpected '%.60s'",
					n > 0 ? tok[0] : ""),
			       -EBADMSG;
		}
	}
	if (!ended)
		return snprintf(why, whylen, "no 'end' line"), -EBADMSG;
	if (!h->compatible[0] || !h->version[0] || !h->count)
		return snprintf(why, whylen, "no %s line",
				!h->compatible[0] ? "compatible"
				: !h->version[0]  ? "version"
						  : "image"),
		       -EBADMSG;
	return 0;
}

int bundle_version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		bool da = *a >= '0' && *a <= '9', db = *b >= '0' && *b <= '9';
		if (da && db) {
			while (*a == '0')
				a++;
			while (*b == '0')
				b++;
			size_t la = 0, lb = 0;
			while (a[la] >= '0' && a[la] <= '9')
				la++;
			while (b[lb] >= '0' && b[lb] <= '9')
				lb++;
			if (la != lb)
				return la < lb ? -1 : 1;
			int c = memcmp(a, b, la);
			if (c)
				return c;
			a += la, b += lb;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++, b++;
	}
	return 0;
}

static int copy_path(char *dst, const char *src)
{
	return snprintf(dst, UPDATE_PATH_MAX, "%s", src) < UPDATE_PATH_MAX ? 0 : -EINVAL;
}

int update_conf_parse(const char *text, struct update_conf *c, char *why, size_t whylen)
{
	char buf[8192], *tok[7];
	unsigned line = 0;

	memset(c, 0, sizeof(*c));
	copy_path(c->keys, "/etc/strata/keys");
	copy_path(c->version_file, "/etc/strata/version");
	c->tries = 3;
	if (strlen(text) >= sizeof(buf))
		return snprintf(why, whylen, "longer than %zu bytes", sizeof(buf) - 1), -EINVAL;
	memcpy(buf, text, strlen(text) + 1);
	for (char *p = buf, *nl; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		line++;
		char *hash = strchr(p, '#');
		if (hash)
			*hash = '\0';
		int n = split(p, tok, 6);
		if (n == 0)
			continue;
		const char *k = tok[0];
		if (n == 2 && strcmp(k, "compatible") == 0 &&
		    is_word(tok[1], sizeof(c->compatible)))
			snprintf(c->compatible, sizeof(c->compatible), "%s", tok[1]);
		else if (n == 2 && strcmp(k, "keys") == 0 && copy_path(c->keys, tok[1]) == 0)
			;
		else if (n == 2 && strcmp(k, "version") == 0 &&
			 copy_path(c->version_file, tok[1]) == 0)
			;
		else if (n == 2 && strcmp(k, "tries") == 0 &&
			 parse_uint(tok[1], 9, &c->tries) == 0 && c->tries > 0)
			;
		else if (n == 3 && strcmp(k, "bootenv") == 0 && strcmp(tok[1], "grub") == 0 &&
			 copy_path(c->env_where, tok[2]) == 0) {
			c->env = UPDATE_ENV_GRUB;
			c->env_size = 1024;
			c->env_copies = 1;
		} else if ((n == 5 || n == 6) && strcmp(k, "bootenv") == 0 &&
			   strcmp(tok[1], "uboot") == 0 && copy_path(c->env_where, tok[2]) == 0) {
			uint64_t size;
			c->env = UPDATE_ENV_UBOOT;
			c->env_copies = (unsigned)n - 4;
			if (parse_u64(tok[3], &size) < 0 || size < 16 ||
			    size > UPDATE_ENV_SIZE_MAX ||
			    parse_u64(tok[4], &c->env_offset[0]) < 0 ||
			    (n == 6 && parse_u64(tok[5], &c->env_offset[1]) < 0))
				return why_line(why, whylen, line,
						"bootenv uboot wants a device, a size up to %d and "
						"one or two offsets",
						UPDATE_ENV_SIZE_MAX);
			c->env_size = (size_t)size;
		} else if (n == 4 && strcmp(k, "slot") == 0 &&
			   (strcmp(tok[1], "A") == 0 || strcmp(tok[1], "B") == 0) &&
			   is_name(tok[2])) {
			if (c->count == UPDATE_TARGETS_MAX)
				return why_line(why, whylen, line, "more than %d slot lines",
						UPDATE_TARGETS_MAX);
			if (update_conf_target(c, tok[1][0], tok[2]))
				return why_line(why, whylen, line, "slot %s %s given twice", tok[1],
						tok[2]);
			struct update_target *t = &c->target[c->count];
			if (copy_path(t->where, tok[3]) < 0)
				return why_line(why, whylen, line, "target path too long");
			t->slot = tok[1][0];
			snprintf(t->image, sizeof(t->image), "%s", tok[2]);
			c->count++;
		} else
			return why_line(why, whylen, line, "cannot read '%.60s'", k);
	}
	if (!c->compatible[0])
		return snprintf(why, whylen, "no compatible line"), -EINVAL;
	return 0;
}

const struct update_target *update_conf_target(const struct update_conf *c, char slot,
					       const char *image)
{
	for (unsigned i = 0; i < c->count; i++)
		if (c->target[i].slot == slot && strcmp(c->target[i].image, image) == 0)
			return &c->target[i];
	return NULL;
}
