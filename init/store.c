// SPDX-License-Identifier: GPL-2.0-only
/* Block partitions by GPT name, layer measurement, the fs-verity object store, the overlay mount. */
#include "fsverity.h"
#include "store.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
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

int block_find_partition(const char *partname, char *dev, size_t len)
{
	DIR *d = opendir("/sys/class/block");
	if (!d)
		return -errno;
	struct dirent *de;
	int r = -ENOENT;
	size_t nlen = strlen(partname);
	while (r == -ENOENT && (de = readdir(d))) {
		char path[300], text[512];
		if (de->d_name[0] == '.' ||
		    xsnprintf(path, sizeof(path), "/sys/class/block/%s/uevent", de->d_name) < 0 ||
		    read_file(path, text, sizeof(text)) < 0)
			continue;
		/* "PARTNAME=meta\n" exactly, not a prefix of another name */
		for (char *p = strstr(text, "PARTNAME="); p; p = strstr(p + 1, "PARTNAME="))
			if ((p == text || p[-1] == '\n') && strncmp(p + 9, partname, nlen) == 0 &&
			    (p[9 + nlen] == '\n' || p[9 + nlen] == '\0')) {
				r = xsnprintf(dev, len, "/dev/%s", de->d_name);
				break;
			}
	}
	closedir(d);
	return r;
}

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
	} m = { .d.digest_size = FSVERITY_DIGEST_SIZE };
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

/* fs-verity on one object; EEXIST: it has it already */
static int enable_verity(int dirfd, const char *name)
{
	struct fsverity_enable_arg arg = {
		.version = 1,
		.hash_algorithm = FS_VERITY_HASH_ALG_SHA256,
		.block_size = FSVERITY_BLOCK_SIZE,
	};
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = ioctl(fd, FS_IOC_ENABLE_VERITY, &arg) < 0 ? -errno : 0;
	close(fd);
	return r;
}

int store_enable_verity(const char *store, const char *stamp, const char *key,
			struct store_stats *st, char *failed, size_t len)
{
	char text[96];
	memset(st, 0, sizeof(*st));
	if (key && read_file(stamp, text, sizeof(text)) > 0 && strcmp(text, key) == 0) {
		st->skipped = true;
		return 0;
	}
	DIR *top = opendir(store);
	if (!top)
		return -errno;
	struct dirent *de;
	int err = 0;
	while ((de = readdir(top))) {
		if (de->d_name[0] == '.')
			continue;
		int dfd = openat(dirfd(top), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		DIR *sub = dfd < 0 ? NULL : fdopendir(dfd);
		if (!sub) {
			err = -errno;
			snprintf(failed, len, "%s", de->d_name);
			if (dfd >= 0)
				close(dfd);
			break;
		}
		struct dirent *oe;
		while ((oe = readdir(sub))) {
			if (oe->d_name[0] == '.')
				continue;
			int r = enable_verity(dirfd(sub), oe->d_name);
			st->objects++;
			if (r == 0) {
				st->enabled++;
			} else if (r != -EEXIST) {
				/* the object is unusable; overlayfs refuses it at open (EIO) */
				st->failed++;
				if (!err) {
					err = r;
					snprintf(failed, len, "%s/%s", de->d_name, oe->d_name);
				}
			}
		}
		closedir(sub);
	}
	closedir(top);
	if (err == 0 && key)
		err = write_file_atomic(stamp, key, strlen(key), true);
	return st->failed ? -EIO : err;
}

/* The new mount API (Linux 5.2; "lowerdir+"/"datadir+" since 6.8). */
#ifndef FSCONFIG_SET_STRING
#define FSCONFIG_SET_FLAG 0
#define FSCONFIG_SET_STRING 1
#define FSCONFIG_CMD_CREATE 6
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#define MOUNT_ATTR_NOATIME 0x00000010
#endif

static int fsconfig_str(int fd, const char *key, const char *value)
{
	return syscall(SYS_fsconfig, fd, value ? FSCONFIG_SET_STRING : FSCONFIG_SET_FLAG, key,
		       value, 0) < 0
		       ? -errno
		       : 0;
}

/* The kernel's own words on a failed fsconfig: "e overlay: ..." lines of the context. */
static void context_message(int fd, char *msg, size_t len)
{
	char line[256];
	ssize_t n;
	msg[0] = '\0';
	while ((n = read(fd, line, sizeof(line) - 1)) > 0) {
		line[n] = '\0';
		snprintf(msg, len, "%s", line);
	}
}

int ovl_mount_api(const struct ovl_spec *spec, const char *const *flags, const char *target,
		  char *msg, size_t len)
{
	msg[0] = '\0';
	int fd = (int)syscall(SYS_fsopen, "overlay", 1 /* FSOPEN_CLOEXEC */);
	if (fd < 0)
		return -errno;
	int r = 0;
	for (size_t i = 0; i < spec->n_lowers && r == 0; i++)
		r = fsconfig_str(fd, "lowerdir+", spec->lowers[i]);
	/* overlayfs before 6.8 does not know "lowerdir+": the API is there, the key is not */
	if (r == -EINVAL && spec->n_lowers && fsconfig_str(fd, "lowerdir", spec->lowers[0]) == 0) {
		snprintf(msg, len, "overlayfs does not know \"lowerdir+\"");
		close(fd);
		return -ENOSYS;
	}
	if (r == 0 && spec->datadir)
		r = fsconfig_str(fd, "datadir+", spec->datadir);
	if (r == 0 && spec->upper)
		r = fsconfig_str(fd, "upperdir", spec->upper);
	if (r == 0 && spec->work)
		r = fsconfig_str(fd, "workdir", spec->work);
	for (size_t i = 0; flags && flags[i] && r == 0; i++) {
		char key[32];
		const char *eq = strchr(flags[i], '=');
		size_t k = eq ? (size_t)(eq - flags[i]) : strlen(flags[i]);
		if (k >= sizeof(key)) {
			r = -EINVAL;
			break;
		}
		memcpy(key, flags[i], k);
		key[k] = '\0';
		r = fsconfig_str(fd, key, eq ? eq + 1 : NULL);
	}
	if (r == 0 && syscall(SYS_fsconfig, fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		r = -errno;
	int mfd = -1;
	if (r == 0 && (mfd = (int)syscall(SYS_fsmount, fd, 1 /* FSMOUNT_CLOEXEC */,
					    MOUNT_ATTR_NOATIME)) < 0)
		r = -errno;
	if (r == 0 && syscall(SYS_move_mount, mfd, "", AT_FDCWD, target,
			      MOVE_MOUNT_F_EMPTY_PATH) < 0)
		r = -errno;
	if (r < 0)
		context_message(fd, msg, len);
	if (mfd >= 0)
		close(mfd);
	close(fd);
	/* -ENOSYS is kept for "no such API" (above) */
	return r == -ENOSYS ? -EINVAL : r;
}
