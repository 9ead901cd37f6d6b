// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_schedutil: Linux 6.12's schedutil governor as a BPF cpufreq governor.
 *
 * Each CPU's performance level is its effective utilization (CFS boosted by
 * runnable time, RT, DL and irq, clamped by uclamp) plus 25% headroom, or an
 * I/O-wait boost when that is higher; a policy runs at the highest level of
 * its CPUs, mapped linearly onto the frequency range:
 *
 *	next_freq = 1.25 * ref * util / capacity
 *
 * with ref the top frequency when utilization is frequency invariant, the
 * current one otherwise.  Changes are rate-limited by rate_limit_us, except
 * after a limits change or a rise in deadline bandwidth.  The kfuncs give
 * the same signals schedutil reads; the framework does the fast or deferred
 * switch and drops requests equal to the last one.  Where the driver takes
 * performance levels (HWP, CPPC: bpf_cpufreq_perf_possible()) on a policy
 * of one CPU, the level itself goes to the driver, as schedutil does.
 *
 * Like schedutil it keeps Energy Aware Scheduling on (CPUFREQ_GOV_OPS_EAS):
 * its frequencies are the ones EAS predicts from utilization, and with no
 * effective_perf() of its own EAS uses schedutil's estimate, which is its.
 */
#include <gov_common.h>

char LICENSE[] SEC("license") = "GPL";

/* Tunables, per policy (sysfs: cpufreq/policyN/schedutil/). */
struct schedutil_tunables {
	/* Minimum time between two frequency changes. */
	u32 rate_limit_us __tunable_range(1, TUNABLE_TIME_MAX_US) __tunable_unit("us")
		__tunable_default_is("the driver's transition delay");
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CPUFREQ_BPF_MAX_CPUS);
	__type(key, u32);
	__type(value, struct schedutil_tunables);
} tunables SEC(".maps");

#define IOWAIT_BOOST_MIN	(SCHED_CAPACITY_SCALE / 8)

/* Per-policy state: struct sugov_policy in-kernel. */
struct bsg_policy {
	GOV_EXCL;
	u64 last_freq_update_time;
	u32 next_freq;
	u32 cached_raw_freq;
	u64 limits_changed;	/* exchanged atomically: BPF's are 64-bit before v3 */
	u32 need_freq_update;
	u32 transition_delay_us;	/* the driver's, read once at start */
	u32 adjust_perf;		/* levels, not frequencies: decided at start */
};

/* Per-CPU state: struct sugov_cpu in-kernel. */
struct bsg_cpu {
	u64 last_update;
	u64 util;
	u64 bw_min;
	u64 saved_idle_calls;
	u32 iowait_boost;
	u32 iowait_boost_pending;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CPUFREQ_BPF_MAX_CPUS);
	__type(key, u32);
	__type(value, struct bsg_policy);
} sg_policies SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CPUFREQ_BPF_MAX_CPUS);
	__type(key, u32);
	__type(value, struct bsg_cpu);
} sg_cpus SEC(".maps");

/* The rate limit in force: the tunable, or the driver's transition delay. */
static u64 sugov_rate_limit_ns(struct cpufreq_policy *policy, struct bsg_policy *sg_policy)
{
	struct schedutil_tunables *t = policy_slot(&tunables, policy);

	return (u64)tunable_or(t ? t->rate_limit_us : 0, 1, TUNABLE_TIME_MAX_US,
			       sg_policy->transition_delay_us) * NSEC_PER_USEC;
}

static bool sugov_should_update_freq(struct cpufreq_policy *policy,
				     struct bsg_policy *sg_policy, u64 time)
{
	/*
	 * Read and cleared in one exchange, a full barrier (6.12.118's
	 * smp_mb()): the limits resolve_freq reads after it are at least as
	 * new as those of the limits() call that set it.
	 */
	if (sg_policy->limits_changed &&
	    __sync_lock_test_and_set(&sg_policy->limits_changed, 0)) {
		sg_policy->need_freq_update = 1;
		return true;
	}
	/* The rq clocks of two CPUs may disagree: a "negative" delta is 0. */
	return (s64)(time - sg_policy->last_freq_update_time) >=
	       (s64)sugov_rate_limit_ns(policy, sg_policy);
}

