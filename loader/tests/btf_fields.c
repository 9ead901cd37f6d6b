// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests: the BTF field mapping on the real governor objects.
 * Usage: btf_fields [OBJDIR [TESTOBJDIR]]: the governors' and the selftests'
 * object directories; the defaults are the build's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "loader.h"
#include "tap.h"

#ifndef TEST_OBJDIR
#define TEST_OBJDIR "build/bpf"
#endif
#ifndef TEST_TESTOBJDIR
#define TEST_TESTOBJDIR "build/bpf-tests"
#endif

static const char *dir = TEST_OBJDIR;
static const char *test_dir = TEST_TESTOBJDIR;

/* Opens @name from the governors' directory, or the selftests' one. */
static int open_layout(const char *name, struct gov_object *go, struct layout *l)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s.bpf.o", dir, name);
	if (access(path, F_OK))
		snprintf(path, sizeof(path), "%s/%s.bpf.o", test_dir, name);
	memset(l, 0, sizeof(*l));
	if (object_open(path, NULL, go))
		return -ENOENT;
	if (!go->tunables)
		return -ENODATA;
	return layout_from_btf(bpf_object__btf(go->obj),
			       bpf_map__btf_value_type_id(go->tunables), l);
}

static bool range_is(const struct field *f, long long min, long long max)
{
	return f && f->has_range && f->min == min && f->max == max;
}

static void test_interactive(void)
{
	struct gov_object go;
	struct layout l;
	const struct field *hs, *tl, *ts, *boost, *rate;
	__u32 v[64] = {};
	int err = open_layout("interactive", &go, &l);

	ok(!err, "interactive: object opened, tunables layout read (%d)", err);
	if (err)
		return;
	ok(!strcmp(go.name, "bpf_interactive"), "interactive: registers as %s", go.name);
	ok(bpf_map__max_entries(go.tunables) == MAX_POLICIES, "interactive: per-policy tunables");
	ok(!strcmp(l.type_name, "interactive_tunables") && l.nr_fields == 11 &&
	   l.value_size == 4 * (9 + 2 * 16), "interactive: 11 fields, %u bytes", l.value_size);

	hs = layout_field(&l, "hispeed_freq");
	tl = layout_field(&l, "target_loads");
	ts = layout_field(&l, "timer_slack");
	boost = layout_field(&l, "boost");
	rate = layout_field(&l, "timer_rate");
	ok(hs && hs->offset == 0 && hs->nelems == 1 && range_is(hs, 1, 10000000) &&
	   !strcmp(hs->unit, "kHz"), "interactive: hispeed_freq range and unit");
	ok(tl && tl->offset == 8 && tl->nelems == 16 && tl->format == FIELD_FREQ_LIST &&
	   range_is(tl, 1, 100) && !strcmp(tl->unit, "%"),
	   "interactive: target_loads is a freq list");
	ok(ts && range_is(ts, 1, 4294967295LL), "interactive: timer_slack up to u32 max");
	ok(boost && range_is(boost, 0, 1) && !boost->unit[0], "interactive: boost 0..1, no unit");
	ok(rate && range_is(rate, 1000, 10000000), "interactive: timer_rate from 1000 us");
	ok(!layout_field(&l, "nosuch"), "interactive: no unknown field");

	ok(!parse_assignment(&l, "go_hispeed_load=85", v) && v[1] == 85,
	   "assignment: written at the field's offset");
	ok(!parse_assignment(&l, "target_loads=80 1200000:95", v) && v[2] == 80 &&
	   v[3] == 1200000 && v[4] == 95 && !v[5], "assignment: freq list at its offset");
	ok(parse_assignment(&l, "nosuch=1", v) == -ENOENT, "assignment: unknown field");
	ok(parse_assignment(&l, "go_hispeed_load=101", v) == -ERANGE && v[1] == 85,
	   "assignment: out of range, nothing written");
	ok(parse_assignment(&l, "timer_rate=999", v) == -ERANGE, "assignment: below the range");
	ok(parse_assignment(&l, "go_hispeed_load", v) == -EINVAL &&
	   parse_assignment(&l, "=5", v) == -EINVAL, "assignment: malformed");
	ok(!parse_assignment(&l, "timer_slack=4294967295", v), "assignment: u32 max accepted");
	layout_free(&l);
	gov_object_close(&go);
}

