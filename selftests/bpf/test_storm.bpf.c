// SPDX-License-Identifier: GPL-2.0
/*
 * Asks for its next sample() at once, from start() and from every sample():
 * the framework must still run sample() at most once a millisecond.
 */
#include <cpufreq_bpf.h>

char LICENSE[] SEC("license") = "GPL";

SEC("struct_ops.s/start")
int BPF_PROG(storm_start, struct cpufreq_policy *policy)
{
	bpf_cpufreq_sample_in(policy, 0);
	return 0;
}

SEC("struct_ops/sample")
void BPF_PROG(storm_sample, struct cpufreq_policy *policy)
{
	bpf_cpufreq_sample_in(policy, 0);
}

SEC(".struct_ops.link")
struct cpufreq_gov_ops storm_ops = {
	.start	= (void *)storm_start,
	.sample	= (void *)storm_sample,
	.name	= "bpf_storm",
};