static bool sugov_update_next_freq(struct bsg_policy *sg_policy, u64 time,
				   u32 next_freq)
{
	/*
	 * After a limits change the same frequency may need resending; the
	 * framework forgets its last request on a limits change, so no
	 * request is needed here to re-clamp it.
	 */
	if (sg_policy->need_freq_update)
		sg_policy->need_freq_update = 0;
	if (sg_policy->next_freq == next_freq)
		return false;

	sg_policy->next_freq = next_freq;
	sg_policy->last_freq_update_time = time;
	return true;
}

static u32 get_next_freq(struct cpufreq_policy *policy, struct bsg_policy *sg_policy,
			 unsigned long util, unsigned long max)
{
	u32 freq = map_util_freq(util, capacity_ref_freq(policy), max ?: 1);

	if (freq == sg_policy->cached_raw_freq && !sg_policy->need_freq_update)
		return sg_policy->next_freq;

	sg_policy->cached_raw_freq = freq;
	return bpf_cpufreq_resolve_freq(policy, freq);
}

static void sugov_get_util(struct bsg_cpu *sg_cpu, s32 cpu, unsigned long boost)
{
	unsigned long min = 0, max = 0;
	unsigned long util = bpf_cpufreq_cpu_util_effective(cpu, &min, &max);

	if (boost > util)
		util = boost;
	sg_cpu->bw_min = min;
	sg_cpu->util = effective_cpu_perf(util, min, max);
}

/* Drops the I/O boost of a CPU that has not asked for it for over a tick. */
static bool sugov_iowait_reset(struct bsg_cpu *sg_cpu, u64 time, bool set_iowait_boost)
{
	if ((s64)(time - sg_cpu->last_update) <= (s64)TICK_NSEC)
		return false;

	sg_cpu->iowait_boost = set_iowait_boost ? IOWAIT_BOOST_MIN : 0;
	sg_cpu->iowait_boost_pending = set_iowait_boost;
	return true;
}

/*
 * A task woke up from I/O: the boost starts at IOWAIT_BOOST_MIN and doubles
 * on each such wakeup, up to full capacity, while they come often enough.
 */
static void sugov_iowait_boost(struct bsg_cpu *sg_cpu, u64 time, u32 flags)
{
	bool set_iowait_boost = flags & SCHED_CPUFREQ_IOWAIT;

	if (sg_cpu->iowait_boost && sugov_iowait_reset(sg_cpu, time, set_iowait_boost))
		return;
	if (!set_iowait_boost)
		return;
	/* One doubling per request that sugov_iowait_apply() consumed. */
	if (sg_cpu->iowait_boost_pending)
		return;
	sg_cpu->iowait_boost_pending = 1;

	if (sg_cpu->iowait_boost) {
		sg_cpu->iowait_boost <<= 1;
		if (sg_cpu->iowait_boost > SCHED_CAPACITY_SCALE)
			sg_cpu->iowait_boost = SCHED_CAPACITY_SCALE;
		return;
	}
	sg_cpu->iowait_boost = IOWAIT_BOOST_MIN;
}

/* The boost to apply now, in capacity units; halves it when not renewed. */
static unsigned long sugov_iowait_apply(struct bsg_cpu *sg_cpu, u64 time,
					unsigned long max_cap)
{
	if (!sg_cpu->iowait_boost)
		return 0;
	if (sugov_iowait_reset(sg_cpu, time, false))
		return 0;

	if (!sg_cpu->iowait_boost_pending) {
		sg_cpu->iowait_boost >>= 1;
		if (sg_cpu->iowait_boost < IOWAIT_BOOST_MIN) {
			sg_cpu->iowait_boost = 0;
			return 0;
		}
	}
	sg_cpu->iowait_boost_pending = 0;
	return (sg_cpu->iowait_boost * max_cap) >> SCHED_CAPACITY_SHIFT;
}

/*
 * Keep the frequency of a CPU that has not been idle since the last update:
 * a drop would likely be premature.  Not when uclamp.max caps it.
 */
static bool sugov_hold_freq(struct bsg_cpu *sg_cpu, s32 cpu)
{
	unsigned long idle_calls;
	bool ret;

	if (bpf_cpufreq_cpu_uclamp_capped(cpu))
		return false;

	idle_calls = bpf_cpufreq_cpu_nohz_idle_calls(cpu);
	ret = idle_calls == sg_cpu->saved_idle_calls;
	sg_cpu->saved_idle_calls = idle_calls;
	return ret;
}

