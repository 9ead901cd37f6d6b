// SPDX-License-Identifier: GPL-2.0
/* A second test governor under another name, to run two at once. */
#define TEST_GOV_NAME "bpf_test_b"
#define TEST_GOV_OPS test_gov_b_ops
#include "test_gov.bpf.c"
