/* selftest_sched.c - self-tests of the scheduler's behaviour in emulated time: CFS
 * shares by nice, spreading, RT preemption, misfit up-migration, small
 * tasks staying on LITTLE CPUs, the E1 ping-pong with ASYM_PREFER_PREV off
 * and on, and random operations with the run-queue invariants checked.
 * CPU-bound work is cpu_work() (timer deadlines, docs/design.md), never spinning. */
#include "bench.h"
#include "kernel.h"
#include "ktest.h"
#include "sched.h"
#include "timer.h"
#include "topology.h"

#define US 1000ull
#define MS 1000000ull

struct hog {
	volatile bool stop;
	u64 runtime;	  /* se.sum_exec_runtime when stopped */
	u64 first_big_ns; /* when it first ran on a CPU of capacity 1024 */
	u64 start_ns;
	u32 seen_cpus;
	u64 chunk; /* work between two looks at stop; 0: 200 us */
};

/* CPU-bound until told to stop, in 200 us chunks of emulated work (or h->chunk). */
static void hog_fn(void *arg)
{
	struct hog *h = arg;

	while (!h->stop) {
		unsigned int cpu = arch_cpu_id();

		h->seen_cpus |= 1u << cpu;
		if (!h->first_big_ns && capacity_orig_of(cpu) == SCHED_CAPACITY_SCALE)
			h->first_big_ns = arch_clock_ns();
		cpu_work(h->chunk ? h->chunk : 200 * US);
	}
	h->runtime = current->se.sum_exec_runtime;
}

static struct task_struct *start_pinned(void (*fn)(void *), void *arg, const char *name,
					const cpumask_t *mask)
{
	struct task_struct *t = kthread_create(fn, arg, name);

	if (t) {
		set_cpus_allowed(t, mask);
		wake_up_new_task(t);
	}
	return t;
}

static int big_cpu(void)
{
	for (int c = (int)nr_cpu_ids - 1; c >= 0; c--)
		if (cpu_online((unsigned int)c) && capacity_orig_of((unsigned int)c) == 1024)
			return c;
	return 0;
}

/* nice 0 vs nice 5 on one CPU: shares follow the weights 1024 : 335. */
static void sched_nice_shares(struct ktest *t)
{
	struct hog a = { 0 }, b = { 0 };
	int cpu = big_cpu();
	struct task_struct *ta = kthread_create(hog_fn, &a, "nice0");
	struct task_struct *tb = kthread_create(hog_fn, &b, "nice5");
	u64 share;

	ASSERT_TRUE(t, ta && tb);
	set_user_nice(tb, 5);
	set_cpus_allowed(ta, cpumask_of(cpu));
	set_cpus_allowed(tb, cpumask_of(cpu));
	wake_up_new_task(ta);
	wake_up_new_task(tb);
	msleep(400);
	a.stop = b.stop = true;
	kthread_join(ta);
	kthread_join(tb);
	ASSERT_GT(t, a.runtime + b.runtime, 0);
	share = a.runtime * 1000 / (a.runtime + b.runtime);
	/* 1024 / (1024 + 335) = 75.3 % */
	EXPECT_NEAR(t, share, 753, 50);
	ktest_diag(t, "nice0 %llu us, nice5 %llu us: nice0 share %llu.%llu %% (weights: 75.3 %%)",
		   a.runtime / US, b.runtime / US, share / 10, share % 10);
}

/* The threads' spread over the CPUs is the balanced end state: no CPU without one, and
 * no CPU with fewer than one of smaller capacity (two each when symmetric). */
static bool spread_settled(struct task_struct **th, int nr, unsigned int *per_cpu)
{
	unsigned int cpu, n = num_online_cpus();

	memset(per_cpu, 0, NR_CPUS * sizeof(*per_cpu));
	for (int i = 0; i < nr; i++)
		per_cpu[th[i]->cpu]++;
	for_each_cpu(cpu, cpu_online_mask)
		if (!cpu_topology.asym_cpucapacity && per_cpu[cpu] != nr / n)
			return false;
	return spread_by_capacity(per_cpu); /* the rule bench spin,spread reports */
}

