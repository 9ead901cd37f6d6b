#!/usr/bin/env bats
# bpf_classaware in the VM, one test per rule, on policy0 (CPUs 0-1,
# 400-2000 MHz), the suite itself on CPUs 2-3: RT work at the top
# frequency, the DL floor, the jump for a latency-sensitive task, background
# work stepping and the CFS bandwidth cap.

load lib
load governors_lib

OPPS="400000 800000 1200000 1600000 2000000"
CGROOT=/sys/fs/cgroup

setup() {
	off_policy0
	reset_policies
}

teardown() {
	if [ -n "${TASK:-}" ]; then kill "$TASK" 2>/dev/null || true; wait "$TASK" 2>/dev/null || true; fi
	# A reservation whose test failed before ending it.
	if [ -n "${RTAPP:-}" ]; then kill "$RTAPP" 2>/dev/null || true; wait "$RTAPP" 2>/dev/null || true; fi
	echo 1 > /sys/devices/system/cpu/cpu1/online
	echo 950000 > /proc/sys/kernel/sched_rt_runtime_us
	[ ! -w /proc/sys/kernel/sched_util_clamp_min_rt_default ] ||
		echo 1024 > /proc/sys/kernel/sched_util_clamp_min_rt_default
	# The group goes once its hog has.
	stop_hogs
	[ -d "$CGROOT/capped" ] && rmdir "$CGROOT/capped"
	restore_vm_state
}

# lowest_opp_at_least KHZ: the frequency the driver resolves KHZ to.
lowest_opp_at_least() {
	local f
	for f in $OPPS; do
		[ "$f" -ge "$1" ] && { echo "$f"; return; }
	done
	echo 2000000
}

# use_classaware: policy0 runs bpf_classaware, idle at its minimum.
use_classaware() {
	gov_load classaware
	set_governor 0 bpf_classaware
	wait_for 20 freq_is 0 400000
}

# rt_timeline PID CPU [KHZ]: PID's life as an RT task on CPU against CPU's
# frequency, from the trace: "in KHZ GAP_US" each time PID is switched in
# as an RT task (the frequency CPU runs at then), "out KHZ" each time it is
# switched out, "freq KHZ GAP_US" each change of CPU's frequency.  GAP_US is guest time since PID, as an RT task,
# was last switched out of CPU, -1 before its first run.  rt-app starts its
# threads as CFS tasks: those runs do not count.  KHZ: CPU's frequency when
# the trace began, "unknown" when not given.
rt_timeline() {
	awk -v pid="$1" -v cpu="$(printf '[%03d]' "$2")" -v id="cpu_id=$2" -v f="${3:-unknown}" '
		function field(name) { match($0, name "=[^ ]+"); return substr($0, RSTART + length(name) + 1, RLENGTH - length(name) - 1) }
		function now() { match($0, / [0-9]+\.[0-9]+: /); return substr($0, RSTART + 1, RLENGTH - 3) * 1000000 }
		function gap() { return last_out < 0 ? -1 : int(now() - last_out) }
		BEGIN { last_out = -1 }
		/cpu_frequency:/ && index($0, id) { f = field("state"); print "freq", f, gap() }
		/sched_switch:/ && index($0, cpu) {
			if (field("next_pid") == pid && field("next_prio") + 0 < 100) print "in", f, gap()
			if (field("prev_pid") == pid && field("prev_prio") + 0 < 100) { print "out", f; last_out = now() }
		}
	' "$TRACING/trace"
}

# traced_pid COMM: the pid of the task named COMM from the trace's
# sched_switch events.  Looked up in /proc while rt-app ran, its thread of
# 2 s was missed now and then: under emulation one look at every task's
# comm takes about a second, and the thread appeared 3 s after rt-app did.
traced_pid() {
	awk -v comm="next_comm=$1 " 'index($0, comm) {
		match($0, /next_pid=[0-9]+/); print substr($0, RSTART + 9, RLENGTH - 9); exit }' \
		"$TRACING/trace"
}

# traced_rt_job SECONDS: the test task below for SECONDS under trace; its
# rt_timeline in TIMELINE, the frequency at each switch-in printed.
traced_rt_job() {
	local pid start
	trace_on sched/sched_switch power/cpu_frequency
	# Read once the trace is on: a change after it is in the trace.
	start=$(cur_freq 0)
	rtapp_on_cpu0 rtjob SCHED_FIFO "$1" 1000 $RT_PERIOD_US
	wait "$RTAPP"
	trace_off
	pid=$(traced_pid rtjob)
	[ -n "$pid" ] || return 1
	TIMELINE=$(rt_timeline "$pid" 0 "$start")
	echo "# frequency at each switch-in: $(awk '$1 == "in" { print $2 }' <<< "$TIMELINE" |
		sort -n | uniq -c | tr -s ' \n' ' ')" >&3
}

