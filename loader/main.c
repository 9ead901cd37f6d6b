// SPDX-License-Identifier: GPL-2.0
/* cpufreq-bpf: the command line; each command's work is in its module. */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/capability.h>
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
"ids: 0,2 or 0-3 or all; --cpu CPUS takes CPU ids in that form instead and\n"
"selects the policies those CPUs belong to.\n"
"Numbers are decimal, or hex after 0x: 010 is ten.\n"
"Pins live in " PIN_ROOT "/<governor>/.\n"
"Every command but list, info, help and version needs root (CAP_BPF,\n"
"CAP_PERFMON and CAP_DAC_OVERRIDE; CAP_SYS_ADMIN stands for the first two);\n"
"every one but info, help and version a kernel with the cpufreq-bpf series.\n"
"Those that pin or read pins mount bpffs on " BPFFS_DIR " when it is not.\n"
"\n"
"exit status: 0 ok, 1 the kernel or system refused, 2 bad usage, field or value,\n"
"3 no such governor, object, policy or CPU, 4 not root (missing capabilities),\n"
"5 governor already loaded, 6 the kernel lacks the cpufreq-bpf series, BTF\n"
"or a readable configuration\n";

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
	{ "cpu", required_argument, NULL, 'u' },
	{ "interval", required_argument, NULL, 'i' },
	{ "check", no_argument, NULL, 'k' },
	{ NULL, 0, NULL, 0 },
};

/* A command's options, whichever it takes; the command checks which apply. */
struct cmd_opts {
	struct policy_set policies;
	const char *policy_arg;
	const char *cpu_arg;	/* --cpu, turned into policies */
	char *sets[64];
	int nr_sets;
	bool json, watch, all, check;
	const char *config;
	__u64 duration;
	__u64 interval_ms;	/* status --watch --interval */
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

static int command_ready(const char *name);

/* --cpu: the policies of those CPUs become the command's --policy. */
static int cpus_to_policies(struct cmd_opts *o)
{
	struct policy_set cpus = o->policies;
	struct policy_info *p;
	int n, cpu, err;

	if (!o->cpu_arg)
		return EXIT_OK;
	n = policies_read(CPUFREQ_DIR, &p);
	if (n < 0)
		return fail(EXIT_FAIL, "cannot read cpufreq policies: %s", strerror(-n));
	err = policies_of_cpus(&cpus, p, n, &o->policies, &cpu);
	free(p);
	if (err == -ENOENT)
		return fail(EXIT_NOTFOUND, "--cpu: CPU %d has no cpufreq policy", cpu);
	if (err)
		return usage("--cpu '%s': more policies than one list holds", o->cpu_arg);
	o->policy_arg = o->cpu_arg;
	return EXIT_OK;
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
		case 'u':
			o->cpu_arg = optarg;
			if (parse_policy_list(optarg, &o->policies))
				return usage("--cpu '%s': expected CPUs like 0,2 or 0-3, or all",
					     optarg);
			break;
		case 'i':
			if (parse_millis(optarg, &o->interval_ms) || o->interval_ms < 100 ||
			    o->interval_ms > 3600 * 1000)
				return usage("--interval '%s': expected seconds, 0.1 to 3600", optarg);
			break;
		}
	}
	o->args = argv + optind;
	o->nr_args = argc - optind;
	if (o->nr_args < min_args)
		return usage("%s: missing argument", argv[0]);
	if (max_args >= 0 && o->nr_args > max_args)
		return usage("%s: unexpected '%s'", argv[0], o->args[max_args]);
	if (o->cpu_arg && o->policy_arg)
		return usage("%s: --cpu and --policy select the same thing: give one", argv[0]);
	if (o->interval_ms && !o->watch)
		return usage("%s: --interval goes with --watch", argv[0]);
	return EXIT_OK;
}

/*
 * What follows a command's own checks of its command line: its privileges
 * and the system it needs, then --cpu turned into policies.
 */
static int ready(struct cmd_opts *o, const char *cmd)
{
	return command_ready(cmd) ?: cpus_to_policies(o);
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
	int ret;

	ret = parse_cmd(argc, argv, "pus", &o, 1, 1) ?: ready(&o, argv[0]);
	if (ret)
		return ret;
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
	int n, i, ret;

	ret = parse_cmd(argc, argv, "a", &o, 0, 1);
	if (ret)
		return ret;
	if (o.all == (o.nr_args == 1))
		return usage("unload: give a NAME or --all");
	ret = ready(&o, argv[0]);
	if (ret)
		return ret;
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
	int ret;

	ret = parse_cmd(argc, argv, "pu", &o, 1, 1) ?: ready(&o, argv[0]);
	if (ret)
		return ret;
	if (!o.policy_arg)
		o.policies.all = true;
	return gov_switch(o.args[0], &o.policies, boot.check);
}

