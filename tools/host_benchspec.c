/* host_benchspec.c - build/host/benchspec bench|experiment SPEC: the kernel's own check of
 * a benchmark or experiment spec (kernel/bench/bench_spec.c, what the shell's `run` asks),
 * run by `make bench`, `make profile` and `make experiment` before they boot, so that a
 * bad spec is refused with the list of what is valid instead of a boot that does nothing.
 * A bench spec may be a list "a;b" (each checked). Host only. Exit status: 0 valid, 1 not,
 * 2 bad usage. */
#include <stdio.h>
#include <string.h>
#include "bench.h"

int main(int argc, char **argv)
{
	bool exp = argc == 3 && !strcmp(argv[1], "experiment");
	char spec[256];

	if (argc != 3 || (!exp && strcmp(argv[1], "bench"))) {
		fprintf(stderr, "usage: %s bench|experiment SPEC\n", argv[0]);
		return 2;
	}
	if (strlen(argv[2]) >= sizeof(spec)) {
		printf("%s: \"%s\" is too long\n", argv[1], argv[2]);
		return 1;
	}
	strcpy(spec, argv[2]);
	for (char *p = spec, *semi; p; p = semi ? semi + 1 : NULL) {
		semi = exp ? NULL : strchr(p, ';');
		if (semi)
			*semi = '\0';
		if (!*p || bench_check_spec(p, exp)) {
			if (!*p)
				printf("%s: an empty spec\n", argv[1]);
			printf("refused before booting; what is valid:\n");
			bench_print_help();
			return 1;
		}
	}
	return 0;
}
