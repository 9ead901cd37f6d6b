// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests: reading cpufreq policies from a sysfs tree the test
 * makes, more of them than BPF governors take, and checking --policy sets
 * against them.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "loader.h"
#include "tap.h"

#define NR_FAKE		70	/* more than MAX_POLICIES */
#define ID_STEP		3	/* ids 0, 3, 6...: gaps, and "1"* sorting apart */
#define LAST_ID		1000	/* after 207 by number, before it by name */

static char root[] = "/tmp/cpufreq-bpf-policies-XXXXXX";

static void put(const char *dir, const char *name, const char *text)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* @root/policyN/ with what policies_read() reads. */
static void fake_policy(int id, const char *cpus, const char *governor)
{
	char dir[4096];

	snprintf(dir, sizeof(dir), "%s/policy%d", root, id);
	mkdir(dir, 0755);
	put(dir, "related_cpus", cpus);
	if (governor)
		put(dir, "scaling_governor", governor);
	put(dir, "scaling_cur_freq", "1200000\n");
	put(dir, "scaling_min_freq", "400000\n");
	put(dir, "scaling_max_freq", "2000000\n");
}

/* Policies in an order readdir() need not keep, and what is not one. */
static int fake_sysfs(void)
{
	const char *not_policies[] = { "policy", "policyx", "policy5a", "policy-1", "policy0x7",
				       "policy+9", "cpufreq_boost" };
	char cpus[32], dir[4096];
	size_t i;
	int id;

	if (!mkdtemp(root))
		return -errno;
	for (id = (NR_FAKE - 1) * ID_STEP; id >= 0; id -= ID_STEP) {
		snprintf(cpus, sizeof(cpus), "%d %d\n", id, id + 1);
		fake_policy(id, cpus, id == 3 ? "performance\n" : "schedutil\n");
	}
	fake_policy(LAST_ID, "1000\n", "schedutil\n");
	fake_policy(7, "7\n", NULL);	/* unreadable governor: not shown */
	for (i = 0; i < sizeof(not_policies) / sizeof(not_policies[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", root, not_policies[i]);
		mkdir(dir, 0755);
	}
	return 0;
}

static void test_read(void)
{
	struct policy_info *p;
	int n = policies_read(root, &p), i;
	bool sorted = n > 0;

	ok(n == NR_FAKE + 1, "read: %d policies, none dropped past 64, no impostor", n);
	for (i = 0; i < n - 1; i++)
		sorted = sorted && p[i].id == i * ID_STEP;
	ok(sorted && p[n - 1].id == LAST_ID, "read: by number, policy%d last",
	   n > 0 ? p[n - 1].id : -1);
	ok(n > 1 && !strcmp(p[0].cpus, "0,1") && !strcmp(p[0].governor, "schedutil") &&
	   !strcmp(p[1].governor, "performance") && p[0].cur == 1200000 && p[0].min == 400000 &&
	   p[0].max == 2000000 && !p[0].total_trans, "read: attributes, cpus with commas");
	free(p);
	ok(policies_read("/nonexistent", &p) == -ENOENT && !p, "read: no cpufreq, -ENOENT");
}

/* policies_check() on @list: its exit code; its message in @msg. */
static int check(const char *list, bool bpf, char *msg, size_t len)
{
	struct policy_set set;
	struct policy_info *p;
	int n = policies_read(root, &p), ret = -1;

	if (!parse_policy_list(list, &set)) {
		stderr_capture();
		ret = policies_check(&set, p, n, "bpf_x", bpf);
		stderr_captured(msg, len);
	}
	free(p);
	return ret;
}

static void test_check(void)
{
	char msg[512];

	ok(check("0,3,63", true, msg, sizeof(msg)) == EXIT_OK && !msg[0],
	   "check: existing policies below 64");
	ok(check("1000", false, msg, sizeof(msg)) == EXIT_OK,
	   "check: policy1000 for an in-kernel governor");
	ok(check("66", true, msg, sizeof(msg)) == EXIT_USAGE &&
	   !strcmp(msg, "cpufreq-bpf: policy66: bpf_x takes policies below 64 (CPUFREQ_BPF_MAX_CPUS)\n"),
	   "check: policy66 for a BPF governor, one line");
	ok(check("all", true, msg, sizeof(msg)) == EXIT_USAGE && strstr(msg, "policy66:"),
	   "check: all, for a BPF governor, names the first beyond");
	ok(check("all", false, msg, sizeof(msg)) == EXIT_OK, "check: all, in-kernel");
	ok(check("0-6", false, msg, sizeof(msg)) == EXIT_NOTFOUND &&
	   !strcmp(msg, "cpufreq-bpf: no cpufreq policy1\n"), "check: a gap in a range");
	ok(check("7", false, msg, sizeof(msg)) == EXIT_NOTFOUND, "check: a policy not shown");
	ok(check("0,2000000000", false, msg, sizeof(msg)) == EXIT_NOTFOUND &&
	   strstr(msg, "policy2000000000"), "check: a large id that is not there");
	ok(check("0-2147483647", false, msg, sizeof(msg)) == EXIT_NOTFOUND &&
	   strstr(msg, "policy1\n"), "check: a huge range stops at its first gap");
}

/* policies_of_cpus() on the CPU list @list: its return, *@set, *@cpu. */
static int of_cpus(const char *list, struct policy_set *set, int *cpu)
{
	struct policy_set cpus;
	struct policy_info *p;
	int n = policies_read(root, &p), ret = -EINVAL;

	*cpu = -1;
	if (!parse_policy_list(list, &cpus))
		ret = policies_of_cpus(&cpus, p, n, set, cpu);
	free(p);
	return ret;
}

static void test_cpus(void)
{
	struct policy_set s;
	int cpu;

	ok(!of_cpus("0", &s, &cpu) && s.nr == 1 && policy_in_set(&s, 0) && !policy_in_set(&s, 3),
	   "--cpu: CPU 0 is policy0's");
	ok(!of_cpus("1,0", &s, &cpu) && s.nr == 1 && policy_in_set(&s, 0),
	   "--cpu: two CPUs of one policy, the policy once");
	ok(!of_cpus("4,6-7", &s, &cpu) && policy_in_set(&s, 3) && policy_in_set(&s, 6) &&
	   !policy_in_set(&s, 0) && !policy_in_set(&s, 4) && !policy_in_set(&s, 7),
	   "--cpu: CPUs of two policies, by their related CPUs");
	ok(!of_cpus("1000", &s, &cpu) && policy_in_set(&s, 1000) && !policy_in_set(&s, 999),
	   "--cpu: CPU 1000, policy1000");
	ok(!of_cpus("all", &s, &cpu) && s.all, "--cpu: all is every policy");
	ok(of_cpus("0,2", &s, &cpu) == -ENOENT && cpu == 2, "--cpu: CPU 2 has no policy");
	ok(of_cpus("0-2000000000", &s, &cpu) == -ENOENT && cpu == 2,
	   "--cpu: a huge range stops at its first CPU without a policy");
	ok(of_cpus("3-5", &s, &cpu) == -ENOENT && cpu == 5,
	   "--cpu: a CPU between two policies' has none");
}

static int remove_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st, (void)type, (void)ftw;
	return remove(path);
}

int main(void)
{
	int err = fake_sysfs();

	ok(!err, "a sysfs tree in %s (%d)", root, err);
	if (!err) {
		test_read();
		test_check();
		test_cpus();
		nftw(root, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	}
	return tap_done();
}
