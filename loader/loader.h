/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpufreq-bpf: the loader of BPF cpufreq governors.  Declarations shared by
 * its modules; main.c holds the command line, each other file one concern.
 */
#ifndef __CPUFREQ_BPF_LOADER_H
#define __CPUFREQ_BPF_LOADER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

struct btf;
struct bpf_object;
struct bpf_map;

/* Exit codes, documented in --help and cpufreq-bpf(8). */
enum {
	EXIT_OK = 0,
	EXIT_FAIL = 1,		/* the kernel or the system refused */
	EXIT_USAGE = 2,		/* bad command line, field or value */
	EXIT_NOTFOUND = 3,	/* no such governor, object, field or policy */
	EXIT_PERM = 4,		/* not root */
	EXIT_EXISTS = 5,	/* the governor is already loaded */
	EXIT_NOSUPPORT = 6,	/* the kernel lacks the series, BTF or its config */
};

#define GOV_NAME_LEN	16	/* CPUFREQ_NAME_LEN */
#define MAX_POLICIES	64	/* CPUFREQ_BPF_MAX_CPUS: BPF governors take ids below it */

/* preflight.c */
int preflight(void);
int kconfig_preflight(struct bpf_object *obj, const char *name);
unsigned int kernel_tick_us(void);

/* util.c */
int fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void fail_context(const char *where);
void set_verbose(bool on);
bool verbose(void);
int parse_u64(const char *s, __u64 *val);
int parse_millis(const char *s, __u64 *ms);
bool can_access(const char *path, int mode);
const char *libbpf_error(int err);

/* json.c: the JSON writer of -j and -p; documents go out at json_commit(). */
void json_init(FILE *out, bool pretty);
bool json_on(void);
void json_object_start(void);
void json_object_end(void);
void json_array_start(void);
void json_array_end(void);
void json_key(const char *key);
void json_str(const char *s);
void json_int(long long v);
void json_uint(unsigned long long v);
void json_float(double v, int decimals);
void json_bool(bool v);
void json_null(void);
void json_field_str(const char *key, const char *s);
void json_field_int(const char *key, long long v);
void json_field_uint(const char *key, unsigned long long v);
void json_field_bool(const char *key, bool v);
void json_commit(bool keep);

/*
 * A set of policy ids, as given by --policy LIST|all.  A LIST is shorter
 * than POLICY_LIST_LEN, so it holds at most half as many ids or ranges.
 */
#define POLICY_LIST_LEN	256

struct policy_range {
	int lo, hi;
};

struct policy_set {
	bool all;
	int nr;
	struct policy_range ranges[POLICY_LIST_LEN / 2];
};

int parse_policy_list(const char *s, struct policy_set *set);
bool policy_in_set(const struct policy_set *set, int policy);

/* tunables.c: the fields of a governor's tunables struct, from its BTF. */
enum field_format {
	FIELD_SCALAR,
	FIELD_ARRAY,		/* nelems values, comma separated */
	FIELD_FREQ_LIST,	/* "value freq:value ...", 0-terminated */
};

struct field {
	char name[64];
	__u32 offset;		/* bytes into the value */
	__u32 elem_size;	/* 1, 2, 4 or 8 */
	__u32 nelems;		/* 1 for a scalar */
	bool is_signed;
	enum field_format format;
	bool has_range;
	__s64 min, max;
	__u32 min_ticks;	/* the minimum in the running kernel's ticks */
	char unit[16];
	/* What 0 stands for, from the object's default tag, when it has one. */
	bool has_default;	/* default_value holds it */
	__s64 default_value;
	char default_text[128];	/* or this says it, when not a number */
};

struct layout {
	char type_name[64];
	__u32 value_size;
	int nr_fields;
	struct field *fields;
};

int layout_from_btf(const struct btf *btf, __u32 type_id, struct layout *layout);
void layout_free(struct layout *layout);
const struct field *layout_field(const struct layout *layout, const char *name);
int field_parse(const struct field *f, const char *text, void *value);
int field_format(const struct field *f, const void *value, char *buf, size_t len);
int parse_assignment(const struct layout *layout, const char *arg, void *value);
void layout_carry(const struct layout *from, const void *old_value,
		  const struct layout *to, void *new_value);
void field_json_value(const struct field *f, const void *value);
void field_json(const struct field *f, const void *value, const char *what);
int field_default_format(const struct field *f, char *buf, size_t len);

/* sysfs.c: cpufreq policies and the framework's debugfs files. */
struct policy_info {
	int id;
	char cpus[64];
	char governor[GOV_NAME_LEN + 1];
	unsigned long cur, min, max;
	unsigned long total_trans;
};

#define CPUFREQ_DIR	"/sys/devices/system/cpu/cpufreq"
#define BPF_DEBUGFS	"/sys/kernel/debug/cpufreq_bpf"

