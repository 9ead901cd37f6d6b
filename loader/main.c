// SPDX-License-Identifier: GPL-2.0
/* cpufreq-bpf: the command line; each command's work is in its module. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "loader.h"

#ifndef CPUFREQ_BPF_VERSION
#define CPUFREQ_BPF_VERSION "unknown"
#endif

static const char usage_head[] =
"usage: cpufreq-bpf [-v] [-j|-p] COMMAND [ARGS]\n"
"       cpufreq-bpf COMMAND --help | help [COMMAND] | version\n"
"\n";

static const char usage_tail[] =
"  help [COMMAND]                        every command's synopsis, or one command's\n"
"  version                               the loader's version and libbpf's\n"
"\n"
"-v shows libbpf's messages; -j (--json) prints each command's result as one\n"
"JSON document, -p (--pretty) indented; errors stay one line on stderr.\n"
"NAME is a shipped governor: its object's stem (conservative), the name it\n"
"registers (bpf_conserv) or that name's short form (conserv).  LIST is policy\n"
"ids: 0,2 or 0-3 or all.\n"
"Numbers are decimal, or hex after 0x: 010 is ten.\n"
"Pins live in " PIN_ROOT "/<governor>/.\n"
"Every command but help, version and info needs root and a kernel with the\n"
"cpufreq-bpf series.\n"
"\n"
"exit status: 0 ok, 1 the kernel or system refused, 2 bad usage, field or value,\n"
"3 no such governor, object or policy, 4 not root, 5 governor already loaded,\n"
"6 the kernel lacks the cpufreq-bpf series, BTF or a readable configuration\n";

static int usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A usage error: one line on what was wrong, then where to look. */
static int usage(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return fail(EXIT_USAGE, "%s (see cpufreq-bpf help)", msg);
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_DEBUG || !verbose())
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static const struct option policy_opts[] = {
	{ "policy", required_argument, NULL, 'p' },
	{ "set", required_argument, NULL, 's' },
	{ "json", no_argument, NULL, 'j' },
	{ "watch", no_argument, NULL, 'w' },
	{ "config", required_argument, NULL, 'c' },
	{ "all", no_argument, NULL, 'a' },
	{ "duration", required_argument, NULL, 'd' },
	{ "check", no_argument, NULL, 'k' },
	{ NULL, 0, NULL, 0 },
};

/* A command's options, whichever it takes; the command checks which apply. */
struct cmd_opts {
	struct policy_set policies;
	const char *policy_arg;
	char *sets[64];
	int nr_sets;
	bool json, watch, all, check;
	const char *config;
	__u64 duration;
	char **args;		/* positional arguments */
	int nr_args;
};

static const char *opt_name(int c)
{
	const struct option *o;

	for (o = policy_opts; o->name && o->val != c; o++)
		;
	return o->name ? o->name : "?";
}

/*
 * Parses a command's options, which may come before, between or after its
 * positional arguments ("tune gov a=1 --policy 2"): getopt_long moves the
 * latter to the end.  @accepted lists the short codes the command takes.
 */
static int parse_cmd(int argc, char **argv, const char *accepted, struct cmd_opts *o,
		     int min_args, int max_args)
{
	int c;

	memset(o, 0, sizeof(*o));
	optind = 0;	/* glibc: start afresh, for each line of a config file too */
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", policy_opts, NULL)) != -1) {
		if (c == ':')
			return usage("%s: '%s' needs a value", argv[0], argv[optind - 1]);
		if (c == '?')
			return usage("%s: bad option '%s'", argv[0], argv[optind - 1]);
		if (!strchr(accepted, c))
			return usage("%s does not take --%s", argv[0], opt_name(c));
		switch (c) {
		case 'p':
			o->policy_arg = optarg;
			if (parse_policy_list(optarg, &o->policies))
				return usage("--policy '%s': expected ids like 0,2 or 0-3, or all",
					     optarg);
			break;
		case 's':
			if (o->nr_sets == (int)(sizeof(o->sets) / sizeof(o->sets[0])))
				return usage("too many --set");
			o->sets[o->nr_sets++] = optarg;
			break;
		case 'j': o->json = true; break;	/* as -j before the command */
		case 'w': o->watch = true; break;
		case 'c': o->config = optarg; break;
		case 'a': o->all = true; break;
		case 'k': o->check = true; break;
		case 'd':
			if (parse_u64(optarg, &o->duration) || !o->duration ||
			    o->duration > 24 * 3600)
				return usage("--duration '%s': expected seconds, 1 to 86400", optarg);
			break;
		}
	}
	o->args = argv + optind;
	o->nr_args = argc - optind;
	if (o->nr_args < min_args)
		return usage("%s: missing argument", argv[0]);
	if (max_args >= 0 && o->nr_args > max_args)
		return usage("%s: unexpected '%s'", argv[0], o->args[max_args]);
	return EXIT_OK;
}

/*
 * While boot runs a config file: whether it only checks the lines, and
 * that a load finding its governor loaded applies the line again.
 */
static struct {
	bool running, check;
} boot;