/* Two CPU-bound threads per CPU (16 on 8 CPUs): no CPU is left idle, and none has more
 * than its share: two each on a symmetric machine; on big.LITTLE the load
 * balancer weighs load by capacity, so a big CPU takes at least as many
 * as a LITTLE one (Linux does the same). Fork placement (Linux's
 * find_idlest_group) keeps forks in the parent's cluster once no CPU is
 * idle, so the end state is the balancer's: checked every 50 ms. How long
 * it may take depends on the suites before: a CPU that kept finding only
 * pinned tasks has doubled its balance_interval up to 512 ms, and a busy
 * CPU waits busy_factor times that, capped at max_load_balance_interval
 * (HZ x nr_cpus / 10 jiffies: 800 ms on 8 CPUs), as in Linux 6.1; its
 * first balance that finds the imbalance resets the interval. So the wait
 * is bounded by twice that cap. How much the forks leave to the balancer
 * depends on how long forking takes in emulated time (the hogs' PELT load
 * seen by find_idlest_group()): on qemu-bl64, 80 of 128 on big CPUs when
 * timer_cancel() read all 256 timer bases (183 ms of forking, settled after
 * 50-200 ms), 48 once it looked at one (10 ms, settled after 4-5 s). The hogs
 * here work a tick at a time: at 200 us those 5 s took 3 minutes of host time. */
static void sched_spread(struct ktest *t)
{
	static struct hog h[2 * NR_CPUS];
	static struct task_struct *th[2 * NR_CPUS];
	static unsigned int per_cpu[NR_CPUS];
	unsigned int cpu, other, n = num_online_cpus();
	int N = 2 * (int)n, waited = 0;
	int limit = 2 * (int)(1000 * n / 10); /* ms: 2 x max_load_balance_interval */

	memset(h, 0, sizeof(h));
	for (int i = 0; i < N; i++) {
		h[i].chunk = TICK_NSEC;
		th[i] = kthread_run(hog_fn, &h[i], "spread");
		ASSERT_TRUE(t, th[i] != NULL);
	}
	do {
		msleep(50);
		waited += 50;
	} while (!spread_settled(th, N, per_cpu) && waited < limit);
	for (int i = 0; i < N; i++)
		h[i].stop = true;
	for (int i = 0; i < N; i++)
		kthread_join(th[i]);
	ktest_diag(t, "settled after %d ms", waited);
	for_each_cpu(cpu, cpu_online_mask) {
		EXPECT_GE(t, per_cpu[cpu], 1);
		if (!cpu_topology.asym_cpucapacity)
			EXPECT_EQ(t, per_cpu[cpu], (unsigned int)N / n);
		for_each_cpu(other, cpu_online_mask)
			if (capacity_orig_of(other) < capacity_orig_of(cpu))
				EXPECT_GE(t, per_cpu[cpu], per_cpu[other]);
		ktest_diag(t, "cpu%u (capacity %lu): %u threads", cpu, capacity_orig_of(cpu),
			   per_cpu[cpu]);
	}
}

struct rt_probe {
	u64 woken, ran;
};

static void rt_fn(void *arg)
{
	struct rt_probe *p = arg;

	p->ran = arch_clock_ns();
}

/* A SCHED_FIFO thread waking on a CPU busy with CFS runs at once. */
static void sched_rt_preempts_cfs(struct ktest *t)
{
	struct hog h = { 0 };
	struct rt_probe probe = { 0 };
	int cpu = big_cpu();
	struct task_struct *hog = start_pinned(hog_fn, &h, "cfs-hog", cpumask_of(cpu));
	struct task_struct *rt = kthread_create(rt_fn, &probe, "rt-fifo");

	ASSERT_TRUE(t, hog && rt);
	ASSERT_EQ(t, sched_setscheduler(rt, SCHED_FIFO, 50), 0);
	set_cpus_allowed(rt, cpumask_of(cpu));
	msleep(10);
	probe.woken = arch_clock_ns();
	wake_up_new_task(rt);
	kthread_join(rt);
	h.stop = true;
	kthread_join(hog);
	EXPECT_GT(t, probe.ran, probe.woken);
	EXPECT_LT(t, probe.ran - probe.woken, TICK_NSEC);
	ktest_diag(t, "RT ran %llu us after its wakeup (tick %llu us)",
		   (probe.ran - probe.woken) / US, TICK_NSEC / US);
}

