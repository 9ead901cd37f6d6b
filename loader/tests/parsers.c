// SPDX-License-Identifier: GPL-2.0
/* Host unit tests: policy lists, numbers, values, freq lists, config words. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "loader.h"
#include "tap.h"

static void test_policy_lists(void)
{
	struct policy_set s;

	ok(!parse_policy_list("0", &s) && policy_in_set(&s, 0) && !policy_in_set(&s, 1) &&
	   !s.all, "policy list: one id");
	ok(!parse_policy_list("0,2", &s) && policy_in_set(&s, 0) && !policy_in_set(&s, 1) &&
	   policy_in_set(&s, 2), "policy list: ids");
	ok(!parse_policy_list("1-3,6", &s) && !policy_in_set(&s, 0) && policy_in_set(&s, 1) &&
	   policy_in_set(&s, 3) && !policy_in_set(&s, 4) && policy_in_set(&s, 6) &&
	   !policy_in_set(&s, 7), "policy list: range and id");
	ok(!parse_policy_list("all", &s) && s.all && policy_in_set(&s, 63) &&
	   policy_in_set(&s, 4095), "policy list: all");
	ok(!parse_policy_list("63", &s) && policy_in_set(&s, 63) && !policy_in_set(&s, 0),
	   "policy list: 63");
	ok(!parse_policy_list("64", &s) && policy_in_set(&s, 64) && !policy_in_set(&s, 0),
	   "policy list: 64 and beyond accepted: machines have more CPUs");
	ok(!parse_policy_list("0,100-200", &s) && policy_in_set(&s, 150) &&
	   !policy_in_set(&s, 99) && !policy_in_set(&s, 201), "policy list: a range past 64");
	ok(!parse_policy_list("0-2147483647", &s) && policy_in_set(&s, 2147483647),
	   "policy list: up to the largest int");
	ok(parse_policy_list("2147483648", &s) == -EINVAL, "policy list: beyond an int refused");
	ok(!parse_policy_list("010", &s) && policy_in_set(&s, 10) && !policy_in_set(&s, 8),
	   "policy list: leading zero is decimal");
	ok(!parse_policy_list("08,09", &s) && policy_in_set(&s, 8) && policy_in_set(&s, 9),
	   "policy list: 08 and 09 are numbers");
	ok(!parse_policy_list("0x10", &s) && policy_in_set(&s, 16), "policy list: hex with 0x");
	ok(parse_policy_list("3-1", &s) == -EINVAL, "policy list: reversed range refused");
	ok(parse_policy_list("", &s) == -EINVAL, "policy list: empty refused");
	ok(parse_policy_list("x", &s) == -EINVAL, "policy list: a word refused");
	ok(parse_policy_list("1-", &s) == -EINVAL, "policy list: open range refused");
	ok(parse_policy_list("-1", &s) == -EINVAL, "policy list: negative refused");
	ok(parse_policy_list(",", &s) == -EINVAL, "policy list: separators only refused");
}

/* The longest list there can be: every id a range of its own. */
static void test_policy_list_capacity(void)
{
	char list[POLICY_LIST_LEN + 1];
	struct policy_set s;
	int i;

	for (i = 0; i < POLICY_LIST_LEN / 2 - 1; i++)
		sprintf(list + 2 * i, "%d,", i % 10);
	strcpy(list + 2 * i, "7");
	ok(!parse_policy_list(list, &s) && s.nr == POLICY_LIST_LEN / 2 && policy_in_set(&s, 7),
	   "policy list: %d ids in %zu characters", s.nr, strlen(list));
	strcat(list, "0");
	ok(parse_policy_list(list, &s) == -EINVAL, "policy list: a longer one refused");
}

static void test_numbers(void)
{
	__u64 v;

	ok(!parse_u64("42", &v) && v == 42, "number: decimal");
	ok(!parse_u64("0x10", &v) && v == 16, "number: hex");
	ok(!parse_u64("0X1f", &v) && v == 31, "number: hex, either case");
	ok(!parse_u64("010", &v) && v == 10, "number: leading zero is decimal, not octal");
	ok(!parse_u64("010000", &v) && v == 10000, "number: 010000 is ten thousand");
	ok(!parse_u64("08", &v) && v == 8 && !parse_u64("09", &v) && v == 9,
	   "number: 08 and 09 are numbers");
	ok(!parse_u64("0", &v) && v == 0 && !parse_u64("00", &v) && v == 0, "number: zeros");
	ok(!parse_u64("18446744073709551615", &v) && v == ~0ULL, "number: u64 max");
	ok(!parse_u64("0xffffffffffffffff", &v) && v == ~0ULL, "number: u64 max in hex");
	ok(parse_u64("18446744073709551616", &v), "number: overflow refused");
	ok(parse_u64("0x10000000000000000", &v), "number: hex overflow refused");
	ok(parse_u64("12a", &v), "number: trailing garbage refused");
	ok(parse_u64("0x", &v) && parse_u64("0xg", &v) && parse_u64("0x0x10", &v) &&
	   parse_u64("0x-1", &v) && parse_u64("0x 1", &v), "number: bad hex refused");
	ok(parse_u64("-1", &v) && parse_u64("+1", &v) && parse_u64(" 1", &v) &&
	   parse_u64("", &v), "number: sign, blank and empty refused");
}

