// SPDX-License-Identifier: GPL-2.0
/* list and status: what can be loaded, what is loaded, what runs where. */
#include <dirent.h>
#include <errno.h>
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
 * Whether @dir can be read, else why not, said once: an ordinary user
 * reads neither the pins nor debugfs.  When @missing_ok, a missing @dir
 * holds nothing, which is known too (no pins without the directory).
 */
static bool readable(const char *dir, bool missing_ok, const char *what)
{
	if (can_access(dir, R_OK | X_OK) || (missing_ok && errno == ENOENT))
		return true;
	fail(EXIT_OK, "list: cannot read %s (%s): %s", dir, strerror(errno), what);
	return false;
}

/*
 * What a governor cpufreq offers is: ours by its pin, another tool's by its
 * struct_ops map or statistics; where neither the pins nor those can be
 * read (not @sure), in-kernel is not sure.  In JSON a word, in the table
 * a phrase ("bpf, loaded by cpufreq-bpf").
 */
static const char *gov_kind(const char *name, bool sure)
{
	bool json = json_on();

	if (gov_pinned(name)) {
		if (bpf_governor_registered(name))
			return json ? "loaded" : "bpf, loaded by cpufreq-bpf";
		return json ? "retired" : "bpf, pinned but retired";
	}
	if (bpf_registered_elsewhere(name))
		return json ? "external" : "bpf, registered outside cpufreq-bpf";
	if (!sure)
		return json ? "unknown" : "in-kernel or bpf (see above)";
	return "in-kernel";
}

