// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_classaware: one governor for realtime, deadline, interactive and
 * background work, each served from what the scheduler knows of it now
 * rather than from load history.
 *
 * Every CPU of the policy states a demand, and the policy runs at the
 * highest one:
 *
 *  - realtime: an RT task runnable on the CPU gets, at once, the level the
 *    scheduler gives RT work: the top frequency, or its uclamp when uclamp
 *    is in use (sched_util_clamp_min_rt_default, the tasks' uclamp.max),
 *    as schedutil would.  When the driver cannot switch from the
 *    scheduler's context the kthread would come too late for each wake-up,
 *    so the policy stays at that level while it has RT tasks at all: while
 *    their utilization has not decayed below rt_presence_util.
 *  - deadline: a floor at the lowest frequency whose capacity covers the
 *    DL bandwidth reserved on the CPU plus dl_margin_pct.  It comes from
 *    the reservations (runtime/period) of the DL tasks the CPU holds,
 *    running or sleeping, so it is in place before a job is released and
 *    does not drop between jobs; it is raised without waiting for the rate
 *    limit.
 *  - CFS: schedutil's mapping of the effective utilization, with two
 *    refinements from the task that runs.  A CPU leaving idle for a
 *    latency-sensitive task (a uclamp.min set on the task or its group)
 *    holds the level of that uclamp.min, up to hispeed_freq, for
 *    boost_hold_us, as interactive does after a burst; a CPU running only
 *    background work (uclamp.max capping its runqueue, or a task niced to
 *    background_nice or SCHED_IDLE) climbs one operating point per
 *    background_step_us instead of jumping.
 *
 * A CFS bandwidth quota is a budget of time, not of capacity: a throttled
 * group gets its share of the CPU's work only at the frequency any hog
 * gets, so it is served as any other CFS work.  What caps a group's
 * frequency is its uclamp.max.
 *
 * The runqueue and its running task are read through BTF (runqueues is a
 * per-CPU kernel variable), so the governor sees the DL reservations,
 * uclamp, nice and the task group without kfuncs of its own; what it reads
 * of other CPUs is a hint, read without their runqueue lock.
 *
 * A policy above its minimum is re-evaluated every RECHECK_US from its
 * sample timer: an idle CPU calls no update(), and the RT hold, a jump's
 * end and a finished DL task must still bring its frequency down.
 */
#include <gov_common.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

#define DEFAULT_BOOST_HOLD_US		40000
#define DEFAULT_DL_MARGIN_PCT		10
#define DEFAULT_RT_PRESENCE_UTIL	16
#define DEFAULT_BACKGROUND_NICE		10
#define DEFAULT_BACKGROUND_STEP_US	20000
#define RECHECK_US			(5 * TICK_USEC)

/* Tunables, per policy. */
struct classaware_tunables {
	/* Minimum time between two changes that CFS alone asks for. */
	u32 rate_limit_us __tunable_range(1, TUNABLE_TIME_MAX_US) __tunable_unit("us")
		__tunable_default_is("the driver's transition delay");
	/* The highest level a latency-sensitive task's jump holds; 0 is the max. */
	u32 hispeed_freq __tunable_range(1, 10000000) __tunable_unit("kHz")
		__tunable_default_is("the CPU's top frequency");
	/* How long that jump holds before utilization decides again. */
	u32 boost_hold_us __tunable_range(1, TUNABLE_TIME_MAX_US) __tunable_unit("us")
		__tunable_default(DEFAULT_BOOST_HOLD_US);
	/* Margin of the DL floor over the reserved bandwidth. */
	u32 dl_margin_pct __tunable_range(1, 100) __tunable_unit("%")
		__tunable_default(DEFAULT_DL_MARGIN_PCT);
	/* Deferred path: RT utilization under which the RT tasks are gone. */
	u32 rt_presence_util __tunable_range(1, 1024) __tunable_default(DEFAULT_RT_PRESENCE_UTIL);
	/* Nice level from which a task is background work. */
	u32 background_nice __tunable_range(1, 19) __tunable_default(DEFAULT_BACKGROUND_NICE);
	/* Background work climbs one operating point per this time. */
	u32 background_step_us __tunable_range(1000, TUNABLE_TIME_MAX_US) __tunable_unit("us")
		__tunable_default(DEFAULT_BACKGROUND_STEP_US);
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CPUFREQ_BPF_MAX_CPUS);
	__type(key, u32);
	__type(value, struct classaware_tunables);
} tunables SEC(".maps");

