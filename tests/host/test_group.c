/* test_group.c - the CFS hierarchy (kernel/sched/fair_group.c) against Linux 6.1's
 * rules worked by hand: calc_group_shares()'s formula, PELT propagation of a detach
 * (update_tg_cfs_util: the group entity's util becomes its cfs_rq's in the one
 * update_load_avg() that propagates), and task_h_load() down a nested hierarchy
 * (update_cfs_rq_h_load's product of ratios). Machine: test_sched.c's HiKey960. */
#include "../../kernel/sched/sched_internal.h"
#include "fake_arch.h"
#include "sched_harness.h"

/* Linux 6.1 calc_group_shares(): shares = tg->shares x load / (tg->load_avg -
 * contrib + load), load = max(load.weight, load_avg), clamped to [2, tg->shares]. */
static long shares_of(unsigned long tg_shares, long tg_load, unsigned long contrib,
		      unsigned long weight, unsigned long load_avg)
{
	struct task_group tg = { .shares = tg_shares, .load_avg = tg_load };
	struct cfs_rq c = { .tg = &tg, .tg_load_avg_contrib = contrib };

	c.load.weight = weight;
	c.avg.load_avg = load_avg;
	return calc_group_shares(&c);
}

static void group_calc_shares_formula(struct ktest *t)
{
	/* 1024 x 2048 / (3000 - 1000 + 2048) = 2097152 / 4048 = 518.07 */
	EXPECT_EQ(t, shares_of(1024, 3000, 1000, 2048, 1500), 518);
	/* load_avg above the queued weight counts: 1024 x 3000 / 7000 = 438.86 */
	EXPECT_EQ(t, shares_of(1024, 6000, 2000, 1024, 3000), 438);
	/* alone on its CPU: the whole shares (weight 200: 2048) */
	EXPECT_EQ(t, shares_of(2048, 1500, 1500, 1024, 1500), 2048);
	/* load = max(1024 queued, 1000 avg): 2048 x 1024 / (3000 - 1000 + 1024) = 693.4 */
	EXPECT_EQ(t, shares_of(2048, 3000, 1000, 1024, 1000), 693);
	/* a third of the group's load: 2048 x 1000 / 3000 = 682.67 */
	EXPECT_EQ(t, shares_of(2048, 3000, 1000, 0, 1000), 682);
	/* nothing here: MIN_SHARES, not 0 */
	EXPECT_EQ(t, shares_of(1024, 5000, 0, 0, 0), 2);
	/* never above tg->shares, even with a stale tg->load_avg below the load */
	EXPECT_EQ(t, shares_of(1024, 100, 100, 4096, 4096), 1024);
}

/* A task of group P on CPU 2 runs for 100 ms: P's entity carries its util. Moved to the
 * root group, the task is detached from P's cfs_rq and the one update_load_avg() of
 * P's entity that propagates it (Linux: propagate_entity_cfs_rq) drops the entity's
 * util by the task's: entity util = cfs_rq util = before - task util. Moved back, the
 * entity gains it again at once. */
