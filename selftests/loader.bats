#!/usr/bin/env bats
# cpufreq-bpf, the loader, in the VM: every command and its failure paths,
# through the loader and through plain bpftool.  The suite runs on CPUs 2-3,
# so that policy0 (CPUs 0-1) sees only the loads it makes.

load lib

PINS=/sys/fs/bpf/cpufreq

setup() {
	taskset -pc 2,3 "$BASHPID" >/dev/null
	reset_policies
}

teardown() {
	# As guest-init mounted it, should a test have left bpffs unmounted.
	mountpoint -q /sys/fs/bpf || mount -t bpf bpf /sys/fs/bpf
	"$LOADER" unload --all >/dev/null 2>&1 || true
	rm -rf "$PINS"
	restore_vm_state
}

cpufreq_bpf() { "$LOADER" "$@"; }

# as_nobody [SETPRIV OPTION]... -- COMMAND...: COMMAND as uid and gid 65534,
# with no capabilities but those the options give.
as_nobody() {
	local opts=()
	while [ "$1" != -- ]; do opts+=("$1"); shift; done
	shift
	setpriv --reuid=65534 --regid=65534 --clear-groups "${opts[@]}" "$@"
}

# What the kernel asks of the loader for struct_ops and root's files.
LOADER_CAPS=+bpf,+perfmon,+dac_override

# registered GOVERNOR: cpufreq offers it and the framework counts for it.
registered() { governor_listed "$1" && [ -e "$BPF_DEBUGFS/$1/stats" ]; }

# nothing_left: no BPF governor registered, nothing pinned, no temporary.
nothing_left() {
	no_bpf_governors && [ -z "$(ls -A "$PINS" 2>/dev/null)" ]
}

# tunable GOVERNOR FIELD KEY: a field of the pinned tunables, through bpftool.
tunable() {
	"$BPFTOOL" map lookup pinned "$PINS/$1/tunables" key $(le32 "$3") -j |
		jq -r ".formatted.value.$2"
}

pinned_map_id() {
	"$BPFTOOL" map show pinned "$PINS/$1/tunables" -j | jq -r .id
}

le32() {
	echo "$(($1 & 255)) $((($1 >> 8) & 255)) $((($1 >> 16) & 255)) $((($1 >> 24) & 255))"
}

@test "--help documents every command and the exit codes" {
	run cpufreq_bpf --help
	[ "$status" -eq 0 ]
	for c in list load unload switch upgrade tune status boot help version "exit status" \
		"4 not root" "6 the kernel lacks"; do
		[[ $output == *"$c"* ]]
	done
	run cpufreq_bpf frobnicate
	[ "$status" -eq 2 ]
	[[ $output == *"unknown command 'frobnicate'"* ]]
	run cpufreq_bpf load schedutil --policy x
	[ "$status" -eq 2 ]
	[[ $output == *"--policy 'x'"* ]]
}

@test "a governor is found by its object's stem, its name and its short name" {
	run cpufreq_bpf load conserv --policy 0
	[ "$status" -eq 0 ]
	[ "$(governor 0)" = bpf_conserv ]
	run cpufreq_bpf unload conservative
	[ "$status" -eq 0 ]
	nothing_left
	run cpufreq_bpf load bpf_conserv
	[ "$status" -eq 0 ]
	registered bpf_conserv
	run cpufreq_bpf unload conserv
	[ "$status" -eq 0 ]
	nothing_left
}

@test "privileges: checked after the command line, by capability; list needs none" {
	cpufreq_bpf load schedutil
	for cmd in "status" "load schedutil" "tune schedutil" "unload schedutil" \
		   "switch performance --cpu 0" boot; do
		run as_nobody -- "$LOADER" $cmd
		[ "$status" -eq 4 ] || { echo "$cmd: $status $output"; false; }
		[ "$output" = "cpufreq-bpf: ${cmd%% *} needs CAP_BPF, CAP_PERFMON, CAP_DAC_OVERRIDE (run it as root)" ]
	done
	# A bad command line is a usage error for anyone.
	for cmd in frobnicate "load schedutil --policy x" "load schedutil --cpu 0 --policy 0" \
		   "status --interval 1" "status --watch --interval 0.01" "tune schedutil --policy 0-2" \
		   "unload" "shadow schedutil"; do
		run as_nobody -- "$LOADER" $cmd
		[ "$status" -eq 2 ] || { echo "$cmd: $status $output"; false; }
		[ "${#lines[@]}" -eq 1 ]
	done
	for cmd in help "help tune" "tune --help" version "info schedutil" "-j info interactive"; do
		run as_nobody -- "$LOADER" $cmd
		[ "$status" -eq 0 ]
	done
	# list: what an ordinary user can read, and what not.
	run as_nobody -- "$LOADER" list
	[ "$status" -eq 0 ]
	[[ $output == *"schedutil "*"bpf_schedutil"*"schedutil.bpf.o"* ]]
	[[ $output == *"cannot read /sys/fs/bpf/cpufreq (Permission denied)"* ]]
	[[ $output == *"bpf_schedutil "*"in-kernel or bpf"* ]]
	[[ $output == *"policy0 "*"cpus 0,1"* ]]
	# One capability short: refused, naming it.
	run as_nobody --inh-caps=+bpf,+dac_override --ambient-caps=+bpf,+dac_override -- \
		"$LOADER" unload schedutil
	[ "$status" -eq 4 ]
	[ "$output" = "cpufreq-bpf: unload needs CAP_PERFMON (run it as root)" ]
	[ -e "$PINS/bpf_schedutil/link" ]
}

