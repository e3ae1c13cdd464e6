// SPDX-License-Identifier: GPL-2.0-only
/*
 * The flash back ends. Adding a kind of flash: its lookups here, a row, a
 * Kconfig choice entry and the choice's test in `flash` below (docs/flash.md,
 * "Adding a kind of flash").
 */
#include "flash.h"
#include "log.h"
#include "mtd.h"
#include "ubi.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* xsnprintf's length is no error: 0 */
static int ok(int r)
{
	return r < 0 ? r : 0;
}

/* ---- MTD partitions (/proc/mtd) ---------------------------------------------------- */

static const char *mtd_table(void)
{
	static char text[4096];
	if (read_file("/proc/mtd", text, sizeof(text)) < 0)
		text[0] = '\0';
	return text;
}

static int mtd_lookup(const char *name, struct mtd_part *part)
{
	memset(part, 0, sizeof(*part));
	return mtd_find(mtd_table(), name, part);
}

static int mtd_lower(const char *name, char *dev, size_t len)
{
	struct mtd_part part;
	int r = mtd_lookup(name, &part);
	return r < 0 ? r : ok(xsnprintf(dev, len, "/dev/mtdblock%d", part.index));
}

static int mtd_raw(const char *name, char *dev, size_t len)
{
	struct mtd_part part;
	int r = mtd_lookup(name, &part);
	return r < 0 ? r : ok(xsnprintf(dev, len, "/dev/mtd%d", part.index));
}

static int mtd_upper(const char *name, unsigned percent, struct data_source *ds)
{
	struct mtd_part part;
	(void)percent;
	int r = mtd_lookup(name, &part);
	if (r < 0)
		return r;
	ds->size = part.size;
	ds->erasesize = part.erasesize;
	if (xsnprintf(ds->src, sizeof(ds->src), "mtd%d", part.index) < 0 ||
	    xsnprintf(ds->dev, sizeof(ds->dev), "/dev/mtd%dro", part.index) < 0)
		return -ENAMETOOLONG;
	return 0;
}

static void mtd_names(char *buf, size_t len)
{
	mtd_list_names(mtd_table(), buf, len);
}

/* ---- UBI volumes on ubi0 (the board's ubi module parameters attach it) ------------- */

static int ubi_lower(const char *name, char *dev, size_t len)
{
	int vol_id, r = ubi_find_volume(0, name, &vol_id);
	return r < 0 ? r : ubi_block_device(0, vol_id, dev, len);
}

static int ubi_raw(const char *name, char *dev, size_t len)
{
	int vol_id, r = ubi_find_volume(0, name, &vol_id);
	return r < 0 ? r : ok(xsnprintf(dev, len, "/dev/ubi0_%d", vol_id));
}

static int ubi_upper(const char *name, unsigned percent, struct data_source *ds)
{
	int vol_id = -1;
	int r = ubi_find_volume(0, name, &vol_id);
	if (r == -ENOENT) {
		uint64_t bytes = 0;
		if ((r = ubi_create_volume(0, name, percent, &vol_id, &bytes)) < 0)
			return r == -ENOENT ? -ENODEV : r; /* -ENOENT means not found */
		ds->created = true;
		log_notice("first boot: created UBI volume '%s' (ubi0_%d, %llu bytes)", name,
			   vol_id, (unsigned long long)bytes);
	} else if (r < 0) {
		return r;
	}
	if (xsnprintf(ds->src, sizeof(ds->src), "ubi0:%s", name) < 0 ||
	    xsnprintf(ds->dev, sizeof(ds->dev), "/dev/ubi0_%d", vol_id) < 0)
		return -ENAMETOOLONG;
	wait_for_path(ds->dev, 1000); /* not there: the mount names it */
	return 0;
}

static void ubi_names(char *buf, size_t len)
{
	ubi_list_volumes(0, buf, len);
}

/* ---- GPT partitions of a block device, by name (PARTNAME) -------------------------- */

/*
 * Calls fn for each partition with a GPT name (PARTNAME in its uevent) until
 * it returns nonzero, and returns that, or 0; -errno without sysfs.
 */
