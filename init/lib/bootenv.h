/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Bootloader environments: U-Boot's image (one copy, or the redundant pair)
 * and GRUB's environment block, read into and written from one bounded
 * store, and the boot-count rules of RAUC's A/B boot script. Pure code: no
 * I/O, no heap; the caller reads and writes the flash.
 *
 * U-Boot image: CRC32 (zlib's, little-endian) of the data area, in the
 * redundant layout a flag byte, then the data area: "name=value\0" entries
 * sorted by name, an empty entry ("\0") that ends them, 0x00 up to the end.
 * Redundant pair: two images of the same size; of those whose CRC is right
 * the one with the higher flag is read (255 is older than 0), and the next
 * write goes to the other copy with that flag + 1, so the copy read stays
 * intact until the new one is whole. This is the incremental flag scheme of
 * U-Boot and libubootenv on files, NAND, UBI and block devices.
 *
 * GRUB block: "# GRUB Environment Block\n", grub-editenv's warning comment,
 * "name=value\n" lines in the order they were first set ('\\' and a newline
 * in a value escaped with a backslash), '#' up to the end (1024 bytes as
 * grub-editenv creates it).
 */
#ifndef STRATA_BOOTENV_H
#define STRATA_BOOTENV_H

#include <stddef.h>

/* The store's bounds. U-Boot environments are 4-128 KiB images holding a few
   KiB of text and some hundred variables; the variable count also bounds the
   work of lookups and of writing the U-Boot image sorted (quadratic in it). */
#define BOOTENV_TEXT_MAX 65536
#define BOOTENV_VARS_MAX 1024
#define BOOTENV_GRUB_SIZE 1024

enum bootenv_format {
	BOOTENV_UBOOT,		 /* CRC32, data */
	BOOTENV_UBOOT_REDUNDANT, /* two copies of CRC32, flag byte, data */
	BOOTENV_GRUB,
};

struct bootenv {
	enum bootenv_format format;
	size_t size;		     /* of the image; of one copy in the redundant layout */
	unsigned active;	     /* redundant: the copy read (0 or 1) */
	unsigned char flag;	     /* redundant: its flag byte */
	int grub_warning;	     /* GRUB: the block carries grub-editenv's warning line */
	unsigned count;		     /* variables */
	size_t used;		     /* bytes of text */
	char text[BOOTENV_TEXT_MAX]; /* "name=value\0" each, in the order first set */
};

/*
 * An empty environment of that format and image size (GRUB: at least 26
 * bytes, as GRUB reads none smaller; U-Boot: room for the header and the
 * terminator). A redundant one writes copy 1 with flag 1 first, as
 * libubootenv does on an erased pair. Returns 0 or -EINVAL.
 */
int bootenv_init(struct bootenv *env, enum bootenv_format format, size_t size);

/*
 * Reads a U-Boot image of len bytes; redundant: buf holds copy 0 then copy
 * 1, len / 2 bytes each. Entries "name=" are dropped and "#..." skipped, as
 * U-Boot's import does (it deletes the one and takes the other for a
 * comment); of a name given twice the later value holds. Returns 0,
 * -EINVAL (a len no image has), -ENODATA (every copy erased: all 0xff),
 * -EBADMSG (no copy with a right CRC; in the copy read an entry without '=',
 * a name with '=' or control characters, no terminating empty entry),
 * -ENOSPC (more than the store holds). On error *env holds no variables
 * and, unless the error is -EINVAL, is as bootenv_init leaves it (a new
 * environment to set and write).
 */
int bootenv_parse_uboot(struct bootenv *env, const void *buf, size_t len, int redundant);

/*
 * Writes the image of one copy: len must be env->size. *copy says which copy
 * it is (redundant: the one not read, with the flag after its; else 0); once
 * it is on the flash, read the environment again before the next write (a
 * second serialize writes the same copy again). Returns 0, -EINVAL (not a
 * U-Boot environment, len not its size) or -ENOSPC.
 */
int bootenv_serialize_uboot(const struct bootenv *env, void *buf, size_t len, unsigned *copy);

/*
 * Reads a GRUB block of len bytes (the signature first; comment lines, the
 * '#' padding among them, skipped). Returns 0, -EBADMSG (no signature; a
 * line without '=', a name with control characters, a NUL byte, a value
 * without its newline before the end), -EINVAL (len below 26) or -ENOSPC;
 * on error *env holds no variables.
 */
int bootenv_parse_grub(struct bootenv *env, const void *buf, size_t len);

/* Writes the block: len must be env->size. Returns 0, -EINVAL or -ENOSPC. */
int bootenv_serialize_grub(const struct bootenv *env, void *buf, size_t len);

/* The value of name, or NULL (also for what cannot be a name); valid until
   the environment next changes. */
const char *bootenv_get(const struct bootenv *env, const char *name);

/*
 * Sets name (not empty; no '=', control characters, or a leading '#' or
 * space) to value (any text; in a U-Boot environment "" unsets, as U-Boot's
 * setenv does). A new name comes last in a GRUB block; an existing one keeps
 * its place. Neither may point into env's text (a value from bootenv_get:
 * copy it first). Returns 0, -EINVAL (bad name, NULL value) or -ENOSPC (the
 * image of env->size bytes, or the store, would not hold it; env unchanged).
 */
int bootenv_set(struct bootenv *env, const char *name, const char *value);

/* Returns 0, -ENOENT (no such variable) or -EINVAL (bad name). */
int bootenv_unset(struct bootenv *env, const char *name);

/* Iteration: *pos = 0 first; returns "name=value" (the name ends at the
   first '='), or NULL after the last, in the order first set. */
const char *bootenv_next(const struct bootenv *env, size_t *pos);

/*
 * RAUC's U-Boot boot script, one boot of it: BOOT_ORDER defaults to "A B"
 * and BOOT_A_LEFT, BOOT_B_LEFT to tries when unset; the first slot x of
 * BOOT_ORDER (split at blanks) whose BOOT_x_LEFT is above 0 is booted and
 * its count decremented. The script's arithmetic is kept: `test -gt` reads
 * the count as decimal, `setexpr` as hex and writes it back as hex (so a
 * count of 10 becomes "f", which `test` reads as 0). A name of BOOT_ORDER
 * with no BOOT_x_LEFT counts as none left. When no slot has any left, the
 * script sets BOOT_A_LEFT and BOOT_B_LEFT to tries and resets the board.
 * Returns 0 with the slot's name in slot[len], -ENOENT (none had any left;
 * the counts are reset), -ENAMETOOLONG (slot[len] too small; env unchanged)
 * or bootenv_set's errors.
 */
int bootenv_rauc_pick(struct bootenv *env, unsigned tries, char *slot, size_t len);

/* The booted slot is good: BOOT_<slot>_LEFT = tries (decimal), as RAUC's
   mark-good does. Returns 0, -EINVAL (slot empty or not a name) or -ENOSPC. */
int bootenv_rauc_mark_good(struct bootenv *env, const char *slot, unsigned tries);

#endif
