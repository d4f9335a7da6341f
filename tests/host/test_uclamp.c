/* test_uclamp.c - uclamp against Linux 6.1's rules, worked by hand from Linux's
 * core.c (uclamp_rq_inc_id/dec_id, uclamp_idle_value, uclamp_eff_get,
 * __setscheduler_uclamp), cpufreq_schedutil.c's effective_cpu_util and rt.c's
 * select_task_rq_rt/find_lowest_rq, not from our output. The machine is
 * test_sched.c's HiKey960 (CPUs 0-3 capacity 462, 4-7 1024). */
#include "../../kernel/sched/sched_internal.h"
#include "cpufreq.h"
#include "fake_arch.h"
#include "sched_harness.h"

static bool up(struct ktest *t)
{
	uclamp_host_reset();
	return machine_up(t);
}

/* A nice-0 task pinned to cpu with clamps (min, max), started there. */
static struct task_struct *clamped(unsigned int cpu, unsigned int min, unsigned int max)
{
	struct task_struct *p = task_new("clamped", cpumask_of(cpu), 0);

	sched_set_uclamp(p, min, max);
	task_start(p, cpu);
	return p;
}

static void move_to(struct task_struct *p, unsigned int cpu)
{
	set_cpus_allowed(p, cpumask_of(cpu));
	settle();
}

/* Buckets of 205 (5 buckets): [0,205) [205,410) [410,615) [615,820) [820,1024].
 * a (100, 500), b (300, 300), c (250, 1024) join CPU 4, then leave in the order b,
 * c, a. By Linux's rules: min 100 -> 300 -> 300; b leaving keeps 300 (c is still in
 * bucket 1, whose value stays the largest it saw: the accepted over-boost); c
 * leaving hands over to bucket 0: 100; a leaving: 0. Max: 500 (the idle hold is
 * replaced, not max-ed) -> 500 -> 1024; b leaving: 1024 (its bucket was not the
 * top); c leaving: bucket 2's 500; a leaving: 500 held, flagged idle; a new task d
 * (0, 200) replaces the held value: 200. */
static void uclamp_bucket_aggregation(struct ktest *t)
{
	struct task_struct *a, *b, *c, *d;
	struct rq *rq = cpu_rq(4);

	if (!up(t))
		return;
	EXPECT_EQ(t, rq->uclamp_flags, UCLAMP_FLAG_IDLE);
	EXPECT_EQ(t, uclamp_rq_value(4, UCLAMP_MAX), 1024);
	a = clamped(4, 100, 500);
	EXPECT_EQ(t, uclamp_rq_value(4, UCLAMP_MIN), 100);
	EXPECT_EQ(t, uclamp_rq_value(4, UCLAMP_MAX), 500);
	EXPECT_EQ(t, rq->uclamp_flags, 0);
	b = clamped(4, 300, 300);
	EXPECT_EQ(t, uclamp_rq_value(4, UCLAMP_MIN), 300);
	EXPECT_EQ(t, uclamp_rq_value(4, UCLAMP_MAX), 500);
	c = clamped(4, 250, 1024);
	EXPECT_EQ(t, uclamp_rq_value(4, UCLAMP_MIN), 300);
	EXPECT_EQ(t, uclamp_rq_value(4, UCLAMP_MAX), 1024);
	EXPECT_EQ(t, rq->uclamp[UCLAMP_MIN].bucket[1].tasks, 2);
	move_to(b, 5);
	EXPECT_EQ(t, uclamp_rq_value(4, UCLAMP_MIN), 300);
	EXPECT_EQ(t, uclamp_rq_value(4, UCLAMP_MAX), 1024);
	EXPECT_EQ(t, uclamp_rq_value(5, UCLAMP_MIN), 300);
	EXPECT_EQ(t, uclamp_rq_value(5, UCLAMP_MAX), 300);
	move_to(c, 5);
	EXPECT_EQ(t, uclamp_rq_value(4, UCLAMP_MIN), 100);
	EXPECT_EQ(t, uclamp_rq_value(4, UCLAMP_MAX), 500);
	move_to(a, 5);
	EXPECT_EQ(t, uclamp_rq_value(4, UCLAMP_MIN), 0);
	EXPECT_EQ(t, uclamp_rq_value(4, UCLAMP_MAX), 500);
	EXPECT_EQ(t, rq->uclamp_flags, UCLAMP_FLAG_IDLE);
	for (int i = 0; i < UCLAMP_BUCKETS; i++)
		EXPECT_EQ(t, rq->uclamp[UCLAMP_MIN].bucket[i].tasks, 0);
	d = clamped(4, 0, 200);
	EXPECT_EQ(t, uclamp_rq_value(4, UCLAMP_MAX), 200);
	EXPECT_EQ(t, uclamp_rq_value(4, UCLAMP_MIN), 0);
	/* CPU 5 holds a, b, c: min max(100, 300, 250), max max(500, 300, 1024). */
	EXPECT_EQ(t, uclamp_rq_value(5, UCLAMP_MIN), 300);
	EXPECT_EQ(t, uclamp_rq_value(5, UCLAMP_MAX), 1024);
	/* A queued task's new request recounts it (Linux: sched_setattr's dequeue/enqueue). */
	EXPECT_EQ(t, sched_set_uclamp(d, 700, 700), 0);
	EXPECT_EQ(t, uclamp_rq_value(4, UCLAMP_MIN), 700);
	EXPECT_EQ(t, uclamp_rq_value(4, UCLAMP_MAX), 700);
	EXPECT_EQ(t, rq->uclamp[UCLAMP_MIN].bucket[3].tasks, 1);
	EXPECT_EQ(t, rq->uclamp[UCLAMP_MIN].bucket[0].tasks, 0);
	machine_ok(t);
}