/* Per-policy state. */
struct ca_policy {
	GOV_EXCL;
	u64 last_update;	/* ns: last change CFS alone asked for */
	u64 last_step;		/* ns: last background step up */
	u32 bg_level;		/* kHz: where background work has climbed to */
	u32 next_freq;		/* kHz: the last request of an evaluation */
	/*
	 * The next evaluation requests at once, even an unchanged frequency:
	 * the limits changed, or a CPU asked for the top on its own.
	 */
	u32 resend;
	u32 recheck_armed;	/* the sample timer will re-evaluate */
};

/* Per-CPU state. */
struct ca_cpu {
	u64 idle_calls;		/* nohz idle entries at the last look */
	u64 boost_until;	/* ns: end of a latency-sensitive jump */
	u64 dl_bw;		/* DL reservations at the last look */
	u64 greedier_since;	/* ns: the running task has asked for more */
	u32 boost_util;		/* the uclamp.min that jump holds */
	u32 rt_freq;		/* kHz: RT work's level when last runnable */
	u32 rt_seen;		/* an RT task was runnable at the last update() */
	u32 background;		/* only background work runs */
	u32 background_cap;	/* its utilization clamp, while it does */
	u32 idle;		/* idle at the last look */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CPUFREQ_BPF_MAX_CPUS);
	__type(key, u32);
	__type(value, struct ca_policy);
} ca_policies SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CPUFREQ_BPF_MAX_CPUS);
	__type(key, u32);
	__type(value, struct ca_cpu);
} ca_cpus SEC(".maps");

/* What one CPU asks of its policy. */
struct cpu_demand {
	u32 freq;		/* kHz: DL floor and CFS level, the higher */
	u32 floor;		/* kHz: DL floor or RT level: never stepped */
	bool top;		/* RT: the top frequency, now */
	u32 boost_freq;		/* kHz: a latency-sensitive task's jump, now */
	bool background;	/* @freq is background work's: step towards it */
	u32 own_freq;		/* kHz: a foreground task's own need among it */
	bool urgent;		/* RT work, or DL bandwidth grew: no rate limit */
};

extern struct rq runqueues __ksym;

#define SCHED_IDLE		5
#define MAX_RT_PRIO		100
#define NICE_0_PRIO		(MAX_RT_PRIO + 20)
/* A DL bandwidth is a CPU's share in 1 << BW_SHIFT. */
#define BW_SHIFT		20
/* Flag bit of sched_avg.util_est, not part of the estimate. */
#define UTIL_AVG_UNCHANGED	0x80000000U

/* schedutil's performance level: utilization plus headroom, uclamp-bound. */
static unsigned long sched_perf(s32 cpu)
{
	unsigned long min = 0, max = 0;
	unsigned long util = bpf_cpufreq_cpu_util_effective(cpu, &min, &max);

	return effective_cpu_perf(util, min, max);
}

/* --- realtime ------------------------------------------------------------ */

/*
 * The frequency for RT work on a CPU of capacity @cap whose performance
 * level is @perf, full capacity being at @ref: the scheduler gives RT work
 * the CPU's capacity (the top) unless uclamp is in use, and then the RT
 * tasks' clamps bound @perf.
 */
static u32 rt_level_freq(struct cpufreq_policy *policy, unsigned long perf, unsigned long cap,
			 u32 ref)
{
	if (perf >= cap)
		return policy->cpuinfo.max_freq;
	return map_util_freq(perf, ref, cap) ?: policy->cpuinfo.min_freq;
}

/* The frequency for the RT task runnable on @cpu, 0 for none. */
static u32 rt_runnable_freq(struct cpufreq_policy *policy, s32 cpu)
{
	if (!bpf_cpufreq_cpu_rt_runnable(cpu))
		return 0;
	return rt_level_freq(policy, sched_perf(cpu),
			     bpf_cpufreq_cpu_capacity(cpu) ?: SCHED_CAPACITY_SCALE,
			     capacity_ref_freq(policy));
}

/*
 * What RT work on @cpu asks for, 0 for nothing, from the CPU's capacity
 * @cap, its performance level @perf and the frequency @ref of full
 * capacity.  Without fast switching, the level of its last runnable look
 * holds while its utilization has not decayed under rt_presence_util.
 */
