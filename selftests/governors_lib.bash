# Helpers for governors.bats: the governors of bpf-governors/, their
# tunables maps and the measurements the suite makes.  Needs lib.bash.


# schedutil_parity: bpf_schedutil in shadow of in-kernel schedutil on
# policy0 under a 12 ms in 20 ms load on CPU 0, judged on the same updates
# decision by decision (docs/benchmarks.md): agreement >= 99% of updates,
# residency L1 <= 0.02.
schedutil_parity() {
	local json agree l1
	register schedutil
	bursty_load 0 6 12 8 &
	sleep 0.5
	json=$("$LOADER" shadow bpf_schedutil --policy 0 --duration 4 --json)
	wait
	agree=$(jq -r .agreement_pct <<< "$json")
	l1=$(jq -r .l1 <<< "$json")
	echo "# $(jq -r .updates <<< "$json") updates, agreement $agree%, L1 $l1, transitions $(jq -c .transitions <<< "$json")" >&3
	awk -v a="$agree" -v l="$l1" 'BEGIN { exit !(a >= 99 && l <= 0.02) }'
	# The load ran: a tick's updates at least, and schedutil kept the
	# policy off its minimum most of the time (steady at one frequency,
	# it may make no transition at all).
	[ "$(jq -r .updates <<< "$json")" -ge 500 ]
	jq -e '.residency | min_by(.khz) | .actual_pct < 50' <<< "$json" >/dev/null
}

# gov_load OBJ: registers build/bpf/OBJ.bpf.o (its links pinned in $LINKS).
gov_load() {
	register "$1" >/dev/null
}

# le32 VALUE: VALUE as 4 little-endian bytes.
le32() {
	local v=$1
	echo "$((v & 255)) $(((v >> 8) & 255)) $(((v >> 16) & 255)) $(((v >> 24) & 255))"
}

# The loaded governor's map, by name: bpftool refuses the handle when it
# matches no map or several.  (By name, not by an id from "map show": that
# loads bpftool's process iterator each time, seconds under emulation.)
TUNABLES="name tunables"

# tunables_bytes POLICY: the raw bytes of POLICY's tunables entry, decimal.
tunables_bytes() {
	"$BPFTOOL" map lookup $TUNABLES key $(le32 "$1") -j |
		jq -r '.value[]' | while read -r b; do echo $((b)); done | tr '\n' ' '
}

# field_offset OBJ STRUCT FIELD: byte offset of FIELD in STRUCT, from BTF.
# A struct's layout is read once per boot: a BTF dump takes seconds under
# emulation, and set_tunables asks once per field.
field_offset() {
	local layout=/tmp/btf-layout.$1.$2
	[ -s "$layout" ] || "$BPFTOOL" btf dump file "$BPF_OBJ/$1.bpf.o" -j |
		jq -r --arg s "$2" '.types[] |
			select(.kind == "STRUCT" and .name == $s) | .members[] |
			"\(.name) \(.bits_offset / 8)"' > "$layout"
	awk -v f="$3" '$1 == f { print $2 }' "$layout"
}

# tunable_u32 OBJ STRUCT POLICY FIELD: a u32 field of POLICY's entry.
tunable_u32() {
	local off b
	off=$(field_offset "$1" "$2" "$4")
	read -r -a b <<< "$(tunables_bytes "$3")"
	echo $((b[off] | b[off + 1] << 8 | b[off + 2] << 16 | b[off + 3] << 24))
}

