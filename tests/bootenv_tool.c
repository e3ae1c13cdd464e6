// SPDX-License-Identifier: GPL-2.0-only
/* init/lib/bootenv.c as a command, for tests/bootenv.sh to set against fw_setenv and grub-editenv.
 */
#include "bootenv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage[] =
    "usage: bootenv_tool uboot|uboot-redundant FILE SIZE list|need|set NAME VALUE|unset NAME\n"
    "       bootenv_tool grub FILE list|create|set NAME=VALUE...|unset NAME...\n"
    "  FILE of a redundant environment: copy 0, then copy 1, SIZE bytes each\n"
    "  list: name=value lines (U-Boot: sorted, as fw_printenv prints them)\n"
    "  need: the bytes of the image up to its terminator\n"
    "  set, unset: a file that holds no environment starts an empty one\n"
    "exit: 0 ok, 1 error, 2 usage\n";

static struct bootenv env;

/* by name: "a=" before "a.b=" */
static int cmp_entries(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;
	size_t nx = strcspn(x, "="), ny = strcspn(y, "=");
	int r = memcmp(x, y, nx < ny ? nx : ny);
	return r ? r : (nx > ny) - (nx < ny);
}

static void list(int sorted)
{
	static const char *entries[BOOTENV_VARS_MAX];
	size_t n = 0, pos = 0;
	const char *e;
	while ((e = bootenv_next(&env, &pos)))
		entries[n++] = e;
	if (sorted)
		qsort(entries, n, sizeof(entries[0]), cmp_entries);
	for (size_t i = 0; i < n; i++)
		printf("%s\n", entries[i]);
}

/* The whole file into buf (len bytes): 0, or -errno; a shorter file is -EBADMSG. */
static int read_file(const char *path, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, len);
	int err = n < 0 ? -errno : 0;
	close(fd);
	return err ? err : (size_t)n == len ? 0 : -EBADMSG;
}

static int write_at(const char *path, const void *buf, size_t len, off_t off)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	ssize_t n = pwrite(fd, buf, len, off);
	int err = n < 0 ? -errno : (size_t)n != len ? -EIO : 0;
	if (close(fd) < 0 && !err)
		err = -errno;
	return err;
}

static int fail(const char *what, const char *path, int err)
{
	fprintf(stderr, "bootenv_tool: %s '%s': %s\n", what, path, strerror(-err));
	return 1;
}

static int set_or_unset(const char *name, const char *value)
{
	int r = value ? bootenv_set(&env, name, value) : bootenv_unset(&env, name);
	if (r == -ENOENT)
		return 0; /* as fw_setenv and grub-editenv: unsetting what is not set is no error */
	if (r < 0)
		fprintf(stderr, "bootenv_tool: cannot %s '%s': %s\n", value ? "set" : "unset", name,
			strerror(-r));
	return r < 0;
}

static int uboot(int redundant, const char *path, const char *size_arg, int argc, char **argv)
{
	char *end;
	unsigned long size = strtoul(size_arg, &end, 0);
	if (*end || size == 0 || size > (1ul << 24) || argc < 1)
		return 2;
	size_t len = redundant ? 2 * size : size;
	unsigned char *img = calloc(1, len);
	if (!img)
		return fail("cannot allocate for", path, -ENOMEM);
	int r = read_file(path, img, len), rc = 0;
	if (r == 0)
		r = bootenv_parse_uboot(&env, img, len, redundant);
	const char *cmd = argv[0];
	if (!strcmp(cmd, "list") && argc == 1) {
		if (r < 0)
			rc = fail("cannot read the environment in", path, r);
		else
			list(1);
	} else if (!strcmp(cmd, "need") && argc == 1) {
		if (r < 0)
			rc = fail("cannot read the environment in", path, r);
		else
			printf("%zu\n", (size_t)(redundant ? 5 : 4) + env.used + 1);
	} else if ((!strcmp(cmd, "set") && argc == 3) || (!strcmp(cmd, "unset") && argc == 2)) {
		if (r < 0 && bootenv_init(&env, redundant ? BOOTENV_UBOOT_REDUNDANT : BOOTENV_UBOOT,
					  size) < 0) {
			free(img);
			return 2;
		}
		rc = set_or_unset(argv[1], argc == 3 ? argv[2] : NULL);
		unsigned copy;
		if (rc == 0 && (r = bootenv_serialize_uboot(&env, img, size, &copy)) == 0)
			r = write_at(path, img, size, (off_t)(copy * size));
		if (rc == 0 && r < 0)
			rc = fail("cannot write the environment to", path, r);
	} else {
		rc = 2;
	}
	free(img);
	return rc;
}

static int grub(const char *path, int argc, char **argv)
{
	static char blk[BOOTENV_GRUB_SIZE];
	if (argc < 1)
		return 2;
	const char *cmd = argv[0];
	int r = read_file(path, blk, sizeof(blk));
	if (r == 0)
		r = bootenv_parse_grub(&env, blk, sizeof(blk));
	if (!strcmp(cmd, "list") && argc == 1) {
		if (r < 0)
			return fail("cannot read the environment block", path, r);
		list(0);
		return 0;
	}
	int set = !strcmp(cmd, "set"), rc = 0;
	if (!set && strcmp(cmd, "unset") != 0 && strcmp(cmd, "create") != 0)
		return 2;
	if (!strcmp(cmd, "create") || r < 0)
		bootenv_init(&env, BOOTENV_GRUB, sizeof(blk));
	for (int i = 1; i < argc && rc == 0; i++) {
		char *eq = set ? strchr(argv[i], '=') : NULL;
		if (set && !eq)
			return 2;
		if (eq)
			*eq = '\0';
		rc = set_or_unset(argv[i], eq ? eq + 1 : NULL);
	}
	if (rc == 0 && (r = bootenv_serialize_grub(&env, blk, sizeof(blk))) == 0)
		r = write_at(path, blk, sizeof(blk), 0);
	if (rc == 0 && r < 0)
		rc = fail("cannot write the environment block", path, r);
	return rc;
}

int main(int argc, char **argv)
{
	int rc = 2;
	if (argc >= 5 && !strcmp(argv[1], "uboot"))
		rc = uboot(0, argv[2], argv[3], argc - 4, argv + 4);
	else if (argc >= 5 && !strcmp(argv[1], "uboot-redundant"))
		rc = uboot(1, argv[2], argv[3], argc - 4, argv + 4);
	else if (argc >= 4 && !strcmp(argv[1], "grub"))
		rc = grub(argv[2], argc - 3, argv + 3);
	if (rc == 2)
		fputs(usage, stderr);
	return rc;
}
