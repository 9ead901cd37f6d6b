#!/usr/bin/env bats
# Locking and lifetime under churn; meant for the debug kernel (lockdep,
# atomic-sleep checks), where vmrun fails on any splat.

load lib

teardown() {
	[ -n "${FLIPPER:-}" ] && kill "$FLIPPER" "$HOTPLUG" 2>/dev/null
	echo 1 > /sys/devices/system/cpu/cpu2/online
	echo 1 > /sys/devices/system/cpu/cpu3/online
	stop_hogs
	reset_policies
	unregister_all
}

@test "200 register, switch and unregister cycles under load" {
	start_hog 0
	start_hog 2
	# Both policies on it each cycle, policy2 switched away first every
	# other cycle; each back on its previous governor after every removal.
	"$CHURN" "$TEST_OBJ/test_gov.bpf.o" bpf_test 200 0 2
	[ "$(governor 0)" = schedutil ]
	governor_gone bpf_test
}

@test "limit changes and hotplug while a BPF governor runs" {
	register test_gov
	set_governor 0 bpf_test
	set_governor 2 bpf_test
	start_hog 1
	for i in $(seq 20); do
		policy_write 0 scaling_max_freq 800000
		policy_write 0 scaling_max_freq 2000000
		echo 0 > /sys/devices/system/cpu/cpu3/online
		echo 1 > /sys/devices/system/cpu/cpu3/online
	done
	[ "$(governor 0)" = bpf_test ]
	[ "$(governor 2)" = bpf_test ]
}

# Runs until killed: CPUs 2 and 3, all of policy2, offline and online
# again, so that policy2 goes inactive with its last governor recorded and
# comes back restoring it.
cycle_policy2_cpus() {
	local cpu=/sys/devices/system/cpu
	# Writes fail now and then (-EBUSY while the other CPU moves): go on.
	while :; do
		echo 0 > $cpu/cpu3/online || :
		echo 0 > $cpu/cpu2/online || :
		echo 1 > $cpu/cpu2/online || :
		echo 1 > $cpu/cpu3/online || :
	done 2>/dev/null
}

# Runs until killed: policy2 asked for GOVERNOR over and over.
pick_governor_on_policy2() {
	# Refused while the governor is not registered or policy2 offline.
	while :; do
		echo "$1" > "$CPUFREQ/policy2/scaling_governor" || :
	done 2>/dev/null
}

@test "a removed governor is never used: link churn against writes and hotplug" {
	# The governor's link comes and goes on policy0 while policy2 keeps
	# asking for it and its CPUs keep leaving and coming back: lookups
	# and last-governor restores race with the removal.  A policy that
	# kept the governor after it was freed reads back an empty, zeroed
	# name (the debug kernel zeroes freed memory) or KFENCE reports the
	# access, which fails the run.
	pick_governor_on_policy2 bpf_test &
	local writer=$!
	cycle_policy2_cpus &
	local hotplug=$!
	run "$CHURN" "$TEST_OBJ/test_gov.bpf.o" bpf_test 300 0
	kill "$writer" "$hotplug"
	wait "$writer" "$hotplug" || true
	echo 1 > /sys/devices/system/cpu/cpu2/online
	echo 1 > /sys/devices/system/cpu/cpu3/online
	echo "$output"
	[ "$status" -eq 0 ]
	# Whatever policy2 ended on is a registered governor.
	local gov
	gov=$(governor 2)
	[ -n "$gov" ]
	grep -qw "$gov" "$CPUFREQ/policy2/scaling_available_governors"
	set_governor 2 schedutil
	[ "$(governor 2)" = schedutil ]
}

# Runs until killed: a shadow of GOVERNOR attached to and detached from
# policy POLICY over and over.
churn_shadow() {
	while :; do
		echo "$2 $1" > "$BPF_DEBUGFS/shadow" || :
		sleep 0.05
		echo "$2" > "$BPF_DEBUGFS/shadow" || :
	done 2>/dev/null
}

@test "shadows come and go against hotplug, governor writes and their governor's removal" {
	register test_gov
	register schedutil
	start_hog 0
	start_hog 1
	churn_shadow bpf_schedutil 0 &
	local shadow0=$!
	churn_shadow bpf_test 2 &
	local shadow2=$!
	pick_governor_on_policy2 bpf_schedutil &
	local writer=$!
	cycle_policy2_cpus &
	local hotplug=$!
	sleep 10
	# The governor goes away while its shadows come and go.
	unregister test_gov_ops
	sleep 2
	kill "$shadow0" "$shadow2" "$writer" "$hotplug"
	wait "$shadow0" "$shadow2" "$writer" "$hotplug" || true
	echo 1 > /sys/devices/system/cpu/cpu2/online
	echo 1 > /sys/devices/system/cpu/cpu3/online
	echo 0 > "$BPF_DEBUGFS/shadow" || :
	echo 2 > "$BPF_DEBUGFS/shadow" || :
	[ -z "$(cat "$BPF_DEBUGFS/shadow")" ]
	governor_gone bpf_test
}

# Runs until killed: policy0 between schedutil and performance, each
# schedutil start and stop rebuilding the scheduler's domains from a work
# item (and with EAS governors, each BPF one's too).
flip_schedutil_on_policy0() {
	while :; do
		echo schedutil > "$CPUFREQ/policy0/scaling_governor"
		echo performance > "$CPUFREQ/policy0/scaling_governor"
	done 2>/dev/null
}

@test "sched domain rebuilds from governor changes against CPU hotplug" {
	# The rebuild must hold the hotplug lock: this kernel has no cpusets,
	# whose rebuild_sched_domains() takes it, and the stub did not.  A
	# rebuild beside a CPU going down oopsed in sched_cpu_deactivate().
	flip_schedutil_on_policy0 &
	FLIPPER=$!
	cycle_policy2_cpus &
	HOTPLUG=$!
	sleep 20
	kill "$FLIPPER" "$HOTPLUG"
	wait "$FLIPPER" "$HOTPLUG" || true
	FLIPPER=
	echo 1 > /sys/devices/system/cpu/cpu2/online
	echo 1 > /sys/devices/system/cpu/cpu3/online
	set_governor 0 schedutil
	[ "$(governor 0)" = schedutil ]
	[ "$(cat /sys/devices/system/cpu/online)" = 0-3 ]
}
