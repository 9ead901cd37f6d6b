// SPDX-License-Identifier: GPL-2.0
/*
 * Governors: resolving NAME|PATH, loading, unloading, upgrading, switching.
 *
 * A load registers the governor (attaching its struct_ops map creates the
 * link) only once its object is loaded and its tunables written, with its
 * maps already pinned in a temporary directory; it pins the link there and
 * renames the directory into place.  Until the link is pinned, our file
 * descriptor is its only reference: any failure, or the loader's death,
 * unregisters it.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "loader.h"

#ifndef CPUFREQ_BPF_OBJDIR
#define CPUFREQ_BPF_OBJDIR "/usr/local/lib/cpufreq-bpf"
#endif

#define BPF_PREFIX	"bpf_"

/* Where shipped governors are: $CPUFREQ_BPF_OBJDIR, or the built-in path. */
const char *objdir(void)
{
	const char *dir = getenv("CPUFREQ_BPF_OBJDIR");

	return dir && *dir ? dir : CPUFREQ_BPF_OBJDIR;
}

static bool is_path(const char *what)
{
	size_t n = strlen(what);

	return strchr(what, '/') || (n > 2 && !strcmp(what + n - 2, ".o"));
}

/* scandir()'s filter for governor objects: NAME.bpf.o. */
int is_object_file(const struct dirent *e)
{
	size_t n = strlen(e->d_name);

	return n > 6 && !strcmp(e->d_name + n - 6, ".bpf.o");
}

/* @registered is @name, or @name with "bpf_" before it. */
static bool names_match(const char *registered, const char *name)
{
	size_t n = strlen(BPF_PREFIX);

	return !strcmp(registered, name) ||
	       (!strncmp(registered, BPF_PREFIX, n) && !strcmp(registered + n, name));
}

/*
 * The shipped object that registers @name or "bpf_" @name, into @path: a
 * governor's name need not be its file's (conservative.bpf.o registers
 * bpf_conserv).
 */
static int shipped_object_registering(const char *name, char *path, size_t len)
{
	const char *dir = objdir();
	struct dirent **names;
	struct gov_object go;
	char candidate[4096];
	int n, i, err = -ENOENT;

	n = scandir(dir, &names, is_object_file, alphasort);
	for (i = 0; i < n; i++) {
		snprintf(candidate, sizeof(candidate), "%s/%s", dir, names[i]->d_name);
		if (err && !object_open(candidate, NULL, &go)) {
			if (names_match(go.name, name)) {
				snprintf(path, len, "%s", candidate);
				err = 0;
			}
			gov_object_close(&go);
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	return err;
}

/*
 * The shipped object for any spelling of a governor: its file's stem
 * ("conservative"), its registered name ("bpf_conserv") or that name's
 * short form ("conserv").  @path names the stem's file when there is none.
 */
static int shipped_object(const char *name, char *path, size_t len)
{
	const char *shortname = name;

	if (!strncmp(name, BPF_PREFIX, strlen(BPF_PREFIX)))
		shortname += strlen(BPF_PREFIX);
	snprintf(path, len, "%s/%s.bpf.o", objdir(), shortname);
	if (can_access(path, R_OK))
		return 0;
	return shipped_object_registering(name, path, len);
}

/* The .name the struct_ops map registers, from its data and its BTF. */
static int ops_name(struct gov_object *go)
{
	const struct btf *btf = bpf_object__btf(go->obj);
	__u32 id = bpf_map__btf_value_type_id(go->ops);
	const struct btf_type *t = btf ? btf__type_by_id(btf, id) : NULL;
	const struct btf_member *m;
	const char *data;
	size_t size;
	int i;

	data = bpf_map__initial_value(go->ops, &size);
	if (!t || !btf_is_struct(t) || !data)
		return -EINVAL;
	for (i = 0, m = btf_members(t); i < btf_vlen(t); i++, m++) {
		__u32 off = btf_member_bit_offset(t, i) / 8;

		if (strcmp(btf__name_by_offset(btf, m->name_off), "name") || off >= size)
			continue;
		snprintf(go->name, sizeof(go->name), "%.*s", (int)(size - off), data + off);
		return go->name[0] ? 0 : -EINVAL;
	}
	return -EINVAL;
}

/* Opens the object at @path, quietly; -errno. */
int object_open(const char *path, const char *pin_root, struct gov_object *go)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .pin_root_path = pin_root);
	struct bpf_map *map;
	int err;

	memset(go, 0, sizeof(*go));
	snprintf(go->path, sizeof(go->path), "%s", path);
	go->obj = bpf_object__open_file(path, &opts);
	if (!go->obj)
		return -errno;
	bpf_object__for_each_map(map, go->obj)
		if (bpf_map__type(map) == BPF_MAP_TYPE_STRUCT_OPS)
			break;
	go->ops = map;
	go->tunables = bpf_object__find_map_by_name(go->obj, "tunables");
	err = go->ops ? ops_name(go) : -ENOENT;
	if (err)
		gov_object_close(go);
	return err;
}

