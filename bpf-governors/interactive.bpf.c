// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_interactive: Android's "interactive" governor (Mike Chan, Todd
 * Poynor) as a BPF cpufreq governor.
 *
 * It samples each CPU's load from its idle time every timer_rate and
 * chooses the lowest frequency at which that load stays under the target
 * load of that frequency; a load of go_hispeed_load or more jumps straight
 * to hispeed_freq.  It is quick to go up and slow to come down: going above
 * hispeed_freq waits above_hispeed_delay, and a frequency is held for
 * min_sample_time before the governor goes below it.  A CPU that comes back
 * from at least timer_rate of idle is sampled timer_rate later over its
 * load since then, not over the idle before: a CPU turning busy gets
 * hispeed_freq at that sample.
 *
 * Mapping onto the framework: the original has a deferrable timer per CPU,
 * an idle notifier, a transition notifier and an RT thread.  Here one
 * sample() per policy evaluates all its CPUs at once, and the policy runs
 * at the highest of their choices, which is what the original's speed
 * change thread did with their per-CPU targets; update(), called on
 * scheduler activity, stands in for the idle-exit notifier; the timer stops
 * while the policy's CPUs idle at its minimum, as a deferrable timer would,
 * with timer_slack as the wake-up that brings a speed above the minimum
 * down.  The framework switches the frequency fast or from its kthread.
 */
#include <gov_common.h>

char LICENSE[] SEC("license") = "GPL";

/*
 * A "value freq:value freq:value ..." list: value applies from freq up to
 * the next freq; flattened to u32s, 0-terminated.
 */
#define FREQ_LIST_LEN		16

#define DEFAULT_GO_HISPEED_LOAD		99
#define DEFAULT_TARGET_LOAD		90
#define DEFAULT_TIMER_RATE		20000
#define DEFAULT_ABOVE_HISPEED_DELAY	DEFAULT_TIMER_RATE
#define DEFAULT_MIN_SAMPLE_TIME		80000
#define DEFAULT_BOOSTPULSE_DURATION	DEFAULT_MIN_SAMPLE_TIME
/* The original's 4 * DEFAULT_TIMER_RATE, a number for its default tag. */
#define DEFAULT_TIMER_SLACK		80000
_Static_assert(DEFAULT_TIMER_SLACK == 4 * DEFAULT_TIMER_RATE, "timer_slack's default");
#define TIMER_SLACK_NEVER		0xffffffffU	/* the original's -1 */

/* Tunables, per policy (sysfs: cpufreq/policyN/interactive/). */
struct interactive_tunables {
	/* The frequency a load burst jumps to; 0 is the policy's max. */
	u32 hispeed_freq __tunable_range(1, 10000000) __tunable_unit("kHz")
		__tunable_default_is("the policy's max");
	/* Load at which to jump to hispeed_freq. */
	u32 go_hispeed_load __tunable_range(1, 100) __tunable_unit("%")
		__tunable_default(DEFAULT_GO_HISPEED_LOAD);
	/* Load to aim at, per frequency: lower means faster. */
	u32 target_loads[FREQ_LIST_LEN] __tunable_freq_list
		__tunable_range(1, 100) __tunable_unit("%")
		__tunable_default(DEFAULT_TARGET_LOAD);
	/* Time at or above hispeed_freq before going higher, per frequency. */
	u32 above_hispeed_delay[FREQ_LIST_LEN] __tunable_freq_list
		__tunable_range(1, TUNABLE_TIME_MAX_US) __tunable_unit("us")
		__tunable_default(DEFAULT_ABOVE_HISPEED_DELAY);
	/* Time at a frequency before going below it. */
	u32 min_sample_time __tunable_range(1, TUNABLE_TIME_MAX_US) __tunable_unit("us")
		__tunable_default(DEFAULT_MIN_SAMPLE_TIME);
	/* Sampling period while the CPUs are busy. */
	u32 timer_rate __tunable_range(1000, TUNABLE_TIME_MAX_US) __tunable_unit("us")
		__tunable_default(DEFAULT_TIMER_RATE);
	/* Extra idle time before waking to lower a speed above the minimum; -1 never. */
	u32 timer_slack __tunable_range(1, 4294967295) __tunable_unit("us")
		__tunable_default(DEFAULT_TIMER_SLACK);
	/* 1: stay at hispeed_freq or above. */
	u32 boost __tunable_range(0, 1) __tunable_default(0);
	/*
	 * Non-zero: boost for boostpulse_duration.  The governor sets it back
	 * to 0 once seen, so that the same value written again is a new pulse
	 * (Android's power HAL writes 1 on every touch).
	 */
	u32 boostpulse __tunable_range(0, 4294967295) __tunable_default(0);
	u32 boostpulse_duration __tunable_range(1, TUNABLE_TIME_MAX_US) __tunable_unit("us")
		__tunable_default(DEFAULT_BOOSTPULSE_DURATION);
	/* 1: time waiting for I/O counts as busy. */
	u32 io_is_busy __tunable_range(0, 1) __tunable_default(0);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CPUFREQ_BPF_MAX_CPUS);
	__type(key, u32);
	__type(value, struct interactive_tunables);
} tunables SEC(".maps");

