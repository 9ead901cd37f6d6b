/* SPDX-License-Identifier: GPL-2.0 */
/* A minimal TAP producer for the loader's host unit tests. */
#ifndef __LOADER_TAP_H
#define __LOADER_TAP_H

#include <stdio.h>
#include <unistd.h>

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

/*
 * Captures what the code under test writes to stderr, its one-line
 * messages, from stderr_capture() to stderr_captured().
 */
static FILE *tap_capture;
static int tap_stderr = -1;

static inline void stderr_capture(void)
{
	fflush(stderr);
	tap_capture = tmpfile();
	if (!tap_capture)
		return;
	tap_stderr = dup(2);
	dup2(fileno(tap_capture), 2);
}

/* What was captured, as much as fits in @buf. */
static inline const char *stderr_captured(char *buf, size_t len)
{
	size_t n = 0;

	if (tap_capture) {
		fflush(stderr);
		dup2(tap_stderr, 2);
		close(tap_stderr);
		rewind(tap_capture);
		n = fread(buf, 1, len - 1, tap_capture);
		fclose(tap_capture);
		tap_capture = NULL;
	}
	buf[n] = '\0';
	return buf;
}

static inline int tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