int policies_read(const char *dir, struct policy_info **out);
int policies_of_cpus(const struct policy_set *cpus, const struct policy_info *p, int n,
		     struct policy_set *out, int *cpu);
int policy_set_governor(int policy, const char *governor);
bool governor_available(const char *name);
int governors_available(char *buf, size_t len);
bool bpf_stats_exist(const char *name);
bool bpf_registered_elsewhere(const char *name);
bool bpf_governor_registered(const char *name);

struct gov_policy_stats {
	int policy;
	bool governed;
	unsigned long long update_calls, sample_calls, requests;
	unsigned long long fast_switches, deferred_switches, errors;
};

struct gov_stats {
	char state[16];
	unsigned long link_updates;
	char exit_reason[128];
	bool has_policy;
	struct gov_policy_stats policy;	/* the one asked for */
};

int gov_stats_read(const char *governor, int policy, struct gov_stats *stats);
int bpf_governors_list(char names[][GOV_NAME_LEN + 1], int max);
int last_exit_reason(const char *governor, char *buf, size_t len);

/* shadow.c: a loaded governor in shadow of a policy's, compared. */
int cmd_shadow(const char *name, int policy, unsigned int duration_s);

/* bpffs.c: /sys/fs/bpf/cpufreq/<governor>/{link,tunables,...} */
#define BPFFS_DIR	"/sys/fs/bpf"
#define PIN_ROOT	BPFFS_DIR "/cpufreq"

int bpffs_mount(void);
int pin_dir(const char *governor, char *buf, size_t len);
bool gov_pinned(const char *governor);
bool gov_link_struct_ops(const char *governor);
bool struct_ops_walkable(void);
bool struct_ops_registers(const char *name);
int pin_root_prepare(void);
int pin_tmp_dir(const char *what, char *buf, size_t len);
int pin_tmp_create(const char *tmp);
int pin_dir_remove(const char *dir);
int pin_dir_publish(const char *tmp, const char *governor);
void pin_restrict(const char *dir);
int pinned_governors(char names[][GOV_NAME_LEN + 1], int max);
void pin_recover(void);

/* govs.c: resolving, loading, unloading and upgrading governors. */
struct gov_object {
	struct bpf_object *obj;
	struct bpf_map *ops;		/* the .struct_ops.link map */
	struct bpf_map *tunables;	/* NULL when the governor has none */
	char name[GOV_NAME_LEN + 1];	/* what it registers as */
	char path[4096];
};

const char *objdir(void);
struct dirent;
int is_object_file(const struct dirent *e);
int gov_object_open(const char *name_or_path, const char *pin_root, struct gov_object *go);
int object_open(const char *path, const char *pin_root, struct gov_object *go);
void gov_object_close(struct gov_object *go);
int gov_resolve_loaded(const char *name, char *governor, size_t len);

struct load_request {
	const char *what;		/* NAME or PATH */
	struct policy_set policies;	/* to switch; none when mask 0 and !all */
	char **sets;			/* field=value */
	int nr_sets;
	bool check;			/* validate only: nothing registered or written */
	bool reapply;			/* loaded already: apply sets and policies again */
};

/*
 * Each command validates its arguments and targets before it changes
 * anything; with check true (boot --check) it stops there.
 */
int gov_load(const struct load_request *req);
int gov_unload(const char *name);
int gov_upgrade(const char *name, const char *path, bool check);
int gov_switch(const char *name, const struct policy_set *set, bool check);
int gov_planned_tunables(const char *name, struct layout *layout, __u32 *entries);
int policies_check(const struct policy_set *set, const struct policy_info *p, int n,
		   const char *governor, bool bpf);

/* tune.c: reading and writing tunables of a loaded governor. */
int tunables_open(const char *governor, int *fd, struct layout *layout, __u32 *entries);
int tunables_apply(int fd, __u32 entries, const struct layout *layout,
		   char **assignments, int n, int policy);
int report_assignment(const struct layout *layout, const char *arg, int err);
int parse_assignments(const struct layout *layout, char **assign, int n, void *value);
void field_print(const struct field *f, const void *value, const char *prefix,
		 bool annotate);
int gov_tune(const char *name, char **args, int n, int policy, bool check);

/* status.c */
int cmd_list(char **paths, int nr_paths);
int cmd_status(const char *name, const struct policy_set *set, unsigned int interval_ms);

/* info.c: a governor object described without loading it. */
int cmd_info(const char *what);

/* config.c: /etc/cpufreq-bpf.conf */
#define DEFAULT_CONFIG	"/etc/cpufreq-bpf.conf"
#define CONFIG_LINE_MAX	1023	/* bytes, without the newline */
int split_words(char *line, char **words, int max);
int config_run(const char *path, int (*run)(int argc, char **argv));

#endif
