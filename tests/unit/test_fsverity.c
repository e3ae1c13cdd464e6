// SPDX-License-Identifier: GPL-2.0-only
/* The userspace fs-verity digest against `fsverity digest` (fsverity-utils) and SHA-256 vectors. */
#define UNIT_NAME "fsverity"
#include "unit.h"
#include "../../init/lib/fsverity.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/strata-fsverity-XXXXXX";

/* A file of size bytes of deterministic pseudo-random data; returns its path. */
static const char *make_file(const char *name, uint64_t size)
{
	static char path[256];
	uint32_t x = (uint32_t)size * 2654435761u + 1;
	uint8_t buf[65536];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "wb");
	if (!f)
		return NULL;
	for (uint64_t done = 0; done < size;) {
		size_t n = size - done < sizeof(buf) ? (size_t)(size - done) : sizeof(buf);
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 17, x ^= x << 5;
			buf[i] = (uint8_t)x;
		}
		fwrite(buf, 1, n, f);
		done += n;
	}
	fclose(f);
	return path;
}

/* What `fsverity digest` prints for path, as hex; "" when it cannot run. */
static const char *reference(const char *path)
{
	static char hex[FSVERITY_HEX_SIZE];
	char cmd[512], line[512];
	hex[0] = '\0';
	snprintf(cmd, sizeof(cmd), "fsverity digest '%s' 2>&1", path);
	FILE *p = popen(cmd, "r");
	if (!p)
		return hex;
	if (fgets(line, sizeof(line), p) && strncmp(line, "sha256:", 7) == 0 &&
	    strlen(line) > 7 + 64) {
		memcpy(hex, line + 7, 64);
		hex[64] = '\0';
	} else {
		fprintf(stderr, "  %s: %s", cmd, line);
	}
	pclose(p);
	return hex;
}

static const char *ours(const char *path, uint64_t bytes, unsigned threads, int *err)
{
	static char hex[FSVERITY_HEX_SIZE];
	uint8_t d[FSVERITY_DIGEST_SIZE];
	hex[0] = '\0';
	int fd = open(path, O_RDONLY);
	*err = fd < 0 ? -errno : fsverity_digest_fd(fd, bytes, threads, d);
	if (fd >= 0)
		close(fd);
	if (*err == 0)
		fsverity_to_hex(d, hex);
	return hex;
}

static void check_size(uint64_t size, unsigned threads)
{
	char name[64];
	int err;
	snprintf(name, sizeof(name), "f%llu", (unsigned long long)size);
	const char *path = make_file(name, size);
	CHECK(path != NULL);
	if (!path)
		return;
	char want[FSVERITY_HEX_SIZE];
	snprintf(want, sizeof(want), "%s", reference(path));
	CHECK(strlen(want) == 64);
	CHECK_STR(ours(path, size, threads, &err), want);
	CHECK(err == 0);
	unlink(path);
}

