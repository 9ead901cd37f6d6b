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

#endif /* __GOV_COMMON_H */
