// SPDX-License-Identifier: GPL-2.0
/*
 * test_gov: a governor that exercises every op and kfunc of cpufreq_gov_ops
 * and records what it saw, for the selftests.
 *
 * It follows the busiest CPU of the policy the way schedutil does (25%
 * headroom over the effective utilization), or requests ctl.fixed_khz when
 * set.  The tests read `seen` from the .bss map and steer it through `ctl`
 * in the .data map.  Variants of it (another name, another version, one
 * that refuses every policy) are built from this file by the test_b,
 * test_v2, test_nogo and test_dup wrappers, whose file names differ in
 * their first 8 characters: libbpf names the .bss and .data maps after
 * those.
 */
#include <cpufreq_bpf.h>

char LICENSE[] SEC("license") = "GPL";

#ifndef TEST_GOV_NAME
#define TEST_GOV_NAME "bpf_test"
#endif
#ifndef TEST_GOV_VERSION
#define TEST_GOV_VERSION 1
#endif
#ifndef TEST_GOV_REFUSE_INIT
#define TEST_GOV_REFUSE_INIT 0
#endif
/* The struct_ops map's name, which is also its link's pin name. */
#ifndef TEST_GOV_OPS
#define TEST_GOV_OPS test_gov_ops
#endif

struct test_seen {
	u64 version;
	u64 init;
	u64 exit;
	u64 start;
	u64 stop;
	u64 limits;
	u64 update;
	u64 sample;
	u64 requests;
	u64 request_errors;
	u64 last_freq;
	u64 resolved_max;
	u64 transition_delay_us;
	u64 util;
	u64 util_min;
	u64 util_max;
	u64 util_cfs;
	u64 util_cfs_boost;
	u64 util_rt;
	u64 util_dl;
	u64 bw_dl;
	u64 rt_runnable;
	u64 nr_running;
	u64 capacity;
	u64 freq_invariant;
	u64 uclamp_capped;
	u64 exited;		/* it called bpf_cpufreq_exit_error() */
	u64 after_exit;		/* update() and sample() calls after that */
	u64 refused;		/* requests refused in stop() and exit() */
	u64 idle_us;
	u64 wall_us;
	u64 idle_calls;
	u64 max_util_cfs;
	u64 max_util_rt;
	u64 max_bw_dl;
	u64 rt_runnable_seen;
	u64 idle_samples;	/* samples that found no task on the policy */
	u64 woken_idle;		/* of those, ones after an idle one, nothing between */
	u64 idle_sample_ns;	/* when the last sample began if it was idle, else 0 */
	u64 local_update_ns;	/* when update() last ran for the CPU it runs on */
};

struct test_ctl {
	u32 fixed_khz;		/* request this frequency instead */
	u32 exit_error;		/* abort from the next update() or sample() */
	u32 refuse_init;	/* fail init() with -EBUSY */
};

struct test_seen seen;
/* In .data, even where it starts zeroed: the tests write that map alone. */
struct test_ctl ctl SEC(".data") = { .refuse_init = TEST_GOV_REFUSE_INIT };

static void record_signals(s32 cpu)
{
	unsigned long min = 0, max = 0;
	u64 wall = 0;

	seen.util = bpf_cpufreq_cpu_util_effective(cpu, &min, &max);
	seen.util_min = min;
	seen.util_max = max;
	seen.util_cfs = bpf_cpufreq_cpu_util_cfs(cpu);
	seen.util_cfs_boost = bpf_cpufreq_cpu_util_cfs_boost(cpu);
	seen.util_rt = bpf_cpufreq_cpu_util_rt(cpu);
	seen.util_dl = bpf_cpufreq_cpu_util_dl(cpu);
	seen.bw_dl = bpf_cpufreq_cpu_bw_dl(cpu);
	seen.rt_runnable = bpf_cpufreq_cpu_rt_runnable(cpu);
	seen.nr_running = bpf_cpufreq_cpu_nr_running(cpu);
	seen.capacity = bpf_cpufreq_cpu_capacity(cpu);
	seen.freq_invariant = bpf_cpufreq_freq_invariant();
	seen.uclamp_capped = bpf_cpufreq_cpu_uclamp_capped(cpu);
	seen.idle_us = bpf_cpufreq_cpu_idle_time_us(cpu, false, &wall);
	seen.wall_us = wall;
	seen.idle_calls = bpf_cpufreq_cpu_nohz_idle_calls(cpu);

	/* Peaks, so that short-lived RT and DL activity is not missed. */
	if (seen.util_cfs > seen.max_util_cfs)
		seen.max_util_cfs = seen.util_cfs;
	if (seen.util_rt > seen.max_util_rt)
		seen.max_util_rt = seen.util_rt;
	if (seen.bw_dl > seen.max_bw_dl)
		seen.max_bw_dl = seen.bw_dl;
	seen.rt_runnable_seen |= seen.rt_runnable;
}