/* Linux's sched_uclamp_used key: with no clamp ever set the buckets stay empty; a
 * task counted while in use is still taken out after NO_UCLAMP. */
static void uclamp_unused_and_feature_off(struct ktest *t)
{
	struct task_struct *p;

	if (!up(t))
		return;
	p = hog(4);
	EXPECT_FALSE(t, uclamp_is_used());
	EXPECT_FALSE(t, p->uclamp[UCLAMP_MIN].active);
	EXPECT_EQ(t, cpu_rq(4)->uclamp_flags, UCLAMP_FLAG_IDLE);
	p = clamped(5, 600, 1024);
	EXPECT_TRUE(t, uclamp_is_used());
	EXPECT_EQ(t, uclamp_rq_value(5, UCLAMP_MIN), 600);
	EXPECT_EQ(t, sched_feat_set("NO_UCLAMP"), 0);
	EXPECT_FALSE(t, uclamp_is_used());
	EXPECT_EQ(t, uclamp_eff_value(p, UCLAMP_MIN), 0); /* as without CONFIG_UCLAMP_TASK */
	move_to(p, 6);
	EXPECT_EQ(t, cpu_rq(5)->uclamp[UCLAMP_MIN].bucket[2].tasks, 0);
	EXPECT_FALSE(t, p->uclamp[UCLAMP_MIN].active);
	machine_ok(t);
}

/* Linux: __setscheduler_uclamp(): RT gets uclamp.min = sched_util_clamp_min_rt_default
 * (1024) unless the user set one; the sysctls cut requests (uclamp_eff_get). */
