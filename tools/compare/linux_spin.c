/* linux_spin.c - CPU-bound threads for `make compare`, reporting where they ran:
 *   spin N MS   N threads spin for MS ms; each samples its CPU (sched_getcpu)
 *               and the clock in a tight loop and counts the time between two
 *               samples on the CPU of the second. Prints the share of all the
 *               threads' time on big CPUs (the largest cpu_capacity in sysfs).
 *   spin up     a thread born on cpu0 (the parent pinned there and busy 100 ms first,
 *               so that the thread starts at util 0), spinning 1 ms
 *               pinned, then allowed everywhere: ms until first seen on a big CPU.
 *   spin spread N MS  N threads per CPU for MS ms: the threads on each CPU every 100 ms,
 *               and when the spread settled (issue 31).
 *   spin up trace  the same, printing the parent's util and cpu0's, and the spinner's
 *               CPU and util every 2 ms ("# up" lines).
 *   spin wakeup little|big US MS [trace]  a periodic thread's wakeup latency beside 3
 *               spinners on one LITTLE (big) CPU, its slice US (sched_attr.sched_runtime;
 *               issue 29); trace: each wakeup's latency too ("# wakeup" lines).
 *   spin nice N MS  nice 0's share of one big CPU beside nice N (issue 29).
 * As kernel/bench/bench_spin.c's RESULT spin, spin_up, spread, wakeup and nice lines. */
#include "work.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

static int big[MAX_CPUS];
static unsigned long long end_ns;

struct spinner {
	unsigned long long total, on_big;
	pthread_t t;
};

static void *spin_fn(void *arg)
{
	struct spinner *s = arg;
	unsigned long long prev = now_ns(), now;

	while ((now = now_ns()) < end_ns) {
		int cpu = sched_getcpu();

		s->total += now - prev;
		if (cpu >= 0 && cpu < MAX_CPUS && big[cpu])
			s->on_big += now - prev;
		prev = now;
	}
	return NULL;
}

static int spin_share(int n, long ms)
{
	struct spinner *s = calloc(n, sizeof(*s));
	unsigned long long total = 0, on_big = 0;
	double lo = 1, hi = 0;

	if (!s || n < 1 || ms < 1)
		return 1;
	end_ns = now_ns() + (unsigned long long)ms * 1000000ull;
	for (int i = 0; i < n; i++)
		s[i].t = start_thread(spin_fn, &s[i]);
	for (int i = 0; i < n; i++) {
		double share;

		pthread_join(s[i].t, NULL);
		total += s[i].total;
		on_big += s[i].on_big;
		share = s[i].total ? (double)s[i].on_big / s[i].total : 0;
		lo = share < lo ? share : lo;
		hi = share > hi ? share : hi;
	}
	printf("RESULT spin threads=%d ms=%ld big_share=%.3f min_share=%.3f max_share=%.3f\n", n,
	       ms, total ? (double)on_big / total : 0, lo, hi);
	return 0;
}

static unsigned long long up_t0, up_seen;
static int up_cpu = -1;

/* spin up trace: the spinner's util over time (issue 32): every UP_SAMPLE_NS, its CPU, util_avg and
 * util_est from /proc/thread-self/sched, printed after the run as "# up" lines (the same
 * as kernel/bench/bench_spin.c's). */
#define UP_SAMPLE_NS 2000000ull
#define UP_PARENT_NS 100000000ull /* the parent busy on cpu0 before the child (issue 32) */
#define UP_SAMPLES   64
static struct {
	unsigned long long t;
	int cpu;
	long long util, est;
} up_s[UP_SAMPLES];
static int up_n;

static int up_trace; /* spin up trace */

static void up_sample(unsigned long long now)
{
	if (up_trace && up_n < UP_SAMPLES) {
		up_s[up_n].t = now;
		up_s[up_n].cpu = sched_getcpu();
		up_s[up_n].util = thread_sched_field("se.avg.util_avg");
		up_s[up_n].est = thread_sched_field("se.avg.util_est.enqueued");
		up_n++;
	}
}

