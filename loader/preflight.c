// SPDX-License-Identifier: GPL-2.0
/* cpufreq-bpf: what every command needs of the running kernel, checked first. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <zlib.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "loader.h"

/*
 * The kernel carries the cpufreq-bpf series when its BTF describes struct
 * cpufreq_gov_ops.  Without it every command would fail later and less
 * clearly: registration with an errno from inside libbpf, status with
 * policies that never name a BPF governor.
 */
int preflight(void)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	int id;

	if (!vmlinux)
		return fail(EXIT_NOSUPPORT,
			    "this kernel has no BTF (/sys/kernel/btf/vmlinux: %s): it cannot run BPF governors",
			    libbpf_error(-errno));
	id = btf__find_by_name_kind(vmlinux, "cpufreq_gov_ops", BTF_KIND_STRUCT);
	btf__free(vmlinux);
	if (id < 0)
		return fail(EXIT_NOSUPPORT,
			    "this kernel lacks the cpufreq-bpf series (no cpufreq_gov_ops in its BTF)");
	return EXIT_OK;
}

/* The running kernel's configuration, where libbpf looks for it. */
static gzFile kernel_config_open(char *where, size_t size)
{
	struct utsname uts;
	gzFile f;

	if (!uname(&uts)) {
		snprintf(where, size, "/boot/config-%s", uts.release);
		f = gzopen(where, "r");
		if (f)
			return f;
	}
	snprintf(where, size, "/proc/config.gz");
	return gzopen(where, "r");
}

/* Where the configuration @f sets @option, its value; else NULL. */
static const char *kernel_config_value(gzFile f, const char *option, char *line, int size)
{
	size_t len = strlen(option);

	gzrewind(f);
	while (gzgets(f, line, size))
		if (!strncmp(line, option, len) && line[len] == '=')
			return line + len + 1;
	return NULL;
}

/*
 * The running kernel's tick in us, as the governors compute it from the
 * CONFIG_HZ libbpf gives them (TICK_USEC); 0 where the configuration is
 * not readable.  Tunables whose minimum is a number of ticks need it.
 */
unsigned int kernel_tick_us(void)
{
	static bool read;
	static long hz;
	const char *value;
	char where[300], line[512];
	gzFile f;

	if (!read) {
		read = true;
		f = kernel_config_open(where, sizeof(where));
		value = f ? kernel_config_value(f, "CONFIG_HZ", line, sizeof(line)) : NULL;
		hz = value ? strtol(value, NULL, 10) : 0;
		if (f)
			gzclose(f);
	}
	return hz > 0 ? (1000000000 + hz / 2) / hz / 1000 : 0;
}

/*
 * An object's CONFIG_* externs (its ".kconfig" section) are filled in by
 * libbpf from the running kernel's configuration when it loads; where the
 * configuration is missing, or lacks one of them, libbpf's own failure
 * names neither the file nor the option.  Checked before loading @obj.
 */
int kconfig_preflight(struct bpf_object *obj, const char *name)
{
	const struct btf *btf = bpf_object__btf(obj);
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec;
	const char *option;
	char where[300], line[512];
	int id, i, ret = EXIT_OK;
	gzFile f;

	id = btf ? btf__find_by_name_kind(btf, ".kconfig", BTF_KIND_DATASEC) : -ENOENT;
	if (id < 0)
		return EXIT_OK;
	sec = btf__type_by_id(btf, id);
	f = kernel_config_open(where, sizeof(where));
	vs = btf_var_secinfos(sec);
	for (i = 0; i < btf_vlen(sec) && ret == EXIT_OK; i++, vs++) {
		option = btf__name_by_offset(btf, btf__type_by_id(btf, vs->type)->name_off);
		if (!f)
			ret = fail(EXIT_NOSUPPORT,
				   "%s reads %s from the kernel's configuration, which is not readable here (%s or /boot/config-*): enable CONFIG_IKCONFIG_PROC",
				   name, option, where);
		else if (!kernel_config_value(f, option, line, sizeof(line)))
			ret = fail(EXIT_NOSUPPORT, "%s needs %s, which %s does not set",
				   name, option, where);
	}
	if (f)
		gzclose(f);
	return ret;
}
