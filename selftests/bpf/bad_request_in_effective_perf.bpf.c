// SPDX-License-Identifier: GPL-2.0
/*
 * Asks for a frequency from effective_perf(), which answers EAS about a
 * placement it may not make: the verifier must refuse the kfunc there.
 */
#include <cpufreq_bpf.h>

char LICENSE[] SEC("license") = "GPL";

SEC("struct_ops/update")
void BPF_PROG(bad_perf_update, struct cpufreq_policy *policy, s32 cpu, u64 time, u32 flags)
{
}

SEC("struct_ops/effective_perf")
unsigned long BPF_PROG(bad_perf_effective_perf, struct cpufreq_policy *policy, s32 cpu,
		       unsigned long actual, unsigned long min, unsigned long max)
{
	bpf_cpufreq_request(policy, policy->cpuinfo.max_freq);
	return max;
}

SEC(".struct_ops.link")
struct cpufreq_gov_ops bad_perf_ops = {
	.update		= (void *)bad_perf_update,
	.effective_perf	= (void *)bad_perf_effective_perf,
	.flags		= CPUFREQ_GOV_OPS_EAS,
	.name		= "bpf_bad_perf",
};
