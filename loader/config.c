// SPDX-License-Identifier: GPL-2.0
/*
 * The boot configuration (/etc/cpufreq-bpf.conf): one loader command per
 * line, without the program name, e.g.
 *
 *	load interactive --policy 2 --set "target_loads=85 1500000:95"
 *	switch performance --policy 0
 *
 * Words are separated by blanks; double quotes keep blanks in a word; '#'
 * starts a comment outside quotes.  Only load, switch, tune and upgrade
 * are accepted there.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "loader.h"

#define MAX_WORDS	64

static const char *const config_commands[] = { "load", "switch", "tune", "upgrade" };

/* Splits @line in place; the number of words, or -EINVAL for an open quote. */
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

/* Runs every line through @run; carries on after a failure, returns the first. */
int config_run(const char *path, int (*run)(int argc, char **argv))
{
	char line[1024], *words[MAX_WORDS + 1];
	int lineno = 0, first = EXIT_OK, n, ret;
	FILE *f = fopen(path, "r");

	if (!f)
		return fail(errno == ENOENT ? EXIT_NOTFOUND : EXIT_FAIL, "%s: %s", path,
			    strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		n = split_words(line, words, MAX_WORDS);
		if (!n)
			continue;
		if (n < 0 || !config_command(words[0])) {
			ret = fail(EXIT_USAGE, "%s:%d: %s", path, lineno,
				   n < 0 ? "unbalanced quotes or too many words" :
				   "only load, switch, tune and upgrade belong here");
		} else {
			words[n] = NULL;
			ret = run(n, words);
		}
		if (ret && !first)
			first = ret;
	}
	fclose(f);
	return first;
}