/* An always-running thread started on a LITTLE CPU becomes misfit and is
 * moved to a big CPU (Linux 6.1 on the same machine: 44 ms; 117 ms here on
 * qemu-bl64). */
static void sched_misfit_upmigration(struct ktest *t)
{
	struct hog h = { 0 };
	struct task_struct *th;
	u64 delay;

	if (!cpu_topology.asym_cpucapacity)
		KTEST_SKIP(t, "symmetric machine");
	th = kthread_create(hog_fn, &h, "misfit");
	ASSERT_TRUE(t, th != NULL);
	set_cpus_allowed(th, cpumask_of(0)); /* start on LITTLE cpu0 ... */
	wake_up_new_task(th);
	msleep(1);
	h.start_ns = arch_clock_ns();
	set_cpus_allowed(th, cpu_online_mask); /* ... then let it go anywhere */
	for (int i = 0; i < 200 && !h.first_big_ns; i++)
		msleep(1);
	h.stop = true;
	kthread_join(th);
	ASSERT_NE(t, h.first_big_ns, 0);
	delay = h.first_big_ns - h.start_ns;
	/* 100 ms on 8 CPUs; more CPUs add to the DIE level's balance interval, which
	 * starts at its span weight in ms (Linux: sd_init) */
	EXPECT_LT(t, delay, (92 + num_online_cpus()) * MS);
	ktest_diag(t, "on a big CPU after %llu.%03llu ms", delay / MS, delay % MS / US);
}

/* A vCPU the host paused for 10 s inside an interrupt handler: the accounting
 * takes at most a tick of it (core.c account_irq_time), so after 100 ms of a
 * busy CPU capacity_of() keeps most of capacity_orig. Counted whole, every
 * clock update in those 100 ms would be IRQ time and avg_irq would near 1024
 * (capacity 1, what `make run` showed on a busy host). */
static void sched_irq_time_bounded(struct ktest *t)
{
	struct hog h = { 0 };
	int cpu = big_cpu();
	struct task_struct *hog = start_pinned(hog_fn, &h, "irq-hog", cpumask_of(cpu));
	unsigned long flags, cap;

	ASSERT_TRUE(t, hog != NULL);
	set_cpus_allowed(current, cpumask_of(cpu));
	flags = arch_irq_save(); /* irq_time[] is this CPU's, updated at IRQ exit */
	account_irq_time(10000 * MS);
	arch_irq_restore(flags);
	set_cpus_allowed(current, cpu_online_mask);
	msleep(100);
	cap = capacity_of(cpu);
	h.stop = true;
	kthread_join(hog);
	EXPECT_GT(t, cap * 4, capacity_orig_of(cpu) * 3);
	ktest_diag(t, "capacity_of(%d) %lu of %lu, avg_irq %lu", cpu, cap, capacity_orig_of(cpu),
		   cpu_util_irq(cpu));
}

struct periodic {
	volatile bool stop;
	unsigned int wakeups, on_big;
};

/* 1 ms of work every 16 ms: it fits a LITTLE CPU and should stay there. */
static void periodic_fn(void *arg)
{
	struct periodic *p = arg;

	while (!p->stop) {
		cpu_work(1 * MS * 462 / 1024);
		sleep_ns(16 * MS);
		p->wakeups++;
		p->on_big += capacity_orig_of(arch_cpu_id()) == SCHED_CAPACITY_SCALE;
	}
}

