/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dbs.h - the load sampling shared by bpf_ondemand and bpf_conserv, as
 * drivers/cpufreq/cpufreq_governor.c shares it between ondemand and
 * conservative.
 */
#ifndef __DBS_H
#define __DBS_H

#include <gov_common.h>

/*
 * Load sampling of the classic governors, ondemand and conservative:
 * dbs_update() of drivers/cpufreq/cpufreq_governor.c.  A governor that
 * includes this keeps a struct dbs_cpu per CPU in the map dbs_cpus.
 */
#define DBS_MIN_SAMPLING_TICKS	2	/* CPUFREQ_DBS_MIN_SAMPLING_INTERVAL */
#define DBS_MIN_SAMPLING_RATE	(DBS_MIN_SAMPLING_TICKS * TICK_USEC)

/*
 * The sampling_rate tunable: at least two ticks, and by default the
 * driver's transition delay if that is longer, as cpufreq_dbs_governor_init().
 * Its tags: the range at HZ=250, and the minimum in ticks for the loader.
 */
#define DBS_SAMPLING_RATE_TAGS						\
	__tunable_range(8000, TUNABLE_TIME_MAX_US) __tunable_unit("us")	\
	__tunable_min_ticks(DBS_MIN_SAMPLING_TICKS)			\
	__tunable_default_is("max(2 ticks, the driver's transition delay)")

static __always_inline u32 dbs_sampling_rate(struct cpufreq_policy *policy, u32 val)
{
	u32 def = bpf_cpufreq_transition_delay_us(policy);

	if (def < DBS_MIN_SAMPLING_RATE)
		def = DBS_MIN_SAMPLING_RATE;
	return tunable_or(val, DBS_MIN_SAMPLING_RATE, TUNABLE_TIME_MAX_US, def);
}

/*
 * When the sampling governors sample: policy_dbs_info's part.  In-kernel
 * they have no timer: a scheduler update on a CPU of the policy at least
 * sample_delay_ns after the last sample queues the next one.  Their
 * update() does the same with dbs_update_util(), and sample(), which
 * computes the next delay, runs at once on that CPU.  A policy whose CPUs
 * idle is not sampled, so its frequency stays until one of them runs
 * again, and that sample then sees the long idle (prev_load, idle_periods).
 */
struct dbs_policy {
	u64 last_sample_time;	/* ns, the scheduler's clock */
	u64 sample_delay_ns;
	u32 sampling_rate;	/* the tunable as last seen, raw */
};

/*
 * dbs_update_util_handler(); @time is update()'s, @sampling_rate the
 * tunable as it is now.  A changed sampling_rate applies at once, as its
 * sysfs store does (gov_update_sample_delay()): the next update samples,
 * and that sample sets the delay from the new rate.
 */
static __always_inline void dbs_update_util(struct cpufreq_policy *policy,
					    struct dbs_policy *d, u64 time,
					    u32 sampling_rate)
{
	if (sampling_rate != d->sampling_rate) {
		d->sampling_rate = sampling_rate;
		d->sample_delay_ns = 0;
	}
	/*
	 * Two CPUs of a shared policy may both get here: both arm the same
	 * sample timer, and one sample runs.
	 */
	if ((s64)(time - d->last_sample_time) < (s64)d->sample_delay_ns)
		return;
	d->last_sample_time = time;
	bpf_cpufreq_sample_in(policy, 0);
}

/* gov_update_sample_delay(): the next sample at least @delay_us from the last. */
static __always_inline void dbs_set_sample_delay(struct dbs_policy *d, u64 delay_us)
{
	d->sample_delay_ns = delay_us * NSEC_PER_USEC;
}

struct dbs_cpu {
	u64 prev_cpu_idle;	/* us */
	u64 prev_update_time;	/* us */
	u64 prev_cpu_nice;	/* ns */
	u32 prev_load;		/* % */
	u32 mode;		/* dbs_mode() the readings above were taken in */
};

/* Per-CPU load windows, keyed by CPU. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CPUFREQ_BPF_MAX_CPUS);
	__type(key, u32);
	__type(value, struct dbs_cpu);
} dbs_cpus SEC(".maps");

/* What one dbs_update() saw over the policy's CPUs. */
struct dbs_sample {
	u32 load;		/* the highest load, prev_load after a long idle */
	u32 max_sample_load;	/* the highest load actually measured */
	u32 idle_periods;	/* sampling periods of the shortest long idle, or ~0 */
};

/*
 * Nice time has no kfunc: it is the scheduler's per-CPU kernel_cpustat,
 * read as kcpustat_field() does without VIRT_CPU_ACCOUNTING_GEN (tick
 * accounting, ns).
 */
extern struct kernel_cpustat kernel_cpustat __ksym;

static __always_inline u64 cpu_nice_ns(u32 cpu)
{
	struct kernel_cpustat *kcs = bpf_per_cpu_ptr(&kernel_cpustat, cpu);

	return kcs ? kcs->cpustat[CPUTIME_NICE] : 0;
}

/* Readings taken with different io_is_busy or ignore_nice_load do not compare. */
static __always_inline u32 dbs_mode(bool io_busy, bool ignore_nice)
{
	return 1 | io_busy << 1 | ignore_nice << 2;
}

