// SPDX-License-Identifier: GPL-2.0-only
/*
 * A layer served through dm-verity: the init checks the hash tree against
 * the root hash the manifest pins (1/128 of the data), then sets up the
 * kernel's verity target over the raw device with the device-mapper ioctls,
 * and the kernel checks each data block when it is read. No libdevmapper,
 * no veritysetup, no udev: /dev/dm-N is made here when devtmpfs has not.
 */
#include "dm_abi.h"
#include "dmverity.h"
#include "log.h"
#include "boot.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define DM_CONTROL "/dev/mapper/control"

static void dm_init(struct dm_ioctl *io, size_t size, const char *name)
{
	memset(io, 0, size);
	io->version[0] = 4; /* interface 4, any minor */
	io->data_size = (uint32_t)size;
	io->data_start = sizeof(*io);
	snprintf(io->name, sizeof(io->name), "%s", name);
}

static int dm_control(void)
{
	int fd = open(DM_CONTROL, O_RDWR | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT) {
		/* devtmpfs makes it when dm-mod loads; without it, the misc device 10:236 */
		mkdir_p("/dev/mapper", 0755);
		if (mknod(DM_CONTROL, S_IFCHR | 0600, makedev(10, 236)) < 0 && errno != EEXIST)
			return -errno;
		fd = open(DM_CONTROL, O_RDWR | O_CLOEXEC);
	}
	return fd < 0 ? -errno : fd;
}

/* What dm-verity does when a block read at run time does not match: "eio" (default), ... */
static const char *error_option(void)
{
	if (strcmp(CONFIG_STRATA_DMVERITY_ERROR, "restart") == 0)
		return " restart_on_corruption";
	if (strcmp(CONFIG_STRATA_DMVERITY_ERROR, "panic") == 0)
		return " panic_on_corruption";
	return "";
}

int dmverity_check(const char *dev, const struct manifest_layer *m, const char **error)
{
	struct stat st = {0};
	int fd = open(dev, O_RDONLY | O_CLOEXEC), r = 0;
	if (fd < 0 || fstat(fd, &st) < 0)
		r = -errno;
	else if (!S_ISBLK(st.st_mode))
		r = -ENOTBLK;
	if (r < 0) {
		*error = "cannot be read";
		goto out;
	}
	/* a tree that does not hash to the pinned root: a changed tree, or the wrong root */
	r = dmverity_check_tree(fd, m->bytes, m->digest, m->salt);
	if (r < 0)
		*error = r == -EBADMSG	 ? "hash tree does not match the root hash"
			 : r == -ENODATA ? "shorter than the manifest says"
					 : "hash tree cannot be read";
out:
	if (fd >= 0)
		close(fd);
	return r;
}