/* Per-policy state: the original's per-CPU target and validation times. */
struct ipolicy {
	GOV_EXCL;
	u32 target_freq;
	u32 floor_freq;
	u64 floor_validate_time;	/* us */
	u64 hispeed_validate_time;	/* us */
	u64 boostpulse_endtime;		/* us */
	u32 boost_seen;
	u32 sampling;			/* the sample timer is periodic */
};

/* Per-CPU state. */
struct icpu {
	/* Load window since the last evaluation; under the policy's GOV_EXCL. */
	u64 time_in_idle;
	u64 time_in_idle_timestamp;
	/* Idle accounting at the last update(); owned by update() of this CPU. */
	u64 update_idle;
	u64 idle_calls;
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CPUFREQ_BPF_MAX_CPUS);
	__type(key, u32);
	__type(value, struct ipolicy);
} ipolicies SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CPUFREQ_BPF_MAX_CPUS);
	__type(key, u32);
	__type(value, struct icpu);
} icpus SEC(".maps");

static u32 hispeed_freq(const struct interactive_tunables *t, struct cpufreq_policy *policy)
{
	return tunable_or(t->hispeed_freq, policy->cpuinfo.min_freq,
			  policy->cpuinfo.max_freq, policy->max);
}

static u32 timer_rate(const struct interactive_tunables *t)
{
	return tunable_or(t->timer_rate, 1000, TUNABLE_TIME_MAX_US, DEFAULT_TIMER_RATE);
}

/*
 * The value @list gives @freq, or @def when the list is malformed: values
 * outside [@lo, @hi], frequencies not increasing, or a frequency with no
 * value after it.  Bounded: one pass over FREQ_LIST_LEN entries.
 */
static u32 freq_list_value(const u32 *list, u32 freq, u32 lo, u32 hi, u32 def)
{
	u32 ret = list[0], prev = 0, i;

	if (ret < lo || ret > hi)
		return def;
	for (i = 1; i + 1 < FREQ_LIST_LEN; i += 2) {
		u32 f = list[i], v = list[i + 1];

		if (!f)
			return ret;
		if (f <= prev || v < lo || v > hi)
			return def;
		prev = f;
		if (freq >= f)
			ret = v;
	}
	/* The last slot can only hold the terminator. */
	return list[FREQ_LIST_LEN - 1] ? def : ret;
}

/*
 * The list lookups are global functions: the verifier checks them once
 * rather than at every step of choose_freq()'s walk.
 */
__noinline u32 freq_to_targetload(const struct interactive_tunables *t, u32 freq)
{
	if (!t)
		return DEFAULT_TARGET_LOAD;
	return freq_list_value(t->target_loads, freq, 1, 100, DEFAULT_TARGET_LOAD);
}

__noinline u32 freq_to_above_hispeed_delay(const struct interactive_tunables *t, u32 freq)
{
	if (!t)
		return DEFAULT_ABOVE_HISPEED_DELAY;
	return freq_list_value(t->above_hispeed_delay, freq, 1, TUNABLE_TIME_MAX_US,
			       DEFAULT_ABOVE_HISPEED_DELAY);
}

/*
 * The lowest frequency, within the policy's limits, whose target load the
 * load would not exceed there.  @loadadjfreq is load (%) times the current
 * frequency, so the load at f is loadadjfreq / f.  Target loads are at
 * most 100, so no frequency below loadadjfreq / 100 fits: start there and
 * walk up the table.
 */
#define MAX_FREQ_STEPS		64

