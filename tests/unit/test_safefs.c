// SPDX-License-Identifier: GPL-2.0-only
/*
 * safefs on a real tree (as root, in a private mount namespace): every hostile
 * entry is refused without being followed or opened, with openat2 and with the
 * O_NOFOLLOW walk of kernels that lack it; paths of the root (safe_read_path)
 * the same way, across mount points.
 */
#define _GNU_SOURCE /* unshare, nftw */
#define UNIT_NAME "safefs"
#include "unit.h"
#include "../../init/lib/safefs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>

#define SECRET "secret\n"

static char root[] = "/tmp/strata-safefs.XXXXXX";
static char dir[PATH_MAX];     /* this test's base */
static char outside[PATH_MAX]; /* beside the base: "secret" and an empty "dir" */
static const char *test_name = "";
static bool walking;
static bool can_mount;

/* A hang (a FIFO opened for reading) fails the test instead of the whole run. */
static void on_alarm(int sig)
{
	static const char msg[] = "FAIL unit/" UNIT_NAME "/";
	(void)sig;
	(void)!write(1, msg, sizeof(msg) - 1);
	static const char hung[] = ": hung (alarm after 5 s)\n";
	(void)!write(1, test_name, strlen(test_name));
	(void)!write(1, walking ? "_walk" : "_openat2", walking ? 5 : 8);
	(void)!write(1, hung, sizeof(hung) - 1);
	_exit(1);
}

static void skip(const char *what, const char *why)
{
	printf("SKIP unit/%s/%s_%s %s: %s\n", UNIT_NAME, test_name, walking ? "walk" : "openat2",
	       what, why);
}

/* "dir/rel", from a small ring so that a check can name several. */
static const char *at(const char *base, const char *rel)
{
	static char ring[4][PATH_MAX];
	static unsigned next;
	char *p = ring[next++ % 4];
	snprintf(p, PATH_MAX, "%s/%s", base, rel);
	return p;
}

