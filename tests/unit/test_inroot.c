// SPDX-License-Identifier: GPL-2.0-only
/*
 * open_in_root on a real tree: every path resolves as it will after a chroot
 * into the tree, never on the host, with openat2(RESOLVE_IN_ROOT), with the
 * component walk called directly, and with the walk open_in_root falls back to
 * when a seccomp filter makes openat2 say ENOSYS as on a kernel before 5.6.
 */
#define _GNU_SOURCE /* O_PATH, nftw, unshare */
#define UNIT_NAME "inroot"
#include "unit.h"
#include "../../init/lib/inroot.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * base/root is the root. Beside it, decoys that a resolution escaping the root
 * would find instead: base/bin/busybox (one ".." too many), base/secret and
 * base/hostonly (absolute host paths that links inside the root name).
 */
static char base[] = "/tmp/strata-inroot.XXXXXX";
static char root[PATH_MAX];
static int rootfd = -1;

enum mode { MODE_OPENAT2, MODE_WALK, MODE_ENOSYS };
static const char *const mode_names[] = {"openat2", "walk", "enosys"};
static enum mode mode;
static const char *test_name = "";
static bool can_mount;

/* exit status of the ENOSYS child when it cannot install its seccomp filter */
#define CHILD_NO_SECCOMP 77

/* A walk that never ends fails the test instead of hanging the whole run. */
static void on_alarm(int sig)
{
	static const char msg[] = "FAIL unit/" UNIT_NAME "/";
	static const char hung[] = ": hung (alarm after 10 s)\n";
	(void)sig;
	(void)!write(1, msg, sizeof(msg) - 1);
	(void)!write(1, test_name, strlen(test_name));
	(void)!write(1, "_", 1);
	(void)!write(1, mode_names[mode], strlen(mode_names[mode]));
	(void)!write(1, hung, sizeof(hung) - 1);
	_exit(1);
}

static void skip(const char *what, const char *why)
{
	printf("SKIP unit/%s/%s_%s %s: %s\n", UNIT_NAME, test_name, mode_names[mode], what, why);
}

/* "dir/rel", from a small ring so that a call can name several. */
static const char *at(const char *dir, const char *rel)
{
	static char ring[4][PATH_MAX];
	static unsigned next;
	char *p = ring[next++ % 4];
	if ((size_t)snprintf(p, PATH_MAX, "%s/%s", dir, rel) >= PATH_MAX)
		CHECK(!"path fits PATH_MAX");
	return p;
}

static void put(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
}

/* mkdir -p of an absolute path whose first components exist. */
static void mkdirs(const char *path)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;
		*s = '\0';
		CHECK(mkdir(p, 0755) == 0 || errno == EEXIST);
		*s = c;
		if (!c)
			break;
	}
}

