#!/usr/bin/env bats
# The cpufreq_gov_ops framework, through the test governor and plain bpftool.

load lib

setup() {
	off_policy0
	reset_policies
}

teardown() {
	echo 1 > /sys/devices/system/cpu/cpu2/online
	restore_vm_state
}

@test "a governor registered with bpftool struct_ops register is listed" {
	register test_gov
	governor_listed bpf_test
	[ -e "$LINKS/test_gov_ops" ]
	[ -r "$BPF_DEBUGFS/bpf_test/stats" ]
}

@test "a governor whose name exists already is refused with EEXIST" {
	run register test_dup
	[ "$status" -ne 0 ]
	[[ "$output" == *"File exists"* ]]
	[ "$(policy_read 0 scaling_available_governors | tr ' ' '\n' | grep -cx schedutil)" -eq 1 ]
	[ ! -e "$BPF_DEBUGFS/schedutil" ]
}

@test "a policy on it ramps up under a hog and down after, on this switch path" {
	register test_gov
	set_governor 0 bpf_test
	[ "$(governor 0)" = bpf_test ]
	wait_for 10 freq_at_most 0 800000
	start_hog 0
	wait_for 10 freq_is 0 2000000
	stop_hogs
	wait_for 10 freq_at_most 0 800000
	if fast_switch_on; then
		[ "$(gov_stat bpf_test 0 fast_switches)" -gt 0 ]
	else
		[ "$(gov_stat bpf_test 0 fast_switches)" -eq 0 ]
		[ "$(gov_stat bpf_test 0 deferred_switches)" -gt 0 ]
	fi
	[ "$(gov_stat bpf_test 0 update_calls)" -gt 0 ]
	[ "$(gov_stat bpf_test 0 errors)" -eq 0 ]
}

@test "every op is called and every signal kfunc answers" {
	register test_gov
	set_governor 0 bpf_test
	start_hog 0
	wait_for 10 freq_is 0 2000000
	sleep 0.2
	s=$(seen_all test_gov)
	[ "$(field "$s" init)" -ge 1 ]
	[ "$(field "$s" start)" -ge 1 ]
	[ "$(field "$s" limits)" -ge 1 ]
	[ "$(field "$s" update)" -gt 0 ]
	[ "$(field "$s" sample)" -gt 0 ]
	[ "$(field "$s" request_errors)" -eq 0 ]
	[ "$(field "$s" resolved_max)" -eq 2000000 ]
	[ "$(field "$s" transition_delay_us)" -gt 0 ]
	[ "$(field "$s" capacity)" -eq 1024 ]
	[ "$(field "$s" freq_invariant)" -eq 1 ]
	[ "$(field "$s" max_util_cfs)" -gt 500 ]
	[ "$(field "$s" wall_us)" -gt 0 ]
	stop_hogs
	set_governor 0 schedutil
	s=$(seen_all test_gov)
	[ "$(field "$s" stop)" -ge 1 ]
	[ "$(field "$s" exit)" -ge 1 ]
}

@test "the RT and DL signals show a periodic FIFO task and a deadline reservation" {
	local s bw
	register test_gov
	set_governor 0 bpf_test
	set_governor 2 bpf_test
	# Periodic, not a busy loop: an RT hog starves the emulated vCPU.  All
	# CPUs: a deadline task's affinity must span its root domain.
	taskset -c 0-3 rt-app "$BATS_TEST_DIRNAME/workloads/rt_dl.json" >/dev/null 2>&1
	s=$(seen_all test_gov)
	echo "# seen: $s" >&3
	[ "$(field "$s" rt_runnable_seen)" -eq 1 ]
	[ "$(field "$s" max_util_rt)" -gt 0 ]
	# 4 ms of every 20 ms is 204 (0.2 of SCHED_CAPACITY_SCALE, rounded
	# down), plus 51 while the fair server's reservation (50 ms of every
	# second) is active on that CPU.
	bw=$(field "$s" max_bw_dl)
	[ "$bw" -eq 204 ] || [ "$bw" -eq 255 ]
}