@test "privileges: the capabilities the kernel asks for suffice, without root" {
	run as_nobody --inh-caps=$LOADER_CAPS --ambient-caps=$LOADER_CAPS -- \
		"$LOADER" load schedutil --policy 0
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(governor 0)" = bpf_schedutil ]
	registered bpf_schedutil
	run as_nobody --inh-caps=$LOADER_CAPS --ambient-caps=$LOADER_CAPS -- \
		"$LOADER" status --json
	[ "$status" -eq 0 ]
	[ "$(jq -r '.governors[0].state' <<< "$output")" = enabled ]
	run as_nobody --inh-caps=$LOADER_CAPS --ambient-caps=$LOADER_CAPS -- \
		"$LOADER" unload schedutil
	[ "$status" -eq 0 ]
	[ "$(governor 0)" = schedutil ]
	nothing_left
}

@test "bpffs: mounted by the loader where it is not, said with -v" {
	umount /sys/fs/bpf
	run cpufreq_bpf -v load schedutil --policy 0
	[ "$status" -eq 0 ]
	[[ $output == *"cpufreq-bpf: mounted bpffs on /sys/fs/bpf"* ]]
	[ "$(stat -f -c %T /sys/fs/bpf)" = bpf_fs ]
	[ -e "$PINS/bpf_schedutil/link" ]
	registered bpf_schedutil
	run cpufreq_bpf unload schedutil
	[ "$status" -eq 0 ]
	nothing_left
	# Where it cannot be mounted (no CAP_SYS_ADMIN): one line, exit 1.
	run unshare -m sh -c "umount /sys/fs/bpf && setpriv --reuid=65534 --regid=65534 \
		--clear-groups --inh-caps=$LOADER_CAPS --ambient-caps=$LOADER_CAPS \
		'$LOADER' load schedutil"
	[ "$status" -eq 1 ]
	[ "$output" = "cpufreq-bpf: cannot mount bpffs on /sys/fs/bpf: Operation not permitted" ]
	no_bpf_governors
	# Back as guest-init mounted it.
	umount /sys/fs/bpf
	mount -t bpf bpf /sys/fs/bpf
}

# without_debugfs COMMAND...: COMMAND where debugfs is not mounted.
without_debugfs() {
	unshare -m sh -c 'umount -l /sys/kernel/debug && exec "$@"' sh "$@"
}

@test "without debugfs: a running governor is registered and pinned, statistics omitted" {
	cpufreq_bpf load schedutil --policy 0
	run without_debugfs "$LOADER" status --json
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "cpufreq-bpf: status: no statistics: they need debugfs"* ]]
	json=${lines[1]}
	[ "$(jq -r '.policies[] | select(.policy == 0) | .governor' <<< "$json")" = bpf_schedutil ]
	[ "$(jq -r '.policies[] | select(.policy == 0) | has("bpf")' <<< "$json")" = false ]
	[ "$(jq -r '.governors[0].name' <<< "$json")" = bpf_schedutil ]
	[ "$(jq -r '.governors[0].state' <<< "$json")" = registered ]
	[ "$(jq -r '.governors[0].pinned' <<< "$json")" = true ]
	[ "$(jq -r '.governors[0].link_updates' <<< "$json")" = null ]
	run without_debugfs "$LOADER" list
	[ "$status" -eq 0 ]
	[[ $output == *"bpf_schedutil "*"bpf, loaded by cpufreq-bpf"* ]]
	[[ $output != *"retired"* ]]
	# Another tool's governor is known by its struct_ops map.
	register test_gov >/dev/null
	run without_debugfs "$LOADER" list
	[ "$status" -eq 0 ]
	[[ $output == *"bpf_test "*"bpf, registered outside cpufreq-bpf"* ]]
	[ "$(grep '^  performance ' <<< "$output" | tr -s ' ')" = " performance in-kernel" ]
	[[ $output != *"cannot read"* ]]
	# It switches policies as a BPF governor, checked without debugfs.
	run without_debugfs "$LOADER" switch bpf_schedutil --policy 2
	[ "$status" -eq 0 ]
	[ "$(governor 2)" = bpf_schedutil ]
	run without_debugfs "$LOADER" unload schedutil
	[ "$status" -eq 0 ]
	governor_gone bpf_schedutil
	unregister_all
	nothing_left
}

@test "--cpu: the policies of those CPUs, wherever --policy is taken" {
	run cpufreq_bpf switch performance --cpu 3
	[ "$status" -eq 0 ]
	[ "$output" = "policy2: schedutil -> performance" ]
	[ "$(governor 0)" = schedutil ]
	run cpufreq_bpf load interactive --cpu 0,1
	[ "$status" -eq 0 ]
	[ "$(governor 0)" = bpf_interactive ]
	[ "$(governor 2)" = performance ]
	cpufreq_bpf switch interactive --cpu all
	[ "$(governor 2)" = bpf_interactive ]
	cpufreq_bpf tune interactive timer_rate=30000 --cpu 2
	[ "$(cpufreq_bpf tune interactive timer_rate --cpu 3)" = timer_rate=30000 ]
	[ "$(cpufreq_bpf tune interactive timer_rate --policy 0)" != timer_rate=30000 ]
	run cpufreq_bpf status --cpu 1 --json
	[ "$(jq -c '[.policies[].policy]' <<< "$output")" = "[0]" ]
	run cpufreq_bpf status --cpu 0-3 --json
	[ "$(jq -c '[.policies[].policy]' <<< "$output")" = "[0,2]" ]
	run cpufreq_bpf tune interactive timer_rate --cpu 1-2
	[ "$status" -eq 2 ]
	[[ $output == *"--policy takes one policy id"* ]]
	run cpufreq_bpf switch performance --cpu 0,99
	[ "$status" -eq 3 ]
	[ "$output" = "cpufreq-bpf: --cpu: CPU 99 has no cpufreq policy" ]
	[ "$(governor 0)" = bpf_interactive ]
	run cpufreq_bpf switch performance --cpu x
	[ "$status" -eq 2 ]
}