static void *up_fn(void *arg)
{
	unsigned long long limit, born = now_ns(), next = born;

	(void)arg;
	for (unsigned long long t = born; now_ns() - t < 1000000ull;)
		; /* 1 ms pinned to cpu0, as tests/kernel/selftest_sched.c's misfit case */
	up_t0 = now_ns();
	up_sample(born); /* util at birth (+1 ms): post_init_entity_util_avg()'s */
	next = up_t0 + UP_SAMPLE_NS;
	pin_self(-1);
	limit = up_t0 + 1000000000ull; /* give up after 1 s */
	for (unsigned long long now = up_t0; now < limit; now = now_ns()) {
		int cpu = sched_getcpu();

		if (now >= next) {
			up_sample(now);
			next += UP_SAMPLE_NS;
		}

		if (cpu >= 0 && cpu < MAX_CPUS && big[cpu]) {
			up_seen = now;
			up_cpu = cpu;
			break;
		}
	}
	return NULL;
}

/* cpu's root cfs_rq util_avg from the scheduler's debug file (CONFIG_SCHED_DEBUG; in 6.1
 * under debugfs, mounted by the initramfs's /init); -1 if absent. */
static long long cfs_rq_util(int cpu)
{
	char line[256], head[32];
	long long v = -1;
	int in = 0;
	FILE *f = fopen("/sys/kernel/debug/sched/debug", "r");

	if (!f)
		return -1;
	snprintf(head, sizeof(head), "cfs_rq[%d]:/\n", cpu);
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "cfs_rq[", 7))
			in = !strcmp(line, head);
		else if (in && strstr(line, ".util_avg ")) {
			v = atoll(strchr(line, ':') + 1);
			break;
		}
	}
	fclose(f);
	return v;
}

static int spin_up(void)
{
	pthread_t t;
	int cpu_before = sched_getcpu();

	pin_self(0); /* the child is born on cpu0 with cpu0's mask */
	/* Busy on cpu0 first, as littlebig's parent: cpu0's util then exceeds its capacity,
	 * so the child starts at util 0 on both kernels (post_init_entity_util_avg() gives
	 * half of cpu0's spare capacity, and none is spare). Without it the child's first
	 * util was the parent's lottery: 0 or 115 over Linux boots, 231 on littlebig. */
	for (unsigned long long t = now_ns(); now_ns() - t < UP_PARENT_NS;)
		;
	if (up_trace)
		printf("# up parent: started on cpu%d, util_avg %lld on cpu0 whose cfs_rq has "
		       "%lld\n",
		       cpu_before, thread_sched_field("se.avg.util_avg"), cfs_rq_util(0));
	t = start_thread(up_fn, NULL);
	pthread_join(t, NULL);
	pin_self(-1);
	if (up_cpu < 0) {
		printf("RESULT spin_up from_cpu=0 first_big_ms=never\n");
		return 0;
	}
	for (int i = 0; i < up_n; i++)
		printf("# up t_ms=%.3f cpu=%d util_avg=%lld util_est=%lld\n",
		       ((double)up_s[i].t - (double)up_t0) / 1e6, up_s[i].cpu, up_s[i].util,
		       up_s[i].est);
	printf("RESULT spin_up from_cpu=0 first_big_ms=%.3f cpu=%d\n", (up_seen - up_t0) / 1e6,
	       up_cpu);
	return 0;
}

/* spin spread N MS: N threads per CPU spinning for MS ms; every SPREAD_SAMPLE_MS the main
 * thread counts the threads on each CPU (each writes its CPU as it spins) and prints the
 * counts ("# spread" lines); settled is the first sample from which every CPU runs at least
 * one and no CPU runs fewer than one of smaller capacity, to the end (issue 31; the rule
 * of tests/kernel/selftest_sched.c's sched_spread). As kernel/bench/bench_spin.c's
 * spin,spread. */
#define SPREAD_SAMPLE_MS 100
static int ncpus, caps[MAX_CPUS];
static volatile int *spread_cpu;

struct spreader {
	int i;
	pthread_t t;
};

static void *spread_fn(void *arg)
{
	struct spreader *s = arg;

	while (now_ns() < end_ns)
		spread_cpu[s->i] = sched_getcpu();
	return NULL;
}

static int spread_ok(const int *count)
{
	for (int c = 0; c < ncpus; c++) {
		if (count[c] < 1)
			return 0;
		for (int o = 0; o < ncpus; o++)
			if (caps[o] < caps[c] && count[c] < count[o])
				return 0;
	}
	return 1;
}

/* The load balancer's own counts over the spread (issue 31): /proc/schedstat's lines
 * "domainD MASK" then 36 counters (version 15: for each of CPU_IDLE, CPU_NOT_IDLE,
 * CPU_NEWLY_IDLE lb_count lb_balanced lb_failed lb_imbalance lb_gained lb_hot_gained
 * lb_nobusyq lb_nobusyg; then alb_count alb_failed alb_pushed ...), summed per domain level
 * over the LITTLE (capacity below the largest) and the big CPUs. Needs
 * kernel.sched_schedstats=1, set here. */
