// SPDX-License-Identifier: GPL-2.0-only
/* Hand-off to the real init: check it inside the new root, free the initramfs, chroot, exec. */
#define _GNU_SOURCE /* O_PATH */
#include "inroot.h"
#include "log.h"
#include "boot.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#ifndef RAMFS_MAGIC
#define RAMFS_MAGIC 0x858458f6
#endif
#ifndef TMPFS_MAGIC
#define TMPFS_MAGIC 0x01021994
#endif

/* API filesystems that the real init expects to find already mounted */
static const char *const moved_mounts[] = {"/dev", "/proc", "/sys", "/run"};

static uint64_t used_bytes(int fd)
{
	struct statfs sf;
	if (fstatfs(fd, &sf) < 0)
		return 0;
	return (uint64_t)(sf.f_blocks - sf.f_bfree) * (uint64_t)sf.f_bsize;
}

int root_is_initramfs(uint64_t *fstype)
{
	struct statfs sf;
	if (statfs("/", &sf) < 0)
		return -errno;
	*fstype = (unsigned long)sf.f_type; /* a 32-bit long holds RAMFS_MAGIC as negative */
	if (sf.f_type != (typeof(sf.f_type))RAMFS_MAGIC &&
	    sf.f_type != (typeof(sf.f_type))TMPFS_MAGIC)
		return -EINVAL;
	return 0;
}

/* Fills why (truncation only shortens a message) and returns err. */
static __attribute__((format(printf, 4, 5))) int refuse(char *why, size_t len, int err,
							const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return err;
}

/*
 * The real init as the kernel finds it after the chroot: symlinks (also
 * absolute ones) resolve inside the new root, never in the initramfs. It must
 * be an executable regular file; checked while the initramfs and its
 * emergency shell are still there, so that a wrong strata.init is not found
 * only by the execve, with nothing left to fall back on.
 */
