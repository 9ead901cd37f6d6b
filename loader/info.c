// SPDX-License-Identifier: GPL-2.0
/*
 * info NAME|PATH: what a governor object registers, its ops, its flags and
 * its tunables with their defaults, read from the object file alone: it is
 * opened, never loaded, so neither root nor the series is needed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "loader.h"

/* enum cpufreq_gov_ops_flags, bit by bit (include/linux/cpufreq_bpf.h). */
static const char *const flag_names[] = { "slow_path", "strict_target", "eas" };
#define NR_FLAG_NAMES	(sizeof(flag_names) / sizeof(flag_names[0]))
#define FLAG_EAS	(1U << 2)

struct ops_info {
	const char *ops[32];	/* the ops the object implements, in struct order */
	int nr_ops;
	__u32 flags;
	__u32 sample_period_us;	/* the first period of sample(), 0 for none */
};

/*
 * The ops the struct_ops map sets, its flags and sampling period.  Once the object is
 * opened, libbpf holds the map's value with a struct bpf_program pointer
 * in the slot of each op that has a program, NULL in the others.
 */
static int ops_read(const struct gov_object *go, struct ops_info *info)
{
	const struct btf *btf = bpf_object__btf(go->obj);
	const struct btf_type *t = btf__type_by_id(btf, bpf_map__btf_value_type_id(go->ops));
	const struct btf_member *m;
	const struct btf_type *mt;
	const char *data, *name;
	size_t size;
	__u32 off;
	int i;

	memset(info, 0, sizeof(*info));
	data = bpf_map__initial_value(go->ops, &size);
	if (!t || !btf_is_struct(t) || !data)
		return -1;
	for (i = 0, m = btf_members(t); i < btf_vlen(t); i++, m++) {
		off = btf_member_bit_offset(t, i) / 8;
		name = btf__name_by_offset(btf, m->name_off);
		mt = btf__type_by_id(btf, btf__resolve_type(btf, m->type));
		if (mt && btf_is_ptr(mt) && off + sizeof(void *) <= size) {
			void *prog;

			memcpy(&prog, data + off, sizeof(prog));
			if (prog && info->nr_ops < (int)(sizeof(info->ops) / sizeof(info->ops[0])))
				info->ops[info->nr_ops++] = name;
		} else if (mt && (btf_is_int(mt) || btf_is_enum(mt)) && mt->size == 4 &&
			   off + 4 <= size) {
			if (!strcmp(name, "flags"))
				memcpy(&info->flags, data + off, 4);
			else if (!strcmp(name, "sample_period_us"))
				memcpy(&info->sample_period_us, data + off, 4);
		}
	}
	return 0;
}

static void flags_print(__u32 flags)
{
	unsigned int bit;
	char buf[16];

	if (!json_on())
		printf("flags:");
	for (bit = 0; bit < 32; bit++) {
		if (!(flags & (1U << bit)))
			continue;
		if (bit < NR_FLAG_NAMES)
			snprintf(buf, sizeof(buf), "%s", flag_names[bit]);
		else
			snprintf(buf, sizeof(buf), "bit%u", bit);
		if (json_on())
			json_str(buf);
		else
			printf(" %s", buf);
	}
	if (!json_on())
		printf("%s\n", flags ? "" : " none");
}

/*
 * The tunables, each with its default: what the object's tag says 0 stands
 * for, else what an entry holds after a load without --set.
 */
static int tunables_print(const struct gov_object *go)
{
	__u32 entries = bpf_map__max_entries(go->tunables);
	struct layout layout;
	const void *initial;
	void *value;
	size_t size;
	int i;

	if (layout_from_btf(bpf_object__btf(go->obj), bpf_map__btf_value_type_id(go->tunables),
			    &layout))
		return fail(EXIT_USAGE, "%s: tunables without a struct value", go->path);
	value = calloc(1, layout.value_size);
	if (!value) {
		layout_free(&layout);
		return fail(EXIT_FAIL, "out of memory");
	}
	/* An array map's entries start zeroed, unless the object says otherwise. */
	initial = bpf_map__initial_value(go->tunables, &size);
	if (initial)
		memcpy(value, initial, size < layout.value_size ? size : layout.value_size);
	if (json_on()) {
		json_object_start();
		json_field_str("type", layout.type_name);
		json_field_bool("per_policy", entries > 1);
		json_field_uint("entries", entries);
		json_key("fields");
		json_object_start();
	} else {
		printf("tunables: struct %s, %s\n", layout.type_name,
		       entries > 1 ? "per policy" : "global");
	}
	for (i = 0; i < layout.nr_fields; i++) {
		if (json_on())
			field_json(&layout.fields[i], value, "default");
		else
			field_print(&layout.fields[i], value, "  ", true);
	}
	if (json_on()) {
		json_object_end();
		json_object_end();
	}
	free(value);
	layout_free(&layout);
	return EXIT_OK;
}

/*
 * In JSON: {"name", "path", "ops": [...], "flags": [...], "eas",
 * "sample_period_us", "tunables": {"type", "per_policy", "entries", "fields": {...}} or null}.
 */
int cmd_info(const char *what)
{
	struct gov_object go;
	struct ops_info info;
	int ret, i;

	ret = gov_object_open(what, NULL, &go);
	if (ret)
		return ret;
	if (ops_read(&go, &info)) {
		gov_object_close(&go);
		return fail(EXIT_USAGE, "%s: no cpufreq governor in it (struct_ops map with a name)",
			    what);
	}
	if (json_on()) {
		json_object_start();
		json_field_str("name", go.name);
		json_field_str("path", go.path);
		json_key("ops");
		json_array_start();
	} else {
		printf("name: %s\npath: %s\nops:", go.name, go.path);
	}
	for (i = 0; i < info.nr_ops; i++) {
		if (json_on())
			json_str(info.ops[i]);
		else
			printf(" %s", info.ops[i]);
	}
	if (json_on()) {
		json_array_end();
		json_key("flags");
		json_array_start();
		flags_print(info.flags);
		json_array_end();
		json_field_bool("eas", info.flags & FLAG_EAS);
		json_field_uint("sample_period_us", info.sample_period_us);
		json_key("tunables");
	} else {
		putchar('\n');
		flags_print(info.flags);
		printf("eas: %s\nsample_period_us: %u\n", info.flags & FLAG_EAS ? "yes" : "no",
		       info.sample_period_us);
	}
	if (go.tunables)
		ret = tunables_print(&go);
	else if (json_on())
		json_null();
	else
		printf("tunables: none\n");
	if (!ret && json_on())
		json_object_end();
	gov_object_close(&go);
	return ret;
}
