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
#include "smp.h"
#include "speed.h"
#include "topology.h"

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

/* The meters after a benchmark or an experiment's half. The host tools (make compare,
 * make experiment, make profile, tools/trace.py) parse the per-CPU "RESULT energy" and
 * "RESULT cpuidle" lines of benchmark and experiment boots, so those boots print them;
 * at the console a person asked for the benchmark, so `run` prints one line of totals
 * and `run -r` the RESULT lines (issue 30). Set by the shell before each run. */
static bool results_full = true;
static u64 meters_since, idle_base[NR_CPUS];

void bench_set_full_results(bool on)
{
	results_full = on;
}

void bench_meters_reset(void)
{
	energy_reset();
	cpuidle_reset_stats();
	for (unsigned int cpu = 0; cpu < (unsigned int)cpu_topology.nr_cpus; cpu++)
		idle_base[cpu] = cpu_idle_time_ns(cpu);
	meters_since = arch_clock_ns();
}

/* num as a percentage of den (0 if den is). */
static u64 pct(u64 num, u64 den)
{
	return den ? num * 100 / den : 0;
}

/* One line: the window, the joules of every CPU, and the share of the online CPUs' time
 * idle (the idle task's time since the reset, as `cpus` counts it), split by the kind of
 * idle state the time was spent in (cpuidle's residencies clipped to the window). */
static void print_totals(const char *tag)
{
	u64 ns = arch_clock_ns() - meters_since, uj = 0, uw, idle = 0, by_kind[3];
	unsigned int cpu, nr = 0;

	for (cpu = 0; cpu < (unsigned int)cpu_topology.nr_cpus; cpu++) {
		uj += energy_cpu_uj(cpu);
		if (!cpu_online(cpu))
			continue;
		nr++;
		idle += cpu_idle_time_ns(cpu) - idle_base[cpu];
	}
	cpuidle_time_by_kind(by_kind);
	uw = ns ? uj * NSEC_PER_SEC / ns : 0; /* uJ per s */
	printk("totals%s: %llu.%llu ms, %llu.%06llu J (avg %llu.%03llu W), idle %llu %% of %u "
	       "CPUs' time",
	       tag, ns / NSEC_PER_MSEC, ns / (NSEC_PER_MSEC / 10) % 10, uj / 1000000, uj % 1000000,
	       uw / 1000000, uw / 1000 % 1000, MIN(pct(idle, ns * nr), 100ull), nr);
	if (cpuidle_enabled())
		printk(" (wfi %llu %%, cpu-off %llu %%, cluster-off %llu %%)",
		       pct(by_kind[0], ns * nr), pct(by_kind[1], ns * nr),
		       pct(by_kind[2], ns * nr));
	printk("\n");
}

void bench_meters_print(const char *tag)
{
	if (!results_full) {
		print_totals(tag);
		return;
	}
	energy_print("RESULT ", tag);
	cpuidle_print("RESULT ", tag);
}

/* Each benchmark's energy and idle states from its start, after its own RESULT
 * (issue 14): "RESULT energy bench=NAME ..." lines, or the console's totals. */
int bench_run(const char *spec)
{
	char tag[40];
	int err;

	if (strchr(spec, ';'))
		return bench_run_list(spec);
	bench_meters_reset();
	bench_progress(spec, 0, 0);
	bench_profile_begin();
	err = bench_one(spec);
	bench_profile_end();
	if (!err && !bench_interrupted()) {
		size_t n = 0;

		while (spec[n] && spec[n] != ',' && n < 24)
			n++;
		ksnprintf(tag, sizeof(tag), " bench=%.*s", (int)n, spec);
		bench_meters_print(tag);
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
				 bench_arg(spec, "bg", 0), bench_flag(spec, "why"), &r))
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
