// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests of the JSON writer: commas and nesting placed by the
 * writer, strings valid whatever the bytes, pretty output indented, and a
 * failed command's document dropped.
 */
#include <stdlib.h>
#include <string.h>
#include "loader.h"
#include "tap.h"

static char out[1024];
static FILE *f;

static void start(bool pretty)
{
	memset(out, 0, sizeof(out));
	f = fmemopen(out, sizeof(out), "w");
	json_init(f, pretty);
}

/* What was committed since start(). */
static const char *done(void)
{
	json_commit(true);
	fclose(f);
	return out;
}

/* The document of one string. */
static const char *string_of(const char *s)
{
	start(false);
	json_str(s);
	return done();
}

static void nested(void)
{
	json_object_start();
	json_field_str("name", "bpf_x");
	json_key("policies");
	json_array_start();
	json_int(0);
	json_object_start();
	json_field_int("policy", -2);
	json_field_bool("pinned", false);
	json_object_end();
	json_array_end();
	json_key("empty");
	json_object_start();
	json_object_end();
	json_key("none");
	json_array_start();
	json_array_end();
	json_key("unit");
	json_null();
	json_field_uint("big", 18446744073709551615ULL);
	json_key("pct");
	json_float(12.345, 2);
	json_object_end();
}

static const char pretty_nested[] =
"{\n"
"  \"name\": \"bpf_x\",\n"
"  \"policies\": [\n"
"    0,\n"
"    {\n"
"      \"policy\": -2,\n"
"      \"pinned\": false\n"
"    }\n"
"  ],\n"
"  \"empty\": {},\n"
"  \"none\": [],\n"
"  \"unit\": null,\n"
"  \"big\": 18446744073709551615,\n"
"  \"pct\": 12.35\n"
"}\n";

int main(void)
{
	ok(!strcmp(string_of("bpf_schedutil"), "\"bpf_schedutil\"\n"), "json: a name as it is");
	ok(!strcmp(string_of(""), "\"\"\n"), "json: empty string");
	ok(!strcmp(string_of("say \"no\" \\ now"), "\"say \\\"no\\\" \\\\ now\"\n"),
	   "json: quote and backslash escaped");
	ok(!strcmp(string_of("a\tb\nc"), "\"a\\u0009b\\u000ac\"\n"),
	   "json: control characters escaped");
	ok(!strcmp(string_of("\x7f"), "\"\\u007f\"\n"), "json: DEL escaped");
	ok(!strcmp(string_of("bad \xff byte"), "\"bad \\u00ff byte\"\n"),
	   "json: a byte that is not UTF-8 becomes an escape");
	ok(!strcmp(string_of("caf\xc3\xa9"), "\"caf\\u00c3\\u00a9\"\n"),
	   "json: bytes above ASCII escaped one by one");

	start(false);
	nested();
	ok(!strcmp(done(), "{\"name\":\"bpf_x\",\"policies\":[0,{\"policy\":-2,\"pinned\":false}],"
			   "\"empty\":{},\"none\":[],\"unit\":null,"
			   "\"big\":18446744073709551615,\"pct\":12.35}\n"),
	   "json: nesting and commas, compact");

	start(true);
	nested();
	ok(!strcmp(done(), pretty_nested), "json: pretty, indented two spaces a level");

	start(false);
	json_key("a \"key\"");
	json_bool(true);
	ok(!strcmp(done(), "\"a \\\"key\\\"\":true\n"), "json: keys escaped like strings");

	start(false);
	json_object_start();
	json_field_str("loaded", "bpf_x");
	json_commit(false);
	json_array_start();
	json_bool(true);
	json_array_end();
	ok(!strcmp(done(), "[true]\n"), "json: a dropped document leaves nothing, the next is whole");

	start(false);
	json_array_start();
	json_array_end();
	json_commit(true);
	json_object_start();
	json_object_end();
	ok(!strcmp(done(), "[]\n{}\n"), "json: documents one a line");
	return tap_done();
}
