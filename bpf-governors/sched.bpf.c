// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_sched: the "sched" governor of Michael Turquette's scheduler-driven
 * frequency selection series (v3, 2015), as a BPF cpufreq governor.
 *
 * Intentionally simple: each CPU asks for a capacity, its CFS utilization
 * plus headroom; a policy runs at the largest request among its CPUs,
 *
 *	freq = capacity * max_freq >> SCHED_CAPACITY_SHIFT
 *
 * and changes frequency at most once per throttle period, the driver's
 * transition latency.  It is event driven: only update(), on scheduler
 * activity, no sampling.  The framework switches from the scheduler's
 * context when the driver can switch fast, from its kthread otherwise,
 * which is the seed's cpufreq_driver_might_sleep() split.
 *
 * Departures from the seed: max_freq is cpuinfo.max_freq rather than the
 * policy's max, because 6.12's frequency-invariant utilization is relative
 * to the top frequency (in the seed's era, to the policy max), and the
 * current frequency where utilization is not frequency invariant; every update
 * requests the policy's largest request rather than only the CPU holding
 * it, so a request that drops is followed as soon as any CPU updates; and
 * the throttle restarts on an actual change only.
 */
#include <gov_common.h>

char LICENSE[] SEC("license") = "GPL";

#define THROTTLE_US_DEFAULT	50000	/* when the driver gives no latency */
/* A driver's "latency unknown" (CPUFREQ_ETERNAL, -1 in cpuinfo's u32). */
#define LATENCY_UNKNOWN		0xffffffffU
/* The series' capacity_margin: 25% headroom, the tipping point at 80%. */
#define CAPACITY_MARGIN_DEFAULT	1280

/* Tunables, per policy (the seed had none; its constants are tunable here). */
struct sched_tunables {
	/* Minimum time between frequency changes. */
	u32 throttle_us __tunable_range(1, TUNABLE_TIME_MAX_US) __tunable_unit("us")
		__tunable_default_is("the driver's transition latency, "
				      __tunable_xstr(THROTTLE_US_DEFAULT) " us without one");
	/* Requested capacity per unit of utilization, in 1024ths. */
	u32 capacity_margin __tunable_range(1024, 4096) __tunable_default(CAPACITY_MARGIN_DEFAULT);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CPUFREQ_BPF_MAX_CPUS);
	__type(key, u32);
	__type(value, struct sched_tunables);
} tunables SEC(".maps");

/* Per-policy state: the seed's struct gov_data. */
struct sched_gov_data {
	u64 throttle;		/* ns: no change before this */
	u32 freq;		/* last frequency requested */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CPUFREQ_BPF_MAX_CPUS);
	__type(key, u32);
	__type(value, struct sched_gov_data);
} gov_data SEC(".maps");

/*
 * The throttle period: throttle_us when set, else the driver's transition
 * latency as it gives it, in ns (CPPC and HWP parts report a few hundred),
 * or THROTTLE_US_DEFAULT when it gives none or does not know it.
 */
static u64 throttle_nsec(struct cpufreq_policy *policy, const struct sched_tunables *t)
{
	u32 latency = policy->cpuinfo.transition_latency;
	u32 throttle_us = tunable_or(t->throttle_us, 1, TUNABLE_TIME_MAX_US, 0);

	if (throttle_us)
		return (u64)throttle_us * NSEC_PER_USEC;
	if (!latency || latency == LATENCY_UNKNOWN)
		return (u64)THROTTLE_US_DEFAULT * NSEC_PER_USEC;
	return latency;
}

/*
 * What a capacity of SCHED_CAPACITY_SCALE stands for: the top frequency
 * when utilization is frequency invariant, else the current one, which
 * utilization is then relative to.
 */
static u32 capacity_freq(struct cpufreq_policy *policy)
{
	return bpf_cpufreq_freq_invariant() ? policy->cpuinfo.max_freq : policy->cur;
}

/* The capacity @cpu asks for: its CFS utilization plus headroom. */
static unsigned long cpu_capacity_request(s32 cpu, u32 margin)
{
	unsigned long orig = bpf_cpufreq_cpu_capacity(cpu) ?: SCHED_CAPACITY_SCALE;

	return bpf_cpufreq_cpu_util_cfs(cpu) * margin / orig;
}

/* cpufreq_sched_set_cap(): the policy follows its largest request. */
SEC("struct_ops/update")
void BPF_PROG(sched_update, struct cpufreq_policy *policy, s32 cpu, u64 time, u32 flags)
{
	struct sched_gov_data *gd = policy_slot(&gov_data, policy);
	const struct sched_tunables *t = policy_slot(&tunables, policy);
	unsigned long capacity_max = 0;
	u64 now = bpf_ktime_get_ns();
	u32 margin, freq, j;

	if (!gd || !t || now < gd->throttle)
		return;

	margin = tunable_or(t->capacity_margin, 1024, 4096, CAPACITY_MARGIN_DEFAULT);
	for_each_policy_cpu(j, policy) {
		unsigned long capacity = cpu_capacity_request(j, margin);

		if (capacity > capacity_max)
			capacity_max = capacity;
	}

	freq = bpf_cpufreq_resolve_freq(policy, (capacity_max * capacity_freq(policy)) >>
						SCHED_CAPACITY_SHIFT);
	if (freq == gd->freq)
		return;

	gd->freq = freq;
	gd->throttle = now + throttle_nsec(policy, t);
	bpf_cpufreq_request(policy, freq);
}

SEC("struct_ops.s/start")
int BPF_PROG(sched_start, struct cpufreq_policy *policy)
{
	struct sched_gov_data *gd = policy_slot(&gov_data, policy);

	if (!gd)
		return POLICY_OUT_OF_RANGE;
	gd->throttle = 0;
	gd->freq = 0;
	return 0;
}

SEC("struct_ops.s/limits")
void BPF_PROG(sched_limits, struct cpufreq_policy *policy)
{
	struct sched_gov_data *gd = policy_slot(&gov_data, policy);

	/* The same capacity may resolve differently now: request it again. */
	if (gd) {
		gd->freq = 0;
		gd->throttle = 0;
	}
}

SEC(".struct_ops.link")
struct cpufreq_gov_ops sched_ops = {
	.start	= (void *)sched_start,
	.limits	= (void *)sched_limits,
	.update	= (void *)sched_update,
	.name	= "bpf_sched",
};
