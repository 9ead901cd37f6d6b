// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests: the boot configuration, read by config_run() from files
 * the test writes, its lines handed to a command that records them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "loader.h"
#include "tap.h"

static char path[] = "/tmp/cpufreq-bpf-config-XXXXXX";
static char ran[16][CONFIG_LINE_MAX + 1];	/* each line run, its words joined by '|' */
static int nr_ran;

/* The command config_run() hands lines to: records them, fails on "fail". */
static int record(int argc, char **argv)
{
	char *out = ran[nr_ran++];
	int i;

	out[0] = '\0';
	for (i = 0; i < argc; i++)
		snprintf(out + strlen(out), sizeof(ran[0]) - strlen(out), "%s%s", i ? "|" : "",
			 argv[i]);
	if (argc > 1 && !strcmp(argv[1], "fail"))
		return fail(EXIT_NOTFOUND, "unknown governor '%s'", argv[1]);
	return EXIT_OK;
}

/* Runs @text as a config file, its messages into @err. */
static int run_config(const char *text, char *err, size_t len)
{
	FILE *f = fopen(path, "w");
	int ret;

	fputs(text, f);
	fclose(f);
	nr_ran = 0;
	stderr_capture();
	ret = config_run(path, record);
	stderr_captured(err, len);
	return ret;
}

static void test_comments(void)
{
	char mid[] = "load gov --set x=a#b\n";
	char after_blank[] = "load gov --set x=a #b c\n";
	char quoted[] = "tune gov \"names=a #b\"\n";
	char first[] = "#load gov\n";
	char glued[] = "load gov\"#\"x\n";
	char *w[8];

	ok(split_words(mid, w, 8) == 4 && !strcmp(w[3], "x=a#b"),
	   "config: '#' inside a word is part of it");
	ok(split_words(after_blank, w, 8) == 4 && !strcmp(w[3], "x=a"),
	   "config: '#' after a blank starts a comment");
	ok(split_words(quoted, w, 8) == 3 && !strcmp(w[2], "names=a #b"),
	   "config: '#' in quotes is kept");
	ok(split_words(first, w, 8) == 0, "config: '#' at the start of a line");
	ok(split_words(glued, w, 8) == 2 && !strcmp(w[1], "gov#x"),
	   "config: quotes glued to a word keep its '#'");
}

static void test_long_lines(void)
{
	char text[3 * CONFIG_LINE_MAX], err[1024], want[256];
	size_t n;

	/* The longest line there may be: CONFIG_LINE_MAX bytes, then a newline. */
	n = sprintf(text, "load ok --set x=");
	memset(text + n, 'a', CONFIG_LINE_MAX - n);
	strcpy(text + CONFIG_LINE_MAX, "\n");
	ok(run_config(text, err, sizeof(err)) == EXIT_OK && nr_ran == 1 &&
	   strlen(ran[0]) == CONFIG_LINE_MAX && !err[0],
	   "config: a line of %d bytes runs", CONFIG_LINE_MAX);

	/* Longer: refused whole, its tail never a command of its own. */
	n = sprintf(text, "load ok --set x=");
	memset(text + n, 'a', CONFIG_LINE_MAX - n);
	strcpy(text + CONFIG_LINE_MAX, "switch tail\nswitch next\n");
	snprintf(want, sizeof(want), "cpufreq-bpf: %s:1: line longer than %d bytes\n", path,
		 CONFIG_LINE_MAX);
	ok(run_config(text, err, sizeof(err)) == EXIT_USAGE && nr_ran == 1 &&
	   !strcmp(ran[0], "switch|next") && !strcmp(err, want),
	   "config: a longer line refused with its number, the next runs");

	/* Twice the buffer, without a final newline. */
	memset(text, 'b', 2 * CONFIG_LINE_MAX + 10);
	text[2 * CONFIG_LINE_MAX + 10] = '\0';
	ok(run_config(text, err, sizeof(err)) == EXIT_USAGE && nr_ran == 0 &&
	   strstr(err, ":1: line longer than"), "config: a long last line refused whole");
}

static void test_messages(void)
{
	char err[1024], want[512];

	snprintf(want, sizeof(want),
		 "cpufreq-bpf: %s:3: unknown governor 'fail'\n"
		 "cpufreq-bpf: %s:4: only load, switch, tune and upgrade belong here\n"
		 "cpufreq-bpf: %s:5: unbalanced quotes\n", path, path, path);
	ok(run_config("# a comment\n\nload fail\nunload x\nload \"x\nswitch y\n", err,
		      sizeof(err)) == EXIT_NOTFOUND && nr_ran == 2 && !strcmp(err, want),
	   "config: a command's own error names its line; the first error's code");
	stderr_capture();
	fail(EXIT_USAGE, "after");
	ok(!strcmp(stderr_captured(err, sizeof(err)), "cpufreq-bpf: after\n"),
	   "config: no file:line once the file is done");
}

int main(void)
{
	int fd = mkstemp(path);

	if (fd < 0)
		return 1;
	close(fd);
	test_comments();
	test_long_lines();
	test_messages();
	unlink(path);
	return tap_done();
}
