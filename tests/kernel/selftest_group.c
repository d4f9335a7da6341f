/* selftest_group.c - self-tests of CFS group scheduling in emulated time, against Linux
 * 6.1's rules worked by hand: CPU-bound tasks pinned to one CPU share it between their
 * groups by the groups' weights, whatever the number of tasks in each (calc_group_shares
 * gives a group alone on a CPU its whole shares), nested groups split their parent's
 * share by their own weights; a group's load follows its tasks across CPUs; a task
 * leaving a group takes its util out of the group's entity at once (propagation). */
#include "kernel.h"
#include "ktest.h"
#include "sched.h"
#include "timer.h"

#define MS	  1000000ull
#define MAX_HOGS  6
#define WARMUP_MS 100
#define WINDOW_MS 400

struct hog {
	volatile bool stop;
	struct task_struct *p;
};

static void hog_fn(void *arg)
{
	struct hog *h = arg;

	while (!h->stop)
		cpu_work(1 * MS);
}

/* A hog pinned to cpu in group tg (moved there before it first runs). */
static bool hog_start(struct hog *h, unsigned int cpu, struct task_group *tg)
{
	h->stop = false;
	h->p = kthread_create(hog_fn, h, "cg-hog");
	if (!h->p)
		return false;
	set_cpus_allowed(h->p, cpumask_of(cpu));
	if (tg && sched_move_task(h->p, tg))
		return false;
	wake_up_new_task(h->p);
	return true;
}

static void hogs_stop(struct hog *h, int n)
{
	for (int i = 0; i < n; i++)
		h[i].stop = true;
	for (int i = 0; i < n; i++)
		if (h[i].p)
			kthread_join(h[i].p);
}

/* The CPU the hogs share: the last online one; the test thread stays off it. */
static unsigned int pick_cpus(cpumask_t *saved)
{
	unsigned int cpu = 0, c, other = 0;

	for_each_cpu(c, cpu_online_mask)
		cpu = c;
	for_each_cpu(c, cpu_online_mask)
		if (c != cpu)
			other = c;
	*saved = current->cpus_allowed;
	set_cpus_allowed(current, cpumask_of(other));
	return cpu;
}

/* The CPU time each hog gets in a window after a warm-up, in per mille of the window's
 * total. */
static void measure(struct hog *h, int n, unsigned int *permille)
{
	u64 t0[MAX_HOGS], sum = 0;

	msleep(WARMUP_MS);
	for (int i = 0; i < n; i++)
		t0[i] = READ_ONCE(h[i].p->se.sum_exec_runtime);
	msleep(WINDOW_MS);
	for (int i = 0; i < n; i++) {
		t0[i] = READ_ONCE(h[i].p->se.sum_exec_runtime) - t0[i];
		sum += t0[i];
	}
	for (int i = 0; i < n; i++)
		permille[i] = sum ? (unsigned int)(t0[i] * 1000 / sum) : 0;
}

/* Groups A (1 hog) and B (4 hogs) of weights wa, wb on one CPU: A gets wa / (wa + wb)
 * of it, within 2 % (Linux: each group's entity weighs its shares there, the tasks of B
 * split B's). */
static void share_by_weight(struct ktest *t, unsigned int wa, unsigned int wb)
{
	struct task_group *a = sched_group_create(NULL, "cg-A"),
			  *b = sched_group_create(NULL, "cg-B");
	struct hog h[5] = { 0 };
	unsigned int pm[5], cpu, share_b = 0, want = 1000 * wa / (wa + wb);
	cpumask_t saved;

	ASSERT_TRUE(t, a && b);
	EXPECT_EQ(t, sched_group_set_weight(a, wa), 0);
	EXPECT_EQ(t, sched_group_set_weight(b, wb), 0);
	cpu = pick_cpus(&saved);
	for (int i = 0; i < 5; i++)
		ASSERT_TRUE(t, hog_start(&h[i], cpu, i ? b : a));
	measure(h, 5, pm);
	for (int i = 1; i < 5; i++)
		share_b += pm[i];
	ktest_diag(t,
		   "cpu%u, weights %u:%u: A %u.%u %%, B %u.%u %% (4 tasks: %u %u %u %u per mille)",
		   cpu, wa, wb, pm[0] / 10, pm[0] % 10, share_b / 10, share_b % 10, pm[1], pm[2],
		   pm[3], pm[4]);
	EXPECT_TRUE(t, pm[0] + 20 >= want && pm[0] <= want + 20);
	hogs_stop(h, 5);
	set_cpus_allowed(current, &saved);
	EXPECT_EQ(t, sched_group_destroy(a), 0);
	EXPECT_EQ(t, sched_group_destroy(b), 0);
}

static void group_equal_weight_halves(struct ktest *t)
{
	share_by_weight(t, 100, 100);
}

static void group_weight_ratio(struct ktest *t)
{
	share_by_weight(t, 200, 100);
}

/* N (weight 100) holds N/x (300) and N/y (100), each with one hog; M (100) beside N has
 * one: N and M halve the CPU, and N's half splits 3:1: x 37.5 %, y 12.5 %, M 50 %. */