static void put(int base, const char *rel, const char *text)
{
	int fd = openat(base, rel, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
}

/* The kind at rel without following it, 0 when absent. */
static mode_t kind_at(int base, const char *rel)
{
	struct stat st;
	return fstatat(base, rel, &st, AT_SYMLINK_NOFOLLOW) < 0 ? 0 : st.st_mode & S_IFMT;
}

/* rel is a regular file holding exactly text. */
static bool holds(int base, const char *rel, const char *text)
{
	char buf[256];
	if (kind_at(base, rel) != S_IFREG)
		return false;
	int fd = openat(base, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return strcmp(buf, text) == 0;
}

static int entries(const char *path)
{
	DIR *d = opendir(path);
	int n = 0;
	if (!d)
		return -1;
	for (struct dirent *de; (de = readdir(d));)
		n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
	closedir(d);
	return n;
}

/* Nothing outside the base was written, created or removed. */
static bool outside_untouched(void)
{
	int fd = open(outside, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bool ok = fd >= 0 && holds(fd, "secret", SECRET) && entries(outside) == 2 &&
		  entries(at(outside, "dir")) == 0;
	if (fd >= 0)
		close(fd);
	return ok;
}

static int open_fds(void)
{
	return entries("/proc/self/fd");
}

/* A fresh base for this test and mode, and the untouchable tree beside it. */
static int fresh(void)
{
	static unsigned seq;
	snprintf(dir, sizeof(dir), "%s/%s-%s-%u", root, test_name, walking ? "walk" : "openat2",
		 seq++);
	snprintf(outside, sizeof(outside), "%s.outside", dir);
	CHECK(mkdir(dir, 0755) == 0);
	CHECK(mkdir(outside, 0755) == 0);
	CHECK(mkdir(at(outside, "dir"), 0755) == 0);
	int fd = open(outside, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(fd >= 0);
	put(fd, "secret", SECRET);
	close(fd);
	int base = safe_base(dir);
	CHECK(base >= 0);
	return base;
}

static bool mount_tmpfs(const char *target)
{
	if (!can_mount) {
		skip("mount", "no private mount namespace (not root?)");
		return false;
	}
	if (mount("strata-test", target, "tmpfs", 0, "size=1m") == 0)
		return true;
	if (errno != EPERM)
		CHECK(!"mount tmpfs");
	skip("mount", strerror(errno));
	return false;
}

static bool make_device(int base, const char *rel)
{
	if (mknodat(base, rel, S_IFCHR | 0666, makedev(1, 3)) == 0)
		return true;
	CHECK(errno == EPERM);
	skip("mknod", strerror(errno));
	return false;
}

static bool make_socket(int base, const char *rel)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool ok = s >= 0 &&
		  (size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", at(dir, rel)) <
		      sizeof(sa.sun_path) &&
		  bind(s, (struct sockaddr *)&sa, sizeof(sa)) == 0;
	if (s >= 0)
		close(s);
	if (!ok)
		skip("socket", "cannot bind a socket under the test directory");
	return ok && kind_at(base, rel) == S_IFSOCK;
}

static void kinds_are_reported(void)
{
	int base = fresh();
	mode_t found = 1;
	put(base, "file", "x");
	CHECK(mkdirat(base, "dir", 0755) == 0);
	CHECK(symlinkat("file", base, "link") == 0);
	CHECK(symlinkat(outside, base, "out") == 0);
	CHECK(mkfifoat(base, "fifo", 0600) == 0);
	static const struct {
		const char *rel;
		mode_t kind;
	} cases[] = {{"file", S_IFREG},	  {"dir", S_IFDIR},   {"link", S_IFLNK},
		     {"out", S_IFLNK},	  {"fifo", S_IFIFO},  {"dir/", S_IFDIR},
		     {"./file", S_IFREG}, {"dir//.", S_IFDIR}};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int r = safe_kind(base, cases[i].rel, &found);
		if (r != 0 || found != cases[i].kind)
			fprintf(stderr, "  safe_kind '%s': %d (%s), found %s\n", cases[i].rel, r,
				strerror(-r), safe_kind_name(found));
		CHECK(r == 0 && found == cases[i].kind);
	}
	if (make_device(base, "null"))
		CHECK(safe_kind(base, "null", &found) == 0 && found == S_IFCHR);
	if (make_socket(base, "sock"))
		CHECK(safe_kind(base, "sock", &found) == 0 && found == S_IFSOCK);
	CHECK(safe_kind(base, "absent", &found) == -ENOENT && found == 0);
	CHECK(safe_kind(base, "absent/deeper", &found) == -ENOENT && found == 0);
	CHECK(safe_kind(base, "out/secret", &found) == -ELOOP && found == S_IFLNK);
	CHECK(safe_kind(base, "file/x", &found) == -ENOTDIR);
	CHECK(safe_kind(base, outside, &found) == -EINVAL);
	CHECK(safe_kind(base, "..", &found) == -EINVAL);
	CHECK(safe_kind(base, "", &found) == -EINVAL);

	CHECK(safe_base(at(dir, "file")) == -ENOTDIR);
	CHECK(safe_base(at(dir, "absent")) == -ENOENT);
	int fd = safe_base(dir);
	CHECK(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC));
	close(fd);
	close(base);
}

/* A FIFO is looked at, never opened: nothing blocks and nothing is drained from it. */
static void fifos_are_never_opened(void)
{
	int base = fresh();
	char buf[64];
	mode_t found = 0;
	CHECK(mkfifoat(base, "queued", 0600) == 0);
	CHECK(mkfifoat(base, "lonely", 0600) == 0); /* no writer: a blocking open hangs */
	int w = openat(base, "queued", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	CHECK(w >= 0 && write(w, "queued", 6) == 6);
	alarm(5);
	CHECK(safe_read_file(base, "lonely", buf, sizeof(buf), &found) == -EFTYPE &&
	      found == S_IFIFO);
	found = 0;
	CHECK(safe_read_file(base, "queued", buf, sizeof(buf), &found) == -EFTYPE &&
	      found == S_IFIFO);
	found = 0;
	CHECK(safe_open_file(base, "lonely", O_RDONLY, &found) == -EFTYPE && found == S_IFIFO);
	found = 0;
	CHECK(safe_open_file(base, "lonely", O_WRONLY, &found) == -EFTYPE && found == S_IFIFO);
	found = 0;
	CHECK(safe_open_file(base, "lonely", O_RDWR, &found) == -EFTYPE && found == S_IFIFO);
	found = 0;
	CHECK(safe_open_dir(base, "lonely", &found) == -EFTYPE && found == S_IFIFO);
	found = 0;
	CHECK(safe_kind(base, "lonely", &found) == 0 && found == S_IFIFO);
	found = 0;
	CHECK(safe_mkdirs(base, "lonely/sub", 0755, &found) == -EFTYPE && found == S_IFIFO);
	alarm(0);
	CHECK(w >= 0 && read(w, buf, sizeof(buf)) == 6 && memcmp(buf, "queued", 6) == 0);
	if (w >= 0)
		close(w);
	close(base);
}

static void symlinks_are_never_followed(void)
{
	int base = fresh();
	char buf[64];
	mode_t found = 0;
	put(base, "file", "inside\n");
	CHECK(mkdirat(base, "real", 0755) == 0);
	put(base, "real/f", "inside\n");
	CHECK(symlinkat("/dev/zero", base, "zero") == 0);
	CHECK(symlinkat(at(outside, "secret"), base, "escape") == 0);
	CHECK(symlinkat("../", base, "up") == 0);
	CHECK(symlinkat(outside, base, "outdir") == 0);
	CHECK(symlinkat("real", base, "inlink") == 0); /* even one that stays beneath */
	CHECK(symlinkat("file", base, "filelink") == 0);
	alarm(5);
	static const char *const files[] = {"zero", "escape", "filelink"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		found = 0;
		CHECK(safe_read_file(base, files[i], buf, sizeof(buf), &found) == -ELOOP &&
		      found == S_IFLNK);
		found = 0;
		CHECK(safe_open_file(base, files[i], O_WRONLY | O_TRUNC, &found) == -ELOOP &&
		      found == S_IFLNK);
		found = 0;
		CHECK(safe_open_dir(base, files[i], &found) == -ELOOP && found == S_IFLNK);
	}
	static const char *const through[] = {"outdir/secret", "up/", "inlink/f", "outdir/dir",
					      "up/x/y"};
	for (size_t i = 0; i < sizeof(through) / sizeof(through[0]); i++) {
		int r = safe_read_file(base, through[i], buf, sizeof(buf), &found);
		if (r != -ELOOP)
			fprintf(stderr, "  safe_read_file '%s': %d\n", through[i], r);
		CHECK(r == -ELOOP);
		CHECK(safe_open_dir(base, through[i], &found) == -ELOOP);
		CHECK(safe_kind(base, through[i], &found) == -ELOOP);
	}
	alarm(0);
	CHECK(safe_open_dir(base, "outdir", &found) == -ELOOP && found == S_IFLNK);
	CHECK(safe_open_dir(base, "inlink", &found) == -ELOOP && found == S_IFLNK);
	CHECK(outside_untouched());
	close(base);
}

static void wrong_kinds_are_refused(void)
{
	int base = fresh();
	char buf[64];
	mode_t found = 0;
	put(base, "file", "x");
	CHECK(mkdirat(base, "dir", 0755) == 0);
	put(base, "dir/inner", "x");
	CHECK(safe_read_file(base, "dir", buf, sizeof(buf), &found) == -EFTYPE && found == S_IFDIR);
	found = 0;
	CHECK(safe_open_file(base, "dir", O_RDONLY, &found) == -EFTYPE && found == S_IFDIR);
	found = 0;
	CHECK(safe_open_dir(base, "file", &found) == -EFTYPE && found == S_IFREG);
	found = 0;
	CHECK(safe_mkdirs(base, "file", 0755, &found) == -EFTYPE && found == S_IFREG);
	found = 0;
	CHECK(safe_mkdirs(base, "file/sub", 0755, &found) == -EFTYPE && found == S_IFREG);
	CHECK(safe_read_file(base, "file/x", buf, sizeof(buf), &found) == -ENOTDIR);
	CHECK(safe_open_dir(base, "file/x", &found) == -ENOTDIR);
	CHECK(holds(base, "file", "x"));
	alarm(5);
	if (make_device(base, "null")) {
		found = 0;
		CHECK(safe_read_file(base, "null", buf, sizeof(buf), &found) == -EFTYPE &&
		      found == S_IFCHR);
		found = 0;
		CHECK(safe_open_file(base, "null", O_WRONLY, &found) == -EFTYPE &&
		      found == S_IFCHR);
		found = 0;
		CHECK(safe_open_dir(base, "null", &found) == -EFTYPE && found == S_IFCHR);
	}
	if (make_socket(base, "sock")) {
		found = 0;
		CHECK(safe_read_file(base, "sock", buf, sizeof(buf), &found) == -EFTYPE &&
		      found == S_IFSOCK);
		found = 0;
		CHECK(safe_open_file(base, "sock", O_RDWR, &found) == -EFTYPE && found == S_IFSOCK);
	}
	alarm(0);
	close(base);
}

static void opened_entries_are_usable(void)
{
	int base = fresh();
	mode_t found = 1;
	put(base, "file", "abc");
	CHECK(mkdirat(base, "dir", 0755) == 0);
	put(base, "dir/inner", "x");
	int fd = safe_open_file(base, "file", O_RDWR, &found);
	CHECK(fd >= 0 && found == S_IFREG);
	if (fd >= 0) {
		CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
		CHECK(pwrite(fd, "Z", 1, 1) == 1);
		close(fd);
	}
	CHECK(holds(base, "file", "aZc"));
	fd = safe_open_file(base, "file", O_RDONLY, &found);
	CHECK(fd >= 0 && write(fd, "x", 1) < 0); /* read-only as asked */
	if (fd >= 0)
		close(fd);
	/* a directory fd that reads, also through "." components */
	static const char *const dirs[] = {"dir", "dir/", "./dir", "dir/.", "."};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		found = 0;
		fd = safe_open_dir(base, dirs[i], &found);
		DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
		int n = 0;
		for (struct dirent *de; d && (de = readdir(d));)
			n += de->d_name[0] != '.';
		if (!d || n == 0)
			fprintf(stderr, "  safe_open_dir '%s': fd %d, %d entries read (%s)\n",
				dirs[i], fd, n, strerror(errno));
		CHECK(d && n > 0 && found == S_IFDIR);
		if (d)
			closedir(d);
		else if (fd >= 0)
			close(fd);
	}
	close(base);
}

static void reads_are_bounded(void)
{
	int base = fresh();
	char buf[16];
	mode_t found = 0;
	put(base, "fits", "0123456789abcde");  /* len - 1 */
	put(base, "full", "0123456789abcdef"); /* len */
	put(base, "huge", "0123456789abcdef0123456789abcdef0123456789");
	put(base, "empty", "");
	memset(buf, 'x', sizeof(buf));
	CHECK(safe_read_file(base, "fits", buf, sizeof(buf), &found) == 15 && found == S_IFREG);
	CHECK(buf[15] == '\0');
	CHECK_STR(buf, "0123456789abcde");
	CHECK(safe_read_file(base, "full", buf, sizeof(buf), &found) == -EFBIG);
	CHECK(safe_read_file(base, "huge", buf, sizeof(buf), &found) == -EFBIG);
	memset(buf, 'x', sizeof(buf));
	CHECK(safe_read_file(base, "empty", buf, sizeof(buf), &found) == 0 && found == S_IFREG);
	CHECK_STR(buf, "");
	CHECK(safe_read_file(base, "empty", buf, 1, &found) == 0 && buf[0] == '\0');
	CHECK(safe_read_file(base, "fits", buf, 1, &found) == -EFBIG);
	CHECK(safe_read_file(base, "absent", buf, sizeof(buf), &found) == -ENOENT);
	close(base);
}

static void paths_are_confined(void)
{
	int base = fresh();
	char buf[64];
	mode_t found = 0;
	put(base, "file", "x");
	CHECK(mkdirat(base, "dir", 0755) == 0);
	char abs_file[PATH_MAX];
	snprintf(abs_file, sizeof(abs_file), "%s", at(dir, "file"));
	static const char *const bad[] = {"..", "../x", "dir/..", "dir/../file", "dir/../../x", ""};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]) + 1; i++) {
		const char *rel = i < sizeof(bad) / sizeof(bad[0]) ? bad[i] : abs_file;
		CHECK(safe_kind(base, rel, &found) == -EINVAL);
		CHECK(safe_open_dir(base, rel, &found) == -EINVAL);
		CHECK(safe_open_file(base, rel, O_RDONLY, &found) == -EINVAL);
		CHECK(safe_read_file(base, rel, buf, sizeof(buf), &found) == -EINVAL);
		CHECK(safe_write_file(base, rel, "y", 1, false) == -EINVAL);
		CHECK(safe_mkdirs(base, rel, 0755, &found) == -EINVAL);
		CHECK(safe_remove(base, rel) == -EINVAL);
	}
	CHECK(safe_write_file(base, at(outside, "new"), "y", 1, false) == -EINVAL);
	CHECK(safe_remove(base, at(outside, "secret")) == -EINVAL);
	CHECK(safe_mkdirs(base, at(outside, "dir/new"), 0755, &found) == -EINVAL);
	CHECK(holds(base, "file", "x") && outside_untouched());
	/* names that merely look like ".." are names */
	put(base, "...", "dots");
	CHECK(safe_read_file(base, "...", buf, sizeof(buf), &found) == 4);
	CHECK(safe_read_file(base, "./dir/../file", buf, sizeof(buf), &found) == -EINVAL);
	close(base);
}