static void sched_small_tasks_stay_little(struct ktest *t)
{
	enum { N = 4 };
	struct periodic p[N];
	struct task_struct *th[N];
	unsigned int wakeups = 0, on_big = 0;
	cpumask_t little = { { 0 } };

	if (!cpu_topology.asym_cpucapacity)
		KTEST_SKIP(t, "symmetric machine");
	memset(p, 0, sizeof(p));
	for (unsigned int c = 0; c < nr_cpu_ids; c++)
		if (cpu_online(c) && capacity_orig_of(c) < SCHED_CAPACITY_SCALE)
			__cpumask_set_cpu(c, &little);
	/* Started on the LITTLE cluster, then free to go anywhere: they must
	 * not be moved to the big CPUs (wakeups keep a prev CPU they fit). */
	for (int i = 0; i < N; i++) {
		th[i] = start_pinned(periodic_fn, &p[i], "small", &little);
		ASSERT_TRUE(t, th[i] != NULL);
	}
	msleep(20);
	for (int i = 0; i < N; i++)
		set_cpus_allowed(th[i], cpu_online_mask);
	for (int i = 0; i < N; i++)
		p[i].wakeups = p[i].on_big = 0;
	msleep(300);
	for (int i = 0; i < N; i++)
		p[i].stop = true;
	for (int i = 0; i < N; i++) {
		kthread_join(th[i]);
		wakeups += p[i].wakeups;
		on_big += p[i].on_big;
	}
	EXPECT_GT(t, wakeups, 40);
	EXPECT_LE(t, on_big * 10, wakeups); /* at most 10 % on big CPUs */
	ktest_diag(t, "%u of %u wakeups ran on a big CPU", on_big, wakeups);
}

struct pingpong {
	struct wait_queue_head wq;
	volatile int turn;
	int rounds;
};

struct pinger_arg {
	struct pingpong *pp;
	int me;
};

/* The shape of `perf bench sched pipe`: hand a token over and sleep until
 * it comes back; the wakeup is a sync one, as a pipe's is. */
static void pinger(void *arg)
{
	struct pinger_arg *a = arg;
	struct pingpong *pp = a->pp;

	for (int i = 0; i < pp->rounds; i++) {
		wait_event(pp->wq, pp->turn == a->me);
		pp->turn = !a->me;
		wake_up_sync(&pp->wq);
	}
}

/* Returns migrations of both threads over `rounds` round trips. */
static u64 run_pingpong(int rounds, u64 *wakeups)
{
	struct pingpong pp = { .turn = 0, .rounds = rounds };
	struct pinger_arg a0 = { &pp, 0 }, a1 = { &pp, 1 };
	struct task_struct *t0, *t1;
	u64 m;

	init_waitqueue_head(&pp.wq);
	t0 = kthread_run(pinger, &a0, "pipe-0");
	t1 = kthread_run(pinger, &a1, "pipe-1");
	if (!t0 || !t1)
		return ~0ull;
	/* Read the counters before the threads exit and are released. */
	while (!t0->exited || !t1->exited)
		msleep(1);
	m = t0->se.nr_migrations + t1->se.nr_migrations;
	*wakeups = t0->stats.nr_wakeups + t1->stats.nr_wakeups;
	kthread_join(t0);
	kthread_join(t1);
	return m;
}

/* E1: without prefer-prev, the asymmetric wakeup path scans from the
 * waker's busy CPU and moves the wakee almost every time; with it, the idle
 * previous CPU is kept. */
static void sched_pingpong_prefer_prev(struct ktest *t)
{
	bool was;
	u64 off, on, w_off, w_on;

	if (!cpu_topology.asym_cpucapacity)
		KTEST_SKIP(t, "symmetric machine");
	sched_feat_get("ASYM_PREFER_PREV", &was);
	sched_feat_set("NO_ASYM_PREFER_PREV");
	off = run_pingpong(1000, &w_off);
	sched_feat_set("ASYM_PREFER_PREV");
	on = run_pingpong(1000, &w_on);
	sched_feat_set(was ? "ASYM_PREFER_PREV" : "NO_ASYM_PREFER_PREV");
	EXPECT_GT(t, off * 2, w_off); /* most wakeups migrate */
	EXPECT_LT(t, on * 100, w_on); /* under 1 % */
	ktest_diag(t,
		   "NO_ASYM_PREFER_PREV: %llu migrations / %llu wakeups; "
		   "ASYM_PREFER_PREV: %llu / %llu",
		   off, w_off, on, w_on);
}

