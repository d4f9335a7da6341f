/* strlcpy.c - strlcpy_k, on its own so that host builds (tests/host,
 * tests/fuzz) can link it with libc: lib/string.c's memcpy and friends
 * would collide with libc's. No state. */
#include "kernel.h"

/* Copy with truncation; always terminates when size > 0. */
char *strlcpy_k(char *dst, const char *src, size_t size)
{
	size_t i = 0;

	if (!size)
		return dst;
	for (; i + 1 < size && src[i]; i++)
		dst[i] = src[i];
	dst[i] = '\0';
	return dst;
}