static void other_filesystems_are_not_entered(void)
{
	int base = fresh();
	char buf[64];
	mode_t found = 0;
	CHECK(mkdirat(base, "mnt", 0755) == 0);
	CHECK(mkdirat(base, "tree", 0755) == 0);
	CHECK(mkdirat(base, "tree/m", 0755) == 0);
	CHECK(mkdirat(base, "name.tmp", 0755) == 0);
	if (!mount_tmpfs(at(dir, "mnt"))) {
		close(base);
		return;
	}
	CHECK(mount_tmpfs(at(dir, "tree/m")) && mount_tmpfs(at(dir, "name.tmp")));
	put(base, "mnt/f", "other fs\n");
	CHECK(mkdirat(base, "mnt/d", 0755) == 0);
	put(base, "tree/m/f", "other fs\n");
	put(base, "name.tmp/f", "other fs\n");
	int r = safe_read_file(base, "mnt/f", buf, sizeof(buf), &found);
	if (r != -EXDEV)
		fprintf(stderr, "  safe_read_file 'mnt/f': %d (%s)\n", r, strerror(-r));
	CHECK(r == -EXDEV);
	CHECK(safe_open_file(base, "mnt/f", O_RDONLY, &found) == -EXDEV);
	CHECK(safe_open_dir(base, "mnt", &found) == -EXDEV);
	CHECK(safe_open_dir(base, "mnt/d", &found) == -EXDEV);
	CHECK(safe_kind(base, "mnt/f", &found) == -EXDEV);
	CHECK(safe_mkdirs(base, "mnt/new", 0755, &found) == -EXDEV);
	CHECK(kind_at(base, "mnt/new") == 0);
	CHECK(safe_write_file(base, "mnt/f", "junk", 4, false) == -EXDEV);
	CHECK(safe_write_file(base, "mnt/d/g", "junk", 4, false) == -EXDEV);
	CHECK(safe_remove(base, "mnt/f") == -EXDEV);
	CHECK(holds(base, "mnt/f", "other fs\n"));
	/* a mount at the name itself or inside a tree: its files are not removed */
	r = safe_remove(base, "mnt");
	if (!holds(base, "mnt/f", "other fs\n"))
		fprintf(stderr, "  safe_remove 'mnt' (a mount point; returned %d) emptied it\n", r);
	CHECK(r < 0 && holds(base, "mnt/f", "other fs\n") && kind_at(base, "mnt/d") == S_IFDIR);
	r = safe_remove(base, "tree");
	CHECK(r < 0 && holds(base, "tree/m/f", "other fs\n"));
	r = safe_write_file(base, "name", "data", 4, false);
	if (!holds(base, "name.tmp/f", "other fs\n"))
		fprintf(stderr,
			"  safe_write_file 'name' (name.tmp a mount point; returned %d) "
			"emptied it\n",
			r);
	CHECK(holds(base, "name.tmp/f", "other fs\n"));
	CHECK(umount2(at(dir, "mnt"), MNT_DETACH) == 0);
	CHECK(umount2(at(dir, "tree/m"), MNT_DETACH) == 0);
	CHECK(umount2(at(dir, "name.tmp"), MNT_DETACH) == 0);

	/*
	 * A bind mount of the same filesystem: openat2's RESOLVE_NO_XDEV sees
	 * the mount; the walk compares st_dev, which the bind mount shares, so
	 * it is not asked of the walk.
	 */
	CHECK(mkdirat(base, "bound", 0755) == 0);
	CHECK(mkdirat(base, "real", 0755) == 0);
	put(base, "real/f", "x");
	if (!walking && mount(at(dir, "real"), at(dir, "bound"), NULL, MS_BIND, NULL) == 0) {
		CHECK(safe_read_file(base, "bound/f", buf, sizeof(buf), &found) == -EXDEV);
		CHECK(safe_open_dir(base, "bound", &found) == -EXDEV);
		CHECK(umount2(at(dir, "bound"), MNT_DETACH) == 0);
	}
	close(base);
}