@test "list: shipped governors, loaded ones and policies" {
	run cpufreq_bpf list
	[ "$status" -eq 0 ]
	[[ $output == *"schedutil "*"bpf_schedutil"*"schedutil.bpf.o"* ]]
	[[ $output == *"interactive "*"bpf_interactive"* ]]
	[[ $output == *"performance "*"in-kernel"* ]]
	[[ $output == *"policy0 "*"cpus 0,1"*"schedutil"* ]]
	[[ $output == *"policy2 "*"cpus 2,3"* ]]
	# Only what ships: the tests' objects are never offered as governors.
	[[ $output != *test_* && $output != *bad_* ]]
	run cpufreq_bpf list "$TEST_OBJ/test_b.bpf.o"
	[[ $output == *"(given)"*"bpf_test_b"*"test_b.bpf.o"* ]]
	run cpufreq_bpf list /nonexistent.bpf.o
	[ "$status" -eq 3 ]
}

@test "load: registers, pins link and tunables privately, switches the policies asked" {
	run cpufreq_bpf load schedutil --policy 0
	[ "$status" -eq 0 ]
	[[ $output == *"loaded bpf_schedutil"* ]]
	[[ $output == *"policy0: schedutil -> bpf_schedutil"* ]]
	registered bpf_schedutil
	[ "$(governor 0)" = bpf_schedutil ]
	[ "$(governor 2)" = schedutil ]
	[ "$(stat -c %a "$PINS/bpf_schedutil")" = 700 ]
	[ "$(stat -c %a "$PINS/bpf_schedutil/link")" = 600 ]
	[ "$(stat -c %a "$PINS/bpf_schedutil/tunables")" = 600 ]
	# Only the governor's directory: no temporary left behind.
	[ "$(ls "$PINS")" = bpf_schedutil ]
	# It outlived the loader and runs.
	wait_for 10 gov_stat_above bpf_schedutil 0 update_calls 0
}

@test "load --set: tunables written, visible to bpftool map dump pinned" {
	cpufreq_bpf load interactive --set go_hispeed_load=85 \
		--set "target_loads=80 1200000:95"
	[ "$(tunable bpf_interactive go_hispeed_load 0)" = 85 ]
	[ "$(tunable bpf_interactive go_hispeed_load 2)" = 85 ]
	run "$BPFTOOL" map dump pinned "$PINS/bpf_interactive/tunables" -j
	[ "$status" -eq 0 ]
	[ "$(jq -c '.[0].formatted.value.target_loads[0:4]' <<< "$output")" = "[80,1200000,95,0]" ]
	# In the struct's order, whatever the order asked.
	run cpufreq_bpf tune interactive target_loads go_hispeed_load --policy 2
	[ "$output" = $'go_hispeed_load=85\ntarget_loads=80 1200000:95' ]
}

@test "load: a bad field, value or list is refused and leaves nothing" {
	run cpufreq_bpf load interactive --set nosuch=1
	[ "$status" -eq 2 ]
	[[ $output == *"unknown field 'nosuch'"* ]]
	run cpufreq_bpf load interactive --set go_hispeed_load=101
	[ "$status" -eq 2 ]
	[[ $output == *"out of range"*"1..100"* ]]
	run cpufreq_bpf load interactive --set "target_loads=80 1200000"
	[ "$status" -eq 2 ]
	[[ $output == *"malformed"* ]]
	[ "${#lines[@]}" -eq 1 ]
	nothing_left
}

@test "load: a governor the verifier refuses leaves nothing" {
	run cpufreq_bpf load "$TEST_OBJ/bad_write_policy.bpf.o"
	[ "$status" -eq 1 ]
	[[ $output == *"refused the object"* ]]
	nothing_left
}

@test "load: the tick rate is the running kernel's, read when the object loads" {
	local hz id
	hz=$(zcat /proc/config.gz | sed -n 's/^CONFIG_HZ=//p')
	[ -n "$hz" ]
	cpufreq_bpf load schedutil
	id=$("$BPFTOOL" map show -j | jq -r '.[] | select(.name | endswith(".kconfig")) | .id')
	[ "$("$BPFTOOL" map dump id "$id" -j | jq -r '.. | objects | .CONFIG_HZ // empty')" = "$hz" ]
}

@test "load: without the kernel's configuration, one line and nothing left" {
	# A kernel without CONFIG_IKCONFIG_PROC or /boot/config-*, made here
	# by hiding /proc/config.gz behind an empty file.
	run unshare -m bash -c "mount --bind /dev/null /proc/config.gz && '$LOADER' load schedutil"
	echo "$output"
	[ "$status" -eq 6 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == *"needs CONFIG_HZ"* ]]
	nothing_left
}