#define SS_LEVELS 4
#define SS_FIELDS 36
static long long ss[2][2][SS_LEVELS][SS_FIELDS]; /* [before/after][little/big][level] */

static void schedstat_read(int at)
{
	FILE *f = fopen("/proc/schedstat", "r");
	char line[1024];
	int cpu = -1;

	memset(ss[at], 0, sizeof(ss[at]));
	while (f && fgets(line, sizeof(line), f)) {
		int lvl, off = 0;
		char *p;

		if (sscanf(line, "cpu%d ", &cpu) == 1)
			continue;
		if (cpu < 0 || cpu >= ncpus || sscanf(line, "domain%d %*s%n", &lvl, &off) != 1 ||
		    lvl >= SS_LEVELS)
			continue;
		p = line + off;
		for (int i = 0; i < SS_FIELDS; i++)
			ss[at][big[cpu]][lvl][i] += strtoll(p, &p, 10);
	}
	if (f)
		fclose(f);
}

static void schedstat_print(void)
{
	static const char *const idle[] = { "idle", "busy", "newidle" };

	for (int side = 0; side < 2; side++)
		for (int l = 0; l < SS_LEVELS; l++) {
			long long *a = ss[0][side][l], *b = ss[1][side][l];

			for (int t = 0; t < 3; t++) {
				long long *x = a + 8 * t, *y = b + 8 * t;

				if (y[0] == x[0])
					continue;
				printf("# schedstat %s domain%d %s lb_count=%lld balanced=%lld "
				       "failed=%lld imbalance=%lld gained=%lld nobusyq=%lld "
				       "nobusyg=%lld\n",
				       side ? "big" : "little", l, idle[t], y[0] - x[0],
				       y[1] - x[1], y[2] - x[2], y[3] - x[3], y[4] - x[4],
				       y[6] - x[6], y[7] - x[7]);
			}
			if (b[24] != a[24])
				printf("# schedstat %s domain%d active alb_count=%lld "
				       "alb_failed=%lld "
				       "alb_pushed=%lld\n",
				       side ? "big" : "little", l, b[24] - a[24], b[25] - a[25],
				       b[26] - a[26]);
		}
}

static int spin_spread(int per, long ms)
{
	int n = per * ncpus, settled = -1, count[MAX_CPUS];
	struct spreader *s = calloc(n > 0 ? n : 1, sizeof(*s));
	unsigned long long t0 = now_ns();

	spread_cpu = calloc(n > 0 ? n : 1, sizeof(int));
	if (!s || !spread_cpu || per < 1 || ms < 1)
		return 1;
	end_ns = t0 + (unsigned long long)ms * 1000000ull;
	{
		FILE *f = fopen("/proc/sys/kernel/sched_schedstats", "w");

		if (f)
			fputs("1\n", f), fclose(f);
	}
	schedstat_read(0);
	for (int i = 0; i < n; i++) {
		spread_cpu[i] = -1;
		s[i].i = i;
		s[i].t = start_thread(spread_fn, &s[i]);
	}
	for (long t = SPREAD_SAMPLE_MS; t <= ms; t += SPREAD_SAMPLE_MS) {
		unsigned long long at = t0 + (unsigned long long)t * 1000000ull, now = now_ns();

		if (at > now) {
			struct timespec d = { (time_t)((at - now) / 1000000000ull),
					      (long)((at - now) % 1000000000ull) };
			nanosleep(&d, NULL);
		}
		memset(count, 0, sizeof(count));
		for (int i = 0; i < n; i++)
			if (spread_cpu[i] >= 0 && spread_cpu[i] < ncpus)
				count[spread_cpu[i]]++;
		printf("# spread t_ms=%ld counts=", t);
		for (int c = 0; c < ncpus; c++)
			printf("%d%s", count[c], c + 1 < ncpus ? "," : "\n");
		if (!spread_ok(count))
			settled = -1;
		else if (settled < 0)
			settled = (int)t;
	}
	for (int i = 0; i < n; i++)
		pthread_join(s[i].t, NULL);
	schedstat_read(1);
	schedstat_print();
	if (settled < 0)
		printf("RESULT spread threads=%d ms=%ld settled_ms=never\n", n, ms);
	else
		printf("RESULT spread threads=%d ms=%ld settled_ms=%d\n", n, ms, settled);
	return 0;
}