static u32 choose_freq(struct cpufreq_policy *policy, const struct interactive_tunables *t,
		       u64 loadadjfreq)
{
	u32 freq = bpf_cpufreq_resolve_freq(policy, loadadjfreq / 100), next, i;

	for (i = 0; i < MAX_FREQ_STEPS; i++) {
		if ((u64)freq * freq_to_targetload(t, freq) >= loadadjfreq)
			break;
		next = bpf_cpufreq_resolve_freq(policy, freq + 1);
		if (next <= freq)
			break;	/* the highest frequency allowed */
		freq = next;
	}
	return freq;
}

/* Shorter load windows say little: half a tick. */
#define MIN_WINDOW_US		(TICK_USEC / 2)

/*
 * Load of one CPU since its window started, as loadadjfreq (% x kHz at the
 * current frequency); starts a new window.  Windows shorter than
 * MIN_WINDOW_US are left to grow: -1.
 */
static s64 update_load(struct icpu *ic, s32 cpu, bool io_busy, u32 cur, bool *busy)
{
	u64 now, now_idle = bpf_cpufreq_cpu_idle_time_us(cpu, io_busy, &now);
	u64 delta_time = now - ic->time_in_idle_timestamp;
	u64 delta_idle = now_idle - ic->time_in_idle;
	u64 active_time;

	if ((s64)delta_time < (s64)MIN_WINDOW_US)
		return -1;

	active_time = delta_time > delta_idle ? delta_time - delta_idle : 0;
	ic->time_in_idle = now_idle;
	ic->time_in_idle_timestamp = now;

	/* Busy: at least 1% of the window, more than the timer's own irq. */
	if (active_time * 100 >= delta_time)
		*busy = true;
	return active_time * cur / delta_time * 100;
}

/*
 * Boost on, or a boost pulse under way; notes boost writes and takes a
 * pending boostpulse (a write between the read and the clear falls in the
 * pulse that starts now).
 */
static bool update_boost(struct ipolicy *ip, struct interactive_tunables *t, u64 now)
{
	u32 boost = tunable_bool(t->boost);
	u32 duration = tunable_or(t->boostpulse_duration, 1, TUNABLE_TIME_MAX_US,
				  DEFAULT_BOOSTPULSE_DURATION);

	if (t->boostpulse) {
		t->boostpulse = 0;
		ip->boostpulse_endtime = now + duration;
	}
	/* Turning boost off ends a pulse as well. */
	if (!boost && ip->boost_seen)
		ip->boostpulse_endtime = now;
	ip->boost_seen = boost;
	return boost || now < ip->boostpulse_endtime;
}

/* cpufreq_interactive_timer(): picks and requests the policy's speed. */
static void interactive_evaluate(struct cpufreq_policy *policy, struct ipolicy *ip,
				 const struct interactive_tunables *t, u64 loadadjfreq,
				 bool boosted, u64 now)
{
	u32 cur = policy->cur, hispeed = hispeed_freq(t, policy), new_freq;
	u32 go_hispeed_load = tunable_or(t->go_hispeed_load, 1, 100, DEFAULT_GO_HISPEED_LOAD);
	u32 min_sample_time = tunable_or(t->min_sample_time, 1, TUNABLE_TIME_MAX_US,
					 DEFAULT_MIN_SAMPLE_TIME);
	u64 cpu_load = cur ? loadadjfreq / cur : 0;

	/* The limits may have moved since: the target lives within them. */
	if (ip->target_freq > policy->max)
		ip->target_freq = policy->max;
	if (ip->target_freq < policy->min)
		ip->target_freq = policy->min;

	/*
	 * A burst goes to hispeed_freq at least; without one, not above it
	 * from below in one step.
	 */
	new_freq = choose_freq(policy, t, loadadjfreq);
	if (cpu_load >= go_hispeed_load || boosted) {
		if (cur < hispeed || new_freq < hispeed)
			new_freq = hispeed;
	} else if (new_freq > hispeed && cur < hispeed) {
		new_freq = hispeed;
	}

	/* Above hispeed_freq, go higher only after above_hispeed_delay there. */
	if (cur >= hispeed && new_freq > cur &&
	    now - ip->hispeed_validate_time < freq_to_above_hispeed_delay(t, cur))
		return;

	new_freq = bpf_cpufreq_resolve_freq(policy, new_freq);

	/* Go below the floor only after min_sample_time at or above it. */
	if (new_freq < ip->floor_freq && ip->target_freq >= cur &&
	    now - ip->floor_validate_time < min_sample_time)
		return;

	/*
	 * A speed chosen for the load becomes the floor; one chosen for a
	 * boost does not, so that it drops as soon as the boost ends.
	 */
	if (!boosted || new_freq > hispeed) {
		ip->floor_freq = new_freq;
		if (ip->target_freq >= cur || new_freq >= cur)
			ip->floor_validate_time = now;
	}

	if (new_freq != cur)
		ip->hispeed_validate_time = now;
	ip->target_freq = new_freq;
	bpf_cpufreq_request(policy, new_freq);
}