static void group_propagation_detach(struct ktest *t)
{
	struct task_group *g;
	struct task_struct *p;
	struct sched_entity *gse;
	struct cfs_rq *gcfs;
	unsigned long se0, cfs0, pu, root0;

	if (!machine_up(t))
		return;
	g = sched_group_create(NULL, "P");
	ASSERT_TRUE(t, g);
	p = task_new("t", cpumask_of(2), 0);
	EXPECT_EQ(t, sched_move_task(p, g), 0);
	task_start(p, 2);
	run_for(100 * MS);
	gse = tg_se(g, 2);
	gcfs = tg_cfs_rq(g, 2);
	se0 = gse->avg.util_avg;
	cfs0 = gcfs->avg.util_avg;
	root0 = cpu_rq(2)->cfs.avg.util_avg;
	ktest_diag(t, "before: entity util %lu, its cfs_rq %lu, root %lu, task %lu", se0, cfs0,
		   root0, p->se.avg.util_avg);
	EXPECT_TRUE(t, se0 > 400);
	EXPECT_EQ(t, sched_move_task(p, &root_task_group), 0);
	pu = p->se.avg.util_avg;
	ktest_diag(t, "after: entity util %lu, its cfs_rq %lu, root %lu, task %lu",
		   gse->avg.util_avg, gcfs->avg.util_avg, cpu_rq(2)->cfs.avg.util_avg, pu);
	EXPECT_TRUE(t, gcfs->avg.util_avg + pu <= cfs0 + 2 && gcfs->avg.util_avg + pu + 2 >= cfs0);
	EXPECT_EQ(t, gse->avg.util_avg, gcfs->avg.util_avg);
	EXPECT_TRUE(t, gse->avg.util_avg + pu <= se0 + 2 && gse->avg.util_avg + pu + 2 >= se0);
	EXPECT_EQ(t, sched_move_task(p, g), 0);
	EXPECT_EQ(t, gse->avg.util_avg, gcfs->avg.util_avg);
	EXPECT_TRUE(t, gse->avg.util_avg >= pu);
	machine_ok(t);
}

/* h_load of a task in A/B on CPU 3, beside a root hog and a task of A there: Linux's
 * update_cfs_rq_h_load() from the root down, h(child) = h(parent) x se load /
 * (parent load + 1), then task_h_load() = load x h(B) / (B load + 1), worked here
 * from the signals. A root task's is its load_avg. */
static void group_task_h_load_nested(struct ktest *t)
{
	struct task_group *a, *b;
	struct task_struct *p, *q, *r;
	struct cfs_rq *root, *ca, *cb;
	u64 h, want;

	if (!machine_up(t))
		return;
	a = sched_group_create(NULL, "A");
	b = a ? sched_group_create(a, "B") : NULL;
	ASSERT_TRUE(t, a && b);
	EXPECT_EQ(t, sched_group_set_weight(b, 300), 0);
	p = task_new("p", cpumask_of(3), 0);
	q = task_new("q", cpumask_of(3), 0);
	sched_move_task(p, b);
	sched_move_task(q, a);
	task_start(p, 3);
	task_start(q, 3);
	r = hog(3);
	sched_move_task(r, &root_task_group); /* a new task inherits current's group */
	run_for(200 * MS);
	root = &cpu_rq(3)->cfs;
	ca = tg_cfs_rq(a, 3);
	cb = tg_cfs_rq(b, 3);
	root->last_h_load_update = ca->last_h_load_update = cb->last_h_load_update = 0;
	h = root->avg.load_avg;
	h = h * tg_se(a, 3)->avg.load_avg / (root->avg.load_avg + 1);
	h = h * tg_se(b, 3)->avg.load_avg / (ca->avg.load_avg + 1);
	want = p->se.avg.load_avg * h / (cb->avg.load_avg + 1);
	ktest_diag(t, "root %lu, A se %lu cfs_rq %lu, B se %lu cfs_rq %lu, p %lu: h_load %llu",
		   root->avg.load_avg, tg_se(a, 3)->avg.load_avg, ca->avg.load_avg,
		   tg_se(b, 3)->avg.load_avg, cb->avg.load_avg, p->se.avg.load_avg, want);
	EXPECT_TRUE(t, want > 0 && want < p->se.avg.load_avg);
	EXPECT_EQ(t, task_h_load(p), want);
	EXPECT_EQ(t, task_h_load(r), r->se.avg.load_avg);
	machine_ok(t);
}

/* The leaf list update_blocked_averages() walks: a task of A/B on CPU 1 puts B's and A's
 * cfs_rqs on CPU 1's list, B's first (a child decays and propagates before its parent,
 * Linux: list_add_leaf_cfs_rq()); once the task sleeps and their blocked load has
 * decayed to 0, both leave it (cfs_rq_is_decayed()), and the root's load is 0 again. */
