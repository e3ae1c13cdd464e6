/* SPDX-License-Identifier: GPL-2.0-only */
/* overlayfs mount option building. Pure code. */
#ifndef STRATA_OVL_H
#define STRATA_OVL_H

#include <stddef.h>

#define OVL_MAX_LOWERS 16

struct ovl_spec {
	const char *lowers[OVL_MAX_LOWERS]; /* top first */
	size_t n_lowers;
	const char *datadir; /* data-only lower layer (below the lowers), may be NULL */
	const char *upper;   /* NULL: read-only overlay */
	const char *work;
	const char *const
	    *flags;	    /* further options "key" or "key=value", NULL-terminated; may be NULL */
	const char *source; /* the mount source /proc/mounts shows; NULL: "overlay" */
};

/*
 * Writes "lowerdir=A:B[::D],upperdir=U,workdir=W[,flag]..." with ':' ',' and
 * '\' in paths escaped (D: the data-only layer). Returns the length, -EINVAL for an incomplete
 * spec, -ENAMETOOLONG when buf is too small.
 */
int ovl_build_options(const struct ovl_spec *spec, char *buf, size_t len);

/*
 * Folds one message a file-system context gave ("e overlay: ...", "w ...",
 * "i ...", in the order read) into msg: the first error is kept, as it
 * usually names the cause and later ones its consequences; without an error
 * yet, the first message. A trailing newline is dropped.
 */
void fsctx_keep_message(char *msg, size_t len, const char *line);

#endif
