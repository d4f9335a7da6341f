/* string.c - the freestanding string and memory functions the kernel (and
 * gcc's generated calls) need. Only aligned accesses: they run with the MMU off too,
 * where unaligned or exclusive accesses would fault. Not used by host tests
 * (libc has them); strlcpy_k, which libc lacks, is lib/strlcpy.c. */
#include "kernel.h"

/* Word types that may alias anything (memcpy copies whatever the caller's types are). */
typedef u64 __attribute__((may_alias)) u64_alias;
typedef u32 __attribute__((may_alias)) u32_alias;

/* Bytes up to the alignment d and s share, then 16 bytes a turn in words of it (two of 8,
 * or four of 4: a pipe's 100-byte messages leave its ring 4-aligned every other time),
 * then 4-byte words, then bytes. */
void *memcpy(void *dst, const void *src, size_t n)
{
	u8 *d = dst;
	const u8 *s = src;
	uintptr_t apart = (uintptr_t)d ^ (uintptr_t)s;

	if (n >= 8 && !(apart & 3)) {
		for (; (uintptr_t)d & 3; n--)
			*d++ = *s++;
		if (!(apart & 7) && ((uintptr_t)d & 4) && n >= 4) {
			*(u32_alias *)d = *(const u32_alias *)s;
			d += 4, s += 4, n -= 4;
		}
		for (; n >= 16 && !(apart & 7); n -= 16, d += 16, s += 16) {
			u64 a = ((const u64_alias *)s)[0], b = ((const u64_alias *)s)[1];

			((u64_alias *)d)[0] = a;
			((u64_alias *)d)[1] = b;
		}
		for (; n >= 16; n -= 16, d += 16, s += 16) {
			u32 a = ((const u32_alias *)s)[0], b = ((const u32_alias *)s)[1];
			u32 c = ((const u32_alias *)s)[2], e = ((const u32_alias *)s)[3];

			((u32_alias *)d)[0] = a;
			((u32_alias *)d)[1] = b;
			((u32_alias *)d)[2] = c;
			((u32_alias *)d)[3] = e;
		}
		for (; n >= 4; n -= 4, d += 4, s += 4)
			*(u32_alias *)d = *(const u32_alias *)s;
	}
	while (n--)
		*d++ = *s++;
	return dst;
}

void *memmove(void *dst, const void *src, size_t n)
{
	u8 *d = dst;
	const u8 *s = src;

	if (d <= s || d >= s + n)
		return memcpy(dst, src, n);
	while (n--)
		d[n] = s[n];
	return dst;
}

void *memset(void *dst, int c, size_t n)
{
	u8 *d = dst;

	if (((uintptr_t)d & 7) == 0) {
		u64 v = (u8)c * 0x0101010101010101ull;

		for (; n >= 8; n -= 8, d += 8)
			*(u64 *)d = v;
	}
	while (n--)
		*d++ = (u8)c;
	return dst;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const u8 *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x - *y;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

size_t strnlen(const char *s, size_t max)
{
	size_t n = 0;

	while (n < max && s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return (u8)*a - (u8)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (u8)*a - (u8)*b;
		if (!*a)
			return 0;
	}
	return 0;
}