# set_tunables OBJ STRUCT POLICY FIELD=VALUE...: writes u32 fields of
# POLICY's entry, leaving the others as they are.  FIELD may be NAME[I]
# for an element of a u32 array.
set_tunables() {
	local obj=$1 st=$2 policy=$3 kv name idx off
	local -a bytes le
	shift 3
	read -r -a bytes <<< "$(tunables_bytes "$policy")"
	for kv in "$@"; do
		name=${kv%%=*}
		idx=0
		if [[ $name == *"["*"]" ]]; then
			idx=${name#*[}
			idx=${idx%]}
			name=${name%%[*}
		fi
		off=$(field_offset "$obj" "$st" "$name")
		[ -n "$off" ] || { echo "no field $name in $st" >&2; return 1; }
		off=$((off + 4 * idx))
		read -r -a le <<< "$(le32 "${kv#*=}")"
		bytes[off]=${le[0]} bytes[off+1]=${le[1]} bytes[off+2]=${le[2]} bytes[off+3]=${le[3]}
	done
	"$BPFTOOL" map update $TUNABLES key $(le32 "$policy") value "${bytes[@]}"
}

# tunables_size: the size of a tunables entry, in bytes.
tunables_size() { wc -w <<< "$(tunables_bytes 0)"; }

# garbage_tunables POLICY: random bytes over POLICY's whole tunables entry.
garbage_tunables() {
	"$BPFTOOL" map update $TUNABLES key $(le32 "$1") \
		value $(head -c "$(tunables_size)" /dev/urandom | od -An -tu1 -v)
}

# residency POLICY: time_in_state as "freq ticks" lines.
residency() { cat "$CPUFREQ/policy$1/stats/time_in_state"; }

# residency_delta BEFORE AFTER: per-frequency ticks spent between two
# residency snapshots (files).
residency_delta() {
	join "$1" "$2" | awk '{ print $1, $3 - $2 }'
}

# l1_distance A B: L1 distance between two residency deltas (files of
# "freq ticks"), each normalized to a distribution: 0 same, 2 disjoint.
l1_distance() {
	join "$1" "$2" | awk '{ a[NR] = $2; b[NR] = $3; sa += $2; sb += $3 }
		END { for (i = 1; i <= NR; i++) { x = a[i] / sa - b[i] / sb; d += x < 0 ? -x : x }
		      printf "%.4f\n", d }'
}

# stopped_hog CPU [WRAPPER...]: a busy loop pinned to CPU, stopped before it
# starts spinning so that it can be released at a known time; WRAPPER (e.g.
# uclampset -M 800) runs it.  Its pid is the last in HOGS.
stopped_hog() {
	"${@:2}" taskset -c "$1" bash -c 'kill -STOP $$; while :; do :; done' &
	HOGS="${HOGS:-} $!"
	wait_for 5 is_stopped $!
}

is_stopped() { [ "$(awk '{ print $3 }' "/proc/$1/stat")" = T ]; }

# bursty_load CPU SECONDS BUSY_MS IDLE_MS &: BUSY_MS busy in every period
# of BUSY_MS + IDLE_MS on CPU, whatever the emulator's wake-up latency (see
# selftests/tools/bursty.c).  Always in the background: it becomes the load,
# so that $! is the load's pid and killing it stops the load (killing the
# subshell of a function that runs it would leave the load running).
bursty_load() {
	exec taskset -c "$1" "$BURSTY" "$2" "$3" "$4"
}

# ramp_delay_us PID CPU FREQ EVENT: microseconds from the task PID first
# switched in on CPU (sched_switch) to the first EVENT of that CPU at FREQ
# or above: "switch" for power:cpu_frequency, "request" for the governor's
# cpufreq_bpf_request.  0 when the CPU got there between the start of the
# trace and that first run (the wake-up itself raised it); empty when
# either is missing from the trace.
ramp_delay_us() {
	awk -v pid="next_pid=$1" -v cpu="$2" -v f="$3" -v ev="$4" '
		function ts() { match($0, /[0-9]+\.[0-9]+:/); return substr($0, RSTART, RLENGTH - 1) }
		function field(name) { match($0, name "=[0-9]+"); return substr($0, RSTART + length(name) + 1, RLENGTH - length(name) - 1) }
		t0 == "" && /sched_switch:/ && index($0, pid " ") && index($0, sprintf("[%03d]", cpu)) {
			if (early) { print 0; exit }
			t0 = ts(); next
		}
		ev == "switch" && /cpu_frequency:/ && field("cpu_id") + 0 == cpu + 0 { hit = field("state") + 0 >= f + 0 }
		ev == "request" && /cpufreq_bpf_request:/ && field("cpu") + 0 == cpu + 0 { hit = field("resolved") + 0 >= f + 0 }
		t0 == "" { early = hit; next }
		hit { printf "%d\n", (ts() - t0) * 1000000; exit }' "$TRACING/trace"
}

# ramp_ticks PID CPU FREQ: from the trace, three numbers: how many of CPU's
# scheduler ticks (tick_nohz_handler) ran from the task PID's first
# switch-in on CPU to the governor's first request for CPU at FREQ or above
# (0 when the last request before that switch-in was one); how long CPU
# idled before that switch-in, in us (from its last switch to idle, or from
# the trace marker "ramp_start"); and the tick period in us (the most
# common gap between CPU's ticks, to 100 us: a tick the host delays makes
# one gap longer and the next shorter).  Fails when the switch-in or the
# request is missing.
ramp_ticks() {
	awk -v pid="next_pid=$1" -v cpu="$(printf '[%03d]' "$2")" -v c="$2" -v f="$3" '
		function ts() { match($0, /[0-9]+\.[0-9]+:/); return substr($0, RSTART, RLENGTH - 1) * 1000000 }
		function field(name) { match($0, name "=[0-9]+"); return substr($0, RSTART + length(name) + 1, RLENGTH - length(name) - 1) }
		/tracing_mark_write: ramp_start/ { first = ts(); next }
		!index($0, cpu) && !/cpufreq_bpf_request:/ { next }
		/hrtimer_expire_entry:/ && /function=tick_nohz_handler/ {
			now = ts()
			if (last != "")
				gaps[int((now - last) / 100 + 0.5)]++
			last = now
			ticks += started && !done
			next
		}
		done { next }
		/cpufreq_bpf_request:/ && field("cpu") + 0 == c + 0 {
			high = field("resolved") + 0 >= f + 0
			done = started && high
			next
		}
		!started && /sched_switch:/ && / next_pid=0 / { idle_from = ts(); next }
		!started && /sched_switch:/ && index($0, pid " ") {
			started = 1
			idle = ts() - (idle_from == "" ? first : idle_from)
			done = high	# the wake-up itself asked for it
		}
		END {
			if (!done) exit 1
			for (g in gaps)
				if (gaps[g] > n) { n = gaps[g]; tick = g * 100 }
			printf "%d %d %d\n", ticks, idle, tick
		}' "$TRACING/trace"
}

# never_above POLICY KHZ SECONDS / never_below: cur_freq stays on one side
# of KHZ, checked every 50 ms.
# hog_pattern CYCLES ON OFF: CYCLES times a hog on CPU 0 for ON seconds,
# then OFF seconds idle.
hog_pattern() {
	local i
	for ((i = 0; i < $1; i++)); do
		start_hog 0
		sleep "$2"
		stop_hogs
		sleep "$3"
	done
}

# min_trace_gap_us REGEX: the shortest time between two lines of the trace
# that match REGEX, in microseconds; empty with fewer than two.
min_trace_gap_us() {
	awk -v re="$1" '$0 ~ re {
			match($0, /[0-9]+\.[0-9]+:/); t = substr($0, RSTART, RLENGTH - 1)
			if (prev != "" && (min == "" || t - prev < min)) min = t - prev
			prev = t
		}
		END { if (min != "") printf "%d\n", min * 1000000 }' "$TRACING/trace"
}

# min_gap_us CPU: the shortest time between two cpu_frequency events of CPU
# in the trace, in microseconds; empty with fewer than two events.
min_gap_us() { min_trace_gap_us "cpu_frequency: .* cpu_id=$1\$"; }

# The checks every governor of bpf-governors/ passes, by object and name.

# ramps OBJ GOVERNOR: up to the top under a hog on CPU 0, down after.
ramps() {
	gov_load "$1"
	set_governor 0 "$2"
	[ "$(governor 0)" = "$2" ]
	wait_for 20 freq_at_most 0 800000
	start_hog 0
	wait_for 20 freq_is 0 2000000
	stop_hogs
	wait_for 20 freq_at_most 0 800000
	[ "$(gov_stat "$2" 0 errors)" -eq 0 ]
	if fast_switch_on; then
		[ "$(gov_stat "$2" 0 fast_switches)" -gt 0 ]
	else
		[ "$(gov_stat "$2" 0 deferred_switches)" -gt 0 ]
	fi
}

# keeps_limits OBJ GOVERNOR: scaling_max_freq under a hog, scaling_min_freq
# idle.
keeps_limits() {
	gov_load "$1"
	set_governor 0 "$2"
	start_hog 0
	wait_for 20 freq_is 0 2000000
	policy_write 0 scaling_max_freq 1200000
	wait_for 5 freq_is 0 1200000
	never_above 0 1200000 2
	policy_write 0 scaling_max_freq 2000000
	wait_for 10 freq_is 0 2000000
	stop_hogs
	wait_for 20 freq_at_most 0 800000
	policy_write 0 scaling_min_freq 1600000
	wait_for 5 freq_at_least 0 1600000
	never_below 0 1600000 2
	policy_write 0 scaling_min_freq 400000
	wait_for 20 freq_at_most 0 800000
}

# survives_garbage OBJ GOVERNOR [STRUCT FIELD=VALUE...]: random bytes, then
# all ones, over policy0's tunables, but for the fields given after STRUCT
# (the tunables struct's name), which are set to their values; the governor
# keeps its policy, its limits, and follows a hog.
survives_garbage() {
	local round size obj=$1 gov=$2
	shift 2
	gov_load "$obj"
	set_governor 0 "$gov"
	policy_write 0 scaling_max_freq 1600000
	size=$(tunables_size)
	for round in 1 2; do
		if [ $round -lt 2 ]; then
			garbage_tunables 0
		else
			"$BPFTOOL" map update $TUNABLES key 0 0 0 0 \
				value $(printf '255 %.0s' $(seq "$size"))
		fi
		[ $# -eq 0 ] || set_tunables "$obj" "$@"
		start_hog 0
		wait_for 20 freq_is 0 1600000
		never_above 0 1600000 1
		stop_hogs
		wait_for 20 freq_at_most 0 800000
		[ "$(governor 0)" = "$gov" ]
	done
	! grep -q "^$gov: error" "$BPF_DEBUGFS/exits"
}

# rtapp_on_cpu0 NAME POLICY SECONDS RUN_US PERIOD_US [DL_RUNTIME_US]: one
# periodic task of rt-app on CPU 0, in the background; its pid in RTAPP.
rtapp_on_cpu0() {
	local dl=""
	[ -n "${6:-}" ] && dl="\"dl-runtime\": $6, \"dl-period\": $5, \"dl-deadline\": $5,"
	cat > "$BATS_TEST_TMPDIR/$1.json" <<-JSON
	{ "tasks": { "$1": { "policy": "$2", "priority": 10, $dl "cpus": [0],
	  "run": $4, "timer": { "ref": "tick", "period": $5 } } },
	  "global": { "duration": $3, "calibration": 100, "logdir": "/tmp",
	  "log_size": "disable" } }
	JSON
	rt-app "$BATS_TEST_TMPDIR/$1.json" >/dev/null 2>&1 &
	RTAPP=$!
}

# dl_job_on_cpu0 RUNTIME_US: a deadline reservation of RUNTIME_US in every
# 20 ms on CPU 0, of which each job uses 0.5 ms, until end_rtapp; its pid
# in RTAPP.  A floor test's window must end while the job lives: jobs of a
# fixed duration ended inside the window when the wait before it was long,
# which read as the floor dipping.
dl_job_on_cpu0() {
	# Admission control forbids pinning a DL task.
	echo -1 > /proc/sys/kernel/sched_rt_runtime_us
	rtapp_on_cpu0 dljob SCHED_DEADLINE 3600 500 20000 "$1"
	# Returns with the reservation in place.  rt-app starts its thread as
	# a CFS task, whose start-up utilization alone lifted policy0 to the
	# floor a test waited for, and the floor test then began before the
	# reservation and saw policy0 under it (a CI run of 2026-12-08).
	wait_for 20 dl_reservation_in_place
}

# dl_reservation_in_place: rt-app's dljob thread runs as SCHED_DEADLINE
# (policy 6); its id in TASK_PID.
dl_reservation_in_place() {
	find_task dljob && [ "$(awk '$1 == "policy" { print $3 }' "/proc/$TASK_PID/sched" 2>/dev/null)" = 6 ]
}

# end_rtapp: the job of rt-app started last is alive, and then ends.
end_rtapp() {
	kill "$RTAPP"
	wait "$RTAPP" || true
	RTAPP=
}

# find_task COMM: sets TASK_PID to the id of the thread named COMM, and
# fails while there is none.  Found once: rt-app's thread may be gone by a
# second look (its run is short beside a look under emulation).
find_task() {
	TASK_PID=$(grep -lx "$1" /proc/[0-9]*/task/*/comm 2>/dev/null | head -1 | cut -d/ -f5)
	[ -n "$TASK_PID" ]
}
