// SPDX-License-Identifier: GPL-2.0-only
/* Hand-off to the real init: move the API filesystems, free the initramfs, chroot, exec. */
#include "log.h"
#include "strata.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <stdio.h>
#include <unistd.h>

#ifndef RAMFS_MAGIC
#define RAMFS_MAGIC 0x858458f6
#endif
#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

/* API filesystems that the real init expects to find already mounted */
static const char *const moved_mounts[] = { "/dev", "/proc", "/sys", "/run" };

static uint64_t used_bytes(const char *path)
{
	struct statfs sf;
	if (statfs(path, &sf) < 0)
		return 0;
	return (uint64_t)(sf.f_blocks - sf.f_bfree) * (uint64_t)sf.f_bsize;
}

int switch_root_into(struct strata_ctx *ctx, const char *newroot)
{
	struct stat root_st, new_st;
	struct statfs sf;
	char target[128];
	int r;

	/* every safety check before anything destructive */
	if (stat("/", &root_st) < 0 || stat(newroot, &new_st) < 0)
		return log_error_errno(-errno, "cannot stat '/' or '%s': %m", newroot);
	if (root_st.st_dev == new_st.st_dev)
		return log_error_errno(-EINVAL, "'%s' is not a mount point; refusing switch_root",
				       newroot);
	if (statfs("/", &sf) < 0 ||
	    (sf.f_type != (typeof(sf.f_type))RAMFS_MAGIC &&
	     sf.f_type != (typeof(sf.f_type))TMPFS_MAGIC))
		return log_error_errno(-EINVAL, "'/' is not an initramfs; refusing to free it");
	if (access("/init", F_OK) < 0)
		return log_error_errno(-EINVAL, "'/init' is missing; refusing to free '/'");

	for (size_t i = 0; i < ARRAY_SIZE(moved_mounts); i++) {
		if ((r = xsnprintf(target, sizeof(target), "%s%s", newroot, moved_mounts[i])) < 0)
			return log_error_errno(r, "path '%s%s' too long", newroot,
					       moved_mounts[i]);
		if (mkdir(target, 0755) < 0 && errno != EEXIST)
			log_warn("cannot create '%s': %m", target);
		if (mount(moved_mounts[i], target, NULL, MS_MOVE, NULL) < 0) {
			log_warn("cannot move '%s' to '%s' (%m); detaching it", moved_mounts[i],
				 target);
			umount2(moved_mounts[i], MNT_DETACH);
		}
	}

	if (chdir(newroot) < 0)
		return log_error_errno(-errno, "cannot enter '%s': %m", newroot);
	ctx->rec.initramfs_bytes_before = used_bytes("/");
	int rootfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd >= 0)
		remove_tree_contents(rootfd, root_st.st_dev);
	ctx->rec.initramfs_bytes_after = used_bytes("/");

	if (mount(".", "/", NULL, MS_MOVE, NULL) < 0)
		return log_error_errno(-errno, "cannot move '%s' to '/': %m", newroot);
	if (chroot(".") < 0 || chdir("/") < 0)
		return log_error_errno(-errno, "cannot chroot into the new root: %m");
	return 0;
}

void exec_init(struct strata_ctx *ctx)
{
	int r = attach_console();
	if (r < 0)
		log_warn_errno(r, "cannot reopen /dev/console in the new root: %m");
	log_open();

	snprintf(ctx->rec.init, sizeof(ctx->rec.init), "%s", ctx->opts.init);
	uint64_t user_ns, sys_ns;
	ctx->rec.cpu_ns = process_cpu_ns() - ctx->rec.cpu_ns;
	process_rusage_ns(&user_ns, &sys_ns);
	ctx->rec.cpu_user_ns = user_ns - ctx->rec.cpu_user_ns;
	ctx->rec.cpu_sys_ns = sys_ns - ctx->rec.cpu_sys_ns;
	char status[2048];
	if (read_file("/proc/self/status", status, sizeof(status)) > 0)
		ctx->rec.maxrss_kb = proc_status_kb(status, "VmHWM");
	layers_discard_trash();
	ctx->rec.exec_ns = now_boottime_ns();
	boot_record_write(ctx);
	log_info("exec %s after %llu ms", ctx->opts.init,
		 (unsigned long long)((ctx->rec.exec_ns - ctx->rec.init_start_ns) / 1000000u));

	char *const argv[] = { ctx->opts.init, NULL };
	char *const envp[] = { "HOME=/", "TERM=linux", "PATH=/sbin:/bin:/usr/sbin:/usr/bin",
			       NULL };
	execve(ctx->opts.init, argv, envp);
	fatal(ctx, "cannot exec '%s': %m", ctx->opts.init);
}
