/* unittests.c - build/host/unittests: `unittests [--dtb FILE]... [SUITES]` runs the KTEST suites
 * (all, or the comma-separated SUITES) and prints KTAP; exit status 1 if any case failed.
 * The suites live in tests/host/test_*.c and in the portable code they link; the runner
 * (tools/runtests.py) judges the output. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host.h"
#include "ktest.h"

const char **host_dtb_files;
int host_nr_dtbs;

void *host_read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		goto fail;
	/* malloc(0) may return NULL; one spare byte keeps an empty file readable. */
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

static void usage(const char *argv0)
{
	fprintf(stderr, "usage: %s [--dtb FILE]... [SUITE[,SUITE]...]\n", argv0);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *filter = NULL;

	/* At most argc/2 files: argv outlives main's callees, so keep pointers into it. */
	host_dtb_files = calloc((size_t)argc, sizeof(*host_dtb_files));
	if (!host_dtb_files)
		return 2;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dtb")) {
			if (++i == argc)
				usage(argv[0]);
			host_dtb_files[host_nr_dtbs++] = argv[i];
		} else if (!strncmp(argv[i], "--dtb=", 6)) {
			host_dtb_files[host_nr_dtbs++] = argv[i] + 6;
		} else if (argv[i][0] == '-' || filter) {
			usage(argv[0]);
		} else {
			filter = argv[i];
		}
	}
	return ktest_run(filter) ? 1 : 0;
}