/*
 * Opens NAME (shipped) or PATH without loading it; maps that ask to be
 * pinned by name go under @pin_root.  Returns an exit code, reported.
 */
int gov_object_open(const char *what, const char *pin_root, struct gov_object *go)
{
	char path[4096];
	int err;

	if (is_path(what)) {
		if (!can_access(what, R_OK))
			return fail(EXIT_NOTFOUND, "%s: %s", what, strerror(errno));
		snprintf(path, sizeof(path), "%s", what);
	} else if (shipped_object(what, path, sizeof(path))) {
		return fail(EXIT_NOTFOUND, "unknown governor '%s' (no %s)", what, path);
	}
	err = object_open(path, pin_root, go);
	if (err == -ENOENT || err == -EINVAL)
		return fail(EXIT_USAGE, "%s: no cpufreq governor in it (struct_ops map with a name)",
			    what);
	if (err)
		return fail(EXIT_USAGE, "%s: not a BPF object: %s", path, libbpf_error(err));
	return EXIT_OK;
}

void gov_object_close(struct gov_object *go)
{
	bpf_object__close(go->obj);
	go->obj = NULL;
}

/* The name the shipped object @name registers, or "" when there is none. */
static void shipped_name(const char *name, char *governor, size_t len)
{
	struct gov_object go;
	char path[4096];

	governor[0] = '\0';
	if (is_path(name) || shipped_object(name, path, sizeof(path)) ||
	    object_open(path, NULL, &go))
		return;
	snprintf(governor, len, "%s", go.name);
	gov_object_close(&go);
}

#define NR_SPELLINGS	3

/*
 * The spellings of @name, most literal first: as it is, with "bpf_"
 * before it, and as its shipped object registers it; "" when not a name.
 */
static void spellings(const char *name, char cand[NR_SPELLINGS][GOV_NAME_LEN + 1])
{
	int i;

	snprintf(cand[0], GOV_NAME_LEN + 1, "%s", name);
	snprintf(cand[1], GOV_NAME_LEN + 1, BPF_PREFIX "%s", name);
	shipped_name(name, cand[2], GOV_NAME_LEN + 1);
	for (i = 0; i < 2; i++)
		if (strlen(name) + i * strlen(BPF_PREFIX) > GOV_NAME_LEN)
			cand[i][0] = '\0';
}

/* The first spelling of @name that @known accepts, into @out. */
static bool resolve(const char *name, bool (*known)(const char *), char *out, size_t len)
{
	char cand[NR_SPELLINGS][GOV_NAME_LEN + 1];
	int i;

	spellings(name, cand);
	for (i = 0; i < NR_SPELLINGS; i++) {
		if (cand[i][0] && known(cand[i])) {
			snprintf(out, len, "%s", cand[i]);
			return true;
		}
	}
	return false;
}

/*
 * What a check (boot --check) would have loaded by now: later lines that
 * name these governors are checked against their objects.
 */
static struct planned {
	char name[GOV_NAME_LEN + 1];
	char path[4096];
} planned[MAX_POLICIES];
static int nr_planned;

static const struct planned *planned_find(const char *name)
{
	int i;

	for (i = 0; i < nr_planned; i++)
		if (!strcmp(planned[i].name, name))
			return &planned[i];
	return NULL;
}

