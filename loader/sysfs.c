// SPDX-License-Identifier: GPL-2.0
/* cpufreq policies in sysfs, and the BPF framework's files in debugfs. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "loader.h"

#define CPUFREQ_DIR	"/sys/devices/system/cpu/cpufreq"
#define BPF_DEBUGFS	"/sys/kernel/debug/cpufreq_bpf"

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

static int policy_read(int policy, const char *attr, char *buf, size_t len)
{
	char path[256];

	snprintf(path, sizeof(path), CPUFREQ_DIR "/policy%d/%s", policy, attr);
	return read_line(path, buf, len);
}

static unsigned long policy_read_ulong(int policy, const char *attr)
{
	char buf[32];

	return policy_read(policy, attr, buf, sizeof(buf)) ? 0 : strtoul(buf, NULL, 10);
}

/* "0 1" as "0,1": one word in tables. */
static void cpus_commas(char *cpus)
{
	for (; *cpus; cpus++)
		if (*cpus == ' ')
			*cpus = ',';
}

static int by_id(const void *a, const void *b)
{
	return ((const struct policy_info *)a)->id - ((const struct policy_info *)b)->id;
}

/* Every policy, by id; how many, or -errno. */
int policies_read(struct policy_info *out, int max)
{
	DIR *d = opendir(CPUFREQ_DIR);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -errno;
	while ((e = readdir(d)) && n < max) {
		struct policy_info *p = &out[n];

		if (sscanf(e->d_name, "policy%d", &p->id) != 1)
			continue;
		if (policy_read(p->id, "related_cpus", p->cpus, sizeof(p->cpus)) ||
		    policy_read(p->id, "scaling_governor", p->governor, sizeof(p->governor)))
			continue;
		cpus_commas(p->cpus);
		p->cur = policy_read_ulong(p->id, "scaling_cur_freq");
		p->min = policy_read_ulong(p->id, "scaling_min_freq");
		p->max = policy_read_ulong(p->id, "scaling_max_freq");
		p->total_trans = policy_read_ulong(p->id, "stats/total_trans");
		n++;
	}
	closedir(d);
	qsort(out, n, sizeof(*out), by_id);
	return n;
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

/* The governors cpufreq offers, space separated, as policies see them. */
int governors_available(char *buf, size_t len)
{
	struct policy_info p[1];
	int n = policies_read(p, 1);

	if (n <= 0)
		return n ? n : -ENOENT;
	return policy_read(p[0].id, "scaling_available_governors", buf, len);
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

bool bpf_governor_registered(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), BPF_DEBUGFS "/%s/stats", name);
	return !access(path, F_OK);
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

/* Parses <governor>/stats (kernel/sched/cpufreq_bpf.c) into @stats. */
int gov_stats_read(const char *governor, struct gov_stats *stats)
{
	char path[256], line[256];
	FILE *f;

	memset(stats, 0, sizeof(*stats));
	snprintf(path, sizeof(path), BPF_DEBUGFS "/%s/stats", governor);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct gov_policy_stats *ps = &stats->policies[stats->nr_policies];
		char cpus[64];
		int governed;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "state %15s", stats->state) == 1 ||
		    sscanf(line, "link_updates %lu", &stats->link_updates) == 1)
			continue;
		if (!strncmp(line, "exit_reason ", 12)) {
			snprintf(stats->exit_reason, sizeof(stats->exit_reason), "%s", line + 12);
			continue;
		}
		if (stats->nr_policies < MAX_POLICIES &&
		    sscanf(line, "%d %63s %d %llu %llu %llu %llu %llu %llu", &ps->policy, cpus,
			   &governed, &ps->update_calls, &ps->sample_calls, &ps->requests,
			   &ps->fast_switches, &ps->deferred_switches, &ps->errors) == 9) {
			ps->governed = governed;
			stats->nr_policies++;
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
