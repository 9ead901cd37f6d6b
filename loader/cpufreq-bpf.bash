# bash completion for cpufreq-bpf(8): commands, their options, governor
# names (shipped objects and loaded governors), policy and CPU ids.

# The governors one can name: shipped objects by stem, loaded ones by name.
_cpufreq_bpf_governors()
{
	local dir=${CPUFREQ_BPF_OBJDIR:-@GOVDIR@} f

	for f in "$dir"/*.bpf.o; do
		[ -e "$f" ] || continue
		f=${f##*/}
		echo "${f%.bpf.o}"
	done
	ls /sys/fs/bpf/cpufreq 2>/dev/null
}

_cpufreq_bpf()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local commands="list load unload switch upgrade tune status shadow info boot help version"
	local cmd="" opts="" nargs=0 i

	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--policy | --cpu | --set | --config | --duration | --interval) ((i++)) ;;
		-*) ;;
		*) [ -z "$cmd" ] && cmd=${COMP_WORDS[i]} || ((nargs++)) ;;
		esac
	done
	if [ -z "$cmd" ]; then
		COMPREPLY=($(compgen -W "$commands -v --verbose -j --json -p --pretty -h --help \
			-V --version" -- "$cur"))
		return
	fi
	case $prev in
	--policy)
		COMPREPLY=($(compgen -W "all $(ls /sys/devices/system/cpu/cpufreq 2>/dev/null |
			sed -n 's/^policy//p')" -- "$cur"))
		return ;;
	--cpu)
		COMPREPLY=($(compgen -W "all $(ls /sys/devices/system/cpu 2>/dev/null |
			sed -n 's/^cpu\([0-9]\+\)$/\1/p')" -- "$cur"))
		return ;;
	--config)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--set | --duration | --interval)
		return ;;
	esac
	case $cmd in
	load) opts="--policy --cpu --set" ;;
	unload) opts="--all" ;;
	switch | tune) opts="--policy --cpu" ;;
	status) opts="--policy --cpu --json --watch --interval" ;;
	shadow) opts="--policy --cpu --duration --json" ;;
	boot) opts="--config --check" ;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$opts --help" -- "$cur"))
		return
	fi
	case $cmd in
	help)
		[ $nargs -eq 0 ] && COMPREPLY=($(compgen -W "$commands" -- "$cur")) ;;
	load | list | info)
		if [[ $cur == */* ]]; then
			COMPREPLY=($(compgen -f -- "$cur"))
		elif [ "$cmd" != list ] && [ $nargs -eq 0 ]; then
			COMPREPLY=($(compgen -W "$(_cpufreq_bpf_governors)" -- "$cur"))
		fi ;;
	upgrade)
		if [ $nargs -eq 0 ]; then
			COMPREPLY=($(compgen -W "$(_cpufreq_bpf_governors)" -- "$cur"))
		elif [ $nargs -eq 1 ]; then
			COMPREPLY=($(compgen -f -- "$cur"))
		fi ;;
	unload | switch | tune | status | shadow)
		[ $nargs -eq 0 ] && COMPREPLY=($(compgen -W "$(_cpufreq_bpf_governors)" -- "$cur")) ;;
	esac
}
complete -F _cpufreq_bpf cpufreq-bpf
