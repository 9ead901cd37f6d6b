// SPDX-License-Identifier: GPL-2.0
/* Calls a sleepable kfunc from update(): the verifier must refuse it. */
#include <cpufreq_bpf.h>

char LICENSE[] SEC("license") = "GPL";

SEC("struct_ops/update")
void BPF_PROG(bad_update, struct cpufreq_policy *policy, s32 cpu, u64 time, u32 flags)
{
	bpf_cpufreq_flush(policy);
}

SEC(".struct_ops.link")
struct cpufreq_gov_ops bad_sleep_ops = {
	.update	= (void *)bad_update,
	.name	= "bpf_bad_sleep",
};
