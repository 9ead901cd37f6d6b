// SPDX-License-Identifier: GPL-2.0
/* cpufreq policies in sysfs, and the BPF framework's files in debugfs. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "loader.h"


/* The first line of @path without its newline; -errno on failure. */
static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	int err = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, len, f))
		err = -EIO;
	else
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
	return err;
}

static int policy_read(const char *dir, int policy, const char *attr, char *buf,
		       size_t len)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/policy%d/%s", dir, policy, attr);
	return read_line(path, buf, len);
}

static unsigned long policy_read_ulong(const char *dir, int policy, const char *attr)
{
	char buf[32];

	return policy_read(dir, policy, attr, buf, sizeof(buf)) ? 0 : strtoul(buf, NULL, 10);
}

/* N of a "policyN" directory entry, -ENOENT for any other entry. */
static int policy_dir_id(const char *name)
{
	const char *digits = name + strlen("policy");
	__u64 id;

	/* The kernel's spelling only: decimal digits, no sign, no "0x". */
	if (strncmp(name, "policy", strlen("policy")) || !*digits ||
	    digits[strspn(digits, "0123456789")] || parse_u64(digits, &id) || id > INT_MAX)
		return -ENOENT;
	return id;
}

/* "0 1" as "0,1": one word in tables. */
static void cpus_commas(char *cpus)
{
	for (; *cpus; cpus++)
		if (*cpus == ' ')
			*cpus = ',';
}

/* Fills @p, whose id is set; false for a policy that cannot be shown. */
static bool policy_info_read(const char *dir, struct policy_info *p)
{
	if (policy_read(dir, p->id, "related_cpus", p->cpus, sizeof(p->cpus)) ||
	    policy_read(dir, p->id, "scaling_governor", p->governor, sizeof(p->governor)))
		return false;
	cpus_commas(p->cpus);
	p->cur = policy_read_ulong(dir, p->id, "scaling_cur_freq");
	p->min = policy_read_ulong(dir, p->id, "scaling_min_freq");
	p->max = policy_read_ulong(dir, p->id, "scaling_max_freq");
	p->total_trans = policy_read_ulong(dir, p->id, "stats/total_trans");
	return true;
}

static int by_id(const void *a, const void *b)
{
	return ((const struct policy_info *)a)->id - ((const struct policy_info *)b)->id;
}

/*
 * Every policy under @dir (CPUFREQ_DIR, or a test's copy), by id, into an
 * array *@out to free(); how many, or -errno.  readdir() gives them in no
 * useful order, and there may be as many as CPUs.
 */
int policies_read(const char *dir, struct policy_info **out)
{
	DIR *d = opendir(dir);
	struct policy_info *p = NULL, *grown;
	struct dirent *e;
	int n = 0, cap = 0;

	*out = NULL;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(p, cap * sizeof(*p));
			if (!grown) {
				n = -ENOMEM;
				break;
			}
			p = grown;
		}
		p[n].id = policy_dir_id(e->d_name);
		if (p[n].id >= 0 && policy_info_read(dir, &p[n]))
			n++;
	}
	closedir(d);
	if (n < 0) {
		free(p);
		return n;
	}
	if (n)
		qsort(p, n, sizeof(*p), by_id);
	*out = p;
	return n;
}

/* Whether @cpu is in @cpus, a policy's CPUs as "0,1,4". */
static bool cpus_has(const char *cpus, int cpu)
{
	char *end;

	while (*cpus) {
		if (strtol(cpus, &end, 10) == cpu && end != cpus)
			return true;
		if (*end != ',')
			return false;
		cpus = end + 1;
	}
	return false;
}

/* The policy of @n (@p) that @cpu belongs to, or -1. */
static int policy_of_cpu(const struct policy_info *p, int n, int cpu)
{
	int i;

	for (i = 0; i < n; i++)
		if (cpus_has(p[i].cpus, cpu))
			return p[i].id;
	return -1;
}

/* Adds @id to @set, joining it to the last range when it follows it. */
static int set_add(struct policy_set *set, int id)
{
	struct policy_range *last = set->nr ? &set->ranges[set->nr - 1] : NULL;
	int max = sizeof(set->ranges) / sizeof(set->ranges[0]);

	if (policy_in_set(set, id))
		return 0;
	if (last && last->hi == id - 1) {
		last->hi = id;
		return 0;
	}
	if (set->nr == max)
		return -E2BIG;
	set->ranges[set->nr].lo = set->ranges[set->nr].hi = id;
	set->nr++;
	return 0;
}

/*
 * --cpu: the policies (of the @n @p) that the CPUs of @cpus belong to, by
 * their related_cpus, into @out.  -ENOENT for a CPU of no policy, which
 * *@cpu then holds; the walk stops there, so a huge range costs little.
 */
int policies_of_cpus(const struct policy_set *cpus, const struct policy_info *p, int n,
		     struct policy_set *out, int *cpu)
{
	int i, c, id, err;

