// SPDX-License-Identifier: GPL-2.0-only
/* The writable flash layer: identify, mount, prepare, probe; or degrade, loudly. */
#include "caps.h"
#include "flash.h"
#include "mtd_abi.h"
#include "log.h"
#include "safefs.h"
#include "boot.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#ifndef RENAME_WHITEOUT
#define RENAME_WHITEOUT (1 << 2)
#endif

/*
 * The first erase block after the first whose start is of kind want (its
 * offset, or 0 when none is); *dirty (when given) is set when a block is
 * neither erased nor of that kind. fd reads the partition.
 */
static uint64_t find_block(int fd, const struct data_source *part, enum flash_content want,
			   bool *dirty)
{
	unsigned char head[64];
	for (uint64_t off = part->erasesize; part->erasesize && off < part->size;
	     off += part->erasesize) {
		ssize_t m = pread(fd, head, sizeof(head), (off_t)off);
		if (m <= 0)
			break;
		enum flash_content c = flash_identify(head, (size_t)m);
		if (c == want)
			return off;
		if (dirty && c != FLASH_ERASED)
			*dirty = true;
	}
	return 0;
}

/*
 * Looks at the start of every erase block: a jffs2 whose first block was
 * being erased at a power cut still has nodes further on, and garbage is
 * told apart from a filesystem strata must not touch.
 */