static bool gov_planned(const char *name)
{
	return planned_find(name);
}

static int plan(const struct gov_object *go)
{
	struct planned *p;

	if (gov_planned(go->name))
		return EXIT_OK;
	if (nr_planned == MAX_POLICIES)
		return fail(EXIT_USAGE, "more than %d governors", MAX_POLICIES);
	p = &planned[nr_planned++];
	snprintf(p->name, sizeof(p->name), "%s", go->name);
	snprintf(p->path, sizeof(p->path), "%s", go->path);
	return EXIT_OK;
}

/* A planned governor's tunables, from its object: -ENOENT when none. */
int gov_planned_tunables(const char *name, struct layout *layout, __u32 *entries)
{
	const struct planned *p = planned_find(name);
	struct gov_object go;
	int err;

	if (!p || object_open(p->path, NULL, &go))
		return -ENOENT;
	err = go.tunables ? layout_from_btf(bpf_object__btf(go.obj),
					    bpf_map__btf_value_type_id(go.tunables), layout) :
			    -ENOENT;
	if (!err)
		*entries = bpf_map__max_entries(go.tunables);
	gov_object_close(&go);
	return err;
}

static bool bpf_governor_loaded(const char *name)
{
	return gov_pinned(name) || bpf_governor_registered(name) || gov_planned(name);
}

/* Loaded by cpufreq-bpf, or by an earlier line of a check. */
static bool gov_ours(const char *name)
{
	return gov_pinned(name) || gov_planned(name);
}

/* A registered or pinned BPF governor under any spelling of @name. */
int gov_resolve_loaded(const char *name, char *governor, size_t len)
{
	if (resolve(name, bpf_governor_loaded, governor, len))
		return EXIT_OK;
	return fail(EXIT_NOTFOUND, "governor '%s' is not loaded", name);
}

/* The first id of @r with no policy in @p (by id), or -1. */
static int range_missing(const struct policy_range *r, const struct policy_info *p, int n)
{
	int i = 0, id = r->lo;

	/* Ends at the first gap: "0-2000000000" costs at most n steps. */
	for (;;) {
		while (i < n && p[i].id < id)
			i++;
		if (i == n || p[i].id != id)
			return id;
		if (id == r->hi)
			return -1;
		id++;
	}
}

/*
 * Checks @set against the @n policies @p there are (by id): each id it
 * names must be one, and a BPF governor takes none from MAX_POLICIES up
 * (its per-policy maps have that many slots, and its start refuses the
 * others).  An exit code, the problem reported.
 */
int policies_check(const struct policy_set *set, const struct policy_info *p, int n,
		   const char *governor, bool bpf)
{
	int i, missing;

	for (i = 0; i < set->nr; i++) {
		missing = range_missing(&set->ranges[i], p, n);
		if (missing >= 0)
			return fail(EXIT_NOTFOUND, "no cpufreq policy%d", missing);
	}
	for (i = 0; bpf && i < n; i++)
		if (p[i].id >= MAX_POLICIES && policy_in_set(set, p[i].id))
			return fail(EXIT_USAGE, "policy%d: %s takes policies below %d (CPUFREQ_BPF_MAX_CPUS)",
				    p[i].id, governor, MAX_POLICIES);
	return EXIT_OK;
}

/* "policyN: FROM -> TO", or {"policy", "from", "to"} in a JSON array. */
static void report_move(int policy, const char *from, const char *to)
{
	if (!json_on()) {
		printf("policy%d: %s -> %s\n", policy, from, to);
		return;
	}
	json_object_start();
	json_field_int("policy", policy);
	json_field_str("from", from);
	json_field_str("to", to);
	json_object_end();
}

/*
 * Checks @set against the live policies, then, unless @dry, puts them on
 * @governor (@bpf when it is one), telling where each came from; in JSON,
 * as the elements of a "policies" array.
 */