/* New DL bandwidth must be served at once: bypass the rate limit. */
static void ignore_dl_rate_limit(struct bsg_policy *sg_policy, struct bsg_cpu *sg_cpu,
				 s32 cpu)
{
	if (bpf_cpufreq_cpu_bw_dl(cpu) > sg_cpu->bw_min)
		sg_policy->limits_changed = 1;
}

/* Inlined: BPF passes at most five arguments, and this takes seven. */
static __always_inline bool
sugov_update_single_common(struct cpufreq_policy *policy, struct bsg_policy *sg_policy,
			   struct bsg_cpu *sg_cpu, s32 cpu, u64 time,
			   unsigned long max_cap, u32 flags)
{
	sugov_iowait_boost(sg_cpu, time, flags);
	sg_cpu->last_update = time;

	ignore_dl_rate_limit(sg_policy, sg_cpu, cpu);

	if (!sugov_should_update_freq(policy, sg_policy, time))
		return false;

	sugov_get_util(sg_cpu, cpu, sugov_iowait_apply(sg_cpu, time, max_cap));
	return true;
}

static __always_inline void
sugov_update_single_freq(struct cpufreq_policy *policy, struct bsg_policy *sg_policy,
			 struct bsg_cpu *sg_cpu, s32 cpu, u64 time, u32 flags)
{
	u32 cached_freq = sg_policy->cached_raw_freq;
	unsigned long max_cap = bpf_cpufreq_cpu_capacity(cpu);
	u32 next_f;

	if (!sugov_update_single_common(policy, sg_policy, sg_cpu, cpu, time, max_cap, flags))
		return;

	next_f = get_next_freq(policy, sg_policy, sg_cpu->util, max_cap);

	if (sugov_hold_freq(sg_cpu, cpu) && next_f < sg_policy->next_freq &&
	    !sg_policy->need_freq_update) {
		next_f = sg_policy->next_freq;
		/* next_f no longer comes from the cached raw frequency. */
		sg_policy->cached_raw_freq = cached_freq;
	}

	if (sugov_update_next_freq(sg_policy, time, next_f))
		bpf_cpufreq_request(policy, next_f);
}

/*
 * A policy of one CPU whose driver takes performance levels: the level
 * goes to the driver, which picks the frequency.
 */
static __always_inline void
sugov_update_single_perf(struct cpufreq_policy *policy, struct bsg_policy *sg_policy,
			 struct bsg_cpu *sg_cpu, s32 cpu, u64 time, u32 flags)
{
	unsigned long prev_util = sg_cpu->util;
	unsigned long max_cap;

	/*
	 * Without frequency invariance utilization does not map onto
	 * performance levels: take the frequency path.
	 */
	if (!bpf_cpufreq_freq_invariant()) {
		sugov_update_single_freq(policy, sg_policy, sg_cpu, cpu, time, flags);
		return;
	}

	max_cap = bpf_cpufreq_cpu_capacity(cpu);

	if (!sugov_update_single_common(policy, sg_policy, sg_cpu, cpu, time, max_cap, flags))
		return;

	if (sugov_hold_freq(sg_cpu, cpu) && sg_cpu->util < prev_util)
		sg_cpu->util = prev_util;

	bpf_cpufreq_adjust_perf(policy, cpu, sg_cpu->bw_min, sg_cpu->util, max_cap);

	sg_policy->last_freq_update_time = time;
}

/* The highest performance level among the CPUs of a shared policy. */
static u32 sugov_next_freq_shared(struct cpufreq_policy *policy,
				  struct bsg_policy *sg_policy, s32 cpu, u64 time)
{
	unsigned long util = 0, max_cap = bpf_cpufreq_cpu_capacity(cpu);
	u32 j;

	for_each_policy_cpu(j, policy) {
		struct bsg_cpu *j_sg_cpu = cpu_slot(&sg_cpus, j);

		if (!j_sg_cpu)
			continue;
		sugov_get_util(j_sg_cpu, j, sugov_iowait_apply(j_sg_cpu, time, max_cap));
		if (j_sg_cpu->util > util)
			util = j_sg_cpu->util;
	}
	return get_next_freq(policy, sg_policy, util, max_cap);
}

