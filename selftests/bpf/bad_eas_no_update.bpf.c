// SPDX-License-Identifier: GPL-2.0
/*
 * Claims to keep EAS with no update(): EAS would predict frequencies from
 * utilization this governor never gets.  Registration must fail.
 */
#include <cpufreq_bpf.h>

char LICENSE[] SEC("license") = "GPL";

SEC("struct_ops/sample")
void BPF_PROG(bad_eas_sample, struct cpufreq_policy *policy)
{
	bpf_cpufreq_request(policy, policy->cpuinfo.max_freq);
}

SEC(".struct_ops.link")
struct cpufreq_gov_ops bad_eas_ops = {
	.sample			= (void *)bad_eas_sample,
	.sample_period_us	= 10000,
	.flags			= CPUFREQ_GOV_OPS_EAS,
	.name			= "bpf_bad_eas",
};