/* The highest effective utilization among the policy's CPUs. */
static unsigned long policy_util(struct cpufreq_policy *policy)
{
	unsigned long util = 0, min, max;
	u32 cpu;

	for_each_policy_cpu(cpu, policy) {
		unsigned long u = bpf_cpufreq_cpu_util_effective(cpu, &min, &max);

		if (u > util)
			util = u;
	}
	return util;
}

static void request(struct cpufreq_policy *policy, u32 khz)
{
	int ret = bpf_cpufreq_request(policy, khz);

	seen.requests++;
	if (ret < 0)
		seen.request_errors++;
	else
		seen.last_freq = ret;
}

SEC("struct_ops.s/init")
int BPF_PROG(test_init, struct cpufreq_policy *policy)
{
	seen.version = TEST_GOV_VERSION;
	seen.init++;
	return ctl.refuse_init ? -16 /* EBUSY */ : 0;
}

/* Asks for the top frequency where no request is taken. */
static void request_refused(struct cpufreq_policy *policy)
{
	if (bpf_cpufreq_request(policy, policy->cpuinfo.max_freq) == -16 /* EBUSY */)
		seen.refused++;
}

SEC("struct_ops.s/exit")
void BPF_PROG(test_exit, struct cpufreq_policy *policy)
{
	seen.exit++;
	request_refused(policy);
}

SEC("struct_ops.s/start")
int BPF_PROG(test_start, struct cpufreq_policy *policy)
{
	seen.start++;
	seen.idle_sample_ns = 0;
	seen.transition_delay_us = bpf_cpufreq_transition_delay_us(policy);
	bpf_cpufreq_sample_in(policy, 1000);
	return 0;
}

SEC("struct_ops.s/stop")
void BPF_PROG(test_stop, struct cpufreq_policy *policy)
{
	seen.stop++;
	request_refused(policy);
}

SEC("struct_ops.s/limits")
void BPF_PROG(test_limits, struct cpufreq_policy *policy)
{
	seen.limits++;
	seen.resolved_max = bpf_cpufreq_resolve_freq(policy, 0xffffffff);
	bpf_cpufreq_flush(policy);
}

/*
 * Error-exits when told to, then counts the update() and sample() calls
 * that still come.  True when the op is to do nothing more.
 */
static bool exit_on_command(struct cpufreq_policy *policy)
{
	if (seen.exited) {
		__sync_fetch_and_add(&seen.after_exit, 1);
		return true;
	}
	if (!ctl.exit_error)
		return false;
	bpf_cpufreq_exit_error(policy, "test_gov was told to exit");
	seen.exited = 1;
	return true;
}

SEC("struct_ops/update")
void BPF_PROG(test_update, struct cpufreq_policy *policy, s32 cpu, u64 time, u32 flags)
{
	unsigned long util, cap;

	seen.version = TEST_GOV_VERSION;
	seen.update++;
	if (cpu == bpf_get_smp_processor_id())
		seen.local_update_ns = bpf_ktime_get_ns();
	if (exit_on_command(policy))
		return;

	record_signals(cpu);
	if (ctl.fixed_khz) {
		request(policy, ctl.fixed_khz);
		return;
	}

	util = policy_util(policy);
	cap = bpf_cpufreq_cpu_capacity(cpu) ?: SCHED_CAPACITY_SCALE;
	request(policy, map_util_freq(map_util_perf(util), policy->cpuinfo.max_freq, cap));
}

static bool policy_idle(struct cpufreq_policy *policy)
{
	u32 cpu;

	for_each_policy_cpu(cpu, policy)
		if (bpf_cpufreq_cpu_nr_running(cpu))
			return false;
	return true;
}

/*
 * It never changes the frequency from here, so after a sample that finds
 * no task on the policy the framework parks the timer until the scheduler's
 * hook finds a task on a CPU of the policy.  The criterion is stricter:
 * two idle samples with no update() of a CPU of the policy on that CPU
 * itself with a task on it, since the first began, mean that the second
 * woke an idle policy.  (A CPU that got a task in between, from elsewhere,
 * updates its runqueue itself when the task sleeps or ticks, before the
 * second sample, or has it still at the second.)
 */
static void record_idle_wakeup(struct cpufreq_policy *policy, u64 began)
{
	bool idle = policy_idle(policy);

	if (idle) {
		seen.idle_samples++;
		if (seen.idle_sample_ns && seen.local_update_ns < seen.idle_sample_ns)
			seen.woken_idle++;
	}
	seen.idle_sample_ns = idle ? began : 0;
}

SEC("struct_ops/sample")
void BPF_PROG(test_sample, struct cpufreq_policy *policy)
{
	u64 began = bpf_ktime_get_ns();

	seen.sample++;
	record_idle_wakeup(policy, began);
	exit_on_command(policy);
}

SEC(".struct_ops.link")
struct cpufreq_gov_ops TEST_GOV_OPS = {
	.init		= (void *)test_init,
	.exit		= (void *)test_exit,
	.start		= (void *)test_start,
	.stop		= (void *)test_stop,
	.limits		= (void *)test_limits,
	.update		= (void *)test_update,
	.sample		= (void *)test_sample,
	.sample_period_us = 20000,
	.name		= TEST_GOV_NAME,
};