static u32 rt_freq(const struct classaware_tunables *t, struct cpufreq_policy *policy,
		   struct ca_cpu *ca_cpu, s32 cpu, unsigned long perf, unsigned long cap,
		   u32 ref)
{
	if (bpf_cpufreq_cpu_rt_runnable(cpu)) {
		ca_cpu->rt_freq = rt_level_freq(policy, perf, cap, ref);
		return ca_cpu->rt_freq;
	}
	if (policy->fast_switch_enabled ||
	    bpf_cpufreq_cpu_util_rt(cpu) < tunable_or(t->rt_presence_util, 1, SCHED_CAPACITY_SCALE,
						      DEFAULT_RT_PRESENCE_UTIL))
		return 0;
	return ca_cpu->rt_freq ?: policy->cpuinfo.max_freq;
}

/* --- deadline ------------------------------------------------------------ */

/*
 * The DL bandwidth reserved on the CPU plus its margin, in capacity units.
 * A reservation's runtime is time on a CPU of the largest capacity: on a
 * smaller one it needs as much more of its capacity (schedutil's
 * cpu_bw_dl() is the same bandwidth, mapped to frequency by capacity).
 */
static unsigned long dl_floor_util(const struct classaware_tunables *t, u64 dl_bw)
{
	u32 margin = tunable_or(t->dl_margin_pct, 1, 100, DEFAULT_DL_MARGIN_PCT);

	return ((dl_bw * SCHED_CAPACITY_SCALE) >> BW_SHIFT) * (100 + margin) / 100;
}

/* --- CFS ----------------------------------------------------------------- */

/* The running task, or NULL for the idle task. */
static struct task_struct *rq_curr(struct rq *rq)
{
	struct task_struct *curr = rq->curr;

	return curr && curr->pid ? curr : NULL;
}

/*
 * The running task if it is a CFS task, else NULL: a DL or RT task (the
 * framework's kthread switching the frequency, for milliseconds under
 * emulation) says no more of the CFS work than the idle task does.
 */
static struct task_struct *cfs_curr(struct rq *rq)
{
	struct task_struct *curr = rq_curr(rq);

	return curr && curr->prio >= MAX_RT_PRIO ? curr : NULL;
}

/* A latency-sensitive task is runnable: uclamp.min of the task or group. */
static bool latency_sensitive(struct rq *rq)
{
	return rq->uclamp[UCLAMP_MIN].value > 0 && rq->nr_running;
}

/*
 * A runnable task's uclamp.max caps it.  Its effective clamp is valid only
 * while counted in its runqueue's buckets (active): until uclamp is first
 * used, the kernel counts no task and leaves the value as forked.
 */
static bool task_capped(struct task_struct *task)
{
	struct uclamp_se *uclamp_max = &task->uclamp[UCLAMP_MAX];

	return BPF_CORE_READ_BITFIELD(uclamp_max, active) &&
	       BPF_CORE_READ_BITFIELD(uclamp_max, value) < SCHED_CAPACITY_SCALE;
}

/* A task is background work: niced to background_nice, SCHED_IDLE or capped. */
static bool task_background(const struct classaware_tunables *t, struct task_struct *task)
{
	u32 nice = tunable_or(t->background_nice, 1, 19, DEFAULT_BACKGROUND_NICE);

	return task->policy == SCHED_IDLE || task->static_prio >= NICE_0_PRIO + nice ||
	       task_capped(task);
}

/*
 * The utilization clamp of the CPU's background work: the runqueue's, or
 * the running task's uclamp.max when lower (an uncapped task that waits
 * next to it for a moment lifts the runqueue's clamp to the top).
 */
static u32 background_cap(struct rq *rq, struct task_struct *curr)
{
	u32 cap = rq->uclamp[UCLAMP_MAX].value;
	struct uclamp_se *uclamp_max;

	if (curr && task_capped(curr)) {
		uclamp_max = &curr->uclamp[UCLAMP_MAX];
		if (BPF_CORE_READ_BITFIELD(uclamp_max, value) < cap)
			cap = BPF_CORE_READ_BITFIELD(uclamp_max, value);
	}
	return cap;
}

/*
 * Only background work runs: every runnable task capped by uclamp.max (the
 * runqueue's clamp is the highest of theirs), or the running task is
 * background work.
 */