@test "load: twice, or under a taken name, is refused; the first stays" {
	cpufreq_bpf load sched
	run cpufreq_bpf load bpf_sched
	[ "$status" -eq 5 ]
	[[ $output == *"bpf_sched is already loaded"* ]]
	registered bpf_sched
	run cpufreq_bpf load "$TEST_OBJ/test_dup.bpf.o"
	[ "$status" -eq 5 ]
	[[ $output == *"named schedutil is already registered"* ]]
	[ "$(ls "$PINS")" = bpf_sched ]
}

@test "unknown governors, objects and policies: exit 3" {
	for cmd in "load nosuch" "load /nonexistent.bpf.o" "unload nosuch" "tune nosuch" \
		   "status nosuch" "switch nosuch" "switch performance --policy 5" \
		   "upgrade nosuch $BPF_OBJ/schedutil.bpf.o"; do
		run cpufreq_bpf $cmd
		[ "$status" -eq 3 ] || { echo "$cmd: $status $output"; false; }
		[ "${#lines[@]}" -eq 1 ]
	done
	[ "$(governor 2)" = schedutil ]
}

@test "unload: policies return to their previous governors, pins and governor gone" {
	set_governor 0 performance
	cpufreq_bpf load schedutil --policy all
	[ "$(governor 0)" = bpf_schedutil ]
	[ "$(governor 2)" = bpf_schedutil ]
	run cpufreq_bpf unload bpf_schedutil
	[ "$status" -eq 0 ]
	[[ $output == *"policy0: bpf_schedutil -> performance"* ]]
	[[ $output == *"policy2: bpf_schedutil -> schedutil"* ]]
	# Done when the loader returns, not some time later.
	governor_gone bpf_schedutil
	[ "$(governor 0)" = performance ]
	[ "$(governor 2)" = schedutil ]
	nothing_left
	tail -1 "$BPF_DEBUGFS/exits" | grep -qx 'bpf_schedutil: unregistered'
}

@test "switch: BPF and in-kernel governors, either spelling" {
	cpufreq_bpf load interactive
	run cpufreq_bpf switch interactive --policy 2
	[ "$status" -eq 0 ]
	[ "$output" = "policy2: schedutil -> bpf_interactive" ]
	[ "$(governor 0)" = schedutil ]
	cpufreq_bpf switch performance --policy 0,2
	[ "$(governor 0)" = performance ]
	[ "$(governor 2)" = performance ]
	# schedutil is the in-kernel one; bpf_interactive by its full name.
	cpufreq_bpf switch schedutil
	[ "$(governor 0)" = schedutil ]
	cpufreq_bpf switch bpf_interactive --policy all
	[ "$(governor 0)" = bpf_interactive ]
	[ "$(governor 2)" = bpf_interactive ]
}

@test "tune: per policy, all fields with units, all-or-nothing on errors" {
	cpufreq_bpf load interactive
	cpufreq_bpf tune interactive timer_rate=10000 --policy 2
	[ "$(cpufreq_bpf tune interactive timer_rate --policy 2)" = timer_rate=10000 ]
	[ "$(cpufreq_bpf tune interactive timer_rate --policy 0)" = timer_rate=0 ]
	run cpufreq_bpf tune bpf_interactive --policy 2
	[[ $output == *"timer_rate=10000"*"# us, 1000..10000000"* ]]
	[[ $output == *"hispeed_freq=0"*"# kHz"* ]]
	[ "${#lines[@]}" -eq 11 ]
	# Without --policy: every policy.
	cpufreq_bpf tune interactive go_hispeed_load=70
	[ "$(cpufreq_bpf tune interactive go_hispeed_load)" = \
	  $'policy0: go_hispeed_load=70\npolicy2: go_hispeed_load=70' ]
	# One bad value: nothing written.
	run cpufreq_bpf tune interactive go_hispeed_load=80 timer_rate=5
	[ "$status" -eq 2 ]
	[[ $output == *"'timer_rate=5': out of range"* ]]
	run cpufreq_bpf tune interactive go_hispeed_load=80 nosuch=1
	[ "$status" -eq 2 ]
	run cpufreq_bpf tune interactive go_hispeed_load=80 "above_hispeed_delay=1 900:2 800:3"
	[ "$status" -eq 2 ]
	[ "$(tunable bpf_interactive go_hispeed_load 0)" = 70 ]
	[ "$(tunable bpf_interactive timer_rate 2)" = 10000 ]
	run cpufreq_bpf tune interactive timer_rate --policy 64
	[ "$status" -eq 2 ]
}

@test "tune: a change has a visible effect (interactive boost)" {
	cpufreq_bpf load interactive --policy 0 --set hispeed_freq=1400000
	wait_for 20 poked freq_at_most 0 800000
	cpufreq_bpf tune interactive boost=1 --policy 0
	wait_for 10 poked freq_at_least 0 1400000
	cpufreq_bpf tune interactive boost=0 --policy 0
	wait_for 20 poked freq_at_most 0 800000
}

