// SPDX-License-Identifier: GPL-2.0
/* A program of another type calls a governor kfunc: it must be refused. */
#include <cpufreq_bpf.h>

char LICENSE[] SEC("license") = "GPL";

SEC("syscall")
int read_util(void *ctx)
{
	return bpf_cpufreq_cpu_util_cfs(0);
}
