// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reset/revert/generation code of init/boot/layers.c, run on the host on
 * a scratch tree laid out as the init finds the flash (run/data, and
 * run/userdata when the user layer has its own partition). Every request kind
 * on every stack layout is applied once whole, then once more for every step
 * of it with the run killed at that step (strata.powercut=N: the child
 * process ends there) and the next run left to finish: that run must succeed
 * and leave the live uppers exactly as the whole run did, and no state that
 * could not be read may ever be left behind.
 */
#define _GNU_SOURCE /* log.c: dup3 */
#define UNIT_NAME "layers"
#include "unit.h"

#define STRATA_RUN_DIR "run"
#define LAYERS_HOST_HOOKS
#include <stdlib.h>
#include <unistd.h>
#define CUT_EXIT 77
static __attribute__((noreturn)) void powercut_stop(void)
{
	_exit(CUT_EXIT);
}
/* a killed process loses nothing the kernel has: a barrier costs nothing here */
static void flash_sync(void)
{
}
#include "../../init/boot/layers.c" // NOLINT(bugprone-suspicious-include): its static functions too
#include "../../init/boot/log.c"    // NOLINT(bugprone-suspicious-include)

#include <dirent.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/resource.h>
#include <sys/wait.h>

struct layout {
	const char *name;
	unsigned levels;
	bool separate;
};

static const struct layout layouts[] = {
    {"system user", 2, false},
    {"system user, user partition", 2, true},
    {"system", 1, false},
};

struct kind {
	const char *name;
	enum req_kind kind;
	const char *keep[3];
	struct revert_entry revert[2];
};

static const struct kind kinds[] = {
    {"reset", REQ_RESET_USER, {NULL}, {{0}}},
    {"reset --all", REQ_RESET_FULL, {NULL}, {{0}}},
    {"reset --keep", REQ_RESET_USER, {"/etc/config", "/root/keep", "/root/nosuch"}, {{0}}},
    {"reset --all --keep", REQ_RESET_FULL, {"/etc/config", "/etc/sys", NULL}, {{0}}},
    {"revert", REQ_REVERT, {NULL}, {{LAYER_USER, "/etc/config"}, {LAYER_SYSTEM, "/etc/sys"}}},
};

static char scratch[64];
static char revert_failed[400];	   /* the last run's record of what a revert could not revert */
static char keep_failed[400];	   /* and of the kept paths it could not keep */
static rlim_t child_fsize;	   /* the next runs' largest file (RLIMIT_FSIZE; 0: none) */
static char slot_data[24];	   /* and of what it did with the slots' data */
static const char *boot_slot = ""; /* strata.slot= of the next run */

static void put(const char *path, const char *text)
{
	char dir[256];
	snprintf(dir, sizeof(dir), "%s", path);
	for (char *p = dir + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		mkdir(dir, 0755);
		*p = '/';
	}
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		fprintf(stderr, "cannot write %s\n", path);
		exit(2);
	}
}

static void ctx_for(struct strata_ctx *ctx, const struct layout *l, const char *cut)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->opts.stack_levels = l->levels;
	ctx->user_separate = l->separate;
	snprintf(ctx->opts.powercut, sizeof(ctx->opts.powercut), "%s", cut);
	snprintf(ctx->opts.slot, sizeof(ctx->opts.slot), "%s", boot_slot);
}

