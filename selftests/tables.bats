#!/usr/bin/env bats
# Frequency tables longer than the 32 entries the governors' table walk
# used to stop at: run-all boots the VM with policy0 (CPUs 0-1) on 40
# operating points, 400 to 2350 MHz in steps of 50, as many as
# qcom-cpufreq-hw's largest tables; the virtual driver takes up to 64.
# Every governor that picks table entries itself must reach the top one.

load lib
load governors_lib

TOP=2350000

setup() {
	off_policy0
	reset_policies
	[ "$(wc -w < "$CPUFREQ/policy0/scaling_available_frequencies")" -eq 40 ] || {
		echo "policy0 has not 40 operating points: boot with run-all's vcpufreq.opps" >&2
		return 1
	}
	[ "$(policy_read 0 cpuinfo_max_freq)" -eq $TOP ]
}

teardown() {
	restore_vm_state
}

# reaches_top OBJECT GOVERNOR: under a hog on CPU 0 the governor takes
# policy0 from low (an idle policy0 is not quite at 400 MHz under ondemand:
# the emulator's own load maps to 550-700 MHz in steps of 50) to the 40th
# entry.
reaches_top() {
	gov_load "$1"
	set_governor 0 "$2"
	wait_for 20 freq_at_most 0 1000000
	start_hog 0
	wait_for 20 freq_is 0 $TOP || {
		echo "$2 under a hog: $(cur_freq 0) kHz, not $TOP" >&2
		return 1
	}
}

@test "bpf_ondemand reaches the 40th entry of a table" {
	reaches_top ondemand bpf_ondemand
}

@test "bpf_conserv steps up to the 40th entry of a table" {
	reaches_top conservative bpf_conserv
}

@test "bpf_step steps up to the 40th entry of a table" {
	reaches_top example bpf_step
}

@test "bpf_ondemand's powersave_bias finds the entries around a target above the 32nd" {
	local dir=$BATS_TEST_TMPDIR
	gov_load ondemand
	set_governor 0 bpf_ondemand
	# 5% below the top is 2232.5 MHz, between the 37th and 38th entries
	# (2200 and 2250 MHz): each 100 ms sample splits its period between
	# the two, and nothing else runs.
	set_tunables ondemand ondemand_tunables 0 sampling_rate=100000 powersave_bias=50
	start_hog 0
	sleep 1
	residency 0 > "$dir/before"
	sleep 1.5
	residency 0 > "$dir/after"
	residency_delta "$dir/before" "$dir/after" | awk '$2 > 0 { print $1 }' > "$dir/used"
	echo "# under a hog with powersave_bias=50: $(tr '\n' ' ' < "$dir/used")" >&3
	grep -qx 2200000 "$dir/used"
	grep -qx 2250000 "$dir/used"
	! grep -qvx '2200000\|2250000' "$dir/used"
}