static bool background_only(const struct classaware_tunables *t, struct rq *rq,
			    struct task_struct *curr)
{
	if (rq->uclamp[UCLAMP_MAX].value < SCHED_CAPACITY_SCALE)
		return true;
	return curr && task_background(t, curr);
}

/*
 * Whether the CPU's CFS work is background work, from the task that runs.
 * The gentler answer is taken at once; one that asks for more must hold for
 * a tick, so that a kworker running for a moment next to a background or
 * capped hog does not lift the hog's frequency.  The idle task, or a DL or
 * RT one, leaves the answer as it was unless the runqueue's clamp makes it
 * gentler.  The tick is one of CFS tasks running: the CPU having been idle
 * (@woke) restarts it, since no update() comes while it idles.  Returns the
 * running task when it is foreground CFS work, else NULL.
 */
static struct task_struct *cfs_character(const struct classaware_tunables *t,
					 struct ca_cpu *ca_cpu, struct rq *rq,
					 u64 time, bool woke)
{
	struct task_struct *curr = cfs_curr(rq), *foreground;
	bool background = background_only(t, rq, curr);

	if (!curr) {
		ca_cpu->greedier_since = 0;
		if (background) {
			ca_cpu->background = true;
			ca_cpu->background_cap = background_cap(rq, NULL);
		}
		return NULL;
	}
	if (woke)
		ca_cpu->greedier_since = 0;
	foreground = task_background(t, curr) ? NULL : curr;
	if (background || !ca_cpu->background) {
		ca_cpu->greedier_since = 0;
		if (background)
			ca_cpu->background_cap = background_cap(rq, curr);
	} else if (!ca_cpu->greedier_since) {
		ca_cpu->greedier_since = time;
		return foreground;
	} else if (time - ca_cpu->greedier_since < TICK_NSEC) {
		return foreground;
	}
	ca_cpu->greedier_since = 0;
	ca_cpu->background = background;
	ca_cpu->background_cap = background_cap(rq, curr);
	return foreground;
}

/*
 * A task's own performance level: its utilization, or the estimate of it
 * from its last runs when higher, plus the headroom.
 */
static unsigned long task_perf(struct task_struct *p)
{
	unsigned long util = p->se.avg.util_avg;
	unsigned long est = p->se.avg.util_est & ~UTIL_AVG_UNCHANGED;

	return map_util_perf(est > util ? est : util);
}

/* The CPU runs a task and was idle at, or since, its last look. */
static bool left_idle(struct ca_cpu *ca_cpu, struct rq *rq, s32 cpu)
{
	u64 idle_calls = bpf_cpufreq_cpu_nohz_idle_calls(cpu);
	bool idle = !rq->nr_running;
	bool ret = !idle && (ca_cpu->idle || idle_calls != ca_cpu->idle_calls);

	ca_cpu->idle_calls = idle_calls;
	ca_cpu->idle = idle;
	return ret;
}

/* --- one CPU, then the policy -------------------------------------------- */

/*
 * A global function: the verifier checks it once, not once per CPU of the
 * policy loop.  Returns 0.
 */