/* Starts @cpu's window now: gov_update_cpu_data() for one CPU. */
static __always_inline void dbs_cpu_rebase(struct dbs_cpu *c, u32 cpu, bool io_busy,
					   bool ignore_nice)
{
	c->prev_cpu_idle = bpf_cpufreq_cpu_idle_time_us(cpu, io_busy, &c->prev_update_time);
	c->prev_cpu_nice = ignore_nice ? cpu_nice_ns(cpu) : 0;
	c->mode = dbs_mode(io_busy, ignore_nice);
}

/*
 * cpufreq_dbs_governor_start()'s part: every CPU's window starts now, and
 * the first scheduler update samples (gov_set_update_util()).
 */
static __always_inline void dbs_start(struct cpufreq_policy *policy,
				      struct dbs_policy *d, u32 io_is_busy,
				      u32 ignore_nice_load)
{
	bool io_busy = tunable_bool(io_is_busy), ignore_nice = tunable_bool(ignore_nice_load);
	u32 cpu;

	d->last_sample_time = 0;
	d->sample_delay_ns = 0;

	for_each_policy_cpu(cpu, policy) {
		struct dbs_cpu *c = cpu_slot(&dbs_cpus, cpu);

		if (!c)
			continue;
		dbs_cpu_rebase(c, cpu, io_busy, ignore_nice);
		c->prev_load = 0;	/* the first sample computes the load */
	}
}

/*
 * One CPU's part of dbs_update(): its load since the last sample, in
 * percent of the wall time, with @sampling_rate (us, times the governor's
 * rate multiplier) telling a long idle.  A CPU whose readings were taken
 * in another mode (io_is_busy or ignore_nice_load changed, as the sysfs
 * stores did with gov_update_cpu_data()) starts a new window and keeps its
 * previous load.
 */
static __always_inline void dbs_cpu_update(struct dbs_cpu *c, u32 cpu, bool io_busy,
					   bool ignore_nice, u64 sampling_rate,
					   struct dbs_sample *s)
{
	u64 update_time, cur_idle_time, idle_time, time_elapsed;
	u32 load, sample_load;

	if (c->mode != dbs_mode(io_busy, ignore_nice))
		dbs_cpu_rebase(c, cpu, io_busy, ignore_nice);

	cur_idle_time = bpf_cpufreq_cpu_idle_time_us(cpu, io_busy, &update_time);
	time_elapsed = update_time - c->prev_update_time;
	c->prev_update_time = update_time;
	idle_time = cur_idle_time > c->prev_cpu_idle ? cur_idle_time - c->prev_cpu_idle : 0;
	c->prev_cpu_idle = cur_idle_time;

	if (ignore_nice) {
		u64 cur_nice = cpu_nice_ns(cpu);

		idle_time += (cur_nice - c->prev_cpu_nice) / NSEC_PER_USEC;
		c->prev_cpu_nice = cur_nice;
	}

	if (!time_elapsed)
		sample_load = c->prev_load;
	else if (time_elapsed > idle_time)
		sample_load = 100 * (time_elapsed - idle_time) / time_elapsed;
	else
		sample_load = 0;

	if (!time_elapsed) {
		load = c->prev_load;
	} else if (idle_time > 2 * sampling_rate && c->prev_load) {
		/*
		 * Back from a long idle: judge the task that woke the CPU by
		 * the load before it, once, rather than by a window of idle.
		 */
		load = c->prev_load;
		c->prev_load = 0;
	} else {
		load = sample_load;
		c->prev_load = load;
	}

	if (idle_time > 2 * sampling_rate) {
		u64 periods = idle_time / sampling_rate;

		if (periods < s->idle_periods)
			s->idle_periods = periods;
	}
	if (load > s->load)
		s->load = load;
	if (sample_load > s->max_sample_load)
		s->max_sample_load = sample_load;
}

/* What dbs_update_cpu() carries from one CPU to the next. */
struct dbs_walk {
	u64 cpus;		/* the policy's online CPUs, a bit each */
	u64 sampling_rate;
	bool io_busy;
	bool ignore_nice;
	struct dbs_sample s;
};

/*
 * CPU @cpu's part of a dbs_update() walk.  A bpf_loop() callback: the
 * verifier checks it once, not once per CPU with every combination of the
 * loads so far.
 */
static long dbs_update_cpu(u64 cpu, void *data)
{
	struct dbs_walk *w = data;
	struct dbs_cpu *c;

	if (!(w->cpus >> cpu & 1))
		return 0;
	c = cpu_slot(&dbs_cpus, cpu);
	if (c)
		dbs_cpu_update(c, cpu, w->io_busy, w->ignore_nice, w->sampling_rate, &w->s);
	return 0;
}

/*
 * dbs_update(): the highest load of the policy's CPUs, and what goes with
 * it, with the tunables io_is_busy and ignore_nice_load as in the map.
 */
static __always_inline struct dbs_sample dbs_update(struct cpufreq_policy *policy,
						    u32 io_is_busy, u32 ignore_nice_load,
						    u64 sampling_rate)
{
	struct dbs_walk w = {
		.cpus = policy->cpus[0].bits[0],
		.sampling_rate = sampling_rate,
		.io_busy = tunable_bool(io_is_busy),
		.ignore_nice = tunable_bool(ignore_nice_load),
		.s = { .idle_periods = ~0U },
	};

	bpf_loop(CPUFREQ_BPF_MAX_CPUS, dbs_update_cpu, &w, 0);
	return w.s;
}

#endif /* __DBS_H */
