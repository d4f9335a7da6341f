/* bench_crowd.c - "bench=crowd,t=N,ms=M": N threads that never block, all on one CPU (the
 * last online one), for M ms, with one more there that sleeps a millisecond at a time (a
 * wake-up into the crowded run queue each time): how the tick, the pick and the enqueue
 * grow with the number of runnable tasks (docs/performance.md). `make profile` counts only
 * the M ms: the threads' creation and their join are left out of its window. */
#include "bench.h"
#include "bench_internal.h"
#include "kernel.h"
#include "mm.h"
#include "sched.h"
#include "timer.h"

#define CROWD_CHUNK 100000ull /* work units between two looks at the stop flag */

struct crowd {
	volatile bool stop;
	u64 wakeups;
};

static void crowd_spinner(void *arg)
{
	struct crowd *c = arg;

	while (!READ_ONCE(c->stop) && !bench_interrupted())
		cpu_work(CROWD_CHUNK);
}

static void crowd_sleeper(void *arg)
{
	struct crowd *c = arg;

	while (!READ_ONCE(c->stop) && !bench_interrupted()) {
		msleep(1);
		c->wakeups++;
	}
}

/* Every thread (the sleeper first: a new task queues behind the crowd, and it has to run
 * once before it sleeps, then the n spinners) pinned to cpu and started; fewer if out of
 * memory. Returns how many were started. */
static u64 crowd_start(struct crowd *c, struct task_struct **th, u64 n, unsigned int cpu)
{
	cpumask_t one;

	cpumask_clear(&one);
	__cpumask_set_cpu(cpu, &one);
	for (u64 i = 0; i <= n; i++) {
		th[i] = kthread_create(i ? crowd_spinner : crowd_sleeper, c, "crowd");
		if (!th[i])
			return i;
		set_cpus_allowed(th[i], &one);
		wake_up_new_task(th[i]);
	}
	return n + 1;
}

int bench_crowd(const char *spec)
{
	u64 n = bench_arg(spec, "t", 10), ms = bench_arg(spec, "ms", 200), started;
	struct task_struct **th = kzalloc(sizeof(*th) * (n + 1));
	struct crowd *c = kzalloc(sizeof(*c));
	unsigned int cpu = arch_cpu_id(), c2;
	int ret = -1;

	for_each_cpu(c2, cpu_online_mask) /* the last online CPU but this one */
		if (c2 != arch_cpu_id())
			cpu = c2;
	if (!th || !c || !n || !ms || cpu == arch_cpu_id()) {
		printk("bench crowd: %s\n", th && c ? "t and ms must be at least 1, and two CPUs "
						      "online"
						    : "out of memory");
		goto out;
	}
	started = crowd_start(c, th, n, cpu);
	if (started == n + 1) {
		msleep(10);	       /* the last ones are queued */
		bench_profile_begin(); /* make profile: restart the window here */
		msleep(ms);
		bench_profile_end();
	}
	WRITE_ONCE(c->stop, true);
	for (u64 i = 0; i < started; i++)
		kthread_join(th[i]);
	if (started < n + 1) {
		printk("bench crowd: out of memory after %llu threads\n", started);
		goto out;
	}
	printk("RESULT crowd threads=%llu cpu=%u ms=%llu wakeups=%llu%s\n", n, cpu, ms, c->wakeups,
	       bench_features());
	ret = 0;
out:
	kfree(th);
	kfree(c);
	return ret;
}
