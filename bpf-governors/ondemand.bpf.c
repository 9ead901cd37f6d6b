// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_ondemand: Linux 6.12's ondemand governor (drivers/cpufreq/
 * cpufreq_ondemand.c, on cpufreq_governor.c's dbs_update()) as a BPF
 * cpufreq governor.
 *
 * Every sampling_rate it measures the load of each CPU of the policy from
 * its idle time and takes the highest.  Above up_threshold the policy goes
 * to its maximum, and the next sample waits sampling_down_factor periods;
 * otherwise it runs at the frequency proportional to the load between the
 * CPU's lowest and highest, the closest table entry.  powersave_bias
 * lowers every choice by that many per mille, and runs a target between two
 * table entries as the mix of both that averages to it over a period.
 *
 * Mapping onto the framework: in-kernel, a scheduler update past the
 * sample delay queues the sample as irq_work, then work; here update()
 * does the same with bpf_cpufreq_sample_in(), and sample() runs at once
 * in hard irq on that CPU.  The sampling and the load computation,
 * dbs_update(), are in include/dbs.h, shared with bpf_conserv.
 * Tunables are per policy (see docs/governors.md).
 */
#include <dbs.h>

char LICENSE[] SEC("license") = "GPL";

/*
 * In-kernel, up_threshold is 95 where idle time is measured in
 * microseconds (NO_HZ, as bpf_cpufreq_cpu_idle_time_us()), 80 otherwise.
 */
#define DEF_FREQUENCY_UP_THRESHOLD	95
#define DEF_SAMPLING_DOWN_FACTOR	1
#define MAX_SAMPLING_DOWN_FACTOR	100000

/* Tunables, per policy (sysfs: cpufreq/ondemand/ or policyN/ondemand/). */
struct ondemand_tunables {
	/* Time between two load samples; 0 is max(2 ticks, transition delay). */
	u32 sampling_rate DBS_SAMPLING_RATE_TAGS;
	/* Load above which the policy goes to its maximum. */
	u32 up_threshold __tunable_range(1, 100) __tunable_unit("%")
		__tunable_default(DEF_FREQUENCY_UP_THRESHOLD);
	/* Sampling periods between samples while at the maximum. */
	u32 sampling_down_factor __tunable_range(1, 100000)
		__tunable_default(DEF_SAMPLING_DOWN_FACTOR);
	/* 1: time spent in niced tasks counts as idle. */
	u32 ignore_nice_load __tunable_range(0, 1) __tunable_default(0);
	/* 1: time waiting for I/O counts as busy (in-kernel: 1 on Intel CPUs). */
	u32 io_is_busy __tunable_range(0, 1) __tunable_default(0);
	/* Per mille to take off every target frequency. */
	u32 powersave_bias __tunable_range(1, 1000) __tunable_unit("permille") __tunable_default(0);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CPUFREQ_BPF_MAX_CPUS);
	__type(key, u32);
	__type(value, struct ondemand_tunables);
} tunables SEC(".maps");

/* Per-policy state: policy_dbs_info and od_policy_dbs_info. */
struct od_policy {
	struct dbs_policy dbs;
	u32 rate_mult;		/* sampling periods until the next sample */
	u32 sub_sample;		/* the next sample switches to freq_lo */
	u32 freq_lo;		/* powersave_bias: the entry below the target, or 0 */
	u32 freq_lo_delay_us;
	u32 freq_hi_delay_us;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CPUFREQ_BPF_MAX_CPUS);
	__type(key, u32);
	__type(value, struct od_policy);
} od_policies SEC(".maps");

static u32 up_threshold(const struct ondemand_tunables *t)
{
	return tunable_or(t->up_threshold, 1, 100, DEF_FREQUENCY_UP_THRESHOLD);
}

static u32 sampling_down_factor(const struct ondemand_tunables *t)
{
	return tunable_or(t->sampling_down_factor, 1, MAX_SAMPLING_DOWN_FACTOR,
			  DEF_SAMPLING_DOWN_FACTOR);
}

static u32 powersave_bias(const struct ondemand_tunables *t)
{
	return tunable_clamp(t->powersave_bias, 1000, 0);
}

/*
 * generic_powersave_bias_target(): the table entry for @freq_next lowered
 * by powersave_bias per mille.  When that falls between two entries, the higher one
 * is returned for now and the lower one (od->freq_lo) is due after
 * freq_hi_delay_us, for the rest of the period, so that the two average to
 * the lowered frequency.
 */
static u32 powersave_bias_target(struct cpufreq_policy *policy, struct od_policy *od,
				 const struct ondemand_tunables *t, u32 freq_next, u32 relation)
{
	u32 rate = dbs_sampling_rate(policy, t->sampling_rate), bias = powersave_bias(t);
	u32 freq_req, freq_avg, freq_lo, freq_hi, delay_hi_us;

	freq_req = table_freq(policy, freq_next, relation);
	freq_avg = freq_req - (u64)freq_req * bias / 1000;
	if (!table_bounds(policy, freq_avg, relation & CPUFREQ_RELATION_E, &freq_lo, &freq_hi)) {
		od->freq_lo = 0;
		return freq_next;
	}
	/* Outside the limits, the nearest entry within them, as the kernel's lookups. */
	freq_lo = freq_lo ?: freq_hi;
	freq_hi = freq_hi ?: freq_lo;
	if (freq_hi == freq_lo) {
		od->freq_lo = 0;
		return freq_lo;
	}
	delay_hi_us = ((u64)(freq_avg - freq_lo) * rate + (freq_hi - freq_lo) / 2) /
		      (freq_hi - freq_lo);
	od->freq_hi_delay_us = delay_hi_us;
	od->freq_lo = freq_lo;
	od->freq_lo_delay_us = rate - delay_hi_us;
	return freq_hi;
}

