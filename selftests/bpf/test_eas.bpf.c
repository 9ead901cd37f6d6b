// SPDX-License-Identifier: GPL-2.0
/*
 * test_eas: a governor that keeps Energy Aware Scheduling on and answers
 * its questions, for the selftests.
 *
 * update() runs each CPU's policy at schedutil's level for that CPU alone;
 * effective_perf() gives EAS the same level and counts how often EAS asked,
 * in effective_perf_calls of the .bss map.
 */
#include <cpufreq_bpf.h>

char LICENSE[] SEC("license") = "GPL";

u64 effective_perf_calls;

SEC("struct_ops/update")
void BPF_PROG(test_eas_update, struct cpufreq_policy *policy, s32 cpu, u64 time, u32 flags)
{
	unsigned long min, max, util, cap;

	util = bpf_cpufreq_cpu_util_effective(cpu, &min, &max);
	cap = bpf_cpufreq_cpu_capacity(cpu) ?: SCHED_CAPACITY_SCALE;
	util = effective_cpu_perf(util, min, max);
	bpf_cpufreq_request(policy, map_util_freq(util, capacity_ref_freq(policy), cap));
}

SEC("struct_ops/effective_perf")
unsigned long BPF_PROG(test_eas_effective_perf, struct cpufreq_policy *policy, s32 cpu,
		       unsigned long actual, unsigned long min, unsigned long max)
{
	__sync_fetch_and_add(&effective_perf_calls, 1);
	return effective_cpu_perf(actual, min, max);
}

SEC(".struct_ops.link")
struct cpufreq_gov_ops test_eas_ops = {
	.update		= (void *)test_eas_update,
	.effective_perf	= (void *)test_eas_effective_perf,
	.flags		= CPUFREQ_GOV_OPS_EAS,
	.name		= "bpf_test_eas",
};
