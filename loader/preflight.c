// SPDX-License-Identifier: GPL-2.0
/* cpufreq-bpf: what every command needs of the running kernel, checked first. */
#include <errno.h>
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