static int switch_policies(const char *governor, bool bpf, const struct policy_set *set,
			   bool dry)
{
	struct policy_info *p;
	int n = policies_read(CPUFREQ_DIR, &p), i, err, ret;

	if (n < 0)
		return fail(EXIT_FAIL, "cannot read cpufreq policies: %s", strerror(-n));
	ret = policies_check(set, p, n, governor, bpf);
	if (dry) {
		free(p);
		return ret;
	}
	if (json_on()) {
		json_key("policies");
		json_array_start();
	}
	for (i = 0; i < n && !ret; i++) {
		if (!policy_in_set(set, p[i].id))
			continue;
		err = policy_set_governor(p[i].id, governor);
		if (err)
			ret = fail(EXIT_FAIL, "policy%d: cannot switch to %s: %s", p[i].id,
				   governor, strerror(-err));
		else
			report_move(p[i].id, p[i].governor, governor);
	}
	if (json_on())
		json_array_end();
	free(p);
	return ret;
}

static bool set_empty(const struct policy_set *set)
{
	return !set->all && !set->nr;
}

/* Checks the name is free before anything is created. */
static int name_free(const char *name)
{
	if (gov_pinned(name))
		return fail(EXIT_EXISTS, "%s is already loaded", name);
	if (governor_available(name) || bpf_governor_registered(name))
		return fail(EXIT_EXISTS, "a governor named %s is already registered", name);
	return EXIT_OK;
}

/* The --set values, checked against the object's BTF before it is loaded. */
static int parse_sets(struct gov_object *go, const struct load_request *req, void **value)
{
	struct layout layout;
	int ret;

	*value = NULL;
	if (!req->nr_sets)
		return EXIT_OK;
	if (!go->tunables)
		return fail(EXIT_USAGE, "%s has no tunables map", go->name);
	if (layout_from_btf(bpf_object__btf(go->obj), bpf_map__btf_value_type_id(go->tunables),
			    &layout))
		return fail(EXIT_USAGE, "%s: tunables without a struct value", go->name);
	*value = calloc(1, layout.value_size);
	ret = *value ? parse_assignments(&layout, req->sets, req->nr_sets, *value) :
		       fail(EXIT_FAIL, "out of memory");
	layout_free(&layout);
	return ret;
}

/* The same tunables for every policy. */
static int write_tunables(struct gov_object *go, const void *value)
{
	__u32 key, n = bpf_map__max_entries(go->tunables);
	size_t size = bpf_map__value_size(go->tunables);

	for (key = 0; key < n; key++)
		if (bpf_map__update_elem(go->tunables, &key, sizeof(key), value, size, 0))
			return fail(EXIT_FAIL, "writing tunables of %s: %s", go->name,
				    libbpf_error(errno));
	return EXIT_OK;
}

/* Loads @go into the kernel, or says why it cannot be.  An exit code. */
static int gov_object_load(struct gov_object *go)
{
	int err;

	err = bpf_object__load(go->obj);
	if (err)
		return fail(EXIT_FAIL, "%s: the kernel refused the object: %s%s", go->path,
			    libbpf_error(err), verbose() ? "" : " (-v shows why)");
	return EXIT_OK;
}

/* Loads, writes the @value of tunables, registers and pins into @tmp; see the top. */
static int load_into(struct gov_object *go, const void *value, const char *tmp)
{
	struct bpf_link *link;
	char path[512];
	int ret, err;

	if (go->tunables) {
		snprintf(path, sizeof(path), "%s/tunables", tmp);
		bpf_map__set_pin_path(go->tunables, path);
	}
	ret = gov_object_load(go) ?: (value ? write_tunables(go, value) : EXIT_OK);
	if (ret)
		return ret;

	link = bpf_map__attach_struct_ops(go->ops);
	if (!link)
		return errno == EEXIST ?
		       fail(EXIT_EXISTS, "a governor named %s is already registered", go->name) :
		       fail(EXIT_FAIL, "registering %s: %s", go->name, libbpf_error(errno));
	snprintf(path, sizeof(path), "%s/link", tmp);
	err = bpf_link__pin(link, path);
	/* Pinned or not, our descriptor goes: the pin holds the governor now. */
	bpf_link__destroy(link);
	if (err)
		ret = fail(EXIT_FAIL, "pinning %s: %s", path, libbpf_error(err));
	else
		pin_restrict(tmp);
	return ret;
}

