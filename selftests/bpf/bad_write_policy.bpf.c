// SPDX-License-Identifier: GPL-2.0
/* Writes into the policy: the verifier must refuse it. */
#include <cpufreq_bpf.h>

char LICENSE[] SEC("license") = "GPL";

SEC("struct_ops/update")
void BPF_PROG(bad_update, struct cpufreq_policy *policy, s32 cpu, u64 time, u32 flags)
{
	policy->cur = policy->cpuinfo.max_freq;
}

SEC(".struct_ops.link")
struct cpufreq_gov_ops bad_write_ops = {
	.update	= (void *)bad_update,
	.name	= "bpf_bad_write",
};