	memset(out, 0, sizeof(*out));
	out->all = cpus->all;
	for (i = 0; i < cpus->nr; i++) {
		for (c = cpus->ranges[i].lo;; c++) {
			id = policy_of_cpu(p, n, c);
			if (id < 0) {
				*cpu = c;
				return -ENOENT;
			}
			err = set_add(out, id);
			if (err)
				return err;
			if (c == cpus->ranges[i].hi)
				break;
		}
	}
	return 0;
}

int policy_set_governor(int policy, const char *governor)
{
	char path[256];
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), CPUFREQ_DIR "/policy%d/scaling_governor", policy);
	f = fopen(path, "w");
	if (!f)
		return -errno;
	if (fputs(governor, f) < 0)
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

/* Any one policy's id, or -errno. */
static int any_policy(void)
{
	DIR *d = opendir(CPUFREQ_DIR);
	struct dirent *e;
	int id = -ENOENT;

	if (!d)
		return -errno;
	while (id < 0 && (e = readdir(d)))
		id = policy_dir_id(e->d_name);
	closedir(d);
	return id;
}

/* The governors cpufreq offers, space separated: every policy shows them all. */
int governors_available(char *buf, size_t len)
{
	int id = any_policy();

	if (id < 0)
		return id;
	return policy_read(CPUFREQ_DIR, id, "scaling_available_governors", buf, len);
}

bool governor_available(const char *name)
{
	char buf[1024], *tok, *save;

	if (governors_available(buf, sizeof(buf)))
		return false;
	for (tok = strtok_r(buf, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		if (!strcmp(tok, name))
			return true;
	return false;
}

/* The framework's statistics of @name are in debugfs (mounted, readable). */
bool bpf_stats_exist(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), BPF_DEBUGFS "/%s/stats", name);
	return can_access(path, F_OK);
}

/*
 * The BPF side of a governor registered by another tool than the loader:
 * the framework's statistics, or, where debugfs is not there to show them,
 * a struct_ops map registering the name.
 */
bool bpf_registered_elsewhere(const char *name)
{
	if (bpf_stats_exist(name))
		return true;
	return !can_access(BPF_DEBUGFS, X_OK) && struct_ops_registers(name);
}

/*
 * A BPF governor is registered when cpufreq offers its name and the BPF
 * side shows it is one: the loader's pinned struct_ops link, or the
 * kernel's struct_ops map or statistics of another tool's.  debugfs need
 * not be mounted.
 */
bool bpf_governor_registered(const char *name)
{
	return governor_available(name) &&
	       (gov_link_struct_ops(name) || bpf_registered_elsewhere(name));
}

/* Registered BPF governors, by their debugfs directories. */
int bpf_governors_list(char names[][GOV_NAME_LEN + 1], int max)
{
	DIR *d = opendir(BPF_DEBUGFS);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d)) && n < max) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.')
			continue;
		snprintf(names[n++], GOV_NAME_LEN + 1, "%s", e->d_name);
	}
	closedir(d);
	return n;
}

/*
 * Parses <governor>/stats (kernel/sched/cpufreq_bpf.c) into @stats, with
 * the line of @policy if it has one; -1 for no policy's.
 */
int gov_stats_read(const char *governor, int policy, struct gov_stats *stats)
{
	struct gov_policy_stats ps;
	char path[256], line[256], cpus[64];
	int governed;
	FILE *f;

	memset(stats, 0, sizeof(*stats));
	snprintf(path, sizeof(path), BPF_DEBUGFS "/%s/stats", governor);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "state %15s", stats->state) == 1 ||
		    sscanf(line, "link_updates %lu", &stats->link_updates) == 1)
			continue;
		if (!strncmp(line, "exit_reason ", 12)) {
			snprintf(stats->exit_reason, sizeof(stats->exit_reason), "%s", line + 12);
			continue;
		}
		if (sscanf(line, "%d %63s %d %llu %llu %llu %llu %llu %llu", &ps.policy, cpus,
			   &governed, &ps.update_calls, &ps.sample_calls, &ps.requests,
			   &ps.fast_switches, &ps.deferred_switches, &ps.errors) == 9 &&
		    ps.policy == policy) {
			ps.governed = governed;
			stats->policy = ps;
			stats->has_policy = true;
		}
	}
	fclose(f);
	return 0;
}

/* The latest "name: reason" of @governor in the exit log; -ENOENT if none. */
int last_exit_reason(const char *governor, char *buf, size_t len)
{
	FILE *f = fopen(BPF_DEBUGFS "/exits", "r");
	size_t n = strlen(governor);
	char line[256];
	int err = -ENOENT;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, governor, n) || strncmp(line + n, ": ", 2))
			continue;
		line[strcspn(line, "\n")] = '\0';
		snprintf(buf, len, "%s", line + n + 2);
		err = 0;
	}
	fclose(f);
	return err;
}