/*
 * Everything a load needs, checked before anything is created: the
 * configuration the object reads, its --set values (into @value), the
 * policies, and its name, which must be free unless the request takes the
 * governor loaded already.
 */
static int load_validate(struct gov_object *go, const struct load_request *req, void **value)
{
	int ret;

	ret = parse_sets(go, req, value) ?: kconfig_preflight(go->obj, go->name) ?:
	      switch_policies(go->name, true, &req->policies, true);
	if (ret || (req->reapply && gov_ours(go->name)))
		return ret;
	return name_free(go->name);
}

/* Loads and pins @go, with the tunables @value, then switches its policies. */
static int load_new(struct gov_object *go, const struct load_request *req, const void *value,
		    const char *tmp)
{
	int ret, err;

	err = pin_tmp_create(tmp);
	if (err)
		return fail(EXIT_FAIL, "%s: %s", tmp, strerror(-err));
	ret = load_into(go, value, tmp);
	if (!ret) {
		err = pin_dir_publish(tmp, go->name);
		if (err)
			ret = fail(EXIT_FAIL, "publishing %s/%s: %s", PIN_ROOT, go->name,
				   strerror(-err));
	}
	if (ret) {
		/* Unpinning the link drops the last reference: unregistered. */
		pin_dir_remove(tmp);
		return ret;
	}
	if (json_on()) {
		char pinned[256];

		pin_dir(go->name, pinned, sizeof(pinned));
		json_object_start();
		json_field_str("loaded", go->name);
		json_field_str("path", go->path);
		json_field_str("pinned", pinned);
	} else {
		printf("loaded %s from %s, pinned in %s/%s\n", go->name, go->path, PIN_ROOT,
		       go->name);
	}
	if (!set_empty(&req->policies)) {
		ret = switch_policies(go->name, true, &req->policies, false);
		if (ret) {
			gov_unload(go->name);
			return ret;
		}
	} else if (json_on()) {
		json_key("policies");
		json_array_start();
		json_array_end();
	}
	if (json_on())
		json_object_end();
	return EXIT_OK;
}

/*
 * A governor loaded already (by boot): its line's tunables and policies
 * again.  In JSON, tune's document, then switch's.
 */
static int load_again(const struct gov_object *go, const struct load_request *req)
{
	int ret = EXIT_OK;

	if (!json_on())
		printf("%s is loaded already: applying its tunables and policies\n", go->name);
	if (req->nr_sets)
		ret = gov_tune(go->name, req->sets, req->nr_sets, -1, false);
	if (ret || set_empty(&req->policies))
		return ret;
	if (json_on()) {
		json_object_start();
		json_field_str("governor", go->name);
	}
	ret = switch_policies(go->name, true, &req->policies, false);
	if (json_on())
		json_object_end();
	return ret;
}

int gov_load(const struct load_request *req)
{
	struct gov_object go;
	void *value;
	char tmp[256];
	int ret;

	pin_tmp_dir("load", tmp, sizeof(tmp));
	ret = gov_object_open(req->what, tmp, &go);
	if (ret)
		return ret;
	ret = load_validate(&go, req, &value);
	if (!ret && req->check)
		ret = plan(&go);
	else if (!ret && gov_pinned(go.name))
		ret = load_again(&go, req);
	else if (!ret)
		ret = load_new(&go, req, value, tmp);
	free(value);
	gov_object_close(&go);
	return ret;
}

/*
 * Where each policy that ran @governor before the unload (@before) went;
 * in JSON, a "policies" array.
 */
static void report_returned(const struct policy_info *before, int n, const char *governor)
{
	struct policy_info *now;
	int m = policies_read(CPUFREQ_DIR, &now), i, j = 0;

	if (json_on()) {
		json_key("policies");
		json_array_start();
	}
	for (i = 0; i < n; i++) {
		if (strcmp(before[i].governor, governor))
			continue;
		while (j < m && now[j].id < before[i].id)
			j++;
		if (j < m && now[j].id == before[i].id)
			report_move(now[j].id, governor, now[j].governor);
	}
	if (json_on())
		json_array_end();
	free(now);
}