@test "scaling_max_freq and scaling_min_freq are never left" {
	register test_gov
	set_governor 0 bpf_test
	start_hog 0
	wait_for 10 freq_is 0 2000000
	policy_write 0 scaling_max_freq 1200000
	wait_for 5 freq_is 0 1200000
	[ "$(seen test_gov resolved_max)" -eq 1200000 ]
	ctl test_gov 2000000 0 0
	never_above 0 1200000 1
	grep -q "cpufreq_bpf_request: cpu=0 requested=2000000 resolved=1200000 " "$TRACING/trace"
	ctl test_gov 400000 0 0
	policy_write 0 scaling_max_freq 2000000
	policy_write 0 scaling_min_freq 1600000
	wait_for 5 freq_is 0 1600000
	never_below 0 1600000 1
	grep -q "cpufreq_bpf_request: cpu=0 requested=400000 resolved=1600000 " "$TRACING/trace"
}

# cpu0_switches_at KHZ: the driver's switches of CPU 0 to KHZ in the trace.
cpu0_switches_at() { grep -c "cpu_frequency: state=$1 cpu_id=0\$" "$TRACING/trace"; }
cpu0_switched_at() { [ "$(cpu0_switches_at "$1")" -gt 0 ]; }

@test "a limits change that keeps the frequency reaches only drivers that take the limits with each request" {
	local want=0
	# vcpufreq.need_update_limits=1 (run-all's tables boot) sets
	# CPUFREQ_NEED_UPDATE_LIMITS, as intel_cpufreq and amd-pstate do.
	# Only their fast path shows it here: the core calls ->fast_switch()
	# for any request, but not vcpufreq's ->target_index() for the
	# current frequency (__target_index()), where those two drivers have
	# ->target().
	dmesg | grep -q 'need_update_limits on' && fast_switch_on && want=1
	register schedutil >/dev/null
	set_governor 0 bpf_schedutil
	# 800 MHz and nothing else: whatever bpf_schedutil asks resolves to it.
	policy_write 0 scaling_min_freq 800000
	policy_write 0 scaling_max_freq 800000
	wait_for 10 freq_is 0 800000
	pause 0.2
	trace_on power/cpu_frequency cpufreq_bpf/cpufreq_bpf_request
	# A higher maximum: limits() is called, and idle CPUs 0-1 still want
	# the minimum, 800 MHz, so bpf_schedutil, as schedutil, asks for
	# nothing new.  (Rewriting the same limit would not call limits():
	# the frequency QoS notifies changes only.  Nor is CPU 0 poked: a
	# task moved there brings the utilization of the CPU it came from.)
	policy_write 0 scaling_max_freq 1200000
	if [ $want = 1 ]; then
		wait_for 5 cpu0_switched_at 800000
	fi
	pause 0.5
	trace_off
	[ "$(cpu0_switches_at 800000)" -eq $want ] &&
	[ "$(grep -c 'cpu_frequency:.* cpu_id=0$' "$TRACING/trace")" -eq $want ] ||
	{ grep -v '^#' "$TRACING/trace"; false; }
}

@test "sample() runs at most once a millisecond, however soon it asks" {
	local t0 t1 before after
	register test_storm
	set_governor 0 bpf_storm
	sleep 0.2
	# Every sample between the two reads of the counter falls within
	# t0..t1, which holds at most one per whole millisecond and one more.
	t0=${EPOCHREALTIME/./}
	before=$(gov_stat bpf_storm 0 sample_calls)
	sleep 1
	after=$(gov_stat bpf_storm 0 sample_calls)
	t1=${EPOCHREALTIME/./}
	echo "# $((after - before)) samples in $(((t1 - t0) / 1000)) ms" >&3
	[ $((after - before)) -gt 0 ]
	[ $((after - before)) -le $(((t1 - t0) / 1000 + 1)) ]
}

@test "only a policy that cannot switch fast has a kthread" {
	register test_gov
	ctl test_gov 2000000 0 0
	set_governor 0 bpf_test
	start_hog 0
	wait_for 10 freq_is 0 2000000
	stop_hogs
	if fast_switch_on; then
		[ -z "$(pgrep -x cpufreq_bpf:0)" ]
		# This shell runs on CPUs 2-3: the limits() op runs here, and
		# its request has a CPU of policy0 switch before the write
		# returns.
		policy_write 0 scaling_max_freq 800000
		[ "$(cur_freq 0)" -le 800000 ]
	else
		[ -n "$(pgrep -x cpufreq_bpf:0)" ]
		policy_write 0 scaling_max_freq 800000
		wait_for 10 freq_at_most 0 800000
	fi
	[ "$(gov_stat bpf_test 0 errors)" -eq 0 ]
}

