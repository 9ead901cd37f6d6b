// SPDX-License-Identifier: GPL-2.0
/*
 * bpf_ondemand built for policies with a CPU below 2: the limit the VM can
 * show what happens beyond (its policy2 holds CPUs 2-3), where the
 * shipped objects' limit is 64 CPUs.
 */
#define CPUFREQ_BPF_MAX_CPUS	2
#include "../../bpf-governors/ondemand.bpf.c"
