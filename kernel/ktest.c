/* ktest.c - runs the KTEST suites registered in the "ktest_suites" section and prints KTAP
 * version 1 the way KUnit does, so any KTAP parser (and tools/runtests.py) can judge it.
 * Shared as is by the kernel self-tests and build/host/unittests: portable, output only
 * through printk(). Not: the suites themselves, nor when they run (the caller decides). */
#include "ktest.h"
#include "printk.h"

/* Bounds of the section, provided by GNU ld on the host and by linker.ld in the kernel.
 * Hidden: they are in this image, so -fpie addresses them PC-relative instead of through the
 * GOT, which the self-relocating kernel would otherwise have to fix up first. */
extern const struct ktest_suite __start_ktest_suites[] __attribute__((visibility("hidden")));
extern const struct ktest_suite __stop_ktest_suites[] __attribute__((visibility("hidden")));

/* Indentation of a suite's lines, nested under the top-level plan as KUnit does. */
#define SUB "    "

bool ktest_streq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/* One "# " diagnostic line. Formatted first so that printk() gets the line in one call and
 * lines from other CPUs cannot land in the middle of it. */
static void vdiag(const char *prefix, const char *fmt, va_list ap)
{
	char msg[256];

	kvsnprintf(msg, sizeof(msg), fmt, ap);
	printk(SUB "# %s%s\n", prefix, msg);
}

void ktest_diag(struct ktest *t, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag("", fmt, ap);
	va_end(ap);
}

void ktest_fail(struct ktest *t, const char *file, int line, const char *fmt, ...)
{
	char where[128];
	va_list ap;

	t->failed++;
	ksnprintf(where, sizeof(where), "%s:%d: ", file, line);
	va_start(ap, fmt);
	vdiag(where, fmt, ap);
	va_end(ap);
}

/* Checks around every case, supplied by the kernel's self-test glue
 * (tests/kernel/selftest_debug.c: the run-queue invariants and the debug build's
 * reports, which fail the case). Weak no-ops here: the host tests have none. */
__attribute__((weak)) unsigned long ktest_case_begin(void)
{
	return 0;
}

__attribute__((weak)) void ktest_case_end(struct ktest *t, unsigned long token)
{
}

/* Counts of one suite's cases, printed as KUnit's "# suite: pass:P fail:F skip:S total:T". */
struct tally {
	int pass, fail, skip;
};

static void run_case(const struct ktest_suite *s, const struct ktest_case *c, int nr,
		     struct tally *tl)
{
	struct ktest t = { .suite = s->name, .name = c->name, .failed = 0, .skip = NULL };
	unsigned long token = ktest_case_begin();

	c->run(&t);
	ktest_case_end(&t, token);
	/* A failure recorded before a skip still counts: the case did check something wrong. */
	if (t.failed) {
		printk(SUB "not ok %d %s\n", nr, c->name);
		tl->fail++;
	} else if (t.skip) {
		printk(SUB "ok %d %s # SKIP %s\n", nr, c->name, t.skip);
		tl->skip++;
	} else {
		printk(SUB "ok %d %s\n", nr, c->name);
		tl->pass++;
	}
}

/* Runs one suite as subtest `nr` of the top-level plan; adds its counts to *total. */
static void run_suite(const struct ktest_suite *s, int nr, struct tally *total)
{
	struct tally tl = { 0, 0, 0 };

	printk(SUB "KTAP version 1\n");
	printk(SUB "# Subtest: %s\n", s->name);
	printk(SUB "1..%d\n", (int)s->nr_cases);
	for (size_t i = 0; i < s->nr_cases; i++)
		run_case(s, &s->cases[i], (int)i + 1, &tl);
	printk("# %s: pass:%d fail:%d skip:%d total:%d\n", s->name, tl.pass, tl.fail, tl.skip,
	       (int)s->nr_cases);
	/* As KUnit: a suite whose cases were all skipped is reported as skipped. */
	if (tl.fail)
		printk("not ok %d %s\n", nr, s->name);
	else if (s->nr_cases && tl.skip == (int)s->nr_cases)
		printk("ok %d %s # SKIP\n", nr, s->name);
	else
		printk("ok %d %s\n", nr, s->name);
	total->pass += tl.pass;
	total->fail += tl.fail;
	total->skip += tl.skip;
}

/* The suite whose name is name[0..n), or NULL. */
static const struct ktest_suite *find_suite(const char *name, size_t n)
{
	for (const struct ktest_suite *s = __start_ktest_suites; s < __stop_ktest_suites; s++) {
		size_t i = 0;

		while (i < n && s->name[i] == name[i])
			i++;
		if (i == n && s->name[n] == '\0')
			return s;
	}
	return NULL;
}

/* Calls fn(name, n) for each non-empty comma-separated item of filter; returns the count. */
static int for_each_name(const char *filter, void (*fn)(const char *, size_t, int, void *),
			 void *arg)
{
	int count = 0;

	while (*filter) {
		const char *end = filter;

		while (*end && *end != ',')
			end++;
		if (end > filter) {
			count++;
			if (fn)
				fn(filter, (size_t)(end - filter), count, arg);
		}
		filter = *end ? end + 1 : end;
	}
	return count;
}

static void run_named(const char *name, size_t n, int nr, void *arg)
{
	const struct ktest_suite *s = find_suite(name, n);
	struct tally *total = arg;

	if (s) {
		run_suite(s, nr, total);
		return;
	}
	/* An unknown name is a failure: a typo in CI must not pass as "nothing failed". */
	printk("# %.*s: no such suite\n", (int)n, name);
	printk("not ok %d %.*s\n", nr, (int)n, name);
	total->fail++;
}

int ktest_run(const char *filter)
{
	struct tally total = { 0, 0, 0 };
	bool all = !filter || !*filter;
	int nr = 0;

	printk("KTAP version 1\n");
	if (all) {
		int n = 0;

		for (const struct ktest_suite *s = __start_ktest_suites; s < __stop_ktest_suites;
		     s++)
			n += !s->by_name_only;
		printk("1..%d\n", n);
		for (const struct ktest_suite *s = __start_ktest_suites; s < __stop_ktest_suites;
		     s++)
			if (!s->by_name_only)
				run_suite(s, ++nr, &total);
	} else {
		printk("1..%d\n", for_each_name(filter, NULL, NULL));
		for_each_name(filter, run_named, &total);
	}
	printk("# Totals: pass:%d fail:%d skip:%d total:%d\n", total.pass, total.fail, total.skip,
	       total.pass + total.fail + total.skip);
	return total.fail;
}

/* The shell's `help selftest`: each suite, its number of cases and first case names. */
void ktest_list(void)
{
	for (const struct ktest_suite *s = __start_ktest_suites; s < __stop_ktest_suites; s++) {
		char line[96];
		int n = ksnprintf(line, sizeof(line), "  %-13s %2zu case(s)%s:", s->name,
				  s->nr_cases, s->by_name_only ? ", only when named" : "");

		for (size_t i = 0; i < s->nr_cases && n < (int)sizeof(line); i++)
			n += ksnprintf(line + n, sizeof(line) - (size_t)n, " %s", s->cases[i].name);
		printk("%s%s\n", line, n >= (int)sizeof(line) - 1 ? "..." : "");
	}
}
