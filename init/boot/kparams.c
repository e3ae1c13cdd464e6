// SPDX-License-Identifier: GPL-2.0-only
/*
 * Parameters of modules built into the kernel, applied at run time: what
 * the board's list gives a module is written to /sys/module/NAME/parameters
 * (phram and block2mtd create one device per write there, where the kernel
 * command line keeps only the last of each), and UBI's read-only "mtd" and
 * "block" parameters become what they ask for through /dev/ubi_ctrl.
 */
#include "boot.h"
#include "modules.h"
#include "mtd.h"
#include "mtd_abi.h"
#include "ubi.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* a number, or -1 */
static int number(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);
	return (*s && !*end && v >= 0 && v < 1 << 20) ? (int)v : -1;
}

/* "mtd=NAME|N[,...]": attaches that MTD device to a new UBI device */
static int ubi_attach_param(const char *val)
{
	char name[64];
	size_t len = strcspn(val, ",");
	if (len == 0 || len >= sizeof(name))
		return -EINVAL;
	memcpy(name, val, len);
	name[len] = '\0';
	int mtd = number(name);
	if (mtd < 0) {
		static char table[4096];
		struct mtd_part part = {0};
		if (read_file("/proc/mtd", table, sizeof(table)) < 0)
			table[0] = '\0';
		int r = mtd_find(table, name, &part);
		if (r < 0)
			return r;
		mtd = part.index;
	}
	int fd = open("/dev/ubi_ctrl", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct ubi_attach_req req = {.ubi_num = UBI_DEV_NUM_AUTO, .mtd_num = mtd};
	int r = ioctl(fd, UBI_IOCATT, &req) < 0 && errno != EEXIST ? -errno : 0;
	close(fd);
	return r;
}

/* "block=UBI,VOLUME" (a volume name or number): its ubiblock device */
static int ubi_block_param(const char *val)
{
	char dev[64];
	const char *comma = strchr(val, ',');
	int ubi = comma ? atoi(val) : -1, vol_id;
	if (ubi < 0 || !comma[1])
		return -EINVAL;
	vol_id = number(comma + 1);
	if (vol_id < 0) {
		int r = ubi_find_volume(ubi, comma + 1, &vol_id);
		if (r < 0)
			return r;
	}
	return ubi_block_device(ubi, vol_id, dev, sizeof(dev));
}

int builtin_params_apply(const char *module, const char *params)
{
	char key[64], val[448], path[160];
	const char *p = params;
	int r;
	while ((r = modparam_next(&p, key, sizeof(key), val, sizeof(val))) != 0) {
		if (r < 0)
			return r;
		if (strcmp(module, "ubi") == 0 && strcmp(key, "mtd") == 0)
			r = ubi_attach_param(val);
		else if (strcmp(module, "ubi") == 0 && strcmp(key, "block") == 0)
			r = ubi_block_param(val);
		else if ((r = xsnprintf(path, sizeof(path), "/sys/module/%s/parameters/%s", module,
					key)) >= 0) {
			int fd = open(path, O_WRONLY | O_CLOEXEC);
			if (fd < 0)
				return -errno;
			size_t n = strlen(val);
			r = write(fd, val, n) == (ssize_t)n ? 0 : -errno;
			close(fd);
		}
		if (r < 0)
			return r;
	}
	return 0;
}
