#!/usr/bin/env bats
# One governor object for kernels of any tick rate.  The debug kernel ticks
# at 1000 Hz (kernel-patch/config-debug) and the default one at 250; both
# boots load the same objects from build/bpf, which read CONFIG_HZ when they
# load (libbpf's __kconfig extern, include/gov_common.h).  Run in the debug
# kernel's boot; policy0 governed, the suite on CPUs 2-3.

load lib
load governors_lib

PINS=/sys/fs/bpf/cpufreq

setup() {
	off_policy0
	reset_policies
}

teardown() {
	"$LOADER" unload --all >/dev/null 2>&1 || true
	rm -rf "$PINS"
	restore_vm_state
}

kernel_hz() { zcat /proc/config.gz | sed -n 's/^CONFIG_HZ=//p'; }

# sample_delay_is NS: bpf_ondemand's delay to policy0's next sample, as it
# set it after its last sample.
sample_delay_is() {
	[ "$("$BPFTOOL" map lookup name od_policies key 0 0 0 0 -j |
		jq -r .formatted.value.dbs.sample_delay_ns)" = "$1" ]
}

@test "this boot's kernel ticks at 1000 Hz, not the default kernel's 250" {
	[ "$(kernel_hz)" = 1000 ]
}

@test "bpf_ondemand's minimum sampling_rate is two ticks of the running kernel" {
	# The same object as on the HZ=250 kernel, where two ticks are 8 ms.
	# Built with the tick as a constant, it took 2 ms as out of range and
	# sampled at its default, 8 ms.
	[ "$(kernel_hz)" = 1000 ]
	"$LOADER" load ondemand
	set_governor 0 bpf_ondemand
	[ "$("$LOADER" -j info ondemand | jq -r .tunables.fields.sampling_rate.range.min)" = 2000 ]
	run "$LOADER" tune ondemand sampling_rate=1999
	[ "$status" -eq 2 ]
	[[ $output == *"'sampling_rate=1999': out of range"* ]]
	"$LOADER" tune ondemand sampling_rate=2000
	start_hog 0
	wait_for 10 sample_delay_is 2000000
}
