#!/usr/bin/env bats
# Locking and lifetime under churn; meant for the debug kernel (lockdep,
# atomic-sleep checks), where vmrun fails on any splat.

load lib

teardown() {
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
