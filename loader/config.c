// SPDX-License-Identifier: GPL-2.0
/*
 * The boot configuration (/etc/cpufreq-bpf.conf): one loader command per
 * line, without the program name, e.g.
 *
 *	load interactive --policy 2 --set "target_loads=85 1500000:95"
 *	switch performance --policy 0
 *
 * Words are separated by blanks; double quotes keep blanks in a word; '#'
 * starts a comment where a word would start (so "--set x=a#b" keeps a#b).
 * Only load, switch, tune and upgrade are accepted there.  A line longer
 * than CONFIG_LINE_MAX is refused whole: none of it runs.  Whatever a
 * line's command reports is prefixed with "FILE:LINE: ".
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include "loader.h"

#define MAX_WORDS	64

static const char *const config_commands[] = { "load", "switch", "tune", "upgrade" };

/*
 * Splits @line in place; the number of words, -EINVAL for an open quote or
 * -E2BIG for more than @max words.  A '#' only starts a comment in place of
 * a word: inside one, or in quotes, it is a character like any other.
 */
int split_words(char *line, char **words, int max)
{
	char *in = line, *out = line;
	int n = 0;

	for (;;) {
		bool quoted = false;

		while (*in == ' ' || *in == '\t' || *in == '\n')
			in++;
		if (!*in || *in == '#')
			return n;
		if (n == max)
			return -E2BIG;
		words[n++] = out;
		for (; *in && (quoted || (*in != ' ' && *in != '\t' && *in != '\n')); in++) {
			if (*in == '"')
				quoted = !quoted;
			else
				*out++ = *in;
		}
		if (quoted)
			return -EINVAL;
		if (*in)
			in++;
		*out++ = '\0';
	}
}

static bool config_command(const char *word)
{
	size_t i;

	for (i = 0; i < sizeof(config_commands) / sizeof(config_commands[0]); i++)
		if (!strcmp(word, config_commands[i]))
			return true;
	return false;
}

/*
 * The next line of @f into @buf (CONFIG_LINE_MAX + 2 bytes), without its
 * newline: 0, EOF, or -E2BIG for a longer line, whose rest is skipped.
 */
static int read_line(FILE *f, char *buf)
{
	size_t len;
	int c;

	if (!fgets(buf, CONFIG_LINE_MAX + 2, f))
		return EOF;
	len = strlen(buf);
	if (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (len <= CONFIG_LINE_MAX)
		return 0;
	while ((c = getc(f)) != EOF && c != '\n')
		;
	return -E2BIG;
}

/* One line's words through @run, or why they cannot go there. */
static int run_line(char *line, int (*run)(int argc, char **argv))
{
	char *words[MAX_WORDS + 1];
	int n = split_words(line, words, MAX_WORDS);

	if (n == -EINVAL)
		return fail(EXIT_USAGE, "unbalanced quotes");
	if (n < 0)
		return fail(EXIT_USAGE, "more than %d words", MAX_WORDS);
	if (!n)
		return EXIT_OK;
	if (!config_command(words[0]))
		return fail(EXIT_USAGE, "only load, switch, tune and upgrade belong here");
	words[n] = NULL;
	return run(n, words);
}

/*
 * Runs every line through @run, its messages prefixed with "FILE:LINE";
 * carries on after a failure, returns the first.
 */
int config_run(const char *path, int (*run)(int argc, char **argv))
{
	char line[CONFIG_LINE_MAX + 2], where[PATH_MAX + 16];
	int lineno = 0, first = EXIT_OK, err, ret;
	FILE *f = fopen(path, "r");

	if (!f)
		return fail(errno == ENOENT ? EXIT_NOTFOUND : EXIT_FAIL, "%s: %s", path,
			    strerror(errno));
	while ((err = read_line(f, line)) != EOF) {
		snprintf(where, sizeof(where), "%s:%d", path, ++lineno);
		fail_context(where);
		ret = err ? fail(EXIT_USAGE, "line longer than %d bytes", CONFIG_LINE_MAX) :
			    run_line(line, run);
		fail_context(NULL);
		if (ret && !first)
			first = ret;
	}
	fclose(f);
	return first;
}