__noinline int cpu_demand(const struct classaware_tunables *t __arg_nonnull,
			  struct cpufreq_policy *policy __arg_trusted,
			  s32 cpu, u64 time, struct cpu_demand *d __arg_nonnull)
{
	struct ca_cpu *ca_cpu = cpu_slot(&ca_cpus, cpu);
	struct rq *rq = bpf_per_cpu_ptr(&runqueues, cpu);
	unsigned long cap = bpf_cpufreq_cpu_capacity(cpu) ?: SCHED_CAPACITY_SCALE;
	/* Full capacity's frequency, read once: every level below maps to it. */
	u32 ref = capacity_ref_freq(policy);
	unsigned long util, floor, perf;
	struct task_struct *foreground;
	u32 rt;
	u64 dl_bw;
	bool woke;

	__builtin_memset(d, 0, sizeof(*d));
	if (!ca_cpu || !rq)
		return 0;
	/* One reading of the scheduler's level serves RT and CFS alike. */
	perf = sched_perf(cpu);
	rt = rt_freq(t, policy, ca_cpu, cpu, perf, cap, ref);
	if (rt >= policy->cpuinfo.max_freq) {
		d->top = true;
		return 0;
	}

	dl_bw = rq->dl.this_bw;
	d->urgent = dl_bw > ca_cpu->dl_bw || rt;
	ca_cpu->dl_bw = dl_bw;

	woke = left_idle(ca_cpu, rq, cpu);
	if (woke && latency_sensitive(rq)) {
		ca_cpu->boost_until = time + (u64)tunable_or(t->boost_hold_us, 1, TUNABLE_TIME_MAX_US,
							     DEFAULT_BOOST_HOLD_US) * NSEC_PER_USEC;
		ca_cpu->boost_util = rq->uclamp[UCLAMP_MIN].value;
	}
	if ((s64)(ca_cpu->boost_until - time) > 0)
		d->boost_freq = map_util_freq(ca_cpu->boost_util, ref, cap);

	foreground = cfs_character(t, ca_cpu, rq, time, woke);
	util = perf;
	/*
	 * Within its own clamp, also while another task runs or waits next
	 * to it for less than the tick that makes the CPU foreground.
	 */
	if (ca_cpu->background && util > ca_cpu->background_cap)
		util = ca_cpu->background_cap;
	floor = dl_floor_util(t, dl_bw);
	if (util > floor)
		d->background = ca_cpu->background;
	else
		util = floor;
	d->freq = map_util_freq(util, ref, cap);
	/*
	 * Background work above the DL floor steps up from the floor, not
	 * from under it: the reservation holds while the CPU counts as
	 * background (a niced thread running, or the runqueue's clamp kept
	 * from a capped task that left).
	 */
	d->floor = map_util_freq(floor, ref, cap);
	if (rt > d->floor)
		d->floor = rt;
	if (rt > d->freq) {
		d->freq = rt;
		d->background = false;
	}
	/*
	 * Until the CPU counts as foreground again, a tick later, a task that
	 * is not background work gets at least what it needs alone: its
	 * utilization, not the CPU's, which the background work fills.
	 */
	if (d->background && foreground)
		d->own_freq = map_util_freq(task_perf(foreground), ref, cap);
	return 0;
}

/*
 * Background work climbs towards @want one operating point per step, from
 * where it climbed to before, not from the current frequency: foreground
 * work that raised the policy for a moment does not lift it.  What holds for
 * good, a DL floor or an RT level (@floor), does: no step is spent under it.
 */
static u32 background_step(const struct classaware_tunables *t, struct cpufreq_policy *policy,
			   struct ca_policy *ca, u64 time, u32 want, u32 floor)
{
	u64 step = (u64)tunable_or(t->background_step_us, 1000, TUNABLE_TIME_MAX_US,
				   DEFAULT_BACKGROUND_STEP_US) * NSEC_PER_USEC;
	u32 level = ca->bg_level ?: policy->min;

	if (level < floor)
		level = bpf_cpufreq_resolve_freq(policy, floor);

	if (want <= level) {
		/*
		 * Down at once, to the operating point that serves @want: a
		 * level between two of them, or under the lowest, would make
		 * the next step land where the policy already is.
		 */
		ca->bg_level = bpf_cpufreq_resolve_freq(policy, want);
		return want;
	}
	if ((s64)(time - ca->last_step) >= (s64)step) {
		level = bpf_cpufreq_resolve_freq(policy, level + 1);
		ca->last_step = time;
	}
	ca->bg_level = level;
	return level < want ? level : want;
}

/* A change CFS alone asks for waits until rate_limit_us after the last. */
static bool rate_limited(const struct classaware_tunables *t, struct cpufreq_policy *policy,
			 const struct ca_policy *ca, u64 time)
{
	u64 limit = (u64)tunable_or(t->rate_limit_us, 1, TUNABLE_TIME_MAX_US,
				    bpf_cpufreq_transition_delay_us(policy)) * NSEC_PER_USEC;

	return (s64)(time - ca->last_update) < (s64)limit;
}

static u32 hispeed_freq(const struct classaware_tunables *t, struct cpufreq_policy *policy)
{
	return tunable_or(t->hispeed_freq, policy->cpuinfo.min_freq,
			  policy->cpuinfo.max_freq, policy->cpuinfo.max_freq);
}

/*
 * A demand that does not wait for the rate limit: RT work, more DL
 * bandwidth, or a latency-sensitive jump, up to @hispeed, above the
 * current frequency.
 */
