/* selftest_eevdf.c - self-tests of the fair class under sched=eevdf (Linux 6.12's EEVDF,
 * kernel/sched/fair_eevdf.c), in emulated time: shares by nice within 2 % of the weights,
 * and a short-slice periodic task's wakeup latency beside CPU hogs under both policies.
 * Each case switches the policy itself (sched_policy_set(), as the shell's `sched`) and
 * puts back the one it found, so the suite means the same under any boot. */
#include "kernel.h"
#include "ktest.h"
#include "sched.h"
#include "timer.h"
#include "topology.h"

#define US 1000ull
#define MS 1000000ull

struct ehog {
	volatile bool stop;
	u64 runtime; /* sum_exec_runtime once stopped and off the CPU (exact) */
};

static void ehog_fn(void *arg)
{
	struct ehog *h = arg;

	while (!h->stop)
		cpu_work(200 * US);
	sleep_ns(10 * US); /* a dequeue brings sum_exec_runtime up to date */
	h->runtime = current->se.sum_exec_runtime;
}

static int biggest_cpu(void)
{
	int best = 0;

	for (int c = 0; c < (int)nr_cpu_ids; c++)
		if (cpu_online((unsigned int)c) &&
		    capacity_orig_of((unsigned int)c) > capacity_orig_of((unsigned int)best))
			best = c;
	return best;
}

static struct task_struct *start_on(void (*fn)(void *), void *arg, const char *name, int cpu,
				    int nice)
{
	struct task_struct *t = kthread_create(fn, arg, name);

	if (t) {
		set_user_nice(t, nice);
		set_cpus_allowed(t, cpumask_of((unsigned int)cpu));
		wake_up_new_task(t);
	}
	return t;
}

/* Three CPU-bound tasks of nice -2, 0 and 3 on one CPU for 1.5 s: each one's share of
 * the CPU within 2 % (relative) of its weight's share, 1586 : 1024 : 526 (Linux's
 * sched_prio_to_weight): 50.3 %, 32.9 %, 16.9 %. */
static void eevdf_nice_shares(struct ktest *t)
{
	static const int nices[3] = { -2, 0, 3 };
	static const u64 weights[3] = { 1586, 1024, 526 };
	bool was = sched_policy_is_eevdf();
	struct ehog h[3] = { 0 };
	struct task_struct *th[3];
	int cpu = biggest_cpu();
	u64 total = 0;

	ASSERT_EQ(t, sched_policy_set("eevdf"), 0);
	for (int i = 0; i < 3; i++)
		th[i] = start_on(ehog_fn, &h[i], "eshare", cpu, nices[i]);
	msleep(1500);
	for (int i = 0; i < 3; i++)
		h[i].stop = true;
	for (int i = 0; i < 3; i++)
		if (th[i])
			kthread_join(th[i]);
	sched_policy_set(was ? "eevdf" : "cfs");
	for (int i = 0; i < 3; i++) {
		ASSERT_TRUE(t, th[i] != NULL);
		total += h[i].runtime;
	}
	ASSERT_GT(t, total, 0);
	for (int i = 0; i < 3; i++) {
		u64 share = h[i].runtime * 10000 / total; /* per 10000 */
		u64 want = weights[i] * 10000 / (1586 + 1024 + 526);

		ktest_diag(t, "nice %d: %llu ms, share %llu.%02llu %% (weight: %llu.%02llu %%)",
			   nices[i], h[i].runtime / MS, share / 100, share % 100, want / 100,
			   want % 100);
		EXPECT_NEAR(t, share, want, want / 50);
	}
}

struct periodic {
	volatile bool stop;
	u64 work, period;
	u64 max_lat, sum_lat;
	unsigned int n;
};

/* WORK of work every PERIOD; the latency of each wakeup: from the period's start (its
 * timer) to running again. The first 10 periods settle and are not counted. */
static void periodic_fn(void *arg)
{
	struct periodic *p = arg;
	u64 next = arch_clock_ns();
	unsigned int k = 0;

	while (!p->stop) {
		u64 lat;

		cpu_work(p->work);
		next += p->period;
		sleep_until_ns(next);
		lat = arch_clock_ns() - next;
		if (++k <= 10)
			continue;
		p->max_lat = MAX(p->max_lat, lat);
		p->sum_lat += lat;
		p->n++;
	}
}