static void group_leaf_list_order(struct ktest *t)
{
	struct task_group *a, *b;
	struct task_struct *p;
	struct list_head *first;
	struct rq *rq;

	if (!machine_up(t))
		return;
	a = sched_group_create(NULL, "A");
	b = a ? sched_group_create(a, "B") : NULL;
	ASSERT_TRUE(t, a && b);
	rq = cpu_rq(1);
	p = task_new("p", cpumask_of(1), 0);
	sched_move_task(p, b);
	task_start(p, 1);
	run_for(50 * MS);
	first = rq->leaf_cfs_rq_list.next;
	EXPECT_TRUE(t, tg_cfs_rq(b, 1)->on_list && tg_cfs_rq(a, 1)->on_list);
	EXPECT_EQ(t, first, &tg_cfs_rq(b, 1)->leaf_cfs_rq_list);
	EXPECT_EQ(t, first->next, &tg_cfs_rq(a, 1)->leaf_cfs_rq_list);
	EXPECT_EQ(t, tg_cfs_rq(a, 1)->nr_leaf_children, 1u);
	ASSERT_TRUE(t, task_sleep(t, p));
	run_for(3000 * MS); /* ~94 half-lives: every sum reaches 0 */
	spin_lock(&rq->lock);
	update_blocked_averages(rq);
	spin_unlock(&rq->lock);
	ktest_diag(t, "after 3 s asleep: A/B load_sum %llu on_list %d, A %d, root load %lu",
		   tg_cfs_rq(b, 1)->avg.load_sum, tg_cfs_rq(b, 1)->on_list,
		   tg_cfs_rq(a, 1)->on_list, rq->cfs.avg.load_avg);
	EXPECT_FALSE(t, tg_cfs_rq(b, 1)->on_list);
	EXPECT_FALSE(t, tg_cfs_rq(a, 1)->on_list);
	EXPECT_TRUE(t, list_empty(&rq->leaf_cfs_rq_list));
	EXPECT_EQ(t, rq->cfs.avg.load_avg, 0ul);
	machine_ok(t);
}

/* A task that slept long while a hog ran on its CPU has a vruntime far behind
 * min_vruntime. Moved into a group while asleep, Linux's detach_task_cfs_rq() first
 * places it as a waking task (place_entity: at most half a latency period of credit,
 * GENTLE_FAIR_SLEEPERS), so in the new cfs_rq it sits exactly latency / 2 before
 * min_vruntime, not its whole sleep before. */
static void group_move_sleeper_placed(struct ktest *t)
{
	struct task_group *g;
	struct task_struct *p;
	struct cfs_rq *gcfs;

	if (!machine_up(t))
		return;
	g = sched_group_create(NULL, "S");
	ASSERT_TRUE(t, g);
	p = task_new("s", cpumask_of(2), 0);
	sched_move_task(p, &root_task_group);
	task_start(p, 2);
	run_for(5 * MS);
	ASSERT_TRUE(t, task_sleep(t, p));
	sched_move_task(hog(2), &root_task_group);
	run_for(300 * MS);
	EXPECT_TRUE(t, (s64)(cpu_rq(2)->cfs.min_vruntime - p->se.vruntime) >
			       (s64)sysctl_sched_latency);
	EXPECT_EQ(t, sched_move_task(p, g), 0);
	gcfs = tg_cfs_rq(g, 2);
	ktest_diag(t, "in S: vruntime - min_vruntime = %lld us (latency %u us)",
		   (long long)(s64)(p->se.vruntime - gcfs->min_vruntime) / 1000,
		   sysctl_sched_latency / 1000);
	EXPECT_EQ(t, (s64)(p->se.vruntime - gcfs->min_vruntime), -(s64)(sysctl_sched_latency / 2));
	machine_ok(t);
}

KTEST_SUITE(fair_group, KTEST_CASE(group_calc_shares_formula), KTEST_CASE(group_propagation_detach),
	    KTEST_CASE(group_task_h_load_nested), KTEST_CASE(group_leaf_list_order),
	    KTEST_CASE(group_move_sleeper_placed));