# The test task: 1 ms every 20 ms, far too little for its utilization to
# ask for more.  Its gaps last 19 ms: one longer than its period is the
# host holding up the vCPU, in guest time too, and long enough for the RT
# utilization to decay under rt_presence_util (about 60 ms at this load).
RT_PERIOD_US=20000

# cpu1_off: policy0 is CPU 0 alone.  CPU 1's own demand (its softirq
# thread and kworkers, 600 MHz to 1.6 GHz worth now and then under
# emulation) would lift the policy over a level a test holds CPU 0's work
# to; the teardown brings it back.
cpu1_off() {
	echo 0 > /sys/devices/system/cpu/cpu1/online
}

@test "bpf_classaware ramps up under a hog and down after" {
	ramps classaware bpf_classaware
}

@test "bpf_classaware keeps within scaling_max_freq and scaling_min_freq" {
	keeps_limits classaware bpf_classaware
}

@test "bpf_classaware survives garbage tunables" {
	survives_garbage classaware bpf_classaware
}

@test "bpf_classaware: an RT task runs at the top frequency" {
	local timeline first=2
	use_classaware
	traced_rt_job 2
	timeline=$TIMELINE
	[ "$(grep -c '^in ' <<< "$timeline")" -ge 50 ]
	# Its first run as an RT task is not judged: it follows rt-app's change
	# of its class, not a wake-up of its own, and was once found with
	# policy0 still at 800 MHz (the class may be changed from another
	# CPU, whose update policy0's governor may not act on).  After that,
	# with fast switching: switched from the wake-up itself,
	# before the task runs.  Without: the kthread lags the first wake-ups;
	# after them the policy holds the top while the task's utilization
	# lasts, so only a job after a gap longer than its period may start
	# lower.
	fast_switch_on || first=3
	grep '^in ' <<< "$timeline" | tail -n +$first |
		awk -v period=$RT_PERIOD_US -v fast="$(fast_switch_on && echo 1)" '
		$2 != 2000000 && (fast || $3 < period) {
			printf "job at %d kHz, %d us after the last\n", $2, $3 > "/dev/stderr"; bad = 1 }
		END { exit bad }'
	wait_for 20 freq_is 0 400000
}

@test "bpf_classaware: without fast switching, the top frequency holds between RT jobs" {
	local pid timeline
	fast_switch_on && skip "fast switching: RT jobs raise the frequency one by one"
	use_classaware
	trace_on sched/sched_switch power/cpu_frequency
	rtapp_on_cpu0 rtjob SCHED_FIFO 3 1000 $RT_PERIOD_US
	wait "$RTAPP"
	trace_off
	pid=$(traced_pid rtjob)
	[ -n "$pid" ]
	timeline=$(rt_timeline "$pid" 0)
	[ "$(grep -c '^in ' <<< "$timeline")" -ge 100 ]
	grep -q '^freq 2000000 ' <<< "$timeline"
	# Once at the top, the policy leaves it only when the task has been
	# gone longer than its period: never between two of its jobs.  Judged
	# from its fourth switch-in (the kthread preempts its first job to
	# switch, so that job is switched in twice): the hold lasts while the
	# RT utilization is at least rt_presence_util (16), which the first
	# job, partly run at 400 MHz, does not build (a CI run saw the top
	# left 835 us after one).
	awk -v period=$RT_PERIOD_US '
		$1 == "in" { ins++ }
		$1 == "freq" && $2 == 2000000 { top = 1 }
		$1 == "freq" && $2 != 2000000 && top && ins >= 4 && $3 < period {
			printf "down to %d kHz %d us after a job\n", $2, $3 > "/dev/stderr"; bad = 1 }
		END { exit bad }' <<< "$timeline"
	# Gone with the RT utilization: in well under a second.
	wait_for 5 freq_is 0 400000
}

