// SPDX-License-Identifier: GPL-2.0-only
/*
 * The generations of the two uppers on the data filesystem, and the reset and
 * revert requests applied to them offline, before any overlay is mounted.
 *
 *   DATA/strata.state      "system N / user M / applied ID": the live generations
 *   DATA/system.N/{upper,work}, DATA/user.M/{upper,work}
 *   DATA/strata.request    a request written by "strata reset|revert"
 *   DATA/strata.trash/     what is discarded after the new root is up
 *
 * A reset builds the new generation beside the old one and switches to it by
 * renaming strata.state: a power cut before that rename boots the old state
 * and applies the request again; after it, the reset state. Time does not
 * grow with the data in the upper: the old generation is only renamed.
 */
#include "log.h"
#include "request.h"
#include "strata.h"
#include "util.h"

#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define STATE_FILE STRATA_DATA_DIR "/strata.state"
#define TRASH_NAME "strata.trash"

/* where the user layer's generations live: its own partition or volume, or the data one */
static const char *user_base(const struct strata_ctx *ctx)
{
	return ctx->user_separate ? STRATA_USERDATA_DIR : STRATA_DATA_DIR;
}

/*
 * strata.powercut=NAME|N: stop dead at a named point or at the N-th step of
 * applying a request, as a power cut would: nothing is synced, so what the
 * flash has not got yet is lost when the test kills the machine (test hook).
 */
static void powercut_point(struct strata_ctx *ctx, const char *point)
{
	if (!CONFIG_STRATA_FAULT_INJECTION || !ctx->opts.powercut[0])
		return;
	char step[16];
	snprintf(step, sizeof(step), "%u", ++ctx->powercut_steps);
	if (strcmp(ctx->opts.powercut, point) != 0 && strcmp(ctx->opts.powercut, step) != 0)
		return;
	log_error("strata.powercut=%s reached (step %s, %s): stopping here", ctx->opts.powercut,
		  step, point);
	for (;;)
		pause();
}

/*
 * A write barrier: what came before is on flash before what follows.
 * syncfs() of the data filesystems would do on real flash, but an MTD
 * emulated over a block device (block2mtd) keeps its writes in that
 * device's page cache until a global sync. Before the overlays are up
 * only the data filesystems are writable, so sync() costs what syncfs does.
 */
static void barrier(struct strata_ctx *ctx, const char *point)
{
	sync();
	powercut_point(ctx, point);
}

static int gen_dir(const struct strata_ctx *ctx, char *buf, size_t len, enum req_layer layer,
		   unsigned gen)
{
	if (layer == LAYER_USER)
		return xsnprintf(buf, len, "%s/user.%u", user_base(ctx), gen);
	return xsnprintf(buf, len, STRATA_DATA_DIR "/system.%u", gen);
}

static int upper_of(const struct strata_ctx *ctx, char *buf, size_t len, enum req_layer layer,
		    unsigned gen)
{
	char dir[96];
	int r = gen_dir(ctx, dir, sizeof(dir), layer, gen);
	return r < 0 ? r : xsnprintf(buf, len, "%s/upper", dir);
}

/* Moves path into its filesystem's trash under a fresh name; the rename is the atomic step. */
static int trash(const char *path, const char *tag)
{
	char dir[96], dst[160];
	bool user_fs = strncmp(path, STRATA_USERDATA_DIR "/", strlen(STRATA_USERDATA_DIR "/")) == 0;
	int r = xsnprintf(dir, sizeof(dir), "%s/" TRASH_NAME,
			  user_fs ? STRATA_USERDATA_DIR : STRATA_DATA_DIR);
	if (r < 0 || (r = mkdir_p(dir, 0700)) < 0)
		return r;
	for (unsigned i = 0; i < 1000; i++) {
		if ((r = xsnprintf(dst, sizeof(dst), "%s/%s.%u", dir, tag, i)) < 0)
			return r;
		if (access(dst, F_OK) < 0)
			return rename(path, dst) < 0 ? -errno : 0;
	}
	return -EEXIST;
}

static int write_state(const struct layer_state *st, bool durable)
{
	char text[128];
	int n = state_format(st, text, sizeof(text));
	return n < 0 ? n : write_file_atomic(STATE_FILE, text, (size_t)n, durable);
}

/* The commit point of a request: the new state replaces the old by one rename. */
static int commit_state(struct strata_ctx *ctx, const struct layer_state *st)
{
	powercut_point(ctx, "state-write");
	int r = write_state(st, true);
	if (r == 0)
		barrier(ctx, "state-committed");
	return r;
}

