#!/usr/bin/env bats
# The VM, its virtual cpufreq driver and the in-kernel governors.

load lib

# The suite's own shell and programs stay off policy0, whose frequency the
# in-kernel governors' tests judge: under emulation they keep a CPU busy
# enough to hold policy0 up.
setup() {
	off_policy0
}

teardown() {
	reset_policies
	trace_off
}

@test "the virtual driver makes the policies and tables the command line asks for" {
	[ "$(policy_read 0 scaling_driver)" = vcpufreq ]
	[ "$(policy_read 0 related_cpus)" = "0 1" ]
	[ "$(policy_read 2 related_cpus)" = "2 3" ]
	[ "$(policy_read 0 scaling_available_frequencies | xargs)" = "400000 800000 1200000 1600000 2000000" ]
	[ "$(policy_read 2 scaling_available_frequencies | xargs)" = "600000 1000000 1400000 1800000 2200000 2600000" ]
	[ "$(policy_read 0 cpuinfo_transition_latency)" -eq 500000 ]
}

@test "the fast-switch setting of the command line is the driver's" {
	want=on
	grep -q 'vcpufreq.fast_switch=0' /proc/cmdline && want=off
	dmesg | grep -q "vcpufreq: 2 clusters, fast switch $want,"
}

@test "each policy has an energy model whose power rises with frequency" {
	prev=0
	for f in 400000 800000 1200000 1600000 2000000; do
		p=$(cat /sys/kernel/debug/energy_model/cpu0/ps:$f/power)
		[ "$p" -gt "$prev" ]
		prev=$p
	done
}

@test "every in-kernel governor is available" {
	avail=$(policy_read 0 scaling_available_governors)
	for g in performance powersave userspace ondemand conservative schedutil; do
		[[ " $avail " == *" $g "* ]]
	done
}

@test "userspace sets exactly the frequency written" {
	set_governor 0 userspace
	policy_write 0 scaling_setspeed 1200000
	wait_for 2 freq_is 0 1200000
}

# hog_raises_and_lowers GOVERNOR: up under a hog, down after.  schedutil
# decides on scheduler activity only: the waits for the low end poke CPU 0.
hog_raises_and_lowers() {
	set_governor 0 "$1"
	wait_for 10 poked freq_at_most 0 800000
	start_hog 0
	wait_for 10 freq_is 0 2000000
	stop_hogs
	wait_for 10 poked freq_at_most 0 800000
}

@test "schedutil raises policy0 under a hog on CPU0 and lowers it after" {
	hog_raises_and_lowers schedutil
}

@test "ondemand raises policy0 under a hog on CPU0 and lowers it after" {
	hog_raises_and_lowers ondemand
}

@test "transitions reach cpufreq stats and the power:cpu_frequency tracepoint" {
	before=$(total_trans 0)
	trace_on power/cpu_frequency
	set_governor 0 powersave
	set_governor 0 performance
	set_governor 0 powersave
	wait_for 2 freq_is 0 400000
	trace_off
	[ "$(total_trans 0)" -ge $((before + 2)) ]
	grep -q 'cpu_frequency: state=2000000 cpu_id=0' "$TRACING/trace"
	grep -q 'cpu_frequency: state=400000 cpu_id=0' "$TRACING/trace"
	# time_in_state lists every OPP of the table.
	[ "$(wc -l < "$CPUFREQ/policy0/stats/time_in_state")" -eq 5 ]
}

@test "scaling_max_freq caps a governor and is restored" {
	set_governor 0 performance
	wait_for 2 freq_is 0 2000000
	policy_write 0 scaling_max_freq 1200000
	wait_for 2 freq_is 0 1200000
	policy_write 0 scaling_max_freq 2000000
	wait_for 2 freq_is 0 2000000
}
