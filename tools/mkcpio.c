// SPDX-License-Identifier: GPL-2.0-only
/*
 * mkcpio: writes a newc cpio archive from a gen_init_cpio-style list, without
 * root (device nodes come from the list), reproducibly (mtime from
 * SOURCE_DATE_EPOCH, inode numbers in list order).
 *
 *   file NAME SOURCE MODE UID GID
 *   dir NAME MODE UID GID
 *   nod NAME MODE UID GID c|b MAJOR MINOR
 *   slink NAME TARGET MODE UID GID
 *
 * usage: mkcpio LIST > archive.cpio
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static unsigned long offset, ino = 721;
static unsigned long mtime;

static void out(const void *p, size_t n)
{
	if (fwrite(p, 1, n, stdout) != n) {
		perror("mkcpio: write");
		exit(1);
	}
	offset += n;
}

static void pad4(void)
{
	static const char zeros[4];
	if (offset % 4)
		out(zeros, 4 - offset % 4);
}

static void header(const char *name, unsigned mode, unsigned uid, unsigned gid, unsigned long size,
		   unsigned maj, unsigned min)
{
	char hdr[160];
	const char *n = name[0] == '/' ? name + 1 : name;
	/* newc fields are 32 bits; every value here is checked or small */
	int len =
	    snprintf(hdr, sizeof(hdr), "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		     (unsigned)ino++, mode, uid, gid, 1u, (unsigned)mtime, (unsigned)size, 0u, 0u,
		     maj, min, (unsigned)strlen(n) + 1, 0u);
	if (len != 110 || size > 0xffffffffUL) {
		fprintf(stderr, "mkcpio: entry '%s' does not fit the newc format\n", name);
		exit(1);
	}
	out(hdr, 110);
	out(n, strlen(n) + 1);
	pad4();
}

static void copy_file(const char *src, unsigned long size)
{
	char buf[65536];
	FILE *f = fopen(src, "rb");
	unsigned long done = 0;
	if (!f) {
		fprintf(stderr, "mkcpio: cannot open '%s': %s\n", src, strerror(errno));
		exit(1);
	}
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		out(buf, n);
		done += n;
	}
	fclose(f);
	if (done != size) {
		fprintf(stderr, "mkcpio: '%s' changed size while reading\n", src);
		exit(1);
	}
	pad4();
}

int main(int argc, char **argv)
{
	char line[4096];
	unsigned lineno = 0;
	const char *epoch = getenv("SOURCE_DATE_EPOCH");
	FILE *list;

	if (argc != 2) {
		fputs("usage: mkcpio LIST > archive.cpio\n", stderr);
		return 2;
	}
	mtime = epoch ? strtoul(epoch, NULL, 10) : 0;
	if (!(list = fopen(argv[1], "r"))) {
		fprintf(stderr, "mkcpio: cannot open '%s': %s\n", argv[1], strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), list)) {
		char type[16], name[1024], a[2048], devtype;
		unsigned mode, uid, gid, maj, min;
		lineno++;
		if (line[0] == '#' || line[0] == '\n')
			continue;
		if (sscanf(line, "%15s", type) != 1)
			continue;
		if (strcmp(type, "file") == 0 &&
		    sscanf(line, "%*s %1023s %2047s %o %u %u", name, a, &mode, &uid, &gid) == 5) {
			struct stat st;
			if (stat(a, &st) < 0) {
				fprintf(stderr, "mkcpio: %s:%u: cannot stat '%s': %s\n", argv[1],
					lineno, a, strerror(errno));
				return 1;
			}
			header(name, S_IFREG | mode, uid, gid, (unsigned long)st.st_size, 0, 0);
			copy_file(a, (unsigned long)st.st_size);
		} else if (strcmp(type, "dir") == 0 &&
			   sscanf(line, "%*s %1023s %o %u %u", name, &mode, &uid, &gid) == 4) {
			header(name, S_IFDIR | mode, uid, gid, 0, 0, 0);
		} else if (strcmp(type, "nod") == 0 &&
			   sscanf(line, "%*s %1023s %o %u %u %c %u %u", name, &mode, &uid, &gid,
				  &devtype, &maj, &min) == 7 &&
			   (devtype == 'c' || devtype == 'b')) {
			header(name, (devtype == 'c' ? S_IFCHR : S_IFBLK) | mode, uid, gid, 0, maj,
			       min);
		} else if (strcmp(type, "slink") == 0 && sscanf(line, "%*s %1023s %2047s %o %u %u",
								name, a, &mode, &uid, &gid) == 5) {
			header(name, S_IFLNK | mode, uid, gid, (unsigned long)strlen(a), 0, 0);
			out(a, strlen(a));
			pad4();
		} else {
			fprintf(stderr, "mkcpio: %s:%u: cannot parse: %s", argv[1], lineno, line);
			return 1;
		}
	}
	fclose(list);
	header("TRAILER!!!", 0, 0, 0, 0, 0, 0);
	/* the kernel reads archives in 512-byte units */
	static const char zeros[512];
	if (offset % 512)
		out(zeros, 512 - offset % 512);
	return 0;
}
