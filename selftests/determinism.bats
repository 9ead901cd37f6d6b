#!/usr/bin/env bats
# The deterministic mode, vmrun --icount (docs/benchmarks.md): guest time
# follows the guest's instructions, so the same measured window gives the
# same governor decisions at the same guest times, however busy the host.
# A window must not wait on the host: it runs a static busybox and the
# static load from tmpfs, and the trace is read after it.  A measurement
# of the mode, not part of make check: in four runs one window of twelve
# did not settle into the pattern (docs/benchmarks.md).  Run it with
#   selftests/vm/vmrun --icount -- bats selftests/determinism.bats

load lib
load governors_lib

setup() {
	grep -qw vmrun.icount=1 /proc/cmdline || {
		echo "not in the deterministic mode: boot with vmrun --icount" >&2
		return 1
	}
	off_policy0
	reset_policies
	cp /bin/busybox "$TOOLS/busybox"
}

teardown() {
	restore_vm_state
}

# window: 1 s idle, then 1 s of a 12 ms in 20 ms load on CPU 0; prints
# policy0's frequency changes, "MICROSECONDS:KHZ" from the load's start,
# and "end:MICROSECONDS".
window() {
	local bb=$TOOLS/busybox
	echo > "$TRACING/trace"
	"$bb" sh -c "$bb sleep 1
		echo start > $TRACING/trace_marker
		$bb taskset -c 0 $BURSTY 1 12 8
		echo end > $TRACING/trace_marker"
	awk 'function ts() { match($0, /[0-9]+\.[0-9]+:/); return substr($0, RSTART, RLENGTH - 1) * 1000000 }
	     /tracing_mark_write: start/ { start = ts() }
	     start == "" { next }
	     /cpu_frequency:.* cpu_id=0$/ { match($0, /state=[0-9]+/); khz = substr($0, RSTART + 6, RLENGTH - 6); printf "%d:%s\n", ts() - start, khz }
	     /tracing_mark_write: end/ { printf "end:%d\n", ts() - start; exit }' "$TRACING/trace"
}

# same_decisions A B: the last 40 changes of two windows are the same
# frequencies at guest times at most 1 ms apart, and so are their ends.
same_decisions() {
	paste -d' ' <(tail -41 "$1") <(tail -41 "$2") |
		awk '{ split($1, a, ":"); split($2, b, ":")
		       if (a[1] == "end" || b[1] == "end") { t = a[2]; u = b[2]; same = a[1] == b[1] }
		       else { t = a[1]; u = b[1]; same = a[2] == b[2] }
		       d = t > u ? t - u : u - t
		       if (!same || d > 1000) { print "differ: " $0; bad = 1 }
		       if (d > worst) worst = d }
		     END { printf "# at most %d us apart\n", worst; exit bad }' >&3
}

@test "schedutil: the same window three times gives the same decisions within 1 ms" {
	local dir=$BATS_TEST_TMPDIR i
	trace_on power/cpu_frequency
	for i in 1 2 3; do
		window > "$dir/w$i"
		[ "$(grep -c -v '^end:' "$dir/w$i")" -ge 41 ]
		echo "# window $i: $(grep -c -v '^end:' "$dir/w$i") changes, the last at $(tail -2 "$dir/w$i" | head -1)" >&3
	done
	same_decisions "$dir/w1" "$dir/w2"
	same_decisions "$dir/w1" "$dir/w3"
}
