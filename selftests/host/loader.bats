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
	[ "${lines[0]}" = "usage: cpufreq-bpf tune NAME [FIELD[=VALUE]]... [--policy N]" ]
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
	[ "$(completes "" | grep -v '^-' | wc -l)" -eq 11 ]
	[ "$(completes lo)" = "$(printf 'load\n')" ]
	[ "$(completes load cons)" = conservative ]
	[ "$(completes load conservative --p)" = --policy ]
	[[ "$(completes load conservative --policy "")" == *all* ]]
	[ "$(completes status --)" = "$(printf -- '--help\n--json\n--watch')" ]
	[ "$(completes help tu)" = tune ]
	[ "$(completes shadow conservative --)" = "$(printf -- '--duration\n--help\n--json\n--policy')" ]
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
