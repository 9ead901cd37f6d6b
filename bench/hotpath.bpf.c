// SPDX-License-Identifier: GPL-2.0
/*
 * hotpath: time spent in the scheduler's cpufreq update hook, per governor.
 *
 * fentry/fexit on the functions that cpufreq_update_util() calls through the
 * per-CPU hook pointer: in-kernel schedutil's sugov_update_shared() and
 * sugov_update_single_freq(), and the BPF framework's
 * cpufreq_bpf_update_util() (which calls the governor's update()).  Each
 * records sum and count of its durations in a per-CPU array, and how many
 * calls took each duration in a histogram; the hook runs with the runqueue
 * lock held and interrupts off, so it never nests on a CPU and one start
 * stamp per CPU is enough.
 *
 * The same pair on cpufreq_this_cpu_can_update(), a function of two tests
 * that both governors call inside the hook, measures what the probes
 * themselves add to every duration.  bench/guest measures with it alone
 * attached, and with the others without it (it would nest inside them).
 *
 * Under vmrun --icount the guest clock advances 4 ns per instruction, so a
 * duration in ns is four times the instructions it took.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

enum { SUGOV_SHARED, SUGOV_SINGLE, BPF_FRAMEWORK, PROBE_COST, NR_HOOKS };

/* Histogram resolution: one instruction in the deterministic mode. */
#define HIST_NS		4
#define HIST_MAX	(1U << 20)

struct hook_stat {
	u64 sum_ns;
	u64 count;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, NR_HOOKS);
	__type(key, u32);
	__type(value, struct hook_stat);
} hook_stats SEC(".maps");

/*
 * Calls per duration: key hook << 24 | duration / HIST_NS.  Sized for the
 * emulated mode too, where durations scatter over thousands of buckets; a
 * duration that finds it full is in hook_stats only.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, u32);
	__type(value, u64);
} hook_hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, u32);
	__type(value, u64);
} entered SEC(".maps");

static __always_inline void stamp(void)
{
	u32 zero = 0;
	u64 *t = bpf_map_lookup_elem(&entered, &zero);

	if (t)
		*t = bpf_ktime_get_ns();
}

static __always_inline void count_duration(u32 hook, u64 ns)
{
	u64 bucket = ns / HIST_NS, one = 1, *n;
	u32 key;

	if (bucket >= HIST_MAX)
		bucket = HIST_MAX - 1;
	key = hook << 24 | (u32)bucket;
	n = bpf_map_lookup_elem(&hook_hist, &key);
	if (n)
		__sync_fetch_and_add(n, 1);
	else if (bpf_map_update_elem(&hook_hist, &key, &one, BPF_NOEXIST) &&
		 (n = bpf_map_lookup_elem(&hook_hist, &key)))
		__sync_fetch_and_add(n, 1);	/* another CPU added it first */
}

static __always_inline void account(u32 hook)
{
	u64 now = bpf_ktime_get_ns();
	u32 zero = 0;
	u64 *t = bpf_map_lookup_elem(&entered, &zero);
	struct hook_stat *s = bpf_map_lookup_elem(&hook_stats, &hook);

	if (!t || !s || !*t)
		return;
	s->sum_ns += now - *t;
	s->count++;
	count_duration(hook, now - *t);
	*t = 0;
}

SEC("fentry/sugov_update_shared")
int BPF_PROG(shared_in) { stamp(); return 0; }
SEC("fexit/sugov_update_shared")
int BPF_PROG(shared_out) { account(SUGOV_SHARED); return 0; }

SEC("fentry/sugov_update_single_freq")
int BPF_PROG(single_in) { stamp(); return 0; }
SEC("fexit/sugov_update_single_freq")
int BPF_PROG(single_out) { account(SUGOV_SINGLE); return 0; }

SEC("fentry/cpufreq_bpf_update_util")
int BPF_PROG(bpf_in) { stamp(); return 0; }
SEC("fexit/cpufreq_bpf_update_util")
int BPF_PROG(bpf_out) { account(BPF_FRAMEWORK); return 0; }

SEC("fentry/cpufreq_this_cpu_can_update")
int BPF_PROG(probe_in) { stamp(); return 0; }
SEC("fexit/cpufreq_this_cpu_can_update")
int BPF_PROG(probe_out) { account(PROBE_COST); return 0; }