static int cmd_load(int argc, char **argv)
{
	struct cmd_opts o;
	struct load_request req;

	if (parse_cmd(argc, argv, "ps", &o, 1, 1))
		return EXIT_USAGE;
	req.what = o.args[0];
	req.policies = o.policies;
	req.sets = o.sets;
	req.nr_sets = o.nr_sets;
	req.check = boot.check;
	req.reapply = boot.running;
	return gov_load(&req);
}

/* unload --all: in JSON, a list of what unload NAME prints. */
static int cmd_unload(int argc, char **argv)
{
	char names[MAX_POLICIES][GOV_NAME_LEN + 1];
	struct cmd_opts o;
	int n, i, ret = EXIT_OK;

	if (parse_cmd(argc, argv, "a", &o, 0, 1))
		return EXIT_USAGE;
	if (o.all == (o.nr_args == 1))
		return usage("unload: give a NAME or --all");
	if (!o.all)
		return gov_unload(o.args[0]);
	n = pinned_governors(names, MAX_POLICIES);
	if (json_on())
		json_array_start();
	for (i = 0; i < n; i++)
		ret = gov_unload(names[i]) ?: ret;
	if (json_on())
		json_array_end();
	return ret;
}

static int cmd_switch(int argc, char **argv)
{
	struct cmd_opts o;

	if (parse_cmd(argc, argv, "p", &o, 1, 1))
		return EXIT_USAGE;
	if (!o.policy_arg)
		o.policies.all = true;
	return gov_switch(o.args[0], &o.policies, boot.check);
}

static int cmd_upgrade(int argc, char **argv)
{
	struct cmd_opts o;

	if (parse_cmd(argc, argv, "", &o, 2, 2))
		return EXIT_USAGE;
	return gov_upgrade(o.args[0], o.args[1], boot.check);
}

/* The one policy id of --policy, or -1 after reporting why not. */
static int one_policy(const struct cmd_opts *o, const char *cmd)
{
	if (!o->policy_arg || o->policies.all || o->policies.nr != 1 ||
	    o->policies.ranges[0].lo != o->policies.ranges[0].hi) {
		usage("%s: --policy takes one policy id", cmd);
		return -1;
	}
	return o->policies.ranges[0].lo;
}

static int cmd_tune(int argc, char **argv)
{
	struct cmd_opts o;
	int policy = -1;

	if (parse_cmd(argc, argv, "p", &o, 1, -1))
		return EXIT_USAGE;
	if (o.policy_arg) {
		policy = one_policy(&o, "tune");
		if (policy < 0)
			return EXIT_USAGE;
	}
	return gov_tune(o.args[0], o.args + 1, o.nr_args - 1, policy, boot.check);
}

static int cmd_status_args(int argc, char **argv)
{
	struct cmd_opts o;

	if (parse_cmd(argc, argv, "jw", &o, 0, 1))
		return EXIT_USAGE;
	if (o.json && !json_on())
		json_init(stdout, false);
	return cmd_status(o.nr_args ? o.args[0] : NULL, o.watch);
}

static int cmd_list_args(int argc, char **argv)
{
	struct cmd_opts o;

	if (parse_cmd(argc, argv, "", &o, 0, -1))
		return EXIT_USAGE;
	return cmd_list(o.args, o.nr_args);
}

static int cmd_shadow_args(int argc, char **argv)
{
	struct cmd_opts o;
	int policy;

	if (parse_cmd(argc, argv, "pdj", &o, 1, 1))
		return EXIT_USAGE;
	policy = one_policy(&o, "shadow");
	if (policy < 0)
		return EXIT_USAGE;
	if (o.json && !json_on())
		json_init(stdout, false);
	return cmd_shadow(o.args[0], policy, o.duration);
}

static int cmd_info_args(int argc, char **argv)
{
	struct cmd_opts o;

	if (parse_cmd(argc, argv, "", &o, 1, 1))
		return EXIT_USAGE;
	return cmd_info(o.args[0]);
}

static int run_command(int argc, char **argv);