static int check_init(const char *newroot, const char *init, char *why, size_t len)
{
	int rootfd = open(newroot, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return refuse(why, len, -errno, "cannot open '%s': %s", newroot, strerror(errno));
	bool walked;
	int fd = open_in_root(rootfd, init, &walked);
	close(rootfd);
	if (walked)
		log_info("no openat2 (ENOSYS): strata.init '%s' resolved component by component",
			 init);
	switch (fd) {
	case -ENOENT:
		return refuse(why, len, fd, "strata.init '%s' not found in the new root", init);
	case -ENOTDIR:
		return refuse(why, len, fd,
			      "strata.init '%s' not found in the new root: a component of the "
			      "path is not a directory",
			      init);
	case -ELOOP:
		return refuse(why, len, fd,
			      "strata.init '%s' cannot be resolved in the new root: a symlink loop "
			      "(more than %d links) or a /proc magic link",
			      init, INROOT_MAX_HOPS);
	}
	if (fd < 0)
		return refuse(why, len, fd,
			      "strata.init '%s' cannot be resolved in the new root: %s", init,
			      strerror(-fd));

	struct stat st;
	struct statvfs sv;
	int r = fstat(fd, &st) < 0 ? -errno : 0;
	bool noexec = fstatvfs(fd, &sv) == 0 && (sv.f_flag & ST_NOEXEC);
	close(fd);
	if (r < 0)
		return refuse(why, len, r, "cannot stat strata.init '%s' in the new root: %s", init,
			      strerror(-r));
	if (S_ISDIR(st.st_mode))
		return refuse(why, len, -EISDIR, "strata.init '%s' is a directory, not a program",
			      init);
	if (!S_ISREG(st.st_mode))
		return refuse(why, len, -EACCES, "strata.init '%s' is not a regular file but %s",
			      init,
			      S_ISFIFO(st.st_mode)   ? "a FIFO"
			      : S_ISSOCK(st.st_mode) ? "a socket"
						     : "a device node");
	if (!(st.st_mode & 0111))
		return refuse(why, len, -EACCES, "strata.init '%s' is not executable (mode %04o)",
			      init, (unsigned)(st.st_mode & 07777));
	if (noexec)
		return refuse(why, len, -EACCES, "strata.init '%s' is on a noexec mount", init);
	return 0;
}

/* Moves the first n API mounts back from newroot to where PID 1 mounted them. */
static void move_back(const char *newroot, size_t n)
{
	char from[128];
	while (n-- > 0)
		if (xsnprintf(from, sizeof(from), "%s%s", newroot, moved_mounts[n]) < 0 ||
		    mount(from, moved_mounts[n], NULL, MS_MOVE, NULL) < 0)
			log_warn("cannot move '%s' back to '%s': %m", from, moved_mounts[n]);
}

/*
 * Checks, then destroys: every step that can fail (the checks, the API mounts'
 * moves, the root's move) comes before the initramfs is emptied, and a failure
 * puts back what was moved, so the initramfs, its shell and /run stay whole.
 * The old root is emptied last, through a descriptor opened before the move.
 */
int switch_root_into(struct strata_ctx *ctx, const char *newroot, char *why, size_t whylen)
{
	struct stat root_st, new_st;
	uint64_t fstype = 0;
	char target[128];
	size_t moved;
	int r;

	if (stat("/", &root_st) < 0 || stat(newroot, &new_st) < 0)
		return refuse(why, whylen, -errno, "cannot stat '/' or '%s': %s", newroot,
			      strerror(errno));
	if (root_st.st_dev == new_st.st_dev)
		return refuse(why, whylen, -EINVAL,
			      "'%s' is not a mount point; refusing switch_root", newroot);
	if ((r = root_is_initramfs(&fstype)) < 0)
		return refuse(
		    why, whylen, r,
		    "'/' is not an initramfs (filesystem type 0x%llx); refusing to free it",
		    (unsigned long long)fstype);
	if (access("/init", F_OK) < 0)
		return refuse(why, whylen, -EINVAL, "'/init' is missing; refusing to free '/'");
	if ((r = check_init(newroot, ctx->opts.init, why, whylen)) < 0)
		return r;
	int rootfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		return refuse(why, whylen, -errno, "cannot open '/': %s", strerror(errno));
	/* the kernel refuses to move a mount out of a shared parent */
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		log_warn("cannot make '/' private: %m");

	for (moved = 0; moved < ARRAY_SIZE(moved_mounts); moved++) {
		const char *api = moved_mounts[moved];
		if ((r = xsnprintf(target, sizeof(target), "%s%s", newroot, api)) < 0) {
			refuse(why, whylen, r, "path '%s%s' too long", newroot, api);
			goto undo;
		}
		if (mkdir(target, 0755) < 0 && errno != EEXIST)
			log_warn("cannot create '%s': %m", target);
		if (mount(api, target, NULL, MS_MOVE, NULL) < 0) {
			r = refuse(why, whylen, -errno, "cannot move '%s' to '%s': %s", api, target,
				   strerror(errno));
			goto undo;
		}
	}

	if (CONFIG_STRATA_FAULT_INJECTION && ctx->opts.fault_root_move)
		/* strata.fault=root-move: a shared '/', so that the kernel refuses the move */
		mount(NULL, "/", NULL, MS_SHARED, NULL);
	if (chdir(newroot) < 0) {
		r = refuse(why, whylen, -errno, "cannot enter '%s': %s", newroot, strerror(errno));
		goto undo;
	}
	if (mount(".", "/", NULL, MS_MOVE, NULL) < 0) {
		r = refuse(why, whylen, -errno, "cannot move '%s' to '/': %s", newroot,
			   strerror(errno));
		if (chdir("/") < 0)
			log_warn("cannot go back to '/': %m");
		goto undo;
	}
	/* past the move nothing is put back: the new root is '/' */
	if (chroot(".") < 0 || chdir("/") < 0) {
		close(rootfd);
		return refuse(why, whylen, -errno, "cannot chroot into the new root: %s",
			      strerror(errno));
	}
	ctx->rec.initramfs_bytes_before = used_bytes(rootfd);
	int fd = dup(rootfd);
	if (fd >= 0)
		remove_tree_contents(fd, root_st.st_dev); /* closes fd */
	ctx->rec.initramfs_bytes_after = used_bytes(rootfd);
	close(rootfd);
	return 0;

undo:
	move_back(newroot, moved);
	close(rootfd);
	return r;
}
