#!/usr/bin/env bats
# The classic sampling governors, bpf_ondemand and bpf_conserv, at work
# in the VM on policy0 (CPUs 0-1, 400-2000 MHz), each tunable that shows in
# a frequency, and each against its in-kernel original on the same load.
# The suite runs on CPUs 2-3 so that only the loads it makes reach policy0.
#
# io_is_busy has no test: the VM's kernel has no block layer, so nothing
# waits for I/O (iowait) there.

load lib
load governors_lib

setup() {
	off_policy0
	reset_policies
}

teardown() {
	restore_vm_state
}

# Several tests sample every 100 ms rather than every 8 ms: a load that
# alternates 10 ms busy and 10 ms idle is then a steady 50% in every
# sample, and tick-based nice time (4 ms at HZ=250) is within 4% of it.
SLOW_RATE=100000

# percent_of KHZ DELTA: the percentage of a residency delta (file) at KHZ.
percent_of() {
	awk -v f="$1" '{ t += $2 } $1 == f { at = $2 } END { printf "%d\n", t ? 100 * at / t : 0 }' "$2"
}

# percent_at KHZ CMD...: runs CMD, a load of policy0 that lasts at least
# 2.5 s, and prints the percentage of its 1 s to 2.5 s that policy0 spent
# at KHZ; waits for CMD to end.
percent_at() {
	local khz=$1 dir=$BATS_TEST_TMPDIR pid
	shift
	"$@" &
	pid=$!
	sleep 1
	residency 0 > "$dir/at.before"
	sleep 1.5
	residency 0 > "$dir/at.after"
	wait "$pid"
	residency_delta "$dir/at.before" "$dir/at.after" > "$dir/at"
	percent_of "$khz" "$dir/at"
}

# after_hog_at KHZ: takes policy0 from its minimum to the top with a hog,
# hands over to a 50% load, and prints the percentage of the 2 s after that
# policy0 spent at KHZ.
after_hog_at() {
	local dir=$BATS_TEST_TMPDIR pid
	# From below the top: ondemand's sampling_down_factor applies to a
	# switch to the top, not to staying there.
	wait_for 20 freq_is 0 400000
	start_hog 0
	wait_for 20 freq_is 0 2000000
	bursty_load 0 3 10 10 &
	pid=$!
	sleep 0.5	# the load's start-up is over
	stop_hogs
	residency 0 > "$dir/at.before"
	sleep 2
	residency 0 > "$dir/at.after"
	wait "$pid"
	residency_delta "$dir/at.before" "$dir/at.after" > "$dir/at"
	percent_of "$1" "$dir/at"
}

# nice_hog CPU: a busy loop at nice 19 pinned to CPU, stopped by stop_hogs.
# Released once started: its start-up (exec, page faults) is system time,
# which counts as busy, nice or not.
nice_hog() {
	stopped_hog "$1" nice -n 19
	kill -CONT "${HOGS##* }"
}

@test "bpf_ondemand ramps up under a hog and down after" {
	ramps ondemand bpf_ondemand
}

@test "bpf_conserv ramps up under a hog and down after" {
	ramps conservative bpf_conserv
}

@test "bpf_ondemand keeps within scaling_max_freq and scaling_min_freq" {
	keeps_limits ondemand bpf_ondemand
}

@test "bpf_conserv keeps within scaling_max_freq and scaling_min_freq" {
	keeps_limits conservative bpf_conserv
}

@test "bpf_ondemand survives garbage tunables" {
	# powersave_bias above 1000 is 1000, as the kernel clamps it, which
	# holds the policy at its minimum (tested below): left at 0 here.
	survives_garbage ondemand bpf_ondemand ondemand_tunables 0 powersave_bias=0
}

@test "bpf_conserv survives garbage tunables" {
	survives_garbage conservative bpf_conserv
}

# The shipped objects take policies with a CPU below 64; this build of
# bpf_ondemand takes those below 2, so that policy2 (CPUs 2-3) shows what a
# policy beyond the limit gets.  It used to get policy0's map slots: its
# state, its tunables.
@test "bpf_ondemand: a policy beyond its CPUs is refused and keeps its governor" {
	gov_load ondemand_cpus2
	set_governor 0 bpf_ondemand
	run policy_write 2 scaling_governor bpf_ondemand
	[ "$status" -ne 0 ]
	[[ $output == *"out of range"* ]]
	[ "$(governor 2)" = schedutil ]
	start_hog 0
	wait_for 20 freq_is 0 2000000
}