@test "bpf_classaware: with uclamp in use, RT work still reaches the top in each job" {
	local timeline
	fast_switch_on || skip "the kthread, switching for 5 ms under emulation, outlasts a 1 ms job"
	use_classaware
	cpu1_off
	# With uclamp in use an RT task asks for its uclamp.min, 1024 here (the
	# default), not the top outright.  6.12 counts a waking task in its
	# runqueue's clamps only after the hook has run: judged from the hook
	# alone, job after job ran at 800 MHz-1.6 GHz.  Each job (after the
	# first, which follows rt-app's change of class) must reach 2 GHz
	# before it ends.  Uclamp stays in use for the rest of the boot: the
	# tests after this one run with it.
	uclampset -m 0 true
	traced_rt_job 2
	timeline=$TIMELINE
	[ "$(grep -c '^in ' <<< "$timeline")" -ge 50 ]
	awk '$1 == "in" { jobs++; top = $2 == 2000000; injob = 1 }
		$1 == "freq" && injob && $2 == 2000000 { top = 1 }
		$1 == "out" && injob && jobs > 1 { injob = 0; judged++
			if (!top) { printf "job %d ran below the top\n", jobs > "/dev/stderr"; bad = 1 } }
		END { exit bad || judged < 49 }' <<< "$timeline"
}

# rt_jobs_within LOW HIGH: every job of traced_rt_job's task after its
# first reached LOW kHz before it ended, and none ran above HIGH.
rt_jobs_within() {
	[ "$(grep -c '^in ' <<< "$TIMELINE")" -ge 50 ]
	awk -v low="$1" -v high="$2" '
		$1 == "in" { jobs++; injob = 1; top = $2 + 0 }
		($1 == "in" || $1 == "freq") && injob && $2 + 0 > top { top = $2 + 0 }
		$1 == "out" && injob && jobs > 1 { injob = 0; judged++
			if (top < low || top > high) {
				printf "job %d ran at up to %d kHz, outside %d-%d\n", jobs, top, low, high > "/dev/stderr"
				bad = 1 } }
		END { exit bad || judged < 49 }' <<< "$TIMELINE"
}

@test "bpf_classaware: with uclamp in use, RT work runs at the level of its clamp" {
	fast_switch_on || skip "the kthread, switching for 5 ms under emulation, outlasts a 1 ms job"
	use_classaware
	cpu1_off
	# With uclamp in use the scheduler gives RT work its uclamp.min
	# (sched_util_clamp_min_rt_default), not the top: 512 is half the
	# capacity, 1 GHz, which the driver resolves to 1.2 GHz.  The task's
	# own utilization (1 ms in 20) asks for less.  Each job must reach the
	# clamp's level, and never the top; other work on CPU 0 may add to the
	# level.  (At its switch-in a job may still run at the level before:
	# the wake-up is judged again by a sample right after it, which twice
	# in 97 jobs of a CI run came after the switch-in.  Every job was at
	# 1.2 GHz at its switch-in in five runs; with 0 at 400 MHz, but for 9
	# of 99 at 800 MHz in one.)  Writing the default puts uclamp in use
	# for the rest of the boot.
	echo 512 > /proc/sys/kernel/sched_util_clamp_min_rt_default
	traced_rt_job 2
	rt_jobs_within 1200000 1600000
	# With 0 its utilization alone decides: not the top.
	echo 0 > /proc/sys/kernel/sched_util_clamp_min_rt_default
	traced_rt_job 2
	rt_jobs_within 400000 1600000
}

@test "bpf_classaware: a DL reservation sets a floor from its bandwidth" {
	local floor bw
	use_classaware
	# 6 ms of every 20 ms reserved, 0.5 ms used: utilization stays low.
	dl_job_on_cpu0 6000
	bw=$((1024 * 6 / 20))
	floor=$(lowest_opp_at_least $((2000000 * bw * 110 / 100 / 1024)))
	echo "# bw_dl $bw: floor $floor kHz" >&3
	# The floor itself, not more: with 0.5 ms of work the policy settles
	# on it.  (A kworker waking beside the job may lift it for a moment;
	# that is utilization, not the floor.)  Then it never drops below it
	# while the task lives, and falls once it is gone.
	wait_for 5 freq_is 0 "$floor"
	never_below 0 "$floor" 2
	end_rtapp
	wait_for 20 freq_is 0 400000
}

@test "bpf_classaware: dl_margin_pct raises the DL floor" {
	local floor
	use_classaware
	set_tunables classaware classaware_tunables 0 dl_margin_pct=100
	dl_job_on_cpu0 6000
	# 2 x 0.3 of the top frequency: 1.2 GHz, where the default margin gives 800 MHz.
	floor=$(lowest_opp_at_least $((2000000 * 6 / 20 * 2)))
	wait_for 5 freq_at_least 0 "$floor"
	never_below 0 "$floor" 1
	end_rtapp
}

