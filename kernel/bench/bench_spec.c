/* bench_spec.c - which benchmarks and experiments exist and the keys each takes, and the
 * check of a spec against them: the shell's `run` asks it before anything starts, and
 * the host's build/host/benchspec (tools/host_benchspec.c) before `make bench`,
 * `make profile` or `make experiment` boot. Pure (no state, no lock), so the host runs
 * the code the kernel runs. Not the running of them (bench.c, experiments.c). */
#include "bench.h"
#include "kernel.h"

/* Where c is in s, or NULL. */
static const char *find_char(const char *s, int c)
{
	for (; *s; s++)
		if (*s == c)
			return s;
	return NULL;
}

/* spec starts with name, then a comma or its end. */
static bool is(const char *spec, const char *name)
{
	size_t k = strlen(name);

	return !strncmp(spec, name, k) && (spec[k] == ',' || !spec[k]);
}

/* Each benchmark's and experiment's keys with their defaults: the shell's
 * `help run` prints them and `run` checks a spec against them before anything
 * starts. In keys, KEY=DEFAULT takes a decimal number, KEY=NAME any word, a
 * lone lower-case word is a flag (or flag=0/1), and a lone NAME any word. Keep in step with
 * bench_one() and experiment_run(), which read them (bench_arg, bench_flag). */
struct bench_keys {
	const char *name, *keys, *what;
};
static const struct bench_keys bench_keys[] = {
	{ "pipe", "n=10000",
	  "two threads ping-pong over pipes n times (perf bench sched pipe -T)" },
	{ "hackbench", "g=1 l=10 w=0 m=ALL",
	  "g groups of 20 senders + 20 receivers, l loops, w work units per message, m: a "
	  "decimal mask of the first 64 CPUs" },
	{ "tbench", "c=2 d=1000 bg=0 why",
	  "c client/server pairs for d ms beside bg 'video' tasks (why: each thread's `why` at "
	  "the end)" },
	{ "sysbench-threads", "t=8 m=8 y=100 w=0 d=1000",
	  "t threads over m mutexes, y yields per event, w work units per yield, for d ms" },
	{ "sysbench-cpu", "t=1 w=1000000 real d=1000",
	  "t threads, w work units per event (real: real instructions), for d ms" },
	{ "rtapp", "file=NAME NAME",
	  "an rt-app workload: a built-in file, file=initrd; no name lists them" },
	{ "stress", "n=20000 a=200 s=1 oom",
	  "n threads created, a alive at once, seed s (oom: exhaust memory too)" },
	{ "spin", "t=1 ms=1000 up spread trace wakeup big slice=0 nice=0",
	  "t spinning threads for ms: share of time on big CPUs (up: time to a big CPU, "
	  "trace: its samples; spread: how t threads spread; wakeup: a periodic task's "
	  "wakeup latency beside 3 hogs on a LITTLE or big CPU, its slice in us; nice=N: "
	  "nice 0's share beside nice N)" },
	{ "crowd", "t=10 ms=200", "t never-blocking threads on one CPU for ms: the cost per task" },
};
static const struct bench_keys experiment_keys[] = {
	{ "1", "short trace n=50000 idle r=20 l=2500",
	  "E1: pipe ping-pong, ASYM_PREFER_PREV off/on (short: n=1000 and KTAP checks)" },
	{ "2", "short trace why",
	  "E2: tbench beside video tasks, SIS_DEBOUNCE off/on (why: `why` of its threads at "
	  "each half's end)" },
	{ "3", "short trace", "E3: hackbench scaling and the cost of a PELT update" },
	{ "4", "short trace", "E4: SELECT_IDLE_CAPACITY off/on (hackbench, sysbench)" },
	{ "5", "short trace", "E5: RT_UTIL_TRACKING off/on (rt-app + sysbench-cpu)" },
	{ "6", "short trace", "E6: EAS off/on under schedutil (placement energy, misfit)" },
	{ "overheads", "", "ping-pong and hackbench costs against Linux's figures" },
	{ "placement", "skip_up", "spin 1/4/8, spin up, pipe: judged against Linux's figures" },
	{ "smoke", "", "every benchmark briefly and its refusals" },
	{ "cost", "", "what the machine's size costs: a wakeup scan, a balance pass" },
};

static const struct bench_keys *find_keys(const char *spec, bool experiment)
{
	const struct bench_keys *t = experiment ? experiment_keys : bench_keys;
	size_t nr = experiment ? ARRAY_SIZE(experiment_keys) : ARRAY_SIZE(bench_keys);

	for (size_t i = 0; i < nr; i++)
		if (is(spec, t[i].name))
			return &t[i];
	return NULL;
}

/* The length of s[0..n) before its first '=' (n if none). */
static size_t key_len(const char *s, size_t n)
{
	size_t k = 0;

	while (k < n && s[k] != '=')
		k++;
	return k;
}

/* Is the word w (length n, "key" or "key=value") one of keys? */
static bool key_ok(const char *keys, const char *w, size_t n)
{
	size_t k = key_len(w, n);
	const char *eq = k < n ? w + k : NULL;

	for (const char *p = keys; *p;) {
		size_t len = 0, klen;

		while (p[len] && p[len] != ' ')
			len++;
		klen = key_len(p, len);
		if (!strncmp(p, "NAME", len) && len == 4 && !eq)
			return true;				    /* any word */
		if (klen == k && !strncmp(p, w, k) && klen < len) { /* KEY=number or KEY=NAME */
			if (!eq || eq + 1 == w + n)
				return false;
			if (len - klen == 5 && !strncmp(p + klen, "=NAME", 5))
				return true;
			for (const char *d = eq + 1; d < w + n; d++)
				if (*d < '0' || *d > '9')
					return false;
			return true;
		}
		if (klen == k && !strncmp(p, w, k) && klen == len) /* a flag */
			return !eq || (n == k + 2 && (eq[1] == '0' || eq[1] == '1'));
		p += len;
		while (*p == ' ')
			p++;
	}
	return false;
}

int bench_check_spec(const char *spec, bool experiment)
{
	const struct bench_keys *b = find_keys(spec, experiment);
	const char *p = find_char(spec, ',');

	if (!b) {
		printk("run: no %s \"%.*s\"; 'help run' lists them\n",
		       experiment ? "experiment" : "benchmark",
		       (int)(p ? (size_t)(p - spec) : strlen(spec)), spec);
		return -1;
	}
	while (p) {
		const char *w = p + 1, *end = find_char(w, ',');
		size_t n = end ? (size_t)(end - w) : strlen(w);

		if (!key_ok(b->keys, w, n)) {
			printk("run: %s does not take '%.*s' (keys: %s); nothing started\n",
			       b->name, (int)n, w, *b->keys ? b->keys : "none");
			return -1;
		}
		p = end;
	}
	return 0;
}

void bench_print_help(void)
{
	printk("benchmarks (run BENCH key=value ...; defaults shown):\n");
	for (size_t i = 0; i < ARRAY_SIZE(bench_keys); i++)
		printk("  %-16s %-24s %s\n", bench_keys[i].name, bench_keys[i].keys,
		       bench_keys[i].what);
	printk("experiments (run experiment N [flag ...]; docs/experiments.md):\n");
	for (size_t i = 0; i < ARRAY_SIZE(experiment_keys); i++)
		printk("  %-16s %-24s %s\n", experiment_keys[i].name, experiment_keys[i].keys,
		       experiment_keys[i].what);
	printk("flags: short (shortened, with KTAP checks), trace (each off/on half traced), "
	       "why (E2: its threads' `why` at each half's end)\n");
}