static void test_millis(void)
{
	__u64 ms;

	ok(!parse_millis("1", &ms) && ms == 1000, "seconds: whole");
	ok(!parse_millis("0.5", &ms) && ms == 500, "seconds: a half");
	ok(!parse_millis("0.1", &ms) && ms == 100 && !parse_millis("0.25", &ms) && ms == 250,
	   "seconds: tenths and hundredths");
	ok(!parse_millis("1.005", &ms) && ms == 1005, "seconds: milliseconds");
	ok(!parse_millis("3600", &ms) && ms == 3600000, "seconds: an hour");
	ok(!parse_millis("010", &ms) && ms == 10000, "seconds: a leading zero is decimal");
	ok(parse_millis("0.0001", &ms) == -EINVAL, "seconds: beyond milliseconds refused");
	ok(parse_millis("", &ms) && parse_millis(".5", &ms) && parse_millis("1.", &ms) &&
	   parse_millis(".", &ms), "seconds: empty and bare dots refused");
	ok(parse_millis("-1", &ms) && parse_millis("+1", &ms) && parse_millis("1e3", &ms) &&
	   parse_millis("0x10", &ms) && parse_millis("1.2.3", &ms) && parse_millis(" 1", &ms) &&
	   parse_millis("1s", &ms) && parse_millis("1.-5", &ms), "seconds: sign, exponent, hex, junk refused");
	ok(parse_millis("99999999999", &ms) == -EINVAL, "seconds: beyond 32 bits refused");
}

/* A u32 field with range 1..100, and a 16-slot freq list like interactive's. */
static const struct field load_field = {
	.name = "load", .offset = 0, .elem_size = 4, .nelems = 1,
	.has_range = true, .min = 1, .max = 100, .unit = "%",
};
static const struct field list_field = {
	.name = "target_loads", .offset = 4, .elem_size = 4, .nelems = 16,
	.format = FIELD_FREQ_LIST, .has_range = true, .min = 1, .max = 100,
};
static const struct field array_field = {
	.name = "weights", .offset = 68, .elem_size = 2, .nelems = 3, .format = FIELD_ARRAY,
};
static const struct field signed_field = {
	.name = "bias", .offset = 76, .elem_size = 1, .nelems = 1, .is_signed = true,
};
static const struct field rate_field = {
	.name = "timer_rate", .offset = 0, .elem_size = 4, .nelems = 1,
	.has_range = true, .min = 1000, .max = 10000000, .unit = "us",
};

struct value {
	__u32 load;
	__u32 list[16];
	__u16 weights[3];
	__u16 pad;
	__s8 bias;
} __attribute__((packed));

static void test_values(void)
{
	struct value v = {};
	char buf[256];

	ok(!field_parse(&load_field, "90", &v) && v.load == 90, "value: in range");
	ok(!field_parse(&load_field, "0", &v) && v.load == 0, "value: 0 is the default");
	v.load = 7;
	ok(!field_parse(&load_field, "default", &v) && v.load == 0, "value: 'default' is 0");
	v.load = 5;
	ok(field_parse(&load_field, "101", &v) == -ERANGE && v.load == 5,
	   "value: above the range refused, nothing written");
	ok(field_parse(&load_field, "4294967296", &v) == -ERANGE, "value: beyond u32 refused");
	ok(field_parse(&load_field, "-1", &v) == -EINVAL, "value: negative for unsigned refused");
	ok(field_parse(&load_field, "9x", &v) == -EINVAL, "value: malformed refused");
	ok(field_parse(&load_field, "", &v) == -EINVAL, "value: empty refused");
	ok(!field_parse(&rate_field, "010000", &v) && v.load == 10000,
	   "value: 010000 is 10000, not octal 4096 (below the range)");
	ok(!field_parse(&rate_field, "0x2710", &v) && v.load == 10000, "value: hex with 0x");
	ok(!field_parse(&load_field, "08", &v) && v.load == 8, "value: 08 is 8");
	ok(!field_parse(&signed_field, "-010", &v) && v.bias == -10,
	   "value: negative with a leading zero is decimal");
	ok(!field_parse(&signed_field, "-128", &v) && v.bias == -128, "value: signed minimum");
	ok(field_parse(&signed_field, "-129", &v) == -ERANGE, "value: below s8 refused");
	v.load = 33;
	ok(!field_format(&load_field, &v, buf, sizeof(buf)) && !strcmp(buf, "33"),
	   "value: formatted");
	ok(!field_format(&signed_field, &v, buf, sizeof(buf)) && !strcmp(buf, "-128"),
	   "value: signed formatted");

	ok(!field_parse(&array_field, "1,2,3", &v) && v.weights[0] == 1 && v.weights[2] == 3,
	   "array: comma list");
	ok(!field_format(&array_field, &v, buf, sizeof(buf)) && !strcmp(buf, "1,2,3"),
	   "array: formatted");
	ok(!field_parse(&array_field, "9", &v) && v.weights[0] == 9 && !v.weights[1],
	   "array: short list zero-filled");
	ok(field_parse(&array_field, "1,2,3,4", &v) == -E2BIG, "array: too many refused");
	ok(field_parse(&array_field, "65536", &v) == -ERANGE, "array: beyond u16 refused");
}