@test "an idle policy is not woken to be sampled" {
	register test_gov
	set_governor 0 bpf_test
	# test_gov samples every 20 ms and never changes the frequency from
	# sample(): after a sample that finds no task on policy0, the next
	# comes only once a CPU of policy0 updates its own runqueue with a
	# task on it.  test_gov counts idle samples that follow an idle one
	# with no update() of a CPU of policy0 on itself between them.
	sleep 3
	local s
	s=$(seen_all test_gov)
	echo "samples $(field "$s" sample), idle $(field "$s" idle_samples), woken idle $(field "$s" woken_idle)"
	[ "$(field "$s" idle_samples)" -gt 0 ]
	[ "$(field "$s" woken_idle)" -eq 0 ]
	# Work on the policy brings the samples back.
	start_hog 0
	wait_for 10 seen_above test_gov sample "$(field "$s" sample)"
}

@test "two BPF governors run two policies at once" {
	register test_gov
	register test_b
	set_governor 0 bpf_test
	set_governor 2 bpf_test_b
	start_hog 0
	start_hog 2
	wait_for 10 freq_is 0 2000000
	wait_for 10 freq_is 2 2600000
	[ "$(gov_stat bpf_test 0 governed)" -eq 1 ]
	[ "$(gov_stat bpf_test 2 governed)" -eq 0 ]
	[ "$(gov_stat bpf_test_b 2 governed)" -eq 1 ]
	[ "$(seen test_b update)" -gt 0 ]
}

@test "unregistering under a hog returns each policy to its previous governor" {
	register test_gov
	set_governor 0 ondemand
	set_governor 0 bpf_test
	set_governor 2 performance
	set_governor 2 bpf_test
	start_hog 0
	wait_for 10 freq_is 0 2000000
	unregister test_gov_ops
	wait_for 10 governor_gone bpf_test
	[ "$(governor 0)" = ondemand ]
	[ "$(governor 2)" = performance ]
	grep -q '^bpf_test: unregistered$' "$BPF_DEBUGFS/exits"
	# ondemand has the policy now: it follows the hog.
	wait_for 10 freq_is 0 2000000
	stop_hogs
	wait_for 10 freq_at_most 0 800000
}

@test "an error exit returns the policies and its reason is visible" {
	register test_gov
	set_governor 0 conservative
	set_governor 0 bpf_test
	# For three seconds, RT hogs keep the work item that hands the policy
	# back from running on policy0's CPUs, while its sample timer (every
	# 20 ms) goes on firing there.  The seconds count from each hog's
	# start: counted by timeout(1) from before bash had started, under
	# emulation they could pass before a hog ran at all.
	local cpu
	rm -f "$BATS_TEST_TMPDIR"/hog*
	for cpu in 0 1; do
		chrt -f 1 taskset -c $cpu bash -c "touch $BATS_TEST_TMPDIR/hog$cpu
			end=\$((SECONDS + 3)); while [ \$SECONDS -lt \$end ]; do :; done" &
	done
	wait_for 10 test -e "$BATS_TEST_TMPDIR/hog0" -a -e "$BATS_TEST_TMPDIR/hog1"
	ctl test_gov 0 1 0
	wait
	wait_for 10 governor_gone bpf_test
	[ "$(governor 0)" = conservative ]
	# No op runs once it has exited: at most the update() and the
	# sample() already under way on the policy's other CPU see the exit.
	local after
	after=$(seen test_gov after_exit)
	echo "update() and sample() calls after the exit: $after"
	[ "$after" -le 2 ]
	grep -q '^bpf_test: error: test_gov was told to exit$' "$BPF_DEBUGFS/exits"
	grep -q '^state retired$' "$BPF_DEBUGFS/bpf_test/stats"
	dmesg | grep -q 'governor bpf_test removed: error: test_gov was told to exit'
	# The map is still attached, but no policy can switch to it.
	run set_governor 0 bpf_test
	[ "$status" -ne 0 ]
	unregister test_gov_ops
	wait_for 10 test ! -e "$BPF_DEBUGFS/bpf_test"
}

