// SPDX-License-Identifier: GPL-2.0
/*
 * link_update LINK OBJ: replace the struct_ops map behind a pinned link with
 * the one in OBJ (BPF_LINK_UPDATE), as an in-place governor upgrade does.
 *
 * libbpf fills a struct_ops map's kernel value only when it attaches it.
 * Attaching the new map under the governor's name fails with EEXIST while
 * the old one is registered, but only after its value is set, which is all
 * BPF_LINK_UPDATE needs.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

int main(int argc, char **argv)
{
	struct bpf_object *obj;
	struct bpf_link *probe;
	struct bpf_map *map;
	int link_fd, err;

	if (argc != 3) {
		fprintf(stderr, "usage: link_update LINK OBJ\n");
		return 2;
	}
	link_fd = bpf_obj_get(argv[1]);
	if (link_fd < 0) {
		fprintf(stderr, "link_update: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	obj = bpf_object__open_file(argv[2], NULL);
	if (!obj || bpf_object__load(obj)) {
		fprintf(stderr, "link_update: cannot load %s\n", argv[2]);
		return 1;
	}
	bpf_object__for_each_map(map, obj)
		if (bpf_map__type(map) == BPF_MAP_TYPE_STRUCT_OPS)
			break;
	if (!map) {
		fprintf(stderr, "link_update: %s has no struct_ops map\n", argv[2]);
		return 1;
	}

	probe = bpf_map__attach_struct_ops(map);
	if (probe) {
		/* Nothing of that name was registered: not an upgrade. */
		bpf_link__destroy(probe);
		fprintf(stderr, "link_update: %s is not loaded\n", bpf_map__name(map));
		return 1;
	}
	if (errno != EEXIST) {
		fprintf(stderr, "link_update: %s: %s\n", bpf_map__name(map), strerror(errno));
		return 1;
	}
	err = bpf_link_update(link_fd, bpf_map__fd(map), NULL);
	if (err) {
		fprintf(stderr, "link_update: BPF_LINK_UPDATE: %s\n", strerror(-err));
		return 1;
	}
	bpf_object__close(obj);
	return 0;
}
