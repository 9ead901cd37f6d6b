// SPDX-License-Identifier: GPL-2.0
/*
 * cpufreq-bpf shadow: a loaded BPF governor run in shadow of the governor
 * that drives a policy, for a while, and the two compared decision by
 * decision.  The kernel does the running and the counting (debugfs
 * cpufreq_bpf/shadow and shadow_policyN, kernel/sched/cpufreq_bpf.c); this
 * attaches, waits, reads, detaches and reports.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "loader.h"

#define SHADOW_CTL	BPF_DEBUGFS "/shadow"
#define MAX_ENTRIES	128	/* frequency table entries shown */

struct shadow_stats {
	char governor[GOV_NAME_LEN + 1];
	int failed;
	unsigned long long updates, samples, requests, agreements;
	unsigned long long transitions[2];	/* the policy's, the shadow's */
	int nr;
	struct {
		unsigned long khz;
		unsigned long long ns[2];	/* the policy's, the shadow's */
	} res[MAX_ENTRIES];
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

/* Writes @cmd to the control file; 0 or -errno. */
static int shadow_ctl(const char *cmd)
{
	int fd = open(SHADOW_CTL, O_WRONLY), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, cmd, strlen(cmd)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* Parses shadow_policyN; -errno when it is gone (the shadow was detached). */
static int shadow_stats_read(int policy, struct shadow_stats *st)
{
	char path[128], line[256];
	unsigned long long a, b;
	unsigned long khz;
	FILE *f;

	memset(st, 0, sizeof(*st));
	snprintf(path, sizeof(path), BPF_DEBUGFS "/shadow_policy%d", policy);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "governor %16s", st->governor) == 1 ||
		    sscanf(line, "failed %d", &st->failed) == 1 ||
		    sscanf(line, "updates %llu", &st->updates) == 1 ||
		    sscanf(line, "samples %llu", &st->samples) == 1 ||
		    sscanf(line, "requests %llu", &st->requests) == 1 ||
		    sscanf(line, "agreements %llu", &st->agreements) == 1 ||
		    sscanf(line, "transitions %llu %llu", &st->transitions[0],
			   &st->transitions[1]) == 2)
			continue;
		if (sscanf(line, "%lu %llu %llu", &khz, &a, &b) == 3 && st->nr < MAX_ENTRIES) {
			st->res[st->nr].khz = khz;
			st->res[st->nr].ns[0] = a;
			st->res[st->nr].ns[1] = b;
			st->nr++;
		}
	}
	fclose(f);
	return 0;
}

static double percent(unsigned long long part, unsigned long long whole)
{
	return whole ? 100.0 * part / whole : 0;
}

/* Each side's residency total, in ns. */
static void residency_totals(const struct shadow_stats *st, unsigned long long total[2])
{
	int i;

	total[0] = total[1] = 0;
	for (i = 0; i < st->nr; i++) {
		total[0] += st->res[i].ns[0];
		total[1] += st->res[i].ns[1];
	}
}

/* The L1 distance of the two residency distributions: 0 same, 2 disjoint. */
static double residency_l1(const struct shadow_stats *st)
{
	unsigned long long total[2];
	double l1 = 0, d;
	int i;

	residency_totals(st, total);
	if (!total[0] || !total[1])
		return 0;
	for (i = 0; i < st->nr; i++) {
		d = (double)st->res[i].ns[0] / total[0] - (double)st->res[i].ns[1] / total[1];
		l1 += d < 0 ? -d : d;
	}
	return l1;
}

static void report_text(const struct shadow_stats *st, int policy, const char *driver,
			double seconds)
{
	unsigned long long total[2];
	int i;

	residency_totals(st, total);
	printf("%s in shadow of policy%d (%s) for %.1f s\n", st->governor, policy, driver,
	       seconds);
	printf("updates %llu, agreement %.1f%%, requests %llu, samples %llu\n", st->updates,
	       percent(st->agreements, st->updates), st->requests, st->samples);
	printf("transitions: policy %llu, shadow %llu\n", st->transitions[0],
	       st->transitions[1]);
	if (!st->nr)
		return;
	printf("%10s %8s %8s\n", "kHz", driver, "shadow");
	for (i = 0; i < st->nr; i++)
		printf("%10lu %7.1f%% %7.1f%%\n", st->res[i].khz,
		       percent(st->res[i].ns[0], total[0]), percent(st->res[i].ns[1], total[1]));
	printf("residency L1 distance %.3f\n", residency_l1(st));
}

