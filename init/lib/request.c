// SPDX-License-Identifier: GPL-2.0-only
/* Reset and revert requests: the on-flash text, path rules, keep lists. Pure code. */
#include "request.h"
#include "strbuf.h"
#include "util.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define HEADER "strata-request 1"

const char *request_kind_name(enum req_kind kind)
{
	switch (kind) {
	case REQ_RESET_USER:
		return "reset --user";
	case REQ_RESET_FULL:
		return "reset --full";
	case REQ_REVERT:
		return "revert";
	case REQ_UPDATE:
		return "update";
	case REQ_NONE:
		break;
	}
	return "none";
}

int path_normalize(const char *in, char *out, size_t outlen)
{
	size_t used = 0;
	if (in[0] != '/' || outlen < 2)
		return -EINVAL;
	for (const char *p = in; *p;) {
		while (*p == '/')
			p++;
		const char *start = p;
		while (*p && *p != '/') {
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				return -EINVAL;
			p++;
		}
		size_t n = (size_t)(p - start);
		if (n == 0 || (n == 1 && start[0] == '.'))
			continue;
		if (n == 2 && start[0] == '.' && start[1] == '.')
			return -EINVAL;
		if (used + 1 + n + 1 > outlen)
			return -ENAMETOOLONG;
		out[used++] = '/';
		memcpy(out + used, start, n);
		used += n;
	}
	if (used == 0)
		return -EINVAL; /* "/" is the whole layer: that is a reset, not a path */
	if (out[used - 1] == ' ' || out[used - 1] == '\t')
		return -EINVAL; /* the request file's lines are trimmed: it would name another path
				 */
	out[used] = '\0';
	return 0;
}

int request_add_keep(struct request *req, const char *path)
{
	char norm[REQ_PATH_MAX];
	int r = path_normalize(path, norm, sizeof(norm));
	if (r < 0)
		return r;
	/* no kept path holds another: a copy of the inner one would collide with the outer's */
	size_t len = strlen(norm), n = 0;
	for (size_t i = 0; i < req->n_keep; i++) {
		const char *k = req->keep[i];
		size_t klen = strlen(k);
		if (klen <= len && strncmp(norm, k, klen) == 0 &&
		    (norm[klen] == '\0' || norm[klen] == '/'))
			return 0; /* kept already, or inside a kept path (nothing inside norm, then)
				   */
		if (klen <= len || strncmp(k, norm, len) != 0 || k[len] != '/')
			memmove(req->keep[n++], k, klen + 1);
	}
	req->n_keep = n;
	if (req->n_keep == REQ_MAX_KEEP)
		return -E2BIG;
	memcpy(req->keep[req->n_keep++], norm, strlen(norm) + 1);
	return 0;
}

