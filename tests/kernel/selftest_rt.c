/* selftest_rt.c - RT tasks moving between CPUs as Linux 6.1 moves them (suite
 * "rt"): a waiting FIFO task is pushed to a CPU running lower-priority work
 * (push_rt_tasks()), a CPU whose RT task leaves pulls the best waiting one of an
 * overloaded CPU (pull_rt_task(), or RT_PUSH_IPI's push on its behalf), and an RT
 * task that wants a big CPU (uclamp.min 1024) is pushed to one, and RT throttling
 * leaves CFS the rest of sched_rt_runtime_us. The references are 6.1's rules,
 * written here; the push and pull cases fail with NO_RT_PUSH_PULL, where a waiting
 * RT task stays queued until its CPU is free. Bounds are emulated time. */
#include "kernel.h"
#include "ktest.h"
#include "sched.h"
#include "selftest.h"
#include "timer.h"

#define US	   1000ull
#define MS	   1000000ull
/* A push or pull and the run that follows: microseconds, plus the exit latency of the
 * idle state the target CPU was in (a cluster power-up: 2.9 ms on qemu-bl44's big
 * cluster). Without push/pull the task waits 10-20 ms here. */
#define PUSH_BOUND (5 * MS)

struct rt_hog {
	volatile bool stop;
	u64 work_ns;  /* run this long (emulated) then exit; 0: until stop */
	int cpu0;     /* where it was started */
	int moved_to; /* the first other CPU it ran on, -1: none */
	u64 moved_ns; /* when it first ran there */
	u64 end_ns;   /* when it finished */
	volatile bool started;
};

/* CPU-bound in 50 us pieces of cpu_work(), noting the first CPU other than
 * the one it started on. */
static void rt_hog_fn(void *arg)
{
	struct rt_hog *h = arg;
	u64 start = arch_clock_ns();

	h->started = true;
	while (!h->stop && (!h->work_ns || arch_clock_ns() - start < h->work_ns)) {
		int cpu = (int)arch_cpu_id();

		if (h->moved_to < 0 && cpu != h->cpu0) {
			h->moved_ns = arch_clock_ns();
			h->moved_to = cpu;
		}
		cpu_work(50 * US);
	}
	h->end_ns = arch_clock_ns();
}

/* A FIFO thread of priority prio, allowed `allowed` but started on cpu. */
static struct task_struct *rt_start(struct rt_hog *h, const char *name, unsigned int prio, int cpu,
				    const cpumask_t *allowed)
{
	struct task_struct *t = kthread_create(rt_hog_fn, h, name);

	h->cpu0 = cpu;
	h->moved_to = -1;
	if (!t)
		return NULL;
	sched_setscheduler(t, SCHED_FIFO, prio);
	set_cpus_allowed(t, cpumask_of((unsigned int)cpu));
	wake_up_new_task(t);
	while (!h->started && prio > 10) /* the prio-10 ones may have to wait for their CPU */
		msleep(1);
	if (allowed)
		set_cpus_allowed(t, allowed);
	return t;
}

static void rt_stop(struct rt_hog *h, struct task_struct *t)
{
	h->stop = true;
	if (t)
		kthread_join(t);
}

/* A FIFO task (prio 11) runs on `cpu`, free to go anywhere; a FIFO task of
 * higher priority (20) pinned there arrives and runs 20 ms. Linux 6.1: the
 * preempted task becomes pushable, the switch to the higher one queues
 * push_rt_tasks(), which moves it to find_lowest_rq()'s CPU (an idle one that
 * fits it). Returns when the lower one first ran elsewhere, from the higher
 * one's wakeup (~0: never, while the higher one ran); *to: where. */
static u64 preempt_and_watch(int cpu, int *to)
{
	struct rt_hog low = { 0 }, high = { .work_ns = 20 * MS };
	struct task_struct *tl, *th;
	u64 t0, took = ~0ull;

	tl = rt_start(&low, "rt-low", 11, cpu, cpu_online_mask);
	if (!tl)
		return ~0ull;
	t0 = arch_clock_ns();
	th = rt_start(&high, "rt-high", 20, cpu, NULL);
	if (th)
		kthread_join(th);
	if (low.moved_to >= 0 && low.moved_ns < high.end_ns)
		took = low.moved_ns - t0;
	*to = low.moved_to;
	rt_stop(&low, tl);
	return took;
}

/* Two FIFO tasks of different priority on one big CPU, the others idle: the
 * lower one runs elsewhere within one push, not when the higher one is done. */