/* A periodic task (300 us of work every 4 ms, 7.5 %) beside 3 CPU-bound tasks on one
 * CPU, the same nice, for 250 ms under policy; its worst wakeup latency. */
static u64 latency_under(struct ktest *t, const char *policy, u64 slice, u64 *avg)
{
	struct periodic p = { .work = 300 * US, .period = 4 * MS };
	struct ehog h[3] = { 0 };
	struct task_struct *th[3], *pt;
	int cpu = biggest_cpu();

	if (sched_policy_set(policy))
		return 0;
	for (int i = 0; i < 3; i++)
		th[i] = start_on(ehog_fn, &h[i], "ehog", cpu, 0);
	pt = kthread_create(periodic_fn, &p, "eshort");
	if (pt) {
		sched_set_slice(pt, slice);
		set_cpus_allowed(pt, cpumask_of((unsigned int)cpu));
		wake_up_new_task(pt);
	}
	msleep(250);
	p.stop = true;
	for (int i = 0; i < 3; i++)
		h[i].stop = true;
	for (int i = 0; i < 3; i++)
		if (th[i])
			kthread_join(th[i]);
	if (pt)
		kthread_join(pt);
	EXPECT_GT(t, p.n, 40u);
	*avg = p.n ? p.sum_lat / p.n : 0;
	return p.max_lat;
}

/* Linux 6.12's point: a task asking for short requests gets the CPU sooner when it wakes.
 * The same periodic task beside 3 hogs (base slice 2.8 ms), once with a 1 ms slice and
 * once with the base slice: the short slice's worst and average wakeup latency are lower.
 * Not "at most its slice": a virtual deadline 1 ms away is 4 ms of real time at a quarter
 * of the CPU, and a hog eligible with an earlier deadline runs first (measured here: short
 * max ~2.4-2.8 ms; CFS, for which this light task gets sleeper credit, ~15-550 us). */
static void eevdf_short_slice_latency(struct ktest *t)
{
	bool was = sched_policy_is_eevdf();
	u64 avg_s, avg_b, avg_c, s, b, c;

	s = latency_under(t, "eevdf", 1 * MS, &avg_s);
	b = latency_under(t, "eevdf", 0, &avg_b);
	c = latency_under(t, "cfs", 1 * MS, &avg_c);
	sched_policy_set(was ? "eevdf" : "cfs");
	ktest_diag(t,
		   "wakeup latency: eevdf slice 1 ms max %llu us (avg %llu), base slice max %llu "
		   "us (avg %llu); cfs max %llu us (avg %llu)",
		   s / US, avg_s / US, b / US, avg_b / US, c / US, avg_c / US);
	EXPECT_LT(t, s, b);
	EXPECT_LT(t, avg_s, avg_b);
}

/* A task that exits while not eligible (it has just run, beside a hog) leaves the queue
 * at once: Linux 6.12 never delays the dequeue of a special state such as TASK_DEAD
 * (DEQUEUE_SPECIAL). Left delayed, the dead task stayed on the tree after its memory
 * was freed, and the next thread created there corrupted it. */
static void exit_fn(void *arg)
{
	cpu_work(3 * MS);
}

static void eevdf_exit_not_delayed(struct ktest *t)
{
	bool was = sched_policy_is_eevdf();
	struct ehog h = { 0 };
	int cpu = biggest_cpu();
	struct task_struct *hog, *th;
	unsigned int left;

	ASSERT_EQ(t, sched_policy_set("eevdf"), 0);
	hog = start_on(ehog_fn, &h, "ehog", cpu, 0);
	for (int i = 0; hog && i < 20; i++)
		if ((th = start_on(exit_fn, NULL, "eexit", cpu, 0)))
			kthread_join(th);
	msleep(5);
	/* the hog alone (and this thread, if it runs there) */
	left = cpu_nr_running((unsigned int)cpu) - (arch_cpu_id() == (unsigned int)cpu);
	h.stop = true;
	if (hog)
		kthread_join(hog);
	sched_policy_set(was ? "eevdf" : "cfs");
	ASSERT_TRUE(t, hog != NULL);
	ktest_diag(t, "cpu%d runs %u task(s) after 20 exits beside a hog", cpu, left);
	EXPECT_EQ(t, left, 1u);
}

KTEST_SUITE(eevdf, KTEST_CASE(eevdf_nice_shares), KTEST_CASE(eevdf_short_slice_latency),
	    KTEST_CASE(eevdf_exit_not_delayed));