static void link_at(const char *target, const char *rel)
{
	CHECK(symlink(target, at(root, rel)) == 0);
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	if (!d)
		return -1;
	for (struct dirent *de; (de = readdir(d));)
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

static void make_tree(void)
{
	CHECK(snprintf(root, sizeof(root), "%s/root", base) < (int)sizeof(root));
	mkdirs(at(base, "bin"));
	put(at(base, "bin/busybox"), "host busybox\n");
	put(at(base, "secret"), "host secret\n");
	put(at(base, "hostonly"), "host only\n");

	static const char *const dirs[] = {"bin",	"sbin", "etc", "opt",
					   "usr/lib/x", "hops", "proc"};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		mkdirs(at(root, dirs[i]));
	put(at(root, "bin/busybox"), "root busybox\n");
	put(at(root, "etc/file"), "x\n");
	put(at(root, "usr/lib/x/prog"), "y\n");
	/* the host path of base/secret, also present inside the root */
	char mirror[PATH_MAX];
	snprintf(mirror, sizeof(mirror), "%s%s", root, base);
	mkdirs(mirror);
	put(at(mirror, "secret"), "root secret\n");

	link_at("../bin/busybox", "sbin/init"); /* relative */
	link_at("/bin/busybox", "sbin/abs");	/* absolute: ROOT/bin/busybox */
	link_at("../../../../../bin/busybox", "opt/dotdot");
	link_at("..", "opt/up");
	link_at("/usr/lib", "opt/libdir");
	link_at("/opt/libdir/x/prog", "opt/chain");	  /* absolute to a link to a directory */
	link_at("chain", "opt/chain2");			  /* relative to that */
	link_at("/sbin/init", "opt/chain3");		  /* absolute to a relative one */
	link_at(at(base, "secret"), "opt/mirror");	  /* a host path the root has too */
	link_at(at(base, "hostonly"), "opt/hostonly");	  /* a host path the root lacks */
	link_at(at(root, "bin/busybox"), "opt/rootpath"); /* the root's own host path */
	link_at(at("/proc/self/root", at(base, "secret")), "opt/magic"); /* root/proc is empty */
	link_at("loop", "opt/loop");
	link_at("b", "opt/a");
	link_at("a", "opt/b");
	link_at("/opt/dirloop/x", "opt/dirloop");
	/* hops/l0 -> l1 -> ... -> l40 -> /bin/busybox: l1 is 40 links, l0 is 41 */
	for (int i = 0; i < INROOT_MAX_HOPS; i++) {
		char name[32], next[32];
		snprintf(name, sizeof(name), "hops/l%d", i);
		snprintf(next, sizeof(next), "l%d", i + 1);
		link_at(next, name);
	}
	char last[32];
	snprintf(last, sizeof(last), "hops/l%d", INROOT_MAX_HOPS);
	link_at("/bin/busybox", last);

	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	CHECK(rootfd >= 0);
}

/* The resolver of this mode: open_in_root, or inroot_walk itself. */
static int resolve(const char *path)
{
	if (mode == MODE_WALK)
		return inroot_walk(rootfd, path);
	bool walked = mode != MODE_ENOSYS;
	int fd = open_in_root(rootfd, path, &walked);
	if (walked != (mode == MODE_ENOSYS))
		fprintf(stderr, "  %s '%s': walked %d\n", mode_names[mode], path, walked);
	CHECK(walked == (mode == MODE_ENOSYS));
	return fd;
}

/*
 * path resolves to want (a path relative to the root with no symlink in it):
 * an O_PATH, close-on-exec descriptor of the same inode. want NULL: to -err.
 */
static void expect(const char *path, const char *want, int err)
{
	int fd = resolve(path);
	if (!want) {
		if (fd != -err)
			fprintf(stderr, "  %s '%s': %d (%s), wanted -%d (%s)\n", mode_names[mode],
				path, fd, fd < 0 ? strerror(-fd) : "a descriptor", err,
				strerror(err));
		CHECK(fd == -err);
		if (fd >= 0)
			close(fd);
		return;
	}
	struct stat got, direct;
	CHECK(fstatat(rootfd, want, &direct, AT_SYMLINK_NOFOLLOW) == 0);
	if (fd < 0) {
		fprintf(stderr, "  %s '%s': %d (%s), wanted '%s'\n", mode_names[mode], path, fd,
			strerror(-fd), want);
		CHECK(fd >= 0);
		return;
	}
	CHECK(fstat(fd, &got) == 0);
	if (got.st_ino != direct.st_ino || got.st_dev != direct.st_dev)
		fprintf(stderr, "  %s '%s': inode %lu, wanted '%s' (inode %lu)\n", mode_names[mode],
			path, (unsigned long)got.st_ino, want, (unsigned long)direct.st_ino);
	CHECK(got.st_ino == direct.st_ino && got.st_dev == direct.st_dev);
	CHECK(fcntl(fd, F_GETFL) & O_PATH);
	CHECK(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
}

static void symlinks_resolve_inside(void)
{
	expect("/bin/busybox", "bin/busybox", 0);
	expect("bin/busybox", "bin/busybox", 0); /* relative to the root */
	expect("/sbin/init", "bin/busybox", 0);
	expect("sbin/init", "bin/busybox", 0);
	expect("/sbin/abs", "bin/busybox", 0);
	expect("/opt/chain", "usr/lib/x/prog", 0);
	expect("/opt/chain2", "usr/lib/x/prog", 0);
	expect("/opt/chain3", "bin/busybox", 0);
	expect("/opt/libdir", "usr/lib", 0);
	expect("/opt/libdir/x/../x/prog", "usr/lib/x/prog", 0);
	expect(at(base, "secret"), at(base + 1, "secret"), 0);
	expect("/opt/mirror", at(base + 1, "secret"), 0);
	expect("/hops/l1", "bin/busybox", 0); /* INROOT_MAX_HOPS links: still fine */
	expect("/", ".", 0);
	expect(".", ".", 0);
	expect("//./etc/.//file", "etc/file", 0);
}

static void dotdot_stays_inside(void)
{
	expect("/..", ".", 0);
	expect("..", ".", 0);
	expect("/../bin/busybox", "bin/busybox", 0); /* not base/bin/busybox */
	expect("../bin/busybox", "bin/busybox", 0);
	expect("/../../../../bin/busybox", "bin/busybox", 0);
	expect("/usr/lib/x/../../../../../bin/busybox", "bin/busybox", 0);
	expect("/opt/dotdot", "bin/busybox", 0);
	expect("/opt/up", ".", 0);
	expect("/opt/up/opt/up/../bin/busybox", "bin/busybox", 0);
	expect("/opt/libdir/../../../secret", NULL, ENOENT); /* base/secret is outside */
	expect("/../root/bin/busybox", NULL, ENOENT);
}

static void host_only_targets_are_absent(void)
{
	expect("/opt/hostonly", NULL, ENOENT);
	expect(at(base, "hostonly"), NULL, ENOENT);
	expect("/opt/rootpath", NULL, ENOENT);
	expect("/opt/magic", NULL, ENOENT); /* the root has no /proc */
	expect("/sbin/nosuch", NULL, ENOENT);
	expect("/nosuch/busybox", NULL, ENOENT);
}

static void loops_are_refused(void)
{
	expect("/opt/loop", NULL, ELOOP);
	expect("/opt/a", NULL, ELOOP);
	expect("/opt/b/x", NULL, ELOOP);
	expect("/opt/dirloop", NULL, ELOOP);
	expect("/hops/l0", NULL, ELOOP); /* one link more than INROOT_MAX_HOPS */
}

static void non_directories_in_the_middle(void)
{
	expect("/etc/file/x", NULL, ENOTDIR);
	expect("/bin/busybox/x/y", NULL, ENOTDIR);
	expect("/sbin/init/x", NULL, ENOTDIR); /* through a link to a file */
	expect("/opt/chain/x", NULL, ENOTDIR);
	expect("/etc/file/..", NULL, ENOTDIR);
}

static void trailing_slashes(void)
{
	expect("/etc/", "etc", 0);
	expect("/etc//", "etc", 0);
	expect("/opt/libdir/", "usr/lib", 0); /* a link to a directory is followed */
	expect("/opt/up/", ".", 0);
	expect("/etc/file/", NULL, ENOTDIR);
	expect("/sbin/init/", NULL, ENOTDIR); /* a link to a file */
	expect("/sbin/nosuch/", NULL, ENOENT);
}

/*
 * With the host's /proc inside the root, /proc/self/root is a magic link to
 * the host's "/": openat2 refuses it, the walk reads its text ("/") and so
 * stays inside the root. Followed as a jump it would reach base/secret.
 */
static void magic_links_are_refused(void)
{
	const char *proc = at(root, "proc");
	if (!can_mount) {
		skip("mount", "no private mount namespace (not root?)");
		return;
	}
	if (mount("/proc", proc, NULL, MS_BIND | MS_REC, NULL) < 0) {
		skip("mount", strerror(errno));
		return;
	}
	if (mode == MODE_OPENAT2) {
		expect("/opt/magic", NULL, ELOOP);
		expect("/proc/self/root/bin/busybox", NULL, ELOOP);
	} else {
		expect("/opt/magic", at(base + 1, "secret"), 0);
		expect("/proc/self/root/bin/busybox", "bin/busybox", 0);
	}
	char self[32];
	snprintf(self, sizeof(self), "proc/%d", (int)getpid());
	expect("/proc/self", self, 0); /* a plain symlink in procfs is followed */
	CHECK(umount2(proc, MNT_DETACH) == 0);
}

/* The descriptor only names the file: nothing can be read through it. */
static void results_are_o_path(void)
{
	char buf[8];
	int fd = resolve("/sbin/init");
	CHECK(fd >= 0);
	if (fd < 0)
		return;
	CHECK(read(fd, buf, sizeof(buf)) < 0 && errno == EBADF);
	CHECK((fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDONLY);
	struct stat st;
	CHECK(fstat(fd, &st) == 0 && S_ISREG(st.st_mode)); /* the target, not the link */
	close(fd);
	fd = resolve("/opt/libdir");
	CHECK(fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode));
	if (fd >= 0)
		close(fd);
}

/* A kernel before 5.6, as open_in_root sees it: openat2 is ENOSYS, nothing else changes. */
static int refuse_openat2(void)
{
	struct sock_filter filter[] = {
	    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_openat2, 0, 1),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
	    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(filter) / sizeof(filter[0]), .filter = filter};
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
		return -errno;
	return 0;
}

/* Every check with openat2, with the walk, and with the fallback (in a child: a filter stays). */
static void run_mode(void (*fn)(void), const char *name, enum mode m)
{
	test_name = name;
	mode = m;
	if (m != MODE_ENOSYS) {
		alarm(10);
		int fds = open_fds();
		fn();
		CHECK(open_fds() == fds);
		alarm(0);
		return;
	}
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0) {
		int before = unit_check_failures;
		if (refuse_openat2() < 0)
			_exit(CHILD_NO_SECCOMP);
		alarm(10); /* not inherited; the child reports its own hang */
		int fds = open_fds();
		fn();
		CHECK(open_fds() == fds);
		fflush(stderr);
		_exit(unit_check_failures != before);
	}
	int status = 0;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
	if (WIFEXITED(status) && WEXITSTATUS(status) == CHILD_NO_SECCOMP)
		skip("seccomp", "cannot install a filter that refuses openat2");
	else
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

#define ALL_MODES(fn)                                                                              \
	static void fn##_openat2(void)                                                             \
	{                                                                                          \
		run_mode(fn, #fn, MODE_OPENAT2);                                                   \
	}                                                                                          \
	static void fn##_walk(void)                                                                \
	{                                                                                          \
		run_mode(fn, #fn, MODE_WALK);                                                      \
	}                                                                                          \
	static void fn##_enosys(void)                                                              \
	{                                                                                          \
		run_mode(fn, #fn, MODE_ENOSYS);                                                    \
	}

ALL_MODES(symlinks_resolve_inside)
ALL_MODES(dotdot_stays_inside)
ALL_MODES(host_only_targets_are_absent)
ALL_MODES(loops_are_refused)
ALL_MODES(non_directories_in_the_middle)
ALL_MODES(trailing_slashes)
ALL_MODES(magic_links_are_refused)
ALL_MODES(results_are_o_path)

/* The openat2 runs test openat2 only if the host has it; the decoys are where they escape to. */
static void host_has_openat2_and_decoys(void)
{
	struct {
		unsigned long long flags, mode, resolve;
	} how = {O_PATH | O_CLOEXEC, 0, 0};
	long fd = syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof(how));
	CHECK(fd >= 0);
	if (fd >= 0)
		close((int)fd);
	struct stat in, out;
	CHECK(stat(at(base, "bin/busybox"), &out) == 0 && stat(at(root, "bin/busybox"), &in) == 0 &&
	      in.st_ino != out.st_ino);
	CHECK(stat(at(base, "secret"), &out) == 0 && access(at(base, "hostonly"), F_OK) == 0);
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
	if (!mkdtemp(base)) {
		printf("FAIL unit/%s: mkdtemp: %s\n", UNIT_NAME, strerror(errno));
		return 1;
	}
	/* the bind mount of /proc made here vanishes with the process */
	can_mount =
	    unshare(CLONE_NEWNS) == 0 && mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0;
	make_tree();
	RUN(host_has_openat2_and_decoys);
	RUN(symlinks_resolve_inside_openat2);
	RUN(symlinks_resolve_inside_walk);
	RUN(symlinks_resolve_inside_enosys);
	RUN(dotdot_stays_inside_openat2);
	RUN(dotdot_stays_inside_walk);
	RUN(dotdot_stays_inside_enosys);
	RUN(host_only_targets_are_absent_openat2);
	RUN(host_only_targets_are_absent_walk);
	RUN(host_only_targets_are_absent_enosys);
	RUN(loops_are_refused_openat2);
	RUN(loops_are_refused_walk);
	RUN(loops_are_refused_enosys);
	RUN(non_directories_in_the_middle_openat2);
	RUN(non_directories_in_the_middle_walk);
	RUN(non_directories_in_the_middle_enosys);
	RUN(trailing_slashes_openat2);
	RUN(trailing_slashes_walk);
	RUN(trailing_slashes_enosys);
	RUN(magic_links_are_refused_openat2);
	RUN(magic_links_are_refused_walk);
	RUN(magic_links_are_refused_enosys);
	RUN(results_are_o_path_openat2);
	RUN(results_are_o_path_walk);
	RUN(results_are_o_path_enosys);
	if (rootfd >= 0)
		close(rootfd);
	nftw(base, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	return UNIT_EXIT();
}
