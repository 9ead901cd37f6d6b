#!/usr/bin/env bats
# A nominal frequency under the top (vcpufreq.nominal=1600 on a boot of
# its own): capacity is full at 1.6 GHz and 2 GHz is boost, as CPPC's
# nominal under its highest frequency, or arm64 with boost.  schedutil maps
# utilization against that frequency (arch_scale_freq_ref(), patches 18-19)
# and so must bpf_schedutil (bpf_cpufreq_cpu_freq_ref(), patch 20).  On
# policy0 (CPUs 0-1), the suite on CPUs 2-3.

load lib
load governors_lib

setup() {
	off_policy0
	reset_policies
}

teardown() {
	restore_vm_state
}

@test "nominal: the driver measures capacity at 1.6 GHz on policy0" {
	grep -qw vcpufreq.nominal=1600 /proc/cmdline || {
		echo "this suite needs a boot with vcpufreq.nominal=1600 (see selftests/run-all)" >&2
		return 1
	}
	dmesg | grep -q 'vcpufreq: .*, nominal MHz 1600$'
	[ "$(policy_read 0 cpuinfo_max_freq)" = 2000000 ]
}

# Against the top instead (the port before bpf_cpufreq_cpu_freq_ref()), the
# same load asks 1.25 times as much of it: agreement 2.41%, L1 1.94, 55
# transitions where schedutil made 2.
@test "nominal: bpf_schedutil in shadow of schedutil decides as it does" {
	schedutil_parity
}
