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
	for i in $(seq 200); do
		register test_gov >/dev/null
		set_governor 0 bpf_test
		set_governor 2 bpf_test
		[ $((i % 2)) -eq 0 ] && set_governor 2 performance
		unregister test_gov_ops
		wait_for 10 governor_gone bpf_test
		[ "$(governor 0)" = schedutil ]
	done
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
