#!/usr/bin/env bats
# Shadow governors: a registered BPF governor run beside the governor that
# drives a policy, through debugfs cpufreq_bpf/shadow and through the
# loader's shadow command.  The suite runs on CPUs 2-3, so that policy0
# (CPUs 0-1) sees only the loads it makes.

load lib
load governors_lib

setup() {
	off_policy0
	reset_policies
}

teardown() {
	restore_vm_state
}

no_shadow() { [ -z "$(cat "$SHADOW")" ] && ! ls "$BPF_DEBUGFS" | grep -q '^shadow_policy'; }

# shadow_stat POLICY KEY: one counter of policyN's shadow.
shadow_stat() { awk -v k="$2" '$1 == k { print $2 }' "$BPF_DEBUGFS/shadow_policy$1"; }
shadow_stat_above() { [ "$(shadow_stat "$1" "$2")" -gt "$3" ]; }

@test "a shadow's requests are recorded and traced, never switched" {
	local trans
	register test_gov
	set_governor 0 powersave
	wait_for 10 freq_is 0 400000
	trans=$(total_trans 0)
	ctl test_gov 2000000 0 0
	trace_on cpufreq_bpf/cpufreq_bpf_request
	echo "0 bpf_test" > "$SHADOW"
	[ "$(cat "$SHADOW")" = "0 bpf_test" ]
	start_hog 0
	sleep 1
	# It asked for 2 GHz on every update; policy0 stayed where powersave
	# holds it, without a single transition.
	[ "$(cur_freq 0)" -eq 400000 ]
	[ "$(total_trans 0)" -eq "$trans" ]
	[ "$(shadow_stat 0 requests)" -gt 0 ]
	[ "$(shadow_stat 0 updates)" -gt 0 ]
	[ "$(shadow_stat 0 agreements)" -eq 0 ]
	grep -q 'cpufreq_bpf_request: cpu=0 requested=2000000 resolved=2000000 path=shadow governor=bpf_test' \
		"$TRACING/trace"
	trace_lacks 'path=fast\|path=deferred'
	[ "$(governor 0)" = powersave ]
	echo 0 > "$SHADOW"
	no_shadow
	[ "$(total_trans 0)" -eq "$trans" ]
	[ "$(seen test_gov stop)" -eq 1 ] && [ "$(seen test_gov exit)" -eq 1 ]
}

@test "attaching and detaching never change the policy's frequency" {
	local trans i
	register schedutil
	set_governor 0 performance
	wait_for 10 freq_is 0 2000000
	trans=$(total_trans 0)
	for i in 1 2 3 4 5; do
		echo "0 bpf_schedutil" > "$SHADOW"
		sleep 0.2
		echo 0 > "$SHADOW"
	done
	[ "$(cur_freq 0)" -eq 2000000 ]
	[ "$(total_trans 0)" -eq "$trans" ]
	no_shadow
}

@test "a shadow whose op fails is detached; the driving governor is untouched" {
	register test_gov
	register schedutil
	set_governor 0 bpf_schedutil
	echo "0 bpf_test" > "$SHADOW"
	ctl test_gov 0 1 0
	start_hog 0
	wait_for 10 no_shadow
	grep -q '^bpf_test (shadow of policy0): error: test_gov was told to exit$' \
		"$BPF_DEBUGFS/exits"
	[ "$(governor 0)" = bpf_schedutil ]
	wait_for 10 freq_is 0 2000000
	# Only its own shadow went: bpf_test is still a governor one can pick.
	governor_listed bpf_test
	grep -q '^state enabled$' "$BPF_DEBUGFS/bpf_test/stats"
}

@test "a governor that goes away takes its shadow with it" {
	register test_gov
	echo "0 bpf_test" > "$SHADOW"
	echo "2 bpf_test" > "$SHADOW"
	[ "$(wc -l < "$SHADOW")" -eq 2 ]
	unregister test_gov_ops
	wait_for 10 no_bpf_governors
	no_shadow
	[ "$(governor 0)" = schedutil ] && [ "$(governor 2)" = schedutil ]
}

