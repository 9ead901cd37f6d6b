// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_null: a governor whose update() does nothing, for the hot-path
 * benchmark: its cost per callback is the framework's share (hook,
 * struct_ops trampoline, stats), which bpf_schedutil's cost includes.
 */
#include <cpufreq_bpf.h>

char LICENSE[] SEC("license") = "GPL";

SEC("struct_ops/update")
void BPF_PROG(null_update, struct cpufreq_policy *policy, s32 cpu, u64 time, u32 flags)
{
}

SEC(".struct_ops.link")
struct cpufreq_gov_ops null_ops = {
	.update	= (void *)null_update,
	.name	= "bpf_null",
};