static int block_each(int (*fn)(void *arg, const char *dev, const char *partname), void *arg)
{
	DIR *d = opendir("/sys/class/block");
	if (!d)
		return -errno;
	struct dirent *de;
	int r = 0;
	while (r == 0 && (de = readdir(d))) {
		char path[300], text[512];
		if (de->d_name[0] == '.' ||
		    xsnprintf(path, sizeof(path), "/sys/class/block/%s/uevent", de->d_name) < 0 ||
		    read_file(path, text, sizeof(text)) < 0)
			continue;
		for (char *p = strstr(text, "PARTNAME="); p; p = strstr(p + 1, "PARTNAME="))
			if (p == text || p[-1] == '\n') {
				p[9 + strcspn(p + 9, "\n")] = '\0';
				r = fn(arg, de->d_name, p + 9);
				break;
			}
	}
	closedir(d);
	return r;
}

struct block_query {
	const char *name;
	char *dev;
	size_t len;
};

static int block_match(void *arg, const char *dev, const char *partname)
{
	struct block_query *q = arg;
	if (strcmp(partname, q->name) != 0)
		return 0;
	int r = xsnprintf(q->dev, q->len, "/dev/%s", dev);
	return r < 0 ? r : 1;
}

/* "/dev/vda1" for the partition whose GPT name is name; -ENOENT. */
static int block_lower(const char *name, char *dev, size_t len)
{
	struct block_query q = {name, dev, len};
	int r = block_each(block_match, &q);
	return r == 1 ? 0 : r < 0 ? r : -ENOENT;
}

struct name_list {
	char *buf;
	size_t len, used;
};

static int block_name(void *arg, const char *dev, const char *partname)
{
	struct name_list *nl = arg;
	(void)dev;
	if (nl->used < nl->len) {
		int n = snprintf(nl->buf + nl->used, nl->len - nl->used, "%s\"%s\"",
				 nl->used ? ", " : "", partname);
		nl->used += n > 0 ? (size_t)n : 0;
	}
	return 0;
}

static void block_names(char *buf, size_t len)
{
	struct name_list nl = {buf, len, 0};
	buf[0] = '\0';
	block_each(block_name, &nl);
	if (!nl.used)
		snprintf(buf, len, "none");
}

static int block_upper(const char *name, unsigned percent, struct data_source *ds)
{
	(void)percent;
	int r = block_lower(name, ds->dev, sizeof(ds->dev));
	if (r < 0)
		return r;
	return ok(xsnprintf(ds->src, sizeof(ds->src), "%s", ds->dev));
}

/* ---- the table ------------------------------------------------------------------------ */

static const struct flash_backend mtd_jffs2 = {
    .name = "mtd+jffs2",
    .fstype = "jffs2",
    .content = FLASH_JFFS2,
    .unit = "partition",
    .where = "",
    .table = "MTD partitions",
    .lower = mtd_lower,
    .upper = mtd_upper,
    .names = mtd_names,
    .raw = mtd_raw,
    .erased_is_empty = true,
    .scrubs_deadcode = true,
};

static const struct flash_backend ubi_ubifs = {
    .name = "ubi+ubifs",
    .fstype = "ubifs",
    .content = FLASH_UBIFS,
    .unit = "volume",
    .where = " on ubi0",
    .table = "volumes",
    .lower = ubi_lower,
    .upper = ubi_upper,
    .names = ubi_names,
    .raw = ubi_raw,
    .creates_upper = true,
    .erased_is_empty = true,
    .record_is_ubi = true,
};

static const struct flash_backend block_ext4 = {
    .name = "block+ext4",
    .fstype = "ext4",
    .content = FLASH_EXT4,
    .unit = "partition",
    .where = ": no GPT partition of that name",
    .table = "GPT partitions",
    .lower = block_lower,
    .upper = block_upper,
    .names = block_names,
};

static const struct flash_backend block_f2fs = {
    .name = "block+f2fs",
    .fstype = "f2fs",
    .content = FLASH_F2FS,
    .unit = "partition",
    .where = ": no GPT partition of that name",
    .table = "GPT partitions",
    .lower = block_lower,
    .upper = block_upper,
    .names = block_names,
};

/* a constant: the rows the board did not choose are dropped at link time */
const struct flash_backend *const flash = CONFIG_STRATA_FLASH_UBI_UBIFS	   ? &ubi_ubifs
					  : CONFIG_STRATA_FLASH_BLOCK_EXT4 ? &block_ext4
					  : CONFIG_STRATA_FLASH_BLOCK_F2FS ? &block_f2fs
									   : &mtd_jffs2;
