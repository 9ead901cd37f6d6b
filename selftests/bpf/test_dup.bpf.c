// SPDX-License-Identifier: GPL-2.0
/* The test governor under a name cpufreq already has: must be refused. */
#define TEST_GOV_NAME "schedutil"
#include "test_gov.bpf.c"