@test "bpf_ondemand: up_threshold=20 takes a 60% load to the top" {
	local low high
	gov_load ondemand
	set_governor 0 bpf_ondemand
	set_tunables ondemand ondemand_tunables 0 sampling_rate=$SLOW_RATE
	# Proportional by default: 400 + 60% of 1600 MHz, the closest entry
	# 1200 MHz; every 100 ms sample of the load is 60% busy, over 20.
	low=$(percent_at 2000000 bursty_load 0 3 12 8)
	set_tunables ondemand ondemand_tunables 0 up_threshold=20
	high=$(percent_at 2000000 bursty_load 0 3 12 8)
	echo "# 60% load at 2 GHz: $low% of the time by default, $high% with up_threshold=20" >&3
	[ "$low" -le 10 ]
	[ "$high" -ge 80 ]
}

@test "bpf_ondemand: sampling_down_factor=50 holds the top after a hog" {
	local low high
	gov_load ondemand
	set_governor 0 bpf_ondemand
	# up_threshold=80: the hog's first sample may see it for part of the
	# period only (90%, say), and the proportional target for that is the
	# top too, but only the threshold's jump sets the down factor.
	set_tunables ondemand ondemand_tunables 0 sampling_rate=$SLOW_RATE up_threshold=80
	# A 50% load after a hog: proportional, 1200 MHz, from the next
	# sample on; with sampling_down_factor=50 the sample after the jump to
	# the top comes 50 x 100 ms later.
	low=$(after_hog_at 2000000)
	set_tunables ondemand ondemand_tunables 0 sampling_down_factor=50
	high=$(after_hog_at 2000000)
	echo "# 50% load after a hog: $low% of the time at 2 GHz by default, $high% with sampling_down_factor=50" >&3
	[ "$low" -le 30 ]
	[ "$high" -ge 80 ]
}

@test "bpf_ondemand: a new sampling_rate applies at once, not after the old period" {
	gov_load ondemand
	set_governor 0 bpf_ondemand
	wait_for 20 freq_is 0 400000
	# A 10 s period, armed by a sample on CPU 0's next runs.
	set_tunables ondemand ondemand_tunables 0 sampling_rate=10000000
	poked pause 0.2
	poked true
	# Back to 20 ms with a hog on CPU 0: the next update samples, and the
	# one 20 ms later finds the CPU busy.  Waiting out the old period, the
	# hog would stay at 400 MHz for 10 s.
	set_tunables ondemand ondemand_tunables 0 sampling_rate=20000
	start_hog 0
	wait_for 3 freq_is 0 2000000
}

@test "bpf_ondemand: powersave_bias=500 halves the top into 800 and 1200 MHz" {
	local dir=$BATS_TEST_TMPDIR at800 at1200
	gov_load ondemand
	set_governor 0 bpf_ondemand
	set_tunables ondemand ondemand_tunables 0 sampling_rate=$SLOW_RATE powersave_bias=500
	start_hog 0
	sleep 1
	residency 0 > "$dir/before"
	# 2000 MHz less 50% is 1000 MHz: between two entries, so half of each
	# period at 1200 MHz and half at 800 MHz, never above.
	never_above 0 1200000 2
	residency 0 > "$dir/after"
	residency_delta "$dir/before" "$dir/after" > "$dir/delta"
	echo "# under a hog: $(tr '\n' ' ' < "$dir/delta")" >&3
	at800=$(percent_of 800000 "$dir/delta")
	at1200=$(percent_of 1200000 "$dir/delta")
	[ "$at800" -ge 30 ] && [ "$at1200" -ge 30 ]
}

# The kernel's store clamps powersave_bias to 1000, which takes every
# target to the bottom; written raw, 5000 used to mean "the default", 0.
@test "bpf_ondemand: powersave_bias above 1000 is 1000, as the kernel clamps it" {
	gov_load ondemand
	set_governor 0 bpf_ondemand
	set_tunables ondemand ondemand_tunables 0 powersave_bias=5000
	start_hog 0
	never_above 0 400000 2
}

