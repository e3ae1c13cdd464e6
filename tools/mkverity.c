// SPDX-License-Identifier: GPL-2.0-only
/*
 * mkverity: splits a root filesystem tree into a content-addressed object
 * store and an overlayfs metadata tree for a data-only lower layer with
 * verity=require (tools/mkmanifest.sh then pins the metadata image).
 *
 *   mkverity tree [-q] ROOT STORE META
 *     STORE/ab/cdef...  every non-empty regular file of ROOT, named by its
 *                       fs-verity digest (sha256, 4096-byte blocks, no salt);
 *                       identical contents are stored once
 *     META/...          ROOT's directories, symlinks, devices, fifos, modes,
 *                       owners, xattrs and hardlinks; each non-empty regular
 *                       file is sparse, of the right size, with
 *                       trusted.overlay.metacopy (version 0 + the digest) and
 *                       trusted.overlay.redirect "/ab/cdef..." (absolute in
 *                       the data-only layer, whose root is STORE)
 *
 * Needs root (CAP_SYS_ADMIN) for "tree": the kernel lets only it set
 * trusted.* xattrs, and mksquashfs copies them from META into the image
 * (squashfs-tools 4.5 has no other way to add xattrs). Owners are kept with
 * lchown, which needs CAP_CHOWN as well.
 *
 * Deterministic: directories are walked in strcmp order, every timestamp in
 * META and STORE is SOURCE_DATE_EPOCH (when set), objects are 0444 root:root.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libfsverity.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#define DIGEST_SIZE 32
#define ALG_SHA256 1 /* FS_VERITY_HASH_ALG_SHA256 */
#define XATTR_METACOPY "trusted.overlay.metacopy"
#define XATTR_REDIRECT "trusted.overlay.redirect"

struct link_seen {
	dev_t dev;
	ino_t ino;
	char *meta; /* the first META path of this inode */
};

struct state {
	const char *store, *meta;
	bool have_epoch, progress;
	struct timespec epoch;
	unsigned long files, objects, shared, others;
	unsigned long long store_bytes;
	struct link_seen *links;
	size_t n_links, cap_links;
};

static __attribute__((noreturn, format(printf, 1, 2))) void die(const char *fmt, ...)
{
	va_list ap;
	fputs("\nmkverity: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static char *path_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *p = malloc(la + lb + 2);
	if (!p)
		die("out of memory");
	snprintf(p, la + lb + 2, "%s/%s", a, b);
	return p;
}

static int read_cb(void *fd, void *buf, size_t count)
{
	while (count) {
		ssize_t n = read(*(int *)fd, buf, count);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		buf = (char *)buf + n;
		count -= (size_t)n;
	}
	return 0;
}

static void file_digest(int fd, const char *path, uint64_t size, uint8_t out[DIGEST_SIZE])
{
	struct libfsverity_merkle_tree_params params = {0};
	struct libfsverity_digest *d = NULL;
	params.version = 1;
	params.hash_algorithm = ALG_SHA256;
	params.file_size = size;
	params.block_size = 4096;
	if (lseek(fd, 0, SEEK_SET) < 0)
		die("'%s': %s", path, strerror(errno));
	int r = libfsverity_compute_digest(&fd, read_cb, &params, &d);
	if (r < 0)
		die("cannot compute the fs-verity digest of '%s': %s", path, strerror(-r));
	memcpy(out, d->digest, DIGEST_SIZE);
	free(d);
}

static void to_hex(const uint8_t *d, char *hex)
{
	static const char x[] = "0123456789abcdef";
	for (int i = 0; i < DIGEST_SIZE; i++) {
		hex[2 * i] = x[d[i] >> 4];
		hex[2 * i + 1] = x[d[i] & 15];
	}
	hex[2 * DIGEST_SIZE] = '\0';
}

static void set_times(struct state *st, const char *path, const struct stat *sb)
{
	struct timespec ts[2];
	ts[0] = ts[1] = st->have_epoch ? st->epoch : sb->st_mtim;
	if (utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW) < 0)
		die("cannot set the times of '%s': %s", path, strerror(errno));
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* xattrs of src onto dst, names in strcmp order; overlay's own are refused */
static void copy_xattrs(const char *src, const char *dst)
{
	ssize_t len = llistxattr(src, NULL, 0);
	if (len < 0 && (errno == ENOTSUP || errno == ENODATA))
		return;
	if (len < 0)
		die("cannot list the xattrs of '%s': %s", src, strerror(errno));
	if (len == 0)
		return;
	char *names = malloc((size_t)len), *names_v[256];
	size_t n = 0;
	if (!names || (len = llistxattr(src, names, (size_t)len)) < 0)
		die("cannot list the xattrs of '%s': %s", src, strerror(errno));
	for (char *p = names; p < names + len && n < 256; p += strlen(p) + 1)
		names_v[n++] = p;
	qsort(names_v, n, sizeof(names_v[0]), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char value[65536];
		if (strncmp(names_v[i], "trusted.overlay.", 16) == 0)
			die("'%s' has xattr '%s', which the overlay would interpret", src,
			    names_v[i]);
		ssize_t vl = lgetxattr(src, names_v[i], value, sizeof(value));
		if (vl < 0 || lsetxattr(dst, names_v[i], value, (size_t)vl, 0) < 0)
			die("cannot copy xattr '%s' of '%s': %s", names_v[i], src, strerror(errno));
	}
	free(names);
}

static void copy_data(int in, const char *src, const char *dst)
{
	char buf[65536];
	int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0444);
	if (out < 0)
		die("cannot create '%s': %s", dst, strerror(errno));
	if (lseek(in, 0, SEEK_SET) < 0)
		die("'%s': %s", src, strerror(errno));
	for (;;) {
		ssize_t n = read(in, buf, sizeof(buf));
		if (n < 0)
			die("cannot read '%s': %s", src, strerror(errno));
		if (n == 0)
			break;
		if (write(out, buf, (size_t)n) != n)
			die("cannot write '%s': %s", dst, strerror(errno));
	}
	if (close(out) < 0)
		die("cannot write '%s': %s", dst, strerror(errno));
}