static void rt_push_lower_to_idle(struct ktest *t)
{
	int cpu = selftest_pick_cpu(false, false), to = -1;
	u64 took;

	ASSERT_TRUE(t, cpu >= 0);
	if (num_online_cpus() < 2)
		KTEST_SKIP(t, "one CPU");
	took = preempt_and_watch(cpu, &to);
	ktest_diag(t, "the preempted FIFO task ran on CPU %d %llu us after the higher one woke", to,
		   took == ~0ull ? 0 : took / US);
	EXPECT_NE(t, took, ~0ull);
	EXPECT_LT(t, took, PUSH_BOUND); /* one push (the higher one runs 20 ms) */
	EXPECT_NE(t, to, cpu);
}

/* The capacity part of find_lowest_rq() (Linux: rt_task_fits_capacity()): an
 * RT task with uclamp.min 1024 (the RT default, set here too) waiting on a
 * LITTLE CPU is pushed to a big CPU, not to an idle LITTLE one. */
static void rt_push_to_big(struct ktest *t)
{
	int little = selftest_pick_cpu(true, false), big = selftest_pick_cpu(false, false);
	struct rt_hog low = { 0 }, high = { .work_ns = 20 * MS };
	struct task_struct *tl, *th;
	u64 t0;

	ASSERT_TRUE(t, little >= 0 && big >= 0);
	if (capacity_orig_of((unsigned int)little) == capacity_orig_of((unsigned int)big))
		KTEST_SKIP(t, "symmetric machine");
	tl = rt_start(&low, "rt-boosted", 11, little, NULL);
	ASSERT_TRUE(t, tl != NULL);
	EXPECT_EQ(t, sched_set_uclamp(tl, SCHED_CAPACITY_SCALE, SCHED_CAPACITY_SCALE), 0);
	set_cpus_allowed(tl, cpu_online_mask);
	t0 = arch_clock_ns();
	th = rt_start(&high, "rt-taker", 20, little, NULL);
	if (th)
		kthread_join(th);
	rt_stop(&low, tl);
	ktest_diag(t,
		   "uclamp.min 1024 task moved from LITTLE CPU %d to CPU %d (capacity %lu) "
		   "%llu us after its CPU was taken",
		   little, low.moved_to,
		   low.moved_to >= 0 ? capacity_orig_of((unsigned int)low.moved_to) : 0,
		   low.moved_to >= 0 ? (low.moved_ns - t0) / US : 0);
	ASSERT_TRUE(t, low.moved_to >= 0);
	EXPECT_LT(t, low.moved_ns, high.end_ns);
	EXPECT_LT(t, low.moved_ns - t0, PUSH_BOUND);
	EXPECT_EQ(t, capacity_orig_of((unsigned int)low.moved_to), SCHED_CAPACITY_SCALE);
}

/* CPUs a and b each run a FIFO 30 task pinned there; a FIFO 10 task allowed
 * both waits on a (a is overloaded). When b's task exits, b's RT priority
 * drops: Linux 6.1 pulls the waiting task to b at once (balance_rt() ->
 * pull_rt_task(); with RT_PUSH_IPI, a is asked to push it), while a's task
 * still runs. */
static void rt_pull_when_cpu_frees(struct ktest *t)
{
	struct rt_hog ha = { 0 }, hb = { .work_ns = 5 * MS }, w = { 0 };
	struct task_struct *ta, *tb, *tw;
	int a = -1, b = -1;
	cpumask_t both;
	unsigned int c;

	/* two CPUs of the largest capacity, so that fitness picks neither */
	for_each_cpu(c, cpu_online_mask) {
		if (capacity_orig_of(c) !=
		    capacity_orig_of((unsigned int)selftest_pick_cpu(false, false)))
			continue;
		if (a < 0)
			a = (int)c;
		else if (b < 0)
			b = (int)c;
	}
	if (b < 0)
		KTEST_SKIP(t, "fewer than two CPUs of the largest capacity");
	if (num_online_cpus() < 3) /* this thread must run beside the two RT hogs */
		KTEST_SKIP(t, "fewer than three CPUs");
	cpumask_clear(&both);
	cpumask_set_cpu((unsigned int)a, &both);
	cpumask_set_cpu((unsigned int)b, &both);
	ta = rt_start(&ha, "rt-a", 30, a, NULL);
	tb = rt_start(&hb, "rt-b", 30, b, NULL);
	ASSERT_TRUE(t, ta && tb);
	tw = rt_start(&w, "rt-waiter", 10, a, NULL);
	ASSERT_TRUE(t, tw != NULL);
	set_cpus_allowed(tw, &both); /* queued behind rt-a: nothing lower to go to */
	kthread_join(tb);
	msleep(10); /* rt-a runs on: only a pull brings the waiter to b */
	ktest_diag(t, "the waiter ran on CPU %d %lld us after CPU %d's RT task ended", w.moved_to,
		   w.moved_to >= 0 ? (long long)(w.moved_ns - hb.end_ns) / (long long)US : -1, b);
	EXPECT_EQ(t, w.moved_to, b);
	EXPECT_TRUE(t, w.moved_to >= 0 && w.moved_ns - hb.end_ns < PUSH_BOUND);
	w.stop = true; /* without a pull it is still queued behind rt-a */
	rt_stop(&ha, ta);
	rt_stop(&w, tw);
}