/* Random sleep / work / affinity / nice / policy / yield operations from 16
 * threads over all CPUs; the run queues must stay consistent throughout and
 * every thread must finish. */
#define RANDOM_OPS     10000
#define RANDOM_THREADS 16

static int random_ops_left, random_workers_done;

static u32 next_rand(u32 *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

static void random_worker(void *arg)
{
	struct task_struct **all = arg;
	u32 seed = (u32)(uintptr_t)current * 2654435761u;

	while (__atomic_sub_fetch(&random_ops_left, 1, __ATOMIC_RELAXED) >= 0) {
		u32 r = next_rand(&seed);
		struct task_struct *other = all[r % RANDOM_THREADS];
		cpumask_t mask = cpumask_from_u64(next_rand(&seed));

		if (!cpumask_and(&mask, &mask, cpu_online_mask))
			mask = *cpu_online_mask;

		switch (r % 7) {
		case 0:
			sleep_ns(next_rand(&seed) % (200 * US));
			break;
		case 1:
			cpu_work(next_rand(&seed) % (100 * US));
			break;
		case 2:
			set_cpus_allowed(current, &mask);
			break;
		case 3:
			set_user_nice(other ? other : current, (int)(next_rand(&seed) % 40) - 20);
			break;
		case 4:
			yield();
			break;
		case 5:
			if (other)
				set_cpus_allowed(other, &mask);
			break;
		default:
			sched_setscheduler(current,
					   next_rand(&seed) % 4 == 0 ? SCHED_RR : SCHED_NORMAL, 0);
			sched_setscheduler(current, SCHED_NORMAL, 0);
			break;
		}
	}
	set_cpus_allowed(current, cpu_online_mask);
	/* Last: after this no worker touches another (they get joined). */
	__atomic_add_fetch(&random_workers_done, 1, __ATOMIC_RELEASE);
}

static void sched_random_ops(struct ktest *t)
{
	static struct task_struct *all[RANDOM_THREADS];
	unsigned long tasks = nr_tasks_alive();
	int bad = 0, done = 0;

	random_ops_left = RANDOM_OPS;
	random_workers_done = 0;
	memset(all, 0, sizeof(all));
	for (int i = 0; i < RANDOM_THREADS; i++)
		all[i] = kthread_create(random_worker, all, "random");
	for (int i = 0; i < RANDOM_THREADS; i++) {
		ASSERT_TRUE(t, all[i] != NULL);
		wake_up_new_task(all[i]);
	}
	while (__atomic_load_n(&random_workers_done, __ATOMIC_ACQUIRE) < RANDOM_THREADS) {
		bad += sched_check_invariants(true);
		msleep(2);
	}
	for (int i = 0; i < RANDOM_THREADS; i++)
		done += kthread_join(all[i]) == 0;
	bad += sched_check_invariants(true);
	EXPECT_EQ(t, bad, 0);
	EXPECT_EQ(t, done, RANDOM_THREADS);
	EXPECT_EQ(t, nr_tasks_alive(), tasks);
}

KTEST_SUITE(sched, KTEST_CASE(sched_nice_shares), KTEST_CASE(sched_spread),
	    KTEST_CASE(sched_rt_preempts_cfs), KTEST_CASE(sched_irq_time_bounded),
	    KTEST_CASE(sched_misfit_upmigration), KTEST_CASE(sched_small_tasks_stay_little),
	    KTEST_CASE(sched_pingpong_prefer_prev), KTEST_CASE(sched_random_ops));
