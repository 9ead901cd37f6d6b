# Helpers shared by the BATS suites that run inside the vmrun guest.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# bpftool and the BPF objects run from the guest's tmpfs: run from the 9p
# mount, bpftool was seen to wedge the 9p channel under TCG now and then.
# The shipped governors and the tests' own objects stay apart, as in build/:
# the loader lists what is in BPF_OBJ.
TOOLS=/tmp/cpufreq-bpf
if [ ! -e "$TOOLS/.copied" ]; then
	mkdir -p "$TOOLS/bpf" "$TOOLS/bpf-tests"
	cp "$ROOT/build/tools/bpftool/bpftool" "$ROOT/build/loader/cpufreq-bpf" \
		"$ROOT"/build/selftests/* "$TOOLS/"
	cp "$ROOT"/build/bpf/*.bpf.o "$TOOLS/bpf/"
	cp "$ROOT"/build/bpf-tests/*.bpf.o "$TOOLS/bpf-tests/"
	touch "$TOOLS/.copied"
fi
BPFTOOL=$TOOLS/bpftool
BPF_OBJ=$TOOLS/bpf
TEST_OBJ=$TOOLS/bpf-tests
LINK_UPDATE=$TOOLS/link_update
CHURN=$TOOLS/churn
BURSTY=$TOOLS/bursty
CPUFREQ=/sys/devices/system/cpu/cpufreq
TRACING=/sys/kernel/tracing
BPF_DEBUGFS=/sys/kernel/debug/cpufreq_bpf
SHADOW=$BPF_DEBUGFS/shadow
# The loader, finding its objects where the tests keep them.
LOADER=$TOOLS/cpufreq-bpf
export CPUFREQ_BPF_OBJDIR=$BPF_OBJ

# The helpers that run between and inside tests read and write sysfs with
# shell builtins: under emulation each program started costs 50-70 ms, and
# a test's set-up, polls and teardown used to start dozens.

# policy_read POLICY FILE: a one-line file of the policy's directory.
policy_read() {
	local v
	IFS= read -r v < "$CPUFREQ/policy$1/$2"
	printf '%s\n' "$v"
}
policy_write() { echo "$3" > "$CPUFREQ/policy$1/$2"; }
cur_freq() { policy_read "$1" scaling_cur_freq; }
governor() { policy_read "$1" scaling_governor; }
# off_policy0: keeps the calling shell and its children on CPUs 2-3, so that
# the suite's own activity does not load policy0, which the tests measure.
off_policy0() { taskset -pc 2,3 "$BASHPID" >/dev/null; }
set_governor() { policy_write "$1" scaling_governor "$2"; }
total_trans() { policy_read "$1" stats/total_trans; }

# pause SECONDS: sleep(1) without starting it, on a pipe nobody writes to.
exec {PAUSE_FD}<> <(:)
pause() { read -r -t "$1" -u "$PAUSE_FD" || true; }

# wait_for SECONDS COMMAND...: polls COMMAND every 50 ms until it succeeds.
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $deadline ] || return 1
		pause 0.05
	done
}

# poked CHECK ARGS...: CHECK after a task ran on CPU 0.  Governors driven
# by the scheduler's hook (schedutil, or interactive reading a changed
# tunable) decide only on scheduler activity, and an idle CPU 0 in the VM
# may have none for seconds.
poked() {
	taskset -c 0 true
	"$@"
}

# freq_is / freq_at_least / freq_at_most POLICY KHZ: policy's frequency now,
# compared with KHZ (freq_compare POLICY TEST-OP KHZ), read without a subshell.
freq_compare() { local f; read -r f < "$CPUFREQ/policy$1/scaling_cur_freq" && [ "$f" "$2" "$3" ]; }
freq_is() { freq_compare "$1" -eq "$2"; }
freq_at_least() { freq_compare "$1" -ge "$2"; }
freq_at_most() { freq_compare "$1" -le "$2"; }

# A hog's busy loop, as bash -c runs it.
HOG_LOOP='while :; do :; done'

# start_hog CPU: a busy loop pinned to CPU, remembered for stop_hogs.
start_hog() {
	taskset -c "$1" bash -c "$HOG_LOOP" &
	HOGS="${HOGS:-} $!"
}

stop_hogs() {
	local pid
	for pid in ${HOGS:-}; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	HOGS=
}

# Leaves every policy as the default set-up found it.
reset_policies() {
	local p max min
	stop_hogs
	for p in "$CPUFREQ"/policy*; do
		read -r max < "$p/cpuinfo_max_freq"
		read -r min < "$p/cpuinfo_min_freq"
		echo "$max" > "$p/scaling_max_freq"
		echo "$min" > "$p/scaling_min_freq"
		echo schedutil > "$p/scaling_governor"
	done
}

trace_on() {
	echo > "$TRACING/trace"
	for ev in "$@"; do echo 1 > "$TRACING/events/$ev/enable"; done
	echo 1 > "$TRACING/tracing_on"
}

# requested CPU KHZ: the trace holds a governor request for CPU at KHZ.
requested() {
	grep -q "cpufreq_bpf_request:.* cpu=$1 .*resolved=$2\b" "$TRACING/trace"
}

# trace_lacks PATTERN: no line of the trace matches PATTERN (and the trace
# could be read).  A function, because bats does not fail a test on a
# negated command before its last.
trace_lacks() {
	local rc=0
	grep -q "$1" "$TRACING/trace" || rc=$?
	[ "$rc" -eq 1 ]
}

trace_off() {
	echo 0 > "$TRACING/tracing_on"
	echo 0 > "$TRACING/events/enable"
}

# traced_freqs CPU: the frequencies the trace records for CPU, in order.
traced_freqs() {
	awk -v id="cpu_id=$1" '/cpu_frequency:/ && $NF == id {
		sub("state=", "", $(NF - 1)); print $(NF - 1) }' "$TRACING/trace"
}

# stays_within CPU LOW HIGH SECONDS: for SECONDS from now, CPU's frequency
# stays within LOW..HIGH kHz: where it is once the trace is on, and every
# change the trace records until the end, so that none falls between two
# looks.  Governor requests are traced too, for the caller to check.
stays_within() {
	local f
	trace_on power/cpu_frequency cpufreq_bpf/cpufreq_bpf_request
	f=$(cur_freq "$1")
	sleep "$4"
	trace_off
	{ echo "$f"; traced_freqs "$1"; } | awk -v cpu="$1" -v low="$2" -v high="$3" '
		$1 < low || $1 > high {
			printf "CPU %d at %d kHz, outside %d-%d\n", cpu, $1, low, high > "/dev/stderr"
			bad = 1 }
		END { exit bad }'
}
never_above() { stays_within "$1" 0 "$2" "$3"; }
never_below() { stays_within "$1" "$2" 4294967295 "$3"; }

# BPF governors registered with plain bpftool, links pinned in $LINKS.
LINKS=/sys/fs/bpf/selftest

# register OBJ: a shipped governor's object, or else a test object.
register() {
	local o=$BPF_OBJ/$1.bpf.o
	[ -e "$o" ] || o=$TEST_OBJ/$1.bpf.o
	mkdir -p "$LINKS"
	"$BPFTOOL" struct_ops register "$o" "$LINKS"
}

# unregister MAP: drops the pinned link of struct_ops map MAP.
unregister() {
	rm -f "$LINKS/$1"
}

governor_listed() {
	[[ " $(policy_read 0 scaling_available_governors) " == *" $1 "* ]]
}

governor_gone() { ! governor_listed "$1"; }

# seen_all OBJ | seen_all pinned PATH: what the test governor of object
# OBJ, or of the .bss map pinned at PATH, recorded, as JSON.  One bpftool
# call: under emulation each one takes a second or two.
seen_all() {
	local map=(name "$1.bss")
	[ "$1" != pinned ] || map=(pinned "$2")
	"$BPFTOOL" map dump "${map[@]}" -j |
		jq -M -c '.[0].formatted.value[".bss"][] | select(.seen) | .seen'
}

# field JSON FIELD: one field of seen_all's output.
field() { jq -M -r ".$2" <<< "$1"; }

# seen OBJ FIELD: one counter, read now.
seen() { field "$(seen_all "$1")" "$2"; }
seen_above() { [ "$(seen "$1" "$2")" -gt "$3" ]; }

# ctl OBJ VALUE...: steers a test governor through its .data map, one
# 32-bit value per field (test_gov: FIXED_KHZ EXIT_ERROR REFUSE_INIT;
# test_cpu: CPU FROM).
ctl() {
	local obj=$1 bytes="" v i
	shift
	for v in "$@"; do
		for i in 0 8 16 24; do bytes+=" $(((v >> i) & 255))"; done
	done
	"$BPFTOOL" map update name "$obj.data" key 0 0 0 0 value $bytes
}

# gov_stat GOVERNOR POLICY COLUMN: a column of the governor's debugfs stats.
gov_stat() {
	awk -v p="$2" -v c="$3" '
		$1 == "policy" { for (i = 1; i <= NF; i++) col[$i] = i; next }
		$1 == p && (c in col) { print $col[c] }
	' "$BPF_DEBUGFS/$1/stats"
}

# gov_stat_above GOVERNOR POLICY COLUMN VALUE: the column is above VALUE,
# read at each call, as wait_for needs (wait_for 10 test "$(gov_stat ...)"
# would compare one reading, taken before the wait, ten seconds long).
gov_stat_above() { [ "$(gov_stat "$1" "$2" "$3")" -gt "$4" ]; }

fast_switch_on() { ! grep -q 'vcpufreq.fast_switch=0' /proc/cmdline; }

# nohz_idle: the kernel stops the tick in idle (not booted with nohz=off).
nohz_idle() { ! grep -qw nohz=off /proc/cmdline; }

# Removes every test link and waits for the governors to be gone.
unregister_all() {
	[ ! -e "$LINKS" ] || rm -rf "$LINKS"
	wait_for 10 no_bpf_governors
}

# detach_shadows: every policy's shadow governor detached.
detach_shadows() {
	local line lines=()
	[ -e "$SHADOW" ] && mapfile -t lines < "$SHADOW"
	for line in "${lines[@]}"; do
		echo "${line%% *}" > "$SHADOW" || true
	done
}

# The loads tests start: bursty, rt-app and start_hog's hogs (as extended
# regular expressions for pgrep -x and pgrep -f).
LOAD_NAMES='bursty|rt-app'
HOG_CMDLINE="^bash -c $HOG_LOOP\$"

# no_loads_left: fails, naming them, when loads a test started still run
# after its teardown killed what it knew of, and kills them: the next test
# would find its CPUs loaded.  (Killing a backgrounded shell function
# kills the subshell, not the load it started.)
no_loads_left() {
	local left
	left=$(pgrep -a -x "$LOAD_NAMES"; pgrep -a -f "$HOG_CMDLINE")
	[ -z "$left" ] && return 0
	echo "loads left running after the test:" $left >&2
	pkill -KILL -x "$LOAD_NAMES"
	pkill -KILL -f "$HOG_CMDLINE"
	return 1
}

# What every suite's teardown does: no hog, no shadow, no BPF governor, no
# tracing, every policy back to its defaults.  Fails when a load outlived
# the test, after restoring the rest.
restore_vm_state() {
	local loads=0
	stop_hogs
	no_loads_left || loads=1
	detach_shadows
	reset_policies
	unregister_all
	trace_off
	return $loads
}

# No governor's directory in debugfs, only the framework's own files.
no_bpf_governors() {
	local d
	for d in "$BPF_DEBUGFS"/*; do
		case ${d##*/} in
		exits | shadow | '*') ;;
		*) return 1 ;;
		esac
	done
}