static void read_state(struct layer_state *st)
{
	char text[256];
	st->system_gen = st->user_gen = 1;
	st->applied = 0;
	ssize_t n = read_file(STATE_FILE, text, sizeof(text));
	if (n == -ENOENT)
		return;
	if (n < 0 || state_parse(text, st) < 0) {
		/* keep whatever generations exist rather than start empty */
		log_error("%s is unreadable or malformed; using generation 1 of each upper",
			  STATE_FILE);
		st->system_gen = st->user_gen = 1;
		st->applied = 0;
	}
}

/* Copies PATH from the first upper holding it (a copy, a whiteout, an opaque dir). */
static void keep_path(const char *path, const char *const *from, size_t n_from,
		      const char *const *to)
{
	for (size_t i = 0; i < n_from; i++) {
		char src[512], dst[512], parent[512];
		struct stat st;
		if (xsnprintf(src, sizeof(src), "%s%s", from[i], path) < 0 ||
		    xsnprintf(dst, sizeof(dst), "%s%s", to[i], path) < 0)
			continue;
		if (lstat(src, &st) < 0)
			continue;
		snprintf(parent, sizeof(parent), "%s", dst);
		char *slash = strrchr(parent, '/');
		if (slash)
			*slash = '\0';
		int r = mkdir_p(parent, 0755);
		if (r == 0)
			r = copy_tree(src, dst);
		if (r < 0)
			log_error_errno(r, "cannot keep %s across the reset: %m", path);
		else
			log_info("kept %s", path);
		return;
	}
}

static int apply_reset(struct strata_ctx *ctx, const struct request *req, struct layer_state *st)
{
	bool full = req->kind == REQ_RESET_FULL;
	struct layer_state next = { full ? st->system_gen + 1 : st->system_gen, st->user_gen + 1,
				    req->id };
	char old_user[96], old_sys[96], new_user[96], new_sys[96], dir[96];
	int r;

	/* a generation left half-made by an earlier power cut is discarded first */
	for (int layer = 0; layer < 2; layer++) {
		if (layer == LAYER_SYSTEM && !full)
			continue;
		gen_dir(ctx, dir, sizeof(dir), (enum req_layer)layer,
			layer == LAYER_USER ? next.user_gen : next.system_gen);
		if (access(dir, F_OK) == 0 && (r = trash(dir, "partial")) < 0)
			return log_error_errno(r, "cannot discard half-made %s: %m", dir);
		powercut_point(ctx, "partial-discarded");
	}
	upper_of(ctx, old_user, sizeof(old_user), LAYER_USER, st->user_gen);
	upper_of(ctx, old_sys, sizeof(old_sys), LAYER_SYSTEM, st->system_gen);
	upper_of(ctx, new_user, sizeof(new_user), LAYER_USER, next.user_gen);
	upper_of(ctx, new_sys, sizeof(new_sys), LAYER_SYSTEM, next.system_gen);
	if ((r = mkdir_p(new_user, 0755)) < 0)
		return log_error_errno(r, "cannot create the new generation: %m");
	powercut_point(ctx, "user-generation-made");
	if (full && (r = mkdir_p(new_sys, 0755)) < 0)
		return log_error_errno(r, "cannot create the new generation: %m");
	powercut_point(ctx, "system-generation-made");

	/* the current content of a kept path lives in the topmost upper that has it */
	const char *from[] = { old_user, old_sys }, *to[] = { new_user, new_sys };
	for (size_t i = 0; i < req->n_keep; i++) {
		keep_path(req->keep[i], from, full ? 2 : 1, to);
		powercut_point(ctx, "kept");
	}
	barrier(ctx, "reset-prepared");

	if ((r = commit_state(ctx, &next)) < 0)
		return log_error_errno(r, "cannot switch to the new generation: %m");
	log_notice("%s applied: system layer generation %u, user layer generation %u",
		   request_kind_name(req->kind), next.system_gen, next.user_gen);
	*st = next;
	return 0;
}

/* Removes a path's copy, whiteout or opaque directory from one upper. */
static int revert_path(const struct strata_ctx *ctx, const struct layer_state *st,
		       const struct revert_entry *e)
{
	char upper[96], target[REQ_PATH_MAX + 96];
	struct stat up_st, st_path;
	upper_of(ctx, upper, sizeof(upper), e->layer, e->layer == LAYER_USER ? st->user_gen
								       : st->system_gen);
	int r = xsnprintf(target, sizeof(target), "%s%s", upper, e->path);
	if (r < 0)
		return r;
	if (lstat(upper, &up_st) < 0)
		return -errno;
	/* every component below the upper must be a real directory on the same filesystem */
	char walk[sizeof(target)];
	snprintf(walk, sizeof(walk), "%s", target);
	for (char *p = walk + strlen(upper) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		struct stat c;
		if (lstat(walk, &c) < 0)
			return -errno;
		if (!S_ISDIR(c.st_mode) || c.st_dev != up_st.st_dev)
			return -ENOTDIR;
		*p = '/';
	}
	if (lstat(target, &st_path) < 0)
		return -errno;
	if (st_path.st_dev != up_st.st_dev)
		return -EXDEV;
	return trash(target, "revert");
}

