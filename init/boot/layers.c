// SPDX-License-Identifier: GPL-2.0-only
/*
 * The generations of the two uppers on the data filesystem, and the reset and
 * revert requests applied to them offline, before any overlay is mounted.
 *
 *   DATA/strata.state      "system N / user M / applied ID": the live generations
 *   DATA/system.N/{upper,work}, DATA/user.M/{upper,work}
 *   DATA/strata.request    a request written by "strata reset|revert"
 *   DATA/strata.update     the first boot of an installed slot, by "strata update install"
 *   DATA/strata.trash/     what is discarded after the new root is up
 *
 * A reset builds the new generation beside the old one and switches to it by
 * renaming strata.state: a power cut before that rename boots the old state
 * and applies the request again; after it, the reset state. Time does not
 * grow with the data in the upper: the old generation is only renamed.
 *
 * Everything here is untrusted: every name goes through safefs (no symlink
 * followed, nothing opened that could block), a state that cannot be read
 * never discards a generation (they are set aside in DATA/strata.recovered),
 * and a requested reset is applied whatever else sits on the flash.
 */
#include "log.h"
#include "request.h"
#include "safefs.h"
#include "boot.h"
#include "util.h"

#include <dirent.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

/* a keep copies at most this many entries, and at most half the free space */
#define KEEP_MAX_ENTRIES 4096u
#define KEEP_MAX_DEPTH 64u
/* below this much free space the trash is deleted before the overlays are mounted */
#define TRASH_NOW_BELOW (256u * 1024u)

/* The data filesystems, opened once: every name below is relative to one of them. */
struct flash {
	int data, user; /* user == data unless the user layer has its own partition */
};

static int base_of(const struct flash *fl, enum req_layer layer)
{
	return layer == LAYER_USER ? fl->user : fl->data;
}

static const char *base_path(const struct strata_ctx *ctx, enum req_layer layer)
{
	return layer == LAYER_USER && ctx->user_separate ? STRATA_USERDATA_DIR : STRATA_DATA_DIR;
}

#ifndef LAYERS_HOST_HOOKS
/* The host test (tests/unit/test_layers.c) has its own: a cut ends its child process. */
static __attribute__((noreturn)) void powercut_stop(void)
{
	for (;;)
		pause();
}

static void flash_sync(void)
{
	sync();
}
#endif

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
	powercut_stop();
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
	flash_sync();
	powercut_point(ctx, point);
}

static __attribute__((warn_unused_result)) int gen_name(char *buf, size_t len, enum req_layer layer,
							unsigned gen)
{
	return xsnprintf(buf, len, "%s.%u", layer_name(layer), gen);
}

static __attribute__((warn_unused_result)) int upper_name(char *buf, size_t len,
							  enum req_layer layer, unsigned gen)
{
	return xsnprintf(buf, len, "%s.%u/upper", layer_name(layer), gen);
}

/* Opens dir (strata's own directory at the top of base), replacing junk of another kind there. */
static int own_dir(int base, const char *dir)
{
	mode_t kind;
	int r = safe_mkdirs(base, dir, 0700, &kind);
	if (r == -EFTYPE || r == -ELOOP) {
		if ((r = safe_remove(base, dir)) < 0 ||
		    (r = safe_mkdirs(base, dir, 0700, NULL)) < 0)
			return r;
	} else if (r < 0) {
		return r;
	}
	return safe_open_dir(base, dir, NULL);
}

/*
 * Moves name (in from) into base's directory dir (the trash or the recovered
 * generations) under a fresh name; the rename is the atomic step. The name
 * carries the boot time, so nothing on the flash can take every choice.
 */
static int move_into(int base, const char *dir, int from, const char *name, const char *tag)
{
	char dst[128];
	struct stat st;
	int d = own_dir(base, dir);
	if (d < 0)
		return d;
	unsigned long long stamp = (unsigned long long)now_boottime_ns();
	int r = -EEXIST;
	for (unsigned i = 0; i < 64; i++) {
		if ((r = xsnprintf(dst, sizeof(dst), "%s.%llu.%u", tag, stamp, i)) < 0)
			break;
		if (fstatat(d, dst, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			r = -EEXIST;
			continue;
		}
		r = renameat(from, name, d, dst) < 0 ? -errno : 0;
		break;
	}
	close(d);
	return r;
}

static int trash(int base, const char *name, const char *tag)
{
	return move_into(base, TRASH_NAME, base, name, tag);
}

static int write_state(int data, const struct layer_state *st, bool durable)
{
	char text[256];
	int n = state_format(st, text, sizeof(text));
	return n < 0 ? n : safe_write_file(data, STATE_NAME, text, (size_t)n, durable);
}

/* The commit point of a request: the new state replaces the old by one rename. */
static int commit_state(struct strata_ctx *ctx, int data, const struct layer_state *st)
{
	powercut_point(ctx, "state-write");
	int r = write_state(data, st, true);
	if (r == 0)
		barrier(ctx, "state-committed");
	return r;
}

/* A stream over the directory fd names, with an offset of its own (a dup would share it). */
static DIR *dir_stream(int fd)
{
	int own = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = own < 0 ? NULL : fdopendir(own);
	if (!d && own >= 0)
		close(own);
	return d;
}

/* "system.N" / "user.N" in canonical form: the generation number, else 0. */
static unsigned gen_number(const char *name, const char *kind)
{
	size_t klen = strlen(kind);
	unsigned gen;
	char canon[32];
	if (strncmp(name, kind, klen) != 0 || name[klen] != '.' ||
	    parse_uint(name + klen + 1, GEN_MAX, &gen) < 0 || gen == 0)
		return 0;
	snprintf(canon, sizeof(canon), "%s.%u", kind, gen);
	return strcmp(canon, name) == 0 ? gen : 0;
}

/* The highest generation of kind in base that holds an upper directory (0: none). */
static unsigned newest_generation(int base, const char *kind, unsigned *count)
{
	unsigned best = 0;
	*count = 0;
	DIR *d = dir_stream(base);
	if (!d)
		return 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		unsigned gen = gen_number(de->d_name, kind);
		char upper[64];
		mode_t found;
		if (!gen)
			continue;
		(*count)++;
		if (xsnprintf(upper, sizeof(upper), "%s/upper", de->d_name) >= 0 &&
		    safe_kind(base, upper, &found) == 0 && found == S_IFDIR && gen > best)
			best = gen;
	}
	closedir(d);
	return best;
}

