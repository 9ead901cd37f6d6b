// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_conserv: Linux 6.12's conservative governor (drivers/cpufreq/
 * cpufreq_conservative.c, on cpufreq_governor.c's dbs_update()) as a BPF
 * cpufreq governor.
 *
 * Every sampling_rate it measures the load of each CPU of the policy from
 * its idle time and takes the highest.  Above up_threshold the requested
 * frequency goes up by freq_step percent of the maximum; below
 * down_threshold, looked at only every sampling_down_factor samples, it
 * goes down by as much.  The policy runs at the table entry at or below
 * the requested frequency going up, at or above it going down, so that it
 * moves gracefully rather than jumping like ondemand.  After a long idle
 * the steps down it missed are taken at once.
 *
 * Mapping onto the framework: in-kernel, a scheduler update past the
 * sample delay queues the sample as irq_work, then work; here update()
 * does the same with bpf_cpufreq_sample_in(), and sample() runs at once
 * in hard irq on that CPU.  The sampling and the load computation,
 * dbs_update(), are in include/dbs.h, shared with bpf_ondemand.
 * Tunables are per policy (see docs/governors.md).
 */
#include <dbs.h>

char LICENSE[] SEC("license") = "GPL";

#define DEF_FREQUENCY_UP_THRESHOLD	80
#define DEF_FREQUENCY_DOWN_THRESHOLD	20
#define DEF_FREQUENCY_STEP		5
#define DEF_SAMPLING_DOWN_FACTOR	1
#define MAX_SAMPLING_DOWN_FACTOR	10

/* Tunables, per policy (sysfs: cpufreq/conservative/ or policyN/conservative/). */
struct conservative_tunables {
	/* Time between two load samples; 0 is max(2 ticks, transition delay). */
	u32 sampling_rate DBS_SAMPLING_RATE_TAGS;
	/* Load above which the frequency goes one step up. */
	u32 up_threshold __tunable_range(1, 100) __tunable_unit("%")
		__tunable_default(DEF_FREQUENCY_UP_THRESHOLD);
	/* Load below which it goes one step down; below up_threshold. */
	u32 down_threshold __tunable_range(1, 100) __tunable_unit("%")
		__tunable_default(DEF_FREQUENCY_DOWN_THRESHOLD);
	/* Samples between two looks at down_threshold. */
	u32 sampling_down_factor __tunable_range(1, 10) __tunable_default(DEF_SAMPLING_DOWN_FACTOR);
	/* 1: time spent in niced tasks counts as idle. */
	u32 ignore_nice_load __tunable_range(0, 1) __tunable_default(0);
	/* 1: time waiting for I/O counts as busy (in-kernel: always 0). */
	u32 io_is_busy __tunable_range(0, 1) __tunable_default(0);
	/* One step, in percent of the policy's maximum. */
	u32 freq_step __tunable_range(1, 100) __tunable_unit("%")
		__tunable_default(DEF_FREQUENCY_STEP);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CPUFREQ_BPF_MAX_CPUS);
	__type(key, u32);
	__type(value, struct conservative_tunables);
} tunables SEC(".maps");

/* Per-policy state: cs_policy_dbs_info. */
struct cs_policy {
	struct dbs_policy dbs;
	u32 requested_freq;	/* kHz, between table entries */
	u32 down_skip;		/* samples since down_threshold was looked at */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CPUFREQ_BPF_MAX_CPUS);
	__type(key, u32);
	__type(value, struct cs_policy);
} cs_policies SEC(".maps");

/*
 * The two thresholds.  The sysfs stores refuse a pair with down_threshold
 * at or above up_threshold; a map takes any bytes, and such a pair would
 * step up and down in turn, so it gives way to both defaults.
 */
static void thresholds(const struct conservative_tunables *t, u32 *up, u32 *down)
{
	*up = tunable_or(t->up_threshold, 1, 100, DEF_FREQUENCY_UP_THRESHOLD);
	*down = tunable_or(t->down_threshold, 1, 100, DEF_FREQUENCY_DOWN_THRESHOLD);
	if (*down >= *up) {
		*up = DEF_FREQUENCY_UP_THRESHOLD;
		*down = DEF_FREQUENCY_DOWN_THRESHOLD;
	}
}

static u32 sampling_down_factor(const struct conservative_tunables *t)
{
	return tunable_or(t->sampling_down_factor, 1, MAX_SAMPLING_DOWN_FACTOR,
			  DEF_SAMPLING_DOWN_FACTOR);
}

/*
 * get_freq_step(): freq_step percent of the policy's maximum.  In-kernel
 * freq_step 0 freezes the frequency; here 0 is the default, like every
 * tunable's 0, and the lowest step is 1%.
 */
