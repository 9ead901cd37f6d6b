// SPDX-License-Identifier: GPL-2.0
/*
 * pingpong: two processes bounce a byte over a pair of pipes.
 *
 *   pingpong CPU_A CPU_B ROUNDS
 *
 * Each round trip is two wake-ups, each a scheduler utilization update on
 * the waking CPU.  Prints the mean round trip in nanoseconds.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(1);
	}
}

static void xfer(int rd, int wr)
{
	char c = 0;

	if ((wr >= 0 && write(wr, &c, 1) != 1) || (rd >= 0 && read(rd, &c, 1) != 1)) {
		perror("pipe");
		exit(1);
	}
}

int main(int argc, char **argv)
{
	int ping[2], pong[2];
	struct timespec a, b;
	long rounds, i;
	pid_t child;

	if (argc != 4) {
		fprintf(stderr, "usage: pingpong CPU_A CPU_B ROUNDS\n");
		return 2;
	}
	rounds = atol(argv[3]);
	if (pipe(ping) || pipe(pong)) {
		perror("pipe");
		return 1;
	}
	child = fork();
	if (child == 0) {
		pin(atoi(argv[2]));
		for (i = 0; i < rounds; i++) {
			xfer(ping[0], -1);
			xfer(-1, pong[1]);
		}
		_exit(0);
	}
	pin(atoi(argv[1]));
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < rounds; i++) {
		xfer(-1, ping[1]);
		xfer(pong[0], -1);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	waitpid(child, NULL, 0);
	printf("%.0f\n", ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / rounds);
	return 0;
}
