// SPDX-License-Identifier: GPL-2.0
/*
 * Host unit tests on what a crafted or wrong file gives the loader: BTF
 * with a tunables array of millions, files that are no BPF object.  The
 * tests make these themselves; they need no build.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "loader.h"
#include "tap.h"

#define HUGE_NELEMS	2000000

/* struct huge_tunables { __u32 rate; __u32 big[HUGE_NELEMS]; } */
static struct btf *huge_btf(__u32 *struct_id)
{
	struct btf *btf = btf__new_empty();
	int u32_id, array_id, id;

	if (!btf)
		return NULL;
	u32_id = btf__add_int(btf, "unsigned int", 4, 0);
	array_id = btf__add_array(btf, u32_id, u32_id, HUGE_NELEMS);
	id = btf__add_struct(btf, "huge_tunables", 4 + 4 * HUGE_NELEMS);
	if (u32_id < 0 || array_id < 0 || id < 0 || btf__add_field(btf, "rate", u32_id, 0, 0) ||
	    btf__add_field(btf, "big", array_id, 32, 0)) {
		btf__free(btf);
		return NULL;
	}
	*struct_id = id;
	return btf;
}

static void test_huge_array(void)
{
	__u32 id, *value = NULL;
	struct btf *btf = huge_btf(&id);
	const struct field *big;
	struct layout l = {};
	char buf[64];

	ok(btf && !layout_from_btf(btf, id, &l) && l.nr_fields == 2,
	   "huge array: layout read from BTF");
	big = layout_field(&l, "big");
	ok(big && big->nelems == HUGE_NELEMS && big->offset == 4, "huge array: %u elements",
	   big ? big->nelems : 0);
	if (big)
		value = calloc(1, l.value_size);
	if (value) {
		ok(!parse_assignment(&l, "big=7,8", value) && value[1] == 7 && value[2] == 8 &&
		   !value[3], "huge array: assigned without crashing");
		ok(!field_format(big, value, buf, sizeof(buf)) && !strcmp(buf, "7,8"),
		   "huge array: formatted");
	}
	free(value);
	layout_free(&l);
	btf__free(btf);
}

static bool one_line(const char *msg)
{
	const char *nl = strchr(msg, '\n');

	return nl && !nl[1];
}

/* gov_object_open() on a file of @text; its exit code and its message. */
static int open_file(const char *text, size_t len, char *msg, size_t msg_len)
{
	char path[] = "/tmp/cpufreq-bpf-crafted-XXXXXX.o";
	struct gov_object go;
	int fd = mkstemps(path, 2), ret;

	if (fd < 0 || write(fd, text, len) != (ssize_t)len)
		return -1;
	close(fd);
	stderr_capture();
	ret = gov_object_open(path, NULL, &go);
	stderr_captured(msg, msg_len);
	if (!ret)
		gov_object_close(&go);
	unlink(path);
	return ret;
}

/* libbpf's codes (4000 and up) are told in its words, not as unknown. */
static void test_not_bpf(void)
{
	char msg[512], want[128] = "not a BPF object: ";
	const char elf_header[] = "\177ELF\2\1\1";

	libbpf_strerror(LIBBPF_ERRNO__FORMAT, want + strlen(want), sizeof(want) - strlen(want));
	ok(open_file("hello\n", 6, msg, sizeof(msg)) == EXIT_USAGE && strstr(msg, want) &&
	   !strstr(msg, "Unknown error") && one_line(msg),
	   "a text file: '%s'", want);
	ok(open_file(elf_header, sizeof(elf_header), msg, sizeof(msg)) == EXIT_USAGE &&
	   strstr(msg, "not a BPF object: ") && !strstr(msg, "Unknown error"),
	   "a truncated ELF file: libbpf's words");
	ok(!strcmp(libbpf_error(-ENOENT), strerror(ENOENT)), "errno values as strerror()");
}

int main(void)
{
	libbpf_set_print(NULL);
	test_huge_array();
	test_not_bpf();
	return tap_done();
}