enum state_source { STATE_READ, STATE_NEW, STATE_DERIVED };

/*
 * The live generations. A state that is missing on a device that has other
 * generations, unreadable, of the wrong kind or malformed discards nothing:
 * the newest generation of each layer that has an upper is taken as live,
 * and the others are set aside, never deleted (layers_prepare).
 */
static enum state_source read_state(struct strata_ctx *ctx, const struct flash *fl,
				    struct layer_state *st)
{
	char text[256], why[96];
	mode_t kind;
	ssize_t n = safe_read_file(fl->data, STATE_NAME, text, sizeof(text), &kind);
	if (n >= 0 && state_parse(text, st) == 0)
		return STATE_READ;
	unsigned n_sys, n_user;
	unsigned sys = newest_generation(fl->data, "system", &n_sys);
	unsigned user = newest_generation(fl->user, "user", &n_user);
	*st = (struct layer_state){.system_gen = sys ? sys : 1, .user_gen = user ? user : 1};
	if (n == -ENOENT && n_sys <= 1 && n_user <= 1 && st->system_gen == 1 && st->user_gen == 1)
		return STATE_NEW; /* first boot, or nothing a state could have told apart */
	if (n == -ENOENT)
		snprintf(why, sizeof(why), "is missing");
	else if (n < 0)
		snprintf(why, sizeof(why), "cannot be read (%s)",
			 safe_strerror((int)n, kind, text, sizeof(text)));
	else
		snprintf(why, sizeof(why), "is malformed");
	snprintf(ctx->rec.state_repaired, sizeof(ctx->rec.state_repaired),
		 "%s/" STATE_NAME
		 " %s: live generations taken from the flash (system %u, user %u), "
		 "others set aside in " RECOVERED_NAME,
		 STRATA_DATA_DIR, why, st->system_gen, st->user_gen);
	log_error("%s", ctx->rec.state_repaired);
	console_print("\n*** strata: %s\n", ctx->rec.state_repaired);
	return STATE_DERIVED;
}

/* A reset's copies: bounded in entries and bytes, so a keep cannot fill the flash. */
struct keep_budget {
	unsigned entries;
	unsigned long long bytes;
	unsigned skipped; /* entries of kinds that are not kept */
	bool room_made;	  /* the discarded generations are already gone */
	bool carry;	  /* an update: a full flash leaves a path out, nothing is deleted */
};

static int copy_xattrs_fd(int in, int out)
{
	char names[4096], value[4096];
	ssize_t n = flistxattr(in, names, sizeof(names));
	if (n < 0)
		return errno == ENOTSUP ? 0 : -errno;
	for (ssize_t i = 0; i < n; i += (ssize_t)strlen(names + i) + 1) {
		ssize_t v = fgetxattr(in, names + i, value, sizeof(value));
		if (v < 0 || fsetxattr(out, names + i, value, (size_t)v, 0) < 0)
			return -errno;
	}
	return 0;
}

/* Owner, mode, xattrs and times of in onto out (both open). */
static int copy_attrs_fd(int in, int out, const struct stat *st)
{
	if (fchown(out, st->st_uid, st->st_gid) < 0 || fchmod(out, st->st_mode & 07777) < 0)
		return -errno;
	int r = copy_xattrs_fd(in, out);
	struct timespec times[2] = {st->st_atim, st->st_mtim};
	return r < 0 ? r : futimens(out, times) < 0 ? -errno : 0;
}

static int copy_data_fd(int in, int out, unsigned long long size)
{
	char buf[16384];
	while (size > 0) {
		ssize_t n = read(in, buf, size < sizeof(buf) ? (size_t)size : sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : 0;
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));
			if (w <= 0)
				return w < 0 ? -errno : -EIO;
			off += w;
		}
		size -= (unsigned long long)n;
	}
	return fsync(out) < 0 ? -errno : 0;
}

/*
 * Copies name from sdir into ddir, confined to the source upper: nothing is
 * followed, nothing on another filesystem is read. Regular files,
 * directories, symlinks (as links) and whiteouts are kept, with their
 * owners, modes, xattrs (opaque markers) and times; other kinds are skipped.
 */
static int copy_entry(int sdir, const char *name, int ddir, dev_t dev, struct keep_budget *b,
		      unsigned depth);

