/* SPDX-License-Identifier: GPL-2.0-only */
/* A minimal unit test harness: one PASS/FAIL line per test, for tests/run.sh. */
#ifndef STRATA_UNIT_H
#define STRATA_UNIT_H

#include <stdio.h>
#include <string.h>

static int unit_check_failures;
static int unit_failed_tests;

#define CHECK(cond)                                                                                \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
			unit_check_failures++;                                                     \
		}                                                                                  \
	} while (0)

#define CHECK_STR(a, b)                                                                            \
	do {                                                                                       \
		const char *a_ = (a), *b_ = (b);                                                   \
		if (strcmp(a_, b_) != 0) {                                                         \
			fprintf(stderr, "  %s:%d: \"%s\" != \"%s\"\n", __FILE__, __LINE__, a_,     \
				b_);                                                               \
			unit_check_failures++;                                                     \
		}                                                                                  \
	} while (0)

#define RUN(fn)                                                                                    \
	do {                                                                                       \
		int before_ = unit_check_failures;                                                 \
		fn();                                                                              \
		int ok_ = unit_check_failures == before_;                                          \
		printf("%s unit/%s/%s\n", ok_ ? "PASS" : "FAIL", UNIT_NAME, #fn);                  \
		if (!ok_)                                                                          \
			unit_failed_tests++;                                                       \
	} while (0)

#define UNIT_EXIT() (unit_failed_tests ? 1 : 0)

#endif
