// SPDX-License-Identifier: GPL-2.0
/*
 * The pin layout: /sys/fs/bpf/cpufreq/<governor>/ holds "link" and the
 * governor's pinned maps ("tunables", ...).  A governor is built in
 * _tmp-load-<pid>/ (bpffs refuses dots in names) and renamed into place
 * complete, so a directory under its own name is always a whole governor; a
 * temporary directory left by a killed loader is removed by the next command
 * (pin_recover()).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <unistd.h>
#include "loader.h"

#define TMP_PREFIX	"_tmp-"

/*
 * Mounts bpffs on BPFFS_DIR where it is not mounted yet, as bpftool does
 * before it pins: pins elsewhere would be lost with the process, and
 * without bpffs there are none to read.  0, or -errno from statfs() or
 * mount().
 */
int bpffs_mount(void)
{
	struct statfs st;

	if (statfs(BPFFS_DIR, &st))
		return -errno;
	if (st.f_type == BPF_FS_MAGIC)
		return 0;
	if (mount("bpf", BPFFS_DIR, "bpf", 0, "mode=0700"))
		return -errno;
	if (verbose())
		fprintf(stderr, "cpufreq-bpf: mounted bpffs on %s\n", BPFFS_DIR);
	return 0;
}

int pin_dir(const char *governor, char *buf, size_t len)
{
	int n = snprintf(buf, len, PIN_ROOT "/%s", governor);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

bool gov_pinned(const char *governor)
{
	char dir[256], link[300];

	if (pin_dir(governor, dir, sizeof(dir)))
		return false;
	snprintf(link, sizeof(link), "%s/link", dir);
	return can_access(link, F_OK);
}

/*
 * The governor's pinned link is a struct_ops link: what registered it, as
 * the kernel reports it.  False where the pin cannot be read (not root).
 */
bool gov_link_struct_ops(const char *governor)
{
	struct bpf_link_info info = {};
	__u32 len = sizeof(info);
	char dir[256], link[300];
	int fd, err;

	if (pin_dir(governor, dir, sizeof(dir)))
		return false;
	snprintf(link, sizeof(link), "%s/link", dir);
	fd = bpf_obj_get(link);
	if (fd < 0)
		return false;
	err = bpf_link_get_info_by_fd(fd, &info, &len);
	close(fd);
	return !err && info.type == BPF_LINK_TYPE_STRUCT_OPS;
}

/* Byte offset of member @member of struct type @id, or -1. */
static int member_offset(const struct btf *btf, __u32 id, const char *member, __u32 *type)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m = btf_members(t);
	int i;

	for (i = 0; i < btf_vlen(t); i++, m++) {
		if (strcmp(btf__name_by_offset(btf, m->name_off), member))
			continue;
		*type = m->type;
		return btf_member_bit_offset(t, i) / 8;
	}
	return -1;
}

/*
 * Where a cpufreq_gov_ops struct_ops map's value (the kernel's struct
 * bpf_struct_ops_cpufreq_gov_ops) holds the governor's name, and that
 * value's BTF id in vmlinux; -1 where the kernel's BTF does not say.
 */
static int ops_name_offset(__u32 *value_id)
{
	static int offset = -2;
	static __u32 id;
	struct btf *vmlinux;
	int data, name, vid;
	__u32 type;

	if (offset == -2) {
		offset = -1;
		vmlinux = btf__load_vmlinux_btf();
		vid = vmlinux ? btf__find_by_name_kind(vmlinux, "bpf_struct_ops_cpufreq_gov_ops",
						       BTF_KIND_STRUCT) : -1;
		data = vid > 0 ? member_offset(vmlinux, vid, "data", &type) : -1;
		name = data >= 0 ? member_offset(vmlinux, type, "name", &type) : -1;
		if (name >= 0) {
			id = vid;
			offset = data + name;
		}
		btf__free(vmlinux);
	}
	*value_id = id;
	return offset;
}

/* Whether the struct_ops map @fd is a cpufreq governor named @name. */
static bool map_registers(int fd, const char *name, __u32 value_id, int offset)
{
	struct bpf_map_info info = {};
	__u32 len = sizeof(info), key = 0;
	bool found = false;
	char *value;

	if (bpf_map_get_info_by_fd(fd, &info, &len) || info.type != BPF_MAP_TYPE_STRUCT_OPS ||
	    info.btf_vmlinux_value_type_id != value_id ||
	    info.value_size < (__u32)offset + GOV_NAME_LEN)
		return false;
	value = calloc(1, info.value_size);
	if (value && !bpf_map_lookup_elem(fd, &key, value))
		found = !strncmp(value + offset, name, GOV_NAME_LEN);
	free(value);
	return found;
}

