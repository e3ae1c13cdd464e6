/* SPDX-License-Identifier: GPL-2.0-only */
/* Reading fields back from the JSON strata itself writes. Pure code. */
#ifndef STRATA_JSON_H
#define STRATA_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Each getter reads the first "key" anywhere in text, at any depth. To read a
 * field of a nested object and nowhere else, copy the object out with
 * json_get_object() and read the copy.
 */

/* First "key": string value, unescaped into out. Returns 0, -ENOENT, -EINVAL, -ENAMETOOLONG. */
int json_get_string(const char *text, const char *key, char *out, size_t outlen);
/* First "key": unsigned integer value. Returns 0, -ENOENT, -EINVAL. */
int json_get_u64(const char *text, const char *key, uint64_t *out);
/* First "key": true or false (null is not a bool). Returns 0, -ENOENT, -EINVAL. */
int json_get_bool(const char *text, const char *key, bool *out);
/*
 * First "key": {...} object, copied into obj as it stands (nested objects and
 * arrays included). Returns 0, -ENOENT, -EINVAL (not an object: null, a
 * number, unterminated), -ENAMETOOLONG.
 */
int json_get_object(const char *text, const char *key, char *obj, size_t len);

/* The first character after the '[' of "key": [...], or NULL. */
const char *json_find_array(const char *text, const char *key);
/*
 * Copies the next {...} object of an array into obj and advances the cursor.
 * Returns 1, 0 at the array's end, -EINVAL for malformed text, -ENAMETOOLONG.
 */
int json_array_next(const char **cursor, char *obj, size_t len);
/*
 * The same for an array of strings: the next one, unescaped into out.
 * Returns 1, 0 at the array's end, -EINVAL for malformed text, -ENAMETOOLONG.
 */
int json_array_next_string(const char **cursor, char *out, size_t len);

#endif
