// SPDX-License-Identifier: GPL-2.0-only
/* /proc/mtd parsing: find flash partitions by name. Pure code. */
#include "mtd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One line: mtdN: SIZE ERASESIZE "NAME" (sizes in hex). Returns 1, 0 (header/blank), -EINVAL. */
static int parse_line(const char *line, size_t len, struct mtd_part *p)
{
	char buf[160];
	char *s, *end;

	if (len == 0 || strncmp(line, "dev:", 4) == 0)
		return 0;
	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, line, len);
	buf[len] = '\0';
	if (strncmp(buf, "mtd", 3) != 0)
		return -EINVAL;
	errno = 0;
	long idx = strtol(buf + 3, &end, 10);
	if (end == buf + 3 || *end != ':' || idx < 0 || idx > 1023 || errno)
		return -EINVAL;
	s = end + 1;
	p->size = strtoull(s, &end, 16);
	if (end == s || errno)
		return -EINVAL;
	s = end;
	unsigned long es = strtoul(s, &end, 16);
	if (end == s || errno || es > UINT32_MAX)
		return -EINVAL;
	s = end;
	while (*s == ' ')
		s++;
	char *close = strrchr(s, '"');
	if (*s != '"' || close == s)
		return -EINVAL;
	size_t nlen = (size_t)(close - s - 1);
	if (nlen >= sizeof(p->name))
		return -EINVAL;
	memcpy(p->name, s + 1, nlen);
	p->name[nlen] = '\0';
	p->index = (int)idx;
	p->erasesize = (uint32_t)es;
	return 1;
}

/* Calls fn for each partition line; stops when fn returns non-zero. */
static int for_each_part(const char *text, int (*fn)(const struct mtd_part *, void *), void *arg)
{
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);
		struct mtd_part p;
		int r = parse_line(text, len, &p);
		if (r < 0)
			return r;
		if (r > 0 && (r = fn(&p, arg)) != 0)
			return r;
		text += len + (nl ? 1 : 0);
	}
	return 0;
}

struct find_arg {
	const char *name;
	struct mtd_part *out;
};

static int match_name(const struct mtd_part *p, void *arg)
{
	struct find_arg *fa = arg;
	if (strcmp(p->name, fa->name) != 0)
		return 0;
	*fa->out = *p;
	return 1;
}

int mtd_find(const char *proc_mtd, const char *name, struct mtd_part *out)
{
	struct find_arg fa = {name, out};
	int r = for_each_part(proc_mtd, match_name, &fa);
	return r < 0 ? r : r == 1 ? 0 : -ENOENT;
}

struct list_arg {
	char *buf;
	size_t len, used;
};

static int append_name(const struct mtd_part *p, void *arg)
{
	struct list_arg *la = arg;
	if (la->used >= la->len)
		return 0;
	int n = snprintf(la->buf + la->used, la->len - la->used, "%s\"%s\"", la->used ? ", " : "",
			 p->name);
	if (n > 0)
		la->used += (size_t)n;
	return 0;
}

void mtd_list_names(const char *proc_mtd, char *buf, size_t len)
{
	struct list_arg la = {buf, len, 0};
	if (len == 0)
		return;
	buf[0] = '\0';
	if (for_each_part(proc_mtd, append_name, &la) < 0)
		snprintf(buf, len, "(unreadable /proc/mtd)");
	else if (la.used == 0)
		snprintf(buf, len, "none");
}