static void sha256_vectors(void)
{
	static const struct {
		const char *msg, *hex;
	} v[] = {
	    {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
	    {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
	     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
	    {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopq"
	     "klmnopqrlmnopqrsmnopqrstnopqrstu",
	     "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
	};
	bool paths[2] = {false, sha256_have_cpu_insns()};
	for (int p = 0; p < (paths[1] ? 2 : 1); p++)
		for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
			uint8_t d[FSVERITY_DIGEST_SIZE];
			char hex[FSVERITY_HEX_SIZE];
			sha256(v[i].msg, strlen(v[i].msg), paths[p], d);
			fsverity_to_hex(d, hex);
			CHECK_STR(hex, v[i].hex);
		}
	if (!paths[1])
		fprintf(stderr,
			"  note: no SHA-NI on this CPU; only the portable code was tested\n");
}

/* Both SHA-256 implementations agree on every length around the padding boundaries. */
static void sha256_paths_agree(void)
{
	uint8_t msg[300], a[32], b[32];
	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 7 + 3);
	if (!sha256_have_cpu_insns())
		return;
	for (size_t len = 0; len <= sizeof(msg); len++) {
		sha256(msg, len, false, a);
		sha256(msg, len, true, b);
		CHECK(memcmp(a, b, 32) == 0);
	}
}

/* Streamed in pieces of every size the same as whole, across the padding's edges. */
static void sha256_streamed_equals_whole(void)
{
	uint8_t msg[300], whole[32], part[32];
	for (size_t i = 0; i < sizeof(msg); i++)
		msg[i] = (uint8_t)(i * 13 + 1);
	for (size_t len = 0; len <= sizeof(msg); len += 1 + len / 16) {
		sha256(msg, len, false, whole);
		for (size_t step = 1; step <= 130; step += step < 8 ? 1 : 41) {
			struct sha256_ctx c;
			sha256_init(&c, sha256_have_cpu_insns());
			for (size_t at = 0; at < len; at += step)
				sha256_update(&c, msg + at, len - at < step ? len - at : step);
			sha256_final(&c, part);
			CHECK(memcmp(whole, part, 32) == 0);
		}
	}
}

static void digest_sizes_match_fsverity_digest(void)
{
	/* empty; one partial, exact and one-over block; 1 MiB + 1 (two chunks) */
	static const uint64_t sizes[] = {0,    1,	   4095,	   4096,	 4097,
					 8192, 128 * 4096, 128 * 4096 + 1, (1 << 20) + 1};
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		check_size(sizes[i], 1);
}

static void multi_level_tree(void)
{
	/* 2049 data blocks: 17 level-0 tree blocks, 1 level-1, then the root */
	check_size((8u << 20) + 3, 1);
	/* more than 128 level-0 tree blocks: three tree levels (64 MiB + 1 needs 129) */
	check_size((64u << 20) + 1, 1);
}

static void threaded_equals_single(void)
{
	check_size((8u << 20) + 3, 2);
	check_size((8u << 20) + 3, 7);
	/* more threads than chunks */
	check_size((1 << 20) + 1, 16);
}

/* A raw volume is longer than the image in it: only the first bytes count. */
static void prefix_of_a_longer_device(void)
{
	uint64_t size = (3u << 20) + 77;
	int err;
	const char *p = make_file("img", size);
	char want[FSVERITY_HEX_SIZE];
	snprintf(want, sizeof(want), "%s", reference(p));
	/* the "device": the image followed by erased flash */
	char dev[256];
	snprintf(dev, sizeof(dev), "%s/dev", tmpdir);
	char cmd[600];
	snprintf(cmd, sizeof(cmd),
		 "{ cat '%s'; head -c 1000000 /dev/zero | tr '\\0' '\\377'; } > '%s'", p, dev);
	CHECK(system(cmd) == 0);
	CHECK_STR(ours(dev, size, 2, &err), want);
	CHECK(err == 0);
	/* and a different length is a different digest */
	CHECK(strcmp(ours(dev, size + 1, 2, &err), want) != 0);
	unlink(dev);
	unlink(p);
}

static void short_device_is_enodata(void)
{
	int err;
	const char *p = make_file("short", 10000);
	ours(p, 10001, 1, &err);
	CHECK(err == -ENODATA);
	ours(p, 2u << 20, 2, &err);
	CHECK(err == -ENODATA);
	ours(p, 4096 + 1, 1, &err);
	CHECK(err == 0);
	unlink(p);
	CHECK(fsverity_digest_fd(-1, 5, 1, (uint8_t[32]){0}) == -EBADF);
	CHECK(fsverity_digest_fd(-1, 5 << 20, 2, (uint8_t[32]){0}) == -EBADF);
}

static void hex_round_trip(void)
{
	uint8_t d[32], e[32];
	char hex[FSVERITY_HEX_SIZE];
	for (int i = 0; i < 32; i++)
		d[i] = (uint8_t)(i * 37 + 1);
	fsverity_to_hex(d, hex);
	CHECK(strlen(hex) == 64);
	CHECK(fsverity_from_hex(hex, 64, e) == 0 && memcmp(d, e, 32) == 0);
	hex[5] = (char)(hex[5] >= 'a' ? hex[5] - 32 : hex[5]); /* upper case is fine */
	CHECK(fsverity_from_hex(hex, 64, e) == 0 && memcmp(d, e, 32) == 0);
	CHECK(fsverity_from_hex(hex, 63, e) == -EINVAL);
	hex[10] = 'g';
	CHECK(fsverity_from_hex(hex, 64, e) == -EINVAL);
	CHECK(fsverity_from_hex("", 0, e) == -EINVAL);
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		printf("FAIL unit/%s/setup: mkdtemp: %s\n", UNIT_NAME, strerror(errno));
		return 1;
	}
	RUN(sha256_vectors);
	RUN(sha256_paths_agree);
	RUN(sha256_streamed_equals_whole);
	RUN(digest_sizes_match_fsverity_digest);
	RUN(multi_level_tree);
	RUN(threaded_equals_single);
	RUN(prefix_of_a_longer_device);
	RUN(short_device_is_enodata);
	RUN(hex_round_trip);
	rmdir(tmpdir);
	return UNIT_EXIT();
}
