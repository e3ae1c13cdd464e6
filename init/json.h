/* SPDX-License-Identifier: GPL-2.0-only */
/* Reading fields back from the JSON strata itself writes. Pure code. */
#ifndef STRATA_JSON_H
#define STRATA_JSON_H

#include <stddef.h>
#include <stdint.h>

/* First "key": string value, unescaped into out. Returns 0, -ENOENT, -EINVAL, -ENAMETOOLONG. */
int json_get_string(const char *text, const char *key, char *out, size_t outlen);
/* First "key": unsigned integer value. Returns 0, -ENOENT, -EINVAL. */
int json_get_u64(const char *text, const char *key, uint64_t *out);

/* The first character after the '[' of "key": [...], or NULL. */
const char *json_find_array(const char *text, const char *key);
/*
 * Copies the next {...} object of an array into obj and advances the cursor.
 * Returns 1, 0 at the array's end, -EINVAL for malformed text, -ENAMETOOLONG.
 */
int json_array_next(const char **cursor, char *obj, size_t len);

#endif
