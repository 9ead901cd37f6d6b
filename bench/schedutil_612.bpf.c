// SPDX-License-Identifier: GPL-2.0
/*
 * An experiment, not a governor to ship: bpf_schedutil with 6.12's
 * map_util_freq() (freq * util / cap).  include/cpufreq_bpf.h's
 * map_util_freq() adds 25% headroom, as the kernel's did before 6.7; 6.12
 * adds it in sugov_effective_cpu_perf() instead, which bpf_schedutil also
 * does, so bpf_schedutil applies the headroom twice.  BENCH_SCHEDUTIL=
 * schedutil_612 makes the benchmark use this object for bpf_schedutil.
 */
#include <cpufreq_bpf.h>
#define map_util_freq(util, freq, cap) ((freq) * (util) / (cap))
#include "../bpf-governors/schedutil.bpf.c"
