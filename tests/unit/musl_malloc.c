// SPDX-License-Identifier: GPL-2.0-only
/*
 * init/malloc.c, the allocator of the static musl binary, linked as the
 * binary links it (musl-gcc -static; tests/run.sh builds it: it is compiled
 * out of the host's glibc builds): the C library's own callers (opendir,
 * strdup) reach it, blocks are aligned, zeroed where calloc says so, kept
 * across realloc, and every free gives its mapping back.
 */
#define UNIT_NAME "musl_malloc"
#include "unit.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int mappings(void)
{
	char buf[65536];
	FILE *f = fopen("/proc/self/maps", "r");
	size_t n = f ? fread(buf, 1, sizeof(buf), f) : 0;
	int lines = 0;
	if (f)
		fclose(f);
	for (size_t i = 0; i < n; i++)
		lines += buf[i] == '\n';
	return lines;
}

static void replaces_libc(void)
{
	char *p = malloc(1);
	CHECK(p != NULL);
	/* this allocator's block: its header is the start of a page of its own */
	CHECK(((uintptr_t)p & 4095) == 16);
	free(p);
	char *s = strdup("strdup reaches it");
	CHECK(s && ((uintptr_t)s & 4095) == 16);
	CHECK_STR(s, "strdup reaches it");
	free(s);
	DIR *d = opendir("/");
	CHECK(d != NULL);
	int entries = 0;
	while (d && readdir(d))
		entries++;
	CHECK(entries >= 2);
	if (d)
		CHECK(closedir(d) == 0);
}

/* sizes no allocation can have, out of the compiler's sight */
static volatile size_t huge = SIZE_MAX - 8, half = SIZE_MAX / 2;

static void blocks(void)
{
	void *z = malloc(0);
	CHECK(z != NULL);
	free(z);
	free(NULL);
	unsigned char *c = calloc(3000, 7);
	CHECK(c != NULL);
	int zero = 1;
	for (size_t i = 0; c && i < 21000; i++)
		zero &= c[i] == 0;
	CHECK(zero);
	free(c);
	errno = 0;
	CHECK(calloc(half, 3) == NULL && errno == ENOMEM);
	errno = 0;
	CHECK(malloc(huge) == NULL && errno == ENOMEM);
}

static void reallocs(void)
{
	unsigned char *p = realloc(NULL, 5000);
	CHECK(p != NULL);
	for (size_t i = 0; p && i < 5000; i++)
		p[i] = (unsigned char)(i * 7);
	p = realloc(p, 3 << 20); /* grows: mremap may move it */
	CHECK(p != NULL);
	int same = 1;
	for (size_t i = 0; p && i < 5000; i++)
		same &= p[i] == (unsigned char)(i * 7);
	CHECK(same);
	p = realloc(p, 100); /* shrinks in place */
	CHECK(p != NULL);
	same = 1;
	for (size_t i = 0; p && i < 100; i++)
		same &= p[i] == (unsigned char)(i * 7);
	CHECK(same);
	errno = 0;
	unsigned char *q = realloc(p, huge);
	CHECK(q == NULL && errno == ENOMEM);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuse-after-free" /* a failed realloc keeps the block */
	CHECK(p[99] == (unsigned char)(99 * 7));
	free(p);
#pragma GCC diagnostic pop
}

static void gives_back(void)
{
	int before = mappings();
	for (int i = 0; i < 2000; i++) {
		void *a = malloc((size_t)i * 37), *b = calloc(1, 70000);
		a = realloc(a, 200000);
		CHECK(a && b);
		free(a);
		free(b);
	}
	CHECK(mappings() <= before + 1);
}

int main(void)
{
	RUN(replaces_libc);
	RUN(blocks);
	RUN(reallocs);
	RUN(gives_back);
	return UNIT_EXIT();
}
