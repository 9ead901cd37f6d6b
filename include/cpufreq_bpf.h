/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpufreq_bpf.h - what a BPF cpufreq governor includes.
 *
 * A governor is a struct cpufreq_gov_ops in a ".struct_ops.link" section
 * whose ops are BPF programs; see docs/ for the ops and kfunc reference.
 * The kfuncs below are those of kernel/sched/cpufreq_bpf.c.
 */
#ifndef __CPUFREQ_BPF_H
#define __CPUFREQ_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define SCHED_CAPACITY_SHIFT	10
#define SCHED_CAPACITY_SCALE	(1UL << SCHED_CAPACITY_SHIFT)
#define SCHED_CPUFREQ_IOWAIT	(1U << 0)
#define NSEC_PER_USEC		1000ULL
#define NSEC_PER_MSEC		1000000ULL
#define USEC_PER_MSEC		1000U

/*
 * Governors handle policies with a CPU below this number: per-policy and
 * per-CPU maps have this many entries, and the policy's CPU masks are read
 * a 64-bit word at a time, the first word only.  A build may lower it.
 */
#ifndef CPUFREQ_BPF_MAX_CPUS
#define CPUFREQ_BPF_MAX_CPUS	64
#endif
#if CPUFREQ_BPF_MAX_CPUS > 64
#error "CPUFREQ_BPF_MAX_CPUS: the CPU masks are read from their first word only"
#endif

/*
 * What start() returns for a policy it has no map slot for (its CPUs all
 * at or above CPUFREQ_BPF_MAX_CPUS): the write to scaling_governor fails
 * with ERANGE and the policy keeps its governor.
 */
#define ERANGE			34
#define POLICY_OUT_OF_RANGE	(-ERANGE)

/* Requesting and switching; requests are taken from start() to stop() */
extern int bpf_cpufreq_request(struct cpufreq_policy *policy, u32 freq_khz) __ksym;
extern u32 bpf_cpufreq_resolve_freq(struct cpufreq_policy *policy, u32 freq_khz) __ksym;
extern int bpf_cpufreq_flush(struct cpufreq_policy *policy) __ksym;
extern u32 bpf_cpufreq_transition_delay_us(struct cpufreq_policy *policy) __ksym;

/*
 * Performance levels, where the driver takes them (->adjust_perf(): HWP,
 * CPPC) on a policy of one CPU switched fast; from update() only.
 */
extern bool bpf_cpufreq_perf_possible(struct cpufreq_policy *policy) __ksym;
extern int bpf_cpufreq_adjust_perf(struct cpufreq_policy *policy, s32 cpu,
				   unsigned long min_perf, unsigned long target_perf,
				   unsigned long capacity) __ksym;

/* Sampling and exit */
extern int bpf_cpufreq_set_sample_period(struct cpufreq_policy *policy, u32 period_us) __ksym;
/* The next sample() in @delay_us, but no sooner than 1 ms after the last. */
extern int bpf_cpufreq_sample_in(struct cpufreq_policy *policy, u32 delay_us) __ksym;
extern void bpf_cpufreq_exit_error(struct cpufreq_policy *policy, const char *reason__str) __ksym;

/* Scheduler signals of one CPU */
extern unsigned long bpf_cpufreq_cpu_util_cfs(s32 cpu) __ksym;
extern unsigned long bpf_cpufreq_cpu_util_cfs_boost(s32 cpu) __ksym;
extern unsigned long bpf_cpufreq_cpu_util_effective(s32 cpu, unsigned long *min,
						    unsigned long *max) __ksym;
extern unsigned long bpf_cpufreq_cpu_util_rt(s32 cpu) __ksym;
extern unsigned long bpf_cpufreq_cpu_util_dl(s32 cpu) __ksym;
extern unsigned long bpf_cpufreq_cpu_bw_dl(s32 cpu) __ksym;
extern bool bpf_cpufreq_cpu_rt_runnable(s32 cpu) __ksym;
extern u32 bpf_cpufreq_cpu_nr_running(s32 cpu) __ksym;
extern unsigned long bpf_cpufreq_cpu_capacity(s32 cpu) __ksym;
extern u32 bpf_cpufreq_cpu_freq_ref(s32 cpu) __ksym;
extern bool bpf_cpufreq_freq_invariant(void) __ksym;
extern bool bpf_cpufreq_cpu_uclamp_capped(s32 cpu) __ksym;
extern u64 bpf_cpufreq_cpu_idle_time_us(s32 cpu, bool io_is_busy, u64 *wall_us) __ksym;
extern unsigned long bpf_cpufreq_cpu_nohz_idle_calls(s32 cpu) __ksym;

/* The CPUs a governor can keep state for, as a mask of the first word. */
#define CPUFREQ_BPF_CPUS_MASK							\
	(CPUFREQ_BPF_MAX_CPUS == 64 ? ~0ULL : (1ULL << (CPUFREQ_BPF_MAX_CPUS % 64)) - 1)

/*
 * Iterates @cpu over the policy's online CPUs below CPUFREQ_BPF_MAX_CPUS,
 * over the set bits of their mask: a policy of two CPUs costs two turns on
 * the scheduler's hot path, not one per possible CPU.  The turn count is
 * the bound the verifier sees; it does not see @cpu below
 * CPUFREQ_BPF_MAX_CPUS, so per-CPU state is reached through cpu_slot().
 * @cpu is not defined after the loop.
 */
#define for_each_policy_cpu(cpu, policy)					\
	for (u64 __cpus = (policy)->cpus[0].bits[0] & CPUFREQ_BPF_CPUS_MASK, __turn = 0; \
	     __cpus && __turn < CPUFREQ_BPF_MAX_CPUS &&				\
	     ((cpu) = __builtin_ctzll(__cpus), true);				\
	     __cpus &= __cpus - 1, __turn++)

