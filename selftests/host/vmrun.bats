#!/usr/bin/env bats
# vmrun itself, from the host.

VMRUN=$BATS_TEST_DIRNAME/../vm/vmrun

@test "vmrun refuses bad options with a one-line error and exit 2" {
	run "$VMRUN" --cpus 99 -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *"--cpus takes 1 to 8"* ]]
	run "$VMRUN" --fast-switch maybe -- true
	[ "$status" -eq 2 ]
	run "$VMRUN" --clusters 0-1,x -- true
	[ "$status" -eq 2 ]
	run "$VMRUN" --capacity 512,big -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *"--capacity takes capacities"* ]]
	run "$VMRUN" --frobnicate -- true
	[ "$status" -eq 2 ]
	# icount is a TCG feature: under KVM the mode cannot be had.
	VMRUN_ACCEL="kvm -cpu host" run "$VMRUN" --icount -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *"--icount needs TCG"* ]]
}

@test "vmrun exits with the guest command's status" {
	run "$VMRUN" -- sh -c 'echo hello from $(hostname); exit 7'
	[ "$status" -eq 7 ]
	[[ "$output" == *"hello from vmrun"* ]]
}

@test "the guest sees the checkout writable at the same path" {
	marker=build/vm/marker.$$
	rm -f "$marker"
	run "$VMRUN" -- sh -c "pwd > $marker"
	[ "$status" -eq 0 ]
	[ "$(cat "$marker")" = "$PWD" ]
	rm -f "$marker"
}

@test "vmrun fails when the guest kernel logs a WARNING, even if the command passed" {
	run "$VMRUN" -- sh -c 'echo "WARNING: CPU: 0 PID: 1 at injected/by/test.c:1" > /dev/kmsg'
	[ "$status" -eq 3 ]
	[[ "$output" == *"splat"* ]]
	[[ "$output" == *"injected/by/test.c"* ]]
}

@test "vmrun gives the guest the CPU count and clusters asked for" {
	run "$VMRUN" --cpus 2 --clusters 0,1 -- sh -c 'nproc; cat /sys/devices/system/cpu/cpufreq/policy1/related_cpus'
	[ "$status" -eq 0 ]
	[[ "$output" == *2* ]]
	[ "$(echo "$output" | tail -1)" = 1 ]
}
