// SPDX-License-Identifier: GPL-2.0
/*
 * Hands a performance level to the driver from sample(): the driver
 * programs the CPU of an update, so the verifier must refuse the kfunc
 * anywhere but in update().
 */
#include <cpufreq_bpf.h>

char LICENSE[] SEC("license") = "GPL";

SEC("struct_ops/sample")
void BPF_PROG(bad_adjust_perf_sample, struct cpufreq_policy *policy)
{
	bpf_cpufreq_adjust_perf(policy, policy->cpu, 0, SCHED_CAPACITY_SCALE,
				SCHED_CAPACITY_SCALE);
}

SEC(".struct_ops.link")
struct cpufreq_gov_ops bad_adjust_perf_ops = {
	.sample			= (void *)bad_adjust_perf_sample,
	.sample_period_us	= 10000,
	.name			= "bpf_bad_adjust",
};
