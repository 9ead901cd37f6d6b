// SPDX-License-Identifier: GPL-2.0
/* Error reporting and the small parsers every command shares. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "loader.h"

static bool verbose_on;
static char fail_where[PATH_MAX + 16];	/* "FILE:LINE" */

void set_verbose(bool on)
{
	verbose_on = on;
}

bool verbose(void)
{
	return verbose_on;
}

/*
 * Where the messages of fail() come from until the next call, e.g. a config
 * file's "FILE:LINE", so that whatever a line's command reports names the
 * line; NULL for nowhere in particular.
 */
void fail_context(const char *where)
{
	snprintf(fail_where, sizeof(fail_where), "%s", where ? where : "");
}

/* Prints "cpufreq-bpf: [<context>: ]<message>" as one line and returns @code. */
int fail(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("cpufreq-bpf: ", stderr);
	if (fail_where[0])
		fprintf(stderr, "%s: ", fail_where);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

/*
 * A whole string as an unsigned number: decimal, or hex after "0x".  Never
 * octal: a leading zero changes nothing, "010000" is ten thousand.
 */
int parse_u64(const char *s, __u64 *val)
{
	const char *digits = "0123456789";
	int base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		digits = "0123456789abcdefABCDEF";
		base = 16;
		s += 2;
	}
	/* strtoull() alone would take blanks, a sign, or a second "0x". */
	if (!*s || s[strspn(s, digits)])
		return -EINVAL;
	errno = 0;
	*val = strtoull(s, NULL, base);
	return errno ? -EINVAL : 0;
}

/*
 * Seconds with up to three decimals ("2", "0.5", "1.25") as milliseconds.
 * Decimal only: no sign, exponent or hex, so that "1e3" is refused.
 */
int parse_millis(const char *s, __u64 *ms)
{
	const char *dot = strchr(s, '.');
	char whole[24];
	size_t n = dot ? (size_t)(dot - s) : strlen(s), decimals = 0;
	__u64 sec, frac = 0;

	if (!n || n >= sizeof(whole) || s[strspn(s, "0123456789")] != (dot ? '.' : '\0'))
		return -EINVAL;
	memcpy(whole, s, n);
	whole[n] = '\0';
	if (parse_u64(whole, &sec) || sec > UINT32_MAX)
		return -EINVAL;
	if (dot) {
		decimals = strlen(dot + 1);
		if (!decimals || decimals > 3 || dot[1 + strspn(dot + 1, "0123456789")])
			return -EINVAL;
		frac = strtoull(dot + 1, NULL, 10);
		for (; decimals < 3; decimals++)
			frac *= 10;
	}
	*ms = sec * 1000 + frac;
	return 0;
}

/*
 * access(2) as the process is: with its effective ids and capabilities,
 * which access() drops for the real ids (a user given CAP_DAC_OVERRIDE).
 */
bool can_access(const char *path, int mode)
{
	return !faccessat(AT_FDCWD, path, mode, AT_EACCESS);
}

/* libbpf's text for @err, which knows its own codes (4000 and up) too. */
const char *libbpf_error(int err)
{
	static char buf[128];

	libbpf_strerror(err, buf, sizeof(buf));
	return buf;
}

/* Ids are CPU numbers, which the kernel keeps in an int. */
static int parse_policy_id(const char *s, int *id)
{
	__u64 v;

	if (parse_u64(s, &v) || v > INT_MAX)
		return -EINVAL;
	*id = v;
	return 0;
}

/* "all", or ids and ranges of policy ids: "0", "0,2", "0-3,6". */
int parse_policy_list(const char *s, struct policy_set *set)
{
	char buf[POLICY_LIST_LEN], *tok, *save, *dash;
	struct policy_range *r;

	memset(set, 0, sizeof(*set));
	if (!strcmp(s, "all")) {
		set->all = true;
		return 0;
	}
	if (strlen(s) >= sizeof(buf) || !*s)
		return -EINVAL;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		r = &set->ranges[set->nr++];
		dash = strchr(tok, '-');
		if (dash)
			*dash = '\0';
		if (parse_policy_id(tok, &r->lo))
			return -EINVAL;
		r->hi = r->lo;
		if (dash && parse_policy_id(dash + 1, &r->hi))
			return -EINVAL;
		if (r->hi < r->lo)
			return -EINVAL;
	}
	return set->nr ? 0 : -EINVAL;
}

bool policy_in_set(const struct policy_set *set, int policy)
{
	int i;

	if (set->all)
		return true;
	for (i = 0; i < set->nr; i++)
		if (policy >= set->ranges[i].lo && policy <= set->ranges[i].hi)
			return true;
	return false;
}