static void writes_replace_junk(void)
{
	for (int durable = 0; durable <= 1; durable++) {
		int base = fresh();
		mode_t found = 0;
		/* rel.tmp: a tree with ways out inside, a FIFO, a link out; rel: a tree, a link */
		CHECK(mkdirat(base, "a.tmp", 0755) == 0);
		CHECK(mkdirat(base, "a.tmp/sub", 0755) == 0);
		put(base, "a.tmp/sub/f", "junk");
		CHECK(symlinkat(outside, base, "a.tmp/sub/out") == 0);
		CHECK(symlinkat(at(outside, "secret"), base, "a.tmp/secret") == 0);
		CHECK(mkfifoat(base, "b.tmp", 0600) == 0);
		CHECK(symlinkat(at(outside, "secret"), base, "c.tmp") == 0);
		CHECK(mkdirat(base, "d", 0755) == 0);
		CHECK(mkdirat(base, "d/sub", 0755) == 0);
		put(base, "d/sub/f", "junk");
		CHECK(symlinkat(outside, base, "d/out") == 0);
		CHECK(symlinkat(at(outside, "secret"), base, "e") == 0);
		CHECK(mkdirat(base, "dir", 0755) == 0);
		CHECK(symlinkat(outside, base, "link") == 0);
		put(base, "old", "old contents that are longer");
		alarm(5);
		static const char *const names[] = {"a", "b", "c", "d", "e", "dir/f", "old", "new"};
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			int r = safe_write_file(base, names[i], "data\n", 5, durable);
			char tmp[32];
			snprintf(tmp, sizeof(tmp), "%s.tmp", names[i]);
			if (r != 0 || !holds(base, names[i], "data\n") || kind_at(base, tmp) != 0)
				fprintf(stderr, "  safe_write_file '%s' (durable %d): %d (%s)\n",
					names[i], durable, r, strerror(-r));
			CHECK(r == 0 && holds(base, names[i], "data\n") && kind_at(base, tmp) == 0);
		}
		alarm(0);
		CHECK(safe_write_file(base, "empty", "", 0, durable) == 0 &&
		      holds(base, "empty", ""));
		CHECK(safe_write_file(base, "link/new", "x", 1, durable) == -ELOOP);
		CHECK(safe_write_file(base, "link/secret", "x", 1, durable) == -ELOOP);
		CHECK(safe_write_file(base, "absent/new", "x", 1, durable) == -ENOENT);
		CHECK(safe_write_file(base, "old/new", "x", 1, durable) == -EFTYPE);
		CHECK(safe_write_file(base, "dir/", "x", 1, durable) == -EINVAL);
		CHECK(outside_untouched());
		char buf[16];
		CHECK(safe_read_file(base, "d", buf, sizeof(buf), &found) == 5);
		CHECK_STR(buf, "data\n");
		close(base);
	}
}

