// SPDX-License-Identifier: GPL-2.0-only
/* Names on the untrusted data flash: resolved beneath a base, no symlinks, nothing that blocks. */
#define _GNU_SOURCE /* O_PATH, fcntl F_DUPFD_CLOEXEC */
#include "safefs.h"
#include "util.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_openat2
#define SYS_openat2 437
#endif
/* <linux/openat2.h>, which musl's headers do not carry */
struct safe_open_how {
	uint64_t flags, mode, resolve;
};
#define SAFE_RESOLVE_NO_XDEV 0x01
#define SAFE_RESOLVE_NO_MAGICLINKS 0x02
#define SAFE_RESOLVE_NO_SYMLINKS 0x04
#define SAFE_RESOLVE_BENEATH 0x08

#define NAME_MAX_LEN 255

static bool force_walk;

void safe_force_walk(bool on)
{
	force_walk = on;
}

/* A relative path without "..", "." only as a whole component being skipped. */
static int check_rel(const char *rel)
{
	if (!rel || !rel[0] || rel[0] == '/')
		return -EINVAL;
	for (const char *p = rel; *p;) {
		size_t n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return -EINVAL;
		if (n > NAME_MAX_LEN)
			return -ENAMETOOLONG;
		p += n;
		while (*p == '/')
			p++;
	}
	return 0;
}

static int dev_of(int fd, dev_t *dev)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	*dev = st.st_dev;
	return 0;
}

/*
 * Kernels before 5.6 (or seccomp filters) lack openat2: every component is
 * opened with O_NOFOLLOW and checked to be a directory on base's filesystem.
 */