static bool demand_urgent(const struct cpu_demand *d, struct cpufreq_policy *policy, u32 hispeed)
{
	u32 boost = d->boost_freq < hispeed ? d->boost_freq : hispeed;

	return d->top || d->urgent || policy->cur < boost;
}

/*
 * The policy's frequency: the highest demand of its CPUs.  @this_cpu: the
 * CPU whose update brought us here, or -1 from the sample timer.
 */
static void classaware_eval(struct cpufreq_policy *policy, struct ca_policy *ca,
			    s32 this_cpu, u64 time)
{
	struct classaware_tunables *t = policy_slot(&tunables, policy);
	u32 fg = 0, bg = 0, boost = 0, floor = 0, next, cpu, hispeed;
	bool urgent = ca->resend;
	struct cpu_demand d;

	if (!t)
		return;
	hispeed = hispeed_freq(t, policy);
	/*
	 * Within the rate limit only urgent work changes anything, and the
	 * CPU whose update came tells whether it has some before the others
	 * are walked: theirs comes with their own updates.  (The walk reads
	 * this CPU again; what the first reading took, more DL bandwidth,
	 * is in @urgent.)
	 */
	if (this_cpu >= 0) {
		cpu_demand(t, policy, this_cpu, time, &d);
		urgent |= demand_urgent(&d, policy, hispeed);
		if (!urgent && rate_limited(t, policy, ca, time))
			return;
	}
	for_each_policy_cpu(cpu, policy) {
		cpu_demand(t, policy, cpu, time, &d);
		if (d.top) {
			next = policy->cpuinfo.max_freq;
			urgent = true;
			goto request;
		}
		urgent |= d.urgent;
		boost = d.boost_freq > boost ? d.boost_freq : boost;
		floor = d.floor > floor ? d.floor : floor;
		if (d.background)
			bg = d.freq > bg ? d.freq : bg;
		else
			fg = d.freq > fg ? d.freq : fg;
		fg = d.own_freq > fg ? d.own_freq : fg;
	}
	fg = floor > fg ? floor : fg;
	/* A jump, up to hispeed_freq, does not wait for the rate limit. */
	if (boost > hispeed)
		boost = hispeed;
	if (policy->cur < boost)
		urgent = true;
	next = fg > boost ? fg : boost;
	if (bg > next) {
		bg = background_step(t, policy, ca, time, bg, floor);
		next = bg > next ? bg : next;
	} else if (!bg) {
		ca->bg_level = 0;
	}
	next = bpf_cpufreq_resolve_freq(policy, next);
request:
	if (!urgent && rate_limited(t, policy, ca, time))
		return;
	/*
	 * A CPU's signals changed while they were read: the rerun decides,
	 * past the rate limit if this evaluation found urgent work (whose
	 * signal, more DL bandwidth, it has taken).
	 */
	if (ca->rerun) {
		ca->resend |= urgent;
		return;
	}
	if (next == ca->next_freq && !ca->resend)
		return;
	/* The rate limit is between changes, not evaluations. */
	ca->last_update = time;
	ca->resend = 0;
	ca->next_freq = next;
	bpf_cpufreq_request(policy, next);
}

/*
 * Evaluates the policy now, and again later while it is above its minimum.
 * @cpu: the CPU whose update brought us here, or -1 from the sample timer.
 */
static void classaware_run(struct cpufreq_policy *policy, s32 cpu)
{
	struct ca_policy *ca = policy_slot(&ca_policies, policy);
	int pass;

	if (!ca)
		return;
	if (!gov_enter_or_rerun(ca)) {
		/*
		 * RT work does not wait for the other CPU's rerun: that CPU
		 * may be held up (a preempted vCPU, for milliseconds).  Its
		 * evaluation makes no request while the rerun is pending, and
		 * the rerun resends what it decides, the same or not.
		 */
		u32 rt = cpu >= 0 ? rt_runnable_freq(policy, cpu) : 0;

		/*
		 * Only up: below the last request it would drop the other
		 * CPUs' demands (a DL floor) until the rerun, and an RT task
		 * waking under uclamp is not counted in the clamp yet.
		 */
		if (rt > ca->next_freq) {
			ca->resend = 1;
			bpf_cpufreq_request(policy, rt);
		}
		return;
	}
	for (pass = 0; pass < 2; pass++) {
		/*
		 * One clock for update() and sample(): the rq clock is per
		 * CPU.  A rerun is for another CPU's signals: all are read.
		 */
		classaware_eval(policy, ca, pass ? -1 : cpu, bpf_ktime_get_ns());
		if (ca->next_freq > policy->min && !ca->recheck_armed &&
		    !bpf_cpufreq_sample_in(policy, RECHECK_US))
			ca->recheck_armed = 1;
		if (gov_leave_unless_rerun(ca))
			return;
	}
	/*
	 * A rerun's rerun goes to the sample timer, due now: left to the next
	 * update, an RT wake-up it stands for could run a tick below the top.
	 */
	gov_leave(ca);
	bpf_cpufreq_sample_in(policy, 0);
}