static void uclamp_rt_default_and_limits(struct ktest *t)
{
	struct task_struct *p, *q;

	if (!up(t))
		return;
	p = task_new("rt", ALL_CPUS, 0);
	EXPECT_EQ(t, p->uclamp_req[UCLAMP_MIN], 0);
	EXPECT_EQ(t, sched_setscheduler(p, SCHED_FIFO, 10), 0);
	EXPECT_EQ(t, p->uclamp_req[UCLAMP_MIN], 1024);
	EXPECT_EQ(t, uclamp_eff_value(p, UCLAMP_MIN), 1024);
	EXPECT_EQ(t, sched_setscheduler(p, SCHED_NORMAL, 0), 0);
	EXPECT_EQ(t, p->uclamp_req[UCLAMP_MIN], 0);
	q = task_new("rt-user", ALL_CPUS, 0);
	EXPECT_EQ(t, sched_set_uclamp(q, 200, 1024), 0);
	EXPECT_EQ(t, sched_setscheduler(q, SCHED_RR, 5), 0);
	EXPECT_EQ(t, q->uclamp_req[UCLAMP_MIN], 200); /* user_defined survives */
	EXPECT_EQ(t, sched_setscheduler(p, SCHED_FIFO, 10), 0);
	EXPECT_EQ(t, sched_uclamp_sysctl(1024, 1024, 300), 0);
	/* (the sync of existing RT tasks walks kernel/thread.c's list: suite uclamp) */
	EXPECT_EQ(t, sched_setscheduler(p, SCHED_RR, 10), 0);
	EXPECT_EQ(t, p->uclamp_req[UCLAMP_MIN], 300);
	EXPECT_EQ(t, q->uclamp_req[UCLAMP_MIN], 200);
	EXPECT_EQ(t, sched_uclamp_sysctl(150, 800, 300), 0);
	EXPECT_EQ(t, uclamp_eff_value(p, UCLAMP_MIN), 150);
	EXPECT_EQ(t, uclamp_eff_value(q, UCLAMP_MAX), 800);
	EXPECT_EQ(t, sched_uclamp_sysctl(900, 800, 300), -1);
	EXPECT_EQ(t, sched_uclamp_sysctl(0, 1025, 300), -1);
	EXPECT_EQ(t, sched_uclamp_sysctl(0, 1024, 1025), -1);
	machine_ok(t);
}

/* Linux 6.1 select_task_rq_rt(): a new or waking RT task on a LITTLE CPU does not fit
 * it (uclamp.min 1024 > 462): find_lowest_rq() with rt_task_fits_capacity gives an
 * idle A73. With the RT default at 0 (or NO_UCLAMP) it stays where it forked. */
static void uclamp_rt_placement(struct ktest *t)
{
	struct task_struct *p;

	if (!up(t))
		return;
	p = task_new("rt", ALL_CPUS, 0);
	sched_setscheduler(p, SCHED_FIFO, 10);
	task_start(p, 0);
	EXPECT_GE(t, p->cpu, 4);
	p = task_new("rt-small", ALL_CPUS, 0);
	sched_setscheduler(p, SCHED_FIFO, 10);
	sched_set_uclamp(p, 0, 1024);
	task_start(p, 1);
	EXPECT_EQ(t, p->cpu, 1);
	sched_feat_set("NO_UCLAMP");
	p = task_new("rt-noclamp", ALL_CPUS, 0);
	sched_setscheduler(p, SCHED_FIFO, 10);
	task_start(p, 2);
	EXPECT_EQ(t, p->cpu, 2);
	machine_ok(t);
}

/* An RT task that fits nowhere free still runs: with every A73 busy with higher-priority
 * RT work, cpupri_find_fitness() falls back to the lowest CPUs, fit or not. */
static void uclamp_rt_priority_beats_fit(struct ktest *t)
{
	struct task_struct *p;

	if (!up(t))
		return;
	for (unsigned int c = 4; c < 8; c++) {
		p = task_new("rt-hi", cpumask_of(c), 0);
		sched_setscheduler(p, SCHED_FIFO, 50);
		task_start(p, c);
	}
	p = task_new("rt-lo", ALL_CPUS, 0);
	sched_setscheduler(p, SCHED_FIFO, 10);
	task_start(p, 4); /* forked on a CPU running a higher RT task */
	EXPECT_LT(t, p->cpu, 4);
	machine_ok(t);
}

