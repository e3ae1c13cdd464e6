// SPDX-License-Identifier: GPL-2.0-only
/* Small file and time helpers; all return 0/length or -errno and never log. */
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

bool thread_start(pthread_t *thread, size_t stack, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, stack);
	bool started = pthread_create(thread, &attr, fn, arg) == 0;
	pthread_attr_destroy(&attr);
	return started;
}

uint64_t now_boottime_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_BOOTTIME, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t process_cpu_ns(void)
{
	struct timespec ts;
	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t timeval_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000u + (uint64_t)tv->tv_usec * 1000u;
}

void process_rusage_ns(uint64_t *user_ns, uint64_t *sys_ns)
{
	struct rusage ru;
	*user_ns = *sys_ns = 0;
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		*user_ns = timeval_ns(&ru.ru_utime);
		*sys_ns = timeval_ns(&ru.ru_stime);
	}
}

long proc_status_kb(const char *status, const char *key)
{
	size_t klen = strlen(key);
	for (const char *p = status; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, klen) == 0 && p[klen] == ':') {
			char *end;
			long v = strtol(p + klen + 1, &end, 10);
			return end == p + klen + 1 ? -1 : v;
		}
	}
	return -1;
}

ssize_t read_fd(int fd, char *buf, size_t len)
{
	size_t used = 0;
	while (used + 1 < len) {
		ssize_t n = read(fd, buf + used, len - 1 - used);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		used += (size_t)n;
	}
	if (len)
		buf[used] = '\0';
	return (ssize_t)used;
}

ssize_t read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read_fd(fd, buf, len);
	close(fd);
	return n;
}

int xsnprintf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return n;
}

static int fsync_parent(const char *path)
{
	char dir[256];
	const char *slash = strrchr(path, '/');
	size_t n = slash ? (size_t)(slash - path) : 0;
	if (n == 0)
		n = 1, path = slash ? "/" : ".";
	if (n >= sizeof(dir))
		return -ENAMETOOLONG;
	memcpy(dir, path, n);
	dir[n] = '\0';
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = fsync(fd) < 0 ? -errno : 0;
	close(fd);
	return r;
}

int write_file_atomic(const char *path, const void *data, size_t len, bool durable)
{
	char tmp[256];
	int r = xsnprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (r < 0)
		return r;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	const char *p = data;
	while (len > 0) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EIO;
			close(fd);
			unlink(tmp);
			return r;
		}
		p += n;
		len -= (size_t)n;
	}
	if (durable && fsync(fd) < 0) {
		r = -errno;
		close(fd);
		unlink(tmp);
		return r;
	}
	if (close(fd) < 0 || rename(tmp, path) < 0) {
		r = -errno;
		unlink(tmp);
		return r;
	}
	return durable ? fsync_parent(path) : 0;
}

int attach_console(void)
{
	int fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd < 0)
		return -errno;
	dup2(fd, 0);
	dup2(fd, 1);
	dup2(fd, 2);
	if (fd > 2)
		close(fd);
	return 0;
}

int mkdir_p(const char *path, mode_t mode)
{
	char buf[256];
	size_t len = strlen(path);
	if (len == 0 || len >= sizeof(buf))
		return len ? -ENAMETOOLONG : -EINVAL;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1;; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		char saved = *p;
		*p = '\0';
		if (mkdir(buf, mode) < 0 && errno != EEXIST)
			return -errno;
		*p = saved;
		if (saved == '\0')
			break;
	}
	struct stat st;
	if (stat(path, &st) < 0)
		return -errno;
	return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
}

static void remove_below(int dirfd, dev_t dev, unsigned depth)
{
	DIR *d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		return;
	}
	struct dirent *de;
	while ((de = readdir(d))) {
		struct stat st;
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || st.st_dev != dev)
			continue;
		if (S_ISDIR(st.st_mode)) {
			/* bounded: a tree deeper than this is left, not a stack overflow */
			int sub = depth < 256
				      ? openat(dirfd, de->d_name,
					       O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
				      : -1;
			if (sub >= 0)
				remove_below(sub, dev, depth + 1);
			unlinkat(dirfd, de->d_name, AT_REMOVEDIR);
		} else {
			unlinkat(dirfd, de->d_name, 0);
		}
	}
	closedir(d);
}

void remove_tree_contents(int dirfd, dev_t dev)
{
	remove_below(dirfd, dev, 0);
}

int parse_uint(const char *s, unsigned max, unsigned *out)
{
	char *end;
	if (*s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

int wait_for_path(const char *path, unsigned ms)
{
	for (unsigned waited = 0; access(path, F_OK) < 0; waited += 5) {
		if (waited >= ms)
			return -ENODEV;
		nanosleep(&(struct timespec){0, 5000000}, NULL);
	}
	return 0;
}