static void mkdirs_create_and_refuse(void)
{
	int base = fresh();
	mode_t found = 0;
	CHECK(mkdirat(base, "a", 0755) == 0);
	CHECK(symlinkat(outside, base, "a/link") == 0);
	CHECK(symlinkat(at(outside, "dir"), base, "dirlink") == 0);
	CHECK(safe_mkdirs(base, "a", 0755, &found) == 0);
	CHECK(safe_mkdirs(base, "a/b/c", 0755, &found) == 0 && kind_at(base, "a/b/c") == S_IFDIR);
	CHECK(safe_mkdirs(base, "a/b/c", 0755, &found) == 0);
	CHECK(safe_mkdirs(base, "./a//b/c/d/", 0700, &found) == 0 &&
	      kind_at(base, "a/b/c/d") == S_IFDIR);
	struct stat st;
	CHECK(fstatat(base, "a/b/c/d", &st, 0) == 0 && (st.st_mode & 0777) == 0700);
	found = 0;
	CHECK(safe_mkdirs(base, "a/link/x", 0755, &found) == -ELOOP && found == S_IFLNK);
	found = 0;
	CHECK(safe_mkdirs(base, "a/link", 0755, &found) == -ELOOP && found == S_IFLNK);
	found = 0;
	CHECK(safe_mkdirs(base, "dirlink/x/y", 0755, &found) == -ELOOP && found == S_IFLNK);
	CHECK(kind_at(base, "a/link") == S_IFLNK && outside_untouched());
	close(base);
}

