// SPDX-License-Identifier: GPL-2.0
/* Sets an op that cpufreq_gov_ops does not have: loading must fail. */
#include <cpufreq_bpf.h>

char LICENSE[] SEC("license") = "GPL";

struct cpufreq_gov_ops___unknown {
	void (*update)(struct cpufreq_policy *policy, s32 cpu, u64 time, u32 flags);
	void (*rebalance)(struct cpufreq_policy *policy);
	char name[16];
};

SEC("struct_ops/update")
void BPF_PROG(unknown_update, struct cpufreq_policy *policy, s32 cpu, u64 time, u32 flags)
{
}

SEC("struct_ops/rebalance")
void BPF_PROG(unknown_rebalance, struct cpufreq_policy *policy)
{
}

SEC(".struct_ops.link")
struct cpufreq_gov_ops___unknown bad_op_ops = {
	.update		= (void *)unknown_update,
	.rebalance	= (void *)unknown_rebalance,
	.name		= "bpf_bad_op",
};