static int apply_revert(struct strata_ctx *ctx, const struct request *req, struct layer_state *st)
{
	for (size_t i = 0; i < req->n_revert; i++) {
		const struct revert_entry *e = &req->revert[i];
		const char *layer = e->layer == LAYER_USER ? "user" : "system";
		int r = revert_path(ctx, st, e);
		if (r == -ENOENT)
			log_info("revert %s: nothing in the %s layer", e->path, layer);
		else if (r < 0)
			log_error_errno(r, "cannot revert %s in the %s layer: %m", e->path, layer);
		else
			log_notice("reverted %s in the %s layer", e->path, layer);
		if (i == 0)
			powercut_point(ctx, "revert-partial");
	}
	barrier(ctx, "reverted");
	struct layer_state next = *st;
	next.applied = req->id;
	int r = commit_state(ctx, &next);
	if (r < 0)
		return log_error_errno(r, "cannot record the applied revert: %m");
	*st = next;
	return 0;
}

/*
 * A reset chosen by holding the button at power-on replaces any pending
 * request; written durably first, it is applied like one from "strata reset",
 * with the keep list of the topmost layer that has one.
 */
static void store_button_request(struct strata_ctx *ctx, const struct layer_state *st,
				 struct request *req, char *text, size_t len)
{
	char top[3][96], path[128];
	unsigned bad;
	memset(req, 0, sizeof(*req));
	req->kind = (enum req_kind)ctx->button_request;
	req->id = st->applied + 1;
	upper_of(ctx, top[0], sizeof(top[0]), LAYER_USER, st->user_gen);
	upper_of(ctx, top[1], sizeof(top[1]), LAYER_SYSTEM, st->system_gen);
	snprintf(top[2], sizeof(top[2]), STRATA_LOWER_DIR "/0");
	for (size_t i = 0; i < ARRAY_SIZE(top); i++) {
		if (xsnprintf(path, sizeof(path), "%s/etc/strata/keep", top[i]) < 0 ||
		    read_file(path, text, len) < 0)
			continue;
		if (request_add_keep_list(req, text, &bad) < 0)
			log_error("%s line %u is not an absolute path inside the root; not kept", path,
				  bad);
		break;
	}
	int n = request_format(req, text, len);
	int r = n < 0 ? n : write_file_atomic(STRATA_REQUEST_FILE, text, (size_t)n, true);
	if (r < 0)
		log_error_errno(r, "cannot store the %s the reset button asked for: %m",
				request_kind_name(req->kind));
}

static void apply_request(struct strata_ctx *ctx, struct layer_state *st)
{
	static char text[16384];
	static struct request req;
	unsigned bad_line = 0;
	if (ctx->button_request != REQ_NONE)
		store_button_request(ctx, st, &req, text, sizeof(text));
	ssize_t n = read_file(STRATA_REQUEST_FILE, text, sizeof(text));
	if (n == -ENOENT)
		return;
	if (n < 0 || request_parse(text, &req, &bad_line) < 0) {
		/* never act on half a request: set it aside, boot the current state */
		if (n < 0)
			log_error_errno((int)n, "cannot read %s: %m; ignoring it", STRATA_REQUEST_FILE);
		else
			log_error("%s is malformed (line %u); not applied, kept as %s.bad",
				  STRATA_REQUEST_FILE, bad_line, STRATA_REQUEST_FILE);
		rename(STRATA_REQUEST_FILE, STRATA_REQUEST_FILE ".bad");
		snprintf(ctx->rec.request_result, sizeof(ctx->rec.request_result), "malformed");
		return;
	}
	int r = 0;
	uint64_t t0 = now_boottime_ns();
	if (req.id != st->applied) {
		log_notice("applying %s (request %lu)", request_kind_name(req.kind), req.id);
		r = req.kind == REQ_REVERT ? apply_revert(ctx, &req, st)
					   : apply_reset(ctx, &req, st);
	}
	if (r == 0) {
		powercut_point(ctx, "request-applied");
		/*
		 * No barrier: the state already names this request as applied, so
		 * a request file that comes back after a power cut is skipped and
		 * removed again by the next boot.
		 */
		if (unlink(STRATA_REQUEST_FILE) < 0 && errno != ENOENT)
			log_error("cannot remove %s: %m", STRATA_REQUEST_FILE);
		powercut_point(ctx, "request-removed");
		snprintf(ctx->rec.request_result, sizeof(ctx->rec.request_result), "%s",
			 request_kind_name(req.kind));
		ctx->rec.request_apply_ns = now_boottime_ns() - t0;
	} else {
		snprintf(ctx->rec.request_result, sizeof(ctx->rec.request_result), "failed");
	}
}