/*
 * A CFS wake-up on an idle CPU calls update() before the task is counted
 * in nr_running and in the runqueue's uclamp: it is judged by a sample
 * right after, once the wake-up is complete.
 */
static bool cfs_wakeup_on_idle(s32 cpu)
{
	struct rq *rq = bpf_per_cpu_ptr(&runqueues, cpu);

	return rq && !rq_curr(rq) && !rq->nr_running && !bpf_cpufreq_cpu_rt_runnable(cpu);
}

/*
 * An RT task waking on @cpu is not counted in the runqueue's uclamp either
 * when update() comes (enqueue_task() counts it after the class's enqueue,
 * which calls the hook).  With uclamp in use the RT level comes from that
 * clamp, so RT work that has just appeared on @cpu is judged again by a
 * sample at once (the framework keeps samples 1 ms apart), unless the
 * policy already asks for the top, as it does whenever uclamp is not in use.
 */
static bool rt_wakeup_unclamped(struct cpufreq_policy *policy, s32 cpu)
{
	struct ca_policy *ca = policy_slot(&ca_policies, policy);
	struct ca_cpu *ca_cpu = cpu_slot(&ca_cpus, cpu);
	bool rt = bpf_cpufreq_cpu_rt_runnable(cpu), appeared;

	if (!ca || !ca_cpu)
		return false;
	appeared = rt && !ca_cpu->rt_seen;
	ca_cpu->rt_seen = rt;
	return appeared && ca->next_freq < policy->cpuinfo.max_freq;
}

SEC("struct_ops/update")
void BPF_PROG(classaware_update, struct cpufreq_policy *policy, s32 cpu, u64 time, u32 flags)
{
	if (cfs_wakeup_on_idle(cpu)) {
		bpf_cpufreq_sample_in(policy, 0);
		return;
	}
	classaware_run(policy, cpu);
	if (rt_wakeup_unclamped(policy, cpu))
		bpf_cpufreq_sample_in(policy, 0);
}

SEC("struct_ops/sample")
void BPF_PROG(classaware_sample, struct cpufreq_policy *policy)
{
	struct ca_policy *ca = policy_slot(&ca_policies, policy);

	if (ca)
		ca->recheck_armed = 0;
	classaware_run(policy, -1);
}

SEC("struct_ops.s/start")
int BPF_PROG(classaware_start, struct cpufreq_policy *policy)
{
	struct ca_policy *ca = policy_slot(&ca_policies, policy);
	u32 cpu;

	if (!ca)
		return POLICY_OUT_OF_RANGE;

	ca->last_update = 0;
	ca->last_step = 0;
	ca->bg_level = 0;
	ca->next_freq = 0;
	ca->resend = 0;
	ca->recheck_armed = 0;
	ca->rerun = 0;
	ca->busy = 0;
	for_each_policy_cpu(cpu, policy) {
		struct ca_cpu *ca_cpu = cpu_slot(&ca_cpus, cpu);

		if (ca_cpu)
			__builtin_memset(ca_cpu, 0, sizeof(*ca_cpu));
	}
	return 0;
}

SEC("struct_ops.s/limits")
void BPF_PROG(classaware_limits, struct cpufreq_policy *policy)
{
	struct ca_policy *ca = policy_slot(&ca_policies, policy);

	/* The next update re-evaluates regardless of the rate limit. */
	if (ca)
		ca->resend = 1;
}

SEC(".struct_ops.link")
struct cpufreq_gov_ops classaware_ops = {
	.start	= (void *)classaware_start,
	.limits	= (void *)classaware_limits,
	.update	= (void *)classaware_update,
	.sample	= (void *)classaware_sample,
	.name	= "bpf_classaware",
};