/* Linux: effective_cpu_util(FREQUENCY_UTIL) with uclamp_rq_util_with(). */
static void uclamp_schedutil_util(struct ktest *t)
{
	struct sugov_cpu_util u = {
		.cfs = 100, .cap = 462, .uclamp_used = true, .uclamp_min = 1024, .uclamp_max = 1024
	};

	EXPECT_EQ(t, sugov_effective_util(&u, true), 462); /* boosted to the top */
	u = (struct sugov_cpu_util){
		.cfs = 900, .cap = 1024, .uclamp_used = true, .uclamp_max = 300
	};
	EXPECT_EQ(t, sugov_effective_util(&u, true), 300);
	u.uclamp_min = 600; /* inversion: the min wins */
	EXPECT_EQ(t, sugov_effective_util(&u, true), 600);
	u = (struct sugov_cpu_util){ .cfs = 100,
				     .rt = 50,
				     .cap = 1024,
				     .rt_runnable = true,
				     .uclamp_used = true,
				     .uclamp_max = 1024 };
	EXPECT_EQ(t, sugov_effective_util(&u, true), 150); /* RT default lowered to 0 */
	u.uclamp_used = false;
	EXPECT_EQ(t, sugov_effective_util(&u, true), 1024); /* no uclamp: RT asks for max */
	/* An OPP check: util 300 on capacity 1024 of f_max 2362 MHz asks 2362000 x 375 / 1024. */
	EXPECT_EQ(t, map_util_freq(map_util_perf(300), 2362000, 1024), 2362000ull * 375 / 1024);
}

/* Linux: uclamp_rq_util_with(rq, util, p): p's clamps join the rq's, except that an
 * idle rq's held max clamp is ignored (p will replace it). */
static void uclamp_rq_util_with_task(struct ktest *t)
{
	struct task_struct *a, *p;

	if (!up(t))
		return;
	a = clamped(4, 0, 300);
	p = task_new("waker", ALL_CPUS, 0);
	sched_set_uclamp(p, 0, 800);
	EXPECT_EQ(t, uclamp_rq_util_with(cpu_rq(4), 900, NULL), 300);
	EXPECT_EQ(t, uclamp_rq_util_with(cpu_rq(4), 900, p), 800);
	move_to(a, 5); /* CPU 4 idle, max 300 held */
	EXPECT_EQ(t, uclamp_rq_util_with(cpu_rq(4), 900, NULL), 300);
	sched_set_uclamp(p, 0, 200);
	EXPECT_EQ(t, uclamp_rq_util_with(cpu_rq(4), 900, p), 200);
	machine_ok(t);
}

/* ---- task groups: the tree, and uclamp_tg_restrict ---------------------------------- */

/* Linux 6.1 cpu_util_update_eff(): effective = requested capped by the parent's
 * effective (min also by max); uclamp_tg_restrict(): a task's request clamped into its
 * group's effective [min, max]. A [200, 600]; A/B asks [0, 400] -> [0, 400]; then
 * [500, 1024] -> [200, 600]. */