@test "bpf_classaware: background work beside a DL reservation does not step under its floor" {
	use_classaware
	set_tunables classaware classaware_tunables 0 background_step_us=1000000
	# 12 ms of every 20 ms reserved: 0.6 x 1.1 of the top, 1.32 GHz, which
	# resolves to 1.6 GHz.
	dl_job_on_cpu0 12000
	wait_for 5 freq_is 0 1600000
	# A nice 19 hog makes CPU 0 background work, which climbs from the
	# floor, never from under it: its first step is due at once, to
	# 2 GHz.  Stepped from the lowest operating point, the policy fell to
	# 800 MHz and 400 MHz with the reservation in place.
	nice -n 19 taskset -c 0 bash -c "$HOG_LOOP" &
	HOGS=$!
	never_below 0 1600000 2
	stop_hogs
	end_rtapp
}

# uclamped_bursts UCLAMP_MIN: 1 ms busy in every 20 ms on CPU 0, with
# uclamp.min UCLAMP_MIN, in the background, until the teardown ends it; its
# pid in TASK.  Its utilization alone asks for the minimum, once settled.
# A test checks that it still runs after its window (kill -0): one of a
# fixed duration could end before the waits and the window had passed.
uclamped_bursts() {
	uclampset -m "$1" -- taskset -c 0 "$BURSTY" 60 1 19 &
	TASK=$!
}

# settled PID: PID's utilization and its estimate are both under 128 of
# 1024.  A new task starts at half of its CPU's spare capacity, which asks
# for 1.6-2 GHz, and a task of 1 ms in 20 takes about 100 ms to decay from
# there (traced: requests of 2 GHz from the task's own wake-ups until then).
settled() {
	awk '$1 == "se.avg.util_avg" || $1 == "se.avg.util_est" {
		v = $3 % 2147483648; if (v >= 128) bad = 1 }
		END { exit bad }' "/proc/$1/sched"
}

@test "bpf_classaware: a latency-sensitive task holds the level of its uclamp.min" {
	use_classaware
	cpu1_off
	# 512 of 1024: 1 GHz, which resolves to 1.2 GHz, while the task runs
	# and for boost_hold_us after it leaves idle.  Never more: the rule
	# it replaces jumped to hispeed_freq, 2 GHz, for any uclamp.min.  (It
	# may drop lower for a moment: a wake-up the emulator's host delays
	# past the burst's end is not seen leaving idle, and does not renew
	# the hold.)
	set_tunables classaware classaware_tunables 0 boost_hold_us=100000
	uclamped_bursts 512
	wait_for 3 settled "$TASK"
	wait_for 3 freq_is 0 1200000
	never_above 0 1200000 2
	kill -0 "$TASK"
}

@test "bpf_classaware: a small uclamp.min is no jump to hispeed_freq" {
	use_classaware
	cpu1_off
	# uclamp.min 64 asks for 125 MHz: as Android's top-app group sets on
	# every task, it must not send each wake-up to hispeed_freq (2 GHz).
	uclamped_bursts 64
	wait_for 3 settled "$TASK"
	never_above 0 800000 2
	kill -0 "$TASK"
}

# rises: the successive frequencies of CPU 0 in the trace, with the time of
# each rise, as "USEC KHZ" lines.  (Times with %.0f: mawk's %d stops at
# 2^31, 36 minutes of uptime, which a boot under vmrun --icount passes.)
rises() {
	awk '/cpu_frequency:/ && index($0, "cpu_id=0") {
		match($0, /[0-9]+\.[0-9]+:/); t = substr($0, RSTART, RLENGTH - 1)
		match($0, /state=[0-9]+/); f = substr($0, RSTART + 6, RLENGTH - 6) + 0
		if (f > last) printf "%.0f %d\n", t * 1000000, f
		last = f }' "$TRACING/trace"
}

@test "bpf_classaware: a nice 0 hog is not held back by background stepping" {
	local r top
	use_classaware
	set_tunables classaware classaware_tunables 0 background_step_us=200000
	trace_on power/cpu_frequency
	start_hog 0
	wait_for 10 freq_is 0 2000000
	trace_off
	r=$(rises)
	echo "# rises (us kHz): $(tr '\n' ' ' <<< "$r")" >&3
	# From the first rise to 2 GHz in less than the 4 steps background
	# takes (the first time: under emulation utilization then hovers at
	# the 1.6/2 GHz boundary for a while, docs/governors.md).
	top=$(awk '$2 == 2000000 { print $1; exit }' <<< "$r")
	[ $((top - $(head -1 <<< "$r" | cut -d' ' -f1))) -lt 800000 ]
}

