/* SPDX-License-Identifier: GPL-2.0-only */
/* Shared by the libFuzzer targets: inputs as C strings, invariants that abort. */
#ifndef STRATA_FUZZ_H
#define STRATA_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A violated invariant is a crash libFuzzer records with its input. */
#define FUZZ_ASSERT(cond)                                                                          \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__,       \
				#cond);                                                            \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

/* The input as a NUL-terminated heap copy (stops at an embedded NUL, as the init's reads do). */
static inline char *fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* A string written into a buffer of len bytes is terminated inside it. */
#define FUZZ_TERMINATED(buf) FUZZ_ASSERT(memchr((buf), '\0', sizeof(buf)) != NULL)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
