// SPDX-License-Identifier: GPL-2.0
/*
 * churn OBJ GOVERNOR CYCLES POLICY...: registers the governor of OBJ, puts
 * the policies on it and unregisters it, CYCLES times, checking after each
 * removal that every policy went back to the governor it had before.
 *
 * The object is verified once and its struct_ops map attached again for
 * each cycle: under emulation verification takes seconds, while the
 * lifetime being tested (register, init/start on every policy, stop/exit
 * and the return of the policies, unregister) takes milliseconds.  Every
 * RELOAD_EVERY cycles the object is closed and loaded again, so that map
 * and program release are churned as well.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#define RELOAD_EVERY	50
#define NAME_LEN	32
#define MAX_POLICIES	16

static const char *policy_path(const char *policy)
{
	static char path[128];

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpufreq/policy%s/scaling_governor", policy);
	return path;
}

static int read_governor(const char *policy, char name[NAME_LEN])
{
	FILE *f = fopen(policy_path(policy), "r");
	int ok;

	if (!f)
		return -errno;
	ok = fgets(name, NAME_LEN, f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	name[strcspn(name, "\n")] = '\0';
	return 0;
}

static int write_governor(const char *policy, const char *name)
{
	FILE *f = fopen(policy_path(policy), "w");
	int err = 0;

	if (!f)
		return -errno;
	if (fputs(name, f) < 0)
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

static struct bpf_map *load_struct_ops(const char *path, struct bpf_object **objp)
{
	struct bpf_object *obj = bpf_object__open_file(path, NULL);
	struct bpf_map *map;

	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "churn: cannot load %s\n", path);
		bpf_object__close(obj);
		return NULL;
	}
	bpf_object__for_each_map(map, obj)
		if (bpf_map__type(map) == BPF_MAP_TYPE_STRUCT_OPS)
			break;
	if (!map) {
		fprintf(stderr, "churn: %s has no struct_ops map\n", path);
		bpf_object__close(obj);
		return NULL;
	}
	*objp = obj;
	return map;
}

/*
 * One cycle: register, switch every policy to @gov (the last one away to
 * performance on odd cycles, before the governor goes), unregister, check.
 */
static int cycle(struct bpf_map *map, const char *gov, int n, char **policies,
		 int nr_policies)
{
	char before[MAX_POLICIES][NAME_LEN], now[NAME_LEN];
	struct bpf_link *link;
	int i, err;

	for (i = 0; i < nr_policies; i++) {
		err = read_governor(policies[i], before[i]);
		if (err)
			goto fail_policy;
	}
	link = bpf_map__attach_struct_ops(map);
	if (!link) {
		fprintf(stderr, "churn: cycle %d: register: %s\n", n, strerror(errno));
		return -1;
	}
	for (i = 0; i < nr_policies; i++) {
		err = write_governor(policies[i], gov);
		if (!err)
			err = read_governor(policies[i], now);
		if (err || strcmp(now, gov)) {
			bpf_link__destroy(link);
			goto fail_policy;
		}
	}
	if (n % 2) {
		strcpy(before[nr_policies - 1], "performance");
		err = write_governor(policies[nr_policies - 1], "performance");
		if (err) {
			bpf_link__destroy(link);
			i = nr_policies - 1;
			goto fail_policy;
		}
	}
	bpf_link__destroy(link);

	for (i = 0; i < nr_policies; i++) {
		err = read_governor(policies[i], now);
		if (err)
			goto fail_policy;
		if (strcmp(now, before[i])) {
			fprintf(stderr, "churn: cycle %d: policy%s on %s after unregister, not %s\n",
				n, policies[i], now, before[i]);
			return -1;
		}
	}
	return 0;

fail_policy:
	fprintf(stderr, "churn: cycle %d: policy%s: %s\n", n, policies[i],
		err ? strerror(-err) : "governor not taken");
	return -1;
}

int main(int argc, char **argv)
{
	struct bpf_object *obj = NULL;
	struct bpf_map *map;
	int cycles, n;

	if (argc < 5 || argc - 4 > MAX_POLICIES || (cycles = atoi(argv[3])) <= 0) {
		fprintf(stderr, "usage: churn OBJ GOVERNOR CYCLES POLICY...\n");
		return 2;
	}
	for (n = 1; n <= cycles; n++) {
		if (!obj || n % RELOAD_EVERY == 0) {
			bpf_object__close(obj);
			map = load_struct_ops(argv[1], &obj);
			if (!map)
				return 1;
		}
		if (cycle(map, argv[2], n, argv + 4, argc - 4)) {
			bpf_object__close(obj);
			return 1;
		}
	}
	bpf_object__close(obj);
	printf("churn: %d cycles\n", cycles);
	return 0;
}
