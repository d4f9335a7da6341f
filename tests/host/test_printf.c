/* test_printf.c - lib/printf.c against the C library's snprintf: the same formats and values,
 * the same text and return value, at every buffer size that can truncate the output.
 * Only formats printk.h promises are compared; our documented differences (NULL %p, unknown
 * conversions) have their own expectations. */
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include "ktest.h"
#include "printk.h"

/* Bytes past the NUL must stay untouched: fill with a canary and check it survives. */
#define CANARY 0x5a

/* Formats with vsnprintf and with kvsnprintf at every size that truncates differently, and
 * compares text, return value and untouched tail. Variadic so that gcc checks the format
 * against the arguments once, with printf rules, for both. */
static void __attribute__((format(printf, 3, 4)))
cmp(struct ktest *t, int line, const char *fmt, ...)
{
	char want[300], buf[300];
	va_list ap, aq;
	int wlen, n;

	va_start(ap, fmt);
	va_copy(aq, ap);
	wlen = vsnprintf(want, sizeof(want), fmt, aq);
	va_end(aq);

	size_t sizes[] = {
		0, 1, 2, 3, (size_t)wlen / 2, (size_t)wlen, (size_t)wlen + 1, sizeof(buf) - 8
	};
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		size_t size = sizes[i], stored = size ? MIN((size_t)wlen, size - 1) : 0;

		memset(buf, CANARY, sizeof(buf));
		va_copy(aq, ap);
		n = kvsnprintf(buf, size, fmt, aq);
		va_end(aq);
		if (n != wlen)
			ktest_fail(t, __FILE__, line, "\"%s\" returned %d, libc %d", fmt, n, wlen);
		if (size && (memcmp(buf, want, stored) || buf[stored] != '\0'))
			ktest_fail(t, __FILE__, line, "\"%s\" (size %zu): \"%.*s\" vs \"%s\"", fmt,
				   size, (int)stored, buf, want);
		/* Nothing written at or past size (the NUL sits at size - 1 at most). */
		for (size_t j = size; j < sizeof(buf); j++) {
			if ((unsigned char)buf[j] != CANARY) {
				ktest_fail(t, __FILE__, line, "\"%s\": wrote byte %zu of size %zu",
					   fmt, j, size);
				break;
			}
		}
	}
	va_end(ap);
}

#define CMP(t, ...) cmp(t, __LINE__, __VA_ARGS__)

static void printf_integers(struct ktest *t)
{
	CMP(t, "plain text");
	CMP(t, "%d %i %d %d", 0, 42, -42, INT_MAX);
	CMP(t, "%d", INT_MIN);
	CMP(t, "%u %u", 0u, UINT_MAX);
	CMP(t, "%x %X %x", 0xdeadbeefu, 0xdeadbeefu, 0u);
	CMP(t, "%o %o", 8u, 0777u);
	CMP(t, "%x", -1);
	CMP(t, "%ld %lu %lx", LONG_MIN, ULONG_MAX, 0x123456789abcdefUL);
	CMP(t, "%lld %llu %llx %llX", LLONG_MIN, ULLONG_MAX, 0xfedcba9876543210ULL,
	    0xfedcba9876543210ULL);
	CMP(t, "%lld", LLONG_MAX);
	CMP(t, "%#x %#llx %#010x %#X %#x %-#8x|", 255u, 0x123456789abcULL, 0xbeefu, 0xabcu, 0u,
	    17u);
	CMP(t, "%zu %zx %zd", (size_t)12345, (size_t)0xabc, (ssize_t)-7);
	CMP(t, "%llo", ULLONG_MAX);
	CMP(t, "%td", (ptrdiff_t)-99);
}

static void printf_width_flags(struct ktest *t)
{
	CMP(t, "[%5d] [%-5d] [%05d]", 42, 42, 42);
	CMP(t, "[%5d] [%05d] [%-6d]", -42, -42, -42);
	CMP(t, "[%08x] [%8X] [%-8x]", 0xbeefu, 0xbeefu, 0xbeefu);
	CMP(t, "[%016llx]", 0x1234ULL);
	CMP(t, "[%2d] [%02d]", 12345, 12345);
	CMP(t, "[%*d] [%-*d] [%*d]", 6, 7, 6, 7, -6, 7);
	CMP(t, "[%.3d] [%5.3d] [%-5.3d]", 7, 7, 7);
	CMP(t, "[%.0d] [%.0u] [%5.0x] [%.0d]", 0, 0u, 0u, 1);
	CMP(t, "[%.*d]", 4, -3);
	CMP(t, "[%c] [%3c] [%-3c]", 'a', 'b', 'c');
	CMP(t, "100%%");
	CMP(t, "%d%%", 50);
}

