/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gov_common.h - helpers shared by the governors of bpf-governors/.
 */
#ifndef __GOV_COMMON_H
#define __GOV_COMMON_H

#include <cpufreq_bpf.h>

/*
 * The scheduler tick.  BPF cannot read CONFIG_HZ at run time (libbpf's
 * __kconfig needs the kernel's config file, which the VM does not have), so
 * it is a build-time constant: the HZ of kernel-patch/config unless the
 * build says otherwise with -DGOV_HZ=...
 */
#ifndef GOV_HZ
#define GOV_HZ			250
#endif
#define NSEC_PER_SEC		1000000000ULL
#define TICK_NSEC		((NSEC_PER_SEC + GOV_HZ / 2) / GOV_HZ)
#define TICK_USEC		((u32)(TICK_NSEC / NSEC_PER_USEC))

/* Per-CPU array maps are keyed by CPU number. */
static __always_inline void *__cpu_slot(void *map, u32 cpu)
{
	return cpu < CPUFREQ_BPF_MAX_CPUS ? bpf_map_lookup_elem(map, &cpu) : NULL;
}
#define cpu_slot(map, cpu) __cpu_slot((void *)(map), (cpu))

/* A policy with more than one online CPU, as policy_is_shared(). */
static __always_inline bool policy_shared(const struct cpufreq_policy *policy)
{
	u64 bits = policy->cpus[0].bits[0];

	return bits & (bits - 1);
}

/*
 * Exclusive sections.  update() runs on every CPU of a policy at once, each
 * under its own runqueue lock, and sample() runs in a hard irq next to them,
 * so the per-policy state needs a lock.  bpf_spin_lock cannot be held over
 * a kfunc call, and the governors call kfuncs throughout, so the lock only
 * guards a "busy" word: the section is entered by the CPU that finds it
 * clear and skipped by the others, never waited for.  A CPU that skips
 * loses nothing the one inside does not already see: it reads every CPU's
 * signals.  A value struct embeds GOV_EXCL as its first member.
 */
#define GOV_EXCL			\
	struct bpf_spin_lock lock;	\
	u32 busy

#define gov_enter(s) ({					\
	bool __got;					\
	bpf_spin_lock(&(s)->lock);			\
	__got = !(s)->busy;				\
	(s)->busy = 1;					\
	bpf_spin_unlock(&(s)->lock);			\
	__got;						\
})

#define gov_leave(s) do {				\
	bpf_spin_lock(&(s)->lock);			\
	(s)->busy = 0;					\
	bpf_spin_unlock(&(s)->lock);			\
} while (0)

/*
 * The driver's frequency table.  Markers and flags from
 * include/linux/cpufreq.h; the relations are those of
 * __cpufreq_driver_target(), which BTF does not carry (they are macros).
 */
#define CPUFREQ_ENTRY_INVALID		(~0U)
#define CPUFREQ_TABLE_END		(~1U)
#define CPUFREQ_INEFFICIENT_FREQ	(1U << 0)
#define CPUFREQ_RELATION_L		0	/* lowest frequency at or above */
#define CPUFREQ_RELATION_H		1	/* highest frequency at or below */
#define CPUFREQ_RELATION_C		2	/* closest frequency */
#define CPUFREQ_RELATION_E		(1U << 2)	/* skip inefficient frequencies */
#define CPUFREQ_MAX_OPPS		32	/* bound for the verifier */

/*
 * The entries of @table (a struct cpufreq_frequency_table *) around
 * @target within [@min, @max]: the highest at or below it in the low 32
 * bits, the lowest at or above it in the high ones, 0 where there is none.
 * With @efficient, entries the energy model marks inefficient are skipped,
 * as CPUFREQ_RELATION_E does.  The table is read with
 * bpf_probe_read_kernel(): the verifier does not let a program index a
 * kernel array.  A global function, so that the verifier walks the loop
 * once rather than at every call.
 */
__noinline u64 freq_table_bounds(u64 table, u32 target, u32 min, u32 max, bool efficient)
{
	struct cpufreq_frequency_table entry, *t = (void *)table;
	u32 i, f, lo = 0, hi = 0;

	for (i = 0; i < CPUFREQ_MAX_OPPS; i++) {
		if (bpf_probe_read_kernel(&entry, sizeof(entry), &t[i]))
			break;
		f = entry.frequency;
		if (f == CPUFREQ_TABLE_END)
			break;
		if (f == CPUFREQ_ENTRY_INVALID || f < min || f > max ||
		    (efficient && (entry.flags & CPUFREQ_INEFFICIENT_FREQ)))
			continue;
		if (f <= target && f > lo)
			lo = f;
		if (f >= target && (!hi || f < hi))
			hi = f;
	}
	return (u64)hi << 32 | lo;
}

/*
 * freq_table_bounds() of the policy's table within its limits: *@lo and
 * *@hi.  False without a table (intel_cpufreq, amd-pstate).
 */