static u32 get_freq_step(const struct conservative_tunables *t, struct cpufreq_policy *policy)
{
	u32 freq_step = tunable_clamp(t->freq_step, 100, DEF_FREQUENCY_STEP) * policy->max / 100;

	/* max freq cannot be less than 100. But who knows... */
	return freq_step ?: DEF_FREQUENCY_STEP;
}

/* @freq less @steps kHz, not below the policy's minimum. */
static u32 freq_down(struct cpufreq_policy *policy, u32 freq, u64 steps)
{
	return freq > policy->min + steps ? freq - steps : policy->min;
}

/* cs_dbs_update(). */
static void cs_dbs_update(struct cpufreq_policy *policy, struct cs_policy *cs,
			  const struct conservative_tunables *t, u32 rate)
{
	u32 requested_freq = cs->requested_freq, freq_step, up, down;
	struct dbs_sample s = dbs_update(policy, t->io_is_busy,
					 t->ignore_nice_load, rate);

	thresholds(t, &up, &down);

	/* Out of the limits: they changed meanwhile, start from cur. */
	if (requested_freq > policy->max || requested_freq < policy->min) {
		requested_freq = policy->cur;
		cs->requested_freq = requested_freq;
	}

	freq_step = get_freq_step(t, policy);

	/*
	 * The down steps missed over a long idle, taken only when the load
	 * measured is below down_threshold: otherwise they would lower the
	 * frequency outside the region where it goes down.
	 */
	if (s.max_sample_load < down && s.idle_periods < ~0U)
		requested_freq = freq_down(policy, requested_freq, (u64)s.idle_periods * freq_step);

	if (s.load > up) {
		cs->down_skip = 0;
		requested_freq += freq_step;
		if (requested_freq > policy->max)
			requested_freq = policy->max;
		driver_target(policy, requested_freq, CPUFREQ_RELATION_H | CPUFREQ_RELATION_E);
		cs->requested_freq = requested_freq;
		return;
	}

	/* Look at down_threshold only every sampling_down_factor samples. */
	if (++cs->down_skip < sampling_down_factor(t))
		return;
	cs->down_skip = 0;

	if (s.load < down) {
		requested_freq = freq_down(policy, requested_freq, freq_step);
		driver_target(policy, requested_freq, CPUFREQ_RELATION_L | CPUFREQ_RELATION_E);
		cs->requested_freq = requested_freq;
	}
}

SEC("struct_ops/sample")
void BPF_PROG(cs_sample, struct cpufreq_policy *policy)
{
	struct cs_policy *cs = policy_slot(&cs_policies, policy);
	const struct conservative_tunables *t = policy_slot(&tunables, policy);
	u32 rate;

	if (!cs || !t)
		return;
	rate = dbs_sampling_rate(policy, t->sampling_rate);
	cs_dbs_update(policy, cs, t, rate);
	dbs_set_sample_delay(&cs->dbs, rate);
}

SEC("struct_ops/update")
void BPF_PROG(cs_update_util, struct cpufreq_policy *policy, s32 cpu, u64 time, u32 flags)
{
	struct cs_policy *cs = policy_slot(&cs_policies, policy);
	const struct conservative_tunables *t = policy_slot(&tunables, policy);

	if (cs && t)
		dbs_update_util(policy, &cs->dbs, time, t->sampling_rate);
}

SEC("struct_ops.s/start")
int BPF_PROG(cs_start, struct cpufreq_policy *policy)
{
	struct cs_policy *cs = policy_slot(&cs_policies, policy);
	const struct conservative_tunables *t = policy_slot(&tunables, policy);

	if (!cs || !t)
		return POLICY_OUT_OF_RANGE;

	cs->down_skip = 0;
	cs->requested_freq = policy->cur;
	dbs_start(policy, &cs->dbs, t->io_is_busy, t->ignore_nice_load);
	return 0;
}

SEC("struct_ops.s/limits")
void BPF_PROG(cs_limits, struct cpufreq_policy *policy)
{
	struct cs_policy *cs = policy_slot(&cs_policies, policy);
	u32 cur = policy->cur;

	/*
	 * cs_limits(): steps start again from the current frequency, which
	 * the framework moves within the new limits after this op.  A sample
	 * running at the same time may store an older value over it; when
	 * that is outside the limits, the next sample starts from cur.
	 */
	if (cs) {
		if (cur > policy->max)
			cur = policy->max;
		if (cur < policy->min)
			cur = policy->min;
		cs->requested_freq = cur;
	}
	bpf_cpufreq_sample_in(policy, 0);
}

SEC(".struct_ops.link")
struct cpufreq_gov_ops conservative_ops = {
	.start		= (void *)cs_start,
	.limits		= (void *)cs_limits,
	.update		= (void *)cs_update_util,
	.sample		= (void *)cs_sample,
	.name		= "bpf_conserv",
};