/* Legal C that gcc's format checker frowns on; the library still defines the result. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-zero-length"
static void printf_flag_quirks(struct ktest *t)
{
	CMP(t, "");
	CMP(t, "[%-05d] [%-0*d]", 42, 5, 3);		     /* '-' wins over '0' */
	CMP(t, "[%05.3d] [%08.0x]", 7, 0u);		     /* a precision turns '0' off */
	CMP(t, "[%00005d] [%-0-4d]", 3, 4);		     /* repeated flags */
	CMP(t, "%hhd %hhu %hd %hu", 300, 300, 70000, 70000); /* narrowed back; clang frowns */
}
#pragma GCC diagnostic pop

static void printf_strings(struct ktest *t)
{
	const char *longer = "a fairly long string that is longer than some buffers";

	CMP(t, "[%s] [%10s] [%-10s]", "abc", "abc", "abc");
	CMP(t, "[%.2s] [%5.2s] [%-5.2s] [%.0s] [%.10s]", "abc", "abc", "abc", "abc", "abc");
	CMP(t, "[%.*s] [%*s]", 3, "abcdef", -6, "ab");
	CMP(t, "%s|%s", longer, longer);
	CMP(t, "%s", "");
	CMP(t, "[%*s]", 0, "");
	CMP(t, "%c%c%c", 'x', 'y', 'z');
	CMP(t, "%s=%d (%s)", "answer", 42, "ok");
}

static void printf_pointers_and_quirks(struct ktest *t)
{
	int x;
	void *p = &x;
	char buf[64], want[64];
	const char *volatile null = NULL; /* hidden from the format checker */
	char unterminated[3] = { 'a', 'b', 'c' };

	CMP(t, "%p", p);
	CMP(t, "[%20p] [%-20p]", p, p);
	CMP(t, "%p", (void *)0x1000);

	/* Documented choices where C leaves it to the library (or undefined). */
	EXPECT_EQ(t, ksnprintf(buf, sizeof(buf), "%p", NULL), 6);
	EXPECT_STREQ(t, buf, "(null)");
	EXPECT_EQ(t, ksnprintf(buf, sizeof(buf), "%s|%3.2s", null, null), 10);
	EXPECT_STREQ(t, buf, "(null)| (n");

	/* A precision bounds the read: a name with a length needs no NUL. */
	EXPECT_EQ(t, ksnprintf(buf, sizeof(buf), "%.*s!", 3, unterminated), 4);
	EXPECT_STREQ(t, buf, "abc!");

	/* Unknown conversions and a trailing '%' are copied out as they are. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
#pragma GCC diagnostic ignored "-Wformat-extra-args"
	EXPECT_EQ(t, ksnprintf(buf, sizeof(buf), "a%qb %-5y c"), 11);
	EXPECT_STREQ(t, buf, "a%qb %-5y c");
	EXPECT_EQ(t, ksnprintf(buf, sizeof(buf), "end%"), 4);
	EXPECT_STREQ(t, buf, "end%");
#pragma GCC diagnostic pop

	/* size 0 writes nothing at all, even with buf NULL, and still returns the length. */
	EXPECT_EQ(t, ksnprintf(NULL, 0, "%d-%s", 12345, "xyz"), 9);

	/* A %c of NUL is a character like any other: it is counted and stored. */
	memset(buf, 'z', sizeof(buf));
	EXPECT_EQ(t, ksnprintf(buf, sizeof(buf), "a%cb", 0), 3);
	EXPECT_TRUE(t, buf[0] == 'a' && buf[1] == 0 && buf[2] == 'b' && buf[3] == 0);

	snprintf(want, sizeof(want), "%d", 1);
	EXPECT_EQ(t, ksnprintf(buf, sizeof(buf), "%d", 1), 1);
	EXPECT_STREQ(t, buf, want);
}

KTEST_SUITE(printf, KTEST_CASE(printf_integers), KTEST_CASE(printf_width_flags),
	    KTEST_CASE(printf_flag_quirks), KTEST_CASE(printf_strings),
	    KTEST_CASE(printf_pointers_and_quirks));
