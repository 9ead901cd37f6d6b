/* SPDX-License-Identifier: GPL-2.0 */
/*
 * freq_table.h - the driver's frequency table, read from a BPF governor:
 * the entries around a frequency, and the one __cpufreq_driver_target()
 * would pick for a relation.
 */
#ifndef __FREQ_TABLE_H
#define __FREQ_TABLE_H

#include <cpufreq_bpf.h>

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
/*
 * A bound on a table's length, only against a table without its end
 * marker: the walk is a bpf_loop(), whose length costs the verifier nothing,
 * and no driver comes near it (qcom-cpufreq-hw's tables reach 40).
 */
#define CPUFREQ_TABLE_MAX_ENTRIES	1024

/* What freq_table_step() keeps while walking a table. */
struct freq_table_walk {
	u64 table;		/* struct cpufreq_frequency_table * */
	u32 target, min, max;
	bool efficient;
	u32 lo, hi;		/* the entries found so far, 0 for none */
};

/*
 * Entry @i of a table_bounds() walk.  The table is read with
 * bpf_probe_read_kernel(): the verifier does not let a program index a
 * kernel array.  1 ends the walk.
 */
static long freq_table_step(u64 i, void *data)
{
	struct freq_table_walk *w = data;
	struct cpufreq_frequency_table entry;
	u32 f;

	if (bpf_probe_read_kernel(&entry, sizeof(entry),
				  (void *)(w->table + i * sizeof(entry))))
		return 1;
	f = entry.frequency;
	if (f == CPUFREQ_TABLE_END)
		return 1;
	if (f == CPUFREQ_ENTRY_INVALID || f < w->min || f > w->max ||
	    (w->efficient && (entry.flags & CPUFREQ_INEFFICIENT_FREQ)))
		return 0;
	if (f <= w->target && f > w->lo)
		w->lo = f;
	if (f >= w->target && (!w->hi || f < w->hi))
		w->hi = f;
	return 0;
}

/*
 * The entries of the policy's table around @target within its limits:
 * *@lo the highest at or below it, *@hi the lowest at or above it, 0 where
 * there is none.  With @efficient, entries the energy model marks
 * inefficient are skipped, as CPUFREQ_RELATION_E does.  False without a
 * table (intel_cpufreq, amd-pstate).  A table may be in any order.
 */
static __always_inline bool table_bounds(struct cpufreq_policy *policy, u32 target,
					 bool efficient, u32 *lo, u32 *hi)
{
	struct freq_table_walk w = {
		.target = target,
		.min = policy->min,
		.max = policy->max,
		.efficient = efficient && policy->efficiencies_available,
	};

	*lo = *hi = 0;
	if (bpf_probe_read_kernel(&w.table, sizeof(w.table), &policy->freq_table) || !w.table)
		return false;
	bpf_loop(CPUFREQ_TABLE_MAX_ENTRIES, freq_table_step, &w, 0);
	*lo = w.lo;
	*hi = w.hi;
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

#endif /* __FREQ_TABLE_H */