/*
 * The kernel takes the policy's lock for all of it.  Here a CPU that finds
 * another evaluating has it evaluate again (gov_enter_or_rerun()), which
 * reads this CPU's utilization and its new DL bandwidth; its I/O-wait
 * boost state, which the evaluating CPU also updates, waits for its next
 * update.
 */
static __always_inline void
sugov_update_shared(struct cpufreq_policy *policy, struct bsg_policy *sg_policy,
		    struct bsg_cpu *sg_cpu, s32 cpu, u64 time, u32 flags)
{
	int pass;

	ignore_dl_rate_limit(sg_policy, sg_cpu, cpu);

	if (!gov_enter_or_rerun(sg_policy))
		return;
	sugov_iowait_boost(sg_cpu, time, flags);
	sg_cpu->last_update = time;

	/* Two evaluations at most: the second for a CPU that came meanwhile. */
	for (pass = 0; pass < 2; pass++) {
		if (sugov_should_update_freq(policy, sg_policy, time) &&
		    sugov_update_next_freq(sg_policy, time,
					   sugov_next_freq_shared(policy, sg_policy, cpu, time)))
			bpf_cpufreq_request(policy, sg_policy->next_freq);
		if (gov_leave_unless_rerun(sg_policy))
			return;
	}
	/* A change that came during the second waits for the next update. */
	gov_leave(sg_policy);
}

SEC("struct_ops/update")
void BPF_PROG(sugov_update, struct cpufreq_policy *policy, s32 cpu, u64 time, u32 flags)
{
	struct bsg_policy *sg_policy = policy_slot(&sg_policies, policy);
	struct bsg_cpu *sg_cpu = cpu_slot(&sg_cpus, cpu);

	if (!sg_policy || !sg_cpu)
		return;
	if (policy_shared(policy)) {
		sugov_update_shared(policy, sg_policy, sg_cpu, cpu, time, flags);
		return;
	}
	if (!gov_enter(sg_policy))
		return;
	if (sg_policy->adjust_perf)
		sugov_update_single_perf(policy, sg_policy, sg_cpu, cpu, time, flags);
	else
		sugov_update_single_freq(policy, sg_policy, sg_cpu, cpu, time, flags);

	gov_leave(sg_policy);
}

SEC("struct_ops.s/start")
int BPF_PROG(sugov_start, struct cpufreq_policy *policy)
{
	struct bsg_policy *sg_policy = policy_slot(&sg_policies, policy);
	u32 cpu;

	if (!sg_policy)
		return POLICY_OUT_OF_RANGE;

	sg_policy->last_freq_update_time = 0;
	sg_policy->next_freq = 0;
	sg_policy->cached_raw_freq = 0;
	sg_policy->limits_changed = 0;
	sg_policy->need_freq_update = 0;
	sg_policy->busy = 0;
	sg_policy->rerun = 0;
	/* A kfunc call less on the hot path: the driver's delay does not change. */
	sg_policy->transition_delay_us = bpf_cpufreq_transition_delay_us(policy);
	sg_policy->adjust_perf = bpf_cpufreq_perf_possible(policy);

	for_each_policy_cpu(cpu, policy) {
		struct bsg_cpu *sg_cpu = cpu_slot(&sg_cpus, cpu);

		if (sg_cpu)
			__builtin_memset(sg_cpu, 0, sizeof(*sg_cpu));
	}
	return 0;
}

SEC("struct_ops.s/limits")
void BPF_PROG(sugov_limits, struct cpufreq_policy *policy)
{
	struct bsg_policy *sg_policy = policy_slot(&sg_policies, policy);

	/*
	 * The next update recomputes the frequency regardless of the rate
	 * limit.  Set by an exchange, a full barrier (the kernel's smp_wmb()):
	 * an update that sees it also sees the new limits.
	 */
	if (sg_policy)
		__sync_lock_test_and_set(&sg_policy->limits_changed, 1);
}

SEC(".struct_ops.link")
struct cpufreq_gov_ops schedutil_ops = {
	.start	= (void *)sugov_start,
	.limits	= (void *)sugov_limits,
	.update	= (void *)sugov_update,
	.flags	= CPUFREQ_GOV_OPS_EAS,
	.name	= "bpf_schedutil",
};
