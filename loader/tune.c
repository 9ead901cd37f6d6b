// SPDX-License-Identifier: GPL-2.0
/*
 * tune: a loaded governor's tunables by field name, through the BTF the
 * kernel holds for its pinned "tunables" map.  Every value is checked
 * before anything is written.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include "loader.h"

/* Opens the pinned tunables of @governor with their layout; -errno. */
int tunables_open(const char *governor, int *fd, struct layout *layout, __u32 *entries)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info);
	char dir[256], path[300];
	struct btf *btf;
	int err;

	pin_dir(governor, dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/tunables", dir);
	*fd = bpf_obj_get(path);
	if (*fd < 0)
		return -errno;
	err = bpf_map_get_info_by_fd(*fd, &info, &len);
	if (!err && !info.btf_value_type_id)
		err = -ENODATA;
	btf = err ? NULL : btf__load_from_kernel_by_id(info.btf_id);
	if (!err && !btf)
		err = -errno;
	if (!err)
		err = layout_from_btf(btf, info.btf_value_type_id, layout);
	btf__free(btf);
	if (!err && layout->value_size != info.value_size)
		err = -EINVAL;
	if (err) {
		close(*fd);
		return err;
	}
	*entries = info.max_entries;
	return 0;
}

int report_assignment(const struct layout *layout, const char *arg, int err)
{
	const struct field *f;
	char name[64];

	snprintf(name, sizeof(name), "%.*s", (int)strcspn(arg, "="), arg);
	f = layout_field(layout, name);
	switch (err) {
	case -ENOENT:
		return fail(EXIT_USAGE, "unknown field '%s' (%s has no such member)", name,
			    layout->type_name);
	case -ERANGE:
		if (f && f->has_range)
			return fail(EXIT_USAGE, "'%s': out of range: %s takes %lld..%lld, or 0 for the default",
				    arg, name, (long long)f->min, (long long)f->max);
		return fail(EXIT_USAGE, "'%s': out of range for %s", arg, name);
	case -E2BIG:
		return fail(EXIT_USAGE, "'%s': too many values for %s", arg, name);
	case -ENOMEM:
		return fail(EXIT_FAIL, "'%s': out of memory", arg);
	default:
		return fail(EXIT_USAGE, "'%s': malformed, expected field=value%s", arg,
			    f && f->format == FIELD_FREQ_LIST ? " with value as 'V FREQ:V ...'" : "");
	}
}

/* Every field=value into @value; an exit code, the first error reported. */
int parse_assignments(const struct layout *layout, char **assign, int n, void *value)
{
	int i, err;

	for (i = 0; i < n; i++) {
		err = parse_assignment(layout, assign[i], value);
		if (err)
			return report_assignment(layout, assign[i], err);
	}
	return EXIT_OK;
}

/*
 * Applies every field=value to the entry of @policy, or to all @entries
 * when it is -1: all are parsed into copies first, written only when all
 * parsed.
 */
int tunables_apply(int fd, __u32 entries, const struct layout *layout, char **assign, int n,
		   int policy)
{
	__u32 first = policy < 0 ? 0 : policy, last = policy < 0 ? entries : first + 1, key;
	size_t size = layout->value_size;
	char *vals = calloc(last - first, size);
	int ret = EXIT_OK;

	if (!vals)
		return fail(EXIT_FAIL, "out of memory");
	for (key = first; key < last && !ret; key++) {
		char *v = vals + (key - first) * size;

		if (bpf_map_lookup_elem(fd, &key, v))
			ret = fail(EXIT_FAIL, "reading tunables[%u]: %s", key, libbpf_error(errno));
		else
			ret = parse_assignments(layout, assign, n, v);
	}
	for (key = first; key < last && !ret; key++)
		if (bpf_map_update_elem(fd, &key, vals + (key - first) * size, BPF_ANY))
			ret = fail(EXIT_FAIL, "writing tunables[%u]: %s", key, libbpf_error(errno));
	free(vals);
	return ret;
}

/* Every field=value parsed, nothing written: what a check asks. */
static int tunables_check(const struct layout *layout, char **assign, int n)
{
	void *value = calloc(1, layout->value_size);
	int ret = value ? parse_assignments(layout, assign, n, value) :
			  fail(EXIT_FAIL, "out of memory");

	free(value);
	return ret;
}

/* "field=value", with its unit, range and what 0 stands for after a '#' when @annotate. */
void field_print(const struct field *f, const void *value, const char *prefix, bool annotate)
{
	char buf[512], def[160];

	if (field_format(f, value, buf, sizeof(buf)))
		snprintf(buf, sizeof(buf), "?");
	printf("%s%s=%s", prefix, f->name, buf);
	/* "0 = 40000 us" when the object says what its default is. */
	if (field_default_format(f, def, sizeof(def)))
		snprintf(def, sizeof(def), "%s", f->has_range ? "default" : "");
	if (annotate && (f->unit[0] || f->has_range || def[0])) {
		printf("\t# %s%s", f->unit, f->unit[0] && (f->has_range || def[0]) ? ", " : "");
		if (f->has_range)
			printf("%lld..%lld%s", (long long)f->min, (long long)f->max,
			       def[0] ? ", " : "");
		if (def[0])
			printf("0 = %s", def);
	}
	putchar('\n');
}

/* @name is the field of one of @args, "field" or "field=value". */
static bool field_named(const char *name, char **args, int n)
{
	size_t len = strlen(name);
	int j;

	for (j = 0; j < n; j++)
		if (strcspn(args[j], "=") == len && !strncmp(args[j], name, len))
			return true;
	return false;
}