/* Stores the object when it is new; returns the redirect "/ab/cdef..." */
static void store_object(struct state *st, int fd, const char *src, const struct stat *sb,
			 uint8_t digest[DIGEST_SIZE], char redirect[2 * DIGEST_SIZE + 3])
{
	char hex[2 * DIGEST_SIZE + 1], dir[4096], obj[4096], tmp[4200];
	struct stat ob;
	file_digest(fd, src, (uint64_t)sb->st_size, digest);
	to_hex(digest, hex);
	snprintf(redirect, 2 * DIGEST_SIZE + 3, "/%.2s/%s", hex, hex + 2);
	if (snprintf(dir, sizeof(dir), "%s/%.2s", st->store, hex) >= (int)sizeof(dir) ||
	    snprintf(obj, sizeof(obj), "%s%s", st->store, redirect) >= (int)sizeof(obj))
		die("store path too long");
	if (lstat(obj, &ob) == 0) {
		if (ob.st_size != sb->st_size)
			die("store object '%s' has the wrong size", obj);
		st->shared++;
		return;
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		die("cannot create '%s': %s", dir, strerror(errno));
	snprintf(tmp, sizeof(tmp), "%s.tmp", obj);
	copy_data(fd, src, tmp);
	if (lchown(tmp, 0, 0) < 0 || chmod(tmp, 0444) < 0)
		die("cannot set the owner and mode of '%s': %s", tmp, strerror(errno));
	struct stat zero = {0};
	set_times(st, tmp, &zero);
	if (rename(tmp, obj) < 0)
		die("cannot rename '%s': %s", tmp, strerror(errno));
	st->objects++;
	st->store_bytes += (unsigned long long)sb->st_size;
}

static void regular_file(struct state *st, const char *src, const char *dst, const struct stat *sb)
{
	if (sb->st_nlink > 1) {
		for (size_t i = 0; i < st->n_links; i++)
			if (st->links[i].dev == sb->st_dev && st->links[i].ino == sb->st_ino) {
				if (link(st->links[i].meta, dst) < 0)
					die("cannot link '%s' to '%s': %s", dst, st->links[i].meta,
					    strerror(errno));
				return;
			}
		if (st->n_links == st->cap_links) {
			st->cap_links = st->cap_links ? 2 * st->cap_links : 64;
			st->links = realloc(st->links, st->cap_links * sizeof(*st->links));
			if (!st->links)
				die("out of memory");
		}
		st->links[st->n_links++] = (struct link_seen){sb->st_dev, sb->st_ino, strdup(dst)};
	}
	int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (out < 0)
		die("cannot create '%s': %s", dst, strerror(errno));
	if (sb->st_size > 0) {
		uint8_t digest[DIGEST_SIZE];
		char redirect[2 * DIGEST_SIZE + 3];
		/* struct ovl_metacopy: version, len, flags, digest_algo, digest */
		unsigned char metacopy[4 + DIGEST_SIZE] = {0, sizeof(metacopy), 0, ALG_SHA256};
		int in = open(src, O_RDONLY | O_CLOEXEC);
		if (in < 0)
			die("cannot open '%s': %s", src, strerror(errno));
		store_object(st, in, src, sb, digest, redirect);
		close(in);
		memcpy(metacopy + 4, digest, DIGEST_SIZE);
		if (ftruncate(out, sb->st_size) < 0)
			die("cannot size '%s': %s", dst, strerror(errno));
		if (fsetxattr(out, XATTR_METACOPY, metacopy, sizeof(metacopy), 0) < 0 ||
		    fsetxattr(out, XATTR_REDIRECT, redirect, strlen(redirect), 0) < 0)
			die("cannot set trusted.overlay xattrs on '%s': %s%s", dst, strerror(errno),
			    errno == EPERM ? " (needs root: CAP_SYS_ADMIN)" : "");
	}
	close(out);
	st->files++;
}

static void walk(struct state *st, const char *src, const char *dst);

static void entry(struct state *st, const char *src, const char *dst)
{
	struct stat sb;
	if (lstat(src, &sb) < 0)
		die("cannot stat '%s': %s", src, strerror(errno));
	if (S_ISDIR(sb.st_mode)) {
		if (mkdir(dst, 0700) < 0)
			die("cannot create '%s': %s", dst, strerror(errno));
		walk(st, src, dst);
	} else if (S_ISREG(sb.st_mode)) {
		regular_file(st, src, dst, &sb);
	} else if (S_ISLNK(sb.st_mode)) {
		char target[4096];
		ssize_t n = readlink(src, target, sizeof(target) - 1);
		if (n < 0)
			die("cannot read link '%s': %s", src, strerror(errno));
		target[n] = '\0';
		if (symlink(target, dst) < 0)
			die("cannot create '%s': %s", dst, strerror(errno));
		st->others++;
	} else {
		if (mknod(dst, sb.st_mode, sb.st_rdev) < 0)
			die("cannot create '%s': %s", dst, strerror(errno));
		st->others++;
	}
	copy_xattrs(src, dst);
	if (lchown(dst, sb.st_uid, sb.st_gid) < 0)
		die("cannot set the owner of '%s': %s", dst, strerror(errno));
	if (!S_ISLNK(sb.st_mode) && chmod(dst, sb.st_mode & 07777) < 0)
		die("cannot set the mode of '%s': %s", dst, strerror(errno));
	set_times(st, dst, &sb);
	if (st->progress && (st->files + st->others) % 256 == 0)
		fprintf(stderr, "\rmkverity: %lu files, %lu objects, %llu MiB stored", st->files,
			st->objects, st->store_bytes >> 20);
}

static void walk(struct state *st, const char *src, const char *dst)
{
	DIR *d = opendir(src);
	if (!d)
		die("cannot open '%s': %s", src, strerror(errno));
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((errno = 0, de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			names = realloc(names, cap * sizeof(*names));
			if (!names)
				die("out of memory");
		}
		if (!(names[n++] = strdup(de->d_name)))
			die("out of memory");
	}
	if (errno)
		die("cannot read '%s': %s", src, strerror(errno));
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		char *s = path_join(src, names[i]), *t = path_join(dst, names[i]);
		entry(st, s, t);
		free(s);
		free(t);
		free(names[i]);
	}
	free(names);
}

