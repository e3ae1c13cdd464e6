// SPDX-License-Identifier: GPL-2.0-only
/* Reset and revert requests: the on-flash text, path rules, keep lists. Pure code. */
#include "request.h"
#include "strbuf.h"

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
	for (size_t i = 0; i < req->n_keep; i++)
		if (strcmp(req->keep[i], norm) == 0)
			return 0;
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
	for (size_t i = 0; i < req->n_keep; i++)
		strbuf_printf(&sb, "keep %s\n", req->keep[i]);
	for (size_t i = 0; i < req->n_revert; i++)
		strbuf_printf(&sb, "revert %s %s\n",
			      req->revert[i].layer == LAYER_USER ? "user" : "system",
			      req->revert[i].path);
	/* the end marker makes a truncated file (a torn write) detectable */
	strbuf_puts(&sb, "end\n");
	return strbuf_result(&sb);
}

int state_parse(const char *text, struct layer_state *st)
{
	unsigned long sys = 0, user = 0, applied = 0;
	int seen = 0;
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		char key[16];
		unsigned long v;
		char *end;
		size_t klen = strcspn(p, " \n");
		if (klen == 0 || klen >= sizeof(key) || p[klen] != ' ')
			return -EBADMSG;
		memcpy(key, p, klen);
		key[klen] = '\0';
		const char *val = p + klen + 1;
		if (*val < '0' || *val > '9')
			return -EBADMSG;
		errno = 0;
		v = strtoul(val, &end, 10);
		if ((*end != '\n' && *end != '\0') || errno)
			return -EBADMSG;
		if (strcmp(key, "system") == 0)
			sys = v, seen |= 1;
		else if (strcmp(key, "user") == 0)
			user = v, seen |= 2;
		else if (strcmp(key, "applied") == 0)
			applied = v, seen |= 4;
		else
			return -EBADMSG;
		p = nl ? nl + 1 : NULL;
	}
	if (seen != 7 || sys == 0 || user == 0 || sys > GEN_MAX || user > GEN_MAX ||
	    applied > REQ_ID_MAX)
		return -EBADMSG;
	st->system_gen = (unsigned)sys;
	st->user_gen = (unsigned)user;
	st->applied = applied;
	return 0;
}

int state_format(const struct layer_state *st, char *buf, size_t len)
{
	struct strbuf sb;
	strbuf_init(&sb, buf, len);
	strbuf_printf(&sb, "system %u\nuser %u\napplied %lu\n", st->system_gen, st->user_gen,
		      st->applied);
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