static int cmd_boot(int argc, char **argv)
{
	const char *path;
	struct cmd_opts o;
	int ret;

	if (parse_cmd(argc, argv, "ck", &o, 0, 0))
		return EXIT_USAGE;
	path = o.config ? o.config : DEFAULT_CONFIG;
	boot.running = true;
	boot.check = o.check;
	ret = config_run(path, run_command);
	boot.running = boot.check = false;
	if (!ret && o.check)
		printf("%s: every line is valid\n", path);
	return ret;
}

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;	/* its lines in the help */
} commands[] = {
	{ "list", cmd_list_args,
	  "list [PATH]...                        governors available (shipped and PATHs),\n"
	  "                                        loaded, and per policy\n" },
	{ "load", cmd_load,
	  "load NAME|PATH [--policy LIST|all] [--set FIELD=VALUE]...\n"
	  "                                        register and pin a governor, set tunables,\n"
	  "                                        put policies on it\n" },
	{ "unload", cmd_unload,
	  "unload NAME|--all                     unpin; its policies return to their previous\n"
	  "                                        governors\n" },
	{ "switch", cmd_switch,
	  "switch NAME [--policy LIST|all]       put policies (default all) on a governor,\n"
	  "                                        BPF or in-kernel\n" },
	{ "upgrade", cmd_upgrade,
	  "upgrade NAME PATH                     replace a loaded governor in place, keeping\n"
	  "                                        its tunables by field name\n" },
	{ "tune", cmd_tune,
	  "tune NAME [FIELD[=VALUE]]... [--policy N]\n"
	  "                                        read or write tunables by field name\n" },
	{ "status", cmd_status_args,
	  "status [NAME] [--json] [--watch]      per policy: governor, frequencies, requests,\n"
	  "                                        switch path, errors; per governor: state, exits\n" },
	{ "shadow", cmd_shadow_args,
	  "shadow NAME --policy N [--duration S] [--json]\n"
	  "                                        run a loaded governor in shadow of policy N's\n"
	  "                                        for S seconds (or until Ctrl-C), compare them\n" },
	{ "info", cmd_info_args,
	  "info NAME|PATH                        a governor object's name, ops, flags and\n"
	  "                                        tunables with units, ranges and defaults,\n"
	  "                                        without loading it\n" },
	{ "boot", cmd_boot,
	  "boot [--config FILE] [--check]        run the commands of FILE (" DEFAULT_CONFIG "),\n"
	  "                                        a loaded governor's line again; --check:\n"
	  "                                        only validate each line, change nothing\n" },
};

static const struct command *find_command(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(name, commands[i].name))
			return &commands[i];
	return NULL;
}

/*
 * Runs one command; under -j its JSON document goes out when it succeeds,
 * and is dropped when it fails midway, its error being on stderr.
 */
static int run_command(int argc, char **argv)
{
	const struct command *cmd = find_command(argv[0]);
	int ret;

	if (!cmd)
		return usage("unknown command '%s'", argv[0]);
	ret = cmd->fn(argc, argv);
	json_commit(ret == EXIT_OK);
	return ret;
}

/* help [COMMAND]: every command's lines, or one command's. */
static int cmd_help(const char *name)
{
	const struct command *cmd;
	size_t i;

	if (name) {
		cmd = find_command(name);
		if (!cmd)
			return usage("help: unknown command '%s'", name);
		printf("usage: cpufreq-bpf %s", cmd->usage);
		return EXIT_OK;
	}
	fputs(usage_head, stdout);
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		printf("  %s", commands[i].usage);
	fputs(usage_tail, stdout);
	return EXIT_OK;
}

/* In JSON: {"version", "libbpf"}. */
static int cmd_version(void)
{
	if (!json_on()) {
		printf("cpufreq-bpf %s\nusing libbpf %s\n", CPUFREQ_BPF_VERSION,
		       libbpf_version_string());
		return EXIT_OK;
	}
	json_object_start();
	json_field_str("version", CPUFREQ_BPF_VERSION);
	json_field_str("libbpf", libbpf_version_string());
	json_object_end();
	json_commit(true);
	return EXIT_OK;
}

/* COMMAND --help, or -h: that command's help, wherever the flag stands. */
static bool asks_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return true;
	return false;
}

static bool is_option(const char *arg, const char *short_name, const char *long_name)
{
	return !strcmp(arg, short_name) || !strcmp(arg, long_name);
}

int main(int argc, char **argv)
{
	bool pretty = false;
	int i = 1, ret;

	/* The global options, before the command, as bpftool takes them. */
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (is_option(argv[i], "-h", "--help"))
			return cmd_help(NULL);
		if (is_option(argv[i], "-V", "--version"))
			return cmd_version();
		if (is_option(argv[i], "-v", "--verbose")) {
			set_verbose(true);
			continue;
		}
		if (!is_option(argv[i], "-j", "--json") && !is_option(argv[i], "-p", "--pretty"))
			return usage("unknown option '%s'", argv[i]);
		pretty = pretty || is_option(argv[i], "-p", "--pretty");
		json_init(stdout, pretty);
	}
	if (i == argc)
		return usage("no command");
	if (!strcmp(argv[i], "help")) {
		if (argc - i > 2)
			return usage("help: unexpected '%s'", argv[i + 2]);
		return cmd_help(argv[i + 1]);
	}
	if (!strcmp(argv[i], "version")) {
		if (argc - i > 1)
			return usage("version: unexpected '%s'", argv[i + 1]);
		return cmd_version();
	}
	if (!find_command(argv[i]))
		return usage("unknown command '%s'", argv[i]);
	if (asks_help(argc - i, argv + i))
		return cmd_help(argv[i]);
	libbpf_set_print(libbpf_print);
	/* info only reads an object file: neither root nor the series. */
	if (!strcmp(argv[i], "info"))
		return run_command(argc - i, argv + i);
	if (geteuid() != 0)
		return fail(EXIT_PERM, "%s needs root: run it as root (or with sudo)", argv[i]);
	ret = preflight();
	return ret ?: run_command(argc - i, argv + i);
}
