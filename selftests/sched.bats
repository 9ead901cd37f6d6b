#!/usr/bin/env bats
# bpf_sched on drivers unlike the VM's default: its throttle comes from the
# driver's transition latency, and its frequencies from utilization that may
# not be frequency invariant.  run-all boots the VM with
# vcpufreq.reported_latency_ns (500 ns as CPPC and HWP parts report, or
# 4294967295, CPUFREQ_ETERNAL, from a driver that does not know) and
# vcpufreq.freq_invariance=0; each test checks the boot it needs.  On
# policy0 (CPUs 0-1, fast switching), the suite on CPUs 2-3.

load lib
load governors_lib

setup() {
	off_policy0
	reset_policies
}

teardown() {
	restore_vm_state
}

# booted_with PARAM=VALUE: the kernel command line has it, else the test
# says which boot it needs.
booted_with() {
	grep -qw "$1" /proc/cmdline || {
		echo "this test needs a boot with $1 (see selftests/run-all)" >&2
		return 1
	}
}

# hog_gap_us: the shortest time between two of bpf_sched's frequency
# changes on policy0 over two hogs of 1 s on CPU 0, each followed by 1 s
# idle.  Its requests (it makes one per change) are timed on the clock its
# throttle reads, bpf_ktime_get_ns(), which is the trace's "mono", one clock
# for both CPUs of the policy.
hog_gap_us() {
	gov_load sched
	set_governor 0 bpf_sched
	echo mono > "$TRACING/trace_clock"
	trace_on cpufreq_bpf/cpufreq_bpf_request
	hog_pattern 2 1 1
	trace_off
	min_trace_gap_us "cpufreq_bpf_request: cpu=0 "
	echo local > "$TRACING/trace_clock"
}

@test "bpf_sched: a transition latency of 500 ns is no 50 ms throttle" {
	local gap
	booted_with vcpufreq.reported_latency_ns=500
	[ "$(policy_read 0 cpuinfo_transition_latency)" -eq 500 ]
	gap=$(hog_gap_us)
	echo "# shortest time between transitions: $gap us" >&3
	[ -n "$gap" ]
	# Rounded to whole microseconds, 500 ns was "no latency": 50 ms.
	[ "$gap" -lt 50000 ]
}

@test "bpf_sched: CPUFREQ_ETERNAL throttles for the 50 ms default, not 4.3 s" {
	local gap
	booted_with vcpufreq.reported_latency_ns=4294967295
	gap=$(hog_gap_us)
	echo "# shortest time between transitions: $gap us" >&3
	[ -n "$gap" ]
	# Which of the three throttles the governor took: 500 ns (none), the
	# 50 ms default, or 4.3 s (CPUFREQ_ETERNAL read as a latency); they
	# are a hundred times apart.  A gap is timed from the governor's
	# request, after its reading of the clock by as long as the emulator
	# holds up its vCPU in between (1.1-1.3 ms seen under TCG), so it is
	# judged against half the default, not the default itself.
	[ "$gap" -ge 25000 ]
	[ "$gap" -lt 4294967 ]
}

@test "bpf_sched: without frequency invariance, a capacity is one of the current frequency" {
	local pid
	booted_with vcpufreq.freq_invariance=0
	gov_load sched
	set_governor 0 bpf_sched
	# 3 of every 8 ms busy: utilization about 384 whatever the frequency.
	# Relative to the current frequency that asks for 0.47 of it, never
	# more: down to 800 MHz or below.  Relative to the top (the fault),
	# for 940 MHz (1.2 GHz) on the default table, 1.1 GHz on the 40-entry
	# one: above 800 MHz.  (At 4 of 8 ms, emulator delays that stretched
	# the bursts past 80% for a while made the current frequency climb.)
	bursty_load 0 6 3 5 &
	pid=$!
	wait_for 4 freq_at_most 0 800000 || {
		echo "policy0 at $(cur_freq 0) kHz under a 50% load" >&2
		kill $pid 2>/dev/null || true
		return 1
	}
	never_above 0 800000 1
	kill $pid 2>/dev/null || true
}
