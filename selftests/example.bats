#!/usr/bin/env bats
# The example governor of docs/writing-a-governor.md, bpf_step
# (bpf-governors/example.bpf.c), on policy0 (CPUs 0-1, 400-2000 MHz).  The
# suite runs on CPUs 2-3 so that only the loads it makes reach policy0.

load lib
load governors_lib

setup() {
	off_policy0
	reset_policies
	gov_load example
	set_governor 0 bpf_step
}

teardown() {
	restore_vm_state
}

@test "bpf_step is listed and runs policy0" {
	governor_listed bpf_step
	[ "$(governor 0)" = bpf_step ]
	[ "$(gov_stat bpf_step 0 errors)" -eq 0 ]
}

@test "bpf_step ramps up under a hog and down after" {
	wait_for 20 freq_is 0 400000
	start_hog 0
	wait_for 20 freq_is 0 2000000
	stop_hogs
	wait_for 20 freq_is 0 400000
	[ "$(gov_stat bpf_step 0 sample_calls)" -gt 0 ]
	[ "$(gov_stat bpf_step 0 errors)" -eq 0 ]
}

@test "bpf_step climbs one operating point at a time" {
	# A hog already started and stopped: its start-up (exec, reads over
	# 9p, idle waits) is over, so its load only grows once released.
	stopped_hog 0
	wait_for 20 freq_is 0 400000
	trace_on power/cpu_frequency
	kill -CONT "${HOGS##* }"
	wait_for 20 freq_is 0 2000000
	trace_off
	# Every cpu_frequency event of CPU 0 is the next OPP up.
	awk '/cpu_frequency:/ && / cpu_id=0$/ { match($0, /state=[0-9]+/); print substr($0, RSTART + 6, RLENGTH - 6) }' \
		"$TRACING/trace" | tr '\n' ' ' > "$BATS_TEST_TMPDIR/steps"
	echo "# steps: $(cat "$BATS_TEST_TMPDIR/steps")" >&3
	[ "$(cat "$BATS_TEST_TMPDIR/steps")" = "800000 1200000 1600000 2000000 " ]
}

@test "bpf_step respects scaling_max_freq and scaling_min_freq" {
	start_hog 0
	wait_for 20 freq_is 0 2000000
	policy_write 0 scaling_max_freq 1200000
	wait_for 5 freq_is 0 1200000
	never_above 0 1200000 1
	policy_write 0 scaling_max_freq 2000000
	stop_hogs
	wait_for 20 freq_is 0 400000
	policy_write 0 scaling_min_freq 1600000
	wait_for 5 freq_at_least 0 1600000
	never_below 0 1600000 1
}

@test "bpf_step: down_threshold is read from the tunables map" {
	local hog
	# In the VM a task's run time does not shrink with the frequency, so a
	# 50% load is a 50% load at every OPP: between the default thresholds
	# (30, 80) it stays where it is, here at the top; below a
	# down_threshold of 60 it steps down to the minimum.
	start_hog 0
	hog=${HOGS##* }
	wait_for 20 freq_is 0 2000000
	bursty_load 0 60 8 8 &
	HOGS="$HOGS $!"
	sleep 1		# the load's start-up is over
	kill "$hog"
	never_below 0 2000000 2
	set_tunables example step_tunables 0 down_threshold=60
	wait_for 20 freq_is 0 400000
}

@test "bpf_step survives garbage tunables" {
	garbage_tunables 0
	start_hog 0
	never_above 0 2000000 1
	[ "$(governor 0)" = bpf_step ]
	! grep -q '^bpf_step: error' "$BPF_DEBUGFS/exits"
}
