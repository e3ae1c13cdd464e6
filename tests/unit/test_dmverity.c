// SPDX-License-Identifier: GPL-2.0-only
/* The dm-verity hash tree check against trees `veritysetup format` (cryptsetup) writes. */
#define UNIT_NAME "dmverity"
#include "unit.h"
#include "../../init/lib/dmverity.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static const char salt_hex[] = "5a17000000000000000000000000000000000000000000000000000000005a17";

/* n blocks of data, the tree appended by veritysetup; the root hash to root. */
static const char *image(unsigned n, uint8_t root[FSVERITY_DIGEST_SIZE], uint8_t salt[32])
{
	static char path[64];
	char cmd[512], hex[80] = "";
	snprintf(path, sizeof(path), "/tmp/strata-unit-dmverity-%d-%u", (int)getpid(), n);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	for (unsigned i = 0; f && i < n * 1024; i++) {
		uint32_t x = i * 2654435761u ^ n;
		fwrite(&x, sizeof(x), 1, f);
	}
	if (f)
		fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "veritysetup format '%s' '%s' --no-superblock --data-blocks=%u --hash-offset=%u "
		 "--salt=%s --root-hash-file='%s.root' >/dev/null",
		 path, path, n, n * 4096, salt_hex, path);
	CHECK(system(cmd) == 0);
	snprintf(cmd, sizeof(cmd), "%s.root", path);
	FILE *r = fopen(cmd, "r");
	CHECK(r && fgets(hex, sizeof(hex), r));
	if (r)
		fclose(r);
	unlink(cmd);
	CHECK(fsverity_from_hex(hex, 64, root) == 0);
	CHECK(fsverity_from_hex(salt_hex, 64, salt) == 0);
	return path;
}

static int check(const char *path, unsigned n, const uint8_t *root, const uint8_t *salt)
{
	int fd = open(path, O_RDONLY);
	CHECK(fd >= 0);
	int r = dmverity_check_tree(fd, (uint64_t)n * 4096, root, salt);
	close(fd);
	return r;
}

static void flip(const char *path, off_t at)
{
	int fd = open(path, O_RDWR);
	unsigned char c = 0;
	CHECK(fd >= 0 && pread(fd, &c, 1, at) == 1);
	c ^= 0x01;
	CHECK(pwrite(fd, &c, 1, at) == 1);
	close(fd);
}

static void trees_of_every_shape(void)
{
	/* one leaf block, a full one, two levels, and a partly filled second level */
	static const unsigned sizes[] = {1, 2, 128, 129, 300, 16385};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned n = sizes[i];
		uint8_t root[32], salt[32];
		const char *path = image(n, root, salt);
		struct stat st;
		CHECK(stat(path, &st) == 0);
		/* veritysetup's tree is as long as ours */
		CHECK((uint64_t)st.st_size == ((uint64_t)n + dmverity_tree_blocks(n)) * 4096);
		CHECK(check(path, n, root, salt) == 0);
		if (n == 1) {
			/* no tree: the root hashes the one block, checked here */
			flip(path, 7);
			CHECK(check(path, n, root, salt) == -EBADMSG);
			unlink(path);
			continue;
		}
		/* a changed data block is the kernel's to find: the tree still matches */
		flip(path, 4096 + 7);
		CHECK(check(path, n, root, salt) == 0);
		uint8_t other[32];
		memcpy(other, root, 32);
		other[31] ^= 1;
		CHECK(check(path, n, other, salt) == -EBADMSG);
		salt[0] ^= 1;
		CHECK(check(path, n, root, salt) == -EBADMSG);
		salt[0] ^= 1;
		/* the last byte of the tree: the bottom level, hashed by the level above */
		flip(path, st.st_size - 1);
		CHECK(check(path, n, root, salt) == -EBADMSG);
		flip(path, st.st_size - 1);
		CHECK(truncate(path, st.st_size - 4096) == 0);
		CHECK(check(path, n, root, salt) == -ENODATA);
		unlink(path);
	}
	CHECK(dmverity_tree_blocks(1) == 0 && dmverity_tree_blocks(128) == 1 &&
	      dmverity_tree_blocks(129) == 3 && dmverity_tree_blocks(16384) == 129 &&
	      dmverity_tree_blocks(16385) == 132);
}

int main(void)
{
	RUN(trees_of_every_shape);
	return UNIT_EXIT();
}
