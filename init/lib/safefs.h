/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one way strata touches names on the data flash and in the uppers, which
 * anything on the device may have written: every path is relative to a
 * trusted directory and resolved beneath it, on its filesystem, without
 * following a symlink (openat2 RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS|
 * RESOLVE_NO_XDEV, or O_NOFOLLOW component by component where the kernel
 * lacks openat2). Nothing is opened before fstat says it is what the caller
 * expects (a regular file or a directory): a FIFO, a device node or a socket
 * is never opened, so nothing there can block or be set off. Reads are
 * bounded. Everything returns an fd, a length or 0, or -errno, and never logs.
 *
 * found may be NULL everywhere. Errors beyond the usual: -ELOOP (a symlink on the path), -EFTYPE
 * (an entry of the wrong kind; *found says which), -EFBIG (a file over the read bound), -EXDEV
 * (another filesystem on the path), -EINVAL (an absolute path, "..").
 */
#ifndef STRATA_SAFEFS_H
#define STRATA_SAFEFS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#ifndef EFTYPE
#define EFTYPE EMEDIUMTYPE /* an entry of the wrong kind; see safe_strerror */
#endif

/* Opens a trusted directory (a mount point strata made) as the base for the rest. */
int safe_base(const char *dir);

/* What sits at rel (S_IFREG, S_IFDIR, S_IFLNK, ...), or 0 with -errno when nothing does. */
int safe_kind(int base, const char *rel, mode_t *found);
/* A directory, for reading (O_RDONLY|O_DIRECTORY). */
int safe_open_dir(int base, const char *rel, mode_t *found);
/* A regular file; flags are O_RDONLY or O_RDWR/O_WRONLY (never O_CREAT). */
int safe_open_file(int base, const char *rel, int flags, mode_t *found);
/* Reads a regular file of at most len-1 bytes and NUL-terminates it; -EFBIG when larger. */
ssize_t safe_read_file(int base, const char *rel, char *buf, size_t len, mode_t *found);
/* safe_read_file of an absolute path beneath "/" (a file in the root, which the uppers feed). */
ssize_t safe_read_root_file(const char *path, char *buf, size_t len, mode_t *found);
/*
 * A file or directory the running system names by a path in the root (a
 * setting, a key): absolute paths resolve beneath "/", relative ones beneath
 * the working directory, both without following a symlink and without
 * opening anything else, but across the root's mount points (the system
 * made those, not what an upper holds). After -ELOOP, *found is S_IFLNK when
 * the path itself is the symlink and 0 when one of its directories is.
 */
ssize_t safe_read_path(const char *path, char *buf, size_t len, mode_t *found);
int safe_open_path_dir(const char *path, mode_t *found);
/*
 * Replaces rel by a file holding data: written to rel.tmp (whatever sat at
 * that name is removed first, then created with O_EXCL), fsynced when
 * durable, renamed over rel (a non-file at rel is removed first: the name
 * is strata's own), the directory fsynced when durable.
 */
int safe_write_file(int base, const char *rel, const void *data, size_t len, bool durable);
/* mkdir -p beneath base; a component that is not a directory gives -EFTYPE (*found). */
int safe_mkdirs(int base, const char *rel, mode_t mode, mode_t *found);
/* Removes whatever sits at rel (a whole tree, on base's filesystem only); absent is fine. */
int safe_remove(int base, const char *rel);

/* "a FIFO", "a symbolic link", "a directory", ... */
const char *safe_kind_name(mode_t kind);
/* err (negative) in words, naming the kind found for -EFTYPE/-ELOOP. */
const char *safe_strerror(int err, mode_t found, char *buf, size_t len);

/*
 * err of a bounded read of len bytes (safe_read_*) in words for "PATH: ...":
 * "not a regular file (a FIFO)", "a symbolic link (never followed)",
 * "larger than 8191 bytes".
 */
const char *safe_read_strerror(int err, mode_t found, size_t len, char *buf, size_t blen);

/* Test hook: resolve component by component as on a kernel without openat2. */
void safe_force_walk(bool on);

#endif
