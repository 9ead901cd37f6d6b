// SPDX-License-Identifier: GPL-2.0
/* Host unit tests: the loader's JSON strings stay valid whatever the bytes. */
#include <stdlib.h>
#include <string.h>
#include "loader.h"
#include "tap.h"

/* What json_string() writes for @s. */
static const char *json_of(const char *s)
{
	static char buf[256];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	if (!f)
		return "";
	json_string(f, s);
	fclose(f);
	return buf;
}

int main(void)
{
	ok(!strcmp(json_of("bpf_schedutil"), "\"bpf_schedutil\""), "json: a name as it is");
	ok(!strcmp(json_of(""), "\"\""), "json: empty string");
	ok(!strcmp(json_of("say \"no\" \\ now"), "\"say \\\"no\\\" \\\\ now\""),
	   "json: quote and backslash escaped");
	ok(!strcmp(json_of("a\tb\nc"), "\"a\\u0009b\\u000ac\""), "json: control characters escaped");
	ok(!strcmp(json_of("\x7f"), "\"\\u007f\""), "json: DEL escaped");
	ok(!strcmp(json_of("bad \xff byte"), "\"bad \\u00ff byte\""),
	   "json: a byte that is not UTF-8 becomes an escape");
	ok(!strcmp(json_of("caf\xc3\xa9"), "\"caf\\u00c3\\u00a9\""),
	   "json: bytes above ASCII escaped one by one");
	return tap_done();
}
