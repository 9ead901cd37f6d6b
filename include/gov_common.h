/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gov_common.h - helpers shared by the governors of bpf-governors/.
 */
#ifndef __GOV_COMMON_H
#define __GOV_COMMON_H

#include <cpufreq_bpf.h>
#include <freq_table.h>

/*
 * The scheduler tick of the running kernel: libbpf fills CONFIG_HZ in at
 * load time from /boot/config-$(uname -r) or /proc/config.gz, so one object
 * serves kernels of any tick rate.  Where neither is readable the object
 * does not load (the loader says why).
 */
extern unsigned int CONFIG_HZ __kconfig;
#define NSEC_PER_SEC		1000000000ULL
#define TICK_NSEC		((NSEC_PER_SEC + CONFIG_HZ / 2) / CONFIG_HZ)
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
 * clear, never waited for.  A value struct embeds GOV_EXCL as its first
 * member.
 *
 * gov_enter() / gov_leave(): the CPU that finds the section taken skips
 * it, for a section whose work the CPU inside does in full anyway.
 */
#define GOV_EXCL			\
	struct bpf_spin_lock lock;	\
	u32 busy;			\
	u32 rerun

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
 * gov_enter_or_rerun() / gov_leave_unless_rerun(): for an evaluation of
 * every CPU of a policy, which the in-kernel governors serialize on a
 * spinlock.  The CPU inside may have read this CPU's signals before the
 * change that brought this one here (an RT wake-up, a jump in
 * utilization): rather than skip, this one asks it to evaluate again.
 * gov_leave_unless_rerun() is false, the section kept, when a rerun was
 * asked for meanwhile; the caller evaluates once more, a bounded number of
 * times, and then leaves with gov_leave().
 */
#define gov_enter_or_rerun(s) ({			\
	bool __got;					\
	bpf_spin_lock(&(s)->lock);			\
	__got = !(s)->busy;				\
	if (__got)					\
		(s)->busy = 1;				\
	else						\
		(s)->rerun = 1;				\
	bpf_spin_unlock(&(s)->lock);			\
	__got;						\
})

#define gov_leave_unless_rerun(s) ({			\
	bool __again;					\
	bpf_spin_lock(&(s)->lock);			\
	__again = (s)->rerun;				\
	(s)->rerun = 0;					\
	if (!__again)					\
		(s)->busy = 0;				\
	bpf_spin_unlock(&(s)->lock);			\
	!__again;					\
})

#endif /* __GOV_COMMON_H */
