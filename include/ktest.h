/* ktest.h - the one test vocabulary of host unit tests and in-kernel
 * self-tests (docs/style.md habit 9). Output is KTAP version 1, as KUnit prints it.
 * EXPECT_* records a failure and continues; ASSERT_* also ends the case.
 * Suites register themselves in the "ktest_suites" section and are run by
 * kernel/ktest.c, both in the kernel and in build/host/unittests. */
#ifndef KTEST_H
#define KTEST_H

#include "types.h"

struct ktest {
	const char *suite;
	const char *name;
	int failed;	  /* number of failed expectations */
	const char *skip; /* non-NULL: the case was skipped, with this reason */
};

struct ktest_case {
	const char *name;
	void (*run)(struct ktest *t);
};

struct ktest_suite {
	const char *name;
	const struct ktest_case *cases;
	size_t nr_cases;
	bool by_name_only; /* not part of "selftest" (all): run when named */
};

/* clang-format 14 breaks `{ #fn, fn }` and a `return` argument. */
/* clang-format off */
#define KTEST_CASE(fn) { #fn, fn }

/* KTEST_SUITE(boot, KTEST_CASE(a), KTEST_CASE(b)) defines and registers suite "boot". */
#define KTEST_SUITE(sname, ...)                                                            \
	static const struct ktest_case sname##_ktest_cases[] = { __VA_ARGS__ };          \
	static const struct ktest_suite sname##_ktest_suite                              \
		__attribute__((used, section("ktest_suites"), aligned(8))) = {            \
			#sname, sname##_ktest_cases, ARRAY_SIZE(sname##_ktest_cases), false \
		}

/* The same, for a suite that runs only when named (selftest=NAME): a known
 * open problem whose cases fail today, kept runnable (issue 14: speed_shared). */
#define KTEST_SUITE_BY_NAME(sname, ...)                                                    \
	static const struct ktest_case sname##_ktest_cases[] = { __VA_ARGS__ };          \
	static const struct ktest_suite sname##_ktest_suite                              \
		__attribute__((used, section("ktest_suites"), aligned(8))) = {            \
			#sname, sname##_ktest_cases, ARRAY_SIZE(sname##_ktest_cases), true \
		}
/* clang-format on */

/* Run the suites named in the comma-separated `filter` (NULL or "" = all),
 * printing KTAP. Unknown suite names are reported as a failed test.
 * Returns the number of failed cases. */
int ktest_run(const char *filter);
/* One line per registered suite: name, case count, case names (the shell's help). */
void ktest_list(void);
/* A "# " diagnostic line inside the current case. */
void ktest_diag(struct ktest *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void ktest_fail(struct ktest *t, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#define KTEST_SKIP(t, reason)                                                                      \
	do {                                                                                       \
		(t)->skip = (reason);                                                              \
		return;                                                                            \
	} while (0)

#define KTEST__CHECK(t, cond, onfail, fmt, ...)                                                    \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			ktest_fail((t), __FILE__, __LINE__, fmt, ##__VA_ARGS__);                   \
			onfail;                                                                    \
		}                                                                                  \
	} while (0)

#define KTEST__CMP(t, a, op, b, onfail)                                                            \
	do {                                                                                       \
		long long _a = (long long)(a), _b = (long long)(b);                                \
		KTEST__CHECK(t, _a op _b, onfail, "%s %s %s: %lld vs %lld", #a, #op, #b, _a, _b);  \
	} while (0)

#define KTEST__NOP	   (void)0
#define EXPECT_TRUE(t, c)  KTEST__CHECK(t, (c), KTEST__NOP, "expected %s", #c)
#define EXPECT_FALSE(t, c) KTEST__CHECK(t, !(c), KTEST__NOP, "expected !(%s)", #c)
#define EXPECT_EQ(t, a, b) KTEST__CMP(t, a, ==, b, KTEST__NOP)
#define EXPECT_NE(t, a, b) KTEST__CMP(t, a, !=, b, KTEST__NOP)
#define EXPECT_LT(t, a, b) KTEST__CMP(t, a, <, b, KTEST__NOP)
#define EXPECT_LE(t, a, b) KTEST__CMP(t, a, <=, b, KTEST__NOP)
#define EXPECT_GT(t, a, b) KTEST__CMP(t, a, >, b, KTEST__NOP)
#define EXPECT_GE(t, a, b) KTEST__CMP(t, a, >=, b, KTEST__NOP)
/* clang-format off */
#define ASSERT_TRUE(t, c) KTEST__CHECK(t, (c), return, "expected %s", #c)
#define ASSERT_FALSE(t, c) KTEST__CHECK(t, !(c), return, "expected !(%s)", #c)
#define ASSERT_EQ(t, a, b) KTEST__CMP(t, a, ==, b, return)
#define ASSERT_NE(t, a, b) KTEST__CMP(t, a, !=, b, return)
#define ASSERT_LT(t, a, b) KTEST__CMP(t, a, <, b, return)
#define ASSERT_LE(t, a, b) KTEST__CMP(t, a, <=, b, return)
#define ASSERT_GT(t, a, b) KTEST__CMP(t, a, >, b, return)
#define ASSERT_GE(t, a, b) KTEST__CMP(t, a, >=, b, return)
/* clang-format on */
/* |a - b| <= tol */
#define EXPECT_NEAR(t, a, b, tol)                                                                  \
	do {                                                                                       \
		long long _a = (long long)(a), _b = (long long)(b), _d = _a - _b;                  \
		KTEST__CHECK(t, (_d < 0 ? -_d : _d) <= (long long)(tol), KTEST__NOP,               \
			     "%s ~ %s: %lld vs %lld (tol %lld)", #a, #b, _a, _b,                   \
			     (long long)(tol));                                                    \
	} while (0)
#define EXPECT_STREQ(t, a, b)                                                                      \
	do {                                                                                       \
		const char *_a = (a), *_b = (b);                                                   \
		KTEST__CHECK(t, _a &&_b &&ktest_streq(_a, _b), KTEST__NOP,                         \
			     "%s == %s: \"%s\" vs \"%s\"", #a, #b, _a ? _a : "(null)",             \
			     _b ? _b : "(null)");                                                  \
	} while (0)

bool ktest_streq(const char *a, const char *b);
/* Around every case (weak no-ops in kernel/ktest.c; the kernel's in
 * tests/kernel/selftest_debug.c). */
unsigned long ktest_case_begin(void);
void ktest_case_end(struct ktest *t, unsigned long token);

#endif