static void test_others(void)
{
	struct gov_object go;
	struct layout l;
	const struct field *f;

	ok(!open_layout("schedutil", &go, &l) && !strcmp(go.name, "bpf_schedutil") &&
	   l.nr_fields == 1 && range_is(layout_field(&l, "rate_limit_us"), 1, 10000000),
	   "schedutil: rate_limit_us 1..10000000");
	layout_free(&l);
	gov_object_close(&go);

	ok(!open_layout("sched", &go, &l) && !strcmp(go.name, "bpf_sched"),
	   "sched: registers as bpf_sched");
	f = layout_field(&l, "capacity_margin");
	ok(f && range_is(f, 1024, 4096) && f->offset == 4 && !f->unit[0],
	   "sched: capacity_margin 1024..4096");
	layout_free(&l);
	gov_object_close(&go);

	ok(open_layout("test_dup", &go, &l) != -ENOENT && !strcmp(go.name, "schedutil"),
	   "test_dup: the name clash object says schedutil");
	layout_free(&l);
	gov_object_close(&go);
	ok(open_layout("bad_kfunc_in_syscall", &go, &l) == -ENOENT,
	   "an object without a governor is refused");
}

/* @name's field @field in a shipped object, copied; false when it is not there. */
static bool field_of(const char *name, const char *field, struct field *out)
{
	struct gov_object go;
	struct layout l;
	const struct field *f;
	bool found;

	if (open_layout(name, &go, &l))
		return false;
	f = layout_field(&l, field);
	found = f;
	if (f)
		*out = *f;
	layout_free(&l);
	gov_object_close(&go);
	return found;
}

static bool default_is_number(const char *name, const char *field, long long v)
{
	struct field f;

	return field_of(name, field, &f) && f.has_default && f.default_value == v &&
	       !f.default_text[0];
}

static bool default_is_text(const char *name, const char *field, const char *text)
{
	struct field f;

	return field_of(name, field, &f) && !f.has_default && !strcmp(f.default_text, text);
}

/* The default tags: the #define the code applies, or words for the hardware's. */
static void test_defaults(void)
{
	static const char *const govs[] = {
		"schedutil", "interactive", "sched", "ondemand", "conservative",
		"classaware", "example",
	};
	struct gov_object go;
	struct layout l;
	struct field f;
	char buf[160];
	unsigned int g;
	int i, missing;

	ok(default_is_number("classaware", "boost_hold_us", 40000) &&
	   default_is_number("classaware", "background_nice", 10),
	   "classaware: boost_hold_us 40000, background_nice 10");
	ok(default_is_number("interactive", "timer_slack", 80000) &&
	   default_is_number("interactive", "above_hispeed_delay", 20000) &&
	   default_is_number("interactive", "go_hispeed_load", 99),
	   "interactive: timer_slack 80000, above_hispeed_delay 20000, go_hispeed_load 99");
	ok(default_is_number("interactive", "target_loads", 90),
	   "interactive: a freq list's default is its one value, 90");
	ok(default_is_number("ondemand", "up_threshold", 95) &&
	   default_is_number("conservative", "up_threshold", 80) &&
	   default_is_number("conservative", "freq_step", 5) &&
	   default_is_number("example", "down_threshold", 30) &&
	   default_is_number("sched", "capacity_margin", 1280),
	   "ondemand 95, conservative 80 and 5, example 30, sched 1280");
	ok(default_is_number("ondemand", "io_is_busy", 0), "ondemand: io_is_busy 0, a number");
	ok(default_is_text("schedutil", "rate_limit_us", "the driver's transition delay") &&
	   default_is_text("interactive", "hispeed_freq", "the policy's max"),
	   "schedutil and interactive: hardware defaults in words");
	ok(default_is_text("sched", "throttle_us",
			   "the driver's transition latency, 50000 us without one"),
	   "sched: throttle_us's text has THROTTLE_US_DEFAULT expanded");
	ok(default_is_text("conservative", "sampling_rate",
			   "max(2 ticks, the driver's transition delay)"),
	   "conservative: sampling_rate in words, from dbs.h");

	ok(field_of("classaware", "boost_hold_us", &f) &&
	   !field_default_format(&f, buf, sizeof(buf)) && !strcmp(buf, "40000 us"),
	   "format: a number with its unit (%s)", buf);
	ok(field_of("sched", "capacity_margin", &f) &&
	   !field_default_format(&f, buf, sizeof(buf)) && !strcmp(buf, "1280"),
	   "format: a number without a unit (%s)", buf);
	f.has_default = false;
	f.default_text[0] = '\0';
	ok(field_default_format(&f, buf, sizeof(buf)) == -ENOENT,
	   "format: a field without the tag has none");

	for (g = 0; g < sizeof(govs) / sizeof(govs[0]); g++) {
		missing = open_layout(govs[g], &go, &l) ? -1 : 0;
		for (i = 0; !missing && i < l.nr_fields; i++)
			if (field_default_format(&l.fields[i], buf, sizeof(buf)))
				missing = i + 1;
		ok(!missing && l.nr_fields, "%s: every field has a default (%s)", govs[g],
		   missing > 0 ? l.fields[missing - 1].name : missing ? "not opened" : "all");
		layout_free(&l);
		gov_object_close(&go);
	}
}