static void removal_stays_beneath(void)
{
	int base = fresh();
	put(base, "file", "x");
	CHECK(mkdirat(base, "tree", 0755) == 0);
	CHECK(mkdirat(base, "tree/a", 0755) == 0);
	CHECK(mkdirat(base, "tree/a/b", 0700) == 0);
	put(base, "tree/a/b/f", "x");
	put(base, "tree/g", "x");
	CHECK(symlinkat(outside, base, "tree/out") == 0);
	CHECK(symlinkat(outside, base, "tree/a/b/out") == 0);
	CHECK(symlinkat(at(outside, "secret"), base, "tree/a/secret") == 0);
	CHECK(mkfifoat(base, "tree/a/fifo", 0600) == 0);
	CHECK(mkfifoat(base, "fifo", 0600) == 0);
	CHECK(symlinkat(outside, base, "link") == 0);
	alarm(5);
	CHECK(safe_remove(base, "file") == 0 && kind_at(base, "file") == 0);
	CHECK(safe_remove(base, "tree") == 0 && kind_at(base, "tree") == 0);
	CHECK(safe_remove(base, "fifo") == 0 && kind_at(base, "fifo") == 0);
	alarm(0);
	CHECK(safe_remove(base, "link/secret") == -ELOOP);
	CHECK(safe_remove(base, "link/dir") == -ELOOP);
	CHECK(safe_remove(base, "link") == 0 && kind_at(base, "link") == 0);
	CHECK(safe_remove(base, "absent") == 0);
	CHECK(safe_remove(base, "absent/deeper") == 0);
	CHECK(outside_untouched());
	CHECK(entries(dir) == 0);
	close(base);
}

