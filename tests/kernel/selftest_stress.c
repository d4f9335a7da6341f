/* selftest_stress.c - suite stress: the stress workload (kernel/bench/bench_stress.c) with
 * the run-queue invariant checker on. stress_threads: 2000 threads, every
 * one accounted for, nothing left queued, every page back. stress_oom: the
 * same while every free page is held for a while in the middle: thread and
 * pipe creation fail with NULL / -ENOMEM, then work again. The seed comes
 * from bootargs stress_seed=N (default 1). No state of its own. */
#include "bootargs.h"
#include "kernel.h"
#include "ktest.h"
#include "mm.h"
#include "pipe.h"
#include "sched.h"
#include "stress.h"
#include "timer.h"

struct baseline {
	unsigned long free_pages, slab_pages, tasks, running;
	size_t kmalloc;
};

static unsigned long nr_running_all(void)
{
	unsigned long n = 0;
	unsigned int cpu;

	for_each_cpu(cpu, cpu_online_mask)
		n += cpu_nr_running(cpu);
	return n;
}

static void take_baseline(struct baseline *b)
{
	b->free_pages = page_alloc_free_count();
	b->slab_pages = kmalloc_slab_pages();
	b->kmalloc = kmalloc_in_use();
	b->tasks = nr_tasks_alive();
	b->running = nr_running_all();
}

static u64 seed(void)
{
	char v[24];
	u64 n = 0;

	if (!bootarg_get("stress_seed", v, sizeof(v)) || !v[0])
		return 1;
	for (const char *c = v; *c >= '0' && *c <= '9'; c++)
		n = n * 10 + (u64)(*c - '0');
	return n;
}

/* Every thread accounted for, nothing left queued, every page back. */
static void expect_all_back(struct ktest *t, const struct baseline *b,
			    const struct stress_result *r)
{
	struct baseline a;

	take_baseline(&a);
	EXPECT_EQ(t, r->started, r->created + r->children);
	EXPECT_EQ(t, r->exited, r->started);
	EXPECT_EQ(t, r->joined, r->created);
	EXPECT_EQ(t, r->mutex_counted, r->mutex_ops); /* mutual exclusion held */
	EXPECT_EQ(t, r->pipe_left, 0);
	EXPECT_EQ(t, a.tasks, b->tasks);
	EXPECT_EQ(t, a.running, b->running);
	EXPECT_EQ(t, sched_check_invariants(true), 0);
	EXPECT_EQ(t, a.kmalloc, b->kmalloc);
	/* kmalloc keeps the pages it carved into size classes: count them as used. */
	EXPECT_EQ(t, a.free_pages + (a.slab_pages - b->slab_pages), b->free_pages);
}

static void stress_threads(struct ktest *t)
{
	struct stress_cfg cfg = { .total = 2000, .alive = 200, .seed = seed() };
	struct stress_result r;
	struct baseline b;

	take_baseline(&b);
	ASSERT_EQ(t, stress_run(&cfg, &r), 0);
	ktest_diag(t,
		   "seed %llu: %lu threads (+%lu children), at most %lu at once, %lu ops, "
		   "%llu mutex ops, %lu private pipes, %llu ms emulated",
		   cfg.seed, r.created, r.children, r.peak_live, r.ops, r.mutex_ops, r.pipe_ok,
		   r.ns / NSEC_PER_MSEC);
	EXPECT_GE(t, r.peak_live, cfg.alive / 2); /* hundreds at once, not a trickle */
	EXPECT_EQ(t, r.created, cfg.total);
	EXPECT_EQ(t, r.create_fail + r.child_fail + r.pipe_fail, 0);
	EXPECT_LT(t, r.ns, 20 * NSEC_PER_SEC);
	expect_all_back(t, &b, &r);
}

/* A third of the way in, once half the threads are alive, the run takes every
 * free page for 20 ms (kernel/bench/bench_stress.c). */
static void stress_oom(struct ktest *t)
{
	struct stress_cfg cfg = { .total = 600, .alive = 100, .seed = seed(), .exhaust = true };
	struct task_struct *again;
	struct stress_result r;
	struct baseline b;
	struct pipe p;

	take_baseline(&b);
	ASSERT_EQ(t, stress_run(&cfg, &r), 0);
	ktest_diag(t,
		   "held %lu pages with %lu threads running: %lu of 2 direct creations "
		   "failed, the controller's %lu, the workers' %lu in %lu ops; %lu threads, %lu "
		   "children",
		   r.held_pages, r.live_at_hold, r.fail_while_held, r.create_fail_held,
		   r.worker_fails, r.ops_during, r.created, r.children);
	EXPECT_GT(t, r.held_pages, b.free_pages / 2);
	EXPECT_EQ(t, r.fail_while_held, 2);
	EXPECT_GT(t, r.worker_fails + r.create_fail_held, 0); /* mid-stress, not only here */
	EXPECT_EQ(t, r.create_fail, 0); /* and nothing failed outside the hold */
	EXPECT_EQ(t, r.created, cfg.total);
	/* Recovered: creation works again once the memory is back. */
	again = kthread_create(NULL, NULL, "stress-again");
	EXPECT_TRUE(t, again != NULL);
	kthread_discard(again);
	EXPECT_EQ(t, pipe_init(&p, 0), 0);
	pipe_destroy(&p);
	expect_all_back(t, &b, &r);
}

KTEST_SUITE(stress, KTEST_CASE(stress_threads), KTEST_CASE(stress_oom));