# cpu_passed_errors CPU FROM KFUNC PREVIOUS: test_cpu passes CPU from FROM
# (1 update(), 2 start()) while it runs policy0 after PREVIOUS; it must
# error-exit, naming KFUNC and CPU, and hand policy0 back.
cpu_passed_errors() {
	register test_cpu
	ctl test_cpu "$1" "$2"
	set_governor 0 "$4"
	set_governor 0 bpf_test_cpu
	start_hog 0
	wait_for 10 governor_gone bpf_test_cpu
	[ "$(governor 0)" = "$4" ]
	grep -qx "bpf_test_cpu: error: $3: invalid CPU $1" "$BPF_DEBUGFS/exits"
}

@test "a CPU past the last possible one error-exits the governor" {
	local last
	last=$(cut -d- -f2 /sys/devices/system/cpu/possible)
	cpu_passed_errors $((last + 1)) 1 bpf_cpufreq_cpu_util_cfs conservative
}

@test "a negative CPU from a sleepable op error-exits the governor" {
	cpu_passed_errors -1 2 bpf_cpufreq_cpu_capacity ondemand
}

@test "requests from stop() and exit() are refused" {
	register test_gov
	set_governor 0 bpf_test
	set_governor 0 powersave
	# test_gov asks for the top frequency in both: neither reaches the
	# policy, which powersave holds at its lowest.
	[ "$(seen test_gov refused)" -eq 2 ]
	freq_is 0 "$(policy_read 0 cpuinfo_min_freq)"
}

@test "a governor may refuse a policy, which keeps its governor" {
	register test_gov
	ctl test_gov 0 0 1
	set_governor 0 ondemand
	run set_governor 0 bpf_test
	[ "$status" -ne 0 ]
	[ "$(governor 0)" = ondemand ]
}

@test "a link update restarts the policies on the new code, without a gap" {
	register test_gov
	set_governor 0 bpf_test
	start_hog 0
	wait_for 10 seen_above test_gov update 0
	wait_for 10 freq_is 0 2000000
	# The old object's counters outlive its programs only pinned.
	"$BPFTOOL" map pin name test_gov.bss "$LINKS/test_gov_bss"
	old=$(seen_all test_gov)
	exits=$(wc -l < "$BPF_DEBUGFS/exits")
	# Watch the policy's governor and frequency through the update.
	watch=$BATS_TEST_TMPDIR/watch
	( while [ ! -e "$watch.done" ]; do
		read -r g < "$CPUFREQ/policy0/scaling_governor"
		read -r f < "$CPUFREQ/policy0/scaling_cur_freq"
		echo "$g $f"
	  done ) > "$watch" &
	watcher=$!
	"$LINK_UPDATE" "$LINKS/test_gov_ops" "$TEST_OBJ/test_v2.bpf.o"
	touch "$watch.done"
	wait "$watcher"
	grep -q '^link_updates 1$' "$BPF_DEBUGFS/bpf_test/stats"
	# v1 was stopped and exited on policy0 once more, v2 initialized and
	# started there once: it runs on state of its own.
	s=$(seen_all test_v2)
	[ "$(field "$s" init)" -eq 1 ]
	[ "$(field "$s" start)" -eq 1 ]
	[ "$(field "$s" stop)" -eq 0 ]
	[ "$(field "$s" transition_delay_us)" -gt 0 ]
	[ "$(field "$s" version)" -eq 2 ]
	new=$(seen_all pinned "$LINKS/test_gov_bss")
	[ "$(field "$new" stop)" -eq $(($(field "$old" stop) + 1)) ]
	[ "$(field "$new" exit)" -eq $(($(field "$old" exit) + 1)) ]
	# The policy never left the governor nor the top frequency.
	[ "$(wc -l < "$watch")" -gt 5 ]
	[ "$(sort -u "$watch")" = "bpf_test 2000000" ]
	wait_for 10 seen_above test_v2 update 0
	[ "$(wc -l < "$BPF_DEBUGFS/exits")" -eq "$exits" ]
}

