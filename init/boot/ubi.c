// SPDX-License-Identifier: GPL-2.0-only
/* UBI volumes: look up by name in sysfs, create the data volume on first boot. */
#include "mtd_abi.h"
#include "ubi.h"
#include "strbuf.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int sysfs_read(const char *path, char *buf, size_t len)
{
	ssize_t n = read_file(path, buf, len);
	if (n < 0)
		return (int)n;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/* Calls fn(name, vol_id) for each volume of ubiN; stops when fn returns non-zero. */
static int for_each_volume(int ubi, int (*fn)(const char *, int, void *), void *arg)
{
	char dir[64], prefix[32], path[160], name[UBI_MAX_VOLUME_NAME + 2];
	int plen = xsnprintf(prefix, sizeof(prefix), "ubi%d_", ubi);
	if (plen < 0 || xsnprintf(dir, sizeof(dir), "/sys/class/ubi/ubi%d", ubi) < 0)
		return -ENAMETOOLONG;
	DIR *d = opendir(dir);
	if (!d)
		return -errno;
	struct dirent *de;
	int r = 0;
	while (!r && (de = readdir(d))) {
		if (strncmp(de->d_name, prefix, (size_t)plen) != 0)
			continue;
		if (xsnprintf(path, sizeof(path), "%s/%s/name", dir, de->d_name) < 0 ||
		    sysfs_read(path, name, sizeof(name)) < 0)
			continue;
		r = fn(name, atoi(de->d_name + plen), arg);
	}
	closedir(d);
	return r < 0 ? r : 0;
}

struct find_arg {
	const char *name;
	int vol_id;
};

static int match(const char *name, int vol_id, void *arg)
{
	struct find_arg *fa = arg;
	if (strcmp(name, fa->name) != 0)
		return 0;
	fa->vol_id = vol_id;
	return 1;
}

int ubi_find_volume(int ubi, const char *name, int *vol_id)
{
	struct find_arg fa = {name, -1};
	int r = for_each_volume(ubi, match, &fa);
	if (r < 0)
		return r;
	if (fa.vol_id < 0)
		return -ENOENT;
	*vol_id = fa.vol_id;
	return 0;
}

static int append(const char *name, int vol_id, void *arg)
{
	struct strbuf *sb = arg;
	(void)vol_id;
	strbuf_printf(sb, "%s\"%s\"", sb->used ? ", " : "", name);
	return 0;
}

void ubi_list_volumes(int ubi, char *buf, size_t len)
{
	struct strbuf sb;
	strbuf_init(&sb, buf, len);
	if (for_each_volume(ubi, append, &sb) < 0 || sb.used == 0)
		snprintf(buf, len, "none");
}

int ubi_create_volume(int ubi, const char *name, unsigned percent, int *vol_id, uint64_t *bytes)
{
	char path[64], val[32];
	struct ubi_mkvol_req req;
	size_t nlen = strlen(name);
	if (nlen > UBI_MAX_VOLUME_NAME)
		return -ENAMETOOLONG;
	int r = xsnprintf(path, sizeof(path), "/sys/class/ubi/ubi%d/avail_eraseblocks", ubi);
	if (r >= 0)
		r = sysfs_read(path, val, sizeof(val));
	if (r < 0)
		return r;
	uint64_t lebs = strtoull(val, NULL, 10);
	if ((r = xsnprintf(path, sizeof(path), "/sys/class/ubi/ubi%d/eraseblock_size", ubi)) < 0 ||
	    (r = sysfs_read(path, val, sizeof(val))) < 0)
		return r;
	uint64_t leb_size = strtoull(val, NULL, 10);
	lebs = percent >= 100 ? lebs : lebs * percent / 100;
	if (lebs == 0 || leb_size == 0)
		return -ENOSPC;

	memset(&req, 0, sizeof(req));
	req.vol_id = UBI_VOL_NUM_AUTO;
	req.alignment = 1;
	req.bytes = (int64_t)(lebs * leb_size);
	req.vol_type = UBI_DYNAMIC_VOLUME;
	req.name_len = (int16_t)nlen;
	memcpy(req.name, name, nlen);
	if ((r = xsnprintf(path, sizeof(path), "/dev/ubi%d", ubi)) < 0)
		return r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = ioctl(fd, UBI_IOCMKVOL, &req) < 0 ? -errno : 0;
	close(fd);
	if (r < 0)
		return r;
	*vol_id = req.vol_id;
	*bytes = (uint64_t)req.bytes;
	return 0;
}

int ubi_block_device(int ubi, int vol_id, char *dev, size_t devlen)
{
	char vol[32];
	if (snprintf(dev, devlen, "/dev/ubiblock%d_%d", ubi, vol_id) >= (int)devlen)
		return -ENAMETOOLONG;
	if (access(dev, F_OK) == 0)
		return 0;
	snprintf(vol, sizeof(vol), "/dev/ubi%d_%d", ubi, vol_id);
	int fd = open(vol, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct ubi_blkcreate_req req = {0};
	int r = ioctl(fd, UBI_IOCVOLCRBLK, &req) < 0 && errno != EEXIST ? -errno : 0;
	close(fd);
	return r < 0 ? r : wait_for_path(dev, 1000);
}
