/* SPDX-License-Identifier: GPL-2.0-only */
/* The upper's rename capabilities, cached per kernel release in strata.caps. Pure code. */
#ifndef STRATA_CAPS_H
#define STRATA_CAPS_H

#include <stddef.h>

#define CAPS_WHITEOUT 1u /* RENAME_WHITEOUT works on the upper */
#define CAPS_EXCHANGE 2u /* RENAME_EXCHANGE works on the upper */

/* Writes the cache text for release into buf. Returns its length or -ENAMETOOLONG. */
int caps_format(char *buf, size_t len, const char *release, unsigned caps);
/* Returns the CAPS_* bits when text is exactly the cache of release, else -ENOENT. */
int caps_match(const char *text, size_t len, const char *release);

#endif
