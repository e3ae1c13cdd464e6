// SPDX-License-Identifier: GPL-2.0-only
/*
 * The object store walk on a real tree (as root): only regular files are
 * opened, every other entry is a stray (counted, named, left alone), and the
 * stamp goes through safefs.
 */
#define UNIT_NAME "store"
#include "unit.h"
#include "../../init/lib/safefs.h"
#include "../../init/lib/store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static char root[] = "/tmp/strata-store.XXXXXX";
static char data[PATH_MAX];    /* the data directory of one test */
static char outside[PATH_MAX]; /* a file beside it that nothing may touch */
static const char *test_name = "";

static void on_alarm(int sig)
{
	static const char msg[] = "FAIL unit/" UNIT_NAME "/";
	static const char hung[] = ": hung (alarm after 5 s)\n";
	(void)sig;
	(void)!write(1, msg, sizeof(msg) - 1);
	(void)!write(1, test_name, strlen(test_name));
	(void)!write(1, hung, sizeof(hung) - 1);
	_exit(1);
}

static void put(int dir, const char *rel, const char *text)
{
	int fd = openat(dir, rel, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
}

static bool holds(int dir, const char *rel, const char *text)
{
	char buf[128];
	struct stat st;
	if (fstatat(dir, rel, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
		return false;
	int fd = openat(dir, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return strcmp(buf, text) == 0;
}

/* A fresh data directory with objects/ and an "outside" file holding "k1" beside it. */
static int fresh(const char *name)
{
	snprintf(data, sizeof(data), "%s/%s", root, name);
	snprintf(outside, sizeof(outside), "%s/%s.outside", root, name);
	CHECK(mkdir(data, 0755) == 0);
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	char rel[PATH_MAX];
	snprintf(rel, sizeof(rel), "%s.outside", name);
	put(fd, rel, "k1");
	close(fd);
	fd = open(data, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(fd >= 0 && mkdirat(fd, "objects", 0755) == 0);
	return fd;
}

static void strays_are_counted_and_left_alone(void)
{
	test_name = __func__;
	int d = fresh("strays");
	struct store_stats st;
	char failed[64], stray[64], buf[16];
	CHECK(mkdirat(d, "objects/ab", 0755) == 0);
	put(d, "objects/ab/cdef", "object");
	CHECK(symlinkat(outside, d, "objects/ab/link") == 0);
	CHECK(mkfifoat(d, "objects/ab/lonely", 0600) == 0); /* no writer: an open would block */
	CHECK(mkfifoat(d, "objects/ab/queued", 0600) == 0);
	CHECK(mkdirat(d, "objects/ab/sub", 0755) == 0);
	put(d, "objects/ab/sub/deep", "not an object");
	put(d, "objects/zz", "not a fan-out directory");
	CHECK(symlinkat(root, d, "objects/yy") == 0);
	CHECK(mkfifoat(d, "objects/ff", 0600) == 0);
	unsigned strays = 7;
	if (mknodat(d, "objects/ab/null", S_IFCHR | 0666, makedev(1, 3)) == 0)
		strays++;
	else
		printf("SKIP unit/%s/%s device node: %s\n", UNIT_NAME, test_name, strerror(errno));
	int w = openat(d, "objects/ab/queued", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	CHECK(w >= 0 && write(w, "queued", 6) == 6);
	alarm(5);
	int r = store_enable_verity(data, "objects", "strata.verity", "k1", &st, failed,
				    sizeof(failed), stray, sizeof(stray));
	alarm(0);
	/* the host's filesystem may lack fs-verity: then the one object failed */
	CHECK(st.objects == 1 && st.enabled + st.failed == 1);
	CHECK(st.failed ? r == -EIO && strcmp(failed, "ab/cdef") == 0 : r == 0);
	if (st.stray != strays)
		fprintf(stderr, "  %u strays, want %u (first '%s')\n", st.stray, strays, stray);
	CHECK(st.stray == strays && !st.skipped);
	/* the first stray is named with its kind: a non-file among objects, a non-directory above
	 */
	char rel[128];
	struct stat sb;
	snprintf(rel, sizeof(rel), "objects/%s", stray);
	CHECK(stray[0] && fstatat(d, rel, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
	      (sb.st_mode & S_IFMT) == st.stray_kind);
	CHECK(strchr(stray, '/') ? !S_ISREG(sb.st_mode) : !S_ISDIR(sb.st_mode));
	CHECK(w >= 0 && read(w, buf, sizeof(buf)) == 6); /* nothing drained from the FIFO */
	if (w >= 0)
		close(w);
	CHECK(holds(d, "objects/ab/sub/deep", "not an object"));
	CHECK(st.failed || holds(d, "strata.verity", "k1"));
	close(d);
}

static void the_store_is_not_followed(void)
{
	test_name = __func__;
	int d = fresh("store-link");
	struct store_stats st;
	char failed[64], stray[64];
	CHECK(unlinkat(d, "objects", AT_REMOVEDIR) == 0);
	CHECK(symlinkat(root, d, "objects") == 0);
	int r = store_enable_verity(data, "objects", "strata.verity", NULL, &st, failed,
				    sizeof(failed), stray, sizeof(stray));
	CHECK(r == -ELOOP && st.found == S_IFLNK);
	CHECK_STR(failed, "objects");
	CHECK(unlinkat(d, "objects", 0) == 0);
	put(d, "objects", "a file");
	r = store_enable_verity(data, "objects", "strata.verity", NULL, &st, failed, sizeof(failed),
				stray, sizeof(stray));
	CHECK(r == -EFTYPE && st.found == S_IFREG);
	CHECK(unlinkat(d, "objects", 0) == 0);
	r = store_enable_verity(data, "objects", "strata.verity", NULL, &st, failed, sizeof(failed),
				stray, sizeof(stray));
	CHECK(r == -ENOENT);
	close(d);
}

static void stamps_skip_and_junk_is_replaced(void)
{
	test_name = __func__;
	int d = fresh("stamp");
	struct store_stats st;
	char failed[64], stray[64];
	CHECK(mkdirat(d, "objects/ab", 0755) == 0); /* no objects: every walk succeeds */
	CHECK(store_enable_verity(data, "objects", "strata.verity", NULL, &st, failed,
				  sizeof(failed), stray, sizeof(stray)) == 0);
	CHECK(!st.skipped && faccessat(d, "strata.verity", F_OK, AT_SYMLINK_NOFOLLOW) < 0);
	CHECK(store_enable_verity(data, "objects", "strata.verity", "k1", &st, failed,
				  sizeof(failed), stray, sizeof(stray)) == 0);
	CHECK(!st.skipped && holds(d, "strata.verity", "k1"));
	CHECK(store_enable_verity(data, "objects", "strata.verity", "k1", &st, failed,
				  sizeof(failed), stray, sizeof(stray)) == 0);
	CHECK(st.skipped);
	CHECK(store_enable_verity(data, "objects", "strata.verity", "k2", &st, failed,
				  sizeof(failed), stray, sizeof(stray)) == 0);
	CHECK(!st.skipped && holds(d, "strata.verity", "k2"));
	/* a stamp that holds the key but is no regular file is no stamp */
	static const char *const junk[] = {"symlink", "fifo", "dir"};
	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		CHECK(unlinkat(d, "strata.verity", 0) == 0);
		if (i == 0)
			CHECK(symlinkat(outside, d, "strata.verity") == 0); /* holds "k1" */
		else if (i == 1)
			CHECK(mkfifoat(d, "strata.verity", 0600) == 0);
		else
			CHECK(mkdirat(d, "strata.verity", 0755) == 0 &&
			      mkdirat(d, "strata.verity/k1", 0755) == 0);
		alarm(5);
		int r = store_enable_verity(data, "objects", "strata.verity", "k1", &st, failed,
					    sizeof(failed), stray, sizeof(stray));
		alarm(0);
		if (r != 0 || st.skipped || !holds(d, "strata.verity", "k1"))
			fprintf(stderr, "  stamp a %s: %d, skipped %d\n", junk[i], r, st.skipped);
		CHECK(r == 0 && !st.skipped && holds(d, "strata.verity", "k1"));
	}
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(holds(fd, "stamp.outside", "k1"));
	close(fd);
	close(d);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGALRM, on_alarm);
	umask(022);
	if (!mkdtemp(root)) {
		printf("FAIL unit/%s: mkdtemp: %s\n", UNIT_NAME, strerror(errno));
		return 1;
	}
	RUN(strays_are_counted_and_left_alone);
	RUN(the_store_is_not_followed);
	RUN(stamps_skip_and_junk_is_replaced);
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	if (system(cmd) != 0)
		fprintf(stderr, "  cannot remove %s\n", root);
	return UNIT_EXIT();
}