static void dbs_freq_increase(struct cpufreq_policy *policy, struct od_policy *od,
			      const struct ondemand_tunables *t, u32 freq)
{
	u32 bias = powersave_bias(t);

	if (bias)
		freq = powersave_bias_target(policy, od, t, freq,
					     CPUFREQ_RELATION_H | CPUFREQ_RELATION_E);
	else if (policy->cur == policy->max)
		return;

	driver_target(policy, freq, (bias ? CPUFREQ_RELATION_L : CPUFREQ_RELATION_H) |
		      CPUFREQ_RELATION_E);
}

/*
 * od_update(): above up_threshold to the maximum, else proportionally to
 * the load between cpuinfo.min_freq and cpuinfo.max_freq.
 */
static void od_update(struct cpufreq_policy *policy, struct od_policy *od,
		      const struct ondemand_tunables *t, u32 rate)
{
	struct dbs_sample s = dbs_update(policy, t->io_is_busy,
					 t->ignore_nice_load, (u64)rate * od->rate_mult);

	od->freq_lo = 0;

	if (s.load > up_threshold(t)) {
		/* Switching to the maximum: stay there sampling_down_factor periods. */
		if (policy->cur < policy->max)
			od->rate_mult = sampling_down_factor(t);
		dbs_freq_increase(policy, od, t, policy->max);
	} else {
		u32 min_f = policy->cpuinfo.min_freq, max_f = policy->cpuinfo.max_freq;
		u32 freq_next = min_f + (u64)s.load * (max_f - min_f) / 100;

		/* No longer fully busy. */
		od->rate_mult = 1;
		if (powersave_bias(t))
			freq_next = powersave_bias_target(policy, od, t, freq_next,
							  CPUFREQ_RELATION_L |
							  CPUFREQ_RELATION_E);
		driver_target(policy, freq_next, CPUFREQ_RELATION_C | CPUFREQ_RELATION_E);
	}
}

/* od_dbs_update(): a sample, or powersave_bias's switch to freq_lo. */
SEC("struct_ops/sample")
void BPF_PROG(od_sample, struct cpufreq_policy *policy)
{
	struct od_policy *od = policy_slot(&od_policies, policy);
	const struct ondemand_tunables *t = policy_slot(&tunables, policy);
	u32 rate;

	if (!od || !t)
		return;
	rate = dbs_sampling_rate(policy, t->sampling_rate);
	/* A lowered sampling_down_factor applies at once, as its sysfs store. */
	if (od->rate_mult > sampling_down_factor(t))
		od->rate_mult = 1;

	/* powersave_bias turned off meanwhile cancels the switch to freq_lo. */
	if (od->sub_sample && od->freq_lo && powersave_bias(t)) {
		od->sub_sample = 0;
		driver_target(policy, od->freq_lo, CPUFREQ_RELATION_H | CPUFREQ_RELATION_E);
		dbs_set_sample_delay(&od->dbs, od->freq_lo_delay_us);
		return;
	}
	od->sub_sample = 0;

	od_update(policy, od, t, rate);

	if (od->freq_lo) {
		od->sub_sample = 1;
		dbs_set_sample_delay(&od->dbs, od->freq_hi_delay_us);
		return;
	}
	dbs_set_sample_delay(&od->dbs, (u64)rate * od->rate_mult);
}

SEC("struct_ops/update")
void BPF_PROG(od_update_util, struct cpufreq_policy *policy, s32 cpu, u64 time, u32 flags)
{
	struct od_policy *od = policy_slot(&od_policies, policy);
	const struct ondemand_tunables *t = policy_slot(&tunables, policy);

	if (od && t)
		dbs_update_util(policy, &od->dbs, time, t->sampling_rate);
}

SEC("struct_ops.s/start")
int BPF_PROG(od_start, struct cpufreq_policy *policy)
{
	struct od_policy *od = policy_slot(&od_policies, policy);
	const struct ondemand_tunables *t = policy_slot(&tunables, policy);

	if (!od || !t)
		return POLICY_OUT_OF_RANGE;

	od->rate_mult = 1;
	od->sub_sample = 0;
	od->freq_lo = 0;
	dbs_start(policy, &od->dbs, t->io_is_busy, t->ignore_nice_load);
	return 0;
}

SEC("struct_ops.s/limits")
void BPF_PROG(od_limits, struct cpufreq_policy *policy)
{
	struct od_policy *od = policy_slot(&od_policies, policy);

	/*
	 * cpufreq_dbs_governor_limits(): sample at once, a full sample even if
	 * a switch to freq_lo was due.  Making no request here, the framework
	 * moves cur within the limits itself, as cpufreq_policy_apply_limits().
	 */
	if (od)
		od->sub_sample = 0;
	bpf_cpufreq_sample_in(policy, 0);
}

SEC(".struct_ops.link")
struct cpufreq_gov_ops ondemand_ops = {
	.start		= (void *)od_start,
	.limits		= (void *)od_limits,
	.update		= (void *)od_update_util,
	.sample		= (void *)od_sample,
	.name		= "bpf_ondemand",
};