/* Copies what directory in holds into out. */
static int copy_children(int in, int out, dev_t dev, struct keep_budget *b, unsigned depth)
{
	DIR *d = dir_stream(in);
	struct dirent *de;
	if (!d)
		return -errno;
	int r = 0;
	while (r == 0 && (de = readdir(d)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			r = copy_entry(in, de->d_name, out, dev, b, depth);
	closedir(d);
	return r;
}

static int copy_entry(int sdir, const char *name, int ddir, dev_t dev, struct keep_budget *b,
		      unsigned depth)
{
	struct stat st;
	int r = 0;
	if (fstatat(sdir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (st.st_dev != dev)
		return -EXDEV;
	if (b->entries == 0 || depth > KEEP_MAX_DEPTH)
		return -EFBIG;
	b->entries--;
	if (S_ISREG(st.st_mode)) {
		if ((unsigned long long)st.st_size > b->bytes)
			return -EFBIG;
		b->bytes -= (unsigned long long)st.st_size;
		int in = openat(sdir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
		if (in < 0)
			return -errno;
		int out =
		    openat(ddir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (out < 0) {
			r = -errno;
			close(in);
			return r;
		}
		r = copy_data_fd(in, out, (unsigned long long)st.st_size);
		if (r == 0)
			r = copy_attrs_fd(in, out, &st);
		close(in);
		if (close(out) < 0 && r == 0)
			r = -errno;
		return r;
	}
	if (S_ISDIR(st.st_mode)) {
		if (mkdirat(ddir, name, 0700) < 0 && errno != EEXIST)
			return -errno;
		int in = openat(sdir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int out = openat(ddir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		r = in < 0 || out < 0 ? -errno : copy_children(in, out, dev, b, depth + 1);
		if (r == 0)
			r = copy_attrs_fd(in, out, &st);
		if (in >= 0)
			close(in);
		if (out >= 0)
			close(out);
		return r;
	}
	if (S_ISLNK(st.st_mode)) {
		char target[4096];
		ssize_t n = readlinkat(sdir, name, target, sizeof(target) - 1);
		if (n < 0)
			return -errno;
		target[n] = '\0';
		struct timespec times[2] = {st.st_atim, st.st_mtim};
		if (symlinkat(target, ddir, name) < 0 ||
		    fchownat(ddir, name, st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW) < 0 ||
		    utimensat(ddir, name, times, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
		return 0;
	}
	if (S_ISCHR(st.st_mode) && st.st_rdev == 0) {
		/* an overlayfs whiteout: a kept deletion stays deleted */
		if (mknodat(ddir, name, S_IFCHR | (st.st_mode & 07777), 0) < 0 ||
		    fchownat(ddir, name, st.st_uid, st.st_gid, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
		return 0;
	}
	b->skipped++; /* devices, FIFOs, sockets are not kept */
	return 0;
}

static void note_keep_failure(struct strata_ctx *ctx, const char *path, const char *why)
{
	size_t used = strlen(ctx->rec.keep_failed);
	snprintf(ctx->rec.keep_failed + used, sizeof(ctx->rec.keep_failed) - used, "%s%s: %s",
		 used ? "; " : "", path, why);
	log_error("cannot keep %s: %s", path, why);
}

/* A copy that failed (r < 0), named for the record; kind as safefs found it. */
static void keep_failed_errno(struct strata_ctx *ctx, const char *path, int r, mode_t kind)
{
	char why[96];
	note_keep_failure(ctx, path,
			  r == -EFBIG ? "larger than may be copied (half the free space, 4096 "
					"entries)"
				      : safe_strerror(r, kind, why, sizeof(why)));
}

/*
 * Copies a kept path from the first upper holding it (a copy, a whiteout, an
 * opaque dir) into the new generation. Returns -ENOSPC when the flash is full
 * (the caller makes room and tries again); other failures are reported and
 * the reset goes on without that path.
 */
static int keep_path(struct strata_ctx *ctx, const char *path, const int *from, size_t n_from,
		     const int *to, struct keep_budget *b)
{
	char parent[REQ_PATH_MAX];
	const char *rel = path + 1, *slash = strrchr(rel, '/');
	const char *leaf = slash ? slash + 1 : rel;
	snprintf(parent, sizeof(parent), "%.*s", slash ? (int)(slash - rel) : 1, slash ? rel : ".");
	for (size_t i = 0; i < n_from; i++) {
		struct stat up, st;
		mode_t kind = 0;
		if (fstat(from[i], &up) < 0)
			continue;
		int src = safe_open_dir(from[i], parent, &kind);
		if (src == -ENOENT || (src == -EFTYPE && kind == S_IFCHR))
			continue; /* not in this layer, or deleted in it (a whiteout): look below */
		if (src < 0) {
			keep_failed_errno(ctx, path, src, kind);
			return 0;
		}
		if (fstatat(src, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			close(src);
			continue;
		}
		int r = safe_mkdirs(to[i], parent, 0755, &kind);
		int dst = r < 0 ? r : safe_open_dir(to[i], parent, &kind);
		r = dst < 0 ? dst : copy_entry(src, leaf, dst, up.st_dev, b, 0);
		close(src);
		/* no half copy stays (a file cut short reads as the kept one; a retry needs the
		 * name free): kept paths hold no other, so what is at leaf is this copy's */
		if (r < 0 && dst >= 0)
			safe_remove(dst, leaf);
		if (dst >= 0)
			close(dst);
		/* what the reset discards anyway may make the room a keep needs */
		if ((r == -ENOSPC && !b->carry) || (r == -EFBIG && !b->room_made))
			return -ENOSPC;
		if (r < 0)
			keep_failed_errno(ctx, path, r, kind);
		else
			log_info("kept %s", path);
		if (b->skipped) {
			log_warn("kept %s without %u device node(s), FIFO(s) or socket(s) in it",
				 path, b->skipped);
			b->skipped = 0;
		}
		return 0;
	}
	return 0;
}

/* How path relates to a kept one: 1 kept (or inside one), 2 holds one, 0 neither. */
static int keep_relation(const char *path, const struct request *req)
{
	size_t plen = strlen(path);
	int rel = 0;
	for (size_t i = 0; i < req->n_keep; i++) {
		const char *k = req->keep[i];
		size_t klen = strlen(k);
		if (plen >= klen && strncmp(path, k, klen) == 0 &&
		    (path[klen] == '\0' || path[klen] == '/'))
			return 1;
		if (klen > plen && strncmp(k, path, plen) == 0 && k[plen] == '/')
			rel = 2;
	}
	return rel;
}

/* Deletes what dirfd holds below the upper path at prefix, except kept paths. */
static void remove_unkept(int dirfd, const char *prefix, const struct request *req, unsigned depth)
{
	DIR *d = dir_stream(dirfd);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d))) {
		char path[REQ_PATH_MAX + 2];
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    xsnprintf(path, sizeof(path), "%s/%s", prefix, de->d_name) < 0)
			continue;
		int rel = keep_relation(path, req);
		if (rel == 1)
			continue;
		if (rel == 2) {
			/* on the way to a kept path: its refusal (a symlink, say) is reported later
			 */
			int sub =
			    depth < KEEP_MAX_DEPTH ? safe_open_dir(dirfd, de->d_name, NULL) : -1;
			if (sub >= 0) {
				remove_unkept(sub, path, req, depth + 1);
				close(sub);
			}
			continue;
		}
		safe_remove(dirfd, de->d_name);
	}
	closedir(d);
}

/*
 * A full flash: the trash is emptied, then what this reset discards anyway
 * (the old generations, except the kept paths) is deleted before the switch.
 * A power cut from here on boots into the same request again (it is still
 * pending and the state still names the old generations), so a half-deleted
 * generation is never mounted: the reset runs to its end first.
 */
static void make_room(struct strata_ctx *ctx, const struct flash *fl, const struct request *req,
		      const struct layer_state *st)
{
	bool full = req->kind == REQ_RESET_FULL;
	log_warn("the data flash is full: deleting what the %s discards before switching to "
		 "the new generation",
		 request_kind_name(req->kind));
	safe_remove(fl->data, TRASH_NAME);
	safe_remove(fl->data, STRATA_RESERVE_NAME);
	if (fl->user != fl->data)
		safe_remove(fl->user, TRASH_NAME);
	for (int layer = LAYER_USER; layer <= LAYER_SYSTEM; layer++) {
		char dir[64];
		unsigned gen = state_gen_of(st, layer);
		if ((layer == LAYER_SYSTEM && !full) ||
		    upper_name(dir, sizeof(dir), layer, gen) < 0)
			continue;
		int fd = safe_open_dir(base_of(fl, layer), dir, NULL);
		if (fd >= 0) {
			remove_unkept(fd, "", req, 0);
			close(fd);
		}
	}
	barrier(ctx, "room-made");
}

static unsigned long long keep_bytes(int fd)
{
	struct statvfs sv;
	if (fstatvfs(fd, &sv) < 0)
		return 0;
	return (unsigned long long)sv.f_bavail * sv.f_frsize / 2;
}

/*
 * Builds the next generation(s) beside the live ones, kept paths copied in:
 * both layers for a full reset and an update, the user layer alone for a
 * reset --user.
 */
static __attribute__((noinline)) int prepare_reset(struct strata_ctx *ctx, const struct flash *fl,
						   const struct request *req,
						   const struct layer_state *st,
						   const struct layer_state *next, bool room_made)
{
	bool full = req->kind != REQ_RESET_USER;
	int from[2] = {-1, -1}, to[2] = {-1, -1}, r = 0;
	char name[64];
	mode_t kind;

	/* a generation left half-made by an earlier power cut is discarded first */
	for (int layer = LAYER_USER; layer <= LAYER_SYSTEM; layer++) {
		if (layer == LAYER_SYSTEM && !full)
			continue;
		if ((r = gen_name(name, sizeof(name), layer, state_gen_of(next, layer))) < 0)
			return r;
		r = 0;
		if (safe_kind(base_of(fl, layer), name, &kind) != -ENOENT &&
		    (r = trash(base_of(fl, layer), name, "partial")) < 0)
			return log_error_errno(r, "cannot discard the half-made %s: %m", name);
		powercut_point(ctx, "partial-discarded");
	}
	for (int layer = LAYER_USER; layer <= LAYER_SYSTEM && r == 0; layer++) {
		if (layer == LAYER_SYSTEM && !full)
			break;
		r = upper_name(name, sizeof(name), layer, state_gen_of(next, layer));
		if (r >= 0)
			r = safe_mkdirs(base_of(fl, layer), name, 0755, NULL);
		if (r == 0)
			to[layer] = r = safe_open_dir(base_of(fl, layer), name, NULL);
		if (r < 0)
			log_error_errno(r, "cannot create the new generation %s: %m", name);
		else
			r = 0;
		powercut_point(ctx, layer == LAYER_USER ? "user-generation-made"
							: "system-generation-made");
	}
	/* the current content of a kept path lives in the topmost upper that has it */
	for (int layer = LAYER_USER; layer <= LAYER_SYSTEM; layer++) {
		from[layer] = upper_name(name, sizeof(name), layer, state_gen_of(st, layer)) < 0
				  ? -ENAMETOOLONG
				  : safe_open_dir(base_of(fl, layer), name, NULL);
	}
	struct keep_budget b = {req->keep_all ? ~0u : KEEP_MAX_ENTRIES,
				to[LAYER_USER] >= 0 ? keep_bytes(to[LAYER_USER]) : 0, 0,
				room_made || req->kind == REQ_UPDATE, req->kind == REQ_UPDATE};
	/* pairs of (old upper, new upper): the user layer, and the system layer on a full reset */
	int src[2], dst[2];
	size_t n = 0;
	for (int layer = LAYER_USER; layer <= (full ? LAYER_SYSTEM : LAYER_USER); layer++)
		if (from[layer] >= 0 && to[layer] >= 0)
			src[n] = from[layer], dst[n++] = to[layer];
	for (size_t i = 0; r == 0 && i < req->n_keep; i++) {
		r = keep_path(ctx, req->keep[i], src, n, dst, &b);
		powercut_point(ctx, "kept");
	}
	/* "update X all": each whole upper into its new generation */
	for (size_t i = 0; req->keep_all && i < n; i++) {
		struct stat up;
		int c = fstat(src[i], &up) < 0 ? -errno
					       : copy_children(src[i], dst[i], up.st_dev, &b, 1);
		if (c < 0)
			keep_failed_errno(ctx, "/", c, 0);
		powercut_point(ctx, "kept");
	}
	for (int i = 0; i < 2; i++) {
		if (from[i] >= 0)
			close(from[i]);
		if (to[i] >= 0)
			close(to[i]);
	}
	return r;
}

/* The generation after live that is not other's (the other slot's). */
static unsigned gen_after(unsigned live, unsigned other)
{
	unsigned gen = gen_next(live);
	return gen == other ? gen_next(gen) : gen;
}

/*
 * A reset drops the other slot's generations too (it asked for the changes
 * to go): that slot's next boot shares the reset ones.
 */
static int apply_reset(struct strata_ctx *ctx, const struct flash *fl, const struct request *req,
		       struct layer_state *st)
{
	bool full = req->kind == REQ_RESET_FULL;
	struct layer_state next = {full ? gen_after(st->system_gen, st->other_system)
					: st->system_gen,
				   gen_after(st->user_gen, st->other_user),
				   req->id,
				   st->slot,
				   0,
				   0,
				   st->carried};
	int r = prepare_reset(ctx, fl, req, st, &next, false);
	if (r == -ENOSPC) {
		ctx->rec.keep_failed[0] = '\0';
		make_room(ctx, fl, req, st);
		r = prepare_reset(ctx, fl, req, st, &next, true);
	}
	if (r < 0)
		return r;
	barrier(ctx, "reset-prepared");

	if ((r = commit_state(ctx, fl->data, &next)) == -ENOSPC) {
		make_room(ctx, fl, req, st);
		r = commit_state(ctx, fl->data, &next);
	}
	if (r < 0)
		return log_error_errno(r, "cannot switch to the new generation: %m");
	log_notice("%s applied: system layer generation %u, user layer generation %u",
		   request_kind_name(req->kind), next.system_gen, next.user_gen);
	*st = next;
	return 0;
}

/* Removes a path's copy, whiteout or opaque directory from one upper. */
static int revert_path(const struct flash *fl, const struct layer_state *st,
		       const struct revert_entry *e)
{
	char upper[64], parent[REQ_PATH_MAX];
	struct stat up_st, target;
	int base = base_of(fl, e->layer);
	if (upper_name(upper, sizeof(upper), e->layer, state_gen_of(st, e->layer)) < 0)
		return -ENAMETOOLONG;
	const char *rel = e->path + 1, *slash = strrchr(rel, '/');
	const char *leaf = slash ? slash + 1 : rel;
	snprintf(parent, sizeof(parent), "%.*s", slash ? (int)(slash - rel) : 1, slash ? rel : ".");
	int up = safe_open_dir(base, upper, NULL);
	if (up < 0)
		return up;
	/* every component below the upper is a real directory on the same filesystem */
	int dir = fstat(up, &up_st) < 0 ? -errno : safe_open_dir(up, parent, NULL);
	close(up);
	if (dir < 0)
		return dir == -EFTYPE ? -ENOTDIR : dir;
	int r = 0;
	if (fstatat(dir, leaf, &target, AT_SYMLINK_NOFOLLOW) < 0)
		r = -errno;
	else if (target.st_dev != up_st.st_dev)
		r = -EXDEV;
	else
		r = move_into(base, TRASH_NAME, dir, leaf, "revert");
	close(dir);
	return r;
}

/* A path a revert could not revert reaches the record (and strata status), not only the log. */
static void note_revert_failure(struct strata_ctx *ctx, const char *path, const char *layer,
				int err)
{
	size_t used = strlen(ctx->rec.revert_failed);
	snprintf(ctx->rec.revert_failed + used, sizeof(ctx->rec.revert_failed) - used,
		 "%s%s in the %s layer: %s", used ? "; " : "", path, layer, strerror(-err));
	log_error("cannot revert %s in the %s layer: %s", path, layer, strerror(-err));
}

static int apply_revert(struct strata_ctx *ctx, const struct flash *fl, const struct request *req,
			struct layer_state *st)
{
	for (size_t i = 0; i < req->n_revert; i++) {
		const struct revert_entry *e = &req->revert[i];
		const char *layer = layer_name(e->layer);
		int r = revert_path(fl, st, e);
		if (r == -ENOENT)
			log_info("revert %s: nothing in the %s layer", e->path, layer);
		else if (r < 0)
			note_revert_failure(ctx, e->path, layer, r);
		else
			log_notice("reverted %s in the %s layer", e->path, layer);
		if (i == 0)
			powercut_point(ctx, "revert-partial");
	}
	barrier(ctx, "reverted");
	struct layer_state next = *st;
	next.applied = req->id;
	int r = commit_state(ctx, fl->data, &next);
	if (r < 0)
		return log_error_errno(r, "cannot record the applied revert: %m");
	*st = next;
	return 0;
}

/*
 * A reset chosen by holding the button at power-on replaces any pending
 * request. It is the recovery path, so it trusts nothing in the layers it
 * wipes: the keep list comes from the firmware (the lowers, top first), never
 * from an upper. Stored durably first, so a power cut applies it again;
 * when it cannot be stored (a full or broken flash) it is applied all the same.
 */
static void button_request(struct strata_ctx *ctx, const struct flash *fl,
			   const struct layer_state *st, struct request *req, char *text,
			   size_t len)
{
	char path[128];
	unsigned bad;
	memset(req, 0, sizeof(*req));
	req->kind = (enum req_kind)ctx->button_request;
	req->id = request_next_id(st->applied, 0);
	for (size_t i = 1; i <= ctx->n_lowers; i++) {
		/* lower/1..N are the add-ons, top first, lower/0 the base root */
		if (xsnprintf(path, sizeof(path), STRATA_LOWER_DIR "/%zu/etc/strata/keep",
			      i == ctx->n_lowers ? 0 : i) < 0 ||
		    read_file(path, text, len) < 0)
			continue;
		if (request_add_keep_list(req, text, &bad) < 0)
			log_error("%s line %u is not an absolute path inside the root; not kept",
				  path, bad);
		break;
	}
	int n = request_format(req, text, len);
	int r = n < 0 ? n : safe_write_file(fl->data, REQUEST_NAME, text, (size_t)n, true);
	if (r < 0)
		log_error_errno(r,
				"cannot store the %s the reset button asked for: %m; applying "
				"it all the same (a power cut now loses it)",
				request_kind_name(req->kind));
	else
		flash_sync();
}

/* A request that cannot be acted on is set aside (a regular file) or removed (anything else). */
static void set_request_aside(struct strata_ctx *ctx, int data, mode_t kind, const char *why)
{
	if (kind == S_IFREG) {
		safe_remove(data, REQUEST_NAME ".bad");
		if (renameat(data, REQUEST_NAME, data, REQUEST_NAME ".bad") < 0)
			log_error("%s/%s %s; not applied, and it cannot be kept as %s.bad (%m): "
				  "left where it is",
				  STRATA_DATA_DIR, REQUEST_NAME, why, REQUEST_NAME);
		else
			log_error("%s/%s %s; not applied, kept as %s.bad", STRATA_DATA_DIR,
				  REQUEST_NAME, why, REQUEST_NAME);
	} else {
		safe_remove(data, REQUEST_NAME);
		log_error("%s/%s is %s; removed, nothing applied", STRATA_DATA_DIR, REQUEST_NAME,
			  why);
	}
	snprintf(ctx->rec.request_result, sizeof(ctx->rec.request_result), "malformed");
}

static void apply_request(struct strata_ctx *ctx, const struct flash *fl, struct layer_state *st)
{
	static char text[16384];
	static struct request req;
	unsigned bad_line = 0;
	mode_t kind = 0;
	if (ctx->button_request != REQ_NONE) {
		button_request(ctx, fl, st, &req, text, sizeof(text));
	} else {
		char why[96];
		ssize_t n = safe_read_file(fl->data, REQUEST_NAME, text, sizeof(text), &kind);
		if (n == -ENOENT)
			return;
		if (n < 0) {
			/* never act on what cannot be read whole: set it aside, boot the current
			 * state */
			char err[80];
			snprintf(why, sizeof(why), "%s",
				 safe_strerror((int)n, kind, err, sizeof(err)));
			set_request_aside(ctx, fl->data, kind == S_IFREG ? kind : 0, why);
			return;
		}
		if (request_parse(text, &req, &bad_line) < 0) {
			snprintf(why, sizeof(why), "is malformed (line %u)", bad_line);
			set_request_aside(ctx, fl->data, S_IFREG, why);
			return;
		}
	}
	if (req.kind == REQ_UPDATE) {
		set_request_aside(ctx, fl->data, S_IFREG, "is an update's, not a request");
		return;
	}
	int r = 0;
	uint64_t t0 = now_boottime_ns();
	if (req.id != st->applied) {
		log_notice("applying %s (request %lu)", request_kind_name(req.kind), req.id);
		r = req.kind == REQ_REVERT ? apply_revert(ctx, fl, &req, st)
					   : apply_reset(ctx, fl, &req, st);
	}
	if (r == 0) {
		powercut_point(ctx, "request-applied");
		/*
		 * No barrier: the state already names this request as applied, so
		 * a request file that comes back after a power cut is skipped and
		 * removed again by the next boot.
		 */
		int u = safe_remove(fl->data, REQUEST_NAME);
		if (u < 0)
			log_error_errno(u, "cannot remove %s/%s: %m", STRATA_DATA_DIR,
					REQUEST_NAME);
		powercut_point(ctx, "request-removed");
		snprintf(ctx->rec.request_result, sizeof(ctx->rec.request_result), "%s",
			 request_kind_name(req.kind));
		ctx->rec.request_apply_ns = now_boottime_ns() - t0;
	} else {
		/* loud and persistent: the request stays pending and the next boot tries again */
		snprintf(ctx->rec.request_result, sizeof(ctx->rec.request_result), "failed");
		snprintf(ctx->rec.request_error, sizeof(ctx->rec.request_error),
			 "%s (request %lu) could not be applied: %s; it stays pending and is "
			 "retried at the next boot",
			 request_kind_name(req.kind), req.id, strerror(-r));
		log_error("%s", ctx->rec.request_error);
		console_print("\n*** strata: %s\n", ctx->rec.request_error);
	}
}

/*
 * The slot booted and the generations it runs on. The live generations
 * belong to the slot the state names; the other slot's are kept beside them.
 * - The first boot of a slot "strata update install" wrote (DATA/strata.update
 *   names it, not yet carried): new generations carrying the keep list (or
 *   everything) from the live ones, which become the other slot's, untouched,
 *   for a rollback. The stale ones of the firmware the update replaced go.
 * - Another slot than the state's: its own kept generations are live again
 *   (a rollback gets exactly the data it had), or with none, it shares the
 *   live ones.
 * One rename of strata.state switches; the update file goes after it and is
 * recognised as carried by its id.
 */
static void slot_switch(struct strata_ctx *ctx, const struct flash *fl, struct layer_state *st)
{
	static char text[16384];
	static struct request upd;
	char x = ctx->opts.slot[0], from = st->slot ? st->slot : x == 'A' ? 'B' : 'A';
	unsigned bad;
	int r = 0;
	struct layer_state next = *st;
	const char *how = NULL;
	ssize_t n = safe_read_file(fl->data, UPDATE_NAME, text, sizeof(text), NULL);
	bool valid = n >= 0 && request_parse(text, &upd, &bad) == 0 && upd.kind == REQ_UPDATE;
	bool carry = valid && upd.slot == x && upd.id != st->carried && st->slot != x;
	if (st->slot == x && !carry)
		goto done;
	next.slot = x;
	if (carry) {
		log_notice("first boot of slot %c: carrying %s from slot %c (update %lu)", x,
			   upd.keep_all ? "everything" : "the keep list", from, upd.id);
		next.system_gen = gen_after(st->system_gen, st->other_system);
		next.user_gen = gen_after(st->user_gen, st->other_user);
		next.other_system = st->system_gen;
		next.other_user = st->user_gen;
		next.carried = upd.id;
		how = "carried from";
		if ((r = prepare_reset(ctx, fl, &upd, st, &next, true)) < 0)
			goto failed;
		barrier(ctx, "reset-prepared");
	} else if (st->other_system) {
		next.system_gen = st->other_system;
		next.user_gen = st->other_user;
		next.other_system = st->system_gen;
		next.other_user = st->user_gen;
		how = "switched from";
	} else if (st->slot) {
		how = "shared with";
	}
	if ((r = commit_state(ctx, fl->data, &next)) < 0)
		goto failed;
	if (how) {
		snprintf(ctx->rec.slot_data, sizeof(ctx->rec.slot_data), "%s %c", how, from);
		log_notice("slot %c: data %s (system generation %u, user generation %u)", x,
			   ctx->rec.slot_data, next.system_gen, next.user_gen);
	}
	*st = next;
done:
	/* carried now or before; or not an update at all (no install writes that) */
	if (n >= 0 && (carry || !valid || upd.id == st->carried)) {
		if (!valid)
			log_warn("%s/%s is not an update record: removed", STRATA_DATA_DIR,
				 UPDATE_NAME);
		safe_remove(fl->data, UPDATE_NAME);
		powercut_point(ctx, "update-removed");
	}
	return;
failed:
	snprintf(ctx->rec.request_error, sizeof(ctx->rec.request_error),
		 "the data of slot %c could not be prepared: %s; this boot runs on slot %c's, "
		 "and the next one tries again",
		 x, strerror(-r), from);
	log_error("%s", ctx->rec.request_error);
}

/*
 * Generations the state does not name (older ones, half-made ones) go to the
 * trash; after a state rebuilt from the flash they are set aside instead,
 * since nothing says which one the user's data is in.
 */
static size_t stale_generations(struct strata_ctx *ctx, int base, const char *kind, unsigned live,
				unsigned other, bool keep)
{
	DIR *d = dir_stream(base);
	if (!d)
		return 0;
	struct dirent *de;
	char names[32][32];
	size_t n = 0;
	while ((de = readdir(d)) && n < ARRAY_SIZE(names)) {
		unsigned gen = gen_number(de->d_name, kind);
		if (gen && gen != live && gen != other)
			snprintf(names[n++], sizeof(names[0]), "%s", de->d_name);
	}
	closedir(d);
	for (size_t i = 0; i < n; i++) {
		int r = keep ? move_into(base, RECOVERED_NAME, base, names[i], names[i])
			     : trash(base, names[i], names[i]);
		if (r < 0)
			log_warn_errno(r, "cannot %s %s: %m", keep ? "set aside" : "discard",
				       names[i]);
		else if (keep)
			log_warn("%s set aside in %s", names[i], RECOVERED_NAME);
		powercut_point(ctx, "generation-discarded");
	}
	return n;
}

/*
 * The live generation's upper and work directories. Junk where one of them
 * belongs (a file, a FIFO, a symlink) holds no layer: it is set aside in
 * strata.recovered, never followed or deleted, and the directory made afresh.
 */
static int live_dirs(struct strata_ctx *ctx, int base, enum req_layer layer, unsigned gen)
{
	static const char *const parts[] = {"", "/upper", "/work"};
	char gname[32], path[48], why[80];
	mode_t kind;
	int r = gen_name(gname, sizeof(gname), layer, gen) < 0 ? -ENAMETOOLONG : 0;
	for (size_t i = 0; r == 0 && i < ARRAY_SIZE(parts); i++) {
		if ((r = xsnprintf(path, sizeof(path), "%s%s", gname, parts[i])) < 0)
			break;
		r = safe_mkdirs(base, path, 0755, &kind);
		if (r != -EFTYPE && r != -ELOOP)
			continue;
		log_error("%s/%s is %s where a directory belongs; setting it aside in %s",
			  base_path(ctx, layer), path, safe_strerror(r, kind, why, sizeof(why)),
			  RECOVERED_NAME);
		int parent =
		    i == 0 ? fcntl(base, F_DUPFD_CLOEXEC, 0) : safe_open_dir(base, gname, NULL);
		if (parent < 0)
			return parent;
		char tag[48];
		snprintf(tag, sizeof(tag), "%s%s", gname,
			 i == 0	  ? ""
			 : i == 1 ? ".upper"
				  : ".work");
		r = move_into(base, RECOVERED_NAME, parent, i == 0 ? gname : parts[i] + 1, tag);
		close(parent);
		if (r == 0)
			r = safe_mkdirs(base, path, 0755, &kind);
	}
	return r;
}

/*
 * A little space held back on the data filesystem: on a full flash the
 * runtime tool deletes it to record a reset (init/cmd/reset.c), and the next
 * boot that has room takes it back. Incompressible, so that jffs2 and ubifs
 * really hold it.
 */
static void hold_reserve(int data, uint64_t bytes)
{
	unsigned char fill[4096];
	struct stat st;
	int fd = safe_open_file(data, STRATA_RESERVE_NAME, O_RDONLY, NULL);
	bool have = fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_size == bytes;
	if (fd >= 0)
		close(fd);
	if (have || bytes == 0)
		return;
	uint32_t x = 2463534242u; /* xorshift32: the same bytes on every device */
	for (size_t i = 0; i < sizeof(fill); i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		fill[i] = (unsigned char)x;
	}
	/* made whole before it counts: a torn one has the wrong size and is made again */
	int r = safe_write_file(data, STRATA_RESERVE_NAME, fill, sizeof(fill), false);
	fd = r < 0 ? r : safe_open_file(data, STRATA_RESERVE_NAME, O_WRONLY | O_APPEND, NULL);
	for (uint64_t done = sizeof(fill); fd >= 0 && r == 0 && done < bytes;
	     done += sizeof(fill)) {
		fill[done / sizeof(fill) % sizeof(fill)] ^= 0x5a; /* no two blocks alike */
		ssize_t w = write(fd, fill, sizeof(fill));
		if (w != (ssize_t)sizeof(fill))
			r = w < 0 ? -errno : -ENOSPC; /* a short write: the flash is full */
	}
	if (fd >= 0)
		close(fd);
	else
		r = fd;
	if (r < 0) {
		safe_remove(data, STRATA_RESERVE_NAME);
		log_info("no room for the reserve %s (%s); a reset on a full flash needs the "
			 "button at power-on",
			 STRATA_RESERVE_NAME, strerror(-r));
	}
}

/* Deletes the trash now rather than after the exec when the filesystem has (almost) no room. */
static void empty_trash_if_full(int base)
{
	struct statvfs sv;
	if (safe_kind(base, TRASH_NAME, NULL) < 0 || fstatvfs(base, &sv) < 0 ||
	    (unsigned long long)sv.f_bavail * sv.f_frsize >= TRASH_NOW_BELOW)
		return;
	log_warn("the data flash is full: deleting the discarded generations before mounting");
	safe_remove(base, TRASH_NAME);
	flash_sync();
}

/* Moves the regular file name from base into dir on another filesystem: copied whole, then removed.
 */
static int copy_across(int base, const char *name, int dir)
{
	static const char tmp[] = ".strata-copy.tmp";
	struct stat st;
	int in = safe_open_file(base, name, O_RDONLY, NULL), out = -1, r;
	if (in < 0)
		return in;
	unlinkat(dir, tmp, 0);
	if (fstat(in, &st) < 0 ||
	    (out = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600)) <
		0)
		r = -errno;
	else if ((r = copy_data_fd(in, out, (unsigned long long)st.st_size)) == 0)
		r = copy_attrs_fd(in, out, &st);
	if (r == 0 && renameat(dir, tmp, dir, name) < 0)
		r = -errno;
	if (r < 0 && out >= 0)
		unlinkat(dir, tmp, 0);
	if (out >= 0)
		close(out);
	close(in);
	return r < 0 ? r : safe_remove(base, name);
}

/*
 * OpenWrt's sysupgrade leaves the configuration it kept as sysupgrade.tgz at
 * the top of rootfs_data (mtd -j on NOR, nand_restore_config on UBI), where
 * fstools finds it on the next boot and moves it to the root's upper, so
 * that preinit untars /sysupgrade.tgz and /etc/init.d/done removes it. The
 * same here, once the request is applied: renamed (a regular file only,
 * never followed) into the live upper of /.
 */
static void adopt_sysupgrade_tgz(struct strata_ctx *ctx, const struct flash *fl,
				 const struct layer_state *st)
{
	static const char tgz[] = "sysupgrade.tgz";
	enum req_layer top = ctx->opts.stack_levels == 1 ? LAYER_SYSTEM : LAYER_USER;
	char upper[48], why[80];
	mode_t kind = 0;
	int r = safe_kind(fl->data, tgz, &kind);
	if (r == -ENOENT)
		return;
	if (r < 0 || !S_ISREG(kind)) {
		log_warn("%s/%s is %s, not a configuration archive; left alone", STRATA_DATA_DIR,
			 tgz,
			 r < 0 ? safe_strerror(r, kind, why, sizeof(why)) : safe_kind_name(kind));
		return;
	}
	int dir = upper_name(upper, sizeof(upper), top, state_gen_of(st, top)) < 0
		      ? -ENAMETOOLONG
		      : safe_open_dir(base_of(fl, top), upper, NULL);
	r = dir < 0 ? dir : renameat(fl->data, tgz, dir, tgz) < 0 ? -errno : 0;
	if (r == -EXDEV) /* the user layer has its own partition */
		r = copy_across(fl->data, tgz, dir);
	if (dir >= 0)
		close(dir);
	if (r < 0)
		log_warn("cannot move %s/%s into the upper of /: %s", STRATA_DATA_DIR, tgz,
			 strerror(-r));
	else
		log_notice("OpenWrt's kept configuration %s/%s is /%s for preinit to restore",
			   STRATA_DATA_DIR, tgz, tgz);
}

int layers_prepare(struct strata_ctx *ctx, bool volatile_upper, const char *name, char *reason,
		   size_t reasonlen)
{
	struct layer_state st;
	struct flash fl;
	int r;
	fl.data = safe_base(STRATA_DATA_DIR);
	fl.user = ctx->user_separate ? safe_base(STRATA_USERDATA_DIR) : fl.data;
	if (fl.data < 0 || fl.user < 0) {
		r = fl.data < 0 ? fl.data : fl.user;
		snprintf(reason, reasonlen, "cannot open the upper on '%s': %s", name,
			 strerror(-r));
		if (fl.data >= 0)
			close(fl.data);
		return r;
	}
	enum state_source src = read_state(ctx, &fl, &st);
	if (!volatile_upper && ctx->opts.slot[0])
		slot_switch(ctx, &fl, &st);
	if (!volatile_upper)
		apply_request(ctx, &fl, &st);
	else if (ctx->button_request != REQ_NONE)
		log_error("%s by the reset button not applied: the upper is not the flash one",
			  request_kind_name((enum req_kind)ctx->button_request));

	/* the mount paths of the live generations: "/run/strata/userdata/user.1000000000/upper"
	 * fits */
	char sys_name[32], user_name[32];
	if (gen_name(sys_name, sizeof(sys_name), LAYER_SYSTEM, st.system_gen) < 0 ||
	    gen_name(user_name, sizeof(user_name), LAYER_USER, st.user_gen) < 0 ||
	    xsnprintf(ctx->system_upper, sizeof(ctx->system_upper), STRATA_DATA_DIR "/%s/upper",
		      sys_name) < 0 ||
	    xsnprintf(ctx->system_work, sizeof(ctx->system_work), STRATA_DATA_DIR "/%s/work",
		      sys_name) < 0 ||
	    xsnprintf(ctx->user_upper, sizeof(ctx->user_upper), "%s/%s/upper",
		      base_path(ctx, LAYER_USER), user_name) < 0 ||
	    xsnprintf(ctx->user_work, sizeof(ctx->user_work), "%s/%s/work",
		      base_path(ctx, LAYER_USER), user_name) < 0)
		r = -ENAMETOOLONG;
	else
		r = 0;
	if (r < 0)
		snprintf(reason, reasonlen, "generation paths on '%s' too long", name);
	/* an upper and a work directory per level: a one-level stack leaves the user layer alone */
	for (unsigned level = 0; r == 0 && level < ctx->opts.stack_levels && level < 2; level++) {
		enum req_layer layer = level == 0 ? LAYER_SYSTEM : LAYER_USER;
		r = live_dirs(ctx, base_of(&fl, layer), layer, state_gen_of(&st, layer));
		if (r < 0)
			snprintf(reason, reasonlen, "cannot create %s on '%s': %s",
				 layer == LAYER_USER ? ctx->user_upper : ctx->system_upper, name,
				 strerror(-r));
	}
	ctx->rec.system_gen = st.system_gen;
	ctx->rec.user_gen = st.user_gen;
	if (r == 0 && !volatile_upper) {
		adopt_sysupgrade_tgz(ctx, &fl, &st);
		if (src != STATE_READ && (r = write_state(fl.data, &st, true)) < 0) {
			log_warn_errno(r, "cannot write %s/%s: %m", STRATA_DATA_DIR, STATE_NAME);
			r = 0;
		}
		/*
		 * No barrier: a generation whose move to the trash does not reach
		 * the flash before a power cut is still not the live one, and the
		 * next boot moves it again.
		 */
		bool keep = src == STATE_DERIVED;
		if (stale_generations(ctx, fl.data, "system", st.system_gen, st.other_system,
				      keep) +
			stale_generations(ctx, fl.user, "user", st.user_gen, st.other_user, keep) >
		    0)
			powercut_point(ctx, "layers-ready");
		/* overlayfs needs room for its work directory: a full flash cannot wait for the
		 * trash */
		empty_trash_if_full(fl.data);
		if (fl.user != fl.data)
			empty_trash_if_full(fl.user);
		hold_reserve(fl.data, ctx->reserve_bytes);
	}
	if (fl.user != fl.data)
		close(fl.user);
	close(fl.data);
	return r;
}

void layers_discard_trash(void)
{
	static const char *const dirs[] = {STRATA_DATA_DIR, STRATA_USERDATA_DIR};
	bool any = false;
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		int base = safe_base(dirs[i]);
		if (base >= 0) {
			any = any || safe_kind(base, TRASH_NAME, NULL) == 0;
			close(base);
		}
	}
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
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		int base = safe_base(dirs[i]);
		if (base >= 0) {
			safe_remove(base, TRASH_NAME);
			close(base);
		}
	}
	sync();
	_exit(0);
}
