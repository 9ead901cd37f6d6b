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

/* One governor object: its stem (NULL for one given by path), name, path. */
static void object_row(const char *stem, int stem_len, const struct gov_object *go)
{
	if (!json_on()) {
		printf("  %-20.*s %-16s %s\n", stem ? stem_len : 20, stem ? stem : "(given)",
		       go->name, go->path);
		return;
	}
	json_object_start();
	json_key("stem");
	if (stem) {
		char buf[256];

		snprintf(buf, sizeof(buf), "%.*s", stem_len, stem);
		json_str(buf);
	} else {
		json_null();
	}
	json_field_str("name", go->name);
	json_field_str("path", go->path);
	json_field_bool("given", !stem);
	json_object_end();
}

/* The governors in the object directory, by file name, then @paths. */
static int list_objects(char **paths, int nr_paths)
{
	const char *dir = objdir();
	struct dirent **names;
	struct gov_object go;
	char path[4096];
	int n, i, ret;

	if (json_on()) {
		json_field_str("objdir", dir);
		json_key("available");
		json_array_start();
	} else {
		printf("available (%s):\n", dir);
	}
	n = scandir(dir, &names, is_object_file, alphasort);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (!object_open(path, NULL, &go)) {
			object_row(names[i]->d_name, strlen(names[i]->d_name) - 6, &go);
			gov_object_close(&go);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	for (i = 0; i < nr_paths; i++) {
		ret = gov_object_open(paths[i], NULL, &go);
		if (ret)
			return ret;
		object_row(NULL, 0, &go);
		gov_object_close(&go);
	}
	if (json_on())
		json_array_end();
	return EXIT_OK;
}

/*
 * What a listed governor is: in JSON a word, in the table a phrase
 * ("bpf, loaded by cpufreq-bpf").
 */
static const char *gov_kind(const char *name)
{
	bool json = json_on();

	if (gov_pinned(name)) {
		if (bpf_governor_registered(name))
			return json ? "loaded" : "bpf, loaded by cpufreq-bpf";
		return json ? "retired" : "bpf, pinned but retired";
	}
	if (bpf_governor_registered(name))
		return json ? "external" : "bpf, registered outside cpufreq-bpf";
	return "in-kernel";
}

static void loaded_row(const char *name)
{
	if (!json_on()) {
		printf("  %-16s %s\n", name, gov_kind(name));
		return;
	}
	json_object_start();
	json_field_str("name", name);
	json_field_str("kind", gov_kind(name));
	json_object_end();
}

static void list_policy_row(const struct policy_info *p)
{
	if (!json_on()) {
		printf("  policy%-9d cpus %-6s %s\n", p->id, p->cpus, p->governor);
		return;
	}
	json_object_start();
	json_field_int("policy", p->id);
	json_field_str("cpus", p->cpus);
	json_field_str("governor", p->governor);
	json_object_end();
}

/* In JSON: {"objdir", "available": [...], "loaded": [...], "policies": [...]}. */
int cmd_list(char **paths, int nr_paths)
{
	struct policy_info *p;
	char govs[1024], *tok, *save;
	int n, i, ret;

	if (json_on())
		json_object_start();
	ret = list_objects(paths, nr_paths);
	if (ret)
		return ret;
	if (json_on()) {
		json_key("loaded");
		json_array_start();
	} else {
		printf("loaded:\n");
	}
	if (!governors_available(govs, sizeof(govs)))
		for (tok = strtok_r(govs, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			loaded_row(tok);
	if (json_on()) {
		json_array_end();
		json_key("policies");
		json_array_start();
	} else {
		printf("policies:\n");
	}
	n = policies_read(CPUFREQ_DIR, &p);
	for (i = 0; i < n; i++)
		list_policy_row(&p[i]);
	free(p);
	if (json_on()) {
		json_array_end();
		json_object_end();
	}
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

static void policy_json(const struct policy_info *p, const struct gov_policy_stats *ps)
{
	json_object_start();
	json_field_int("policy", p->id);
	json_field_str("cpus", p->cpus);
	json_field_str("governor", p->governor);
	json_field_uint("cur_khz", p->cur);
	json_field_uint("min_khz", p->min);
	json_field_uint("max_khz", p->max);
	json_field_uint("transitions", p->total_trans);
	if (ps) {
		json_key("bpf");
		json_object_start();
		json_field_uint("update_calls", ps->update_calls);
		json_field_uint("sample_calls", ps->sample_calls);
		json_field_uint("requests", ps->requests);
		json_field_uint("fast_switches", ps->fast_switches);
		json_field_uint("deferred_switches", ps->deferred_switches);
		json_field_uint("errors", ps->errors);
		json_field_str("path", switch_path(ps));
		json_object_end();
	}
	json_object_end();
}

static void policy_row(const struct policy_info *p)
{
	struct gov_stats st;
	const struct gov_policy_stats *ps = NULL;

	if (bpf_governor_registered(p->governor) && !gov_stats_read(p->governor, p->id, &st) &&
	    st.has_policy)
		ps = &st.policy;
	if (json_on()) {
		policy_json(p, ps);
		return;
	}
	printf("policy%-3d %-6s %-16s %8lu %8lu %8lu %7lu", p->id, p->cpus, p->governor,
	       p->cur, p->min, p->max, p->total_trans);
	if (ps)
		printf(" %9llu %8s %6llu", ps->requests, switch_path(ps), ps->errors);
	else
		printf(" %9s %8s %6s", "-", "-", "-");
	putchar('\n');
}

static void governor_row(const char *name)
{
	struct gov_stats st;
	char reason[128] = "";

	if (gov_stats_read(name, -1, &st))
		snprintf(st.state, sizeof(st.state), "unregistered");
	if (st.exit_reason[0])
		snprintf(reason, sizeof(reason), "%s", st.exit_reason);
	else
		last_exit_reason(name, reason, sizeof(reason));
	if (!json_on()) {
		printf("%-16s %-12s %-6s %12lu  %s\n", name, st.state,
		       gov_pinned(name) ? "yes" : "no", st.link_updates, reason[0] ? reason : "-");
		return;
	}
	json_object_start();
	json_field_str("name", name);
	json_field_str("state", st.state);
	json_field_bool("pinned", gov_pinned(name));
	json_field_uint("link_updates", st.link_updates);
	json_field_str("last_exit", reason);
	json_object_end();
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

static int print_status(const char *gov)
{
	struct policy_info *p;
	char names[MAX_GOVS][GOV_NAME_LEN + 1];
	int n = policies_read(CPUFREQ_DIR, &p), nr_govs, i;

	if (n < 0)
		return fail(EXIT_FAIL, "cannot read cpufreq policies");
	nr_govs = gov ? 1 : known_governors(names);
	if (gov)
		strcpy(names[0], gov);
	if (json_on()) {
		json_object_start();
		json_key("policies");
		json_array_start();
	} else {
		printf("%-9s %-6s %-16s %8s %8s %8s %7s %9s %8s %6s\n", "policy", "cpus",
		       "governor", "cur", "min", "max", "trans", "requests", "path", "errors");
	}
	for (i = 0; i < n; i++)
		if (!gov || !strcmp(p[i].governor, gov))
			policy_row(&p[i]);
	free(p);
	if (json_on()) {
		json_array_end();
		json_key("governors");
		json_array_start();
	} else {
		printf("\n%-16s %-12s %-6s %12s  %s\n", "bpf governor", "state", "pinned",
		       "link_updates", "last exit");
	}
	for (i = 0; i < nr_govs; i++)
		governor_row(names[i]);
	if (json_on()) {
		json_array_end();
		json_object_end();
	}
	return EXIT_OK;
}

/* Under --watch, every second: a table, or a JSON document of its own. */
int cmd_status(const char *name, bool watch)
{
	char gov[GOV_NAME_LEN + 1];
	int ret;

	if (name) {
		ret = gov_resolve_loaded(name, gov, sizeof(gov));
		if (ret)
			return ret;
	}
	do {
		if (watch && !json_on()) {
			time_t now = time(NULL);

			printf("--- %s", ctime(&now));
		}
		ret = print_status(name ? gov : NULL);
		json_commit(!ret);
		fflush(stdout);
	} while (watch && !ret && !sleep(1));
	return ret;
}
