/* host_topology.c - build/host/topology FILE.dtb: runs the kernel's own topology
 * parser (kernel/sched/topology.c, topology_print.c) on any DTB and prints the lines the kernel
 * prints at boot ("topology: ..."). Host only. Exit status: 0, 1 when the
 * tree has no usable cpu (the default-cpu lines are still printed), 2 when
 * the file cannot be read or is not a valid DTB. */
#include <stdio.h>
#include <stdlib.h>
#include "dtb.h"
#include "topology.h"

static void *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto fail;
	if (!(buf = malloc(n ? (size_t)n : 1)) || fread(buf, 1, (size_t)n, f) != (size_t)n)
		goto fail;
	fclose(f);
	*size = (size_t)n;
	return buf;
fail:
	perror(path);
	free(buf);
	if (f)
		fclose(f);
	return NULL;
}

int main(int argc, char **argv)
{
	static struct topology topo;
	struct dtb dt;
	size_t size;
	void *blob;
	int err, ret;

	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE.dtb\n", argv[0]);
		return 2;
	}
	if (!(blob = read_file(argv[1], &size)))
		return 2;
	if ((err = dtb_init(&dt, blob, size)) < 0) {
		fprintf(stderr, "%s: not a valid device tree blob: %s\n", argv[1],
			dtb_strerror(err));
		free(blob);
		return 2;
	}
	ret = topology_parse(&dt, &topo);
	topology_print(&topo);
	free(blob);
	return ret < 0 ? 1 : 0;
}