@test "bpf_classaware: background work climbs one operating point per step" {
	local r hog release step=200000
	use_classaware
	set_tunables classaware classaware_tunables 0 background_step_us=$step
	cpu1_off
	# A hog in a group capped at uclamp.max 10% is background work that
	# needs less than the lowest operating point (but more than the DL
	# floor of the fair server's 5% reservation).
	mountpoint -q "$CGROOT" || mount -t cgroup2 none "$CGROOT"
	echo +cpu > "$CGROOT/cgroup.subtree_control"
	mkdir "$CGROOT/capped"
	echo 10 > "$CGROOT/capped/cpu.uclamp.max"
	stopped_hog 0
	hog=${HOGS##* }
	echo "$hog" > "$CGROOT/capped/cgroup.procs"
	kill -CONT "$hog"
	sleep 0.5
	# Uncapped it would hold 2 GHz; capped it settles on the lowest point.
	wait_for 5 freq_is 0 400000
	# The cap raised to 78% (under 820 of 1024: runqueue clamps are kept
	# in 20% buckets, and uncapped kworkers next to it share the top
	# one) it needs 1.6 GHz and climbs there from the lowest operating
	# point: the first step at once (none was taken yet), each next a
	# step later.  Shell builtins only, so that the marker is the time
	# of the change.
	trace_on power/cpu_frequency
	echo release > "$TRACING/trace_marker"
	echo 78 > "$CGROOT/capped/cpu.uclamp.max"
	wait_for 10 freq_is 0 1600000
	sleep 0.5
	trace_off
	stop_hogs
	r=$(rises)
	release=$(awk '/tracing_mark_write: release/ {
		match($0, /[0-9]+\.[0-9]+:/); printf "%.0f\n", substr($0, RSTART, RLENGTH - 1) * 1000000 }' \
		"$TRACING/trace")
	echo "# released at $release us; rises (us kHz): $(tr '\n' ' ' <<< "$r")" >&3
	# Every operating point up to the cap in turn and no further, the
	# first before a step could have passed, each next a step later (less
	# the switch's own latency, well under 1 ms).
	[ "$(cut -d' ' -f2 <<< "$r" | tr '\n' ' ')" = "800000 1200000 1600000 " ]
	[ $(($(head -1 <<< "$r" | cut -d' ' -f1) - release)) -lt $step ]
	awk -v min=$((step - 1000)) 'NR > 1 && $1 - prev < min { exit 1 } { prev = $1 }' <<< "$r"
}

@test "bpf_classaware: a CFS bandwidth quota is time, not a cap on frequency" {
	use_classaware
	mountpoint -q "$CGROOT" || mount -t cgroup2 none "$CGROOT"
	echo +cpu > "$CGROOT/cgroup.subtree_control"
	mkdir "$CGROOT/capped"
	# Half of each second: 500 ms at a stretch, long enough for a hog's
	# utilization to ask for the top.  Read as half of the capacity, the
	# quota held it to 1.25 x 1 GHz: 1.6 GHz.
	echo "500000 1000000" > "$CGROOT/capped/cpu.max"
	start_hog 0
	echo "${HOGS##* }" > "$CGROOT/capped/cgroup.procs"
	wait_for 5 freq_is 0 2000000
}

# fall_delay_us PID CPU: from the trace, microseconds from the last time PID
# was switched out of CPU to CPU's first frequency change after it.
fall_delay_us() {
	awk -v pid="prev_pid=$1" -v cpu="$(printf '[%03d]' "$2")" -v id="cpu_id=$2" '
		function ts() { match($0, / [0-9]+\.[0-9]+: /); return substr($0, RSTART + 1, RLENGTH - 3) }
		/sched_switch:/ && index($0, cpu) && index($0, pid " ") { out = ts(); fall = ""; next }
		/cpu_frequency:/ && index($0, id) && out != "" && fall == "" { fall = ts() }
		END { if (fall != "") printf "%d\n", (fall - out) * 1000000 }' "$TRACING/trace"
}

@test "bpf_classaware: rate_limit_us counts from the last change, not the last evaluation" {
	local hog delay
	use_classaware
	set_tunables classaware classaware_tunables 0 rate_limit_us=1000000
	echo global > "$TRACING/trace_clock"
	start_hog 0
	hog=${HOGS##* }
	wait_for 10 freq_is 0 2000000
	# Counted from evaluations, the limit lets one through every second
	# after this change, and only those may change the frequency.  Stop
	# the hog half-way between two: its fall must not wait for the next.
	sleep 1.5
	trace_on sched/sched_switch power/cpu_frequency
	stop_hogs
	wait_for 5 freq_at_most 0 800000
	trace_off
	delay=$(fall_delay_us "$hog" 0)
	echo "# first fall $delay us after the hog's last run" >&3
	[ -n "$delay" ]
	[ "$delay" -lt 250000 ]
}
