// SPDX-License-Identifier: GPL-2.0-only
/*
 * The C library's allocator (malloc, calloc, realloc, free), replaced in the
 * static musl binary: every block is an anonymous mapping of its own, with
 * its length in a 16-byte header, and realloc is mremap. strata allocates
 * seldom and large (directory streams, the fs-verity read buffer and chunk
 * digests, strata diff's list), and frees all of it, so the pages go back to
 * the kernel at once; musl's own allocator (mallocng) costs about 8 KiB of
 * the binary for nothing strata needs. musl supports the replacement (its
 * internal callers use these four). Small allocations are what this is bad
 * at: keep them out of loops (strata diff keeps its paths in one block).
 * Host builds (glibc, with the sanitizers' allocator) keep their own.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* mremap */
#endif
#include <stdlib.h> /* __GLIBC__ on glibc */

#ifndef __GLIBC__
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#define HEADER 16 /* malloc's alignment: max_align_t */
#define PAGE 4096

static size_t mapped_len(size_t n)
{
	return n > SIZE_MAX - HEADER - PAGE ? 0 : (n + HEADER + PAGE - 1) & ~(size_t)(PAGE - 1);
}

void *malloc(size_t n)
{
	size_t len = mapped_len(n);
	char *p = len ? mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
		      : MAP_FAILED;
	if (p == MAP_FAILED) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(p, &len, sizeof(len));
	return p + HEADER;
}

/* An anonymous mapping is zero-filled. */
void *calloc(size_t count, size_t size)
{
	if (size && count > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	return malloc(count * size);
}

void free(void *ptr)
{
	if (ptr) {
		char *p = (char *)ptr - HEADER;
		size_t len;
		memcpy(&len, p, sizeof(len));
		munmap(p, len);
	}
}

void *realloc(void *ptr, size_t n)
{
	if (!ptr)
		return malloc(n);
	char *p = (char *)ptr - HEADER;
	size_t old, len = mapped_len(n);
	memcpy(&old, p, sizeof(old));
	if (!len) {
		errno = ENOMEM;
		return NULL;
	}
	if (len == old)
		return ptr;
	p = mremap(p, old, len, MREMAP_MAYMOVE);
	if (p == MAP_FAILED) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(p, &len, sizeof(len));
	return p + HEADER;
}
#endif