static void group_nested_split(struct ktest *t)
{
	struct task_group *n = sched_group_create(NULL, "cg-N"),
			  *m = sched_group_create(NULL, "cg-M");
	struct task_group *x = n ? sched_group_create(n, "x") : NULL;
	struct task_group *y = n ? sched_group_create(n, "y") : NULL;
	static const unsigned int want[3] = { 375, 125, 500 };
	struct hog h[3] = { 0 };
	unsigned int pm[3], cpu;
	cpumask_t saved;

	ASSERT_TRUE(t, n && m && x && y);
	EXPECT_EQ(t, sched_group_set_weight(x, 300), 0);
	cpu = pick_cpus(&saved);
	ASSERT_TRUE(t, hog_start(&h[0], cpu, x));
	ASSERT_TRUE(t, hog_start(&h[1], cpu, y));
	ASSERT_TRUE(t, hog_start(&h[2], cpu, m));
	measure(h, 3, pm);
	ktest_diag(t, "cpu%u: N/x %u, N/y %u, M %u per mille (want 375 125 500)", cpu, pm[0], pm[1],
		   pm[2]);
	for (int i = 0; i < 3; i++)
		EXPECT_TRUE(t, pm[i] + 20 >= want[i] && pm[i] <= want[i] + 20);
	hogs_stop(h, 3);
	set_cpus_allowed(current, &saved);
	EXPECT_EQ(t, sched_group_destroy(x), 0);
	EXPECT_EQ(t, sched_group_destroy(y), 0);
	EXPECT_EQ(t, sched_group_destroy(n), 0);
	EXPECT_EQ(t, sched_group_destroy(m), 0);
}

/* A hog of group G on CPU c1 gives G's cfs_rq there its load (a nice-0 hog: ~1024) and
 * none on c2; moved to c2 (affinity), its load leaves c1's cfs_rq at once (detached by
 * the migration) and builds up on c2's; tg->load_avg follows. */
static void group_load_follows_task(struct ktest *t)
{
	struct task_group *g = sched_group_create(NULL, "cg-G");
	struct sched_group_cpu s1, s2;
	unsigned int c1, c2;
	struct hog h = { 0 };
	cpumask_t saved;

	ASSERT_TRUE(t, g);
	c2 = pick_cpus(&saved);
	c1 = cpumask_first(&current->cpus_allowed);
	set_cpus_allowed(current, &saved);
	ASSERT_TRUE(t, c1 != c2);
	ASSERT_TRUE(t, hog_start(&h, c1, g));
	msleep(200);
	sched_group_cpu_stats(g, c1, &s1);
	sched_group_cpu_stats(g, c2, &s2);
	ktest_diag(t, "on cpu%u: cfs_rq load %lu on cpu%u, %lu on cpu%u; tg load_avg %ld", c1,
		   s1.cfs_load, c1, s2.cfs_load, c2, sched_group_load_avg(g));
	EXPECT_TRUE(t, s1.cfs_load > 700 && s2.cfs_load < 50);
	EXPECT_TRUE(t, s1.se_load > 700);
	set_cpus_allowed(h.p, cpumask_of(c2));
	msleep(5);
	sched_group_cpu_stats(g, c1, &s1);
	ktest_diag(t, "moved to cpu%u: cfs_rq load on cpu%u %lu after 5 ms", c2, c1, s1.cfs_load);
	EXPECT_TRUE(t, s1.cfs_load < 50);
	msleep(200);
	sched_group_cpu_stats(g, c1, &s1);
	sched_group_cpu_stats(g, c2, &s2);
	ktest_diag(t, "200 ms later: %lu on cpu%u, %lu on cpu%u; tg load_avg %ld", s1.cfs_load, c1,
		   s2.cfs_load, c2, sched_group_load_avg(g));
	EXPECT_TRUE(t, s2.cfs_load > 700 && s1.cfs_load < 50);
	EXPECT_TRUE(t, sched_group_load_avg(g) > 700 && sched_group_load_avg(g) < 1400);
	hogs_stop(&h, 1);
	EXPECT_EQ(t, sched_group_destroy(g), 0);
}

/* A hog in group P: P's entity carries the hog's util; moved to the root group, the
 * hog's util leaves P's cfs_rq and, propagated in the same update, P's entity (Linux:
 * detach_entity_cfs_rq -> propagate_entity_cfs_rq -> update_tg_cfs_util). */
static void group_propagation_on_leave(struct ktest *t)
{
	struct task_group *g = sched_group_create(NULL, "cg-P");
	struct sched_group_cpu before, after;
	unsigned int cpu;
	struct hog h = { 0 };
	unsigned long util;
	cpumask_t saved;

	ASSERT_TRUE(t, g);
	cpu = pick_cpus(&saved);
	ASSERT_TRUE(t, hog_start(&h, cpu, g));
	msleep(150);
	sched_group_cpu_stats(g, cpu, &before);
	EXPECT_EQ(t, sched_move_task(h.p, sched_group_find("")), 0);
	sched_group_cpu_stats(g, cpu, &after);
	util = READ_ONCE(h.p->se.avg.util_avg);
	ktest_diag(t, "group entity util %lu -> %lu, hog util %lu; cfs_rq util %lu -> %lu",
		   before.se_util, after.se_util, util, before.cfs_util, after.cfs_util);
	EXPECT_TRUE(t, before.se_util > 300);
	/* within 2 % of the hog's util: the hog ran between the two reads */
	EXPECT_TRUE(t, after.se_util + util <= before.se_util + util / 50 + 2);
	EXPECT_TRUE(t, after.se_util <= after.cfs_util + 1);
	hogs_stop(&h, 1);
	set_cpus_allowed(current, &saved);
	EXPECT_EQ(t, sched_group_destroy(g), 0);
}

KTEST_SUITE(cgroup, KTEST_CASE(group_equal_weight_halves), KTEST_CASE(group_weight_ratio),
	    KTEST_CASE(group_nested_split), KTEST_CASE(group_load_follows_task),
	    KTEST_CASE(group_propagation_on_leave));