/* Whether the process may walk the kernel's maps (CAP_SYS_ADMIN). */
bool struct_ops_walkable(void)
{
	__u32 id;

	return !bpf_map_get_next_id(0, &id) || errno == ENOENT;
}

/*
 * Whether a cpufreq_gov_ops struct_ops map in the kernel registers @name:
 * the BPF side of a governor that another tool registered, as the kernel
 * shows it without debugfs.  Walking the maps needs CAP_SYS_ADMIN.
 */
bool struct_ops_registers(const char *name)
{
	__u32 id = 0, value_id;
	int offset = ops_name_offset(&value_id), fd;
	bool found = false;

	while (offset >= 0 && !found && !bpf_map_get_next_id(id, &id)) {
		fd = bpf_map_get_fd_by_id(id);
		if (fd < 0)
			continue;
		found = map_registers(fd, name, value_id, offset);
		close(fd);
	}
	return found;
}

/*
 * Creates the root and takes the loader's lock on it, held until exit:
 * commands that change pins do not interleave.
 */
int pin_root_prepare(void)
{
	static int lock_fd = -1;

	if (lock_fd >= 0)
		return 0;
	if (mkdir(PIN_ROOT, 0700) && errno != EEXIST)
		return -errno;
	lock_fd = open(PIN_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (lock_fd < 0)
		return -errno;
	if (flock(lock_fd, LOCK_EX))
		return -errno;
	return 0;
}

/* The _tmp-<what>-<pid> directory to build pins in; created by pin_tmp_create(). */
int pin_tmp_dir(const char *what, char *buf, size_t len)
{
	int n = snprintf(buf, len, PIN_ROOT "/" TMP_PREFIX "%s-%d", what, (int)getpid());

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Takes the lock, clears what dead loaders left, creates @tmp. */
int pin_tmp_create(const char *tmp)
{
	int err = pin_root_prepare();

	if (err)
		return err;
	pin_recover();
	if (mkdir(tmp, 0700) && errno != EEXIST)
		return -errno;
	return 0;
}

/* Unpins everything in @dir, then removes it; a missing @dir is fine. */
int pin_dir_remove(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];
	int err = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (unlink(path) && !err)
			err = -errno;
	}
	closedir(d);
	if (rmdir(dir) && !err)
		err = -errno;
	return err;
}

/* Renames a complete temporary directory into place, never over another. */
int pin_dir_publish(const char *tmp, const char *governor)
{
	char dir[256];
	int err = pin_dir(governor, dir, sizeof(dir));

	if (err)
		return err;
	return renameat2(AT_FDCWD, tmp, AT_FDCWD, dir, RENAME_NOREPLACE) ? -errno : 0;
}

/* Pins are the owner's alone: files 0600, the directory 0700. */
void pin_restrict(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[512];

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		chmod(path, 0600);
	}
	closedir(d);
	chmod(dir, 0700);
}

/* Governors the loader pinned, by directory name. */
int pinned_governors(char names[][GOV_NAME_LEN + 1], int max)
{
	DIR *d = opendir(PIN_ROOT);
	struct dirent *e;
	int n = 0;

	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((e = readdir(d)) && n < max) {
		/* Files here are links bpftool pinned, not the loader's. */
		if (e->d_type != DT_DIR || e->d_name[0] == '.' ||
		    !strncmp(e->d_name, TMP_PREFIX, strlen(TMP_PREFIX)) ||
		    strlen(e->d_name) > GOV_NAME_LEN)
			continue;
		snprintf(names[n++], GOV_NAME_LEN + 1, "%s", e->d_name);
	}
	closedir(d);
	return n;
}

/* Removes what loaders that died mid-load left behind. */
void pin_recover(void)
{
	DIR *d = opendir(PIN_ROOT);
	struct dirent *e;
	char path[512];
	const char *dash;
	int pid;

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, TMP_PREFIX, strlen(TMP_PREFIX)))
			continue;
		dash = strrchr(e->d_name, '-');
		pid = dash ? atoi(dash + 1) : 0;
		if (pid > 0 && (pid == getpid() || !kill(pid, 0) || errno != ESRCH))
			continue;
		snprintf(path, sizeof(path), PIN_ROOT "/%s", e->d_name);
		pin_dir_remove(path);
	}
	closedir(d);
}
