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

#endif /* __GOV_COMMON_H */