# dbs_update() in include/gov_common.h reads the nice time for both
# governors: one test covers it.
# Written raw as 2: the kernel's store takes any non-zero value as 1.
@test "bpf_ondemand: ignore_nice_load=1 (or 2) does not count a nice 19 hog" {
	local dir=$BATS_TEST_TMPDIR at_min
	gov_load ondemand
	set_governor 0 bpf_ondemand
	set_tunables ondemand ondemand_tunables 0 sampling_rate=$SLOW_RATE ignore_nice_load=2
	wait_for 20 freq_is 0 400000
	nice_hog 0
	sleep 0.5
	residency 0 > "$dir/before"
	# Nice time is counted a tick at a time, and the emulator drops
	# ticks when the host is busy: a sample may then see part of the
	# hog's time as busy (at the minimum 25-100% of the time in our
	# runs), but not enough for the top.
	never_above 0 1600000 2
	residency 0 > "$dir/after"
	residency_delta "$dir/before" "$dir/after" > "$dir/delta"
	at_min=$(percent_of 400000 "$dir/delta")
	echo "# nice 19 hog, ignore_nice_load=2: $at_min% of the time at 400 MHz" >&3
	stop_hogs
	set_tunables ondemand ondemand_tunables 0 ignore_nice_load=0
	nice_hog 0
	wait_for 20 freq_is 0 2000000
}

# climb_of CPU: the cpu_frequency states of CPU in the trace after the
# last one at the lowest operating point, one line: the climb from there.
# (Starting the hog may lift the policy for a moment and drop it back
# before the climb: those events are not the climb.)
climb_of() {
	awk -v cpu="cpu_id=$1" -v min="$(cat /sys/devices/system/cpu/cpu$1/cpufreq/cpuinfo_min_freq)" '
		/cpu_frequency:/ && $NF == cpu {
			match($0, /state=[0-9]+/)
			state = substr($0, RSTART + 6, RLENGTH - 6)
			climb = state == min ? "" : climb state " "
		}
		END { printf "%s", climb }' "$TRACING/trace"
}

# trace_climb_start: policy0 at its minimum when the trace starts, so that
# the climb is seen from there: a stopped hog's start-up (fork, exec) may
# have lifted it a step before the trace is on.
trace_climb_start() {
	local i
	for i in 1 2 3 4 5; do
		wait_for 20 freq_is 0 400000
		trace_on power/cpu_frequency
		freq_is 0 400000 && return 0
		trace_off
	done
	return 1
}

# freq_step is written raw as 250: the kernel's store clamps it to 100.
@test "bpf_conserv steps up one OPP at a time; freq_step=100 (or 250) jumps to the top" {
	local up jump
	gov_load conservative
	set_governor 0 bpf_conserv
	wait_for 20 freq_is 0 400000
	# 5% of 2000 MHz a sample: every 400 MHz entry on the way up.  (Down
	# after a hog, the steps missed while the CPUs idled are taken at
	# once, as in-kernel: not one at a time.)
	stopped_hog 0
	trace_climb_start
	kill -CONT "${HOGS##* }"
	wait_for 20 freq_is 0 2000000
	trace_off
	up=$(climb_of 0)
	stop_hogs
	wait_for 20 freq_is 0 400000
	set_tunables conservative conservative_tunables 0 freq_step=250
	stopped_hog 0
	trace_climb_start
	kill -CONT "${HOGS##* }"
	wait_for 20 freq_is 0 2000000
	trace_off
	jump=$(climb_of 0)
	echo "# default up: $up; freq_step=250 up: $jump" >&3
	[ "$up" = "800000 1200000 1600000 2000000 " ]
	[ "$jump" = "2000000 " ]
}

@test "bpf_conserv: down_threshold=60 steps a 50% load down" {
	local high low
	gov_load conservative
	set_governor 0 bpf_conserv
	# One OPP a sample, so that the way down takes 0.4 s.
	set_tunables conservative conservative_tunables 0 sampling_rate=$SLOW_RATE freq_step=20
	# A 50% load, between the default thresholds (20, 80), stays where the
	# hog took it; over down_threshold=60 it goes down to the minimum.
	high=$(after_hog_at 2000000)
	set_tunables conservative conservative_tunables 0 down_threshold=60
	low=$(after_hog_at 400000)
	echo "# 50% load after a hog: $high% of the time at 2 GHz by default, $low% at 400 MHz with down_threshold=60" >&3
	[ "$high" -ge 80 ]
	[ "$low" -ge 60 ]
}
