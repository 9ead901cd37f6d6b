// SPDX-License-Identifier: GPL-2.0
/* Host unit tests: policy lists, numbers, values, freq lists, config words. */
#include <errno.h>
#include <string.h>
#include "loader.h"
#include "tap.h"

static void test_policy_lists(void)
{
	struct policy_set s;

	ok(!parse_policy_list("0", &s) && s.mask == 1 && !s.all, "policy list: one id");
	ok(!parse_policy_list("0,2", &s) && s.mask == 0x5, "policy list: ids");
	ok(!parse_policy_list("1-3,6", &s) && s.mask == 0x4e, "policy list: range and id");
	ok(!parse_policy_list("all", &s) && s.all && policy_in_set(&s, 63), "policy list: all");
	ok(!parse_policy_list("63", &s) && policy_in_set(&s, 63) && !policy_in_set(&s, 0),
	   "policy list: the highest id");
	ok(parse_policy_list("64", &s) == -EINVAL, "policy list: beyond the last id refused");
	ok(parse_policy_list("3-1", &s) == -EINVAL, "policy list: reversed range refused");
	ok(parse_policy_list("", &s) == -EINVAL, "policy list: empty refused");
	ok(parse_policy_list("x", &s) == -EINVAL, "policy list: a word refused");
	ok(parse_policy_list("1-", &s) == -EINVAL, "policy list: open range refused");
	ok(parse_policy_list("-1", &s) == -EINVAL, "policy list: negative refused");
	ok(parse_policy_list(",", &s) == -EINVAL, "policy list: separators only refused");
}

static void test_numbers(void)
{
	__u64 v;

	ok(!parse_u64("42", &v) && v == 42, "number: decimal");
	ok(!parse_u64("0x10", &v) && v == 16, "number: hex");
	ok(!parse_u64("18446744073709551615", &v) && v == ~0ULL, "number: u64 max");
	ok(parse_u64("18446744073709551616", &v), "number: overflow refused");
	ok(parse_u64("12a", &v), "number: trailing garbage refused");
	ok(parse_u64("-1", &v) && parse_u64(" 1", &v) && parse_u64("", &v),
	   "number: sign, blank and empty refused");
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
	test_numbers();
	test_values();
	test_freq_lists();
	test_config_words();
	return tap_done();
}