/* spin wakeup little|big US MS (issue 29): EEVDF's point, as kernel/bench/bench_spin.c's
 * spin,wakeup. On the first CPU of the smallest (big: largest) capacity, WAKEUP_HOGS spinning
 * threads and one periodic thread, all pinned there, nice 0: every WAKEUP_PERIOD_NS the
 * periodic thread wakes (clock_nanosleep TIMER_ABSTIME, timer slack 1 ns), spins for
 * WAKEUP_WORK_NS of time and sleeps to its next period. Its request is US microseconds
 * (sched_setattr(), SCHED_OTHER with sched_runtime: Linux 6.12's slice; 6.1 takes it and
 * ignores it), 0 leaves the base slice; slice_get_us is what sched_getattr() gives back. Its
 * wakeup latency, from the timer's deadline to running again, over MS ms less the first
 * WAKEUP_SETTLE periods: mean, p99, max. */
#define WAKEUP_HOGS	 3
#define WAKEUP_PERIOD_NS 10000000ull
#define WAKEUP_WORK_NS	 500000ull
#define WAKEUP_SETTLE	 10
#define WAKEUP_MAX	 1024

struct lb_sched_attr { /* the syscall's struct (SCHED_ATTR_SIZE_VER0, 48 bytes) */
	unsigned int size, policy;
	unsigned long long flags;
	int nice;
	unsigned int priority;
	unsigned long long runtime, deadline, period;
};

struct hog {
	pthread_t t;
	int nice;
	unsigned long long cpu_ns; /* its CLOCK_THREAD_CPUTIME_ID at the end */
};