static __always_inline bool table_bounds(struct cpufreq_policy *policy, u32 target,
					 bool efficient, u32 *lo, u32 *hi)
{
	u64 table, bounds;

	*lo = *hi = 0;
	if (bpf_probe_read_kernel(&table, sizeof(table), &policy->freq_table) || !table)
		return false;
	bounds = freq_table_bounds(table, target, policy->min, policy->max,
				   efficient && policy->efficiencies_available);
	*lo = (u32)bounds;
	*hi = bounds >> 32;
	return true;
}

/*
 * The table frequency __cpufreq_driver_target(policy, @target, @relation)
 * switches to: @target clamped to the limits, then the relation's entry.
 * bpf_cpufreq_request() always resolves with CPUFREQ_RELATION_L, so a
 * governor that wants another relation requests this frequency.  Without
 * a table, the clamped target: the driver resolves it.
 */
static __always_inline u32 table_freq(struct cpufreq_policy *policy, u32 target, u32 relation)
{
	u32 lo, hi;

	if (target > policy->max)
		target = policy->max;
	if (target < policy->min)
		target = policy->min;
	if (!table_bounds(policy, target, relation & CPUFREQ_RELATION_E, &lo, &hi) ||
	    (!lo && !hi))
		return target;
	if (!lo || !hi)
		return lo ?: hi;
	switch (relation & ~CPUFREQ_RELATION_E) {
	case CPUFREQ_RELATION_H:
		return lo;
	case CPUFREQ_RELATION_C:
		/* A tie goes to the lower one, as cpufreq_table_find_index_c(). */
		return target - lo <= hi - target ? lo : hi;
	default:
		return hi;
	}
}

/* __cpufreq_driver_target() from a governor: requests table_freq(). */
static __always_inline void driver_target(struct cpufreq_policy *policy, u32 target,
					  u32 relation)
{
	bpf_cpufreq_request(policy, table_freq(policy, target, relation));
}

/*
 * Load sampling of the classic governors, ondemand and conservative:
 * dbs_update() of drivers/cpufreq/cpufreq_governor.c.  Each governor keeps
 * a struct dbs_cpu per CPU in an array map keyed by CPU number.
 */
#define DBS_MIN_SAMPLING_RATE	(2 * TICK_USEC)	/* CPUFREQ_DBS_MIN_SAMPLING_INTERVAL */
#define DBS_MAX_SAMPLING_RATE	10000000U	/* a bound for the tunable: 10 s */

/*
 * The sampling_rate tunable: at least two ticks, and by default the
 * driver's transition delay if that is longer, as cpufreq_dbs_governor_init().
 */
static __always_inline u32 dbs_sampling_rate(struct cpufreq_policy *policy, u32 val)
{
	u32 def = bpf_cpufreq_transition_delay_us(policy);

	if (def < DBS_MIN_SAMPLING_RATE)
		def = DBS_MIN_SAMPLING_RATE;
	return tunable_or(val, DBS_MIN_SAMPLING_RATE, DBS_MAX_SAMPLING_RATE, def);
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
};

/* dbs_update_util_handler(); @time is update()'s. */
static __always_inline void dbs_update_util(struct cpufreq_policy *policy,
					    struct dbs_policy *d, u64 time)
{
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
 * The io_is_busy and ignore_nice_load tunables, as the governors' maps hold
 * them: 0 or 1, anything else is the default 0.
 */
static __always_inline bool dbs_flag(u32 val)
{
	return tunable_or(val, 0, 1, 0);
}

/*
 * cpufreq_dbs_governor_start()'s part: every CPU's window starts now, and
 * the first scheduler update samples (gov_set_update_util()).
 */
static __always_inline void dbs_start(struct cpufreq_policy *policy, void *cpus,
				      struct dbs_policy *d, u32 io_is_busy,
				      u32 ignore_nice_load)
{
	bool io_busy = dbs_flag(io_is_busy), ignore_nice = dbs_flag(ignore_nice_load);
	u32 cpu;

	d->last_sample_time = 0;
	d->sample_delay_ns = 0;

	for_each_policy_cpu(cpu, policy) {
		struct dbs_cpu *c = cpu_slot(cpus, cpu);

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

/*
 * dbs_update(): the highest load of the policy's CPUs, and what goes with
 * it, with the tunables io_is_busy and ignore_nice_load as in the map.
 */
static __always_inline struct dbs_sample dbs_update(struct cpufreq_policy *policy, void *cpus,
						    u32 io_is_busy, u32 ignore_nice_load,
						    u64 sampling_rate)
{
	bool io_busy = dbs_flag(io_is_busy), ignore_nice = dbs_flag(ignore_nice_load);
	struct dbs_sample s = { .idle_periods = ~0U };
	u32 cpu;

	for_each_policy_cpu(cpu, policy) {
		struct dbs_cpu *c = cpu_slot(cpus, cpu);

		if (c)
			dbs_cpu_update(c, cpu, io_busy, ignore_nice, sampling_rate, &s);
	}
	return s;
}

#endif /* __GOV_COMMON_H */
