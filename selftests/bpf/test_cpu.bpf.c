// SPDX-License-Identifier: GPL-2.0
/*
 * test_cpu: passes the CPU the tests choose to the scheduler-signal kfuncs,
 * from update() or from the sleepable start(), so that an invalid one can
 * come from either kind of op.  It never asks for a frequency.
 */
#include <cpufreq_bpf.h>

char LICENSE[] SEC("license") = "GPL";

enum { FROM_NOWHERE, FROM_UPDATE, FROM_START };

struct test_cpu_ctl {
	s32 cpu;	/* the CPU to pass */
	u32 from;	/* the op that passes it: FROM_* */
};

/* Written by the tests, in the .data map, before the governor starts. */
struct test_cpu_ctl ctl SEC(".data") = { .from = FROM_NOWHERE };

SEC("struct_ops.s/start")
int BPF_PROG(test_cpu_start, struct cpufreq_policy *policy)
{
	if (ctl.from == FROM_START)
		bpf_cpufreq_cpu_capacity(ctl.cpu);
	return 0;
}

SEC("struct_ops/update")
void BPF_PROG(test_cpu_update, struct cpufreq_policy *policy, s32 cpu, u64 time, u32 flags)
{
	bpf_cpufreq_cpu_util_cfs(ctl.from == FROM_UPDATE ? ctl.cpu : cpu);
}

SEC(".struct_ops.link")
struct cpufreq_gov_ops test_cpu_ops = {
	.start	= (void *)test_cpu_start,
	.update	= (void *)test_cpu_update,
	.name	= "bpf_test_cpu",
};
