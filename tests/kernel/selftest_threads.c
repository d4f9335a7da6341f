/* selftest_threads.c - self-tests of thread lifetime and switching: 1000 threads
 * created and joined with nothing leaked, a two-thread ping-pong through
 * wait queues, and preemption of a thread that never yields. */
#include "kernel.h"
#include "ktest.h"
#include "mm.h"
#include "sched.h"
#include "timer.h"

static void exit_with_arg(void *arg)
{
	thread_exit((int)(uintptr_t)arg);
}

static void threads_create_join_1000(struct ktest *t)
{
	enum { TOTAL = 1000, BATCH = 50 };
	struct task_struct *th[BATCH];
	unsigned long tasks, pages;
	size_t heap;
	int bad_codes = 0, failed = 0;

	/* One batch first: kmalloc keeps the pages it carved for task_structs,
	 * so the page count is compared from this high-water mark on. */
	for (int i = 0; i < BATCH; i++)
		th[i] = kthread_run(exit_with_arg, NULL, "warmup");
	for (int i = 0; i < BATCH; i++)
		if (th[i])
			kthread_join(th[i]);
	tasks = nr_tasks_alive();
	pages = page_alloc_free_count();
	heap = kmalloc_in_use();
	for (int base = 0; base < TOTAL; base += BATCH) {
		for (int i = 0; i < BATCH; i++) {
			th[i] = kthread_run(exit_with_arg, (void *)(uintptr_t)(base + i), "t1000");
			failed += !th[i];
		}
		for (int i = 0; i < BATCH; i++)
			if (th[i] && kthread_join(th[i]) != base + i)
				bad_codes++;
	}
	EXPECT_EQ(t, failed, 0);
	EXPECT_EQ(t, bad_codes, 0);
	EXPECT_EQ(t, nr_tasks_alive(), tasks);
	EXPECT_EQ(t, kmalloc_in_use(), heap);
	EXPECT_EQ(t, page_alloc_free_count(), pages);
}

#define PINGS 500

struct pingpong {
	struct wait_queue_head wq;
	volatile int turn; /* 0: ping's turn, 1: pong's */
	int rounds[2];
};

static void pinger(void *arg, int me)
{
	struct pingpong *pp = arg;

	for (int i = 0; i < PINGS; i++) {
		wait_event(pp->wq, pp->turn == me);
		pp->rounds[me]++;
		pp->turn = !me;
		wake_up(&pp->wq);
	}
}

static void ping(void *arg)
{
	pinger(arg, 0);
}
static void pong(void *arg)
{
	pinger(arg, 1);
}

/* Both threads on one CPU: every hand-over is a context switch. */
static void threads_context_switch(struct ktest *t)
{
	struct pingpong pp = { .turn = 0 };
	struct task_struct *a, *b;
	unsigned int cpu = (arch_cpu_id() + 1) % num_online_cpus();
	u64 sw = cpu_nr_switches(cpu);

	init_waitqueue_head(&pp.wq);
	a = kthread_create(ping, &pp, "ping");
	b = kthread_create(pong, &pp, "pong");
	ASSERT_TRUE(t, a && b);
	set_cpus_allowed(a, cpumask_of(cpu));
	set_cpus_allowed(b, cpumask_of(cpu));
	wake_up_new_task(a);
	wake_up_new_task(b);
	kthread_join(a);
	kthread_join(b);
	EXPECT_EQ(t, pp.rounds[0], PINGS);
	EXPECT_EQ(t, pp.rounds[1], PINGS);
	EXPECT_GE(t, cpu_nr_switches(cpu) - sw, 2 * PINGS);
	ktest_diag(t, "%llu switches on cpu%u", cpu_nr_switches(cpu) - sw, cpu);
}

struct spin_pair {
	volatile bool other_ran;
	u64 deadline;
	bool timed_out;
};

/* Spins without yielding until the other thread has run; only preemption
 * on the tick lets that happen (the deadline turns a hang into a failure). */
static void spinner(void *arg)
{
	struct spin_pair *sp = arg;

	while (!sp->other_ran) {
		if (arch_clock_ns() > sp->deadline) {
			sp->timed_out = true;
			break;
		}
		arch_cpu_relax();
	}
}

static void marker(void *arg)
{
	((struct spin_pair *)arg)->other_ran = true;
}

static void threads_preemption(struct ktest *t)
{
	struct spin_pair sp = { false, arch_clock_ns() + 200 * NSEC_PER_MSEC, false };
	unsigned int cpu = (arch_cpu_id() + 1) % num_online_cpus();
	struct task_struct *a = kthread_create(spinner, &sp, "spinner");
	struct task_struct *b = kthread_create(marker, &sp, "marker");
	u64 start = arch_clock_ns();

	ASSERT_TRUE(t, a && b);
	set_cpus_allowed(a, cpumask_of(cpu));
	set_cpus_allowed(b, cpumask_of(cpu));
	wake_up_new_task(a);
	msleep(1); /* the spinner owns the CPU */
	wake_up_new_task(b);
	kthread_join(a);
	kthread_join(b);
	EXPECT_TRUE(t, sp.other_ran);
	EXPECT_FALSE(t, sp.timed_out);
	ktest_diag(t, "preempted after %llu us", (arch_clock_ns() - start) / 1000);
}

/* A running thread whose affinity excludes its CPU moves at once. */
static void migrate_self(void *arg)
{
	unsigned int *where = arg;
	unsigned int target = where[0];

	set_cpus_allowed(current, cpumask_of(target));
	where[1] = arch_cpu_id();
}

static void threads_affinity_move(struct ktest *t)
{
	unsigned int n = num_online_cpus();

	if (n < 2)
		KTEST_SKIP(t, "needs two CPUs");
	for (unsigned int c = 0; c < n; c++) {
		unsigned int where[2] = { (c + 1) % n, ~0u };
		struct task_struct *th = kthread_create(migrate_self, where, "mover");

		ASSERT_TRUE(t, th != NULL);
		set_cpus_allowed(th, cpumask_of(c));
		wake_up_new_task(th);
		kthread_join(th);
		EXPECT_EQ(t, where[1], (c + 1) % n);
	}
}

KTEST_SUITE(threads, KTEST_CASE(threads_create_join_1000), KTEST_CASE(threads_context_switch),
	    KTEST_CASE(threads_preemption), KTEST_CASE(threads_affinity_move));
