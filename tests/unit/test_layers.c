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
#include <stdarg.h>
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
static char revert_failed[400]; /* the last run's record of what a revert could not revert */

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
		/* the product's log (and a sanitizer's report) of the last run, shown on failure */
		int log = open("../child.log", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (log < 0 || dup2(log, 2) < 0)
			_exit(4);
		ctx_for(&ctx, l, cut);
		int r = layers_prepare(&ctx, false, "scratch", reason, sizeof(reason));
		char msg[1024];
		int n = snprintf(msg, sizeof(msg), "%u %s\n%s", ctx.powercut_steps, reason,
				 ctx.rec.revert_failed);
		if (write(fds[1], msg, (size_t)n) != n)
			_exit(3);
		_exit(r == 0 ? 0 : 1);
	}
	close(fds[1]);
	char msg[1024] = "";
	ssize_t n = read(fds[0], msg, sizeof(msg) - 1);
	close(fds[0]);
	int status;
	waitpid(pid, &status, 0);
	msg[n > 0 ? n : 0] = '\0';
	unsigned s = 0;
	int used = 0;
	char *nl = strchr(msg, '\n');
	snprintf(revert_failed, sizeof(revert_failed), "%s", nl ? nl + 1 : "");
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
	if (chdir("/") < 0 || nftw(scratch, remove_entry, 16, FTW_DEPTH | FTW_PHYS) < 0)
		fprintf(stderr, "cannot remove %s: %m\n", scratch);
	return UNIT_EXIT();
}