@test "upgrade: in place, tunables kept, running without a gap" {
	cpufreq_bpf load interactive --policy 0 --set timer_rate=10000
	wait_for 10 gov_stat_above bpf_interactive 0 sample_calls 0
	exits=$(wc -l < "$BPF_DEBUGFS/exits")
	old_map=$(pinned_map_id bpf_interactive)
	# Watch the policy's governor through the upgrade, with builtins only.
	govs=$BATS_TEST_TMPDIR/govs
	( while [ ! -e "$govs.done" ]; do
		read -r g < "$CPUFREQ/policy0/scaling_governor"
		echo "$g"
	  done ) > "$govs" &
	watcher=$!
	run cpufreq_bpf upgrade interactive "$BPF_OBJ/interactive.bpf.o"
	touch "$govs.done"
	wait "$watcher"
	[ "$status" -eq 0 ]
	[[ $output == *"upgraded bpf_interactive in place"*"11 tunables carried over"* ]]
	[ "$(wc -l < "$govs")" -gt 10 ]
	[ "$(sort -u "$govs")" = bpf_interactive ]
	grep -qx 'link_updates 1' "$BPF_DEBUGFS/bpf_interactive/stats"
	[ "$(wc -l < "$BPF_DEBUGFS/exits")" -eq "$exits" ]
	# The pin is the new object's map, with the old values.
	[ "$(pinned_map_id bpf_interactive)" != "$old_map" ]
	[ "$(tunable bpf_interactive timer_rate 0)" = 10000 ]
	[ "$(cpufreq_bpf tune interactive timer_rate --policy 0)" = timer_rate=10000 ]
	# The new implementation runs: its samples keep coming.
	before=$(gov_stat bpf_interactive 0 sample_calls)
	start_hog 0
	wait_for 10 gov_stat_above bpf_interactive 0 sample_calls "$before"
	[ "$(ls "$PINS")" = bpf_interactive ]
}

@test "upgrade: an object of another governor is refused, nothing changes" {
	cpufreq_bpf load interactive
	run cpufreq_bpf upgrade interactive "$BPF_OBJ/schedutil.bpf.o"
	[ "$status" -eq 2 ]
	[[ $output == *"registers bpf_schedutil, not bpf_interactive"* ]]
	grep -qx 'link_updates 0' "$BPF_DEBUGFS/bpf_interactive/stats"
	[ "$(ls "$PINS")" = bpf_interactive ]
}

@test "status: per policy table, one governor, JSON and watch" {
	cpufreq_bpf load schedutil --policy 0
	start_hog 0
	wait_for 10 gov_stat_above bpf_schedutil 0 requests 0
	run cpufreq_bpf status
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "policy "*"governor"*"cur"*"requests"*"path"*"errors" ]]
	[[ ${lines[1]} == "policy0 "*"bpf_schedutil"* ]]
	[[ $output == *"bpf_schedutil "*"enabled"*"yes"* ]]
	run cpufreq_bpf status schedutil --json
	[ "$status" -eq 0 ]
	[ "$(jq -r '.policies | length' <<< "$output")" = 1 ]
	[ "$(jq -r '.policies[0].governor' <<< "$output")" = bpf_schedutil ]
	[ "$(jq -r '.policies[0].bpf.requests > 0' <<< "$output")" = true ]
	[ "$(jq -r '.policies[0].bpf.errors' <<< "$output")" = 0 ]
	if fast_switch_on; then
		[ "$(jq -r '.policies[0].bpf.fast_switches > 0' <<< "$output")" = true ]
		[[ $(jq -r '.policies[0].bpf.path' <<< "$output") == @(fast|mixed) ]]
	fi
	[ "$(jq -r '.governors[0].state' <<< "$output")" = enabled ]
	run timeout 2.5 "$LOADER" status --watch
	[ "$(grep -c '^--- ' <<< "$output")" -ge 2 ]
}

@test "status --watch --interval: rates per second between rounds" {
	cpufreq_bpf load schedutil --policy 0
	start_hog 0
	wait_for 10 gov_stat_above bpf_schedutil 0 requests 0
	run timeout 4 "$LOADER" status --watch --interval 0.2
	[ "$(grep -c '^--- ' <<< "$output")" -ge 3 ]
	[[ $(grep -m1 '^policy ' <<< "$output") == *"errors  trans/s    req/s" ]]
	# No rate in the first round; then the BPF governor's requests.
	[ "$(grep '^policy0 ' <<< "$output" | head -1 | awk '{ print $NF }')" = - ]
	[[ $(grep '^policy0 ' <<< "$output" | tail -1 | awk '{ print $NF }') =~ ^[0-9]+\.[0-9]$ ]]
	# An in-kernel governor has transitions, not requests, to count.
	[ "$(grep '^policy2 ' <<< "$output" | tail -1 | awk '{ print $NF }')" = - ]
	[[ $(grep '^policy2 ' <<< "$output" | tail -1 | awk '{ print $(NF - 1) }') =~ ^[0-9]+\.[0-9]$ ]]
	run timeout 2 "$LOADER" status --json --watch --interval 0.5
	[ "$(sed -n 2p <<< "$output" | jq -r '.policies[0].requests_per_s | type')" = number ]
	[ "$(head -1 <<< "$output" | jq -r '.policies[0].requests_per_s')" = null ]
	run cpufreq_bpf status --watch --interval 3601
	[ "$status" -eq 2 ]
}

@test "status: a governor that exited on an error shows retired, with its reason" {
	cpufreq_bpf load "$TEST_OBJ/test_gov.bpf.o" --policy 2
	start_hog 2
	ctl test_gov 0 1 0
	wait_for 10 governor_gone bpf_test
	[ "$(governor 2)" = schedutil ]
	run cpufreq_bpf status --json
	[ "$(jq -r '.governors[] | select(.name == "bpf_test") | .state' <<< "$output")" = retired ]
	[ "$(jq -r '.governors[] | select(.name == "bpf_test") | .last_exit' <<< "$output")" = \
	  "error: test_gov was told to exit" ]
	# Still pinned: unload is what releases it.
	cpufreq_bpf unload bpf_test
	nothing_left
}