int gov_unload(const char *name)
{
	char gov[GOV_NAME_LEN + 1], dir[256], link[300];
	struct policy_info *before;
	int ret, fd, err, n;

	ret = gov_resolve_loaded(name, gov, sizeof(gov));
	if (ret)
		return ret;
	if (!gov_pinned(gov))
		return fail(EXIT_NOTFOUND, "%s was not loaded by cpufreq-bpf (no %s/%s)", gov,
			    PIN_ROOT, gov);
	err = pin_root_prepare();
	if (err)
		return fail(EXIT_FAIL, "%s: %s", PIN_ROOT, strerror(-err));
	pin_dir(gov, dir, sizeof(dir));
	snprintf(link, sizeof(link), "%s/link", dir);
	n = policies_read(CPUFREQ_DIR, &before);

	/*
	 * Hold the link while unpinning, so that the release, which hands the
	 * policies back, happens in our close() rather than later.
	 */
	fd = bpf_obj_get(link);
	err = pin_dir_remove(dir);
	if (fd >= 0)
		close(fd);
	if (err) {
		ret = fail(EXIT_FAIL, "removing %s: %s", dir, strerror(-err));
	} else if (json_on()) {
		json_object_start();
		json_field_str("unloaded", gov);
		report_returned(before, n, gov);
		json_object_end();
	} else {
		printf("unloaded %s\n", gov);
		report_returned(before, n, gov);
	}
	free(before);
	return ret;
}

static bool governor_offered(const char *name)
{
	return governor_available(name) || gov_planned(name);
}

/* A governor cpufreq offers, BPF or in-kernel, under any spelling of @name. */
static int resolve_any_governor(const char *name, char *out, size_t len)
{
	if (resolve(name, governor_offered, out, len))
		return EXIT_OK;
	return fail(EXIT_NOTFOUND, "no governor '%s' available (see: cpufreq-bpf list)", name);
}

/* In JSON: {"governor", "policies": [{"policy", "from", "to"}...]}. */
int gov_switch(const char *name, const struct policy_set *set, bool check)
{
	char gov[GOV_NAME_LEN + 1];
	int ret = resolve_any_governor(name, gov, sizeof(gov));
	bool bpf;

	if (ret)
		return ret;
	bpf = bpf_governor_registered(gov) || gov_planned(gov);
	if (check)
		return switch_policies(gov, bpf, set, true);
	if (json_on()) {
		json_object_start();
		json_field_str("governor", gov);
	}
	ret = switch_policies(gov, bpf, set, false);
	if (json_on())
		json_object_end();
	return ret;
}

/* New tunables from the loaded governor's, field by field. */
static int carry_tunables(const char *gov, struct gov_object *go, int *carried)
{
	struct layout old, new;
	__u32 old_entries, entries = bpf_map__max_entries(go->tunables), key;
	size_t new_size = bpf_map__value_size(go->tunables);
	int fd, ret = EXIT_OK;
	void *ov, *nv;

	*carried = 0;
	if (tunables_open(gov, &fd, &old, &old_entries))
		return EXIT_OK;	/* nothing to carry */
	if (layout_from_btf(bpf_object__btf(go->obj), bpf_map__btf_value_type_id(go->tunables),
			    &new)) {
		close(fd);
		layout_free(&old);
		return fail(EXIT_USAGE, "%s: tunables without a struct value", go->path);
	}
	ov = calloc(1, old.value_size);
	nv = calloc(1, new_size);
	for (key = 0; ov && nv && key < entries; key++) {
		__u32 okey = old_entries == 1 ? 0 : key;

		if (okey >= old_entries || bpf_map_lookup_elem(fd, &okey, ov))
			continue;
		memset(nv, 0, new_size);
		layout_carry(&old, ov, &new, nv);
		if (bpf_map__update_elem(go->tunables, &key, sizeof(key), nv, new_size, 0)) {
			ret = fail(EXIT_FAIL, "writing tunables of the new %s: %s", gov,
				   libbpf_error(errno));
			break;
		}
	}
	if (!ov || !nv)
		ret = fail(EXIT_FAIL, "out of memory");
	for (key = 0; key < (__u32)new.nr_fields; key++)
		*carried += layout_field(&old, new.fields[key].name) != NULL;
	free(ov);
	free(nv);
	close(fd);
	layout_free(&old);
	layout_free(&new);
	return ret;
}

