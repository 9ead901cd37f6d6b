#!/usr/bin/env bats
# Energy Aware Scheduling with BPF governors, in a VM whose clusters differ
# in capacity (vmrun --capacity 512,1024: CPUs 0-1 little, 2-3 big).  EAS
# runs only while every policy has a governor that keeps it: schedutil, or
# a BPF governor declaring CPUFREQ_GOV_OPS_EAS.  Whether it runs is decided
# when the scheduler rebuilds its domains, from a work item after each
# governor change.  With sched/verbose on, for the whole file, the kernel
# logs each start and stop (sched_energy_set()): the last line says whether
# EAS runs, and no line yet that it runs as it did at boot under schedutil.
# Every test starts with EAS running, and waits for it to flip.

load lib
load governors_lib

VERBOSE=/sys/kernel/debug/sched/verbose

setup_file() {
	echo Y > "$VERBOSE"
}

teardown_file() {
	echo N > "$VERBOSE"
}

setup() {
	off_policy0
	reset_policies
	wait_for 10 eas_running
}

teardown() {
	if [ -n "${TASK:-}" ]; then kill "$TASK" 2>/dev/null || true; wait "$TASK" 2>/dev/null || true; fi
	if [ -n "${RTAPP:-}" ]; then kill "$RTAPP" 2>/dev/null || true; wait "$RTAPP" 2>/dev/null || true; fi
	echo 950000 > /proc/sys/kernel/sched_rt_runtime_us
	restore_vm_state
}

eas_logged() { dmesg | grep -o 'sched_energy_set: [a-z]* EAS' | tail -n 1; }
eas_running() { [[ "$(eas_logged)" != *stopping* ]]; }
eas_stopped() { [[ "$(eas_logged)" == *stopping* ]]; }

# The sysctl reads 1 while every governor allows EAS, empty otherwise; it
# says nothing of whether the domains were rebuilt for it.
eas_allowed() { [ "$(cat /proc/sys/kernel/sched_energy_aware)" = 1 ]; }
eas_refused() { [ -z "$(cat /proc/sys/kernel/sched_energy_aware)" ]; }

# eas_off_with GOV: policy2 runs GOV, and EAS has stopped for it.
eas_off_with() {
	set_governor 2 "$1"
	wait_for 10 eas_stopped
}

both_policies() {
	set_governor 0 "$1"
	set_governor 2 "$2"
}

# The CPU task PID last ran on.
task_cpu() { awk '{ print $39 }' "/proc/$1/stat"; }
on_cpu() { [ "$(task_cpu "$1")" = "$2" ]; }
on_little() { [ "$(task_cpu "$1")" -le 1 ]; }

is_bursty() { [ "$(cat "/proc/$1/comm")" = bursty ]; }

# small_task_moves_to_little: a task of 1 ms in every 10 ms started on big
# CPU 2 and then let free goes to a little CPU at one of its wake-ups.
# The capacity-aware wake-up path may move it there too: this shows the
# placement, the kernel's log shows EAS.
small_task_moves_to_little() {
	taskset -c 2 "$BURSTY" 30 1 9 &
	TASK=$!
	# Pinned by taskset before it runs bursty: freed only after that.
	wait_for 5 is_bursty "$TASK"
	wait_for 5 on_cpu "$TASK" 2
	taskset -pc 0-3 "$TASK" >/dev/null
	wait_for 10 on_little "$TASK"
	kill "$TASK"
	wait "$TASK" 2>/dev/null || true
	TASK=
}

@test "the energy model and the domains have the clusters' capacities" {
	local em=/sys/kernel/debug/energy_model
	[ "$(cat "$em/cpu0/ps:2000000/performance")" -eq 512 ]
	[ "$(cat "$em/cpu2/ps:2600000/performance")" -eq 1024 ]
	grep -q SD_ASYM_CPUCAPACITY /sys/kernel/debug/sched/domains/cpu0/domain0/flags
}

@test "EAS places a small task on a little CPU under schedutil" {
	wait_for 10 eas_allowed
	small_task_moves_to_little
}

@test "EAS starts under bpf_schedutil, alone or beside schedutil" {
	register schedutil >/dev/null
	eas_off_with performance
	set_governor 2 bpf_schedutil
	wait_for 10 eas_running
	eas_off_with performance
	both_policies bpf_schedutil bpf_schedutil
	wait_for 10 eas_running
	small_task_moves_to_little
}

@test "EAS stops while a policy runs a governor that does not keep it" {
	register ondemand >/dev/null
	eas_off_with bpf_ondemand
	eas_refused
	set_governor 2 schedutil
	wait_for 10 eas_running
	eas_allowed
}

@test "EAS stops when the governor that kept it is unregistered" {
	# Policies go back to their previous governor, here one without EAS.
	both_policies performance performance
	wait_for 10 eas_stopped
	register schedutil >/dev/null
	both_policies bpf_schedutil bpf_schedutil
	wait_for 10 eas_running
	unregister_all
	[ "$(governor 0)" = performance ]
	[ "$(governor 2)" = performance ]
	wait_for 10 eas_stopped
}

@test "EAS asks effective_perf() of the governor for its energy estimates" {
	register test_eas >/dev/null
	eas_off_with performance
	both_policies bpf_test_eas bpf_test_eas
	wait_for 10 eas_running
	small_task_moves_to_little
	[ "$("$BPFTOOL" map dump name test_eas.bss -j |
		jq -M '.[0].formatted.value[".bss"][] | select(.effective_perf_calls) | .effective_perf_calls')" -gt 0 ]
}

@test "a governor that claims to keep EAS without update() is refused" {
	run register bad_eas_no_update
	[ "$status" -ne 0 ]
	governor_gone bpf_bad_eas
	eas_allowed
}

@test "effective_perf() may not ask for a frequency" {
	run register bad_request_in_effective_perf
	[ "$status" -ne 0 ]
	[[ "$output" == *bpf_cpufreq_request* ]]
	governor_gone bpf_bad_perf
}

@test "bpf_classaware: a DL floor on a little CPU covers the bandwidth at its capacity" {
	gov_load classaware
	set_governor 0 bpf_classaware
	wait_for 20 freq_is 0 400000
	# 6 ms of every 20 ms on a CPU of the largest capacity is 0.6 of a CPU
	# of half of it: with the 10% margin 1.32 GHz, which resolves to
	# 1.6 GHz.  Counted in the little CPU's own capacity, it was 800 MHz.
	dl_job_on_cpu0 6000
	wait_for 5 freq_is 0 1600000
	never_below 0 1600000 2
	end_rtapp
}
