/* linux_spin.c - CPU-bound threads for `make compare`, reporting where they ran:
 *   spin N MS   N threads spin for MS ms; each samples its CPU (sched_getcpu)
 *               and the clock in a tight loop and counts the time between two
 *               samples on the CPU of the second. Prints the share of all the
 *               threads' time on big CPUs (the largest cpu_capacity in sysfs).
 *   spin up     a thread born on cpu0 (the parent pinned there), spinning 1 ms
 *               pinned, then allowed everywhere: ms until first seen on a big CPU.
 * As kernel/bench/bench_spin.c's RESULT spin and RESULT spin_up lines. */
#include "work.h"

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

static void *up_fn(void *arg)
{
	unsigned long long limit;

	(void)arg;
	for (unsigned long long t = now_ns(); now_ns() - t < 1000000ull;)
		; /* 1 ms pinned to cpu0, as tests/kernel/selftest_sched.c's misfit case */
	up_t0 = now_ns();
	pin_self(-1);
	limit = up_t0 + 1000000000ull; /* give up after 1 s */
	for (unsigned long long now = up_t0; now < limit; now = now_ns()) {
		int cpu = sched_getcpu();

		if (cpu >= 0 && cpu < MAX_CPUS && big[cpu]) {
			up_seen = now;
			up_cpu = cpu;
			break;
		}
	}
	return NULL;
}

static int spin_up(void)
{
	pthread_t t;

	pin_self(0); /* the child is born on cpu0 with cpu0's mask */
	t = start_thread(up_fn, NULL);
	pthread_join(t, NULL);
	pin_self(-1);
	if (up_cpu < 0) {
		printf("RESULT spin_up from_cpu=0 first_big_ms=never\n");
		return 0;
	}
	printf("RESULT spin_up from_cpu=0 first_big_ms=%.3f cpu=%d\n", (up_seen - up_t0) / 1e6,
	       up_cpu);
	return 0;
}

int main(int argc, char **argv)
{
	int maxcap = 0, ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);

	for (int c = 0; c < ncpu && c < MAX_CPUS; c++)
		maxcap = cpu_capacity(c) > maxcap ? cpu_capacity(c) : maxcap;
	for (int c = 0; c < ncpu && c < MAX_CPUS; c++)
		big[c] = cpu_capacity(c) == maxcap;
	if (argc > 1 && !strcmp(argv[1], "up"))
		return spin_up();
	if (argc > 2)
		return spin_share(atoi(argv[1]), atol(argv[2]));
	fprintf(stderr, "usage: spin N MS | spin up\n");
	return 2;
}