@test "a link update ends the governor's shadows and drives on" {
	register test_gov
	set_governor 2 bpf_test
	echo "0 bpf_test" > "$SHADOW"
	[ "$(cat "$SHADOW")" = "0 bpf_test" ]
	"$LINK_UPDATE" "$LINKS/test_gov_ops" "$TEST_OBJ/test_v2.bpf.o"
	no_shadow
	# The shadow's stop and exit ran on the old code, and policy2 was
	# restarted on the new one.
	[ "$(seen test_gov stop)" -eq 2 ] && [ "$(seen test_gov exit)" -eq 2 ]
	[ "$(seen test_v2 start)" -eq 1 ]
	[ "$(governor 0)" = schedutil ] && [ "$(governor 2)" = bpf_test ]
	# It shadows again, on the new code.
	echo "0 bpf_test" > "$SHADOW"
	[ "$(cat "$SHADOW")" = "0 bpf_test" ]
	start_hog 0
	wait_for 10 shadow_stat_above 0 updates 0
}

@test "a shadow that passes an invalid CPU is detached, naming the kfunc" {
	local last
	last=$(cut -d- -f2 /sys/devices/system/cpu/possible)
	register test_cpu
	ctl test_cpu $((last + 1)) 1
	echo "0 bpf_test_cpu" > "$SHADOW"
	start_hog 0
	wait_for 10 no_shadow
	grep -qx "bpf_test_cpu (shadow of policy0): error: bpf_cpufreq_cpu_util_cfs: invalid CPU $((last + 1))" \
		"$BPF_DEBUGFS/exits"
	# Only the shadow went: the governor and the policy's own are there.
	governor_listed bpf_test_cpu
	[ "$(governor 0)" = schedutil ]
}

@test "bad shadows are refused with one line and leave nothing attached" {
	register schedutil
	set_governor 2 bpf_schedutil
	run "$LOADER" shadow bpf_nosuch --policy 0
	[ "$status" -eq 3 ]
	[ "${#lines[@]}" -eq 1 ]
	run "$LOADER" shadow schedutil --policy 7
	[ "$status" -eq 3 ]
	[[ $output == *"no policy 7"* ]]
	run "$LOADER" shadow schedutil --policy 2 --duration 1
	[ "$status" -eq 2 ]
	[[ $output == *"drives policy 2"* ]]
	run "$LOADER" shadow schedutil --policy 0,2
	[ "$status" -eq 2 ]
	[[ $output == *"--policy takes one policy id"* ]]
	run "$LOADER" shadow schedutil --policy 0 --duration 0
	[ "$status" -eq 2 ]
	no_shadow
	# One shadow a policy; and a governor that shadows a policy cannot
	# drive it, since both would keep their state in the same map slots.
	echo "0 bpf_schedutil" > "$SHADOW"
	run "$LOADER" shadow schedutil --policy 0 --duration 1
	[ "$status" -eq 5 ]
	[[ $output == *"already has a shadow"* ]]
	run policy_write 0 scaling_governor bpf_schedutil
	[ "$status" -ne 0 ]
	[ "$(governor 0)" = schedutil ]
	echo 0 > "$SHADOW"
	no_shadow
}

@test "shadow: the loader's report, in text and JSON" {
	local json
	register schedutil
	bursty_load 0 4 12 8 &
	run "$LOADER" shadow schedutil --policy 0 --duration 2
	echo "$output"
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "bpf_schedutil in shadow of policy0 (schedutil) for 2."* ]]
	[[ $output == *"agreement"* ]]
	[[ $output == *"residency L1 distance"* ]]
	json=$("$LOADER" shadow bpf_schedutil --policy 0 --duration 1 --json)
	jq -e '.updates > 0 and .agreement_pct >= 0 and .l1 >= 0 and
	       (.transitions | has("actual") and has("shadow")) and
	       (.residency | length == 5) and (.residency[0] | has("khz"))' <<< "$json"
	wait
	no_shadow
}

# Parity by shadow (docs/benchmarks.md): the port beside its original on
# the same updates, decision by decision.  Targets: agreement >= 99% of
# updates, residency L1 <= 0.02.
@test "bpf_schedutil in shadow of schedutil decides as it does" {
	schedutil_parity
}
