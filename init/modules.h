/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel module loading with finit_module; the list comes from the board. */
#ifndef STRATA_MODULES_H
#define STRATA_MODULES_H

#include <stddef.h>

/*
 * Next entry of a module list: "name [param=value ...]" per line, '#'
 * comments. Returns 1 with name/params filled, 0 at the end, -EINVAL for a
 * bad name, -ENAMETOOLONG for an oversized line (both skip the line).
 */
int modlist_next(const char **cursor, char *name, size_t namelen, char *params, size_t paramlen);

/*
 * Loads dir/name.ko.xz (decompressed by the kernel) or dir/name.ko with params.
 * Returns 0 (also when already loaded or built in) or -errno.
 */
int module_load(const char *dir, const char *name, const char *params);

#endif
