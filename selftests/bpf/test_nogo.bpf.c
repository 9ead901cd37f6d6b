// SPDX-License-Identifier: GPL-2.0
/* The test governor's next version, which refuses every policy. */
#define TEST_GOV_VERSION 3
#define TEST_GOV_REFUSE_INIT 1
#include "test_gov.bpf.c"