/* Upgrades carry fields by name; missing or reshaped ones keep the default. */
static void test_carry(void)
{
	struct gov_object go, go2;
	struct layout old, new;
	__u32 ov[64] = {}, nv[64] = {};
	struct field *f;
	int i;

	if (open_layout("interactive", &go, &old) || open_layout("interactive", &go2, &new))
		return;
	parse_assignment(&old, "go_hispeed_load=70", ov);
	parse_assignment(&old, "target_loads=80 1200000:95", ov);
	parse_assignment(&old, "io_is_busy=1", ov);
	parse_assignment(&old, "boost=1", ov);
	/* The new version dropped boost and made io_is_busy a u8. */
	for (i = 0; i < new.nr_fields; i++) {
		f = &new.fields[i];
		if (!strcmp(f->name, "boost"))
			strcpy(f->name, "boost_v2");
		if (!strcmp(f->name, "io_is_busy"))
			f->elem_size = 1;
	}
	layout_carry(&old, ov, &new, nv);
	ok(nv[1] == 70 && nv[2] == 80 && nv[3] == 1200000 && nv[4] == 95,
	   "carry: same fields copied, lists included");
	ok(!nv[layout_field(&new, "boost_v2")->offset / 4], "carry: a new field keeps its default");
	ok(!nv[layout_field(&new, "io_is_busy")->offset / 4],
	   "carry: a reshaped field is not carried");
	layout_free(&old);
	layout_free(&new);
	gov_object_close(&go);
	gov_object_close(&go2);
}

/* Every spelling of a governor opens its shipped object; others are unknown. */
static void test_names(void)
{
	const char *spellings[] = { "conservative", "bpf_conserv", "conserv" };
	struct gov_object go;
	char buf[256];
	size_t i;

	setenv("CPUFREQ_BPF_OBJDIR", dir, 1);
	for (i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
		bool opened = !gov_object_open(spellings[i], NULL, &go);

		ok(opened && !strcmp(go.name, "bpf_conserv") &&
		   strstr(go.path, "/conservative.bpf.o"), "names: '%s' opens %s",
		   spellings[i], opened ? go.path : "nothing");
		if (opened)
			gov_object_close(&go);
	}
	stderr_capture();
	ok(gov_object_open("conserva", NULL, &go) == EXIT_NOTFOUND,
	   "names: 'conserva' is no governor");
	ok(strstr(stderr_captured(buf, sizeof(buf)), "unknown governor 'conserva' (no ") != NULL,
	   "names: and says so in one line: %s", buf);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		dir = argv[1];
	if (argc > 2)
		test_dir = argv[2];
	libbpf_set_print(NULL);
	test_interactive();
	test_others();
	test_defaults();
	test_carry();
	test_names();
	return tap_done();
}
