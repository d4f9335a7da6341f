/* fuzz_bootargs.c - libFuzzer target for kernel/bootargs.c, the parser of
 * the command line a boot loader hands over (/chosen/bootargs): init with
 * any bytes, then every lookup the kernel makes, into buffers of several
 * sizes. Checks what callers rely on: a found value is NUL-terminated inside
 * the buffer, the stored line is shorter than BOOTARGS_MAX. Seeds:
 * tests/fuzz/corpus/bootargs/. The fuzz rule links only lib/ and the pure
 * sched files, so the parser comes in here as source. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../kernel/bootargs.c"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	if (!freopen("/dev/null", "w", stdout)) /* "unknown option" warnings */
		abort();
	return 0;
}

static void lookup(const char *key)
{
	static const size_t sizes[] = { 1, 2, 8, 32, BOOTARGS_MAX };
	char buf[BOOTARGS_MAX + 8];

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		memset(buf, 'x', sizeof(buf));
		if (bootarg_get(key, buf, sizes[i]) && strnlen(buf, sizes[i]) >= sizes[i])
			abort(); /* value not terminated inside the buffer */
		if (buf[sizes[i]] != 'x')
			abort(); /* wrote past the buffer */
	}
	(void)bootarg_has(key);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	char *line = malloc(size + 1), key[64];
	size_t n = 0;

	memcpy(line, data, size);
	line[size] = 0;
	bootargs_init(size && data[0] == 0xff ? NULL : line);
	if (strlen(bootargs_string()) >= BOOTARGS_MAX)
		abort();
	for (int i = 0; known[i]; i++)
		lookup(known[i]);
	/* The input's own first word as a key, and the empty key. */
	while (n < size && n < sizeof(key) - 1 && data[n] && data[n] != ' ' && data[n] != '=') {
		key[n] = (char)data[n];
		n++;
	}
	key[n] = 0;
	lookup(key);
	free(line);
	return 0;
}