static void test_freq_lists(void)
{
	struct value v = {};
	char buf[256];

	ok(!field_parse(&list_field, "85 1500000:90 1800000:99", &v) && v.list[0] == 85 &&
	   v.list[1] == 1500000 && v.list[2] == 90 && v.list[3] == 1800000 &&
	   v.list[4] == 99 && v.list[5] == 0, "freq list: parsed flat and 0-terminated");
	ok(!field_format(&list_field, &v, buf, sizeof(buf)) &&
	   !strcmp(buf, "85 1500000:90 1800000:99"), "freq list: formatted back");
	ok(!field_parse(&list_field, "70", &v) && v.list[0] == 70 && !v.list[1],
	   "freq list: a single value");
	ok(!field_parse(&list_field, "0", &v) && !v.list[0], "freq list: 0 is the default");
	ok(!field_format(&list_field, &v, buf, sizeof(buf)) && !strcmp(buf, "0"),
	   "freq list: default formatted as 0");
	ok(!field_parse(&list_field, "80,1000000,90", &v) && v.list[2] == 90,
	   "freq list: commas as separators");
	memset(&v, 0xab, sizeof(v));
	v.list[0] = 50;
	ok(field_parse(&list_field, "85 1500000", &v) == -EINVAL && v.list[0] == 50,
	   "freq list: frequency without value refused, nothing written");
	ok(field_parse(&list_field, "85 1500000:90 1400000:95", &v) == -EINVAL,
	   "freq list: falling frequencies refused");
	ok(field_parse(&list_field, "85 1500000:101", &v) == -ERANGE,
	   "freq list: value out of range refused");
	ok(field_parse(&list_field, "85 1500000:0", &v) == -EINVAL,
	   "freq list: 0 inside refused");
	ok(field_parse(&list_field, "85 abc:90", &v) == -EINVAL, "freq list: malformed refused");
	ok(!field_parse(&list_field, "1 1:2 2:3 3:4 4:5 5:6 6:7 7:8", &v) && v.list[14] == 8 &&
	   !v.list[15], "freq list: 15 slots, the last left for the terminator");
	ok(field_parse(&list_field, "1 1:2 2:3 3:4 4:5 5:6 6:7 7:8 8:9", &v) == -E2BIG,
	   "freq list: too long refused");
}

/*
 * Array fields as long as BTF allows: millions of elements, which a crafted
 * object may declare, are parsed without the stack.
 */
static void test_huge_fields(void)
{
	struct field big = {
		.name = "big", .elem_size = 4, .nelems = 2000000, .format = FIELD_ARRAY,
	};
	__u32 *v = calloc(big.nelems, sizeof(*v));
	char buf[64];

	if (!v)
		return;
	memset(v, 0xff, big.nelems * sizeof(*v));
	ok(!field_parse(&big, "1,2,3", v) && v[0] == 1 && v[2] == 3 && !v[3] &&
	   !v[big.nelems - 1], "huge array: parsed, the rest zeroed");
	ok(!field_format(&big, v, buf, sizeof(buf)) && !strcmp(buf, "1,2,3"),
	   "huge array: formatted");
	big.format = FIELD_FREQ_LIST;
	ok(!field_parse(&big, "80 1000000:90", v) && v[0] == 80 && v[2] == 90 && !v[3],
	   "huge freq list: parsed");
	ok(field_parse(&big, "80 1000000", v) == -EINVAL && v[0] == 80,
	   "huge freq list: malformed refused, nothing written");
	free(v);
}

static void test_config_words(void)
{
	char line[] = "load interactive --set \"target_loads=85 1500000:90\" # comment\n";
	char open_quote[] = "load \"x\n";
	char blank[] = "   # only a comment\n";
	char *w[8];

	ok(split_words(line, w, 8) == 4 && !strcmp(w[0], "load") &&
	   !strcmp(w[3], "target_loads=85 1500000:90"), "config: quoted word keeps blanks");
	ok(split_words(open_quote, w, 8) == -EINVAL, "config: open quote refused");
	ok(split_words(blank, w, 8) == 0, "config: comment line is empty");
}

int main(void)
{
	test_policy_lists();
	test_policy_list_capacity();
	test_numbers();
	test_millis();
	test_values();
	test_freq_lists();
	test_huge_fields();
	test_config_words();
	return tap_done();
}
