/* SPDX-License-Identifier: GPL-2.0-only */
/* Layer measurement and the fs-verity object store. */
#ifndef STRATA_STORE_H
#define STRATA_STORE_H

#include "fsverity.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The fs-verity digest of the first bytes of path: FS_IOC_MEASURE_VERITY when
 * it is a file with fs-verity (*kernel = true), else computed in userspace.
 */
int layer_measure(const char *path, uint64_t bytes, uint8_t digest[FSVERITY_DIGEST_SIZE],
		  bool *kernel);

struct store_stats {
	unsigned objects, enabled, failed;
	unsigned stray;	   /* entries neither a fan-out directory nor an object: never opened */
	mode_t stray_kind; /* what the first of them is (S_IFLNK, S_IFIFO, ...) */
	mode_t found;	   /* what sat at the name in failed, for safe_strerror */
	bool skipped;	   /* the stamp matched: nothing walked */
};

/*
 * Enables fs-verity on every object of the store (DATA_DIR/STORE/xx/yyyy...)
 * that lacks it, then writes key to DATA_DIR/STAMP; a stamp that already
 * holds key skips the walk (key NULL: always walk, no stamp). store and stamp
 * are relative to data_dir, whose content the device wrote: no symlink is
 * followed and only regular files are opened; any other entry (a symlink,
 * FIFO, device, socket, a directory among the objects, a non-directory among
 * the fan-out directories) is counted in st->stray, the first one's name in
 * stray, and left alone. Returns 0; -EIO when objects failed (the first in
 * failed); other -errno when the store cannot be walked (its name or the
 * fan-out directory in failed, what sits there in st->found).
 */
int store_enable_verity(const char *data_dir, const char *store, const char *stamp, const char *key,
			struct store_stats *st, char *failed, size_t len, char *stray,
			size_t stray_len);

#endif
