// SPDX-License-Identifier: GPL-2.0-only
/*
 * strata update: firmware updates into the slot not running (A/B).
 *
 * install reads a signed bundle (bundle.h) once from its start, from a
 * file, a device or a pipe, with a fixed buffer: the signature of its
 * header is checked against the firmware's keys, the header against the
 * board and the running version, and every image against its slot's size
 * before a byte is written. Then the target slot loses its tries (so the
 * bootloader never starts it half written), each image is written while it
 * is hashed, and only when every digest matched and the bundle ended where
 * its header said is the slot put first with its tries. A failure anywhere
 * leaves the running slot first and bootable; the same install can be run
 * again. mark-good gives the running slot its tries back, rollback puts the
 * other slot first, status shows the counters.
 */
#include "bundle.h"
#include "cmd.h"
#include "fsverity.h"
#include "json.h"
#include "mtd.h"
#include "mtd_abi.h"
#include "opts.h"
#include "paths.h"
#include "request.h"
#include "safefs.h"
#include "signify.h"
#include "slots.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef BLKGETSIZE64 /* <linux/fs.h>, which musl builds do not have */
#define BLKGETSIZE64 _IOR(0x12, 114, size_t)
#endif

#define CONF_DEFAULT "/etc/strata/update.conf"

static bool status_note; /* strata status's note: its own failures are not reported */

