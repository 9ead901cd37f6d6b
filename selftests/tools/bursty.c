// SPDX-License-Identifier: GPL-2.0
/*
 * bursty SECONDS BUSY_MS IDLE_MS: a load of exactly BUSY_MS in every period
 * of BUSY_MS + IDLE_MS, for SECONDS.
 *
 * Each period spins BUSY_MS from its wake-up and sleeps to the period's end
 * on an absolute deadline, so a wake-up the (emulated) CPU delivers late
 * eats into the idle phase instead of stretching the period: every period,
 * and so every window a governor measures over one, sees the same busy
 * share whatever the host does.  A wake-up later than the whole idle phase
 * starts the periods afresh from it.  A shell loop cannot do this: under
 * emulation its own overhead was a tenth of a 16 ms period.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define NSEC_PER_MSEC	1000000LL
#define NSEC_PER_SEC	1000000000LL

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static void sleep_until(long long deadline)
{
	struct timespec ts = {
		.tv_sec = deadline / NSEC_PER_SEC,
		.tv_nsec = deadline % NSEC_PER_SEC,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static long long arg_ms(const char *s, long long max)
{
	char *end;
	long long v = strtoll(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 0 || v > max) {
		fprintf(stderr, "bursty: '%s' is not a number from 0 to %lld\n", s, max);
		exit(2);
	}
	return v;
}

int main(int argc, char **argv)
{
	long long busy, period, end, next, t;

	if (argc != 4) {
		fprintf(stderr, "usage: bursty SECONDS BUSY_MS IDLE_MS\n");
		return 2;
	}
	end = now_ns() + arg_ms(argv[1], 3600) * NSEC_PER_SEC;
	busy = arg_ms(argv[2], 10000) * NSEC_PER_MSEC;
	period = busy + arg_ms(argv[3], 10000) * NSEC_PER_MSEC;
	if (!period) {
		fprintf(stderr, "bursty: an empty period\n");
		return 2;
	}

	for (next = t = now_ns(); t < end; t = now_ns()) {
		while (now_ns() < t + busy)
			;
		next += period;
		if (next <= now_ns())
			next = now_ns() + period - busy;
		sleep_until(next);
	}
	return 0;
}