@test "a link update whose code does not start hands the policy back" {
	register test_gov
	set_governor 0 ondemand
	set_governor 0 bpf_test
	"$LINK_UPDATE" "$LINKS/test_gov_ops" "$TEST_OBJ/test_nogo.bpf.o"
	grep -q '^link_updates 1$' "$BPF_DEBUGFS/bpf_test/stats"
	[ "$(governor 0)" = ondemand ]
	dmesg | grep -q 'CPU0: governor bpf_test did not restart: -16'
	# Still registered, for policies where it starts.
	governor_listed bpf_test
}

@test "the verifier refuses a governor that writes into the policy" {
	run register bad_write_policy
	[ "$status" -ne 0 ]
	[[ "$output" == *"only read is supported"* ]]
	governor_gone bpf_bad_write
}

@test "the verifier refuses a sleepable kfunc in update()" {
	run register bad_sleep_in_update
	[ "$status" -ne 0 ]
	[[ "$output" == *"sleepable"* ]]
	governor_gone bpf_bad_sleep
}

@test "an op that cpufreq_gov_ops does not have is refused" {
	run register bad_unknown_op
	[ "$status" -ne 0 ]
	[[ "$output" == *"rebalance"* ]]
	governor_gone bpf_bad_op
}

@test "the kfuncs are refused to other program types" {
	run "$BPFTOOL" prog load "$TEST_OBJ/bad_kfunc_in_syscall.bpf.o" /sys/fs/bpf/bad_kfunc
	[ "$status" -ne 0 ]
	[ ! -e /sys/fs/bpf/bad_kfunc ]
}

@test "every request is traced with its path" {
	register test_gov
	trace_on cpufreq_bpf/cpufreq_bpf_request power/cpu_frequency
	set_governor 0 bpf_test
	start_hog 0
	wait_for 10 freq_is 0 2000000
	trace_off
	path=deferred
	fast_switch_on && path=fast
	grep -q "cpufreq_bpf_request: cpu=0 requested=[0-9]* resolved=2000000 path=$path" "$TRACING/trace"
	grep -q 'cpu_frequency: state=2000000 cpu_id=0' "$TRACING/trace"
}

@test "a request is traced under its policy and governor, whichever CPU is online" {
	register test_gov
	set_governor 2 bpf_test
	# policy->cpu moves to CPU3; the trace keeps naming the policy policy2.
	echo 0 > /sys/devices/system/cpu/cpu2/online
	local max
	max=$(policy_read 2 cpuinfo_max_freq)
	trace_on cpufreq_bpf/cpufreq_bpf_request
	start_hog 3
	wait_for 10 freq_is 2 "$max"
	trace_off
	grep -q "cpufreq_bpf_request: cpu=2 requested=[0-9]* resolved=$max path=[a-z]* governor=bpf_test$" \
		"$TRACING/trace"
	! grep -q "cpufreq_bpf_request: cpu=3 " "$TRACING/trace"
}

@test "a CPU of a BPF-governed policy goes offline and back" {
	register test_gov
	set_governor 0 bpf_test
	echo 0 > /sys/devices/system/cpu/cpu1/online
	[ "$(policy_read 0 affected_cpus)" = 0 ]
	[ "$(governor 0)" = bpf_test ]
	echo 1 > /sys/devices/system/cpu/cpu1/online
	[ "$(policy_read 0 affected_cpus)" = "0 1" ]
	[ "$(governor 0)" = bpf_test ]
	start_hog 1
	wait_for 10 freq_is 0 2000000
}

@test "a policy offline when its BPF governor goes comes back with the previous one" {
	register test_gov
	set_governor 2 powersave
	set_governor 2 bpf_test
	echo 0 > /sys/devices/system/cpu/cpu2/online
	echo 0 > /sys/devices/system/cpu/cpu3/online
	unregister test_gov_ops
	wait_for 10 governor_gone bpf_test
	echo 1 > /sys/devices/system/cpu/cpu2/online
	echo 1 > /sys/devices/system/cpu/cpu3/online
	[ "$(governor 2)" = powersave ]
}