static void report_json(const struct shadow_stats *st, int policy, const char *driver,
			double seconds)
{
	unsigned long long total[2];
	int i;

	residency_totals(st, total);
	json_object_start();
	json_field_str("governor", st->governor);
	json_field_int("policy", policy);
	json_field_str("driving", driver);
	json_key("seconds");
	json_float(seconds, 3);
	json_field_uint("updates", st->updates);
	json_field_uint("agreements", st->agreements);
	json_key("agreement_pct");
	json_float(percent(st->agreements, st->updates), 2);
	json_field_uint("requests", st->requests);
	json_field_uint("samples", st->samples);
	json_key("l1");
	json_float(residency_l1(st), 4);
	json_key("transitions");
	json_object_start();
	json_field_uint("actual", st->transitions[0]);
	json_field_uint("shadow", st->transitions[1]);
	json_object_end();
	json_key("residency");
	json_array_start();
	for (i = 0; i < st->nr; i++) {
		json_object_start();
		json_field_uint("khz", st->res[i].khz);
		json_key("actual_pct");
		json_float(percent(st->res[i].ns[0], total[0]), 2);
		json_key("shadow_pct");
		json_float(percent(st->res[i].ns[1], total[1]), 2);
		json_object_end();
	}
	json_array_end();
	json_object_end();
}

/* The one-line reason the kernel refused "N NAME". */
static int attach_failed(int err, const char *gov, int policy)
{
	switch (err) {
	case -ENOENT:
		if (!can_access(SHADOW_CTL, F_OK))
			return fail(EXIT_NOSUPPORT,
				    "this kernel's cpufreq-bpf series has no shadow governors (no %s)",
				    SHADOW_CTL);
		return fail(EXIT_NOTFOUND, "%s is not a registered BPF governor", gov);
	case -ENODEV:
		return fail(EXIT_NOTFOUND, "policy %d does not exist or has no CPU online",
			    policy);
	case -EBUSY:
		return fail(EXIT_USAGE, "%s drives policy %d: a governor cannot shadow itself",
			    gov, policy);
	case -EEXIST:
		return fail(EXIT_EXISTS, "policy %d already has a shadow governor", policy);
	default:
		return fail(EXIT_FAIL, "attaching %s to policy %d: %s", gov, policy,
			    strerror(-err));
	}
}

/* Waits @duration_s seconds, or until interrupted when 0; false if the shadow went away. */
static bool shadow_wait(int policy, unsigned int duration_s, bool live, double *seconds)
{
	struct timespec start, now, tick = { .tv_sec = 1 };
	struct shadow_stats st;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		*seconds = now.tv_sec - start.tv_sec + (now.tv_nsec - start.tv_nsec) / 1e9;
		if (interrupted || (duration_s && *seconds >= duration_s))
			return true;
		if (duration_s && duration_s - *seconds < 1) {
			tick.tv_sec = 0;
			tick.tv_nsec = (duration_s - *seconds) * 1e9;
		}
		nanosleep(&tick, NULL);
		if (shadow_stats_read(policy, &st))
			return false;
		if (live) {
			printf("\r%.0f s: %llu updates, agreement %.1f%%, L1 %.3f   ", *seconds,
			       st.updates, percent(st.agreements, st.updates), residency_l1(&st));
			fflush(stdout);
		}
	}
}

int cmd_shadow(const char *name, int policy, unsigned int duration_s)
{
	bool json = json_on();
	struct sigaction sa = { .sa_handler = on_signal };
	struct policy_info *p;
	char gov[GOV_NAME_LEN + 1], driver[GOV_NAME_LEN + 1] = "", cmd[64], reason[128];
	struct shadow_stats st;
	double seconds = 0;
	int n, i, err, ret;

	ret = gov_resolve_loaded(name, gov, sizeof(gov));
	if (ret)
		return ret;
	n = policies_read(CPUFREQ_DIR, &p);
	if (n < 0)
		return fail(EXIT_FAIL, "%s: %s", CPUFREQ_DIR, strerror(-n));
	for (i = 0; i < n; i++)
		if (p[i].id == policy)
			snprintf(driver, sizeof(driver), "%s", p[i].governor);
	free(p);
	if (!driver[0])
		return fail(EXIT_NOTFOUND, "no policy %d", policy);

	/* From the attach on, a signal only ends the wait: the shadow is detached. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	snprintf(cmd, sizeof(cmd), "%d %s", policy, gov);
	err = shadow_ctl(cmd);
	if (err)
		return attach_failed(err, gov, policy);
	if (!shadow_wait(policy, duration_s, !duration_s && !json && isatty(STDOUT_FILENO),
			 &seconds)) {
		/* The framework detaches a shadow whose op failed, and logs why. */
		snprintf(cmd, sizeof(cmd), "%s (shadow of policy%d)", gov, policy);
		if (last_exit_reason(cmd, reason, sizeof(reason)))
			snprintf(reason, sizeof(reason), "detached");
		return fail(EXIT_FAIL, "%s in shadow of policy %d: %s", gov, policy, reason);
	}
	err = shadow_stats_read(policy, &st);
	snprintf(cmd, sizeof(cmd), "%d", policy);
	shadow_ctl(cmd);
	if (!duration_s && !json && isatty(STDOUT_FILENO))
		printf("\n");
	if (err)
		return fail(EXIT_FAIL, "reading the shadow's counts: %s", strerror(-err));
	if (json)
		report_json(&st, policy, driver, seconds);
	else
		report_text(&st, policy, driver, seconds);
	return EXIT_OK;
}