static void task_group_uclamp_restrict(struct ktest *t)
{
	struct task_group *a, *b;
	struct task_struct *p, *q;

	if (!up(t))
		return;
	a = sched_group_create(NULL, "A");
	ASSERT_TRUE(t, a);
	b = sched_group_create(a, "B");
	ASSERT_TRUE(t, b);
	EXPECT_EQ(t, sched_group_find("A/B"), b);
	EXPECT_EQ(t, sched_group_find("/A"), a);
	EXPECT_EQ(t, sched_group_find(""), &root_task_group);
	EXPECT_FALSE(t, sched_group_find("A/C"));
	EXPECT_FALSE(t, sched_group_create(a, "B")); /* taken */
	EXPECT_FALSE(t, sched_group_create(a, "x/y"));
	EXPECT_FALSE(t, sched_group_create(a, ""));
	EXPECT_EQ(t, b->uclamp[UCLAMP_MIN], 0);
	EXPECT_EQ(t, b->uclamp[UCLAMP_MAX], 1024);
	EXPECT_EQ(t, sched_group_set_uclamp(a, 200, 600), 0);
	EXPECT_EQ(t, b->uclamp[UCLAMP_MIN], 0); /* its own request 0, under A's 200 */
	EXPECT_EQ(t, b->uclamp[UCLAMP_MAX], 600);
	EXPECT_EQ(t, sched_group_set_uclamp(&root_task_group, 0, 100), -1);
	EXPECT_EQ(t, sched_group_set_uclamp(a, 700, 600), -1);
	p = task_new("p", ALL_CPUS, 0);
	q = task_new("q", ALL_CPUS, 0);
	sched_set_uclamp(q, 700, 800);
	EXPECT_EQ(t, sched_move_task(p, a), 0);
	EXPECT_EQ(t, sched_move_task(q, a), 0);
	EXPECT_EQ(t, uclamp_eff_value(p, UCLAMP_MIN), 200); /* raised by A's min */
	EXPECT_EQ(t, uclamp_eff_value(p, UCLAMP_MAX), 600);
	EXPECT_EQ(t, uclamp_eff_value(q, UCLAMP_MIN), 600);
	EXPECT_EQ(t, uclamp_eff_value(q, UCLAMP_MAX), 600);
	EXPECT_EQ(t, sched_group_set_uclamp(b, 0, 400), 0);
	sched_move_task(q, b);
	EXPECT_EQ(t, uclamp_eff_value(q, UCLAMP_MIN), 400);
	EXPECT_EQ(t, uclamp_eff_value(q, UCLAMP_MAX), 400);
	EXPECT_EQ(t, sched_group_set_uclamp(b, 500, 1024), 0);
	EXPECT_EQ(t, b->uclamp[UCLAMP_MIN], 200);
	EXPECT_EQ(t, b->uclamp[UCLAMP_MAX], 600);
	EXPECT_EQ(t, sched_group_set_weight(b, 50), 0);
	EXPECT_EQ(t, b->shares, 512);
	EXPECT_EQ(t, sched_group_set_weight(b, 0), -1);
	EXPECT_EQ(t, sched_group_destroy(a), -1); /* has a child */
	sched_move_task(q, &root_task_group);
	EXPECT_EQ(t, uclamp_eff_value(q, UCLAMP_MIN), 700);
	EXPECT_EQ(t, sched_group_destroy(b), 0);
	EXPECT_FALSE(t, sched_group_find("A/B"));
	machine_ok(t);
}

/* A queued task moved into a group is recounted at once (Linux: sched_move_task's
 * dequeue/enqueue); a group min of 1024 makes a light task want an A73. */
static void task_group_move_recounts(struct ktest *t)
{
	struct task_group *a;
	struct task_struct *p;

	if (!up(t))
		return;
	a = sched_group_create(NULL, "top-app");
	ASSERT_TRUE(t, a);
	p = clamped(1, 0, 1024);
	EXPECT_EQ(t, uclamp_rq_value(1, UCLAMP_MIN), 0);
	EXPECT_TRUE(t, task_fits_cpu(p, 1));
	EXPECT_EQ(t, sched_group_set_uclamp(a, 1024, 1024), 0);
	EXPECT_EQ(t, sched_move_task(p, a), 0);
	EXPECT_EQ(t, uclamp_rq_value(1, UCLAMP_MIN), 1024);
	EXPECT_FALSE(t, task_fits_cpu(p, 1));
	EXPECT_TRUE(t, task_fits_cpu(p, 5));
	machine_ok(t);
}

KTEST_SUITE(uclamp, KTEST_CASE(uclamp_bucket_aggregation),
	    KTEST_CASE(uclamp_unused_and_feature_off), KTEST_CASE(uclamp_rt_default_and_limits),
	    KTEST_CASE(uclamp_rt_placement), KTEST_CASE(uclamp_rt_priority_beats_fit),
	    KTEST_CASE(uclamp_schedutil_util), KTEST_CASE(uclamp_rq_util_with_task));
KTEST_SUITE(task_group, KTEST_CASE(task_group_uclamp_restrict),
	    KTEST_CASE(task_group_move_recounts));