static int cmd_upgrade(int argc, char **argv)
{
	struct cmd_opts o;
	int ret;

	ret = parse_cmd(argc, argv, "", &o, 2, 2) ?: ready(&o, argv[0]);
	if (ret)
		return ret;
	return gov_upgrade(o.args[0], o.args[1], boot.check);
}

/* The one policy id of --policy or --cpu, or -1 after reporting why not. */
static int one_policy(const struct cmd_opts *o, const char *cmd)
{
	if (!o->policy_arg || o->policies.all || o->policies.nr != 1 ||
	    o->policies.ranges[0].lo != o->policies.ranges[0].hi) {
		usage("%s: --policy takes one policy id (--cpu, CPUs of one policy)", cmd);
		return -1;
	}
	return o->policies.ranges[0].lo;
}

/*
 * --policy N or --cpu CPUS of tune and shadow, @required or not, into
 * *@policy (-1 for none).  --policy is checked before the privileges (a
 * usage error is 2 for anyone), --cpu once its CPUs are known.  An exit code.
 */
static int one_policy_ready(struct cmd_opts *o, const char *cmd, bool required, int *policy)
{
	int ret;

	*policy = -1;
	if ((required || o->policy_arg) && !o->cpu_arg && one_policy(o, cmd) < 0)
		return EXIT_USAGE;
	ret = ready(o, cmd);
	if (ret || !o->policy_arg)
		return ret;
	*policy = one_policy(o, cmd);
	return *policy < 0 ? EXIT_USAGE : EXIT_OK;
}

static int cmd_tune(int argc, char **argv)
{
	struct cmd_opts o;
	int policy, ret;

	ret = parse_cmd(argc, argv, "pu", &o, 1, -1) ?:
	      one_policy_ready(&o, argv[0], false, &policy);
	if (ret)
		return ret;
	return gov_tune(o.args[0], o.args + 1, o.nr_args - 1, policy, boot.check);
}

static int cmd_status_args(int argc, char **argv)
{
	struct cmd_opts o;
	int ret;

	ret = parse_cmd(argc, argv, "jwipu", &o, 0, 1) ?: ready(&o, argv[0]);
	if (ret)
		return ret;
	if (o.json && !json_on())
		json_init(stdout, false);
	return cmd_status(o.nr_args ? o.args[0] : NULL, o.policy_arg ? &o.policies : NULL,
			  o.watch ? (o.interval_ms ?: 1000) : 0);
}

static int cmd_list_args(int argc, char **argv)
{
	struct cmd_opts o;
	int ret;

	ret = parse_cmd(argc, argv, "", &o, 0, -1) ?: ready(&o, argv[0]);
	if (ret)
		return ret;
	return cmd_list(o.args, o.nr_args);
}

static int cmd_shadow_args(int argc, char **argv)
{
	struct cmd_opts o;
	int policy, ret;

	ret = parse_cmd(argc, argv, "pudj", &o, 1, 1) ?:
	      one_policy_ready(&o, argv[0], true, &policy);
	if (ret)
		return ret;
	if (o.json && !json_on())
		json_init(stdout, false);
	return cmd_shadow(o.args[0], policy, o.duration);
}

/* info only reads an object file: it needs neither privileges nor the series. */
static int cmd_info_args(int argc, char **argv)
{
	struct cmd_opts o;
	int ret;

	ret = parse_cmd(argc, argv, "", &o, 1, 1);
	if (ret)
		return ret;
	return cmd_info(o.args[0]);
}

static int run_command(int argc, char **argv);

static int cmd_boot(int argc, char **argv)
{
	const char *path;
	struct cmd_opts o;
	int ret;

	ret = parse_cmd(argc, argv, "ck", &o, 0, 0) ?: ready(&o, argv[0]);
	if (ret)
		return ret;
	path = o.config ? o.config : DEFAULT_CONFIG;
	boot.running = true;
	boot.check = o.check;
	ret = config_run(path, run_command);
	boot.running = boot.check = false;
	if (!ret && o.check)
		printf("%s: every line is valid\n", path);
	return ret;
}