static int walk_open(int base, const char *rel, int flags, bool any_fs)
{
	char comp[NAME_MAX_LEN + 1];
	dev_t dev = 0;
	int r = dev_of(base, &dev);
	if (r < 0)
		return r;
	int fd = dup(base);
	if (fd < 0)
		return -errno;
	for (const char *p = rel;;) {
		while (*p == '/')
			p++;
		size_t n = strcspn(p, "/");
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		while (*p == '/')
			p++;
		bool last = *p == '\0';
		if (n == 0 || (n == 1 && comp[0] == '.')) {
			if (!last)
				continue;
			/* "dir/." ends on the directory itself: open it as asked */
			int self = openat(fd, ".", flags | O_NOFOLLOW);
			r = -errno;
			close(fd);
			return self < 0 ? r : self;
		}
		struct stat st;
		if (fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			r = -errno;
			close(fd);
			return r;
		}
		/* O_PATH|O_NOFOLLOW on the last component looks at a symlink, as openat2 does */
		bool link_itself =
		    last && (flags & O_PATH) && (flags & O_NOFOLLOW) && rel[strlen(rel) - 1] != '/';
		if ((S_ISLNK(st.st_mode) && !link_itself) || (st.st_dev != dev && !any_fs)) {
			close(fd);
			return S_ISLNK(st.st_mode) ? -ELOOP : -EXDEV;
		}
		if (!last && !S_ISDIR(st.st_mode)) {
			close(fd);
			return -ENOTDIR;
		}
		int next = openat(fd, comp,
				  last ? flags | O_NOFOLLOW
				       : O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		r = -errno;
		close(fd);
		if (next < 0)
			return r;
		if (last)
			return next;
		fd = next;
	}
}

/*
 * Resolves rel beneath base with flags (O_PATH to look without opening);
 * any_fs lets the path cross mount points (the root's, which the running
 * system made, not what an upper holds).
 */
static int resolve(int base, const char *rel, int flags, bool any_fs)
{
	int r = check_rel(rel);
	if (r < 0)
		return r;
	if (!force_walk) {
		struct safe_open_how how = {(uint64_t)(flags | O_CLOEXEC), 0,
					    SAFE_RESOLVE_BENEATH | SAFE_RESOLVE_NO_SYMLINKS |
						SAFE_RESOLVE_NO_MAGICLINKS |
						(any_fs ? 0 : SAFE_RESOLVE_NO_XDEV)};
		long fd = syscall(SYS_openat2, base, rel, &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		if (errno != ENOSYS)
			return -errno;
	}
	return walk_open(base, rel, flags | O_CLOEXEC, any_fs);
}

int safe_base(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int safe_kind(int base, const char *rel, mode_t *found)
{
	struct stat st;
	if (found)
		*found = 0;
	int fd = resolve(base, rel, O_PATH | O_NOFOLLOW, false);
	if (fd < 0) {
		if (fd == -ELOOP && found)
			*found = S_IFLNK;
		return fd;
	}
	int r = fstat(fd, &st) < 0 ? -errno : 0;
	close(fd);
	if (r == 0 && found)
		*found = st.st_mode & S_IFMT;
	return r;
}

/*
 * Looks first (O_PATH: nothing is opened), then opens what was seen: a FIFO
 * or a device node is never opened, so it can neither block nor act.
 */
static int open_kind(int base, const char *rel, int flags, mode_t want, mode_t *found, bool any_fs)
{
	mode_t kind = 0;
	struct stat seen, got;
	if (found)
		*found = 0;
	int fd = resolve(base, rel, O_PATH | O_NOFOLLOW, any_fs);
	if (fd < 0) {
		if (fd == -ELOOP && found)
			*found = S_IFLNK;
		return fd;
	}
	int r = fstat(fd, &seen) < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	kind = seen.st_mode & S_IFMT;
	if (found)
		*found = kind;
	if (kind == S_IFLNK)
		return -ELOOP;
	if (kind != want)
		return -EFTYPE;
	fd = resolve(base, rel, flags | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, any_fs);
	if (fd < 0)
		return fd;
	/* swapped between the look and the open: treat it as what it now is */
	if (fstat(fd, &got) < 0 || got.st_ino != seen.st_ino || got.st_dev != seen.st_dev ||
	    (got.st_mode & S_IFMT) != want) {
		close(fd);
		return -EFTYPE;
	}
	/* regular files and directories never block; later reads need no O_NONBLOCK */
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

int safe_open_dir(int base, const char *rel, mode_t *found)
{
	return open_kind(base, rel, O_RDONLY | O_DIRECTORY, S_IFDIR, found, false);
}

int safe_open_file(int base, const char *rel, int flags, mode_t *found)
{
	return open_kind(base, rel, flags & (O_ACCMODE | O_APPEND | O_TRUNC), S_IFREG, found,
			 false);
}

/* Reads what fd holds, at most len-1 bytes; -EFBIG when larger. Closes fd. */
static ssize_t read_bounded(int fd, char *buf, size_t len)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_size < 0 || (uint64_t)st.st_size >= len) {
		close(fd);
		return -EFBIG;
	}
	ssize_t used = read_fd(fd, buf, len);
	/* grown since the fstat: more than the bound */
	char extra;
	ssize_t more = used >= 0 && (size_t)used + 1 == len ? read(fd, &extra, 1) : 0;
	close(fd);
	return more > 0 ? -EFBIG : used;
}

ssize_t safe_read_file(int base, const char *rel, char *buf, size_t len, mode_t *found)
{
	if (len == 0)
		return -EINVAL;
	int fd = safe_open_file(base, rel, O_RDONLY, found);
	return fd < 0 ? fd : read_bounded(fd, buf, len);
}

ssize_t safe_read_root_file(const char *path, char *buf, size_t len, mode_t *found)
{
	if (path[0] != '/')
		return -EINVAL;
	int root = safe_base("/");
	if (root < 0)
		return root;
	ssize_t n = safe_read_file(root, path + 1, buf, len, found);
	close(root);
	return n;
}

/*
 * After -ELOOP: is rel itself the symlink (S_IFLNK) or one of its
 * directories (0)? Only looked at, so nothing is opened or waited on.
 */
static void link_where(int base, const char *rel, mode_t *found)
{
	struct stat st;
	if (found)
		*found = fstatat(base, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)
			     ? S_IFLNK
			     : 0;
}

/* The base a path of the root is resolved beneath: "/" or the working directory. */
static int path_base(const char *path, const char **rel)
{
	if (!path || !path[0])
		return -EINVAL;
	*rel = path[0] == '/' ? path + strspn(path, "/") : path;
	return safe_base(path[0] == '/' ? "/" : ".");
}

int safe_open_path_dir(const char *path, mode_t *found)
{
	const char *rel;
	if (found)
		*found = 0;
	int base = path_base(path, &rel);
	if (base < 0 || !*rel)
		return base; /* "/" or ".": the base itself */
	int fd = open_kind(base, rel, O_RDONLY | O_DIRECTORY, S_IFDIR, found, true);
	if (fd == -ELOOP)
		link_where(base, rel, found);
	close(base);
	return fd;
}

ssize_t safe_read_path(const char *path, char *buf, size_t len, mode_t *found)
{
	const char *rel;
	if (found)
		*found = 0;
	if (len == 0)
		return -EINVAL;
	int base = path_base(path, &rel);
	if (base < 0)
		return base;
	int fd = open_kind(base, rel, O_RDONLY, S_IFREG, found, true);
	if (fd == -ELOOP)
		link_where(base, rel, found);
	close(base);
	return fd < 0 ? fd : read_bounded(fd, buf, len);
}

/* Splits rel into its parent (opened beneath base) and its last component. */
static int open_parent(int base, const char *rel, const char **leaf)
{
	char parent[512];
	int r = check_rel(rel);
	if (r < 0)
		return r;
	const char *slash = strrchr(rel, '/');
	*leaf = slash ? slash + 1 : rel;
	if (!**leaf || strcmp(*leaf, ".") == 0)
		return -EINVAL;
	if (!slash) {
		int fd = fcntl(base, F_DUPFD_CLOEXEC, 0);
		return fd < 0 ? -errno : fd;
	}
	size_t n = (size_t)(slash - rel);
	if (n >= sizeof(parent))
		return -ENAMETOOLONG;
	memcpy(parent, rel, n);
	parent[n] = '\0';
	return safe_open_dir(base, parent, NULL);
}

/* Removes leaf in dirfd, a tree included, without leaving dirfd's filesystem. */
static int remove_at(int dirfd, const char *leaf)
{
	struct stat st;
	dev_t dev = 0;
	if (fstatat(dirfd, leaf, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	int r = dev_of(dirfd, &dev);
	if (r < 0)
		return r;
	if (st.st_dev != dev)
		return -EXDEV; /* a mount point: another filesystem is never emptied */
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dirfd, leaf, 0) < 0 && errno != ENOENT ? -errno : 0;
	int sub = openat(dirfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sub >= 0)
		remove_tree_contents(sub, st.st_dev);
	return unlinkat(dirfd, leaf, AT_REMOVEDIR) < 0 && errno != ENOENT ? -errno : 0;
}

int safe_remove(int base, const char *rel)
{
	const char *leaf;
	int dir = open_parent(base, rel, &leaf);
	if (dir < 0)
		return dir == -ENOENT ? 0 : dir;
	int r = remove_at(dir, leaf);
	close(dir);
	return r;
}

static int write_all(int fd, const void *data, size_t len)
{
	const char *p = data;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int safe_write_file(int base, const char *rel, const void *data, size_t len, bool durable)
{
	char tmp[NAME_MAX_LEN + 1];
	struct stat st;
	const char *leaf;
	int dir = open_parent(base, rel, &leaf);
	if (dir < 0)
		return dir;
	int r = snprintf(tmp, sizeof(tmp), "%s.tmp", leaf) >= (int)sizeof(tmp) ? -ENAMETOOLONG : 0;
	/* whatever sits at the temporary name is a leftover: removed, never opened */
	if (r == 0)
		r = remove_at(dir, tmp);
	int fd = r < 0
		     ? r
		     : openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		r = r < 0 ? r : -errno;
		close(dir);
		return r;
	}
	r = write_all(fd, data, len);
	if (r == 0 && durable && fsync(fd) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	/* a directory at the name itself would refuse the rename: it is junk at strata's name */
	if (r == 0 && fstatat(dir, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
		r = remove_at(dir, leaf);
	if (r == 0 && renameat(dir, tmp, dir, leaf) < 0)
		r = -errno;
	if (r < 0)
		unlinkat(dir, tmp, 0);
	else if (durable && fsync(dir) < 0)
		r = -errno;
	close(dir);
	return r;
}

int safe_mkdirs(int base, const char *rel, mode_t mode, mode_t *found)
{
	char comp[NAME_MAX_LEN + 1];
	if (found)
		*found = 0;
	int r = check_rel(rel);
	if (r < 0)
		return r;
	int fd = fcntl(base, F_DUPFD_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	for (const char *p = rel; *p;) {
		size_t n = strcspn(p, "/");
		memcpy(comp, p, n);
		comp[n] = '\0';
		p += n;
		while (*p == '/')
			p++;
		if (n == 1 && comp[0] == '.')
			continue;
		if (mkdirat(fd, comp, mode) < 0 && errno != EEXIST) {
			r = -errno;
			close(fd);
			return r;
		}
		int next = safe_open_dir(fd, comp, found);
		close(fd);
		if (next < 0)
			return next;
		fd = next;
	}
	close(fd);
	return 0;
}

const char *safe_kind_name(mode_t kind)
{
	switch (kind & S_IFMT) {
	case S_IFREG:
		return "a regular file";
	case S_IFDIR:
		return "a directory";
	case S_IFLNK:
		return "a symbolic link";
	case S_IFIFO:
		return "a FIFO";
	case S_IFSOCK:
		return "a socket";
	case S_IFCHR:
		return "a character device";
	case S_IFBLK:
		return "a block device";
	}
	return "nothing";
}

const char *safe_strerror(int err, mode_t found, char *buf, size_t len)
{
	if (err == -EFTYPE)
		snprintf(buf, len, "%s, not what belongs there", safe_kind_name(found));
	else if (err == -ELOOP)
		snprintf(buf, len, "a symbolic link on the path (never followed)");
	else if (err == -EFBIG)
		snprintf(buf, len, "larger than strata reads");
	else if (err == -EXDEV)
		snprintf(buf, len, "another filesystem on the path");
	else
		snprintf(buf, len, "%s", strerror(-err));
	return buf;
}

const char *safe_read_strerror(int err, mode_t found, size_t len, char *buf, size_t blen)
{
	if (err == -EFTYPE)
		snprintf(buf, blen, "not a regular file (%s)", safe_kind_name(found));
	else if (err == -ELOOP)
		snprintf(buf, blen, "%s (never followed)",
			 found == S_IFLNK ? "a symbolic link" : "a symbolic link on its path");
	else if (err == -EFBIG)
		snprintf(buf, blen, "larger than %zu bytes", len ? len - 1 : 0);
	else if (err == -EINVAL)
		snprintf(buf, blen, "not a path strata reads (empty, or with '..')");
	else
		snprintf(buf, blen, "%s", strerror(-err));
	return buf;
}