@test "bpftool interop: a governor registered by bpftool shows in list and status" {
	register test_gov >/dev/null
	run cpufreq_bpf list
	[[ $output == *"bpf_test "*"registered outside cpufreq-bpf"* ]]
	set_governor 2 bpf_test
	run cpufreq_bpf status --json
	[ "$(jq -r '.policies[] | select(.policy == 2) | .governor' <<< "$output")" = bpf_test ]
	[ "$(jq -r '.governors[] | select(.name == "bpf_test") | .pinned' <<< "$output")" = false ]
	run cpufreq_bpf unload bpf_test
	[ "$status" -eq 3 ]
	[[ $output == *"not loaded by cpufreq-bpf"* ]]
	registered bpf_test
}

@test "a loader killed at any point leaves a whole governor or none" {
	for delay in 0.2 0.6 1.0 1.5; do
		"$LOADER" load schedutil >/dev/null 2>&1 &
		sleep "$delay"
		kill -KILL $! 2>/dev/null || true
		wait $! 2>/dev/null || true
		# The next load clears what the killed one left half-built.
		cpufreq_bpf load sched >/dev/null
		if [ -e "$PINS/bpf_schedutil" ]; then
			[ -e "$PINS/bpf_schedutil/link" ]
			[ -e "$PINS/bpf_schedutil/tunables" ]
			registered bpf_schedutil
			cpufreq_bpf unload schedutil >/dev/null
		fi
		wait_for 5 governor_gone bpf_schedutil
		[ "$(ls "$PINS")" = bpf_sched ]
		cpufreq_bpf unload sched >/dev/null
		nothing_left
	done
}

@test "boot: loads what the config file says" {
	conf=$BATS_TEST_TMPDIR/cpufreq-bpf.conf
	cat > "$conf" <<-'END'
	# governors at boot
	load interactive --policy 2 --set "target_loads=85 1500000:95" --set timer_rate=30000
	switch performance --policy 0
	END
	run cpufreq_bpf boot --config "$conf"
	[ "$status" -eq 0 ]
	[ "$(governor 2)" = bpf_interactive ]
	[ "$(governor 0)" = performance ]
	[ "$(cpufreq_bpf tune interactive target_loads timer_rate --policy 2)" = \
	  $'target_loads=85 1500000:95\ntimer_rate=30000' ]
	echo 'unload interactive' > "$conf"
	run cpufreq_bpf boot --config "$conf"
	[ "$status" -eq 2 ]
	[[ $output == *"conf:1: only load, switch, tune and upgrade"* ]]
	run cpufreq_bpf boot --config /nonexistent.conf
	[ "$status" -eq 3 ]
}

# boot_state: what boot may change: pins, the governors cpufreq offers, each
# policy's, and the tunables of every pinned governor.
boot_state() {
	local g
	ls -R "$PINS" 2>/dev/null
	cat "$CPUFREQ/policy0/scaling_available_governors"
	governor 0
	governor 2
	for g in $(ls "$PINS" 2>/dev/null); do
		cpufreq_bpf tune "$g"
	done
}

@test "boot: every error names its line, a command's own too; long lines refused whole" {
	local conf=$BATS_TEST_TMPDIR/cpufreq-bpf.conf dir=$BATS_TEST_TMPDIR/a#b
	mkdir "$dir"
	cp "$BPF_OBJ/schedutil.bpf.o" "$dir/"
	{
		echo '# governors at boot'
		echo 'load nosuchgov'
		echo 'load interactive --set go_hispeed_load=101'
		# Split at 1023 bytes, its tail would run as a line of its own.
		printf '%-1023s%s\n' 'switch performance --policy 0' 'switch performance --policy 2'
		echo "load $dir/schedutil.bpf.o --policy 2 # a # in a word is no comment"
	} > "$conf"
	run cpufreq_bpf boot --config "$conf"
	[ "$status" -eq 3 ]
	[[ $output == *"cpufreq-bpf: $conf:2: unknown governor 'nosuchgov'"* ]]
	[[ $output == *"cpufreq-bpf: $conf:3: 'go_hispeed_load=101': out of range"* ]]
	[[ $output == *"cpufreq-bpf: $conf:4: line longer than 1023 bytes"* ]]
	[[ $output == *"loaded bpf_schedutil from $dir/schedutil.bpf.o"* ]]
	[ "$(governor 0)" = schedutil ]
	[ "$(governor 2)" = bpf_schedutil ]
	[ "$(ls "$PINS")" = bpf_schedutil ]
	# Outside a config file, messages name no line.
	run cpufreq_bpf load nosuchgov
	[ "$output" = "cpufreq-bpf: unknown governor 'nosuchgov' (no $BPF_OBJ/nosuchgov.bpf.o)" ]
}

@test "load: policies are checked before anything is registered" {
	run cpufreq_bpf load schedutil --policy 0,5
	[ "$status" -eq 3 ]
	[ "$output" = "cpufreq-bpf: no cpufreq policy5" ]
	nothing_left
}

