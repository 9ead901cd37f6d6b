// SPDX-License-Identifier: GPL-2.0
/* list and status: what can be loaded, what is loaded, what runs where. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "loader.h"

#define MAX_GOVS	32

static void print_object(const char *label, int label_len, const char *path)
{
	struct gov_object go;

	if (object_open(path, NULL, &go))
		return;
	printf("  %-20.*s %-16s %s\n", label_len, label, go.name, path);
	gov_object_close(&go);
}

/* The governors in the object directory, by file name, then @paths. */
static int list_objects(char **paths, int nr_paths)
{
	const char *dir = objdir();
	struct dirent **names;
	char path[4096];
	int n, i;

	printf("available (%s):\n", dir);
	n = scandir(dir, &names, is_object_file, alphasort);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		print_object(names[i]->d_name, strlen(names[i]->d_name) - 6, path);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	for (i = 0; i < nr_paths; i++) {
		struct gov_object go;
		int ret = gov_object_open(paths[i], NULL, &go);

		if (ret)
			return ret;
		printf("  %-20s %-16s %s\n", "(given)", go.name, go.path);
		gov_object_close(&go);
	}
	return EXIT_OK;
}

/* "bpf, pinned by cpufreq-bpf" and the like, for a listed governor. */
static const char *gov_kind(const char *name)
{
	if (gov_pinned(name))
		return bpf_governor_registered(name) ? "bpf, loaded by cpufreq-bpf"
						     : "bpf, pinned but retired";
	return bpf_governor_registered(name) ? "bpf, registered outside cpufreq-bpf"
					     : "in-kernel";
}

int cmd_list(char **paths, int nr_paths)
{
	struct policy_info *p;
	char govs[1024], *tok, *save;
	int n, i, ret;

	ret = list_objects(paths, nr_paths);
	if (ret)
		return ret;
	printf("loaded:\n");
	if (!governors_available(govs, sizeof(govs)))
		for (tok = strtok_r(govs, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			printf("  %-16s %s\n", tok, gov_kind(tok));
	printf("policies:\n");
	n = policies_read(CPUFREQ_DIR, &p);
	for (i = 0; i < n; i++)
		printf("  policy%-9d cpus %-6s %s\n", p[i].id, p[i].cpus, p[i].governor);
	free(p);
	return EXIT_OK;
}

static const char *switch_path(const struct gov_policy_stats *ps)
{
	if (!ps || (!ps->fast_switches && !ps->deferred_switches))
		return "-";
	if (ps->fast_switches && ps->deferred_switches)
		return "mixed";
	return ps->fast_switches ? "fast" : "deferred";
}

static void policy_row(const struct policy_info *p, bool json, bool first)
{
	struct gov_stats st;
	const struct gov_policy_stats *ps = NULL;

	if (bpf_governor_registered(p->governor) && !gov_stats_read(p->governor, p->id, &st) &&
	    st.has_policy)
		ps = &st.policy;
	if (!json) {
		printf("policy%-3d %-6s %-16s %8lu %8lu %8lu %7lu", p->id, p->cpus, p->governor,
		       p->cur, p->min, p->max, p->total_trans);
		if (ps)
			printf(" %9llu %8s %6llu", ps->requests, switch_path(ps), ps->errors);
		else
			printf(" %9s %8s %6s", "-", "-", "-");
		putchar('\n');
		return;
	}
	printf("%s{\"policy\":%d,\"cpus\":", first ? "" : ",", p->id);
	json_string(stdout, p->cpus);
	printf(",\"governor\":");
	json_string(stdout, p->governor);
	printf(",\"cur_khz\":%lu,\"min_khz\":%lu,\"max_khz\":%lu,\"transitions\":%lu",
	       p->cur, p->min, p->max, p->total_trans);
	if (ps)
		printf(",\"bpf\":{\"update_calls\":%llu,\"sample_calls\":%llu,\"requests\":%llu,"
		       "\"fast_switches\":%llu,\"deferred_switches\":%llu,\"errors\":%llu,"
		       "\"path\":\"%s\"}", ps->update_calls, ps->sample_calls, ps->requests,
		       ps->fast_switches, ps->deferred_switches, ps->errors, switch_path(ps));
	putchar('}');
}

static void governor_row(const char *name, bool json, bool first)
{
	struct gov_stats st;
	char reason[128] = "";

	if (gov_stats_read(name, -1, &st))
		snprintf(st.state, sizeof(st.state), "unregistered");
	if (st.exit_reason[0])
		snprintf(reason, sizeof(reason), "%s", st.exit_reason);
	else
		last_exit_reason(name, reason, sizeof(reason));
	if (!json) {
		printf("%-16s %-12s %-6s %12lu  %s\n", name, st.state,
		       gov_pinned(name) ? "yes" : "no", st.link_updates, reason[0] ? reason : "-");
		return;
	}
	printf("%s{\"name\":", first ? "" : ",");
	json_string(stdout, name);
	printf(",\"state\":\"%s\",\"pinned\":%s,\"link_updates\":%lu,\"last_exit\":", st.state,
	       gov_pinned(name) ? "true" : "false", st.link_updates);
	json_string(stdout, reason);
	putchar('}');
}

/* BPF governors, registered or pinned, each once. */
static int known_governors(char names[][GOV_NAME_LEN + 1])
{
	int n = bpf_governors_list(names, MAX_GOVS), m, i, j;
	char pinned[MAX_GOVS][GOV_NAME_LEN + 1];

	n = n < 0 ? 0 : n;
	m = pinned_governors(pinned, MAX_GOVS);
	for (i = 0; i < m && n < MAX_GOVS; i++) {
		for (j = 0; j < n && strcmp(names[j], pinned[i]); j++)
			;
		if (j == n)
			strcpy(names[n++], pinned[i]);
	}
	return n;
}

static int print_status(const char *gov, bool json)
{
	struct policy_info *p;
	char names[MAX_GOVS][GOV_NAME_LEN + 1];
	int n = policies_read(CPUFREQ_DIR, &p), nr_govs, i;
	bool first = true;

	if (n < 0)
		return fail(EXIT_FAIL, "cannot read cpufreq policies");
	nr_govs = gov ? 1 : known_governors(names);
	if (gov)
		strcpy(names[0], gov);
	if (json)
		printf("{\"policies\":[");
	else
		printf("%-9s %-6s %-16s %8s %8s %8s %7s %9s %8s %6s\n", "policy", "cpus",
		       "governor", "cur", "min", "max", "trans", "requests", "path", "errors");
	for (i = 0; i < n; i++) {
		if (gov && strcmp(p[i].governor, gov))
			continue;
		policy_row(&p[i], json, first);
		first = false;
	}
	free(p);
	if (json)
		printf("],\"governors\":[");
	else
		printf("\n%-16s %-12s %-6s %12s  %s\n", "bpf governor", "state", "pinned",
		       "link_updates", "last exit");
	for (i = 0; i < nr_govs; i++)
		governor_row(names[i], json, i == 0);
	if (json)
		printf("]}\n");
	return EXIT_OK;
}

int cmd_status(const char *name, bool json, bool watch)
{
	char gov[GOV_NAME_LEN + 1];
	int ret;

	if (name) {
		ret = gov_resolve_loaded(name, gov, sizeof(gov));
		if (ret)
			return ret;
	}
	do {
		if (watch && !json) {
			time_t now = time(NULL);

			printf("--- %s", ctime(&now));
		}
		ret = print_status(name ? gov : NULL, json);
		fflush(stdout);
	} while (watch && !ret && !sleep(1));
	return ret;
}
