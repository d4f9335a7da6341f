/* bench_sysbench.c - `sysbench threads` and `sysbench cpu` as kernel threads.
 * threads: T threads; an event = lock mutex (request number % M, as sysbench
 * 0.4 numbers its requests, so threads collide on a lock and sleep), yield Y
 * times, each yield also W units of emulated work (the syscall's cost on a
 * real CPU, scaled by capacity; 0: none), unlock. cpu: an event = `work`
 * units of emulated work (cpu_work, scaled by capacity and frequency) or,
 * with `real`, a prime search by instructions (not scaled). Both count
 * events until D ms of emulated time have passed. */
#include "bench.h"
#include "bench_internal.h"
#include "kernel.h"
#include "mm.h"
#include "mutex.h"
#include "sched.h"

#define SB_MAX_THREADS 64
#define SB_MAX_LOCKS   64

struct sb_ctx {
	struct barrier start;
	struct mutex locks[SB_MAX_LOCKS];
	u64 nlocks, yields, work, end_ns, t0;
	u64 requests; /* sysbench 0.4's request counter (atomic) */
	bool real, cpu;
	cpumask_t cpus; /* affinity of every thread; empty: any CPU */
	u64 events[SB_MAX_THREADS], lat[SB_MAX_THREADS];
};

struct sb_arg {
	struct sb_ctx *c;
	int id;
};

/* sysbench cpu's event: test every number up to max by trial division. */
static u64 primes_upto(u64 max)
{
	u64 n = 0;

	for (u64 c = 3; c < max; c++) {
		u64 d = 2;

		while (d * d <= c && c % d)
			d++;
		n += d * d > c;
	}
	return n;
}

static void sb_thread(void *arg)
{
	struct sb_arg *a = arg;
	struct sb_ctx *c = a->c;
	volatile u64 sink = 0;

	if (barrier_wait(&c->start))
		c->t0 = arch_clock_ns();
	while (arch_clock_ns() < c->end_ns && !bench_interrupted()) {
		u64 s = arch_clock_ns();

		if (c->cpu) {
			if (c->real)
				sink += primes_upto(c->work);
			else
				cpu_work(c->work);
		} else {
			u64 req = __atomic_fetch_add(&c->requests, 1, __ATOMIC_RELAXED);
			struct mutex *m = &c->locks[req % c->nlocks];

			mutex_lock(m);
			for (u64 y = 0; y < c->yields; y++) {
				yield();
				if (c->work)
					cpu_work(c->work);
			}
			mutex_unlock(m);
		}
		c->lat[a->id] += arch_clock_ns() - s;
		c->events[a->id]++;
	}
	(void)sink;
}

static int sb_run(struct sb_ctx *c, u64 threads, u64 ms, struct sysbench_result *r)
{
	struct task_struct *th[SB_MAX_THREADS];
	struct sb_arg a[SB_MAX_THREADS];

	barrier_init(&c->start, (unsigned int)threads + 1);
	/* All created before any starts: out of memory is then a clean refusal. */
	for (u64 i = 0; i < threads; i++) {
		a[i] = (struct sb_arg){ c, (int)i };
		th[i] = kthread_create(sb_thread, &a[i], c->cpu ? "sb-cpu" : "sb-threads");
		if (!th[i]) {
			printk("bench sysbench: out of memory for thread %llu\n", i);
			while (i--)
				kthread_discard(th[i]);
			kfree(c);
			return -1;
		}
		if (!cpumask_empty(&c->cpus))
			set_cpus_allowed(th[i], &c->cpus);
	}
	for (u64 i = 0; i < threads; i++)
		wake_up_new_task(th[i]);
	/* The end is set before anyone starts: all threads see one deadline. */
	c->end_ns = arch_clock_ns() + ms * NSEC_PER_MSEC;
	barrier_wait(&c->start);
	for (u64 i = 0; i < threads; i++)
		kthread_join(th[i]);
	*r = (struct sysbench_result){ .threads = threads, .min_events = ~0ull };
	r->ns = arch_clock_ns() - c->t0;
	for (u64 i = 0; i < threads; i++) {
		r->events += c->events[i];
		r->lat_sum_ns += c->lat[i];
		r->min_events = c->events[i] < r->min_events ? c->events[i] : r->min_events;
		r->max_events = c->events[i] > r->max_events ? c->events[i] : r->max_events;
	}
	kfree(c);
	return bench_interrupted() ? -1 : 0;
}

int bench_sysbench_threads(u64 threads, u64 locks, u64 yields, u64 work, u64 ms,
			   struct sysbench_result *r)
{
	struct sb_ctx *c;

	if (!threads || threads > SB_MAX_THREADS || !locks || locks > SB_MAX_LOCKS || !ms) {
		printk("bench sysbench-threads: t must be 1..%d, m 1..%d, d at least 1\n",
		       SB_MAX_THREADS, SB_MAX_LOCKS);
		return -1;
	}
	c = kzalloc(sizeof(*c));
	if (!c)
		return -1;
	c->nlocks = locks;
	c->yields = yields;
	c->work = work;
	for (u64 i = 0; i < locks; i++)
		mutex_init(&c->locks[i]);
	c->end_ns = ~0ull;
	return sb_run(c, threads, ms, r);
}

int bench_sysbench_cpu(u64 threads, u64 work_units, bool real, u64 ms, struct sysbench_result *r)
{
	return bench_sysbench_cpu_on(threads, work_units, real, ms, NULL, r);
}

int bench_sysbench_cpu_on(u64 threads, u64 work_units, bool real, u64 ms, const cpumask_t *cpus,
			  struct sysbench_result *r)
{
	struct sb_ctx *c;

	if (!threads || threads > SB_MAX_THREADS || !work_units || !ms) {
		printk("bench sysbench-cpu: t must be 1..%d, w and d at least 1\n", SB_MAX_THREADS);
		return -1;
	}
	c = kzalloc(sizeof(*c));
	if (!c)
		return -1;
	c->cpu = true;
	if (cpus)
		c->cpus = *cpus;
	else
		cpumask_clear(&c->cpus);
	c->real = real;
	c->work = real ? 10000 : work_units; /* real: sysbench's --cpu-max-prime=10000 */
	c->end_ns = ~0ull;
	return sb_run(c, threads, ms, r);
}
