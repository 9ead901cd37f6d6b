// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_step: the example governor of docs/writing-a-governor.md.
 *
 * Every sample period it looks at the busiest CPU of the policy and moves
 * one operating point at a time:
 *
 *	load above up_threshold   -> one OPP up
 *	load below down_threshold -> one OPP down
 *	otherwise                 -> stay
 *
 * where load is the CPU's CFS utilization relative to the capacity it has
 * at the current frequency, in percent (100 = busy all the time).
 *
 * It uses only the sample() op: no scheduler hook work, no state but the
 * tunables.  It steps between the driver's table entries within the
 * policy's limits, and the framework clamps every request to the limits
 * again, so scaling_min_freq and scaling_max_freq are respected; when they
 * change, the framework moves the frequency inside them by itself.
 */
#include <cpufreq_bpf.h>
#include <freq_table.h>

char LICENSE[] SEC("license") = "GPL";

#define UP_THRESHOLD_DEFAULT	80
#define DOWN_THRESHOLD_DEFAULT	30
#define SAMPLE_PERIOD_US	10000	/* 10 ms between decisions */

/* Tunables, one entry per policy; 0 means the default (see cpufreq_bpf.h). */
struct step_tunables {
	/* Load above which the frequency goes one step up. */
	u32 up_threshold __tunable_range(1, 100) __tunable_unit("%")
		__tunable_default(UP_THRESHOLD_DEFAULT);
	/* Load below which it goes one step down. */
	u32 down_threshold __tunable_range(1, 100) __tunable_unit("%")
		__tunable_default(DOWN_THRESHOLD_DEFAULT);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CPUFREQ_BPF_MAX_CPUS);
	__type(key, u32);
	__type(value, struct step_tunables);
} tunables SEC(".maps");

/* The highest load of the policy's CPUs, in percent of their current capacity. */
static u32 policy_load(struct cpufreq_policy *policy)
{
	u64 cur = policy->cur ?: 1, max_freq = policy->cpuinfo.max_freq;
	u32 cpu, load_max = 0;

	for_each_policy_cpu(cpu, policy) {
		u64 cap = bpf_cpufreq_cpu_capacity(cpu) ?: SCHED_CAPACITY_SCALE;
		u64 util = bpf_cpufreq_cpu_util_cfs(cpu);
		/*
		 * util is frequency invariant: relative to the CPU's capacity at
		 * max_freq.  Scale it to the capacity at the current frequency.
		 */
		u32 load = util * 100 * max_freq / (cap * cur);

		if (load > load_max)
			load_max = load;
	}
	return load_max;
}

/*
 * The operating points next to @cur within the policy's limits: *@up the
 * lowest above it, *@down the highest below it (@cur itself when there is
 * none), from include/freq_table.h's walk of the driver's table.
 */
static void neighbours(struct cpufreq_policy *policy, u32 cur, u32 *up, u32 *down)
{
	u32 lo, hi;

	*up = *down = cur;
	if (table_bounds(policy, cur + 1, false, &lo, &hi) && hi)
		*up = hi;
	if (cur && table_bounds(policy, cur - 1, false, &lo, &hi) && lo)
		*down = lo;
}

SEC("struct_ops/sample")
void BPF_PROG(step_sample, struct cpufreq_policy *policy)
{
	const struct step_tunables *t = policy_slot(&tunables, policy);
	u32 up, down, load, next_up, next_down, cur = policy->cur, target = cur;

	if (!t)
		return;
	/* Each field is checked where it is used: any bytes leave us working. */
	up = tunable_or(t->up_threshold, 1, 100, UP_THRESHOLD_DEFAULT);
	down = tunable_or(t->down_threshold, 1, 100, DOWN_THRESHOLD_DEFAULT);
	if (down >= up)
		down = up - 1;

	load = policy_load(policy);
	neighbours(policy, cur, &next_up, &next_down);
	if (load > up)
		target = next_up;
	else if (load < down)
		target = next_down;
	if (target != cur)
		bpf_cpufreq_request(policy, target);
}

SEC(".struct_ops.link")
struct cpufreq_gov_ops step_ops = {
	.sample		  = (void *)step_sample,
	.sample_period_us = SAMPLE_PERIOD_US,
	.name		  = "bpf_step",
};
