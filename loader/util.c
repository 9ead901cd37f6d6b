// SPDX-License-Identifier: GPL-2.0
/* Error reporting and the small parsers every command shares. */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "loader.h"

static bool verbose_on;

void set_verbose(bool on)
{
	verbose_on = on;
}

bool verbose(void)
{
	return verbose_on;
}

/* Prints "cpufreq-bpf: <message>" as one line and returns @code. */
int fail(int code, const char *fmt, ...)
{
	va_list ap;

	fputs("cpufreq-bpf: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return code;
}

/* A whole string as an unsigned decimal or 0x-hex number. */
int parse_u64(const char *s, __u64 *val)
{
	char *end;

	if (!*s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*val = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	return 0;
}

static int parse_policy_id(const char *s, int *id)
{
	__u64 v;

	if (parse_u64(s, &v) || v >= MAX_POLICIES)
		return -EINVAL;
	*id = v;
	return 0;
}

/* "all", or ids and ranges of policy ids: "0", "0,2", "0-3,6". */
int parse_policy_list(const char *s, struct policy_set *set)
{
	char buf[256], *tok, *save, *dash;
	int lo, hi;

	memset(set, 0, sizeof(*set));
	if (!strcmp(s, "all")) {
		set->all = true;
		return 0;
	}
	if (strlen(s) >= sizeof(buf) || !*s)
		return -EINVAL;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		dash = strchr(tok, '-');
		if (dash)
			*dash = '\0';
		if (parse_policy_id(tok, &lo))
			return -EINVAL;
		hi = lo;
		if (dash && parse_policy_id(dash + 1, &hi))
			return -EINVAL;
		if (hi < lo)
			return -EINVAL;
		for (; lo <= hi; lo++)
			set->mask |= 1ULL << lo;
	}
	return set->mask ? 0 : -EINVAL;
}

bool policy_in_set(const struct policy_set *set, int policy)
{
	if (set->all)
		return true;
	return policy >= 0 && policy < MAX_POLICIES && (set->mask >> policy) & 1;
}