/* What the new slot's first boot carries from this one's data: -n, -c, --keep-all, -k */
static struct request carry;
enum { CARRY_LISTS, CARRY_NONE, CARRY_ALL };

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;
	if (status_note)
		return 1;
	fputs("strata update: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

/* ---- devices: a path, mtd:NAME or part:LABEL -------------------------------------- */

struct dev {
	uint64_t size;
	int fd;
	uint32_t erasesize; /* MTD: erase before writing */
	char path[UPDATE_PATH_MAX + 16];
};

static int find_partlabel(const char *label, char *path, size_t len)
{
	DIR *d = opendir("/sys/class/block");
	struct dirent *e;
	int r = -ENOENT;
	if (!d)
		return -errno;
	while (r == -ENOENT && (e = readdir(d))) {
		char file[300], text[1024], want[UPDATE_PATH_MAX + 16];
		if (e->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "/sys/class/block/%s/uevent", e->d_name);
		snprintf(want, sizeof(want), "\nPARTNAME=%s\n", label);
		text[0] = '\n';
		if (read_file(file, text + 1, sizeof(text) - 1) > 0 && strstr(text, want))
			r = xsnprintf(path, len, "/dev/%s", e->d_name);
	}
	closedir(d);
	return r;
}

static int dev_open(const char *where, int flags, struct dev *d)
{
	struct stat st;
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	if (strncmp(where, "mtd:", 4) == 0) {
		char text[4096];
		struct mtd_part p = {0};
		if (read_file("/proc/mtd", text, sizeof(text)) < 0 ||
		    mtd_find(text, where + 4, &p) < 0)
			return -ENOENT;
		snprintf(d->path, sizeof(d->path), "/dev/mtd%d", p.index);
	} else if (strncmp(where, "part:", 5) == 0) {
		int r = find_partlabel(where + 5, d->path, sizeof(d->path));
		if (r < 0)
			return r;
	} else {
		snprintf(d->path, sizeof(d->path), "%s", where);
	}
	d->fd = open(d->path, flags | O_NOFOLLOW | O_CLOEXEC);
	if (d->fd < 0)
		return -errno;
	if (fstat(d->fd, &st) < 0)
		goto err;
	if (S_ISREG(st.st_mode)) {
		d->size = (uint64_t)st.st_size;
	} else if (S_ISBLK(st.st_mode)) {
		if (ioctl(d->fd, BLKGETSIZE64, &d->size) < 0)
			goto err;
	} else if (S_ISCHR(st.st_mode)) {
		struct mtd_info_user mi;
		if (ioctl(d->fd, MEMGETINFO, &mi) < 0)
			goto err;
		d->size = mi.size;
		d->erasesize = mi.erasesize ? mi.erasesize : 1;
	} else {
		errno = EINVAL;
		goto err;
	}
	return 0;
err:;
	int r = -errno;
	close(d->fd);
	d->fd = -1;
	return r;
}

/* Writes len bytes at off; on MTD the erase blocks they cover are erased first. */
static int dev_pwrite(struct dev *d, const void *buf, size_t len, uint64_t off)
{
	if (off > d->size || len > d->size - off)
		return -EFBIG;
	if (d->erasesize) {
		uint64_t end = off + len, e = off / d->erasesize * d->erasesize;
		if (off % d->erasesize)
			e += d->erasesize; /* that block was erased with the bytes before */
		for (; e < end; e += d->erasesize) {
			struct erase_info_user ei = {(uint32_t)e, d->erasesize};
			if (ioctl(d->fd, MEMERASE, &ei) < 0)
				return -errno;
		}
	}
	for (size_t done = 0; done < len;) {
		ssize_t n =
		    pwrite(d->fd, (const char *)buf + done, len - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

/*
 * Test hook (CONFIG_STRATA_FAULT_INJECTION): STRATA_UPDATE_CUT=N, or
 * strata.powercut=update-N on the kernel command line (which reaches the
 * commands an init runs, such as its mark-good), stops an install or a
 * counters edit dead after its Nth write step (a copy of the counters stored,
 * an image's chunk written, an image synced), as a power cut there would.
 */
static void cut_point(void)
{
	static long left = -1;
	if (!CONFIG_STRATA_FAULT_INJECTION)
		return;
	if (left < 0) {
		static char cmdline[4096];
		struct strata_opts o;
		const char *s = getenv("STRATA_UPDATE_CUT");
		opts_defaults(&o);
		if (!s && read_file("/proc/cmdline", cmdline, sizeof(cmdline)) > 0 &&
		    opts_parse_cmdline(&o, cmdline, NULL, NULL) >= 0 &&
		    strncmp(o.powercut, "update-", 7) == 0)
			s = o.powercut + 7;
		left = s ? strtol(s, NULL, 10) : 0;
	}
	if (left > 0 && --left == 0) {
		fprintf(stderr, "strata update: power cut reached: stopping here\n");
		_exit(99);
	}
}

/* ---- the boot counters ---------------------------------------------------------- */

static struct bootenv env;

static int env_load(const struct update_conf *c, struct dev *d)
{
	static unsigned char buf[UPDATE_ENV_SIZE_MAX];
	int r = dev_open(c->env_where, O_RDWR, d);
	if (r < 0)
		return fail("cannot open the boot counters '%s': %s", c->env_where, strerror(-r)),
		       r;
	for (unsigned i = 0; i < c->env_copies; i++) {
		ssize_t n = pread(d->fd, buf, c->env_size, (off_t)c->env_offset[i]);
		if (n != (ssize_t)c->env_size)
			continue;
		if (c->env == UPDATE_ENV_GRUB ? bootenv_parse_grub(&env, buf, c->env_size) == 0
					      : bootenv_parse_uboot(&env, buf, c->env_size, 0) == 0)
			return 0;
	}
	/* none readable: the boot script starts with "A B" and every slot's tries */
	char tries[2] = {(char)('0' + c->tries), 0};
	if ((r = bootenv_init(&env, c->env == UPDATE_ENV_GRUB ? BOOTENV_GRUB : BOOTENV_UBOOT,
			      c->env_size)) < 0 ||
	    (r = bootenv_set(&env, "BOOT_ORDER", "A B")) < 0 ||
	    (r = bootenv_set(&env, "BOOT_A_LEFT", tries)) < 0 ||
	    (r = bootenv_set(&env, "BOOT_B_LEFT", tries)) < 0)
		fail("cannot make new boot counters: %s", strerror(-r));
	return r;
}

/* Every copy in order, each on the flash before the next is begun. */
static int env_store(const struct update_conf *c, struct dev *d)
{
	static unsigned char buf[UPDATE_ENV_SIZE_MAX];
	unsigned copy;
	int r = c->env == UPDATE_ENV_GRUB ? bootenv_serialize_grub(&env, buf, c->env_size)
					  : bootenv_serialize_uboot(&env, buf, c->env_size, &copy);
	for (unsigned i = 0; r == 0 && i < c->env_copies; i++) {
		if ((r = dev_pwrite(d, buf, c->env_size, c->env_offset[i])) == 0 &&
		    fsync(d->fd) < 0)
			r = -errno;
		cut_point();
	}
	if (r < 0)
		fail("cannot write the boot counters '%s': %s", d->path, strerror(-r));
	return r;
}

/* ---- what is running ------------------------------------------------------------- */

static char booted_slot(void)
{
	char text[16384], slot[8];
	if (read_file(STRATA_BOOT_RECORD, text, sizeof(text)) > 0 &&
	    json_get_string(text, "slot", slot, sizeof(slot)) == 0 &&
	    (strcmp(slot, "A") == 0 || strcmp(slot, "B") == 0))
		return slot[0];
	return 0;
}

/*
 * The files this reads (update.conf, the version, the keys) are in the
 * root, which an upper on the flash feeds: each is read through safefs, so a
 * symlink is never followed, a FIFO never opened (nothing to block on) and a
 * file too large for its buffer is refused, not cut. Says what was wrong as
 * "PATH: ..." unless quiet.
 */
static ssize_t read_root(const char *path, char *buf, size_t len, bool quiet)
{
	char why[96];
	mode_t found = 0;
	ssize_t n = safe_read_path(path, buf, len, &found);
	if (n < 0 && !quiet)
		fail("%s: %s", path, safe_read_strerror((int)n, found, len, why, sizeof(why)));
	return n;
}

/* The first line of the version file, or -errno (reported unless quiet). */
static int running_version(const struct update_conf *c, char *out, size_t len, bool quiet)
{
	ssize_t n = read_root(c->version_file, out, len, quiet);
	if (n < 0) {
		out[0] = '\0';
		return (int)n;
	}
	out[strcspn(out, "\n")] = '\0';
	return 0;
}

static int load_conf(const char *path, struct update_conf *c)
{
	static char text[8192];
	char why[160];
	memset(c, 0, sizeof(*c));
	if (read_root(path, text, sizeof(text), false) < 0)
		return 1;
	if (update_conf_parse(text, c, why, sizeof(why)) < 0)
		return fail("%s: %s", path, why);
	return 0;
}

/* ---- the bundle, read once -------------------------------------------------------- */

struct reader {
	int fd;
	size_t pos, len;
	uint64_t offset; /* of buf[pos] in the bundle */
	unsigned char buf[65536];
};

static int rd_fill(struct reader *r)
{
	if (r->pos < r->len)
		return 1;
	r->pos = r->len = 0;
	for (;;) {
		ssize_t n = read(r->fd, r->buf, sizeof(r->buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		r->len = (size_t)n;
		return n > 0;
	}
}

/* One line with its '\n' into out (at most max bytes); its length, 0 at the end, <0. */
static ssize_t rd_line(struct reader *r, char *out, size_t max)
{
	size_t n = 0;
	for (;;) {
		int f = rd_fill(r);
		if (f <= 0)
			return f < 0 ? f : -ENODATA;
		if (n == max)
			return -EMSGSIZE;
		char ch = (char)r->buf[r->pos++];
		r->offset++;
		out[n++] = ch;
		if (ch == '\n')
			return (ssize_t)n;
	}
}

/*
 * The key whose number the signature names. Every entry is looked at (but
 * dot files), so a directory holding anything but regular files is refused
 * whatever order readdir gives: 0, -ENOKEY (none matched) or 1 (reported).
 */
static int read_keys(const char *dir, const struct signify_sig *sig, struct signify_key *key)
{
	char why[96];
	mode_t found = 0;
	int dfd = safe_open_path_dir(dir, &found);
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	struct dirent *e;
	int r = -ENOKEY;
	if (!d) {
		int err = dfd < 0 ? dfd : -errno;
		if (dfd >= 0)
			close(dfd);
		if (err == -EFTYPE)
			snprintf(why, sizeof(why), "not a directory (%s)", safe_kind_name(found));
		return fail("%s: %s", dir,
			    err == -EFTYPE ? why
					   : safe_read_strerror(err, found, 0, why, sizeof(why)));
	}
	while ((e = readdir(d))) {
		char text[512];
		if (e->d_name[0] == '.')
			continue;
		ssize_t n = safe_read_file(dfd, e->d_name, text, sizeof(text), &found);
		if (n < 0) {
			r = fail("%s/%s: %s", dir, e->d_name,
				 safe_read_strerror((int)n, found, sizeof(text), why, sizeof(why)));
			break;
		}
		struct signify_key k;
		if (r == -ENOKEY && n > 0 && signify_parse_key(text, (size_t)n, &k) == 0 &&
		    memcmp(k.keynum, sig->keynum, SIGNIFY_KEYNUM_SIZE) == 0) {
			*key = k;
			r = 0;
		}
	}
	closedir(d);
	return r;
}

static void hex(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

/*
 * A keep line with a wildcard in its last name (OpenWrt's shell globs its
 * lists: every *.pem in /etc/ssl, say): the names in that directory of the
 * running root that match, each kept. A wildcard in a directory, or '[', is
 * not expanded.
 */
static int carry_pattern(struct request *req, const char *pattern)
{
	char path[REQ_PATH_MAX];
	const char *base = strrchr(pattern, '/');
	if (!base || strchr(pattern, '[') || strcspn(pattern, "*?") < (size_t)(base - pattern) ||
	    xsnprintf(path, sizeof(path), "%.*s", (int)(base - pattern), pattern) < 0)
		return -EINVAL;
	int dfd = safe_open_path_dir(path[0] ? path : "/", NULL), r = 0;
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return 0; /* no such directory: nothing to keep */
	}
	for (struct dirent *de; (de = readdir(d));)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 &&
		    keep_name_matches(base + 1, de->d_name) &&
		    (xsnprintf(path, sizeof(path), "%.*s/%s", (int)(base - pattern), pattern,
			       de->d_name) < 0 ||
		     request_add_keep(req, path) < 0))
			r = -EINVAL;
	closedir(d);
	return r;
}

/* Adds a keep list from the running root (a list another tool keeps: bad lines skipped). */
static void carry_list(const char *path, char *text, size_t len)
{
	if (safe_read_root_file(path, text, len, NULL) < 0)
		return;
	if (strcmp(path, OPKG_STATUS) == 0) {
		/* opkg's conffiles: " /etc/config/network <md5>" lines */
		for (char *p = text; (p = strstr(p, "\n /")); p += 2) {
			size_t n = strcspn(p + 2, " \n");
			char c = p[2 + n];
			p[2 + n] = '\0';
			request_add_keep(&carry, p + 2);
			p[2 + n] = c;
		}
	} else if (request_add_keep_lines(&carry, text, carry_pattern)) {
		printf("%s: lines that are not paths, or past %d paths, are not carried\n", path,
		       REQ_MAX_KEEP);
	}
}

/*
 * DATA/strata.update: the new slot's first boot starts new generations from
 * this slot's, carrying what OpenWrt's sysupgrade keeps (its keep.d lists,
 * sysupgrade.conf, the packages' conffiles) and strata's keep list, or
 * everything, or nothing; this slot's own stay as they are for a rollback
 * (init/boot/layers.c). Durable before the slot is made bootable.
 */
static int store_carry(char slot, int how)
{
	static char text[65536];
	char why[96];
	unsigned long carried = 0, pending = 0;
	struct layer_state st;
	carry.kind = REQ_UPDATE;
	carry.slot = slot;
	carry.keep_all = how == CARRY_ALL;
	if (how == CARRY_NONE)
		carry.n_keep = 0;
	if (how == CARRY_LISTS) {
		static const char *const lists[] = {STRATA_KEEP_LIST, "/etc/sysupgrade.conf",
						    OPKG_STATUS};
		for (size_t i = 0; i < ARRAY_SIZE(lists); i++)
			carry_list(lists[i], text, sizeof(text));
		/* a symlinked directory is not listed (the files in it are read the same way) */
		int dfd = safe_open_path_dir(KEEP_D, NULL);
		DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
		if (dfd >= 0 && !d)
			close(dfd);
		for (struct dirent *de; d && (de = readdir(d));) {
			char path[300];
			if (de->d_name[0] != '.' &&
			    xsnprintf(path, sizeof(path), KEEP_D "/%s", de->d_name) >= 0)
				carry_list(path, text, sizeof(text));
		}
		if (d)
			closedir(d);
	}
	int data = safe_base(STRATA_DATA_DIR), r = data;
	if (data >= 0) {
		static struct request old;
		unsigned bad;
		if (safe_read_file(data, STATE_NAME, text, 512, NULL) > 0 &&
		    state_parse(text, &st) == 0)
			carried = st.carried;
		if (safe_read_file(data, UPDATE_NAME, text, sizeof(text), NULL) > 0 &&
		    request_parse(text, &old, &bad) == 0)
			pending = old.id;
		carry.id = request_next_id(carried, pending);
		r = request_format(&carry, text, sizeof(text));
		if (r >= 0)
			r = safe_write_file(data, UPDATE_NAME, text, (size_t)r, true);
		close(data);
	}
	if (r < 0)
		return fail("cannot record what slot %c carries in '%s/strata.update': %s; slot %c "
			    "stays unbootable",
			    slot, STRATA_DATA_DIR, safe_strerror(r, 0, why, sizeof(why)), slot);
	sync();
	if (how == CARRY_LISTS)
		printf("slot %c's first boot carries %zu kept paths of this slot's data\n", slot,
		       carry.n_keep);
	else
		printf("slot %c's first boot carries %s of this slot's data\n", slot,
		       how == CARRY_ALL ? "all" : "none");
	return 0;
}

static int install(const struct update_conf *c, const char *src, char slot, bool downgrade, int how)
{
	static struct reader rd;
	static char sigtext[1024], header[BUNDLE_HEADER_MAX];
	struct bundle_header h;
	struct signify_sig sig;
	struct signify_key key;
	struct dev devs[BUNDLE_IMAGES_MAX], envdev = {.fd = -1};
	char why[160], running[BUNDLE_VERSION_MAX];
	size_t siglen = 0, hlen = 0;
	ssize_t n;
	int r, status = 1;
	unsigned opened = 0;

	memset(devs, 0, sizeof(devs));
	rd.fd = strcmp(src, "-") == 0 ? 0 : open(src, O_RDONLY | O_CLOEXEC);
	if (rd.fd < 0)
		return fail("cannot open '%s': %s", src, strerror(errno));
	for (int i = 0; i < 2; i++) {
		n = rd_line(&rd, sigtext + siglen, sizeof(sigtext) - siglen);
		if (n <= 0)
			return fail("'%s' is not a bundle: %s", src,
				    n == -ENODATA || n == 0 ? "it ends before its signature"
							    : "no signature lines");
		if (i == 0 &&
		    strncmp(sigtext, SIGNIFY_COMMENT_PREFIX, strlen(SIGNIFY_COMMENT_PREFIX)) != 0)
			return fail("'%s' is not a signed bundle: no signature ('%s' line)", src,
				    SIGNIFY_COMMENT_PREFIX "...");
		siglen += (size_t)n;
	}
	if (signify_parse_sig(sigtext, siglen, &sig) < 0)
		return fail("'%s': its signature is malformed", src);
	do {
		n = rd_line(&rd, header + hlen, sizeof(header) - hlen);
		if (n <= 0)
			return fail("'%s': %s", src,
				    n == -EMSGSIZE ? "header longer than 4096 bytes"
						   : "it ends inside its header (truncated)");
		hlen += (size_t)n;
	} while (!(n == 4 && memcmp(header + hlen - 4, "end\n", 4) == 0));
	r = read_keys(c->keys, &sig, &key);
	if (r == -ENOKEY) {
		char num[2 * SIGNIFY_KEYNUM_SIZE + 1];
		hex(sig.keynum, SIGNIFY_KEYNUM_SIZE, num);
		return fail("'%s' is signed by key %s, which is not in '%s'", src, num, c->keys);
	}
	if (r)
		return 1;
	if (signify_verify(&key, &sig, header, hlen) < 0)
		return fail("'%s': the signature does not verify: the header was changed or "
			    "signed with another key",
			    src);
	if (bundle_parse_header(header, hlen, &h, why, sizeof(why)) < 0)
		return fail("'%s': bad header: %s", src, why);
	if (strcmp(h.compatible, c->compatible) != 0)
		return fail("'%s' is for '%s', this board is '%s'", src, h.compatible,
			    c->compatible);
	/* without the running version an older bundle could not be told: refused */
	if (running_version(c, running, sizeof(running), downgrade) < 0 && !downgrade)
		return fail("the running version is unknown, so '%s' cannot be checked against "
			    "it (--allow-downgrade installs it)",
			    src);
	if (!downgrade && running[0] && bundle_version_cmp(h.version, running) < 0)
		return fail("'%s' is version %s, older than the running %s (--allow-downgrade "
			    "installs it)",
			    src, h.version, running);
	for (unsigned i = 0; i < h.count; i++, opened++) {
		const struct update_target *t = update_conf_target(c, slot, h.image[i].name);
		if (!t) {
			fail("'%s': image '%s' has no place in slot %c (update.conf)", src,
			     h.image[i].name, slot);
			goto out;
		}
		r = dev_open(t->where, O_RDWR, &devs[i]);
		if (r < 0) {
			fail("cannot open slot %c's %s '%s': %s", slot, t->image, t->where,
			     strerror(-r));
			goto out;
		}
		if (h.image[i].size > devs[i].size) {
			fail("'%s': image '%s' is %llu bytes, larger than slot %c's '%s' (%llu)",
			     src, h.image[i].name, (unsigned long long)h.image[i].size, slot,
			     t->where, (unsigned long long)devs[i].size);
			opened++;
			goto out;
		}
	}
	if (c->env != UPDATE_ENV_NONE) {
		if (env_load(c, &envdev) < 0 || slots_disable(&env, slot) < 0 ||
		    env_store(c, &envdev) < 0)
			goto out;
	}
	printf("installing %s (%s) into slot %c\n", h.version, h.compatible, slot);
	for (unsigned i = 0; i < h.count; i++) {
		struct sha256_ctx sc;
		uint8_t digest[32];
		uint64_t left = h.image[i].size, off = 0;
		sha256_init(&sc, sha256_have_cpu_insns());
		while (left) {
			if (rd_fill(&rd) <= 0) {
				fail("'%s' ends inside image '%s' (truncated): slot %c stays "
				     "unbootable",
				     src, h.image[i].name, slot);
				goto out;
			}
			size_t take = rd.len - rd.pos < left ? rd.len - rd.pos : (size_t)left;
			sha256_update(&sc, rd.buf + rd.pos, take);
			if ((r = dev_pwrite(&devs[i], rd.buf + rd.pos, take, off)) < 0) {
				fail("cannot write '%s': %s: slot %c stays unbootable",
				     devs[i].path, strerror(-r), slot);
				goto out;
			}
			cut_point();
			rd.pos += take, off += take, left -= take;
		}
		sha256_final(&sc, digest);
		if (memcmp(digest, h.image[i].sha256, 32) != 0) {
			fail("'%s': image '%s' does not match its digest: slot %c stays unbootable",
			     src, h.image[i].name, slot);
			goto out;
		}
		/*
		 * On the flash before the slot is made bootable. An MTD character
		 * device has no fsync (EINVAL): its last close syncs the device
		 * (mtd_sync: block2mtd's page cache, a NAND's write buffer).
		 */
		int synced = devs[i].erasesize ? close(devs[i].fd) : fsync(devs[i].fd);
		if (devs[i].erasesize)
			devs[i].fd = -1;
		if (synced < 0) {
			fail("cannot write '%s': %s", devs[i].path, strerror(errno));
			goto out;
		}
		cut_point();
		printf("  %s: %llu bytes to %s\n", h.image[i].name,
		       (unsigned long long)h.image[i].size, devs[i].path);
	}
	if ((r = rd_fill(&rd)) != 0) {
		fail("'%s' %s: slot %c stays unbootable", src,
		     r > 0 ? "goes on after its last image (padded)" : "cannot be read to its end",
		     slot);
		goto out;
	}
	if (store_carry(slot, how) != 0)
		goto out;
	if (c->env != UPDATE_ENV_NONE) {
		/* the version, and the tries it was given (what a rollback from it says) */
		char name[32], tries[2] = {(char)('0' + c->tries), 0};
		snprintf(name, sizeof(name), "STRATA_%c_VERSION", slot);
		if (slots_activate(&env, slot, c->tries) < 0 || bootenv_set(&env, name, h.version))
			goto out;
		snprintf(name, sizeof(name), "STRATA_%c_TRIES", slot);
		if (bootenv_set(&env, name, tries) || env_store(c, &envdev) < 0)
			goto out;
		printf("slot %c boots next with %u tries; 'strata update mark-good' there keeps "
		       "it\n",
		       slot, c->tries);
	} else {
		printf("slot %c written; this board has no boot counters: the bootloader "
		       "chooses\n",
		       slot);
	}
	status = 0;
out:
	for (unsigned i = 0; i < opened && i < h.count; i++)
		if (devs[i].fd >= 0)
			close(devs[i].fd);
	if (envdev.fd >= 0)
		close(envdev.fd);
	if (rd.fd > 0)
		close(rd.fd);
	return status;
}

/* ---- status, mark-good, rollback ----------------------------------------------- */

/* "rolled back from A after 3 failed boots": the tries the failed slot was given at its install */
static void print_rollback(const struct update_conf *c, char failed)
{
	char name[32];
	unsigned tries = c->tries;
	snprintf(name, sizeof(name), "STRATA_%c_TRIES", failed);
	const char *t = bootenv_get(&env, name);
	if (t && t[0] >= '1' && t[0] <= '9' && !t[1])
		tries = (unsigned)(t[0] - '0');
	printf("rolled back from %c after %u failed boot%s (never marked good)\n", failed, tries,
	       tries == 1 ? "" : "s");
}

void update_status_note(char booted)
{
	struct update_conf c;
	struct dev d = {.fd = -1};
	struct slots_view v;
	char why[160];
	status_note = true;
	if (load_conf(CONF_DEFAULT, &c) == 0 && c.env != UPDATE_ENV_NONE && env_load(&c, &d) == 0) {
		if (slots_read(&env, booted, c.tries, &v, why, sizeof(why)) == 0 && v.failed) {
			fputs("update:    ", stdout);
			print_rollback(&c, v.failed);
		}
	}
	if (d.fd >= 0)
		close(d.fd);
	status_note = false;
}

static int show_status(const struct update_conf *c, bool json)
{
	struct dev d = {.fd = -1};
	struct slots_view v;
	char why[160], running[BUNDLE_VERSION_MAX], booted = booted_slot();
	if (c->env == UPDATE_ENV_NONE)
		return fail("this board has no boot counters (update.conf: no bootenv line)");
	if (env_load(c, &d) < 0)
		return 1;
	close(d.fd);
	if (slots_read(&env, booted, c->tries, &v, why, sizeof(why)) < 0)
		return fail("the boot counters are not readable: %s", why);
	running_version(c, running, sizeof(running), false); /* said; the counters still shown */
	const char *ver[2] = {bootenv_get(&env, "STRATA_A_VERSION"),
			      bootenv_get(&env, "STRATA_B_VERSION")};
	char b[2] = {booted, 0}, n[2] = {v.next, 0}, f[2] = {v.failed, 0};
	if (booted && running[0])
		ver[booted - 'A'] = running;
	/* the other slot's data, kept for its next boot (a rollback) */
	char text[512], kept[2] = {0, 0};
	struct layer_state st;
	int data = safe_base(STRATA_DATA_DIR);
	if (data >= 0 && safe_read_file(data, STATE_NAME, text, sizeof(text), NULL) > 0 &&
	    state_parse(text, &st) == 0 && st.slot && st.other_system)
		kept[0] = slots_other(st.slot);
	if (data >= 0)
		close(data);
	if (json) {
		printf(
		    "{\"booted\": \"%s\", \"next\": \"%s\", \"order\": \"%s\", "
		    "\"rolled_back_from\": \"%s\", \"data_kept_for\": \"%s\", \"slots\": {\"A\": "
		    "{\"left\": %u, \"version\": \"%s\"}, \"B\": {\"left\": %u, \"version\": "
		    "\"%s\"}}}\n",
		    b, n, v.order, f, kept, v.left[0], ver[0] ? ver[0] : "", v.left[1],
		    ver[1] ? ver[1] : "");
		return 0;
	}
	printf("booted:    %s\n", booted ? b : "not from a slot");
	printf("next boot: %s\n", v.next ? n : "none has tries left");
	for (int i = 0; i < 2; i++)
		printf("slot %c:    %u tries left%s%s\n", 'A' + i, v.left[i],
		       ver[i] ? ", version " : "", ver[i] ? ver[i] : "");
	if (kept[0])
		printf("data:      slot %s's kept for its next boot (system generation %u, user "
		       "generation %u)\n",
		       kept, st.other_system, st.other_user);
	if (v.failed)
		print_rollback(c, v.failed);
	return 0;
}

static int edit(const struct update_conf *c, int (*fn)(struct bootenv *, char, unsigned),
		const char *done)
{
	struct dev d = {.fd = -1};
	char booted = booted_slot();
	int r;
	if (!booted)
		return fail("this boot was not started from a slot (no strata.slot= on the kernel "
			    "command line)");
	if (c->env == UPDATE_ENV_NONE)
		return fail("this board has no boot counters (update.conf: no bootenv line)");
	if (env_load(c, &d) < 0)
		return 1;
	r = fn(&env, booted, c->tries);
	if (r == -ENOENT)
		r = fail("slot %c has no tries left: there is nothing to go back to",
			 slots_other(booted));
	else if (r < 0)
		r = fail("cannot change the boot counters: %s", strerror(-r));
	else if ((r = env_store(c, &d)) == 0)
		printf(done, booted, slots_other(booted));
	close(d.fd);
	return r ? 1 : 0;
}

static int mark_good(struct bootenv *e, char booted, unsigned tries)
{
	return slots_mark_good(e, booted, tries);
}

int cmd_update(int argc, char **argv)
{
	const char *conf_path = CONF_DEFAULT, *sub = argc > 1 ? argv[1] : "", *src = NULL;
	bool json = false, downgrade = false;
	char slot = 0;
	int how = CARRY_LISTS;
	struct update_conf c;

	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--config") == 0 && i + 1 < argc)
			conf_path = argv[++i];
		else if (strcmp(a, "--json") == 0 && strcmp(sub, "status") == 0)
			json = true;
		else if (strcmp(a, "--allow-downgrade") == 0 && strcmp(sub, "install") == 0)
			downgrade = true;
		else if (strcmp(sub, "install") == 0 &&
			 (!strcmp(a, "-n") || !strcmp(a, "--keep-all")))
			how = a[1] == 'n' ? CARRY_NONE : CARRY_ALL;
		else if (strcmp(sub, "install") == 0 && strcmp(a, "-c") == 0)
			request_add_keep(&carry, "/etc");
		else if (strcmp(sub, "install") == 0 && strcmp(a, "-k") == 0 && i + 1 < argc) {
			if (request_add_keep(&carry, argv[++i]) < 0)
				return cmd_usage_error("update", "an absolute path inside the root",
						       "cannot keep '%s'", argv[i]);
		} else if (strcmp(a, "--slot") == 0 && i + 1 < argc &&
			   strcmp(sub, "install") == 0 &&
			   (strcmp(argv[i + 1], "A") == 0 || strcmp(argv[i + 1], "B") == 0))
			slot = argv[++i][0];
		else if (!src && strcmp(sub, "install") == 0 && (a[0] != '-' || !a[1]))
			src = a;
		else
			return cmd_usage_error("update", "the options of update's usage",
					       "unknown argument '%s' to '%s'", a, sub);
	}
	if (strcmp(sub, "install") != 0 && strcmp(sub, "status") != 0 &&
	    strcmp(sub, "mark-good") != 0 && strcmp(sub, "rollback") != 0)
		return cmd_usage_error("update", "install, status, mark-good or rollback",
				       "unknown subcommand '%s'", sub);
	if (strcmp(sub, "install") == 0 && !src)
		return cmd_usage_error("update", "a bundle: a file, a device or - for stdin",
				       "no bundle");
	/*
	 * The init system runs mark-good on every boot (overlays/examples,
	 * docs/updates.md): a boot not from a slot has nothing to keep, which is
	 * no failure, and needs no update.conf.
	 */
	if (strcmp(sub, "mark-good") == 0 && !booted_slot()) {
		printf("this boot was not started from a slot: nothing to mark good\n");
		return 0;
	}
	if (load_conf(conf_path, &c))
		return 1;
	if (strcmp(sub, "status") == 0)
		return show_status(&c, json);
	if (strcmp(sub, "mark-good") == 0)
		return edit(&c, mark_good, "slot %c marked good (slot %c kept as it is)\n");
	if (strcmp(sub, "rollback") == 0)
		return edit(&c, slots_rollback, "slot %c stays as it is; slot %c boots next\n");
	char booted = booted_slot();
	if (!slot && !booted)
		return fail(
		    "this boot was not started from a slot: say which to write (--slot A|B)");
	if (!slot)
		slot = slots_other(booted);
	if (slot == booted)
		return fail("slot %c is running: install into the other one", slot);
	return install(&c, src, slot, downgrade, how);
}
