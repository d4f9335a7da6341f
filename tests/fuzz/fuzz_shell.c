/* fuzz_shell.c - libFuzzer target for the console shell's pure half
 * (kernel/shell/shell_parse.c): any bytes typed as keys into the line editor
 * (Backspace, Ctrl-U, Ctrl-C, escape sequences, history Up/Down, lines of
 * any length), each finished line split into words and handed to every
 * argument parser the commands use. Checks what callers rely on: the line
 * and words stay inside their buffers, a parser that accepts returns values
 * inside its stated range (parse_long agrees with libc's strtol, a cpu list
 * names only online CPUs and survives a format/parse round trip, a run spec
 * is terminated inside its buffer). Seeds: tests/fuzz/corpus/shell/. */
#define _GNU_SOURCE /* fopencookie */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sched.h"
#include "shell_parse.h"
#include "topology.h"

static ssize_t discard(void *cookie, const char *buf, size_t n)
{
	return (ssize_t)n;
}

/* The echo and messages go to printk (tests/host/fake_printk.c: stdout,
 * flushed per call): a sink without a system call per key. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	stdout = fopencookie(NULL, "w", (cookie_io_functions_t){ .write = discard });
	if (!stdout)
		abort();
	return 0;
}

#define CHECK(x)                                                                                   \
	do {                                                                                       \
		if (!(x)) {                                                                        \
			fprintf(stderr, "check failed: %s\n", #x);                                 \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

static void check_long(const char *w)
{
	static const long ranges[][2] = {
		{ -1000, 1000 }, { 0, 100000000 }, { 1, 1000000000 }, { -20, 19 }
	};

	for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
		long v = 12345678, ref;
		char *end;

		if (!parse_long("x", w, ranges[i][0], ranges[i][1], &v)) {
			CHECK(v == 12345678); /* untouched on refusal */
			continue;
		}
		CHECK(v >= ranges[i][0] && v <= ranges[i][1]);
		ref = strtol(w, &end, 10);
		CHECK(*w != '+' && *w != ' ' && !*end && ref == v);
	}
}

static void check_cpulist(const char *w)
{
	/* The last two: CPUs past the first word (NR_CPUS is 256). */
	static const cpumask_t onlines[] = { { { 0xff } },
					     { { 0x0f } },
					     { { 0x1 } },
					     { { 0xffff } },
					     { { 0xf0f0 } },
					     { { ~0ull, ~0ull, ~0ull, ~0ull } },
					     { { 0x1, 0, 0xf0, 1ull << 63 } } };

	for (size_t i = 0; i < sizeof(onlines) / sizeof(onlines[0]); i++) {
		cpumask_t m = { { 0 } }, again = { { 0 } };
		char buf[1200];

		if (!parse_cpulist_of(w, &onlines[i], &m))
			continue;
		CHECK(!cpumask_empty(&m) && cpumask_subset(&m, &onlines[i]));
		topology_format_mask(buf, sizeof(buf), &m);
		CHECK(parse_cpulist_of(buf, &onlines[i], &again) && cpumask_equal(&again, &m));
	}
}

static void check_word(const char *w)
{
	unsigned int policy;
	const char *v;
	int lo = -1, hi = -1;

	CHECK(*w && strlen(w) < SHELL_LINE_MAX && !strpbrk(w, " \t"));
	check_long(w);
	check_cpulist(w);
	if (parse_policy(w, &policy))
		CHECK(!strcmp(policy_name(policy), w));
	for (int nr = 0; nr <= 2; nr++)
		if (parse_policies(w, nr, &lo, &hi))
			CHECK(lo >= 0 && lo <= hi && hi <= nr);
	if (shell_opt(w, "cpus", &v))
		CHECK(v == w + 5);
}

static void check_command(int argc, char **argv)
{
	static const size_t sizes[] = { 1, 2, 8, 128 };
	struct spawn_args a;
	long delay, count;
	bool exp;
	const cpumask_t online = { { 0xff } };

	if (parse_spawn_args(argc, argv, &online, &a)) {
		CHECK(a.work >= 1 && a.work <= 10000000);
		CHECK(a.period == 0 || (a.period >= a.work && a.period <= 100000000));
		CHECK(a.nice >= -20 && a.nice <= 19 && a.prio >= 1 && a.prio <= 99);
		CHECK(strcmp(policy_name(a.policy), "?") != 0);
		CHECK(!cpumask_empty(&a.mask) && cpumask_subset(&a.mask, &online));
	}
	if (parse_top_args(argc, argv, &delay, &count))
		CHECK(delay >= 10 && delay <= 60000 &&
		      (count == -1 || (count >= 1 && count <= 100000)));
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char spec[128 + 8];

		memset(spec, 'x', sizeof(spec));
		if (parse_run_args(argc, argv, spec, sizes[i], &exp))
			CHECK(strnlen(spec, sizes[i]) < sizes[i] && argc >= 2 + exp);
		CHECK(spec[sizes[i]] == 'x'); /* nothing past the buffer */
	}
}

static void run_line(const char *line)
{
	char copy[SHELL_LINE_MAX], *argv[SHELL_MAX_ARGS + 1];
	int argc;

	CHECK(strlen(line) < SHELL_LINE_MAX);
	strcpy(copy, line);
	argv[SHELL_MAX_ARGS] = (char *)"guard";
	argc = shell_split(copy, argv);
	CHECK(argc >= -1 && argc <= SHELL_MAX_ARGS && !strcmp(argv[SHELL_MAX_ARGS], "guard"));
	if (argc <= 0)
		return;
	for (int i = 0; i < argc; i++)
		check_word(argv[i]);
	check_command(argc, argv);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	static struct line_editor le;

	memset(&le, 0, sizeof(le));
	line_editor_start(&le);
	for (size_t i = 0; i < size; i++) {
		enum line_status st = line_editor_feed(&le, data[i]);

		CHECK(le.n < SHELL_LINE_MAX && strlen(le.line) == le.n && le.cur <= le.n);
		CHECK(le.back <= SHELL_HISTORY && le.back <= le.history_len);
		if (st == LINE_MORE)
			continue;
		if (st == LINE_DONE) {
			if (le.line[0] && le.line[0] != ' ')
				line_history_add(&le, le.line);
			run_line(le.line);
		}
		line_editor_start(&le);
	}
	line_history_print(&le);
	return 0;
}
