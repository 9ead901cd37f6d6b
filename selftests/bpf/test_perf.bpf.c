// SPDX-License-Identifier: GPL-2.0
/*
 * test_perf: a governor that asks for a fixed performance level, for
 * the selftests of bpf_cpufreq_adjust_perf().
 *
 * update() asks for target_perf (in .data, out of the CPU's capacity) and
 * records what the kfunc answered for the CPU (adjust_ret, in .bss), and
 * for CPU ^ 1 (other_cpu_ret), outside a policy of one CPU.
 * Where the policy takes frequencies only, it requests nothing else.
 */
#include <cpufreq_bpf.h>

char LICENSE[] SEC("license") = "GPL";

#define NR_TEST_CPUS	8

unsigned long target_perf = SCHED_CAPACITY_SCALE;
s32 adjust_ret[NR_TEST_CPUS];
s32 other_cpu_ret[NR_TEST_CPUS];

SEC("struct_ops/update")
void BPF_PROG(test_perf_update, struct cpufreq_policy *policy, s32 cpu, u64 time,
	      u32 flags)
{
	unsigned long cap = bpf_cpufreq_cpu_capacity(cpu);
	u32 slot = cpu & (NR_TEST_CPUS - 1);

	if (cpu < 0 || cpu >= NR_TEST_CPUS)
		return;
	adjust_ret[slot] = bpf_cpufreq_adjust_perf(policy, cpu, 0, target_perf, cap);
	other_cpu_ret[slot] = bpf_cpufreq_adjust_perf(policy, cpu ^ 1, 0, target_perf, cap);
}

SEC(".struct_ops.link")
struct cpufreq_gov_ops test_perf_ops = {
	.update	= (void *)test_perf_update,
	.name	= "bpf_test_perf",
};