static void errors_are_named(void)
{
	char buf[128];
	CHECK_STR(safe_kind_name(S_IFIFO), "a FIFO");
	CHECK_STR(safe_kind_name(S_IFLNK), "a symbolic link");
	CHECK_STR(safe_kind_name(S_IFDIR), "a directory");
	CHECK_STR(safe_kind_name(S_IFIFO | 0644), "a FIFO");
	CHECK(strstr(safe_strerror(-EFTYPE, S_IFIFO, buf, sizeof(buf)), "a FIFO") != NULL);
	CHECK(strstr(safe_strerror(-EFTYPE, S_IFCHR, buf, sizeof(buf)), "device") != NULL);
	CHECK(strstr(safe_strerror(-ELOOP, S_IFLNK, buf, sizeof(buf)), "symbolic link") != NULL);
	CHECK(strstr(safe_strerror(-EFBIG, S_IFREG, buf, sizeof(buf)), "large") != NULL);
	CHECK(strstr(safe_strerror(-EXDEV, 0, buf, sizeof(buf)), "filesystem") != NULL);
	CHECK_STR(safe_strerror(-ENOENT, 0, buf, sizeof(buf)), strerror(ENOENT));
	char tiny[8];
	memset(tiny, 'x', sizeof(tiny));
	CHECK(safe_strerror(-EFTYPE, S_IFIFO, tiny, sizeof(tiny)) == tiny);
	CHECK(strlen(tiny) < sizeof(tiny));
}

/*
 * safe_read_path and safe_open_path_dir: a path of the root (here beneath
 * the test directory), absolute or relative, never through a symlink, never
 * opening anything but what is asked for, bounded; mount points are crossed.
 */
static void root_paths_are_read_safely(void)
{
	int base = fresh();
	char buf[8], real[PATH_MAX], why[96];
	mode_t found = 1;
	if (!realpath(dir, real) || strcmp(real, dir) != 0) {
		skip("paths", "the test directory's path holds a symlink");
		close(base);
		return;
	}
	put(base, "good", "1.2.3\n");
	put(base, "empty", "");
	put(base, "exact", "1234567"); /* len - 1 bytes: fits */
	put(base, "over", "12345678"); /* len bytes: too large, not cut */
	CHECK(mkdirat(base, "dir", 0755) == 0);
	put(base, "dir/f", "in dir\n");
	CHECK(mkfifoat(base, "fifo", 0600) == 0); /* no writer: a blocking open hangs */
	CHECK(symlinkat("good", base, "link") == 0);
	CHECK(symlinkat("dir", base, "dirlink") == 0);

	CHECK(safe_read_path(at(dir, "good"), buf, sizeof(buf), &found) == 6 && found == S_IFREG);
	CHECK_STR(buf, "1.2.3\n");
	CHECK(safe_read_path(at(dir, "empty"), buf, sizeof(buf), &found) == 0 && buf[0] == '\0');
	CHECK(safe_read_path(at(dir, "exact"), buf, sizeof(buf), &found) == 7);
	CHECK_STR(buf, "1234567");
	CHECK(safe_read_path(at(dir, "over"), buf, sizeof(buf), &found) == -EFBIG);
	CHECK_STR(safe_read_strerror(-EFBIG, found, sizeof(buf), why, sizeof(why)),
		  "larger than 7 bytes");
	alarm(5);
	found = 0;
	CHECK(safe_read_path(at(dir, "fifo"), buf, sizeof(buf), &found) == -EFTYPE &&
	      found == S_IFIFO);
	CHECK_STR(safe_read_strerror(-EFTYPE, found, sizeof(buf), why, sizeof(why)),
		  "not a regular file (a FIFO)");
	found = 0;
	CHECK(safe_open_path_dir(at(dir, "fifo"), &found) == -EFTYPE && found == S_IFIFO);
	alarm(0);
	found = 0;
	CHECK(safe_read_path(at(dir, "dir"), buf, sizeof(buf), &found) == -EFTYPE &&
	      found == S_IFDIR);
	CHECK_STR(safe_read_strerror(-EFTYPE, found, sizeof(buf), why, sizeof(why)),
		  "not a regular file (a directory)");
	CHECK(safe_read_path(at(dir, "link"), buf, sizeof(buf), &found) == -ELOOP &&
	      found == S_IFLNK);
	CHECK_STR(safe_read_strerror(-ELOOP, found, sizeof(buf), why, sizeof(why)),
		  "a symbolic link (never followed)");
	found = 1;
	CHECK(safe_read_path(at(dir, "dirlink/f"), buf, sizeof(buf), &found) == -ELOOP &&
	      found == 0);
	CHECK_STR(safe_read_strerror(-ELOOP, found, sizeof(buf), why, sizeof(why)),
		  "a symbolic link on its path (never followed)");
	CHECK(safe_read_path(at(dir, "absent"), buf, sizeof(buf), &found) == -ENOENT);
	CHECK(safe_read_path(at(dir, "good"), buf, 0, &found) == -EINVAL);
	CHECK(safe_read_path("", buf, sizeof(buf), &found) == -EINVAL);

	int d = safe_open_path_dir(at(dir, "dir"), &found);
	CHECK(d >= 0 && found == S_IFDIR && (fcntl(d, F_GETFD) & FD_CLOEXEC));
	if (d >= 0) {
		CHECK(safe_read_file(d, "f", buf, sizeof(buf), NULL) == 7);
		close(d);
	}
	CHECK(safe_open_path_dir(at(dir, "good"), &found) == -EFTYPE && found == S_IFREG);
	CHECK(safe_open_path_dir(at(dir, "dirlink"), &found) == -ELOOP && found == S_IFLNK);
	d = safe_open_path_dir("/", &found);
	CHECK(d >= 0);
	if (d >= 0)
		close(d);

	/* relative: beneath the working directory, ".." refused */
	int cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(cwd >= 0 && fchdir(base) == 0);
	CHECK(safe_read_path("dir/f", buf, sizeof(buf), &found) == 7);
	CHECK(safe_read_path("link", buf, sizeof(buf), &found) == -ELOOP && found == S_IFLNK);
	CHECK(safe_read_path("../x", buf, sizeof(buf), &found) == -EINVAL);
	CHECK(cwd >= 0 && fchdir(cwd) == 0);
	if (cwd >= 0)
		close(cwd);

	/* the root's mount points are the system's: crossed, unlike beneath a base */
	CHECK(mkdirat(base, "mnt", 0755) == 0);
	if (mount_tmpfs(at(dir, "mnt"))) {
		put(base, "mnt/f", "other\n");
		CHECK(safe_read_file(base, "mnt/f", buf, sizeof(buf), &found) == -EXDEV);
		CHECK(safe_read_path(at(dir, "mnt/f"), buf, sizeof(buf), &found) == 6);
		CHECK(umount2(at(dir, "mnt"), MNT_DETACH) == 0);
	}
	close(base);
}