static void *hog_fn(void *arg)
{
	struct hog *h = arg;
	struct timespec ts;

	if (h->nice && setpriority(PRIO_PROCESS, (id_t)gettid(), h->nice))
		perror("setpriority");
	while (now_ns() < end_ns)
		;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	h->cpu_ns = (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
	return NULL;
}

static unsigned long long wk_slice_ns, wk_slice_get_ns;
static unsigned long long wk_lat[WAKEUP_MAX], wk_at[WAKEUP_MAX];
static unsigned int wk_n;

static void *periodic_fn(void *arg)
{
	unsigned long long next = now_ns();
	struct lb_sched_attr a;

	(void)arg;
	prctl(PR_SET_TIMERSLACK, 1ul, 0ul, 0ul, 0ul);
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.policy = SCHED_OTHER;
	a.runtime = wk_slice_ns;
	if (wk_slice_ns && syscall(SYS_sched_setattr, 0, &a, 0))
		perror("sched_setattr");
	memset(&a, 0, sizeof(a));
	if (!syscall(SYS_sched_getattr, 0, &a, sizeof(a), 0))
		wk_slice_get_ns = a.runtime;
	for (unsigned int k = 0;; k++) {
		struct timespec ts;
		unsigned long long lat, t = now_ns();

		while (now_ns() - t < WAKEUP_WORK_NS)
			;
		next += WAKEUP_PERIOD_NS;
		if (next >= end_ns)
			break;
		ts.tv_sec = (time_t)(next / 1000000000ull);
		ts.tv_nsec = (long)(next % 1000000000ull);
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			;
		lat = now_ns() - next;
		if (k >= WAKEUP_SETTLE && wk_n < WAKEUP_MAX) {
			wk_at[wk_n] = next;
			wk_lat[wk_n++] = lat;
		}
	}
	return NULL;
}

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/* The first CPU of the smallest (big: largest) capacity. */
static int pick_cpu(int want_big)
{
	int best = 0;

	for (int c = 1; c < ncpus; c++)
		if (want_big ? caps[c] > caps[best] : caps[c] < caps[best])
			best = c;
	return best;
}

static int spin_wakeup(int want_big, long slice_us, long ms, int trace)
{
	struct hog h[WAKEUP_HOGS];
	int cpu = pick_cpu(want_big);
	unsigned long long sum = 0, mean, p99, max;
	pthread_t pt;

	if (slice_us < 0 || ms < 1)
		return 1;
	memset(h, 0, sizeof(h));
	wk_slice_ns = (unsigned long long)slice_us * 1000ull;
	pin_self(cpu); /* the threads are born there with its mask */
	end_ns = now_ns() + (unsigned long long)ms * 1000000ull;
	for (int i = 0; i < WAKEUP_HOGS; i++)
		h[i].t = start_thread(hog_fn, &h[i]);
	pt = start_thread(periodic_fn, NULL);
	for (int i = 0; i < WAKEUP_HOGS; i++)
		pthread_join(h[i].t, NULL);
	pthread_join(pt, NULL);
	pin_self(-1);
	if (!wk_n)
		return 1;
	for (unsigned int i = 0; trace && i < wk_n; i++) /* as bench_spin.c's spin,wakeup,trace */
		printf("# wakeup at_ms=%.3f lat_us=%.3f\n",
		       (wk_at[i] + (unsigned long long)ms * 1000000ull - end_ns) / 1e6,
		       wk_lat[i] / 1e3);
	qsort(wk_lat, wk_n, sizeof(wk_lat[0]), cmp_ull);
	for (unsigned int i = 0; i < wk_n; i++)
		sum += wk_lat[i];
	mean = sum / wk_n;
	p99 = wk_lat[(wk_n * 99 + 99) / 100 - 1]; /* the ceil(0.99 n)-th smallest */
	max = wk_lat[wk_n - 1];
	printf("RESULT wakeup cpu=%d capacity=%d slice_us=%ld slice_get_us=%llu period_us=%llu "
	       "work_us=%llu hogs=%d n=%u mean_us=%.3f p99_us=%.3f max_us=%.3f\n",
	       cpu, caps[cpu], slice_us, wk_slice_get_ns / 1000, WAKEUP_PERIOD_NS / 1000,
	       WAKEUP_WORK_NS / 1000, WAKEUP_HOGS, wk_n, mean / 1e3, p99 / 1e3, max / 1e3);
	return 0;
}

/* spin nice N MS (issue 29): two spinning threads of nice 0 and nice N on the first big CPU
 * for MS ms; nice 0's share of their CPU time and its weight's share (w: the weights of
 * nice 0..19, sched_prio_to_weight's values). As kernel/bench/bench_spin.c's spin,nice. */
static int spin_nice(int nice, long ms)
{
	struct hog h[2];
	int cpu = pick_cpu(1);
	unsigned long long total;
	double share, want;
	static const int w[20] = { 1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
				   110,	 87,  70,  56,	45,  36,  29,  23,  18,	 15 };

	if (nice < 1 || nice > 19 || ms < 1)
		return 1;
	memset(h, 0, sizeof(h));
	h[1].nice = nice;
	pin_self(cpu);
	end_ns = now_ns() + (unsigned long long)ms * 1000000ull;
	for (int i = 0; i < 2; i++)
		h[i].t = start_thread(hog_fn, &h[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(h[i].t, NULL);
	pin_self(-1);
	total = h[0].cpu_ns + h[1].cpu_ns;
	if (!total)
		return 1;
	share = (double)h[0].cpu_ns / total;
	want = 1024.0 / (1024 + w[nice]);
	printf("RESULT nice cpu=%d nice=%d ms=%ld share=%.3f weight_share=%.3f\n", cpu, nice, ms,
	       share, want);
	return 0;
}

int main(int argc, char **argv)
{
	int maxcap = 0, ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);

	ncpus = ncpu < MAX_CPUS ? ncpu : MAX_CPUS;
	for (int c = 0; c < ncpus; c++) {
		caps[c] = cpu_capacity(c);
		maxcap = caps[c] > maxcap ? caps[c] : maxcap;
	}
	for (int c = 0; c < ncpus; c++)
		big[c] = caps[c] == maxcap;
	if (argc > 4 && !strcmp(argv[1], "wakeup"))
		return spin_wakeup(!strcmp(argv[2], "big"), atol(argv[3]), atol(argv[4]),
				   argc > 5 && !strcmp(argv[5], "trace"));
	if (argc > 3 && !strcmp(argv[1], "nice"))
		return spin_nice(atoi(argv[2]), atol(argv[3]));
	if (argc > 3 && !strcmp(argv[1], "spread"))
		return spin_spread(atoi(argv[2]), atol(argv[3]));
	if (argc > 1 && !strcmp(argv[1], "up")) {
		up_trace = argc > 2 && !strcmp(argv[2], "trace");
		return spin_up();
	}
	if (argc > 2)
		return spin_share(atoi(argv[1]), atol(argv[2]));
	fprintf(stderr, "usage: spin N MS | spin up [trace] | spin spread N MS | spin wakeup "
			"little|big SLICE_US MS [trace] | spin nice N MS\n");
	return 2;
}
