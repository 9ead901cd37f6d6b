#!/usr/bin/env bats
# cpufreq-bpf on the host: what needs neither the VM nor the series (help,
# version), and the pre-flight's refusal on a kernel without the series.

LOADER=$BATS_TEST_DIRNAME/../../build/loader/cpufreq-bpf

@test "help, COMMAND --help and version need neither root nor the series" {
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$LOADER" help
	[ "$status" -eq 0 ]
	[[ $output == *"6 the kernel lacks the cpufreq-bpf series"* ]]
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$LOADER" tune --help
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "usage: cpufreq-bpf tune NAME [FIELD[=VALUE]]... [--policy N | --cpu CPUS]" ]
	run "$LOADER" help load
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "usage: cpufreq-bpf load NAME|PATH "* ]]
	run "$LOADER" help frobnicate
	[ "$status" -eq 2 ]
	[ "$output" = "cpufreq-bpf: help: unknown command 'frobnicate' (see cpufreq-bpf help)" ]
	run "$LOADER" version
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "cpufreq-bpf "?* ]]
	[[ ${lines[1]} == "using libbpf v1."* ]]
	run "$LOADER" -V
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "cpufreq-bpf "?* ]]
}

@test "usage errors are exit 2 and missing capabilities exit 4, for an ordinary user" {
	for cmd in frobnicate "load x --policy x" "load x --cpu 0 --policy 0" "status --interval 1" \
		   "status --watch --interval 0.01" "status --watch --interval 1e3" \
		   "tune x --policy 0-3" "shadow x" "switch x --cpu 0-"; do
		run setpriv --reuid=65534 --regid=65534 --clear-groups "$LOADER" $cmd
		[ "$status" -eq 2 ] || { echo "$cmd: $status $output"; false; }
		[ "${#lines[@]}" -eq 1 ]
	done
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$LOADER" load x
	[ "$status" -eq 4 ]
	[ "$output" = "cpufreq-bpf: load needs CAP_BPF, CAP_PERFMON, CAP_DAC_OVERRIDE (run it as root)" ]
	# CAP_SYS_ADMIN stands for CAP_BPF and CAP_PERFMON, not for the files' DAC.
	run setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=+sys_admin \
		--ambient-caps=+sys_admin "$LOADER" load x
	[ "$status" -eq 4 ]
	[ "$output" = "cpufreq-bpf: load needs CAP_DAC_OVERRIDE (run it as root)" ]
}

@test "on a kernel without the series every command stops at one line, exit 6" {
	if grep -qa cpufreq_gov_ops /sys/kernel/btf/vmlinux 2>/dev/null; then
		skip "this host's kernel carries the series"
	fi
	[ "$(id -u)" -eq 0 ] || skip "needs root, as the commands do"
	for cmd in list status "load schedutil" "tune schedutil" "unload --all" boot; do
		run "$LOADER" $cmd
		[ "$status" -eq 6 ]
		[ "$output" = "cpufreq-bpf: this kernel lacks the cpufreq-bpf series (no cpufreq_gov_ops in its BTF)" ]
	done
}

# completes WORD...: the completions of the command line WORD... (its last
# word being completed), one per line, sorted.
completes() {
	COMP_WORDS=(cpufreq-bpf "$@")
	COMP_CWORD=$#
	COMPREPLY=()
	_cpufreq_bpf
	printf '%s\n' "${COMPREPLY[@]}" | sort
}

