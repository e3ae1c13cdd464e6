// SPDX-License-Identifier: GPL-2.0-only
/* Layer measurement and the fs-verity object store. */
#include "fsverity.h"
#include "safefs.h"
#include "store.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* <linux/fsverity.h> (musl has no kernel headers) */
#define FS_VERITY_HASH_ALG_SHA256 1
struct fsverity_enable_arg {
	uint32_t version, hash_algorithm, block_size, salt_size;
	uint64_t salt_ptr;
	uint32_t sig_size, reserved1;
	uint64_t sig_ptr, reserved2[11];
};
struct fsverity_digest {
	uint16_t digest_algorithm, digest_size;
	uint8_t digest[];
};
#define FS_IOC_ENABLE_VERITY _IOW('f', 133, struct fsverity_enable_arg)
#define FS_IOC_MEASURE_VERITY _IOWR('f', 134, struct fsverity_digest)

int layer_measure(const char *path, uint64_t bytes, uint8_t digest[FSVERITY_DIGEST_SIZE],
		  bool *kernel)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* an image file with fs-verity: the kernel knows its digest, O(1) */
	struct {
		struct fsverity_digest d;
		uint8_t buf[FSVERITY_DIGEST_SIZE];
	} m = {.d.digest_size = FSVERITY_DIGEST_SIZE};
	int r;
	*kernel = ioctl(fd, FS_IOC_MEASURE_VERITY, &m) == 0 &&
		  m.d.digest_algorithm == FS_VERITY_HASH_ALG_SHA256;
	if (*kernel) {
		memcpy(digest, m.d.digest, FSVERITY_DIGEST_SIZE);
		r = 0;
	} else {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);
		r = fsverity_digest_fd(fd, bytes, cpus > 1 ? (unsigned)cpus : 1, digest);
	}
	close(fd);
	return r;
}

/*
 * fs-verity on one object, which fstatat saw as a regular file: opened without
 * following a link or blocking, and confirmed a regular file once open.
 * -EEXIST: it has fs-verity already; -EFTYPE: not a regular file after all
 * (*kind says what).
 */
static int enable_verity(int dirfd, const char *name, mode_t *kind)
{
	struct fsverity_enable_arg arg = {
	    .version = 1,
	    .hash_algorithm = FS_VERITY_HASH_ALG_SHA256,
	    .block_size = FSVERITY_BLOCK_SIZE,
	};
	struct stat st;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 && errno == ELOOP)
		*kind = S_IFLNK;
	if (fd < 0)
		return errno == ELOOP ? -EFTYPE : -errno;
	int r = 0;
	if (fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISREG(st.st_mode))
		r = -EFTYPE;
	else if (ioctl(fd, FS_IOC_ENABLE_VERITY, &arg) < 0)
		r = -errno;
	if (r == -EFTYPE)
		*kind = st.st_mode & S_IFMT;
	close(fd);
	return r;
}

/* An entry that is neither a fan-out directory nor an object: counted, named, left alone. */
static void note_stray(struct store_stats *st, mode_t kind, const char *dir, const char *name,
		       char *stray, size_t len)
{
	if (st->stray++ == 0) {
		st->stray_kind = kind;
		snprintf(stray, len, "%s%s%s", dir, dir[0] ? "/" : "", name);
	}
}

static bool is_dot(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

/*
 * The objects of one fan-out directory (dfd, closed here). A failing object
 * is counted in st->failed (the first named in failed); -errno only when the
 * directory cannot be read.
 */
static int enable_verity_in(int dfd, const char *dir, struct store_stats *st, char *failed,
			    size_t len, char *stray, size_t stray_len)
{
	DIR *sub = fdopendir(dfd);
	if (!sub) {
		int err = -errno;
		close(dfd);
		return err;
	}
	struct dirent *oe;
	while ((errno = 0, oe = readdir(sub))) {
		struct stat sb;
		if (is_dot(oe->d_name))
			continue;
		mode_t kind = 0;
		int r = -EFTYPE;
		if (fstatat(dirfd(sub), oe->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0)
			r = -errno;
		else if ((kind = sb.st_mode & S_IFMT) == S_IFREG)
			r = enable_verity(dirfd(sub), oe->d_name, &kind);
		if (r == -EFTYPE) {
			note_stray(st, kind, dir, oe->d_name, stray, stray_len);
			continue;
		}
		st->objects++;
		if (r == 0) {
			st->enabled++;
		} else if (r != -EEXIST && st->failed++ == 0) {
			/* the object is unusable; overlayfs refuses it at open (EIO) */
			snprintf(failed, len, "%s/%s", dir, oe->d_name);
		}
	}
	int err = -errno;
	closedir(sub);
	return err;
}

int store_enable_verity(const char *data_dir, const char *store, const char *stamp, const char *key,
			struct store_stats *st, char *failed, size_t len, char *stray,
			size_t stray_len)
{
	char text[96];
	mode_t found;
	memset(st, 0, sizeof(*st));
	failed[0] = stray[0] = '\0';
	int base = safe_base(data_dir);
	if (base < 0) {
		snprintf(failed, len, "%s", data_dir);
		return base;
	}
	/* a stamp of the wrong kind or size is no stamp: the walk runs and replaces it */
	if (key && safe_read_file(base, stamp, text, sizeof(text), &found) > 0 &&
	    strcmp(text, key) == 0) {
		st->skipped = true;
		close(base);
		return 0;
	}
	int err = 0, sfd = safe_open_dir(base, store, &st->found);
	DIR *top = sfd < 0 ? NULL : fdopendir(sfd);
	if (!top) {
		err = sfd < 0 ? sfd : -errno;
		if (sfd >= 0)
			close(sfd);
		close(base);
		snprintf(failed, len, "%s", store);
		return err;
	}
	struct dirent *de;
	while (err == 0 && (errno = 0, de = readdir(top))) {
		struct stat sb;
		if (is_dot(de->d_name))
			continue;
		if (fstatat(dirfd(top), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0) {
			err = -errno;
			snprintf(failed, len, "%s", de->d_name);
			break;
		}
		mode_t kind = sb.st_mode & S_IFMT;
		int dfd =
		    S_ISDIR(sb.st_mode) ? safe_open_dir(dirfd(top), de->d_name, &kind) : -EFTYPE;
		/* a symlink, a non-directory, another filesystem: no fan-out directory */
		if (dfd == -EFTYPE || dfd == -ELOOP || dfd == -EXDEV) {
			note_stray(st, kind, "", de->d_name, stray, stray_len);
			continue;
		}
		err = dfd;
		if (dfd >= 0)
			err = enable_verity_in(dfd, de->d_name, st, failed, len, stray, stray_len);
		if (err < 0) {
			st->found = kind;
			snprintf(failed, len, "%s", de->d_name);
		}
	}
	if (err == 0 && errno) {
		err = -errno;
		snprintf(failed, len, "%s", store);
	}
	closedir(top);
	/* the stamp says every object has fs-verity */
	if (err == 0 && !st->failed && key) {
		err = safe_write_file(base, stamp, key, strlen(key), true);
		if (err < 0)
			snprintf(failed, len, "%s", stamp);
	}
	close(base);
	return err < 0 ? err : st->failed ? -EIO : 0;
}