/* Utilization plus the 25% DVFS headroom: 6.12's map_util_perf(). */
static __always_inline unsigned long map_util_perf(unsigned long util)
{
	return util + (util >> 2);
}

/* The frequency @util of @cap asks for at @freq: 6.12's map_util_freq(). */
static __always_inline unsigned long map_util_freq(unsigned long util,
						   unsigned long freq,
						   unsigned long cap)
{
	return freq * util / cap;
}

/*
 * schedutil's performance level of a CPU: @util plus the DVFS headroom,
 * capped by uclamp.max (@max) and never below what DL, irq and uclamp.min
 * need (@min), as bpf_cpufreq_cpu_util_effective() reports them.
 */
static __always_inline unsigned long effective_cpu_perf(unsigned long util,
							unsigned long min,
							unsigned long max)
{
	util = map_util_perf(util);
	if (util > max)
		util = max;
	return util > min ? util : min;
}

/*
 * The frequency utilization is scaled against, schedutil's
 * get_capacity_ref_freq(): the one at which the architecture measures
 * capacity, where it gives one (arm64: under the top with boost or CPPC);
 * else the top one when utilization is frequency invariant; else 25% over
 * the current one, to go up before the CPU is full.
 */
static __always_inline u32 capacity_ref_freq(const struct cpufreq_policy *policy)
{
	u32 ref = bpf_cpufreq_cpu_freq_ref(policy->cpu);

	if (ref)
		return ref;
	if (bpf_cpufreq_freq_invariant())
		return policy->cpuinfo.max_freq;
	return policy->cur + (policy->cur >> 2);
}

/*
 * A policy's stable id: its first CPU, online or not.  Per-policy map slots,
 * tunables included, are keyed by it; it is N in /sys/.../cpufreq/policyN.
 * A policy with no CPU below CPUFREQ_BPF_MAX_CPUS gets CPUFREQ_BPF_MAX_CPUS,
 * which no map has a slot for.
 */
static __always_inline u32 policy_id(const struct cpufreq_policy *policy)
{
	u64 bits = policy->related_cpus[0].bits[0];
	u32 first = bits ? __builtin_ctzll(bits) : CPUFREQ_BPF_MAX_CPUS;

	return first < CPUFREQ_BPF_MAX_CPUS ? first : CPUFREQ_BPF_MAX_CPUS;
}

/* The entry of a per-policy array map for @policy. */
#define policy_slot(map, policy) ({					\
	u32 __key = policy_id(policy);					\
	bpf_map_lookup_elem(map, &__key);				\
})

/*
 * Tunables.  A governor keeps them in one array map named "tunables" whose
 * value is a named struct: one entry for global tunables, or
 * CPUFREQ_BPF_MAX_CPUS entries keyed by policy_id() for per-policy ones.
 * Users write it through the loader, bpftool or anything else, so every
 * field is checked where it is used and replaced by its default when it is
 * outside its range; 0 always means "the default".  The tags below tell the
 * loader the accepted range and how to show a field.
 */
#define __tunable_str(x) #x
#define __tunable_xstr(x) __tunable_str(x)
/* Bounds may be macros: the tag holds the number they expand to. */
#define __tunable_range(min, max) \
	__attribute__((btf_decl_tag("range:" __tunable_xstr(min) ":" __tunable_xstr(max))))
/*
 * A minimum of @n ticks of the running kernel, as the code applies it: the
 * loader reads CONFIG_HZ where libbpf does and puts it in place of the
 * range's minimum, which is then the value at HZ=250 (for where the
 * configuration is not readable, as on another machine).
 */
#define __tunable_min_ticks(n) __attribute__((btf_decl_tag("min_ticks:" __tunable_xstr(n))))
#define __tunable_unit(unit) __attribute__((btf_decl_tag("unit:" unit)))
/*
 * The longest time tunable, in us: the framework's longest sample period
 * (CPUFREQ_GOV_OPS_MAX_SAMPLE_US, 10 s), which no wait of a governor can
 * usefully exceed.  Unsuffixed, so that a range tag shows a plain number.
 */
#define TUNABLE_TIME_MAX_US	10000000
/* A u32 array holding interactive's "load freq:load ..." lists, 0-ended. */
#define __tunable_freq_list __attribute__((btf_decl_tag("format:freq_list")))
/*
 * What 0 stands for, so that the loader shows it without loading the
 * object: __tunable_default(DEFAULT_X) with the very #define the code
 * applies, expanded to a plain number ("default:40000"; an expression such
 * as (4 * X) stays text), or __tunable_default_is("text") for a default
 * that depends on the hardware ("default_is:the policy's max").
 */
#define __tunable_default(v) __attribute__((btf_decl_tag("default:" __tunable_xstr(v))))
#define __tunable_default_is(text) __attribute__((btf_decl_tag("default_is:" text)))

/*
 * @val when within [@min, @max], else @def: a tunable whose kernel store
 * refuses values out of range (the governor keeps working on the default).
 */
static __always_inline u32 tunable_or(u32 val, u32 min, u32 max, u32 def)
{
	return val >= min && val <= max ? val : def;
}

/* A tunable whose kernel store clamps: above @max is @max, 0 is @def. */
static __always_inline u32 tunable_clamp(u32 val, u32 max, u32 def)
{
	return !val ? def : val < max ? val : max;
}

/* A boolean tunable: any value but 0 is true, as the kernel's stores read it. */
static __always_inline bool tunable_bool(u32 val)
{
	return val;
}

#endif /* __CPUFREQ_BPF_H */