/*
 * The next sample: every timer_rate while a CPU is busy.  When all idle,
 * the original's deferrable timers would not fire: stop, unless the speed
 * is above the minimum, which the slack timer brings down after
 * timer_rate + timer_slack.  update() restarts sampling.
 */
static void interactive_rearm(struct cpufreq_policy *policy, struct ipolicy *ip,
			      const struct interactive_tunables *t, bool busy)
{
	u32 rate = timer_rate(t);
	u32 slack = tunable_or(t->timer_slack, 1, TIMER_SLACK_NEVER, DEFAULT_TIMER_SLACK);
	u32 period = rate;

	if (!busy) {
		if (ip->target_freq <= policy->min || slack == TIMER_SLACK_NEVER)
			period = 0;
		else
			period = slack < TUNABLE_TIME_MAX_US - rate ? rate + slack
								 : TUNABLE_TIME_MAX_US;
	}
	ip->sampling = period != 0;
	bpf_cpufreq_set_sample_period(policy, period);
}

/* What a sample found over the policy's CPUs. */
struct policy_load {
	u64 loadadjfreq;	/* the highest of the CPUs' loads */
	bool busy;		/* a CPU was busy */
	bool evaluated;		/* a CPU's window was long enough to judge */
	bool short_window;	/* a CPU's was not: it started just now */
};

/*
 * One CPU's part of a sample.  Global, so that the verifier checks it once,
 * not for each CPU and each mix of what the CPUs before it found.
 */
__noinline int sample_cpu(u32 cpu, u32 cur, bool io_busy,
			  struct policy_load *pl __arg_nonnull)
{
	struct icpu *ic = cpu_slot(&icpus, cpu);
	s64 load;

	if (!ic)
		return 0;
	load = update_load(ic, cpu, io_busy, cur, &pl->busy);
	if (load < 0) {
		pl->short_window = true;
		return 0;
	}
	pl->evaluated = true;
	if (load > (s64)pl->loadadjfreq)
		pl->loadadjfreq = load;
	return 0;
}

SEC("struct_ops/sample")
void BPF_PROG(interactive_sample, struct cpufreq_policy *policy)
{
	struct ipolicy *ip = policy_slot(&ipolicies, policy);
	struct interactive_tunables *t = policy_slot(&tunables, policy);
	u64 now = bpf_ktime_get_ns() / NSEC_PER_USEC;
	struct policy_load pl = {};
	bool io_busy, boosted;
	u32 cpu;

	if (!ip || !t || !gov_enter(ip))
		return;

	io_busy = tunable_bool(t->io_is_busy);
	boosted = update_boost(ip, t, now);
	for_each_policy_cpu(cpu, policy)
		sample_cpu(cpu, policy->cur, io_busy, &pl);

	if (pl.evaluated) {
		interactive_evaluate(policy, ip, t, pl.loadadjfreq, boosted, now);
		interactive_rearm(policy, ip, t, pl.busy);
	}
	/*
	 * A window too short to judge (sampled right after a boost, new
	 * limits, or a CPU's idle exit): again once it grew.
	 */
	if (pl.short_window)
		bpf_cpufreq_sample_in(policy, MIN_WINDOW_US);
	gov_leave(ip);
}

/*
 * Scheduler activity on @cpu: the original's idle-exit notifier.  A CPU back
 * from at least timer_rate of idle starts a new load window, so that the
 * idle before does not hide a burst that starts now, and the policy is
 * sampled timer_rate later at the latest: cpufreq_interactive_idle_end()
 * re-arming the CPU's timer.  Also where boost and boostpulse writes are
 * noticed, and sampling resumes after the policy idled.
 */