static int cmd_tree(int argc, char **argv)
{
	struct state st = {0};
	bool quiet = argc > 1 && !strcmp(argv[1], "-q");
	if (quiet) {
		argc--;
		argv++;
	}
	if (argc != 4)
		return 2;
	const char *root = argv[1];
	st.store = argv[2];
	st.meta = argv[3];
	st.progress = !quiet && isatty(2);
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	if (epoch && *epoch) {
		char *end;
		st.epoch.tv_sec = (time_t)strtoll(epoch, &end, 10);
		if (*end)
			die("SOURCE_DATE_EPOCH '%s' is not a number", epoch);
		st.have_epoch = true;
	}
	struct stat sb, tmp;
	if (lstat(root, &sb) < 0 || !S_ISDIR(sb.st_mode))
		die("'%s' is not a directory", root);
	if (lstat(st.store, &tmp) == 0 || lstat(st.meta, &tmp) == 0)
		die("'%s' or '%s' exists; give new directories", st.store, st.meta);
	if (mkdir(st.store, 0755) < 0 || mkdir(st.meta, 0700) < 0)
		die("cannot create '%s' and '%s': %s", st.store, st.meta, strerror(errno));
	walk(&st, root, st.meta);
	copy_xattrs(root, st.meta);
	if (lchown(st.meta, sb.st_uid, sb.st_gid) < 0 || chmod(st.meta, sb.st_mode & 07777) < 0)
		die("cannot set the owner and mode of '%s': %s", st.meta, strerror(errno));
	set_times(&st, st.meta, &sb);
	/* the store's directories, after their objects */
	DIR *d = opendir(st.store);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.') {
			char *p = path_join(st.store, de->d_name);
			set_times(&st, p, &sb);
			free(p);
		}
	if (d)
		closedir(d);
	set_times(&st, st.store, &sb);
	for (size_t i = 0; i < st.n_links; i++)
		free(st.links[i].meta);
	free(st.links);
	if (!quiet)
		fprintf(stderr,
			"%smkverity: %lu regular files, %lu objects (%lu duplicates), "
			"%llu bytes in the store, %lu other entries\n",
			st.progress ? "\r" : "", st.files, st.objects, st.shared, st.store_bytes,
			st.others);
	return 0;
}

int main(int argc, char **argv)
{
	int r = 2;
	if (argc > 1 && !strcmp(argv[1], "tree"))
		r = cmd_tree(argc - 1, argv + 1);
	if (r == 2)
		fputs("usage: mkverity tree [-q] ROOT STORE META\n", stderr);
	return r;
}