/*
 * Prints the fields named in @args, or all of them, of entry @key, read
 * into @value: a buffer of the value's size, which comes from BTF and may
 * be anything, so it is not on the stack.  In JSON, {"policy": @key, or
 * null when @global, "fields": {...}}.
 */
static int print_entry(int fd, __u32 key, bool global, const struct layout *layout,
		       char **args, int n, const char *prefix, void *value)
{
	int i;

	if (bpf_map_lookup_elem(fd, &key, value))
		return fail(EXIT_FAIL, "reading tunables[%u]: %s", key, libbpf_error(errno));
	if (json_on()) {
		json_object_start();
		json_key("policy");
		if (global)
			json_null();
		else
			json_uint(key);
		json_key("fields");
		json_object_start();
	}
	for (i = 0; i < layout->nr_fields; i++) {
		if (n && !field_named(layout->fields[i].name, args, n))
			continue;
		if (json_on())
			field_json(&layout->fields[i], value, "value");
		else
			field_print(&layout->fields[i], value, prefix, !n);
	}
	if (json_on()) {
		json_object_end();
		json_object_end();
	}
	return EXIT_OK;
}

/* Every policy's entry, as far as @entries go. */
static int print_policies(int fd, __u32 entries, const struct layout *layout, char **args,
			  int n, void *value)
{
	struct policy_info *p;
	int nr = policies_read(CPUFREQ_DIR, &p), i, ret = EXIT_OK;
	char prefix[32];

	if (nr < 0)
		return fail(EXIT_FAIL, "cannot read cpufreq policies: %s", strerror(-nr));
	for (i = 0; i < nr && !ret && (__u32)p[i].id < entries; i++) {
		snprintf(prefix, sizeof(prefix), "policy%d: ", p[i].id);
		ret = print_entry(fd, p[i].id, false, layout, args, n, prefix, value);
	}
	/* Policies are by id: the rest have no entry, nor can they run it. */
	if (!ret && i < nr)
		fail(EXIT_OK, "warning: policy%d and up not shown: the tunables have %u entries",
		     p[i].id, entries);
	free(p);
	return ret;
}

/*
 * Every policy's entry, or the one asked for, or the global one; in JSON,
 * under "tunables", a list of them.
 */
static int print_tunables(int fd, __u32 entries, const struct layout *layout, char **args,
			  int n, int policy)
{
	void *value = malloc(layout->value_size);
	int ret;

	if (!value)
		return fail(EXIT_FAIL, "out of memory");
	if (json_on()) {
		json_key("tunables");
		json_array_start();
	}
	if (entries == 1 || policy >= 0)
		ret = print_entry(fd, policy < 0 ? 0 : policy, entries == 1, layout, args, n, "",
				  value);
	else
		ret = print_policies(fd, entries, layout, args, n, value);
	if (json_on())
		json_array_end();
	free(value);
	return ret;
}

/*
 * In JSON, what a write left: "written": {"policy": N, or null for every
 * entry, "fields": {...}}, the values read back from the entry (the first
 * when all were written, which hold the same).
 */
static int report_written(int fd, const struct layout *layout, char **writes, int n,
			  int policy)
{
	void *value;
	int ret;

	if (!json_on())
		return EXIT_OK;
	value = malloc(layout->value_size);
	if (!value)
		return fail(EXIT_FAIL, "out of memory");
	json_key("written");
	ret = print_entry(fd, policy < 0 ? 0 : policy, policy < 0, layout, writes, n, "", value);
	free(value);
	return ret;
}

/*
 * Reads or writes; a check (@check) reads and writes nothing, and takes the
 * tunables of a governor an earlier line would have loaded from its object.
 */
int gov_tune(const char *name, char **args, int n, int policy, bool check)
{
	char gov[GOV_NAME_LEN + 1], *reads[n ? n : 1], *writes[n ? n : 1];
	int nr_reads = 0, nr_writes = 0, fd = -1, err, ret, i;
	struct layout layout;
	__u32 entries;

	ret = gov_resolve_loaded(name, gov, sizeof(gov));
	if (ret)
		return ret;
	err = check && !gov_pinned(gov) ? gov_planned_tunables(gov, &layout, &entries) :
					  tunables_open(gov, &fd, &layout, &entries);
	if (err)
		return fail(err == -ENOENT ? EXIT_NOTFOUND : EXIT_FAIL,
			    "%s: no tunables in %s/%s: %s", gov, PIN_ROOT, gov, libbpf_error(err));
	for (i = 0; i < n; i++) {
		if (strchr(args[i], '='))
			writes[nr_writes++] = args[i];
		else
			reads[nr_reads++] = args[i];
	}
	for (i = 0; i < nr_reads && !ret; i++)
		if (!layout_field(&layout, reads[i]))
			ret = report_assignment(&layout, reads[i], -ENOENT);
	if (!ret && policy >= 0 && entries == 1)
		ret = fail(EXIT_USAGE, "%s has global tunables: --policy does not apply", gov);
	else if (!ret && policy >= 0 && (__u32)policy >= entries)
		ret = fail(EXIT_USAGE, "policy%d is beyond %s's %u tunables entries", policy,
			   gov, entries);
	if (!ret && json_on()) {
		json_object_start();
		json_field_str("governor", gov);
	}
	if (!ret && nr_writes)
		ret = check ? tunables_check(&layout, writes, nr_writes) :
			      tunables_apply(fd, entries, &layout, writes, nr_writes, policy) ?:
			      report_written(fd, &layout, writes, nr_writes, policy);
	if (!ret && !check && (nr_reads || !nr_writes))
		ret = print_tunables(fd, entries, &layout, reads, nr_reads, policy);
	if (!ret && json_on())
		json_object_end();
	if (fd >= 0)
		close(fd);
	layout_free(&layout);
	return ret;
}