SEC("struct_ops/update")
void BPF_PROG(interactive_update, struct cpufreq_policy *policy, s32 cpu, u64 time, u32 flags)
{
	struct ipolicy *ip = policy_slot(&ipolicies, policy);
	struct icpu *ic = cpu_slot(&icpus, cpu);
	const struct interactive_tunables *t = policy_slot(&tunables, policy);
	unsigned long idle_calls;
	u64 now, idle, idle_since;

	if (!ip || !ic || !t)
		return;

	if (t->boostpulse || tunable_bool(t->boost) != ip->boost_seen) {
		bpf_cpufreq_sample_in(policy, 0);
		return;
	}

	/*
	 * Only @cpu itself can tell that it left idle.  Another CPU of the
	 * policy updates @cpu's blocked load while @cpu still idles (the
	 * scheduler's nohz load refresh); taking the idle-entry count there
	 * would hide the idle exit that follows, and a hog starting then
	 * would never be sampled (the policy at its minimum, no timer armed).
	 */
	if (cpu != (s32)bpf_get_smp_processor_id())
		return;
	/*
	 * Not idle since the last update: nothing new, unless sampling has
	 * stopped: the seed re-arms a CPU's timer whenever the CPU runs and
	 * finds it stopped.  Without nohz idle (nohz=off, a periodic tick)
	 * the idle-entry count stays 0: the idle time tells instead.  The
	 * busy CPU's common case, so checked first.
	 */
	idle_calls = bpf_cpufreq_cpu_nohz_idle_calls(cpu);
	if (idle_calls && idle_calls == ic->idle_calls && ip->sampling)
		return;
	/*
	 * An idle exit is a task running: the CPU's own blocked-load updates
	 * in an interrupt of its idle would look like one and hide the long
	 * idle before the real one.  (A task's wake-up update comes before it
	 * counts as running; its next tick's update sees it.)
	 */
	if (!bpf_cpufreq_cpu_nr_running(cpu))
		return;
	ic->idle_calls = idle_calls;

	idle = bpf_cpufreq_cpu_idle_time_us(cpu, tunable_bool(t->io_is_busy), &now);
	idle_since = idle - ic->update_idle;
	ic->update_idle = idle;
	if (idle_since < timer_rate(t)) {
		if (ip->sampling)
			return;
	} else if (gov_enter(ip)) {
		ic->time_in_idle = idle;
		ic->time_in_idle_timestamp = now;
		gov_leave(ip);
	}
	bpf_cpufreq_sample_in(policy, timer_rate(t));
}

SEC("struct_ops.s/start")
int BPF_PROG(interactive_start, struct cpufreq_policy *policy)
{
	struct ipolicy *ip = policy_slot(&ipolicies, policy);
	const struct interactive_tunables *t = policy_slot(&tunables, policy);
	u64 now = bpf_ktime_get_ns() / NSEC_PER_USEC;
	u32 cpu;

	if (!ip || !t)
		return POLICY_OUT_OF_RANGE;

	ip->busy = 0;
	ip->target_freq = policy->cur;
	ip->floor_freq = policy->cur;
	ip->floor_validate_time = now;
	ip->hispeed_validate_time = now;
	ip->boostpulse_endtime = 0;
	ip->boost_seen = tunable_bool(t->boost);
	ip->sampling = 1;

	for_each_policy_cpu(cpu, policy) {
		struct icpu *ic = cpu_slot(&icpus, cpu);

		if (!ic)
			continue;
		ic->time_in_idle = bpf_cpufreq_cpu_idle_time_us(cpu, tunable_bool(t->io_is_busy),
								&ic->time_in_idle_timestamp);
		ic->update_idle = ic->time_in_idle;
		ic->idle_calls = bpf_cpufreq_cpu_nohz_idle_calls(cpu);
	}
	bpf_cpufreq_set_sample_period(policy, timer_rate(t));
	return 0;
}

SEC("struct_ops.s/limits")
void BPF_PROG(interactive_limits, struct cpufreq_policy *policy)
{
	/* Re-evaluate at once within the new limits, even if sampling had stopped. */
	bpf_cpufreq_sample_in(policy, 0);
}

SEC(".struct_ops.link")
struct cpufreq_gov_ops interactive_ops = {
	.start		= (void *)interactive_start,
	.limits		= (void *)interactive_limits,
	.update		= (void *)interactive_update,
	.sample		= (void *)interactive_sample,
	.sample_period_us = DEFAULT_TIMER_RATE,
	.name		= "bpf_interactive",
};
