/* bench.c - the benchmark table and its argument parsing (include/bench.h):
 * bench_run("pipe,n=20000") runs one benchmark from the caller's thread
 * ("a;b": several, one after the other)
 * (each benchmark starts its own threads and joins them) and prints its
 * table and RESULT line. Not the benchmarks themselves (bench_pipe.c,
 * bench_hackbench.c, bench_sysbench.c, bench_spin.c) nor the experiments (experiments.c). */
#include "bench.h"
#include "bench_internal.h"
#include "cpuidle.h"
#include "kernel.h"
#include "sched.h"
#include "speed.h"

static const char *strchr(const char *s, int c)
{
	for (; *s; s++)
		if (*s == c)
			return s;
	return NULL;
}

static const char *find_key(const char *spec, const char *key)
{
	size_t k = strlen(key);

	for (const char *p = spec; p && *p;) {
		const char *comma = strchr(p, ',');

		if (!strncmp(p, key, k) && (p[k] == '=' || p[k] == ',' || !p[k]))
			return p + k;
		p = comma ? comma + 1 : NULL;
	}
	return NULL;
}

u64 bench_arg(const char *spec, const char *key, u64 def)
{
	const char *p = find_key(strchr(spec, ',') ? strchr(spec, ',') + 1 : "", key);
	u64 v = 0;

	if (!p || *p != '=' || p[1] < '0' || p[1] > '9')
		return def;
	for (p++; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (u64)(*p - '0');
	return v;
}

bool bench_flag(const char *spec, const char *key)
{
	const char *p = find_key(strchr(spec, ',') ? strchr(spec, ',') + 1 : "", key);

	return p && (*p != '=' || p[1] != '0');
}

const char *bench_features(void)
{
	static const char *const names[] = { "ASYM_PREFER_PREV", "SELECT_IDLE_CAPACITY",
					     "SIS_DEBOUNCE", "RT_UTIL_TRACKING" };
	static char buf[128];
	size_t n = (size_t)ksnprintf(buf, sizeof(buf), " features=");

	for (unsigned int i = 0; i < ARRAY_SIZE(names); i++) {
		bool on = false;

		sched_feat_get(names[i], &on);
		n += (size_t)ksnprintf(buf + n, sizeof(buf) - n, "%s%s%s", i ? "," : "",
				       on ? "" : "NO_", names[i]);
	}
	ksnprintf(buf + n, sizeof(buf) - n, " sched=%s", sched_policy_name());
	return buf;
}

static bool is(const char *spec, const char *name)
{
	size_t k = strlen(name);

	return !strncmp(spec, name, k) && (spec[k] == ',' || !spec[k]);
}

static void print_sysbench(const char *kind, const struct sysbench_result *r)
{
	u64 ms = r->ns / NSEC_PER_MSEC;

	printk("%s: threads %llu, time %llu ms\n", kind, r->threads, ms);
	printk("    total events:      %llu\n", r->events);
	printk("    events/s:          %llu\n", ms ? r->events * 1000 / ms : 0);
	printk("    per thread:        min %llu  max %llu\n", r->min_events, r->max_events);
	printk("    avg latency (us):  %llu\n", r->events ? r->lat_sum_ns / r->events / 1000 : 0);
	printk("RESULT %s threads=%llu events=%llu ms=%llu min_events=%llu max_events=%llu "
	       "avg_latency_us=%llu%s\n",
	       kind, r->threads, r->events, ms, r->min_events, r->max_events,
	       r->events ? r->lat_sum_ns / r->events / 1000 : 0, bench_features());
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
	{ "tbench", "c=2 d=1000 bg=0", "c client/server pairs for d ms beside bg 'video' tasks" },
	{ "sysbench-threads", "t=8 m=8 y=100 w=0 d=1000",
	  "t threads over m mutexes, y yields per event, w work units per yield, for d ms" },
	{ "sysbench-cpu", "t=1 w=1000000 real d=1000",
	  "t threads, w work units per event (real: real instructions), for d ms" },
	{ "rtapp", "file=NAME NAME",
	  "an rt-app workload: a built-in file, file=initrd; no name lists them" },
	{ "stress", "n=20000 a=200 s=1 oom",
	  "n threads created, a alive at once, seed s (oom: exhaust memory too)" },
	{ "spin", "t=1 ms=1000 up spread trace wakeup big slice=0 nice=0",
	  "t spinning threads for ms: share of time on big CPUs (up: time to a big CPU; "
	  "wakeup: a periodic task's wakeup latency beside 3 hogs on a LITTLE or big CPU, its "
	  "slice in us; nice=N: nice 0's share beside nice N)" },
};
static const struct bench_keys experiment_keys[] = {
	{ "1", "short trace n=50000",
	  "E1: pipe ping-pong, ASYM_PREFER_PREV off/on (short: n=1000 and KTAP checks)" },
	{ "2", "short trace", "E2: tbench beside video tasks, SIS_DEBOUNCE off/on" },
	{ "3", "short trace", "E3: hackbench scaling and the cost of a PELT update" },
	{ "4", "short trace", "E4: SELECT_IDLE_CAPACITY off/on (hackbench, sysbench)" },
	{ "5", "short trace", "E5: RT_UTIL_TRACKING off/on (rt-app + sysbench-cpu)" },
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
	const char *p = strchr(spec, ',');

	if (!b) {
		printk("run: no %s \"%.*s\"; 'help run' lists them\n",
		       experiment ? "experiment" : "benchmark",
		       (int)(p ? (size_t)(p - spec) : strlen(spec)), spec);
		return -1;
	}
	while (p) {
		const char *w = p + 1, *end = strchr(w, ',');
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
	printk("flags: short (shortened, with KTAP checks), trace (each off/on half traced)\n");
}

static bool interrupted;

void bench_interrupt(bool stop)
{
	__atomic_store_n(&interrupted, stop, __ATOMIC_RELEASE);
}

bool bench_interrupted(void)
{
	return __atomic_load_n(&interrupted, __ATOMIC_ACQUIRE);
}

/* The running benchmark's progress: written by it, read by the shell's watcher;
 * the phase is copied (an experiment's label may live on its stack). */
static spinlock_t progress_lock;
static char progress_phase[48];
static u64 progress_done, progress_total, progress_gen;

void bench_progress(const char *phase, u64 done, u64 total)
{
	unsigned long flags = spin_lock_irqsave(&progress_lock);

	progress_done = done;
	progress_total = total;
	if (phase) {
		strlcpy_k(progress_phase, phase, sizeof(progress_phase));
		progress_gen++;
	}
	spin_unlock_irqrestore(&progress_lock, flags);
}

void bench_progress_report(u64 start_ns, u64 *next_ns)
{
	static u64 last_gen;
	u64 now = arch_clock_ns(), done, total, gen;
	char phase[sizeof(progress_phase)];
	unsigned long flags;

	flags = spin_lock_irqsave(&progress_lock);
	done = progress_done;
	total = progress_total;
	gen = progress_gen;
	strlcpy_k(phase, progress_phase, sizeof(phase));
	spin_unlock_irqrestore(&progress_lock, flags);
	if (!*next_ns) { /* a new run: quiet for its first second */
		last_gen = gen;
		*next_ns = start_ns + NSEC_PER_SEC;
	}
	if ((now < *next_ns && gen == last_gen) || now < start_ns + NSEC_PER_SEC)
		return; /* not due, or a short run: no lines at all */
	last_gen = gen;
	*next_ns = now + NSEC_PER_SEC;
	now -= start_ns;
	if (total)
		printk("run: progress: %s %llu of %llu (%llu %%), %llu.%03llu s\n", phase, done,
		       total, done * 100 / total, now / NSEC_PER_SEC, now / NSEC_PER_MSEC % 1000);
	else
		printk("run: progress: %s, %llu.%03llu s\n", phase, now / NSEC_PER_SEC,
		       now / NSEC_PER_MSEC % 1000);
}

/* "pipe,n=10;spin,up": each in turn, after a "bench: run SPEC" line (make
 * compare runs its whole list in one boot, as on Linux); -1 if any failed. */
static int bench_run_list(const char *list)
{
	int err = 0;

	for (const char *p = list; p && *p;) {
		const char *semi = strchr(p, ';');
		size_t n = semi ? (size_t)(semi - p) : strlen(p);
		char spec[128];

		if (n >= sizeof(spec)) {
			printk("bench: \"%.*s\" is too long\n", (int)n, p);
			return -1;
		}
		memcpy(spec, p, n);
		spec[n] = '\0';
		printk("bench: run %s\n", spec);
		err |= bench_run(spec);
		p = semi ? semi + 1 : NULL;
	}
	return err ? -1 : 0;
}

static int bench_one(const char *spec);

/* `make profile`'s window (tools/insn_profile.py): its QEMU plugin counts only the
 * instructions run between a call of the first and of the second, so the boot is not in the
 * profile; a benchmark may call the first again to leave its set-up out (bench_crowd.c).
 * noipa: each keeps a body of its own at its symbol (no inlining, no folding of the two). */
__attribute__((noipa)) void bench_profile_begin(void)
{
	asm volatile("" ::: "memory");
}

__attribute__((noipa)) void bench_profile_end(void)
{
	asm volatile("" ::: "memory");
}

/* Each benchmark's energy and idle states from its start: "RESULT energy
 * bench=NAME ..." lines after its own RESULT (issue 14). */
int bench_run(const char *spec)
{
	char tag[40];
	int err;

	if (strchr(spec, ';'))
		return bench_run_list(spec);
	energy_reset();
	cpuidle_reset_stats();
	bench_progress(spec, 0, 0);
	bench_profile_begin();
	err = bench_one(spec);
	bench_profile_end();
	if (!err && !bench_interrupted()) {
		size_t n = 0;

		while (spec[n] && spec[n] != ',' && n < 24)
			n++;
		ksnprintf(tag, sizeof(tag), " bench=%.*s", (int)n, spec);
		energy_print("RESULT ", tag);
		cpuidle_print("RESULT ", tag);
	}
	return err;
}

static int bench_one(const char *spec)
{
	if (is(spec, "pipe")) {
		struct pipe_result r;

		if (bench_pipe(bench_arg(spec, "n", 10000), &r)) {
			if (r.partial) /* Ctrl-C: what it did, not a RESULT */
				bench_pipe_print_partial("partial result (interrupted)", &r);
			return -1;
		}
		bench_pipe_print(&r);
		return 0;
	}
	if (is(spec, "hackbench")) {
		struct hackbench_result r;
		u64 us, m = bench_arg(spec, "m", ~0ull); /* m=: the first 64 CPUs only */
		cpumask_t mask = cpumask_from_u64(m);

		r.ns = 0;
		if (bench_hackbench_on(bench_arg(spec, "g", 1), bench_arg(spec, "l", 10),
				       bench_arg(spec, "w", 0), m == ~0ull ? NULL : &mask, &r)) {
			us = r.ns / 1000;
			if (r.ns) /* Ctrl-C: what was delivered (20 x 20 a loop), not a RESULT */
				printk("  partial result (interrupted): %llu of %llu messages "
				       "delivered in %llu.%03llu s\n",
				       r.delivered, r.groups * 20 * 20 * r.loops, us / 1000000,
				       us / 1000 % 1000);
			return -1;
		}
		us = r.ns / 1000;
		printk("# %llu sender and receiver threads per group\n# %llu groups == %llu "
		       "threads run\n\n     Total time: %llu.%03llu [sec]\n",
		       40ull, r.groups, r.groups * 40, us / 1000000, us / 1000 % 1000);
		printk("RESULT hackbench groups=%llu loops=%llu seconds=%llu.%06llu speed=%s%s\n",
		       r.groups, r.loops, us / 1000000, us % 1000000, speed_model_name(),
		       bench_features());
		return 0;
	}
	if (is(spec, "tbench")) {
		struct tbench_result r;

		if (bench_tbench(bench_arg(spec, "c", 2), bench_arg(spec, "d", 1000),
				 bench_arg(spec, "bg", 0), &r))
			return -1;
		bench_tbench_print(&r);
		return 0;
	}
	if (is(spec, "sysbench-threads")) {
		struct sysbench_result r;

		if (bench_sysbench_threads(bench_arg(spec, "t", 8), bench_arg(spec, "m", 8),
					   bench_arg(spec, "y", 100), bench_arg(spec, "w", 0),
					   bench_arg(spec, "d", 1000), &r))
			return -1;
		print_sysbench("sysbench_threads", &r);
		return 0;
	}
	if (is(spec, "sysbench-cpu")) {
		struct sysbench_result r;

		if (bench_sysbench_cpu(bench_arg(spec, "t", 1), bench_arg(spec, "w", 1000000),
				       bench_flag(spec, "real"), bench_arg(spec, "d", 1000), &r))
			return -1;
		print_sysbench("sysbench_cpu", &r);
		return 0;
	}
	if (is(spec, "rtapp"))
		return bench_rtapp(spec);
	if (is(spec, "stress"))
		return bench_stress(spec);
	if (is(spec, "spin"))
		return bench_spin(spec);
	if (is(spec, "crowd"))
		return bench_crowd(spec);
	printk("bench: unknown benchmark \"%s\" (pipe, hackbench, tbench, sysbench-threads, "
	       "sysbench-cpu, rtapp, stress, spin, crowd)\n",
	       spec);
	return -1;
}