/* Generations the state does not name (older ones, half-made ones) go to the trash. */
static size_t trash_stale_in(struct strata_ctx *ctx, const char *base, const char *kind,
			     unsigned live)
{
	DIR *d = opendir(base);
	if (!d)
		return 0;
	struct dirent *de;
	char names[32][64];
	size_t n = 0;
	while ((de = readdir(d)) && n < ARRAY_SIZE(names)) {
		size_t klen = strlen(kind);
		char *end;
		if (strncmp(de->d_name, kind, klen) != 0 || de->d_name[klen] != '.' ||
		    !isdigit((unsigned char)de->d_name[klen + 1]))
			continue;
		unsigned long gen = strtoul(de->d_name + klen + 1, &end, 10);
		if (*end == '\0' && gen != live)
			snprintf(names[n++], sizeof(names[0]), "%s", de->d_name);
	}
	closedir(d);
	for (size_t i = 0; i < n; i++) {
		char path[128];
		xsnprintf(path, sizeof(path), "%s/%s", base, names[i]);
		int r = trash(path, names[i]);
		if (r < 0)
			log_warn_errno(r, "cannot discard %s: %m", path);
		powercut_point(ctx, "generation-discarded");
	}
	return n;
}

int layers_prepare(struct strata_ctx *ctx, bool volatile_upper, const char *name, char *reason,
		   size_t reasonlen)
{
	struct layer_state st;
	read_state(&st);
	if (!volatile_upper)
		apply_request(ctx, &st);
	else if (ctx->button_request != REQ_NONE)
		log_error("%s by the reset button not applied: the upper is not the flash one",
			  request_kind_name((enum req_kind)ctx->button_request));

	upper_of(ctx, ctx->system_upper, sizeof(ctx->system_upper), LAYER_SYSTEM, st.system_gen);
	upper_of(ctx, ctx->user_upper, sizeof(ctx->user_upper), LAYER_USER, st.user_gen);
	gen_dir(ctx, ctx->system_work, sizeof(ctx->system_work), LAYER_SYSTEM, st.system_gen);
	gen_dir(ctx, ctx->user_work, sizeof(ctx->user_work), LAYER_USER, st.user_gen);
	/* gen_dir gives at most 36 bytes ("/run/strata/userdata/user.4294967295"): "/work" fits */
	strcat(ctx->system_work, "/work"); // NOLINT(clang-analyzer-security.insecureAPI.strcpy)
	strcat(ctx->user_work, "/work");   // NOLINT(clang-analyzer-security.insecureAPI.strcpy)
	const char *dirs[] = { ctx->system_upper, ctx->system_work, ctx->user_upper, ctx->user_work };
	/* an upper and a work directory per level: a one-level stack leaves the user layer alone */
	for (size_t i = 0; i < 2 * ctx->opts.stack_levels && i < ARRAY_SIZE(dirs); i++) {
		int r = mkdir_p(dirs[i], 0755);
		if (r < 0) {
			snprintf(reason, reasonlen, "cannot create %s on '%s': %s", dirs[i], name,
				 strerror(-r));
			return r;
		}
	}
	ctx->rec.system_gen = st.system_gen;
	ctx->rec.user_gen = st.user_gen;
	if (!volatile_upper) {
		if (access(STATE_FILE, F_OK) < 0) {
			int r = write_state(&st, true);
			if (r < 0)
				log_warn_errno(r, "cannot write %s: %m", STATE_FILE);
		}
		/*
		 * No barrier: a generation whose move to the trash does not reach
		 * the flash before a power cut is still not the live one, and the
		 * next boot moves it again.
		 */
		if (trash_stale_in(ctx, STRATA_DATA_DIR, "system", st.system_gen) +
			    trash_stale_in(ctx, user_base(ctx), "user", st.user_gen) >
		    0)
			powercut_point(ctx, "layers-ready");
	}
	return 0;
}

static void discard(const char *trash_dir)
{
	struct stat st;
	if (stat(trash_dir, &st) < 0)
		return;
	int fd = open(trash_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0)
		remove_tree_contents(fd, st.st_dev);
	rmdir(trash_dir);
}

void layers_discard_trash(void)
{
	static const char *const dirs[] = { STRATA_DATA_DIR "/" TRASH_NAME,
					    STRATA_USERDATA_DIR "/" TRASH_NAME };
	bool any = false;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		any = any || access(dirs[i], F_OK) == 0;
	if (!any)
		return;
	pid_t pid = fork();
	if (pid != 0) {
		if (pid > 0)
			log_info("discarding old generations in the background (pid %d)", pid);
		return;
	}
	/* the child outlives the exec of the real init, which reaps it */
	setsid();
	if (nice(19) < 0) {
		/* best effort */
	}
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		discard(dirs[i]);
	sync();
	_exit(0);
}