@test "bash completion: the loader's commands, options and governors" {
	export CPUFREQ_BPF_OBJDIR=$BATS_TEST_DIRNAME/../../build/bpf
	source "$BATS_TEST_DIRNAME/../../loader/cpufreq-bpf.bash"
	# Every command the help lists, and no other.
	[ "$(completes "" | grep -v '^-' | tr '\n' ' ')" = \
	  "$("$LOADER" help | sed -n 's/^  \([a-z]\+\) .*/\1/p' | sort | tr '\n' ' ')" ]
	[ "$(completes "" | grep -v '^-' | wc -l)" -eq 12 ]
	[ "$(completes -j "" | grep -v '^-' | wc -l)" -eq 12 ]
	[[ "$(completes --)" == *--json*--pretty* ]]
	[ "$(completes info cons)" = conservative ]
	[ "$(completes -p info cons)" = conservative ]
	[ "$(completes lo)" = "$(printf 'load\n')" ]
	[ "$(completes load cons)" = conservative ]
	[ "$(completes load conservative --p)" = --policy ]
	[[ "$(completes load conservative --policy "")" == *all* ]]
	[ "$(completes status --)" = \
	  "$(printf -- '--cpu\n--help\n--interval\n--json\n--policy\n--watch')" ]
	[[ "$(completes load conservative --cpu "")" == 0*all ]]
	[ -z "$(completes status --watch --interval "")" ]
	[ "$(completes status --cpu 0 --w)" = --watch ]
	[ "$(completes help tu)" = tune ]
	[ "$(completes shadow conservative --)" = \
	  "$(printf -- '--cpu\n--duration\n--help\n--json\n--policy')" ]
	[ -z "$(completes unload conservative "")" ]
	[ "$(completes boot --)" = "$(printf -- '--check\n--config\n--help')" ]
}

@test "the systemd unit: clean-up after a failed start, verified by systemd" {
	unit=$BATS_TEST_DIRNAME/../../loader/cpufreq-bpf.service
	# ExecStop= never runs after a failed start; ExecStopPost= does.
	grep -qx 'ExecStopPost=@SBINDIR@/cpufreq-bpf unload --all' "$unit"
	run grep -c '^ExecStop=' "$unit"
	[ "$output" -eq 0 ]
	command -v systemd-analyze >/dev/null || skip "no systemd-analyze here"
	# As make install writes it; an option this systemd lacks is a warning.
	# The man page is not installed here.
	sed "s|@SBINDIR@|$(dirname "$LOADER")|g" "$unit" > "$BATS_TEST_TMPDIR/cpufreq-bpf.service"
	run systemd-analyze verify --man=no "$BATS_TEST_TMPDIR/cpufreq-bpf.service"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "-j and -p: version as JSON, pretty indented; bad global option exit 2" {
	run "$LOADER" -j version
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ $(jq -r .libbpf <<< "$output") == v1.* ]]
	[ -n "$(jq -r .version <<< "$output")" ]
	run "$LOADER" -p -V
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "{" ]
	[[ ${lines[1]} == '  "version": '* ]]
	[ "$(jq -r .libbpf <<< "$output")" = "$("$LOADER" --json version | jq -r .libbpf)" ]
	run "$LOADER" -x version
	[ "$status" -eq 2 ]
	[ "$output" = "cpufreq-bpf: unknown option '-x' (see cpufreq-bpf help)" ]
}

@test "info: any shipped governor without root or the series, human and JSON" {
	export CPUFREQ_BPF_OBJDIR=$BATS_TEST_DIRNAME/../../build/bpf
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$LOADER" info schedutil
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "name: bpf_schedutil" ]
	[[ $output == *"flags: eas"* ]]
	[[ $output == *"rate_limit_us=0"*"# us, 1..10000000, 0 = the driver's transition delay"* ]]
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$LOADER" -j info conserv
	[ "$status" -eq 0 ]
	[ "$(jq -r .name <<< "$output")" = bpf_conserv ]
	[ "$(jq -r .eas <<< "$output")" = false ]
	[ "$(jq -c .flags <<< "$output")" = "[]" ]
	[ "$(jq -r '.ops | index("update") != null' <<< "$output")" = true ]
	[ "$(jq -r .tunables.type <<< "$output")" = conservative_tunables ]
	[ "$(jq -r .tunables.per_policy <<< "$output")" = true ]
	[ "$(jq -c .tunables.fields.up_threshold <<< "$output")" = \
	  '{"default":80,"unit":"%","range":{"min":1,"max":100}}' ]
	# A default the hardware decides is a string, the tag's words.
	[ "$(jq -c .tunables.fields.sampling_rate.default <<< "$output")" = \
	  '"max(2 ticks, the driver'"'"'s transition delay)"' ]
	run "$LOADER" info nosuch
	[ "$status" -eq 3 ]
	[ "${#lines[@]}" -eq 1 ]
	# Under -j an error is one line on stderr and nothing on stdout.
	run bash -c "'$LOADER' -j info '$BATS_TEST_DIRNAME/loader.bats' 2>/dev/null"
	[ "$status" -eq 2 ]
	[ -z "$output" ]
	run "$LOADER" -j info "$BATS_TEST_DIRNAME/loader.bats"
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == "cpufreq-bpf: "*"loader.bats: not a BPF object"* ]]
}