/*
 * Fills the new struct_ops map's kernel value: libbpf does so only when it
 * attaches a map, which fails with EEXIST after the value is set, since the
 * name is taken by the governor being upgraded.
 */
static int prepare_ops(struct gov_object *go)
{
	struct bpf_link *probe = bpf_map__attach_struct_ops(go->ops);

	if (probe) {
		bpf_link__destroy(probe);
		return fail(EXIT_FAIL, "%s is not registered (retired after an error?)", go->name);
	}
	if (errno != EEXIST)
		return fail(EXIT_FAIL, "preparing %s: %s", go->name, libbpf_error(errno));
	return EXIT_OK;
}

/* Moves the new maps' pins over the old ones. */
static void replace_pins(const char *dir, struct gov_object *go)
{
	struct bpf_map *map;
	char from[512], to[512];

	bpf_object__for_each_map(map, go->obj) {
		if (!bpf_map__is_pinned(map))
			continue;
		snprintf(from, sizeof(from), "%s", bpf_map__pin_path(map));
		snprintf(to, sizeof(to), "%s/%s", dir, strrchr(from, '/') + 1);
		if (rename(from, to))
			fail(EXIT_FAIL, "warning: %s stays the old map: %s", to, strerror(errno));
	}
}

int gov_upgrade(const char *name, const char *path, bool check)
{
	char gov[GOV_NAME_LEN + 1], dir[256], tmp[256], pin[300];
	struct gov_object go;
	int ret, err, fd, carried = 0;

	ret = gov_resolve_loaded(name, gov, sizeof(gov));
	if (ret)
		return ret;
	if (!gov_ours(gov))
		return fail(EXIT_NOTFOUND, "%s was not loaded by cpufreq-bpf", gov);
	pin_tmp_dir("upgrade", tmp, sizeof(tmp));
	ret = gov_object_open(path, tmp, &go);
	if (ret)
		return ret;
	ret = strcmp(go.name, gov) ? fail(EXIT_USAGE, "%s registers %s, not %s", path, go.name, gov) :
				     kconfig_preflight(go.obj, go.name);
	if (ret || check)
		goto out;
	err = pin_tmp_create(tmp);
	if (err) {
		ret = fail(EXIT_FAIL, "%s: %s", tmp, strerror(-err));
		goto out;
	}
	if (go.tunables) {
		snprintf(pin, sizeof(pin), "%s/tunables", tmp);
		bpf_map__set_pin_path(go.tunables, pin);
	}
	ret = gov_object_load(&go);
	if (ret)
		goto out;
	ret = (go.tunables ? carry_tunables(gov, &go, &carried) : EXIT_OK) ?: prepare_ops(&go);
	if (ret)
		goto out;

	pin_dir(gov, dir, sizeof(dir));
	snprintf(pin, sizeof(pin), "%s/link", dir);
	fd = bpf_obj_get(pin);
	if (fd < 0) {
		ret = fail(EXIT_FAIL, "%s: %s", pin, libbpf_error(errno));
		goto out;
	}
	err = bpf_link_update(fd, bpf_map__fd(go.ops), NULL);
	close(fd);
	if (err) {
		ret = fail(EXIT_FAIL, "updating %s in place: %s", gov, libbpf_error(err));
		goto out;
	}
	pin_restrict(tmp);
	replace_pins(dir, &go);
	if (json_on()) {
		json_object_start();
		json_field_str("upgraded", gov);
		json_field_str("path", go.path);
		json_field_int("carried", carried);
		json_object_end();
	} else {
		printf("upgraded %s in place from %s; %d tunables carried over\n", gov, path,
		       carried);
	}
out:
	gov_object_close(&go);
	pin_dir_remove(tmp);
	return ret;
}