/* What a command needs, checked once its command line is parsed. */
enum {
	NEEDS_PRIV = 1,		/* the capabilities of missing_caps() */
	NEEDS_BPFFS = 2,	/* it pins or reads pins: bpffs mounted */
	NEEDS_SERIES = 4,	/* every command: the kernel's support, checked */
};

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	unsigned int needs;
	const char *usage;	/* its lines in the help */
} commands[] = {
	{ "list", cmd_list_args, 0,
	  "list [PATH]...                        governors available (shipped and PATHs),\n"
	  "                                        loaded, and per policy\n" },
	{ "load", cmd_load, NEEDS_PRIV | NEEDS_BPFFS,
	  "load NAME|PATH [--policy LIST|all | --cpu CPUS] [--set FIELD=VALUE]...\n"
	  "                                        register and pin a governor, set tunables,\n"
	  "                                        put policies on it\n" },
	{ "unload", cmd_unload, NEEDS_PRIV | NEEDS_BPFFS,
	  "unload NAME|--all                     unpin; its policies return to their previous\n"
	  "                                        governors\n" },
	{ "switch", cmd_switch, NEEDS_PRIV,
	  "switch NAME [--policy LIST|all | --cpu CPUS]\n"
	  "                                        put policies (default all) on a governor,\n"
	  "                                        BPF or in-kernel\n" },
	{ "upgrade", cmd_upgrade, NEEDS_PRIV | NEEDS_BPFFS,
	  "upgrade NAME PATH                     replace a loaded governor in place, keeping\n"
	  "                                        its tunables by field name\n" },
	{ "tune", cmd_tune, NEEDS_PRIV | NEEDS_BPFFS,
	  "tune NAME [FIELD[=VALUE]]... [--policy N | --cpu CPUS]\n"
	  "                                        read or write tunables by field name\n" },
	{ "status", cmd_status_args, NEEDS_PRIV | NEEDS_BPFFS,
	  "status [NAME] [--policy LIST | --cpu CPUS] [--json] [--watch [--interval S]]\n"
	  "                                        per policy: governor, frequencies, requests,\n"
	  "                                        switch path, errors; per governor: state,\n"
	  "                                        exits; --watch: every S seconds (default 1,\n"
	  "                                        0.1 to 3600), with rates per second\n" },
	{ "shadow", cmd_shadow_args, NEEDS_PRIV | NEEDS_BPFFS,
	  "shadow NAME --policy N|--cpu CPUS [--duration S] [--json]\n"
	  "                                        run a loaded governor in shadow of policy N's\n"
	  "                                        for S seconds (or until Ctrl-C), compare them\n" },
	{ "info", cmd_info_args, 0,
	  "info NAME|PATH                        a governor object's name, ops, flags and\n"
	  "                                        tunables with units, ranges and defaults,\n"
	  "                                        without loading it\n" },
	{ "boot", cmd_boot, NEEDS_PRIV | NEEDS_BPFFS,
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
 * The capabilities privileged commands need, as the kernel checks them:
 * CAP_BPF to load BTF, maps and programs, CAP_PERFMON for struct_ops
 * programs (CAP_SYS_ADMIN stands for both), CAP_DAC_OVERRIDE for the
 * root-owned sysfs, debugfs and bpffs files.  Those missing from the
 * effective set, named in @buf; how many.
 */
static int missing_caps(char *buf, size_t len)
{
	static const struct { int cap; const char *name; } need[] = {
		{ CAP_BPF, "CAP_BPF" },
		{ CAP_PERFMON, "CAP_PERFMON" },
		{ CAP_DAC_OVERRIDE, "CAP_DAC_OVERRIDE" },
	};
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3] = {};
	size_t i, used = 0;
	int n = 0;

	if (syscall(SYS_capget, &hdr, data))
		memset(data, 0, sizeof(data));
#define HAS(cap) (data[CAP_TO_INDEX(cap)].effective & CAP_TO_MASK(cap))
	for (i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		if (HAS(need[i].cap) || (need[i].cap != CAP_DAC_OVERRIDE && HAS(CAP_SYS_ADMIN)))
			continue;
		used += snprintf(buf + used, len - used, "%s%s", n++ ? ", " : "", need[i].name);
		if (used >= len)
			break;
	}
#undef HAS
	return n;
}

/*
 * What command @name needs of the system, each once for the process (boot
 * runs other commands): privileges, the kernel's support, bpffs.  An exit code.
 */
static int command_ready(const char *name)
{
	static unsigned int done;
	unsigned int needs = find_command(name)->needs;
	char caps[128];
	int err;

	if ((needs & NEEDS_PRIV) && !(done & NEEDS_PRIV) && missing_caps(caps, sizeof(caps)))
		return fail(EXIT_PERM, "%s needs %s (run it as root)", name, caps);
	if (!done) {
		err = preflight();
		if (err)
			return err;
	}
	if ((needs & NEEDS_BPFFS) && !(done & NEEDS_BPFFS)) {
		err = bpffs_mount();
		if (err)
			return fail(EXIT_FAIL, "cannot mount bpffs on %s: %s", BPFFS_DIR,
				    strerror(-err));
	}
	done |= needs | NEEDS_SERIES;
	return EXIT_OK;
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
	int i = 1;

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
	return run_command(argc - i, argv + i);
}