@test "boot --check: validates every line, reports the bad ones, changes nothing" {
	local conf=$BATS_TEST_TMPDIR/cpufreq-bpf.conf before
	cpufreq_bpf load schedutil --policy 0 --set rate_limit_us=3000
	before=$(boot_state)
	# Later lines name what earlier ones would load.
	cat > "$conf" <<-'END'
	load interactive --policy 2 --set go_hispeed_load=90
	tune interactive go_hispeed_load=80 --policy 2
	switch interactive --policy 2
	load schedutil --policy 0 --set rate_limit_us=2000
	tune schedutil rate_limit_us=2500
	upgrade schedutil schedutil.bpf.o
	switch performance --policy 0
	END
	sed -i "s|schedutil.bpf.o|$BPF_OBJ/&|" "$conf"
	run cpufreq_bpf boot --check --config "$conf"
	[ "$status" -eq 0 ]
	[ "$output" = "$conf: every line is valid" ]
	[ "$(boot_state)" = "$before" ]

	cat > "$conf" <<-'END'
	load interactive --policy 7
	load interactive --set nosuch=1
	load interactive --set go_hispeed_load=90
	tune interactive go_hispeed_load=101 --policy 2
	switch nosuchgov
	tune schedutil rate_limit_us=2500
	upgrade schedutil /nonexistent.bpf.o
	load schedutil --policy 0
	switch interactive --policy 2
	END
	run cpufreq_bpf boot --check --config "$conf"
	[ "$status" -eq 3 ]
	[ "${#lines[@]}" -eq 5 ]
	[ "${lines[0]}" = "cpufreq-bpf: $conf:1: no cpufreq policy7" ]
	[[ ${lines[1]} == "cpufreq-bpf: $conf:2: unknown field 'nosuch'"* ]]
	[[ ${lines[2]} == "cpufreq-bpf: $conf:4: 'go_hispeed_load=101': out of range"* ]]
	[[ ${lines[3]} == "cpufreq-bpf: $conf:5: no governor 'nosuchgov' available"* ]]
	[[ ${lines[4]} == "cpufreq-bpf: $conf:7: /nonexistent.bpf.o: "* ]]
	[ "$(boot_state)" = "$before" ]
}

@test "boot: twice in a row is exit 0 and the same state; load alone still refuses" {
	local conf=$BATS_TEST_TMPDIR/cpufreq-bpf.conf first
	cat > "$conf" <<-'END'
	load interactive --policy 2 --set go_hispeed_load=90
	load schedutil --policy 0 --set rate_limit_us=2000
	END
	run cpufreq_bpf boot --config "$conf"
	[ "$status" -eq 0 ]
	first=$(boot_state)
	# What changed since is set again.
	cpufreq_bpf tune interactive go_hispeed_load=70 >/dev/null
	set_governor 0 schedutil
	run cpufreq_bpf boot --config "$conf"
	[ "$status" -eq 0 ]
	[[ $output == *"bpf_interactive is loaded already"* ]]
	[ "$(boot_state)" = "$first" ]
	[ "$(governor 0)" = bpf_schedutil ]
	[ "$(tunable bpf_interactive go_hispeed_load 2)" = 90 ]
	run cpufreq_bpf load interactive
	[ "$status" -eq 5 ]
}

@test "boot: after a half-failed boot, unload --all (ExecStopPost=) leaves nothing" {
	local conf=$BATS_TEST_TMPDIR/cpufreq-bpf.conf
	cat > "$conf" <<-'END'
	load interactive --policy 2
	load nosuchgov
	END
	run cpufreq_bpf boot --config "$conf"
	[ "$status" -eq 3 ]
	registered bpf_interactive
	run cpufreq_bpf unload --all
	[ "$status" -eq 0 ]
	nothing_left
	[ "$(governor 2)" = schedutil ]
	# A restart of the unit: boot again, then a stop.
	run cpufreq_bpf boot --config "$conf"
	[ "$status" -eq 3 ]
	[ "$(governor 2)" = bpf_interactive ]
	run cpufreq_bpf unload --all
	[ "$status" -eq 0 ]
	nothing_left
}

# json ARGS...: the loader's stdout under -j, which must be one JSON
# document; $status and $output as run's.
json() {
	run bash -c '"$0" -j "$@" 2>/dev/null' "$LOADER" "$@"
	[ -z "$output" ] || jq -e . <<< "$output" >/dev/null
}

