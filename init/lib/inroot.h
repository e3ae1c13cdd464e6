/* SPDX-License-Identifier: GPL-2.0-only */
/* Opening a path inside a directory tree as if that tree were '/'; never logs. */
#ifndef STRATA_INROOT_H
#define STRATA_INROOT_H

#include <stdbool.h>

/* symlinks followed on one path before it counts as a loop (the kernel's MAXSYMLINKS) */
#define INROOT_MAX_HOPS 40

/*
 * Opens path (O_PATH, the last component's symlink followed) as the kernel
 * will after a chroot into rootfd: absolute symlinks and ".." stay inside
 * rootfd, /proc magic links are refused. openat2(RESOLVE_IN_ROOT) where the
 * kernel has it (5.6); on ENOSYS inroot_walk(), and *walked is set.
 * Returns the descriptor or -errno (-ELOOP: a symlink loop or a magic link).
 */
int open_in_root(int rootfd, const char *path, bool *walked);

/*
 * The same by hand: one component at a time, symlinks read and resolved
 * against rootfd, at most INROOT_MAX_HOPS of them (-ELOOP); a magic link is
 * taken for the text it reads, which resolves inside rootfd too. Returns the
 * descriptor or -errno.
 */
int inroot_walk(int rootfd, const char *path);

#endif
