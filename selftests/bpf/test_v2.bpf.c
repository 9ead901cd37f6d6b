// SPDX-License-Identifier: GPL-2.0
/* The test governor's next version, for in-place link updates. */
#define TEST_GOV_VERSION 2
#include "test_gov.bpf.c"
