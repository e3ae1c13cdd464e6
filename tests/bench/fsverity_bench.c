// SPDX-License-Identifier: GPL-2.0-only
/*
 * Host benchmark of init/lib/fsverity.c: digest of a file with N threads, printed with the
 * time taken.
 */
#include "../../init/lib/fsverity.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec a, b;
	struct stat st;
	uint8_t d[FSVERITY_DIGEST_SIZE];
	char hex[FSVERITY_HEX_SIZE];

	if (argc != 3) {
		fprintf(stderr, "usage: %s FILE THREADS\n", argv[0]);
		return 2;
	}
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "%s: '%s': %s\n", argv[0], argv[1], strerror(errno));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &a);
	int r = fsverity_digest_fd(fd, (uint64_t)st.st_size, (unsigned)atoi(argv[2]), d);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (r < 0) {
		fprintf(stderr, "%s: '%s': %s\n", argv[0], argv[1], strerror(-r));
		return 1;
	}
	fsverity_to_hex(d, hex);
	printf("%s %.6f %s\n", hex, (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9,
	       sha256_have_cpu_insns() ? "sha-ni" : "portable");
	return 0;
}