static void loaded_row(const char *name, bool sure)
{
	if (!json_on()) {
		printf("  %-16s %s\n", name, gov_kind(name, sure));
		return;
	}
	json_object_start();
	json_field_str("name", name);
	json_field_str("kind", gov_kind(name, sure));
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
	bool sure;
	int n, i, ret;

	if (json_on())
		json_object_start();
	ret = list_objects(paths, nr_paths);
	if (ret)
		return ret;
	fflush(stdout);
	/* Not &&: each that cannot be read is said. */
	sure = readable(PIN_ROOT, true, "governors loaded by cpufreq-bpf not told apart") &
	       (struct_ops_walkable() ||
		readable(BPF_DEBUGFS, false, "governors registered by other tools not told apart"));
	if (json_on()) {
		json_key("loaded");
		json_array_start();
	} else {
		printf("loaded:\n");
	}
	if (!governors_available(govs, sizeof(govs)))
		for (tok = strtok_r(govs, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			loaded_row(tok, sure);
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

/* One policy's counters at one time, for the rates of --watch. */
struct sample {
	int policy;
	char governor[GOV_NAME_LEN + 1];
	unsigned long trans;
	bool has_requests;	/* the framework's statistics were read */
	unsigned long long requests;
};

/* The samples of the last round of --watch, and this round's. */
struct watch {
	struct sample *prev, *now;
	int nr_prev, nr_now;
	double elapsed;		/* seconds between them; 0 in the first round */
};

static const struct sample *prev_sample(const struct watch *w, int policy)
{
	int i;

	for (i = 0; w->elapsed > 0 && i < w->nr_prev; i++)
		if (w->prev[i].policy == policy)
			return &w->prev[i];
	return NULL;
}

/*
 * Per second, from the last round; -1 where there is no previous count to
 * take from: the first round, or counters that started anew (statistics
 * reset, a governor loaded again).  Requests count only under one governor.
 */
static void rates(const struct watch *w, const struct sample *now, double *trans, double *req)
{
	const struct sample *prev = prev_sample(w, now->policy);

	*trans = *req = -1;
	if (!prev)
		return;
	if (now->trans >= prev->trans)
		*trans = (now->trans - prev->trans) / w->elapsed;
	if (now->has_requests && prev->has_requests && now->requests >= prev->requests &&
	    !strcmp(now->governor, prev->governor))
		*req = (now->requests - prev->requests) / w->elapsed;
}

/* A rate in the table, "-" where there is none. */
static void print_rate(double rate)
{
	if (rate < 0)
		printf(" %8s", "-");
	else
		printf(" %8.1f", rate);
}

/* A rate in JSON, null where there is none. */
static void json_rate(const char *key, double rate)
{
	json_key(key);
	if (rate < 0)
		json_null();
	else
		json_float(rate, 2);
}

/* This round's sample of policy @p kept, and its rates from the last round. */
static void watch_sample(struct watch *w, const struct policy_info *p,
			 const struct gov_policy_stats *ps, double *trans, double *req)
{
	struct sample *s = &w->now[w->nr_now++];

	s->policy = p->id;
	snprintf(s->governor, sizeof(s->governor), "%s", p->governor);
	s->trans = p->total_trans;
	s->has_requests = ps;
	s->requests = ps ? ps->requests : 0;
	rates(w, s, trans, req);
}

/* In JSON: {"policy", ..., "bpf": {...}}, and the rates of --watch with @w. */
static void policy_json(const struct policy_info *p, const struct gov_policy_stats *ps,
			struct watch *w)
{
	double trans, req;

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
	if (w) {
		watch_sample(w, p, ps, &trans, &req);
		json_rate("transitions_per_s", trans);
		json_rate("requests_per_s", req);
	}
	json_object_end();
}

static void policy_row(const struct policy_info *p, struct watch *w)
{
	struct gov_stats st;
	const struct gov_policy_stats *ps = NULL;

	if (bpf_governor_registered(p->governor) && !gov_stats_read(p->governor, p->id, &st) &&
	    st.has_policy)
		ps = &st.policy;
	if (json_on()) {
		policy_json(p, ps, w);
		return;
	}
	printf("policy%-3d %-6s %-16s %8lu %8lu %8lu %7lu", p->id, p->cpus, p->governor,
	       p->cur, p->min, p->max, p->total_trans);
	if (ps)
		printf(" %9llu %8s %6llu", ps->requests, switch_path(ps), ps->errors);
	else
		printf(" %9s %8s %6s", "-", "-", "-");
	if (w) {
		double trans, req;

		watch_sample(w, p, ps, &trans, &req);
		print_rate(trans);
		print_rate(req);
	}
	putchar('\n');
}

/*
 * The framework's state of @name from debugfs; without debugfs, what the
 * loader can tell: registered (cpufreq offers it), retired (pinned, no
 * longer offered) or unregistered.  Whether the statistics were read.
 */
static bool governor_state(const char *name, struct gov_stats *st)
{
	if (!gov_stats_read(name, -1, st))
		return true;
	if (bpf_governor_registered(name))
		snprintf(st->state, sizeof(st->state), "registered");
	else
		snprintf(st->state, sizeof(st->state), gov_pinned(name) ? "retired" : "unregistered");
	return false;
}

static void governor_row(const char *name)
{
	struct gov_stats st;
	char reason[128] = "", updates[24] = "-";
	bool stats = governor_state(name, &st);

	if (stats)
		snprintf(updates, sizeof(updates), "%lu", st.link_updates);
	if (st.exit_reason[0])
		snprintf(reason, sizeof(reason), "%s", st.exit_reason);
	else
		last_exit_reason(name, reason, sizeof(reason));
	if (!json_on()) {
		printf("%-16s %-12s %-6s %12s  %s\n", name, st.state,
		       gov_pinned(name) ? "yes" : "no", updates, reason[0] ? reason : "-");
		return;
	}
	json_object_start();
	json_field_str("name", name);
	json_field_str("state", st.state);
	json_field_bool("pinned", gov_pinned(name));
	json_key("link_updates");
	if (stats)
		json_uint(st.link_updates);
	else
		json_null();
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

/*
 * The policies (of @set, NULL for all) running @gov (NULL for any), then
 * the BPF governors; with @w, the rates of --watch too.
 */
static int print_status(const char *gov, const struct policy_set *set, struct watch *w)
{
	struct policy_info *p;
	char names[MAX_GOVS][GOV_NAME_LEN + 1];
	int n = policies_read(CPUFREQ_DIR, &p), nr_govs, i;

	if (n < 0)
		return fail(EXIT_FAIL, "cannot read cpufreq policies");
	if (w) {
		free(w->prev);
		w->prev = w->now;
		w->nr_prev = w->nr_now;
		w->now = calloc(n ?: 1, sizeof(*w->now));
		w->nr_now = 0;
		if (!w->now) {
			free(p);
			return fail(EXIT_FAIL, "out of memory");
		}
	}
	nr_govs = gov ? 1 : known_governors(names);
	if (gov)
		strcpy(names[0], gov);
	if (json_on()) {
		json_object_start();
		json_key("policies");
		json_array_start();
	} else {
		printf("%-9s %-6s %-16s %8s %8s %8s %7s %9s %8s %6s%s\n", "policy", "cpus",
		       "governor", "cur", "min", "max", "trans", "requests", "path", "errors",
		       w ? "  trans/s    req/s" : "");
	}
	for (i = 0; i < n; i++)
		if ((!gov || !strcmp(p[i].governor, gov)) && (!set || policy_in_set(set, p[i].id)))
			policy_row(&p[i], w);
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

static double seconds_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Waits @ms milliseconds; false when a signal cut the wait short. */
static bool wait_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	return !nanosleep(&ts, NULL);
}

/*
 * Under --watch (@interval_ms), every round: a table, or a JSON document of
 * its own.
 */
int cmd_status(const char *name, const struct policy_set *set, unsigned int interval_ms)
{
	char gov[GOV_NAME_LEN + 1];
	struct watch w = {};
	double last = 0, now;
	int ret;

	if (name) {
		ret = gov_resolve_loaded(name, gov, sizeof(gov));
		if (ret)
			return ret;
	}
	if (!can_access(BPF_DEBUGFS, X_OK))
		fail(EXIT_OK, "status: no statistics: they need debugfs (%s: %s)", BPF_DEBUGFS,
		     strerror(errno));
	if (!interval_ms)
		return print_status(name ? gov : NULL, set, NULL);
	do {
		now = seconds_now();
		w.elapsed = last ? now - last : 0;
		last = now;
		if (!json_on()) {
			time_t t = time(NULL);

			printf("--- %s", ctime(&t));
		}
		ret = print_status(name ? gov : NULL, set, &w);
		json_commit(!ret);
		fflush(stdout);
	} while (!ret && wait_ms(interval_ms));
	free(w.prev);
	free(w.now);
	return ret;
}