/* Calls fn on each line without its newline, trimmed; stops at the first error. */
static int for_each_line(const char *text, int (*fn)(char *line, void *arg), void *arg,
			 unsigned *lineno)
{
	char line[REQ_PATH_MAX + 32];
	*lineno = 0;
	while (text && *text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) : strlen(text);
		(*lineno)++;
		if (len >= sizeof(line))
			return -EBADMSG;
		memcpy(line, text, len);
		line[len] = '\0';
		while (len &&
		       (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
			line[--len] = '\0';
		char *l = line;
		while (*l == ' ' || *l == '\t')
			l++;
		if (*l && *l != '#') {
			int r = fn(l, arg);
			if (r < 0)
				return r;
		}
		text = nl ? nl + 1 : NULL;
	}
	return 0;
}

static int keep_line(char *line, void *arg)
{
	return request_add_keep(arg, line);
}

int request_add_keep_list(struct request *req, const char *text, unsigned *bad_line)
{
	return for_each_line(text, keep_line, req, bad_line);
}

struct lenient {
	struct request *req;
	unsigned skipped;
	int (*expand)(struct request *req, const char *pattern);
};

static int keep_line_or_skip(char *line, void *arg)
{
	struct lenient *l = arg;
	bool wild = line[strcspn(line, "*?[")] != '\0';
	l->skipped += (wild ? l->expand ? l->expand(l->req, line) : -EINVAL
			    : request_add_keep(l->req, line)) < 0;
	return 0;
}

bool keep_name_matches(const char *pattern, const char *name)
{
	const char *star = NULL, *back = NULL;
	if (name[0] == '.' && pattern[0] != '.')
		return false;
	while (*name) {
		if (*pattern == '*') {
			star = ++pattern;
			back = name;
		} else if (*pattern == '?' || *pattern == *name) {
			pattern++;
			name++;
		} else if (star) {
			pattern = star;
			name = ++back;
		} else {
			return false;
		}
	}
	while (*pattern == '*')
		pattern++;
	return *pattern == '\0';
}

unsigned request_add_keep_lines(struct request *req, const char *text,
				int (*expand)(struct request *req, const char *pattern))
{
	struct lenient l = {req, 0, expand};
	unsigned lineno;
	for_each_line(text, keep_line_or_skip, &l, &lineno);
	return l.skipped;
}

struct parse_state {
	struct request *req;
	int seen_header, seen_end;
};

static int request_line(char *line, void *arg)
{
	struct parse_state *ps = arg;
	struct request *req = ps->req;
	if (!ps->seen_header) {
		ps->seen_header = 1;
		return strcmp(line, HEADER) == 0 ? 0 : -EBADMSG;
	}
	if (ps->seen_end)
		return -EBADMSG;
	if (strcmp(line, "end") == 0) {
		ps->seen_end = 1;
		return 0;
	}
	char *sp = strchr(line, ' ');
	if (!sp)
		return -EBADMSG;
	*sp = '\0';
	const char *key = line, *val = sp + 1;
	if (strcmp(key, "id") == 0) {
		char *end;
		if (*val < '0' || *val > '9')
			return -EBADMSG;
		errno = 0;
		req->id = strtoul(val, &end, 10);
		return *end || errno || req->id > REQ_ID_MAX ? -EBADMSG : 0;
	}
	if (strcmp(key, "reset") == 0) {
		if (req->kind != REQ_NONE)
			return -EBADMSG;
		if (strcmp(val, "user") == 0)
			req->kind = REQ_RESET_USER;
		else if (strcmp(val, "full") == 0)
			req->kind = REQ_RESET_FULL;
		else
			return -EBADMSG;
		return 0;
	}
	if (strcmp(key, "keep") == 0)
		return request_add_keep(req, val) < 0 ? -EBADMSG : 0;
	if (strcmp(key, "update") == 0) {
		if (req->kind != REQ_NONE || (val[0] != 'A' && val[0] != 'B') ||
		    (val[1] && strcmp(val + 1, " all") != 0))
			return -EBADMSG;
		req->kind = REQ_UPDATE;
		req->slot = val[0];
		req->keep_all = val[1] != '\0';
		return 0;
	}
	if (strcmp(key, "revert") == 0) {
		if (req->kind != REQ_NONE && req->kind != REQ_REVERT)
			return -EBADMSG;
		req->kind = REQ_REVERT;
		const char *path;
		enum req_layer layer;
		if (strncmp(val, "user ", 5) == 0)
			layer = LAYER_USER, path = val + 5;
		else if (strncmp(val, "system ", 7) == 0)
			layer = LAYER_SYSTEM, path = val + 7;
		else
			return -EBADMSG;
		if (req->n_revert == REQ_MAX_REVERT)
			return -EBADMSG;
		struct revert_entry *e = &req->revert[req->n_revert];
		if (path_normalize(path, e->path, sizeof(e->path)) < 0)
			return -EBADMSG;
		e->layer = layer;
		req->n_revert++;
		return 0;
	}
	return -EBADMSG;
}

int request_parse(const char *text, struct request *req, unsigned *bad_line)
{
	struct parse_state ps = {req, 0, 0};
	memset(req, 0, sizeof(*req));
	int r = for_each_line(text, request_line, &ps, bad_line);
	if (r < 0)
		return -EBADMSG;
	/* a request is complete only with its header, an id and something to do */
	if (!ps.seen_header || !ps.seen_end || req->id == 0 || req->kind == REQ_NONE ||
	    (req->kind == REQ_REVERT && req->n_keep)) {
		*bad_line = 0;
		return -EBADMSG;
	}
	return 0;
}

int request_format(const struct request *req, char *buf, size_t len)
{
	struct strbuf sb;
	strbuf_init(&sb, buf, len);
	strbuf_printf(&sb, HEADER "\nid %lu\n", req->id);
	if (req->kind == REQ_RESET_USER || req->kind == REQ_RESET_FULL)
		strbuf_printf(&sb, "reset %s\n", req->kind == REQ_RESET_USER ? "user" : "full");
	if (req->kind == REQ_UPDATE)
		strbuf_printf(&sb, "update %c%s\n", req->slot, req->keep_all ? " all" : "");
	for (size_t i = 0; i < req->n_keep; i++)
		strbuf_printf(&sb, "keep %s\n", req->keep[i]);
	for (size_t i = 0; i < req->n_revert; i++)
		strbuf_printf(&sb, "revert %s %s\n", layer_name(req->revert[i].layer),
			      req->revert[i].path);
	/* the end marker makes a truncated file (a torn write) detectable */
	strbuf_puts(&sb, "end\n");
	return strbuf_result(&sb);
}

int state_parse(const char *text, struct layer_state *st)
{
	static const char *const keys[] = {"system",	   "user",	 "applied", "slot",
					   "other-system", "other-user", "carried"};
	unsigned long v[ARRAY_SIZE(keys)] = {0};
	unsigned seen = 0;
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t klen = strcspn(p, " \n"), i = 0;
		char *end;
		while (i < ARRAY_SIZE(keys) &&
		       (strlen(keys[i]) != klen || strncmp(p, keys[i], klen) != 0))
			i++;
		if (i == ARRAY_SIZE(keys) || p[klen] != ' ')
			return -EBADMSG;
		const char *val = p + klen + 1;
		if (i == 3) {
			/* the slot: one letter */
			if ((*val != 'A' && *val != 'B') || (val[1] != '\n' && val[1]))
				return -EBADMSG;
			v[i] = (unsigned char)*val;
		} else {
			if (*val < '0' || *val > '9')
				return -EBADMSG;
			errno = 0;
			v[i] = strtoul(val, &end, 10);
			if ((*end != '\n' && *end != '\0') || errno)
				return -EBADMSG;
		}
		seen |= 1u << i;
		p = nl ? nl + 1 : NULL;
	}
	/* the other slot's generations are both there or both not, and never the live ones */
	if ((seen & 7) != 7 || v[0] == 0 || v[1] == 0 || v[0] > GEN_MAX || v[1] > GEN_MAX ||
	    v[4] > GEN_MAX || v[5] > GEN_MAX || v[2] > REQ_ID_MAX || v[6] > REQ_ID_MAX ||
	    !v[4] != !v[5] || (v[4] && (v[4] == v[0] || v[5] == v[1])))
		return -EBADMSG;
	st->system_gen = (unsigned)v[0];
	st->user_gen = (unsigned)v[1];
	st->applied = v[2];
	st->slot = (char)v[3];
	st->other_system = (unsigned)v[4];
	st->other_user = (unsigned)v[5];
	st->carried = v[6];
	return 0;
}

int state_format(const struct layer_state *st, char *buf, size_t len)
{
	struct strbuf sb;
	strbuf_init(&sb, buf, len);
	strbuf_printf(&sb, "system %u\nuser %u\napplied %lu\n", st->system_gen, st->user_gen,
		      st->applied);
	if (st->slot)
		strbuf_printf(&sb, "slot %c\n", st->slot);
	if (st->other_system)
		strbuf_printf(&sb, "other-system %u\nother-user %u\n", st->other_system,
			      st->other_user);
	if (st->carried)
		strbuf_printf(&sb, "carried %lu\n", st->carried);
	return strbuf_result(&sb);
}

unsigned gen_next(unsigned gen)
{
	return gen >= GEN_MAX ? 1 : gen + 1;
}

unsigned long request_next_id(unsigned long applied, unsigned long pending)
{
	unsigned long id = (applied > pending ? applied : pending);
	id = id >= REQ_ID_MAX ? 1 : id + 1;
	if (id == applied)
		id = id >= REQ_ID_MAX ? 1 : id + 1;
	return id;
}
