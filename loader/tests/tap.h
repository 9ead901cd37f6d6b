/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal TAP producer for the loader's host unit tests. */
#ifndef __LOADER_TAP_H
#define __LOADER_TAP_H

#include <stdio.h>

static int tap_count, tap_failed;

/* ok(COND, "name", ...): one test point; prints the failing expression. */
#define ok(cond, ...) do {						\
	int __passed = !!(cond);					\
									\
	tap_count++;							\
	if (__passed) {							\
		printf("ok %d ", tap_count);				\
	} else {							\
		tap_failed++;						\
		printf("not ok %d ", tap_count);			\
	}								\
	printf(__VA_ARGS__);						\
	putchar('\n');							\
	if (!__passed)							\
		printf("# failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
} while (0)

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