struct cfs_spin {
	volatile bool stop;
};

static void cfs_spin_fn(void *arg)
{
	struct cfs_spin *c = arg;

	while (!c->stop)
		cpu_work(100 * US);
}

/* Run time of a FIFO hog and a CFS hog pinned to one CPU over `window` ns, after
 * 100 ms together. */
static void hog_pair(int cpu, u64 window, u64 *rt_ns, u64 *cfs_ns)
{
	struct rt_hog h = { 0 };
	struct cfs_spin c = { 0 };
	struct task_struct *tc = kthread_create(cfs_spin_fn, &c, "throttle-cfs");
	struct task_struct *tr;
	u64 rt0, cfs0;

	*rt_ns = *cfs_ns = 0;
	if (!tc)
		return;
	set_cpus_allowed(tc, cpumask_of((unsigned int)cpu));
	wake_up_new_task(tc);
	tr = rt_start(&h, "throttle-fifo", 50, cpu, NULL);
	if (tr) {
		msleep(100); /* one period: the first one, entered midway, is not a whole one */
		rt0 = tr->se.sum_exec_runtime;
		cfs0 = tc->se.sum_exec_runtime;
		msleep(window / MS);
		*rt_ns = tr->se.sum_exec_runtime - rt0;
		*cfs_ns = tc->se.sum_exec_runtime - cfs0;
	}
	rt_stop(&h, tr);
	c.stop = true;
	kthread_join(tc);
}

/* Linux's RT throttling: on one CPU a FIFO hog runs at most sched_rt_runtime_us of
 * every sched_rt_period_us and a CFS hog beside it gets the rest. At 95000 of 100000 us
 * (the default's 95 %, in periods short enough for a self-test), over 5 periods the FIFO
 * hog runs at most 95 % (+ a tick's overrun, paid back in the next period) and the CFS
 * hog runs; with -1 the CFS hog gets nothing (as before throttling existed here). RT
 * time is task time (clock_task, as Linux's rt_time): what interrupts take of the CPU
 * comes out of CFS's rest (on qemu-bl64 with speed=work, ~4.6 %: CFS gets ~0.5 %).
 * Bad values are refused and change nothing. */
static void rt_throttle_95(struct ktest *t)
{
	int cpu = selftest_pick_cpu(false, false);
	long runtime, period, r2, p2;
	u64 rt_ns, cfs_ns, share;

	ASSERT_TRUE(t, cpu >= 0);
	sched_rt_bandwidth_get(&runtime, &period);
	EXPECT_EQ(t, sched_rt_bandwidth_set(200000, 100000), -EINVAL);
	EXPECT_EQ(t, sched_rt_bandwidth_set(-2, 100000), -EINVAL);
	EXPECT_EQ(t, sched_rt_bandwidth_set(1000, 0), -EINVAL);
	sched_rt_bandwidth_get(&r2, &p2);
	EXPECT_TRUE(t, r2 == runtime && p2 == period);
	ASSERT_EQ(t, sched_rt_bandwidth_set(95000, 100000), 0);
	hog_pair(cpu, 500 * MS, &rt_ns, &cfs_ns);
	share = rt_ns * 1000 / (500 * MS);
	ktest_diag(t, "95000/100000 us: FIFO %llu us (%llu.%llu %% of 500 ms), CFS %llu us",
		   rt_ns / US, share / 10, share % 10, cfs_ns / US);
	EXPECT_LE(t, share, 960); /* 95 % + a 4 ms tick's overrun in 500 ms */
	EXPECT_GE(t, share, 900);
	EXPECT_GT(t, cfs_ns, 0);
	ASSERT_EQ(t, sched_rt_bandwidth_set(-1, 100000), 0);
	hog_pair(cpu, 200 * MS, &rt_ns, &cfs_ns);
	ktest_diag(t, "-1: FIFO %llu us, CFS %llu us", rt_ns / US, cfs_ns / US);
	EXPECT_LT(t, cfs_ns, TICK_NSEC);
	EXPECT_EQ(t, sched_rt_bandwidth_set(runtime, period), 0);
}

KTEST_SUITE(rt, KTEST_CASE(rt_push_lower_to_idle), KTEST_CASE(rt_push_to_big),
	    KTEST_CASE(rt_pull_when_cpu_frees), KTEST_CASE(rt_throttle_95));
