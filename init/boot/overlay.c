// SPDX-License-Identifier: GPL-2.0-only
/*
 * The overlay phase: the squashfs lowers, the system overlay over them, the
 * user overlay over it. One spec per overlay (lib/ovl.h), mounted with the new
 * mount API, or with mount(2) where the kernel lacks it.
 */
#include "boot.h"
#include "log.h"
#include "ovl.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

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

/* The kernel's own words on a failed fsconfig: the context's first error message. */
static void context_message(int fd, char *msg, size_t len)
{
	char line[256];
	ssize_t n;
	msg[0] = '\0';
	while ((n = read(fd, line, sizeof(line) - 1)) > 0) {
		line[n] = '\0';
		fsctx_keep_message(msg, len, line);
	}
}

static int ovl_mount_api(const struct ovl_spec *spec, const char *target, char *msg, size_t len)
{
	msg[0] = '\0';
	int fd = (int)syscall(SYS_fsopen, "overlay", 1 /* FSOPEN_CLOEXEC */);
	if (fd < 0)
		return -errno;
	int r = spec->source ? fsconfig_str(fd, "source", spec->source) : 0;
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
	for (size_t i = 0; spec->flags && spec->flags[i] && r == 0; i++) {
		char key[32];
		const char *eq = strchr(spec->flags[i], '=');
		size_t k = eq ? (size_t)(eq - spec->flags[i]) : strlen(spec->flags[i]);
		if (k >= sizeof(key)) {
			r = -EINVAL;
			break;
		}
		memcpy(key, spec->flags[i], k);
		key[k] = '\0';
		r = fsconfig_str(fd, key, eq ? eq + 1 : NULL);
	}
	if (r == 0 && syscall(SYS_fsconfig, fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		r = -errno;
	int mfd = -1;
	if (r == 0 &&
	    (mfd = (int)syscall(SYS_fsmount, fd, 1 /* FSMOUNT_CLOEXEC */, MOUNT_ATTR_NOATIME)) < 0)
		r = -errno;
	if (r == 0 &&
	    syscall(SYS_move_mount, mfd, "", AT_FDCWD, target, MOVE_MOUNT_F_EMPTY_PATH) < 0)
		r = -errno;
	if (r < 0)
		context_message(fd, msg, len);
	if (mfd >= 0)
		close(mfd);
	close(fd);
	/* -ENOSYS is kept for "no such API" (above) */
	return r == -ENOSYS ? -EINVAL : r;
}

int lower_dir(const struct strata_ctx *ctx, size_t i, char *dir, size_t len)
{
	return xsnprintf(dir, len, STRATA_LOWER_DIR "/%zu", i + 1 == ctx->n_lowers ? 0 : i + 1);
}

int mount_lowers(struct strata_ctx *ctx, char *why, size_t whylen)
{
	for (size_t i = 0; i < ctx->n_lowers; i++) {
		struct lower_layer *l = &ctx->lowers[i];
		char dir[64];
		if (!l->dev[0])
			continue;
		if (lower_dir(ctx, i, dir, sizeof(dir)) < 0 || mkdir_p(dir, 0755) < 0 ||
		    mount(l->dev, dir, "squashfs", MS_RDONLY | MS_NODEV | MS_NOSUID, NULL) < 0) {
			int err = errno;
			if (!l->optional) {
				snprintf(why, whylen,
					 "cannot mount squashfs lower '%s' (%s) on %s: %s", l->name,
					 l->dev, dir, strerror(err));
				return -err;
			}
			log_warn("cannot mount optional add-on layer '%s' (%s) on %s: %m; booting "
				 "without it",
				 l->name, l->dev, dir);
			continue;
		}
		l->mounted = true;
		bootrec_add_layer(&ctx->rec, "lower", l->dev, "squashfs", dir, "mounted");
		bootrec_name_layer(&ctx->rec, l->name);
		log_info("lower '%s' (%s, squashfs) on %s", l->name, l->dev, dir);
	}
	return 0;
}

/*
 * The flags of an overlay with the object store as its data-only layer, for
 * both mount paths: verity=require implies metacopy=on; redirects into the
 * data-only layer are followed.
 */
static const char *const store_flags[] = {"metacopy=on", "verity=require", NULL};
/*
 * The collapsed root: the system overlay's upper is one of its lowers while
 * that overlay is mounted. overlayfs refuses that (EBUSY) where the index
 * feature is on (a kernel built with OVERLAY_FS_INDEX); off, it warns in kmsg
 * that the directory is in use as another mount's upper.
 */
static const char *const collapsed_flags[] = {"index=off", NULL};
static const char *const collapsed_store_flags[] = {"metacopy=on", "verity=require", "index=off",
						    NULL};

/*
 * The new mount API takes each layer as its own parameter (no escaping, no
 * page-size limit on the option string); kernels without it get mount(2)
 * with the same layers in one string ("::" before a data-only layer).
 */
static int mount_overlay(struct strata_ctx *ctx, const struct ovl_spec *spec, const char *target,
			 char *why, size_t whylen)
{
	char opts[1024], msg[256];
	int r = mkdir_p(target, 0755);
	if (r < 0) {
		snprintf(why, whylen, "cannot create %s: %s", target, strerror(-r));
		return r;
	}
	r = -ENOSYS;
	if (ctx->opts.legacy_mount)
		snprintf(msg, sizeof(msg), "strata.mountapi=legacy");
	else
		r = ovl_mount_api(spec, target, msg, sizeof(msg));
	if (r == 0) {
		log_debug("overlay on %s (fsopen): %zu lower(s)%s%s", target, spec->n_lowers,
			  spec->datadir ? ", data-only " : "", spec->datadir ? spec->datadir : "");
	} else {
		if (r != -ENOSYS) {
			snprintf(why, whylen, "cannot mount the overlay on %s: %s%s%s", target,
				 strerror(-r), msg[0] ? ": " : "", msg);
			return r;
		}
		log_warn("overlay on %s: no new mount API (%s); using mount(2)", target,
			 msg[0] ? msg : "fsopen: ENOSYS");
		r = ovl_build_options(spec, opts, sizeof(opts));
		if (r < 0) {
			snprintf(why, whylen, "cannot build overlay options for %s: %s", target,
				 strerror(-r));
			return r;
		}
		if (mount(spec->source ? spec->source : "overlay", target, "overlay", MS_NOATIME,
			  opts) < 0) {
			r = -errno;
			snprintf(why, whylen, "cannot mount the overlay on %s (%s): %s", target,
				 opts, strerror(-r));
			return r;
		}
		log_debug("overlay on %s: %s", target, opts);
	}
	/* overlayfs falls back to read-only when it cannot create work/work (ENOSPC) */
	struct statvfs sv;
	if (statvfs(target, &sv) == 0 && (sv.f_flag & ST_RDONLY))
		log_error("overlay on %s is READ-ONLY: overlayfs could not create its work "
			  "directory in %s (is the upper full?)",
			  target, spec->work);
	return 0;
}

/*
 * lowers -> system overlay (system upper) -> user overlay (user upper): two
 * levels, the kernel's FILESYSTEM_MAX_STACK_DEPTH (a deeper strata.stack= or
 * CONFIG_STRATA_STACK is refused before this), or the system overlay alone,
 * or collapsed (system+user): one overlay with the user upper over the
 * system upper and the lowers, which leaves the device a level of its own.
 * The system overlay stays mounted read-write at /run/strata/system for
 * provisioning.
 */
/* Binds dir onto NEWROOT/name when the root has a directory there (never a symlink). */
static void bind_into_root(const char *dir, const char *name, bool readonly)
{
	char target[64];
	struct stat st;
	if (xsnprintf(target, sizeof(target), STRATA_NEWROOT "/%s", name) < 0 ||
	    lstat(target, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	if (mount(dir, target, NULL, MS_BIND, NULL) < 0 ||
	    (readonly && mount(NULL, target, NULL,
			       MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0))
		log_warn("cannot bind %s to /%s: %m", dir, name);
}

/*
 * What OpenWrt's userland (fstools' layout) expects beside the root, where the
 * root has the directories for it: /rom the firmware, /overlay the live
 * generation of the upper of / (upper/ and work/ in it, so /overlay/upper is
 * exactly what changed through /, and df /overlay is the flash's). A
 * degraded boot has no flash upper: no /overlay, as on OpenWrt.
 */
static void bind_openwrt_dirs(struct strata_ctx *ctx)
{
	char gen[96];
	const char *upper = ctx->opts.stack_levels == 1 ? ctx->system_upper : ctx->user_upper;
	bind_into_root(STRATA_LOWER_DIR "/0", "rom", true);
	if (ctx->rec.degraded_reason[0] || xsnprintf(gen, sizeof(gen), "%s", upper) < 0 ||
	    !strrchr(gen, '/'))
		return;
	*strrchr(gen, '/') = '\0';
	bind_into_root(gen, "overlay", false);
}

int mount_layers(struct strata_ctx *ctx, char *why, size_t whylen)
{
	char dirs[LOWERS_MAX][64];
	/*
	 * The source OpenWrt (LuCI, sysupgrade) reads off /'s line in
	 * /proc/mounts, as fstools leaves it: the flash upper at /overlay, or
	 * RAM (/tmp/root) when the boot is degraded.
	 */
	const char *root_source =
	    ctx->rec.degraded_reason[0] ? "overlayfs:/tmp/root" : "overlayfs:/overlay";
	struct ovl_spec system = {.upper = ctx->system_upper,
				  .work = ctx->system_work,
				  .source = ctx->opts.stack_levels == 1 ? root_source : NULL};
	for (size_t i = 0; i < ctx->n_lowers; i++) {
		if (!ctx->lowers[i].mounted)
			continue;
		if (lower_dir(ctx, i, dirs[system.n_lowers], sizeof(dirs[0])) < 0) {
			snprintf(why, whylen, "lower directory of '%s': name too long",
				 ctx->lowers[i].name);
			return -ENAMETOOLONG;
		}
		system.lowers[system.n_lowers] = dirs[system.n_lowers];
		system.n_lowers++;
	}
	/* data-only layers live inside the system overlay: depth stays 2 */
	if (CONFIG_STRATA_STORE_DIR[0]) {
		system.datadir = STRATA_STORE;
		system.flags = store_flags;
	}
	int r = mount_overlay(ctx, &system, STRATA_SYSTEM_DIR, why, whylen);
	if (r < 0)
		return r;
	bootrec_add_layer(&ctx->rec, "system", "overlay", "overlay", STRATA_SYSTEM_DIR, "mounted");
	if (ctx->opts.stack_levels == 1) {
		/* one level: the root is the system overlay itself, still reachable there too */
		if ((r = mkdir_p(STRATA_NEWROOT, 0755)) < 0 ||
		    (r = mount(STRATA_SYSTEM_DIR, STRATA_NEWROOT, NULL, MS_BIND, NULL) < 0
			     ? -errno
			     : 0) < 0) {
			snprintf(why, whylen, "cannot bind the system overlay to %s: %s",
				 STRATA_NEWROOT, strerror(-r));
			return r;
		}
		bootrec_add_layer(&ctx->rec, "root", "overlay", "overlay", "/", "system");
		bind_openwrt_dirs(ctx);
		return 0;
	}
	struct ovl_spec user = {.lowers = {STRATA_SYSTEM_DIR},
				.n_lowers = 1,
				.upper = ctx->user_upper,
				.work = ctx->user_work,
				.source = root_source};
	if (ctx->opts.stack_collapsed) {
		/* the system layer's upper over the same lowers, store and flags */
		user = system;
		user.lowers[0] = ctx->system_upper;
		for (size_t i = 0; i < system.n_lowers; i++)
			user.lowers[i + 1] = system.lowers[i];
		user.n_lowers = system.n_lowers + 1;
		user.upper = ctx->user_upper;
		user.work = ctx->user_work;
		user.flags = system.datadir ? collapsed_store_flags : collapsed_flags;
		user.source = root_source;
	}
	if ((r = mount_overlay(ctx, &user, STRATA_NEWROOT, why, whylen)) < 0)
		return r;
	bootrec_add_layer(&ctx->rec, "root", "overlay", "overlay", "/",
			  ctx->opts.stack_collapsed ? "collapsed" : "mounted");
	bind_openwrt_dirs(ctx);
	return 0;
}
