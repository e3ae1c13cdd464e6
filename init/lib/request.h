/* SPDX-License-Identifier: GPL-2.0-only */
/* Reset and revert requests: the on-flash text, path rules, keep lists. Pure code. */
#ifndef STRATA_REQUEST_H
#define STRATA_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#define REQ_PATH_MAX 256
#define REQ_MAX_KEEP 64
#define REQ_MAX_REVERT 32
/* Request ids and generation numbers wrap to 1 past these (exact in JSON, in an unsigned) */
#define REQ_ID_MAX 999999999999999UL
#define GEN_MAX 1000000000u

/*
 * REQ_UPDATE is the first boot of a newly installed slot ("update B"): new
 * generations for it, carrying the keep list (or everything, "update B all")
 * from the live ones, which stay the other slot's for a rollback.
 */
enum req_kind { REQ_NONE, REQ_RESET_USER, REQ_RESET_FULL, REQ_REVERT, REQ_UPDATE };
enum req_layer { LAYER_USER, LAYER_SYSTEM };

struct revert_entry {
	enum req_layer layer;
	char path[REQ_PATH_MAX];
};

struct request {
	unsigned long id;
	enum req_kind kind;
	char slot;    /* REQ_UPDATE: the slot whose first boot applies it */
	int keep_all; /* REQ_UPDATE: the whole uppers are carried, not the keep list */
	size_t n_keep, n_revert;
	char keep[REQ_MAX_KEEP][REQ_PATH_MAX];
	struct revert_entry revert[REQ_MAX_REVERT];
};

/*
 * Normalises an absolute path inside a layer: collapses "//" and "/./",
 * drops a trailing "/", refuses "..", control characters, a trailing blank (the
 * request file's lines are trimmed) and "/" itself.
 * Returns 0, -EINVAL or -ENAMETOOLONG.
 */
int path_normalize(const char *in, char *out, size_t outlen);

/*
 * Adds a normalised keep path: one already kept, or inside a kept one, is
 * dropped, and so are the kept ones inside it. Returns 0 or -errno.
 */
int request_add_keep(struct request *req, const char *path);
/* Parses a keep list (one path per line, '#' comments); errors name the line via *bad_line. */
int request_add_keep_list(struct request *req, const char *text, unsigned *bad_line);
/*
 * The same for lists from other tools: a line that cannot be kept is skipped;
 * returns how many. A line with a wildcard ('*', '?', '[': OpenWrt's lists are
 * globbed by its shell) goes to expand, when given, instead.
 */
unsigned request_add_keep_lines(struct request *req, const char *text,
				int (*expand)(struct request *req, const char *pattern));
/* Whether name matches pattern, '*' and '?' as the shell's (a leading '.' only explicitly). */
bool keep_name_matches(const char *pattern, const char *name);

/* The request file. Parse returns 0 or -EBADMSG with *bad_line set (0: missing header). */
int request_parse(const char *text, struct request *req, unsigned *bad_line);
int request_format(const struct request *req, char *buf, size_t len);
const char *request_kind_name(enum req_kind kind);

/*
 * Which generation of each upper is live, and the last request applied. On
 * A/B boards also the slot the live ones belong to, the other slot's
 * generations (0: none), kept for its next boot, and the last update carried.
 */
struct layer_state {
	unsigned system_gen, user_gen;
	unsigned long applied;
	char slot; /* 0: not recorded */
	unsigned other_system, other_user;
	unsigned long carried;
};
/* The layers' names and live generations, said once. */
static inline const char *layer_name(enum req_layer layer)
{
	return layer == LAYER_USER ? "user" : "system";
}
static inline unsigned state_gen_of(const struct layer_state *st, enum req_layer layer)
{
	return layer == LAYER_USER ? st->user_gen : st->system_gen;
}
/*
 * "system N\nuser N\napplied ID\n", then, once a slot was booted, "slot X\n",
 * "other-system N\nother-user N\n" and "carried ID\n" where they are set.
 * Parse returns 0 or -EBADMSG.
 */
int state_parse(const char *text, struct layer_state *st);
int state_format(const struct layer_state *st, char *buf, size_t len);
/* The generation after gen; 1 after GEN_MAX. */
unsigned gen_next(unsigned gen);
/* An id after both the last applied one and a pending one, never equal to applied. */
unsigned long request_next_id(unsigned long applied, unsigned long pending);

#endif