static int identify(const struct data_source *part, enum flash_content *out)
{
	unsigned char buf[FLASHID_BYTES];
	int fd = open(part->dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = pread(fd, buf, sizeof(buf), 0);
	if (n < 0) {
		int err = -errno;
		close(fd);
		return err;
	}
	enum flash_content c = flash_identify(buf, (size_t)n);
	bool dirty = false;
	if (c == FLASH_ERASED || c == FLASH_UNKNOWN) {
		if (find_block(fd, part, FLASH_JFFS2, &dirty))
			c = FLASH_JFFS2;
		else if (dirty)
			c = FLASH_UNKNOWN;
	}
	close(fd);
	*out = c;
	return 0;
}

/*
 * OpenWrt's sysupgrade marks a partition to be formatted with 0xdeadc0de;
 * vanilla jffs2 fails to mount it (EIO). Erase the blocks that hold
 * anything, leave the erased ones alone: no full erase pass.
 */
static int erase_dirty_blocks(const struct data_source *part, uint64_t from, unsigned *erased)
{
	char dev[48];
	unsigned char head[64];
	if (xsnprintf(dev, sizeof(dev), "/dev/%s", part->src) < 0)
		return -ENAMETOOLONG;
	int fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = 0;
	*erased = 0;
	for (uint64_t off = from; off < part->size && r == 0; off += part->erasesize) {
		if (pread(fd, head, sizeof(head), (off_t)off) != (ssize_t)sizeof(head)) {
			r = -EIO;
			break;
		}
		if (flash_identify(head, sizeof(head)) == FLASH_ERASED)
			continue;
		struct erase_info_user ei = {(uint32_t)off, part->erasesize};
		if (ioctl(fd, MEMERASE, &ei) < 0)
			r = -errno;
		else
			(*erased)++;
	}
	close(fd);
	return r;
}

/*
 * sysupgrade on NOR (mtd -j) writes the kept configuration as a small jffs2,
 * then an erase block starting with 0xdeadc0de, and leaves the blocks after
 * it as they were. OpenWrt's kernel stops at the marker and erases the rest;
 * a vanilla jffs2 would read on and bring the old filesystem's nodes back.
 * Returns the marker's offset, or 0 when no block after the first has one.
 */
static uint64_t eof_marker(const struct data_source *part)
{
	int fd = part->erasesize ? open(part->dev, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0)
		return 0;
	uint64_t found = find_block(fd, part, FLASH_DEADCODE, NULL);
	close(fd);
	return found;
}

/*
 * dir is the live work directory (made by layers_prepare, no symlink on its
 * path); what sits at the probe's names is a leftover: removed, never opened.
 */
static int probe_rename(const char *dir, unsigned flags)
{
	static const char a[] = ".strata-probe-a", b[] = ".strata-probe-b";
	int d = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (d < 0)
		return -errno;
	int r = safe_remove(d, a);
	if (r == 0)
		r = safe_remove(d, b);
	int fa =
	    r < 0 ? -1 : openat(d, a, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	int fb = r < 0 || !(flags & RENAME_EXCHANGE)
		     ? -1
		     : openat(d, b, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	/* a leftover that cannot be removed is reported as the probe's error */
	if (r == 0 && (fa < 0 || ((flags & RENAME_EXCHANGE) && fb < 0)))
		r = -errno;
	else if (r == 0 && syscall(SYS_renameat2, d, a, d, b, flags) < 0)
		r = -errno;
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	unlinkat(d, a, 0);
	unlinkat(d, b, 0);
	close(d);
	return r;
}

#define CAPS_NAME "strata.caps" /* in STRATA_DATA_DIR */

/*
 * overlayfs wants RENAME_WHITEOUT and RENAME_EXCHANGE from its upper; vanilla
 * jffs2 has neither. The probe writes to flash, so its result is kept per
 * kernel release and only a new kernel probes again. The cache is on the
 * flash: anything but a small regular file there (a symlink, a FIFO, a
 * directory) is no cache, and the rewrite after the probe replaces it.
 */
void upper_probe_capabilities(struct strata_ctx *ctx)
{
	struct utsname uts;
	char cache[256], why[96];
	mode_t found = 0;
	int w, x;
	if (uname(&uts) < 0)
		snprintf(uts.release, sizeof(uts.release), "unknown");
	int base = safe_base(STRATA_DATA_DIR);
	ssize_t len =
	    base < 0 ? base : safe_read_file(base, CAPS_NAME, cache, sizeof(cache), &found);
	int cached = len > 0 ? caps_match(cache, (size_t)len, uts.release) : -ENOENT;
	if (len < 0 && len != -ENOENT)
		log_notice("not using %s/%s: %s; probing the upper again", STRATA_DATA_DIR,
			   CAPS_NAME, safe_strerror((int)len, found, why, sizeof(why)));
	if (cached >= 0) {
		w = cached & CAPS_WHITEOUT ? 0 : -EINVAL;
		x = cached & CAPS_EXCHANGE ? 0 : -EINVAL;
	} else {
		w = probe_rename(ctx->system_work, RENAME_WHITEOUT);
		x = probe_rename(ctx->system_work, RENAME_EXCHANGE);
		if ((w == 0 || w == -EINVAL) && (x == 0 || x == -EINVAL)) {
			int n = caps_format(cache, sizeof(cache), uts.release,
					    (w == 0 ? CAPS_WHITEOUT : 0) |
						(x == 0 ? CAPS_EXCHANGE : 0));
			int r = n < 0 ? n : base;
			if (r >= 0)
				r = safe_write_file(base, CAPS_NAME, cache, (size_t)n, false);
			if (r < 0)
				log_debug("cannot cache the capabilities in %s/%s: %s",
					  STRATA_DATA_DIR, CAPS_NAME,
					  safe_strerror(r, 0, why, sizeof(why)));
		}
	}
	if (base >= 0)
		close(base);
	ctx->rec.cap_rename_whiteout = w == 0 ? 1 : w == -EINVAL ? 0 : -1;
	ctx->rec.cap_rename_exchange = x == 0 ? 1 : x == -EINVAL ? 0 : -1;
	if (w < 0 || x < 0)
		log_warn("upper filesystem lacks%s%s: overlayfs cannot rename names that also "
			 "exist in the lower (EINVAL, EXDEV for directories)",
			 w < 0 ? " RENAME_WHITEOUT" : "", x < 0 ? " RENAME_EXCHANGE" : "");
}

int upper_mount_flash(struct strata_ctx *ctx, const struct data_source *data,
		      const char *mountpoint, char *reason, size_t reasonlen)
{
	enum flash_content content = FLASH_UNKNOWN, expected;
	const char *src = data->src, *fstype = data->fstype;
	uint64_t t0 = now_boottime_ns();
	int r = identify(data, &content);
	if (r < 0) {
		snprintf(reason, reasonlen, "cannot read '%s' (%s): %s", data->name, data->dev,
			 strerror(-r));
		return r;
	}
	expected = flash->content;
	uint64_t eof = content == expected && flash->scrubs_deadcode ? eof_marker(data) : 0;
	if (eof) {
		unsigned erased = 0;
		r = erase_dirty_blocks(data, eof, &erased);
		if (r < 0) {
			snprintf(reason, reasonlen, "cannot erase '%s' after its end marker: %s",
				 data->name, strerror(-r));
			return r;
		}
		log_notice("'%s' ends at 0x%llx (sysupgrade's 0xdeadc0de marker): erased the %u "
			   "blocks after it",
			   data->name, (unsigned long long)eof, erased);
	} else if (content == expected) {
		/* the filesystem is there */
	} else if (content == FLASH_DEADCODE && flash->scrubs_deadcode) {
		unsigned erased = 0;
		r = erase_dirty_blocks(data, 0, &erased);
		if (r < 0) {
			snprintf(reason, reasonlen, "cannot erase '%s' for formatting: %s",
				 data->name, strerror(-r));
			return r;
		}
		ctx->rec.first_boot = true;
		log_notice("first boot: '%s' is %s; erased %u of %llu blocks, starting an empty "
			   "jffs2",
			   data->name, flash_content_name(content), erased,
			   (unsigned long long)(data->size / data->erasesize));
	} else if (content == FLASH_ERASED && flash->erased_is_empty) {
		/* jffs2 takes erased blocks as empty space, ubifs formats an empty volume */
		ctx->rec.first_boot = true;
		log_notice("first boot: '%s' is %s; starting an empty %s", data->name,
			   data->created ? "a new volume" : flash_content_name(content), fstype);
	} else {
		snprintf(reason, reasonlen,
			 "'%s' holds %s, not %s; left untouched (erase it to start over)",
			 data->name, flash_content_name(content), fstype);
		return -EMEDIUMTYPE;
	}

	if ((r = mkdir_p(mountpoint, 0755)) < 0 ||
	    mount(src, mountpoint, fstype, MS_NOATIME, NULL) < 0) {
		r = r < 0 ? r : -errno;
		snprintf(reason, reasonlen, "cannot mount %s on '%s' (%s): %s", fstype, data->name,
			 src, strerror(-r));
		return r;
	}
	struct statvfs sv;
	if (statvfs(mountpoint, &sv) == 0 && (sv.f_flag & ST_RDONLY)) {
		snprintf(reason, reasonlen, "%s on '%s' (%s) is read-only", fstype, data->name,
			 src);
		umount2(mountpoint, MNT_DETACH);
		return -EROFS;
	}
	if (ctx->rec.first_boot) {
		ctx->rec.first_boot_format_ns = now_boottime_ns() - t0;
		log_notice("first boot: upper ready on '%s' in %llu ms", data->name,
			   (unsigned long long)(ctx->rec.first_boot_format_ns / 1000000u));
	}

	bootrec_add_layer(&ctx->rec,
			  strcmp(mountpoint, STRATA_DATA_DIR) == 0 ? "upper" : "user-upper", src,
			  fstype, mountpoint, "mounted");
	log_info("upper '%s' (%s, %s) on %s", data->name, src, fstype, mountpoint);
	return 0;
}

int upper_degrade(struct strata_ctx *ctx, const char *reason, int err, char *why, size_t whylen)
{
	switch (ctx->opts.degraded) {
	case DEGRADED_EMERGENCY:
		ctx->opts.fatal = FATAL_SHELL;
		snprintf(why, whylen, "flash upper unusable (strata.degraded=emergency): %s",
			 reason);
		return err < 0 ? err : -EIO;
	case DEGRADED_REBOOT:
		ctx->opts.fatal = FATAL_REBOOT;
		snprintf(why, whylen, "flash upper unusable (strata.degraded=reboot): %s", reason);
		return err < 0 ? err : -EIO;
	case DEGRADED_TMPFS:
		break;
	}
	log_error("flash upper unusable: %s (errno %d)", reason, -err);
	if (mount("tmpfs", STRATA_DATA_DIR, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0) {
		int e = errno;
		snprintf(why, whylen,
			 "flash upper unusable: %s; cannot set up a tmpfs upper either: %s", reason,
			 strerror(e));
		return -e;
	}
	snprintf(ctx->rec.degraded_reason, sizeof(ctx->rec.degraded_reason), "%s", reason);
	ctx->rec.degraded_errno = err < 0 ? -err : err;
	bootrec_add_layer(&ctx->rec, "upper", "tmpfs", "tmpfs", STRATA_DATA_DIR, "tmpfs");
	console_print("\n"
		      "**********************************************************************\n"
		      "* strata: DEGRADED BOOT: changes are kept in RAM and LOST at reboot. *\n"
		      "**********************************************************************\n"
		      "  reason: %s\n\n",
		      reason);
	return 0;
}