int dmverity_map(const char *name, const char *dev, const struct manifest_layer *m, bool eio,
		 char *out, size_t outlen, const char **error)
{
	static union {
		struct dm_ioctl io;
		char buf[sizeof(struct dm_ioctl) + sizeof(struct dm_target_spec) + 512];
	} u;
	char root[FSVERITY_HEX_SIZE], salt[FSVERITY_HEX_SIZE], dmname[80];
	struct stat st;
	int r;
	*error = "device-mapper setup failed";
	/* the device the tree was checked on: a block device, by the same path */
	if (stat(dev, &st) < 0)
		return -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	int ctl = dm_control();
	if (ctl < 0)
		return ctl;
	snprintf(dmname, sizeof(dmname), "strata-%s", name);
	dm_init(&u.io, sizeof(struct dm_ioctl), dmname);
	if (ioctl(ctl, DM_DEV_CREATE, &u.io) < 0) {
		r = -errno;
		close(ctl);
		return r;
	}
	dev_t dm = (dev_t)u.io.dev;
	uint64_t blocks = m->bytes / DMVERITY_BLOCK;
	fsverity_to_hex(m->digest, root);
	fsverity_to_hex(m->salt, salt);
	dm_init(&u.io, sizeof(u), dmname);
	u.io.target_count = 1;
	u.io.flags = DM_READONLY_FLAG;
	struct dm_target_spec *t = (struct dm_target_spec *)(u.buf + sizeof(struct dm_ioctl));
	char *params = (char *)(t + 1);
	t->sector_start = 0;
	t->length = blocks * (DMVERITY_BLOCK / 512);
	snprintf(t->target_type, sizeof(t->target_type), "verity");
	/* the parity after the tree covers data and tree: fec_start = fec_blocks = their blocks */
	char fec[96] = "";
	const char *on_error = eio ? "" : error_option();
	unsigned words = on_error[0] != '\0';
	if (m->fec_roots) {
		unsigned long long covered = blocks + dmverity_tree_blocks(blocks);
		snprintf(fec, sizeof(fec),
			 " use_fec_from_device %u:%u fec_start %llu fec_blocks %llu fec_roots %u",
			 major(st.st_rdev), minor(st.st_rdev), covered, covered, m->fec_roots);
		words += 8;
	}
	int n = snprintf(params, sizeof(u) - sizeof(struct dm_ioctl) - sizeof(*t),
			 "1 %u:%u %u:%u 4096 4096 %llu %llu sha256 %s %s%s%.0u%s%s",
			 major(st.st_rdev), minor(st.st_rdev), major(st.st_rdev), minor(st.st_rdev),
			 (unsigned long long)blocks, (unsigned long long)blocks, root, salt,
			 words ? " " : "", words, fec, on_error);
	t->next = (uint32_t)((sizeof(*t) + (size_t)n + 1 + 7) & ~(size_t)7);
	u.io.data_size = (uint32_t)(sizeof(struct dm_ioctl) + t->next);
	r = ioctl(ctl, DM_TABLE_LOAD, &u.io) < 0 ? -errno : 0;
	if (r == 0) {
		dm_init(&u.io, sizeof(struct dm_ioctl), dmname); /* resume: the table goes live */
		r = ioctl(ctl, DM_DEV_SUSPEND, &u.io) < 0 ? -errno : 0;
	}
	if (r < 0) {
		dm_init(&u.io, sizeof(struct dm_ioctl), dmname);
		ioctl(ctl, DM_DEV_REMOVE, &u.io);
		close(ctl);
		return r;
	}
	close(ctl);
	if (xsnprintf(out, outlen, "/dev/dm-%u", minor(dm)) < 0)
		r = -ENAMETOOLONG;
	else if (mknod(out, S_IFBLK | 0400, dm) < 0 && errno != EEXIST)
		r = -errno;
	if (r < 0) {
		dmverity_unmap(name); /* no device left behind for a layer that is not used */
		return r;
	}
	log_debug("dm-verity '%s' on %s: %s", name, out, params);
	return r;
}

int dmverity_read_tree(const char *mapped, const struct manifest_layer *m)
{
	static uint8_t block[DMVERITY_BLOCK];
	uint64_t blocks = m->bytes / DMVERITY_BLOCK;
	int fd = open(mapped, O_RDONLY | O_CLOEXEC), r = 0;
	if (fd < 0)
		return -errno;
	/* the first data block under each bottom tree block: every tree block is on one's path */
	for (uint64_t b = 0; b < blocks && r == 0; b += DMVERITY_BLOCK / FSVERITY_DIGEST_SIZE) {
		ssize_t n = pread(fd, block, sizeof(block), (off_t)(b * DMVERITY_BLOCK));
		if (n != (ssize_t)sizeof(block))
			r = n < 0 ? -errno : -EIO;
	}
	close(fd);
	return r;
}

void dmverity_unmap(const char *name)
{
	struct dm_ioctl io;
	char dmname[80];
	int ctl = dm_control();
	if (ctl < 0)
		return;
	snprintf(dmname, sizeof(dmname), "strata-%s", name);
	dm_init(&io, sizeof(io), dmname);
	ioctl(ctl, DM_DEV_REMOVE, &io);
	close(ctl);
}
