/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Update bundles and the installer's configuration: what is parsed of them.
 * Pure code: the caller reads the bundle and writes the slot.
 *
 * A bundle is one file, read once from its start to its end (a pipe will do):
 *
 *     untrusted comment: <anything>\n      } signify/usign detached signature
 *     <base64 of "Ed", key number, sig>\n } of the header (signify.h)
 *     strata-bundle 1\n                    } the header: at most
 *     compatible <board>\n                 } BUNDLE_HEADER_MAX bytes,
 *     version <version>\n                  } signed from its first byte
 *     image <name> <size> <sha256 hex>\n   } to the end of "end\n";
 *     ...                                  } one to BUNDLE_IMAGES_MAX
 *     end\n                                } images
 *     <the images' bytes, in the header's order, nothing after the last>
 *
 * Nothing in the header is believed before its signature verifies; each
 * image is believed once its bytes match its digest.
 */
#ifndef STRATA_BUNDLE_H
#define STRATA_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

#define BUNDLE_MAGIC "strata-bundle 1"
#define BUNDLE_HEADER_MAX 4096
#define BUNDLE_IMAGES_MAX 8
#define BUNDLE_NAME_MAX 32 /* with the NUL */
#define BUNDLE_VERSION_MAX 64
#define BUNDLE_COMPATIBLE_MAX 64

struct bundle_image {
	char name[BUNDLE_NAME_MAX];
	uint64_t size;
	uint8_t sha256[32];
};

struct bundle_header {
	char compatible[BUNDLE_COMPATIBLE_MAX];
	char version[BUNDLE_VERSION_MAX];
	unsigned count;
	struct bundle_image image[BUNDLE_IMAGES_MAX];
};

/*
 * The header text (len bytes, ending with "end\n"). 0, or -EBADMSG with the
 * line and what is wrong with it in why[whylen]. Names are [a-z0-9_-], at
 * most once each; versions and compatible strings printable without spaces.
 */
int bundle_parse_header(const char *text, size_t len, struct bundle_header *h, char *why,
			size_t whylen);

/*
 * Versions compared as `sort -V` does for the usual forms: runs of digits as
 * numbers, everything else byte by byte ("1.10" > "1.9", "2026.12.1" >
 * "2026.11.30"). <0, 0 or >0.
 */
int bundle_version_cmp(const char *a, const char *b);

/*
 * The installer's configuration (/etc/strata/update.conf), one setting a line,
 * '#' comments:
 *
 *     compatible <board>           the board's bundles name this
 *     keys <dir>                   signify/usign public keys, one a file
 *     version <file>               the running firmware's version
 *     tries <1-9>                  a new slot's tries (3)
 *     bootenv uboot <dev> <size> <offset> [<offset of the second copy>]
 *     bootenv grub <file>
 *     slot <A|B> <image> <target>  where the slot's image goes
 *
 * A <dev>, <file> or <target> is a path, mtd:<partition name> or
 * part:<GPT partition label>.
 */
#define UPDATE_TARGETS_MAX 16
#define UPDATE_PATH_MAX 128
#define UPDATE_ENV_SIZE_MAX (128 * 1024)

struct update_target {
	char slot;
	char image[BUNDLE_NAME_MAX];
	char where[UPDATE_PATH_MAX];
};

struct update_conf {
	char compatible[BUNDLE_COMPATIBLE_MAX];
	char keys[UPDATE_PATH_MAX];
	char version_file[UPDATE_PATH_MAX];
	unsigned tries;
	enum { UPDATE_ENV_NONE, UPDATE_ENV_UBOOT, UPDATE_ENV_GRUB } env;
	char env_where[UPDATE_PATH_MAX];
	size_t env_size;
	uint64_t env_offset[2];
	unsigned env_copies;
	unsigned count;
	struct update_target target[UPDATE_TARGETS_MAX];
};

/* Defaults, then the text's settings. 0, or -EINVAL naming the line in why. */
int update_conf_parse(const char *text, struct update_conf *c, char *why, size_t whylen);

/* The target of image in slot, or NULL. */
const struct update_target *update_conf_target(const struct update_conf *c, char slot,
					       const char *image);

#endif
