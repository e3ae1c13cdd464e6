// SPDX-License-Identifier: GPL-2.0-only
/* Opening a path inside a directory tree as if that tree were '/'; never logs. */
#define _GNU_SOURCE /* O_PATH */
#include "inroot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* musl has no <linux/openat2.h>; the ABI is fixed since Linux 5.6 */
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef RESOLVE_NO_MAGICLINKS
#define RESOLVE_NO_MAGICLINKS 0x02
#endif
#ifndef RESOLVE_IN_ROOT
#define RESOLVE_IN_ROOT 0x10
#endif

struct inroot_open_how {
	uint64_t flags;
	uint64_t mode;
	uint64_t resolve;
};

/* how often openat2 is asked again when a concurrent rename or mount makes it say EAGAIN */
#define OPENAT2_RETRIES 8

int open_in_root(int rootfd, const char *path, bool *walked)
{
	struct inroot_open_how how = {
	    .flags = O_PATH | O_CLOEXEC,
	    .resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	*walked = false;
	for (int i = 0; i < OPENAT2_RETRIES; i++) {
		long fd = syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		if (errno == ENOSYS) {
			*walked = true;
			return inroot_walk(rootfd, path);
		}
		if (errno != EAGAIN)
			return -errno;
	}
	return -EAGAIN;
}

/*
 * todo holds what is left to resolve, done what is resolved: components
 * relative to rootfd, none of them a symlink, so ".." is lexical and stays
 * inside. A symlink is replaced by its target in todo; an absolute one
 * starts again at rootfd.
 */
int inroot_walk(int rootfd, const char *path)
{
	char todo[PATH_MAX], done[PATH_MAX], target[PATH_MAX];
	size_t pos = 0, done_len = 0;
	unsigned hops = 0;

	size_t path_len = strlen(path);
	if (path_len >= sizeof(todo))
		return -ENAMETOOLONG;
	memcpy(todo, path, path_len + 1);
	done[0] = '\0';
	for (;;) {
		while (todo[pos] == '/')
			pos++;
		if (!todo[pos])
			break;
		const char *comp = todo + pos;
		size_t n = strcspn(comp, "/");
		pos += n;
		if (n == 1 && comp[0] == '.')
			continue;
		if (n == 2 && comp[0] == '.' && comp[1] == '.') {
			char *slash = strrchr(done, '/');
			done_len = slash ? (size_t)(slash - done) : 0;
			done[done_len] = '\0';
			continue;
		}
		size_t parent_len = done_len;
		if (done_len + 1 + n >= sizeof(done))
			return -ENAMETOOLONG;
		if (done_len)
			done[done_len++] = '/';
		memcpy(done + done_len, comp, n);
		done_len += n;
		done[done_len] = '\0';

		struct stat st;
		if (fstatat(rootfd, done, &st, AT_SYMLINK_NOFOLLOW) < 0)
			return -errno;
		if (S_ISLNK(st.st_mode)) {
			if (++hops > INROOT_MAX_HOPS)
				return -ELOOP;
			ssize_t len = readlinkat(rootfd, done, target, sizeof(target));
			if (len < 0)
				return -errno;
			if ((size_t)len >= sizeof(target))
				return -ENAMETOOLONG;
			size_t rest = strlen(todo + pos);
			if ((size_t)len + rest >= sizeof(todo))
				return -ENAMETOOLONG;
			memmove(todo + len, todo + pos, rest + 1);
			memcpy(todo, target, (size_t)len);
			pos = 0;
			done_len = target[0] == '/' ? 0 : parent_len;
			done[done_len] = '\0';
			continue;
		}
		if (todo[pos] && !S_ISDIR(st.st_mode))
			return -ENOTDIR;
	}
	int fd = openat(rootfd, done_len ? done : ".", O_PATH | O_NOFOLLOW | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}