@test "-j: load, switch, list, status, tune, upgrade, unload as documented" {
	json load schedutil --policy 0
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[ "$(jq -r .loaded <<< "$output")" = bpf_schedutil ]
	[ "$(jq -r .pinned <<< "$output")" = "$PINS/bpf_schedutil" ]
	[[ $(jq -r .path <<< "$output") == */schedutil.bpf.o ]]
	[ "$(jq -c .policies <<< "$output")" = \
	  '[{"policy":0,"from":"schedutil","to":"bpf_schedutil"}]' ]
	json switch bpf_schedutil --policy 2
	[ "$status" -eq 0 ]
	[ "$(jq -c . <<< "$output")" = \
	  '{"governor":"bpf_schedutil","policies":[{"policy":2,"from":"schedutil","to":"bpf_schedutil"}]}' ]

	json list
	[ "$status" -eq 0 ]
	[ "$(jq -r .objdir <<< "$output")" = "$BPF_OBJ" ]
	[ "$(jq -r '.available[] | select(.stem == "schedutil") | .name' <<< "$output")" = bpf_schedutil ]
	[ "$(jq -r '.available[] | select(.stem == "schedutil") | .given' <<< "$output")" = false ]
	[ "$(jq -r '.loaded[] | select(.name == "bpf_schedutil") | .kind' <<< "$output")" = loaded ]
	[ "$(jq -r '.loaded[] | select(.name == "performance") | .kind' <<< "$output")" = in-kernel ]
	[ "$(jq -c '.policies[0]' <<< "$output")" = '{"policy":0,"cpus":"0,1","governor":"bpf_schedutil"}' ]

	json status
	[ "$status" -eq 0 ]
	[ "$(jq -r '.policies | length' <<< "$output")" = 2 ]
	[ "$(jq -r '.policies[1] | .policy, .governor, (.cur_khz > 0), has("bpf")' <<< "$output" |
	     tr '\n' ' ')" = "2 bpf_schedutil true true " ]
	[ "$(jq -r '.governors[0] | .name, .state, .pinned' <<< "$output" | tr '\n' ' ')" = \
	  "bpf_schedutil enabled true " ]

	json tune schedutil rate_limit_us=2000 --policy 2
	[ "$status" -eq 0 ]
	[ "$(jq -c . <<< "$output")" = \
	  '{"governor":"bpf_schedutil","written":{"policy":2,"fields":{"rate_limit_us":{"value":2000,"unit":"us","range":{"min":1,"max":10000000}}}}}' ]
	json tune schedutil
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.tunables[] | [.policy, .fields.rate_limit_us.value]]' <<< "$output")" = \
	  '[[0,0],[2,2000]]' ]
	json tune schedutil rate_limit_us --policy 2
	[ "$(jq -c .tunables <<< "$output")" = \
	  '[{"policy":2,"fields":{"rate_limit_us":{"value":2000,"unit":"us","range":{"min":1,"max":10000000}}}}]' ]

	json upgrade schedutil "$BPF_OBJ/schedutil.bpf.o"
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.upgraded, .carried]' <<< "$output")" = '["bpf_schedutil",1]' ]

	json unload schedutil
	[ "$status" -eq 0 ]
	[ "$(jq -c . <<< "$output")" = \
	  '{"unloaded":"bpf_schedutil","policies":[{"policy":0,"from":"bpf_schedutil","to":"schedutil"},{"policy":2,"from":"bpf_schedutil","to":"schedutil"}]}' ]
	nothing_left
}

@test "-j: tune of arrays and freq lists, unload --all as a list, -p indented" {
	cpufreq_bpf load interactive --set "target_loads=80 1200000:95"
	cpufreq_bpf load sched
	json tune interactive target_loads timer_rate --policy 0
	[ "$(jq -c '.tunables[0].fields | [.target_loads.value, .timer_rate.value]' <<< "$output")" = \
	  '["80 1200000:95",0]' ]
	run cpufreq_bpf -p tune interactive timer_rate --policy 0
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "{" ]
	[ "${lines[1]}" = '  "governor": "bpf_interactive",' ]
	[ "${lines[2]}" = '  "tunables": [' ]
	[ "$(jq -r '.tunables[0].fields.timer_rate.unit' <<< "$output")" = us ]
	run cpufreq_bpf -p status
	[ "${lines[0]}" = "{" ]
	[ "${lines[1]}" = '  "policies": [' ]
	# The per-command --json of status is -j's.
	[ "$(cpufreq_bpf status --json | jq -c .governors)" = "$(cpufreq_bpf -j status | jq -c .governors)" ]
	json unload --all
	[ "$status" -eq 0 ]
	[ "$(jq -r 'map(.unloaded) | sort | join(" ")' <<< "$output")" = "bpf_interactive bpf_sched" ]
	nothing_left
	json version
	[[ $(jq -r .libbpf <<< "$output") == v1.* ]]
}

@test "-j: shadow, and boot one document a line" {
	cpufreq_bpf load sched
	json shadow sched --policy 0 --duration 1
	[ "$status" -eq 0 ]
	[ "$(jq -c '[.governor, .policy, .driving, (.seconds >= 1), (.residency | type)]' \
	     <<< "$output")" = '["bpf_sched",0,"schedutil",true,"array"]' ]
	conf=$BATS_TEST_TMPDIR/cpufreq-bpf.conf
	printf '%s\n' 'load interactive --policy 2' 'switch performance --policy 0' > "$conf"
	run bash -c '"$0" -j boot --config "$1" 2>/dev/null' "$LOADER" "$conf"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[ "$(jq -r '.loaded // .governor' <<< "$output" | tr '\n' ' ')" = \
	  "bpf_interactive performance " ]
}

@test "-j: an error is one line on stderr, its exit code, nothing on stdout" {
	json tune nosuch
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	json load interactive --set go_hispeed_load=101
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	run cpufreq_bpf -j load interactive --set go_hispeed_load=101
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == *"out of range"* ]]
	# A load whose switch fails is undone, and says nothing on stdout.
	json load interactive --policy 5
	[ "$status" -eq 3 ]
	[ -z "$output" ]
	nothing_left
}

@test "info: 0 in a shipped governor's info is what tune shows after a load" {
	local info tuned
	# Every object's info is checked on the host (host/loader.bats); here
	# the one with arrays and frequency lists, against the loaded map.
	info=$("$LOADER" -j info interactive)
	cpufreq_bpf load interactive >/dev/null
	json tune interactive --policy 2
	tuned=$output
	[ "$(jq -c '.tunables.fields | map_values({value: 0, unit, range})' <<< "$info")" = \
	  "$(jq -c '.tunables[0].fields | map_values({value: (.value | if type == "array"
		then max elif type == "string" then tonumber else . end), unit, range})' \
	     <<< "$tuned")" ] || { echo "$info $tuned"; false; }
	cpufreq_bpf unload interactive >/dev/null
	nothing_left
}