# info_with_hz HZ ARGS...: the loader's info under a kernel configuration
# that sets CONFIG_HZ=HZ, put where libbpf reads it first, in a mount
# namespace of its own.
info_with_hz() {
	local hz=$1
	shift
	unshare -m bash -c 'mount -t tmpfs none /boot &&
		echo "CONFIG_HZ=$0" > "/boot/config-$(uname -r)" && exec "$@"' \
		"$hz" "$LOADER" "$@"
}

@test "info: sampling_rate's minimum is two ticks of the running kernel" {
	export CPUFREQ_BPF_OBJDIR=$BATS_TEST_DIRNAME/../../build/bpf
	# The governors apply 2 x TICK_USEC of the CONFIG_HZ libbpf gives them;
	# the loader's range said 8000 (HZ=250) whatever the kernel.
	[ "$(info_with_hz 1000 -j info ondemand | jq -c .tunables.fields.sampling_rate.range)" = \
	  '{"min":2000,"max":10000000}' ]
	[ "$(info_with_hz 100 -j info conserv | jq -c .tunables.fields.sampling_rate.range)" = \
	  '{"min":20000,"max":10000000}' ]
	[ "$(info_with_hz 300 -j info ondemand | jq -r .tunables.fields.sampling_rate.range.min)" = \
	  6666 ]
	# Fields not counted in ticks keep their range.
	[ "$(info_with_hz 1000 -j info interactive | jq -r .tunables.fields.timer_rate.range.min)" = \
	  1000 ]
}

@test "info: every shipped governor says what each field's 0 stands for" {
	local obj stem info
	export CPUFREQ_BPF_OBJDIR=$BATS_TEST_DIRNAME/../../build/bpf
	for obj in "$CPUFREQ_BPF_OBJDIR"/*.bpf.o; do
		stem=$(basename "$obj" .bpf.o)
		run setpriv --reuid=65534 --regid=65534 --clear-groups "$LOADER" -j info "$stem"
		[ "$status" -eq 0 ] || { echo "$stem: $output"; false; }
		info=$output
		[ "$(jq -r .path <<< "$info")" -ef "$obj" ]
		run setpriv --reuid=65534 --regid=65534 --clear-groups "$LOADER" info "$obj"
		[ "$status" -eq 0 ]
		[ "${lines[0]}" = "name: $(jq -r .name <<< "$info")" ]
		[ "$(jq -r '.ops | length > 0' <<< "$info")" = true ]
		# Every field says what its 0 stands for: a number or words.
		[ "$(jq -r '[.tunables.fields[].default | type] - ["number", "string"]
			    | length' <<< "$info")" = 0 ] || { echo "$stem: $info"; false; }
		[ "$(grep -c '=0	# .*0 = ' <<< "$output")" = \
		  "$(jq -r '.tunables.fields | length' <<< "$info")" ]
	done
	# The defaults the code applies, numbers from the governors' #defines.
	[ "$("$LOADER" -j info classaware | jq -c '.tunables.fields | [.boost_hold_us.default,
	     .background_step_us.default, .hispeed_freq.default]')" = \
	  '[40000,20000,"the CPU'"'"'s top frequency"]' ]
	[ "$("$LOADER" -j info interactive | jq -c '.tunables.fields | [.timer_slack.default,
	     .target_loads.default, .io_is_busy.default]')" = '[80000,90,0]' ]
	[ "$("$LOADER" -j info schedutil | jq -r .tunables.fields.rate_limit_us.default)" = \
	  "the driver's transition delay" ]
	run "$LOADER" info ondemand
	[ "$status" -eq 0 ]
	[[ $output == *"up_threshold=0	# %, 1..100, 0 = 95 %"* ]]
	# bpf_schedutil declares EAS, and only it among the shipped.
	[ "$("$LOADER" -j info schedutil | jq -c '[.eas, .flags]')" = '[true,["eas"]]' ]
	[ "$("$LOADER" -j info interactive | jq -c '[.eas, .flags]')" = '[false,[]]' ]
}
