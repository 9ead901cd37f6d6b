#!/usr/bin/env bats
# Performance levels (->adjust_perf()), in a VM whose driver takes them as
# HWP and CPPC hardware does (vmrun --clusters 0-1,2,3 --append
# vcpufreq.adjust_perf=1): policy0, shared by CPUs 0-1, takes frequencies;
# policy2 and policy3, of one CPU each, take performance levels.  The
# suite's shell stays on CPUs 0-1, away from policy3, which it measures.

load lib
load governors_lib

setup() {
	taskset -pc 0,1 "$BASHPID" >/dev/null
	reset_policies
}

teardown() {
	[ -n "${LOAD:-}" ] && { kill "$LOAD" 2>/dev/null; wait "$LOAD" 2>/dev/null; }
	restore_vm_state
}

# perf_ret ARRAY CPU: what test_perf's last kfunc call for CPU returned.
# Its maps are test_per.bss and test_per.data: libbpf keeps 8 characters
# of the object's name.
perf_ret() {
	"$BPFTOOL" map dump name test_per.bss -j |
		jq -r ".[0].formatted.value[\".bss\"][] | select(.$1) | .$1[$2]"
}
perf_ret_is() { [ "$(perf_ret "$1" "$2")" = "$3" ]; }

# set_target_perf LEVEL: the level test_perf asks for, out of 1024.
set_target_perf() {
	local bytes="" i
	for i in 0 8 16 24 32 40 48 56; do bytes+=" $((($1 >> i) & 255))"; done
	"$BPFTOOL" map update name test_per.data key 0 0 0 0 value $bytes
}

@test "the driver takes performance levels on the policies of one CPU" {
	dmesg | grep -q 'vcpufreq: 3 clusters, .*, adjust_perf on,'
	[ "$(policy_read 0 affected_cpus)" = "0 1" ]
	[ "$(policy_read 3 affected_cpus)" = 3 ]
}

@test "a level maps onto the lowest operating point that gives it, within the limits" {
	register test_perf >/dev/null
	set_target_perf 0
	set_governor 3 bpf_test_perf
	trace_on cpufreq_bpf/cpufreq_bpf_request
	start_hog 3
	wait_for 10 freq_is 3 600000
	set_target_perf 1024
	wait_for 10 freq_is 3 2600000
	# CPU 2 is not policy3's.
	[ "$(perf_ret other_cpu_ret 3)" = -22 ]
	# Half the capacity is 1.3 GHz of the 2.6 GHz top: 1.4 GHz runs it.
	set_target_perf 512
	wait_for 10 freq_is 3 1400000
	set_target_perf 0
	wait_for 10 freq_is 3 600000
	# The driver keeps within the limits: raised to the top, the level
	# runs at scaling_max_freq.
	policy_write 3 scaling_max_freq 1800000
	set_target_perf 1024
	wait_for 10 freq_is 3 1800000
	# Limits lowered under the CPU: the next level brings it down, with
	# no frequency request from the framework, as under schedutil.
	policy_write 3 scaling_max_freq 1400000
	wait_for 10 freq_is 3 1400000
	trace_off
	grep -q 'cpu=3 requested=512 resolved=512 path=perf governor=bpf_test_perf' \
		"$TRACING/trace"
	trace_lacks 'cpu=3 .*path=fast'
}

@test "where the policy takes frequencies, a level is refused" {
	register test_perf >/dev/null
	set_governor 0 bpf_test_perf
	start_hog 1
	wait_for 10 perf_ret_is adjust_ret 1 -95
	# CPU 1 ^ 1 is policy0's too: refused for the policy, not the CPU.
	[ "$(perf_ret other_cpu_ret 1)" = -95 ]
}

@test "bpf_schedutil gives levels where the driver takes them, frequencies elsewhere" {
	register schedutil >/dev/null
	# Traced from the governor's start: policy0, left high by the test
	# before, may make its only request as the governor starts (CI once
	# found none in a trace begun after set_governor).
	trace_on cpufreq_bpf/cpufreq_bpf_request
	set_governor 0 bpf_schedutil
	set_governor 3 bpf_schedutil
	start_hog 3
	start_hog 1
	wait_for 10 freq_is 3 2600000
	wait_for 10 freq_is 0 2000000
	trace_off
	grep -q 'cpu=3 .*path=perf governor=bpf_schedutil' "$TRACING/trace"
	trace_lacks 'cpu=3 .*path=\(fast\|deferred\|unchanged\)'
	grep -q 'cpu=0 .*path=fast governor=bpf_schedutil' "$TRACING/trace"
	trace_lacks 'cpu=0 .*path=perf'
	stop_hogs
	wait_for 10 freq_is 3 600000
}

# Parity by shadow on the performance path, with the targets of the
# frequency path (shadow.bats): agreement >= 99% of updates, L1 <= 0.02.
@test "bpf_schedutil in shadow of schedutil decides as it does on the performance path" {
	local json agree l1
	register schedutil >/dev/null
	bursty_load 3 6 12 8 &
	LOAD=$!
	sleep 0.5
	json=$("$LOADER" shadow bpf_schedutil --policy 3 --duration 4 --json)
	wait "$LOAD"
	LOAD=
	# It took the performance path: its start() chose it for policy3.
	[ "$("$BPFTOOL" map lookup name sg_policies key 3 0 0 0 -j |
		jq -r '.formatted.value.adjust_perf')" = 1 ]
	agree=$(jq -r .agreement_pct <<< "$json")
	l1=$(jq -r .l1 <<< "$json")
	echo "# $(jq -r .updates <<< "$json") updates, agreement $agree%, L1 $l1, transitions $(jq -c .transitions <<< "$json")" >&3
	[ "$(jq -r .updates <<< "$json")" -gt 0 ]
	awk -v a="$agree" -v l="$l1" 'BEGIN { exit !(a >= 99 && l <= 0.02) }'
}

@test "a level may only be given from update()" {
	run register bad_adjust_perf_in_sample
	[ "$status" -ne 0 ]
	[[ "$output" == *bpf_cpufreq_adjust_perf* ]]
	governor_gone bpf_bad_adjust
}