/* One boot's layer preparation in a child: its exit status (CUT_EXIT: cut), *steps its count. */
static int run_child(const struct layout *l, const char *cut, unsigned *steps, char *why,
		     size_t len)
{
	int fds[2];
	if (pipe(fds) < 0)
		return -1;
	pid_t pid = fork();
	if (pid == 0) {
		static struct strata_ctx ctx;
		char reason[160] = "";
		close(fds[0]);
		alarm(20); /* a boot that blocks (on a FIFO, say) dies: a failure, not a hang */
		/* the product's log (and a sanitizer's report) of the last run, shown on failure */
		int log = open("../child.log", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (log < 0 || dup2(log, 2) < 0)
			_exit(4);
		ctx_for(&ctx, l, cut);
		if (child_fsize) {
			/* a flash that takes no more: a write past it fails (EFBIG) */
			struct rlimit lim = {child_fsize, child_fsize};
			signal(SIGXFSZ, SIG_IGN);
			if (setrlimit(RLIMIT_FSIZE, &lim) < 0)
				_exit(5);
		}
		int r = layers_prepare(&ctx, false, "scratch", reason, sizeof(reason));
		char msg[1536];
		int n = snprintf(msg, sizeof(msg), "%u %s\n%s\n%s\n%s", ctx.powercut_steps, reason,
				 ctx.rec.slot_data, ctx.rec.keep_failed, ctx.rec.revert_failed);
		if (write(fds[1], msg, (size_t)n) != n)
			_exit(3);
		_exit(r == 0 ? 0 : 1);
	}
	close(fds[1]);
	char msg[1536] = "";
	ssize_t n = read(fds[0], msg, sizeof(msg) - 1);
	close(fds[0]);
	int status;
	waitpid(pid, &status, 0);
	msg[n > 0 ? n : 0] = '\0';
	unsigned s = 0;
	int used = 0;
	char *nl = strchr(msg, '\n'), *nl2 = nl ? strchr(nl + 1, '\n') : NULL,
	     *nl3 = nl2 ? strchr(nl2 + 1, '\n') : NULL;
	snprintf(revert_failed, sizeof(revert_failed), "%s", nl3 ? nl3 + 1 : "");
	if (nl3)
		*nl3 = '\0';
	snprintf(keep_failed, sizeof(keep_failed), "%s", nl2 ? nl2 + 1 : "");
	if (nl2)
		*nl2 = '\0';
	snprintf(slot_data, sizeof(slot_data), "%s", nl ? nl + 1 : "");
	if (nl)
		*nl = '\0';
	if (sscanf(msg, "%u %n", &s, &used) >= 1) {
		*steps = s;
		snprintf(why, len, "%s", msg + used);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)ftw;
	return (flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 ? -1 : 0;
}

static void show_log(void)
{
	char text[4096];
	int fd = open("../child.log", O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
	if (fd >= 0)
		close(fd);
	text[n > 0 ? n : 0] = '\0';
	fprintf(stderr, "--- its log:\n%s", text);
}

/* The tree before the request: generation 1 of each layer, files in both uppers. */
static void world(const struct layout *l, const struct kind *k)
{
	if (nftw("run", remove_entry, 16, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT) {
		perror("run");
		exit(2);
	}
	if (mkdir("run", 0755) < 0 || mkdir("run/data", 0755) < 0 ||
	    mkdir("run/userdata", 0755) < 0) {
		perror("run");
		exit(2);
	}
	unsigned steps;
	char why[160];
	boot_slot = "";
	if (run_child(l, "", &steps, why, sizeof(why)) != 0) {
		fprintf(stderr, "the first boot of the scratch tree failed: %s\n", why);
		show_log();
		exit(2);
	}
	const char *user = l->separate ? "run/userdata/user.1/upper" : "run/data/user.1/upper";
	char path[128];
	put("run/data/system.1/upper/etc/sys", "system's own\n");
	put("run/data/system.1/upper/etc/config", "system's config\n");
	snprintf(path, sizeof(path), "%s/etc/config", user);
	put(path, "user's config\n");
	snprintf(path, sizeof(path), "%s/root/keep", user);
	put(path, "kept\n");
	snprintf(path, sizeof(path), "%s/root/dropped", user);
	put(path, "dropped\n");

	struct request req;
	memset(&req, 0, sizeof(req));
	req.kind = k->kind;
	req.id = 41;
	for (size_t i = 0; i < ARRAY_SIZE(k->keep) && k->keep[i]; i++)
		CHECK(request_add_keep(&req, k->keep[i]) == 0);
	for (size_t i = 0; i < ARRAY_SIZE(k->revert) && k->revert[i].path[0]; i++)
		req.revert[req.n_revert++] = k->revert[i];
	static char text[8192];
	int n = request_format(&req, text, sizeof(text));
	CHECK(n > 0);
	put("run/data/" REQUEST_NAME, text);
}

static void add_line(char *out, size_t len, const char *fmt, ...)
{
	size_t used = strlen(out);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out + used, len - used, fmt, ap);
	va_end(ap);
}

/* Every entry below dir (sorted): its path, kind and a regular file's content. */
static void walk(const char *dir, const char *rel, char *out, size_t len)
{
	struct dirent **names;
	char path[512];
	snprintf(path, sizeof(path), "%s%s", dir, rel);
	int n = scandir(path, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		struct stat st;
		char sub[256], full[768];
		if (strcmp(name, ".") != 0 && strcmp(name, "..") != 0) {
			snprintf(sub, sizeof(sub), "%s/%s", rel, name);
			snprintf(full, sizeof(full), "%s%s", dir, sub);
			if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
				add_line(out, len, "%s/\n", sub);
				walk(dir, sub, out, len);
			} else {
				char text[64] = "";
				int fd = open(full, O_RDONLY);
				ssize_t got = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
				if (fd >= 0)
					close(fd);
				text[got > 0 ? got : 0] = '\0';
				add_line(out, len, "%s %o %s", sub, (unsigned)st.st_mode, text);
			}
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

/* What the next mount would see: the state, the live uppers' contents, a pending request. */
static void live(const struct layout *l, char *out, size_t len)
{
	char text[128], dir[96];
	struct layer_state st;
	out[0] = '\0';
	int fd = open("run/data/" STATE_NAME, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
	if (fd >= 0)
		close(fd);
	text[n > 0 ? n : 0] = '\0';
	if (state_parse(text, &st) < 0) {
		snprintf(out, len, "unreadable state '%s'\n", text);
		return;
	}
	add_line(out, len, "system %u, user %u, applied %lu, request %s\n", st.system_gen,
		 st.user_gen, st.applied,
		 access("run/data/" REQUEST_NAME, F_OK) == 0 ? "pending" : "none");
	snprintf(dir, sizeof(dir), "run/data/system.%u/upper", st.system_gen);
	add_line(out, len, "[system]\n");
	walk(dir, "", out, len);
	snprintf(dir, sizeof(dir), "%s/user.%u/upper", l->separate ? "run/userdata" : "run/data",
		 st.user_gen);
	add_line(out, len, "[user]\n");
	walk(dir, "", out, len);
	if (access("run/data/" RECOVERED_NAME, F_OK) == 0)
		add_line(out, len, "generations set aside in " RECOVERED_NAME "\n");
}

static bool contains(const char *text, const char *line)
{
	return strstr(text, line) != NULL;
}

/* What each kind must have done, checked on the whole run's result. */
static void check_outcome(const struct kind *k, const char *got)
{
	bool full = k->kind == REQ_RESET_FULL;
	CHECK(contains(got, ", applied 41, request none\n"));
	CHECK(!contains(got, RECOVERED_NAME));
	const char *sys = strstr(got, "[system]\n"), *user = strstr(got, "[user]\n");
	CHECK(sys && user && sys < user);
	if (!sys || !user)
		return;
	bool sys_has = strstr(sys, "/etc/sys ") && strstr(sys, "/etc/sys ") < user;
	bool user_config = strstr(user, "/etc/config 100644 user's config") != NULL;
	bool user_keep = strstr(user, "/root/keep 100644 kept") != NULL;
	bool user_dropped = strstr(user, "/root/dropped") != NULL;
	switch (k->kind) {
	case REQ_REVERT:
		CHECK(!sys_has && !user_config && user_keep && user_dropped);
		CHECK(strstr(sys, "/etc/config 100644 system's config") != NULL);
		break;
	default:
		/* a user reset leaves the system layer whole; a full reset keeps only the keeps */
		CHECK(sys_has == (!full || (k->keep[1] && !strcmp(k->keep[1], "/etc/sys"))));
		CHECK(!user_dropped);
		CHECK(user_config == (k->keep[0] != NULL));
		CHECK(user_keep == (k->keep[1] && !strcmp(k->keep[1], "/root/keep")));
		break;
	}
}

static void sweep(const struct layout *l, const struct kind *k, unsigned *cuts)
{
	static char want[16384], got[16384], before[16384];
	char why[160];
	unsigned steps = 0, s;

	world(l, k);
	live(l, before, sizeof(before));
	/* the whole run counts its steps (a cut at a step it never reaches) */
	int r = run_child(l, "999999", &steps, why, sizeof(why));
	if (r != 0) {
		fprintf(stderr, "  %s on %s: the whole run failed (exit %d): %s\n", k->name,
			l->name, r, why);
		show_log();
		unit_check_failures++;
	}
	live(l, want, sizeof(want));
	check_outcome(k, want);
	CHECK(steps >= 2);
	for (unsigned n = 1; n <= steps; n++) {
		char cut[16];
		snprintf(cut, sizeof(cut), "%u", n);
		world(l, k);
		r = run_child(l, cut, &s, why, sizeof(why));
		if (r != CUT_EXIT) {
			fprintf(stderr, "  %s on %s: no cut at step %u of %u (exit %d)\n", k->name,
				l->name, n, steps, r);
			show_log();
			unit_check_failures++;
			continue;
		}
		(*cuts)++;
		/* cut anywhere, a state is there to boot: the old one or the new one */
		live(l, got, sizeof(got));
		CHECK(!contains(got, "unreadable state"));
		r = run_child(l, "", &s, why, sizeof(why));
		live(l, got, sizeof(got));
		if (r != 0 || strcmp(got, want) != 0) {
			fprintf(stderr,
				"  %s on %s, cut at step %u of %u: the next boot %s (%s)\n"
				"--- whole run:\n%s--- after the cut:\n%s",
				k->name, l->name, n, steps, r ? "failed" : "differs", why, want,
				got);
			show_log();
			unit_check_failures++;
		}
	}
}

/* A revert path that cannot be reverted is in the record, the others reverted all the same. */
static void a_failed_revert_reaches_the_record(void)
{
	static const struct kind k = {"revert",
				      REQ_REVERT,
				      {NULL},
				      {{LAYER_USER, "/etc/config/x"}, {LAYER_SYSTEM, "/etc/sys"}}};
	static char got[16384];
	char why[160];
	unsigned steps;
	world(&layouts[0], &k);
	CHECK(run_child(&layouts[0], "", &steps, why, sizeof(why)) == 0);
	CHECK_STR(revert_failed, "/etc/config/x in the user layer: Not a directory");
	live(&layouts[0], got, sizeof(got));
	CHECK(contains(got, ", applied 41, request none\n"));
	CHECK(!contains(got, "/etc/sys ") && contains(got, "/etc/config 100644 user's config"));
}

/*
 * A/B slots over one data flash: the boots of a device that is updated, rolls
 * back and is updated again. Each step is a boot of a slot, with the update
 * file "strata update install" leaves before it (or none), and what that
 * slot's system then writes.
 */
struct slot_boot {
	const char *slot, *update, *edit_user, *edit_text;
	const char *data; /* the record's slot_data */
};

static const struct slot_boot journey[] = {
    {"A", NULL, NULL, NULL, ""},
    {"B", "id 7\nupdate B\nkeep /etc/config\n", "/etc/config", "B's config\n", "carried from A"},
    {"A", NULL, NULL, NULL, "switched from B"},
    {"B", NULL, NULL, NULL, "switched from A"},
    {"A", "id 8\nupdate A all\n", "/etc/config", "A2's config\n", "carried from B"},
    /* an update file already carried (a cut before its removal) is not carried again */
    {"A", "id 8\nupdate A all\n", NULL, NULL, ""},
    {"B", "id 8\nupdate A all\n", NULL, NULL, "switched from A"},
    {"A", "id 8\nupdate A all\n", NULL, NULL, "switched from B"},
    /* an update file that is not one (no install writes it) is removed, nothing carried */
    {"B", "id 9\nupdate B\nfrobnicate /etc\n", NULL, NULL, "switched from A"},
};

static unsigned state_gen(bool other, enum req_layer layer)
{
	char text[256] = "";
	struct layer_state st;
	int fd = open("run/data/" STATE_NAME, O_RDONLY);
	ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);
	if (fd >= 0)
		close(fd);
	text[n > 0 ? n : 0] = '\0';
	if (state_parse(text, &st) < 0)
		return 0;
	if (other)
		return layer == LAYER_USER ? st.other_user : st.other_system;
	return layer == LAYER_USER ? st.user_gen : st.system_gen;
}

/* Both slots' data: the live uppers, then the other slot's. */
static void both_slots(const struct layout *l, char *out, size_t len)
{
	live(l, out, len);
	char dir[96];
	snprintf(dir, sizeof(dir), "run/data/system.%u/upper", state_gen(true, LAYER_SYSTEM));
	add_line(out, len, "[other system]\n");
	walk(dir, "", out, len);
	snprintf(dir, sizeof(dir), "%s/user.%u/upper", l->separate ? "run/userdata" : "run/data",
		 state_gen(true, LAYER_USER));
	add_line(out, len, "[other user]\n");
	walk(dir, "", out, len);
	add_line(out, len, "update file %s\n",
		 access("run/data/" UPDATE_NAME, F_OK) == 0 ? "pending" : "none");
}

static void journey_edit(const struct layout *l, const struct slot_boot *b)
{
	char path[160];
	if (!b->edit_user)
		return;
	snprintf(path, sizeof(path), "%s/user.%u/upper%s",
		 l->separate ? "run/userdata" : "run/data", state_gen(false, LAYER_USER),
		 b->edit_user);
	put(path, b->edit_text);
}

/* Boots journey[0..upto) whole, with their edits; then the update file of journey[upto]. */
static int journey_to(const struct layout *l, size_t upto)
{
	static const struct kind none = {"slots", REQ_NONE, {NULL}, {{0}}};
	char why[160];
	unsigned steps;
	world(l, &none);
	unlink("run/data/" REQUEST_NAME);
	for (size_t i = 0; i <= upto; i++) {
		if (journey[i].update) {
			char text[256];
			snprintf(text, sizeof(text), "strata-request 1\n%send\n",
				 journey[i].update);
			put("run/data/" UPDATE_NAME, text);
		}
		if (i == upto)
			return 0;
		boot_slot = journey[i].slot;
		if (run_child(l, "", &steps, why, sizeof(why)) != 0) {
			fprintf(stderr, "  slots on %s: boot %zu of slot %s failed: %s\n", l->name,
				i, journey[i].slot, why);
			show_log();
			return -1;
		}
		journey_edit(l, &journey[i]);
	}
	return 0;
}

static void journey_outcome(size_t i, const char *got)
{
	const char *user = strstr(got, "[user]\n"), *other = strstr(got, "[other system]\n"),
		   *other_user = strstr(got, "[other user]\n");
	CHECK(user && other && other_user);
	if (!user || !other || !other_user)
		return;
	CHECK(contains(got, "update file none\n"));
	CHECK(!contains(got, RECOVERED_NAME));
	switch (i) {
	case 1: /* B's first boot: A's config carried, nothing else; A's data all there */
		CHECK(strstr(user, "/etc/config 100644 user's config") < other);
		CHECK(!strstr(user, "/root/dropped") || strstr(user, "/root/dropped") > other);
		CHECK(!strstr(got, "/etc/sys ") || strstr(got, "/etc/sys ") > other);
		CHECK(contains(other_user, "/root/dropped 100644 dropped"));
		CHECK(contains(other, "/etc/sys 100644 system's own"));
		break;
	case 2: /* back on A: exactly A's data; B's kept */
		CHECK(strstr(user, "/root/dropped 100644 dropped") < other);
		CHECK(strstr(got, "/etc/sys 100644 system's own") < user);
		CHECK(contains(other_user, "/etc/config 100644 B's config"));
		break;
	case 3: /* B again: B's own */
		CHECK(strstr(user, "/etc/config 100644 B's config") < other);
		CHECK(contains(other_user, "/root/dropped 100644 dropped"));
		break;
	case 7: /* A's new firmware again, with what it wrote: not carried again */
		CHECK(strstr(user, "/etc/config 100644 A2's config") < other);
		CHECK(contains(other_user, "/etc/config 100644 B's config"));
		break;
	case 4: /* A's new firmware: everything of B's carried, A's old data gone */
		CHECK(strstr(user, "/etc/config 100644 B's config") < other);
		CHECK(!contains(got, "/root/dropped"));
		CHECK(contains(other_user, "/etc/config 100644 B's config"));
		break;
	default:
		break;
	}
}

static void slots_keep_their_data_across_updates_and_rollbacks(void)
{
	static char want[16384], got[16384];
	char why[160];
	unsigned steps, s, cuts = 0;
	for (size_t li = 0; li < ARRAY_SIZE(layouts); li++) {
		const struct layout *l = &layouts[li];
		for (size_t i = 1; i < ARRAY_SIZE(journey); i++) {
			if (journey_to(l, i) < 0) {
				unit_check_failures++;
				continue;
			}
			boot_slot = journey[i].slot;
			int r = run_child(l, "999999", &steps, why, sizeof(why));
			CHECK(r == 0);
			CHECK_STR(slot_data, journey[i].data);
			both_slots(l, want, sizeof(want));
			journey_outcome(i, want);
			for (unsigned n = 1; n <= steps; n++) {
				char cut[16];
				snprintf(cut, sizeof(cut), "%u", n);
				if (journey_to(l, i) < 0)
					break;
				boot_slot = journey[i].slot;
				if (run_child(l, cut, &s, why, sizeof(why)) != CUT_EXIT) {
					fprintf(stderr,
						"  slots on %s: no cut at step %u of boot %zu\n",
						l->name, n, i);
					unit_check_failures++;
					continue;
				}
				cuts++;
				r = run_child(l, "", &s, why, sizeof(why));
				both_slots(l, got, sizeof(got));
				if (r != 0 || strcmp(got, want) != 0) {
					fprintf(stderr,
						"  slots on %s, boot %zu cut at step %u of %u: the "
						"next "
						"boot %s (%s)\n--- whole run:\n%s--- after the "
						"cut:\n%s",
						l->name, i, n, steps, r ? "failed" : "differs", why,
						want, got);
					show_log();
					unit_check_failures++;
				}
			}
		}
	}
	printf("# %u cuts over the slots' boots\n", cuts);
	CHECK(cuts > 20);
}

/*
 * The new slot's first boot on a flash that cannot take what it carries: the
 * kept file fails to copy (a write past RLIMIT_FSIZE fails, as on a full
 * flash), and the boot goes on: the slot boots on its carried data without
 * that file, the record names it, no partial copy is left, and the old slot's
 * generation still holds the file whole for a rollback.
 */
static void a_carry_that_does_not_fit_is_named_and_loses_nothing(void)
{
	static char got[16384];
	static char big[65536];
	char why[160], path[160];
	unsigned steps;
	memset(big, 'c', sizeof(big) - 1);
	for (size_t li = 0; li < ARRAY_SIZE(layouts); li++) {
		const struct layout *l = &layouts[li];
		const char *base = l->separate ? "run/userdata" : "run/data";
		struct stat st;
		if (l->levels == 1) /* the kept /etc/config is the user layer's */
			continue;
		if (journey_to(l, 1) < 0) {
			unit_check_failures++;
			continue;
		}
		snprintf(path, sizeof(path), "%s/user.%u/upper/etc/config", base,
			 state_gen(false, LAYER_USER));
		put(path, big);
		boot_slot = "B";
		child_fsize = 16384;
		int r = run_child(l, "", &steps, why, sizeof(why));
		child_fsize = 0;
		both_slots(l, got, sizeof(got));
		const char *other = strstr(got, "[other system]\n");
		snprintf(path, sizeof(path), "%s/user.%u/upper/etc/config", base,
			 state_gen(true, LAYER_USER));
		bool ok = r == 0 && strcmp(slot_data, "carried from A") == 0 &&
			  contains(keep_failed, "/etc/config") && other &&
			  !(strstr(got, "/etc/config ") && strstr(got, "/etc/config ") < other) &&
			  contains(other, "/etc/config 100644 cccc") && stat(path, &st) == 0 &&
			  st.st_size == (off_t)sizeof(big) - 1;
		if (!ok) {
			fprintf(stderr,
				"  on %s: exit %d (%s), slot data '%s', keep_failed '%s'\n%s",
				l->name, r, why, slot_data, keep_failed, got);
			show_log();
			unit_check_failures++;
		}
	}
}

/*
 * Hostile content at every name the layer code reads or writes at the top of
 * the data filesystem, each kind of thing anything on the device could leave
 * there (the QEMU campaign, tests/scenarios/hostile.py, samples it on the real
 * flash filesystems): the boot ends (a FIFO never blocks it: each run is under
 * an alarm), the live uppers are as they were, and a reset asked over it is
 * applied.
 */
static const char *const hostile_names[] = {
    STATE_NAME,		  "strata.state.tmp",	REQUEST_NAME,  "strata.request.tmp",
    "strata.request.bad", UPDATE_NAME,		TRASH_NAME,    RECOVERED_NAME,
    STRATA_RESERVE_NAME,  "strata.reserve.tmp", "strata.caps", "strata.caps.tmp",
};
static const char *const hostile_kinds[] = {"a FIFO",	   "a symlink to a device",
					    "a directory", "an empty file",
					    "garbage",	   "an oversized file"};

static void plant(const char *name, size_t how)
{
	char path[128];
	snprintf(path, sizeof(path), "run/data/%s", name);
	if (nftw(path, remove_entry, 16, FTW_DEPTH | FTW_PHYS) < 0 && errno != ENOENT) {
		perror(path);
		exit(2);
	}
	static char big[70000];
	int fd = -1;
	switch (how) {
	case 0:
		CHECK(mkfifo(path, 0644) == 0);
		break;
	case 1:
		CHECK(symlink("/dev/zero", path) == 0);
		break;
	case 2: {
		char sub[160];
		snprintf(sub, sizeof(sub), "%s/d/f", path);
		put(sub, "x\n");
		break;
	}
	default:
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		CHECK(fd >= 0);
		if (how == 4)
			CHECK(write(fd, "\x01\xfe system x\n\xff\n", 14) == 14);
		if (how == 5) {
			for (size_t i = 0; i < sizeof(big); i++)
				big[i] = "system 1\n"[i % 9];
			CHECK(write(fd, big, sizeof(big)) == (ssize_t)sizeof(big));
		}
		close(fd);
		break;
	}
}

/* The live uppers of two live() outputs, whatever sits in strata.recovered beside them. */
static bool same_uppers(const char *a, const char *b)
{
	const char *x = strstr(a, "[system]\n"), *y = strstr(b, "[system]\n");
	if (!x || !y)
		return false;
	const char *xe = strstr(x, "generations set aside"),
		   *ye = strstr(y, "generations set aside");
	size_t n = xe ? (size_t)(xe - x) : strlen(x), m = ye ? (size_t)(ye - y) : strlen(y);
	return n == m && memcmp(x, y, n) == 0;
}

static void hostile_content_at_every_name_of_the_data_flash(void)
{
	static const struct kind none = {"none", REQ_NONE, {NULL}, {{0}}};
	static char before[16384], got[16384];
	char why[160];
	unsigned steps, runs = 0;
	for (size_t li = 0; li < ARRAY_SIZE(layouts); li++) {
		const struct layout *l = &layouts[li];
		for (size_t h = 0; h < ARRAY_SIZE(hostile_kinds); h++) {
			for (int reset = 0; reset < 2; reset++) {
				world(l, reset ? &kinds[1] : &none);
				live(l, before, sizeof(before));
				for (size_t i = 0; i < ARRAY_SIZE(hostile_names); i++)
					if (!reset || strcmp(hostile_names[i], REQUEST_NAME) != 0)
						plant(hostile_names[i], h);
				int r = run_child(l, "", &steps, why, sizeof(why));
				runs++;
				live(l, got, sizeof(got));
				bool ok = r == 0;
				if (reset) /* applied: the user layer and the system layer start
					      over */
					ok = ok && contains(got, ", applied 41, request none\n") &&
					     !contains(got, "/root/dropped") &&
					     !contains(got, "/etc/sys ");
				else /* nothing lost: the live uppers as they were */
					ok = ok && same_uppers(before, got);
				if (!ok) {
					fprintf(stderr,
						"  %s at every name on %s%s: exit %d (%s)\n--- "
						"before:\n%s--- after:\n%s",
						hostile_kinds[h], l->name,
						reset ? ", reset asked" : "", r, why, before, got);
					show_log();
					unit_check_failures++;
				}
			}
		}
	}
	printf("# %u boots over hostile content at %zu names\n", runs, ARRAY_SIZE(hostile_names));
}

static void every_request_survives_a_cut_at_every_step(void)
{
	unsigned cuts = 0;
	for (size_t i = 0; i < ARRAY_SIZE(layouts); i++)
		for (size_t j = 0; j < ARRAY_SIZE(kinds); j++)
			sweep(&layouts[i], &kinds[j], &cuts);
	printf("# %u cuts over %zu request kinds on %zu layouts\n", cuts, ARRAY_SIZE(kinds),
	       ARRAY_SIZE(layouts));
	CHECK(cuts > 50);
}

int main(void)
{
	snprintf(scratch, sizeof(scratch), "%s/strata-layers.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(scratch) || chdir(scratch) < 0 || mkdir("tree", 0755) < 0 ||
	    chdir("tree") < 0) {
		perror(scratch);
		return 2;
	}
	log_use_stderr();
	RUN(a_failed_revert_reaches_the_record);
	RUN(every_request_survives_a_cut_at_every_step);
	RUN(slots_keep_their_data_across_updates_and_rollbacks);
	RUN(a_carry_that_does_not_fit_is_named_and_loses_nothing);
	RUN(hostile_content_at_every_name_of_the_data_flash);
	if (chdir("/") < 0 || nftw(scratch, remove_entry, 16, FTW_DEPTH | FTW_PHYS) < 0)
		fprintf(stderr, "cannot remove %s: %m\n", scratch);
	return UNIT_EXIT();
}