/* Every check once with openat2 and once with the O_NOFOLLOW walk; no fd left open. */
static void run_mode(void (*fn)(void), const char *name, bool walk)
{
	test_name = name;
	walking = walk;
	safe_force_walk(walk);
	int fds = open_fds();
	fn();
	CHECK(open_fds() == fds);
	safe_force_walk(false);
	walking = false;
}

#define BOTH(fn)                                                                                   \
	static void fn##_openat2(void)                                                             \
	{                                                                                          \
		run_mode(fn, #fn, false);                                                          \
	}                                                                                          \
	static void fn##_walk(void)                                                                \
	{                                                                                          \
		run_mode(fn, #fn, true);                                                           \
	}

BOTH(kinds_are_reported)
BOTH(fifos_are_never_opened)
BOTH(symlinks_are_never_followed)
BOTH(wrong_kinds_are_refused)
BOTH(opened_entries_are_usable)
BOTH(reads_are_bounded)
BOTH(paths_are_confined)
BOTH(other_filesystems_are_not_entered)
BOTH(writes_replace_junk)
BOTH(mkdirs_create_and_refuse)
BOTH(removal_stays_beneath)
BOTH(root_paths_are_read_safely)

/* The openat2 runs test openat2 only if the host has it. */
static void host_has_openat2(void)
{
	struct {
		unsigned long long flags, mode, resolve;
	} how = {O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, 0};
	long fd = syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));
	CHECK(fd >= 0);
	if (fd >= 0)
		close((int)fd);
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0); /* the lines so far survive a hang's _exit */
	signal(SIGALRM, on_alarm);
	umask(022);
	if (!mkdtemp(root)) {
		printf("FAIL unit/%s: mkdtemp: %s\n", UNIT_NAME, strerror(errno));
		return 1;
	}
	/* mounts made here vanish with the process */
	can_mount =
	    unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0;
	RUN(host_has_openat2);
	RUN(errors_are_named);
	RUN(kinds_are_reported_openat2);
	RUN(kinds_are_reported_walk);
	RUN(fifos_are_never_opened_openat2);
	RUN(fifos_are_never_opened_walk);
	RUN(symlinks_are_never_followed_openat2);
	RUN(symlinks_are_never_followed_walk);
	RUN(wrong_kinds_are_refused_openat2);
	RUN(wrong_kinds_are_refused_walk);
	RUN(opened_entries_are_usable_openat2);
	RUN(opened_entries_are_usable_walk);
	RUN(reads_are_bounded_openat2);
	RUN(reads_are_bounded_walk);
	RUN(paths_are_confined_openat2);
	RUN(paths_are_confined_walk);
	RUN(other_filesystems_are_not_entered_openat2);
	RUN(other_filesystems_are_not_entered_walk);
	RUN(writes_replace_junk_openat2);
	RUN(writes_replace_junk_walk);
	RUN(mkdirs_create_and_refuse_openat2);
	RUN(mkdirs_create_and_refuse_walk);
	RUN(removal_stays_beneath_openat2);
	RUN(removal_stays_beneath_walk);
	RUN(root_paths_are_read_safely_openat2);
	RUN(root_paths_are_read_safely_walk);
	nftw(root, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	return UNIT_EXIT();
}
