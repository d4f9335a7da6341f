/* fair_group.c - CFS group scheduling (Linux 6.1 CONFIG_FAIR_GROUP_SCHED, without
 * bandwidth control or cpu.idle): a task group's sched_entity and cfs_rq per possible
 * CPU, its weight split across CPUs by its load (calc_group_shares, update_cfs_group,
 * tg->load_avg), PELT propagation of attach/detach up the hierarchy, the leaf cfs_rq
 * list update_blocked_averages() walks, h_load for the balancer, and moving a task
 * between groups. The tree is group.c's; the paths that walk it are fair.c's and
 * fair_pelt.c's. State under each CPU's rq->lock; tg->load_avg is atomic. */
#include "mm.h"
#include "sched_internal.h"

/* a += b for a signed b, stopping at 0 (Linux: add_positive()), in a's type. */
#define ADD_POS(a, b)                                                                              \
	do {                                                                                       \
		long __d = (long)(b);                                                              \
		(a) = __d < 0 && (__typeof__(a))(-__d) > (a) ? 0 : (a) + (__typeof__(a))__d;       \
	} while (0)

void init_cfs_rq_of(struct cfs_rq *cfs_rq, struct rq *rq, struct task_group *tg)
{
	cfs_rq->rq = rq;
	cfs_rq->tg = tg;
	INIT_LIST_HEAD(&cfs_rq->leaf_cfs_rq_list);
}

/* ---- creation and removal (Linux: alloc/online/unregister_fair_sched_group) ---------- */

/* The CPUs whose rq sched_init_cpu() has set up (Linux: for_each_possible_cpu, whose
 * rqs all exist from boot): a group's entity there may hold load, even offline. */
#define for_each_sched_cpu(cpu)                                                                    \
	for ((cpu) = 0; (cpu) < nr_cpu_ids; (cpu)++)                                               \
		if (cpu_rq(cpu)->idle)

/* Per possible CPU: an entity of weight NICE_0_LOAD queued (when it has work) on the
 * parent's cfs_rq there, owning a fresh cfs_rq. -1: no memory (the caller frees). */
int alloc_fair_sched_group(struct task_group *tg, struct task_group *parent)
{
	bool root = parent == &root_task_group;

	tg->cfs_rq = kzalloc(nr_cpu_ids * sizeof(*tg->cfs_rq));
	tg->se = kzalloc(nr_cpu_ids * sizeof(*tg->se));
	if (!tg->cfs_rq || !tg->se)
		return -1;
	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct cfs_rq *cfs_rq = kzalloc(sizeof(*cfs_rq));
		struct sched_entity *se = kzalloc(sizeof(*se));

		if (!cfs_rq || !se) {
			kfree(cfs_rq);
			kfree(se);
			return -1;
		}
		init_cfs_rq(cfs_rq);
		init_cfs_rq_of(cfs_rq, cpu_rq(cpu), tg);
		se->my_q = cfs_rq;
		se->parent = root ? NULL : parent->se[cpu];
		se->cfs_rq = root ? &cpu_rq(cpu)->cfs : parent->cfs_rq[cpu];
		se->depth = se->parent ? se->parent->depth + 1 : 0;
		se->load.weight = NICE_0_LOAD;
		INIT_LIST_HEAD(&se->group_node);
		tg->cfs_rq[cpu] = cfs_rq;
		tg->se[cpu] = se;
	}
	return 0;
}

/* Linux: online_fair_sched_group(): each entity synced with its cfs_rq (one on a CPU
 * that comes up later is attached by its first enqueue). */
void online_fair_sched_group(struct task_group *tg)
{
	unsigned int cpu;

	for_each_sched_cpu(cpu)
	{
		struct rq *rq = cpu_rq(cpu);
		unsigned long flags = spin_lock_irqsave(&rq->lock);

		update_rq_clock(rq);
		attach_entity_cfs_rq(tg->se[cpu]->cfs_rq, tg->se[cpu]);
		spin_unlock_irqrestore(&rq->lock, flags);
	}
}

/* Linux: unregister_fair_sched_group(): the group has no task and no child left; its
 * entities' blocked load leaves the parents' cfs_rqs, its cfs_rqs leave the leaf lists. */
void unregister_fair_sched_group(struct task_group *tg)
{
	unsigned int cpu;

	for_each_sched_cpu(cpu)
	{
		struct rq *rq = cpu_rq(cpu);
		unsigned long flags = spin_lock_irqsave(&rq->lock);

		if (tg->se[cpu]->avg.last_update_time)
			remove_entity_load_avg(tg->se[cpu]->cfs_rq, tg->se[cpu]);
		list_del_leaf_cfs_rq(tg->cfs_rq[cpu]);
		spin_unlock_irqrestore(&rq->lock, flags);
	}
}

void free_fair_sched_group(struct task_group *tg)
{
	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		if (tg->cfs_rq)
			kfree(tg->cfs_rq[cpu]);
		if (tg->se)
			kfree(tg->se[cpu]);
	}
	kfree(tg->cfs_rq);
	kfree(tg->se);
}

/* Linux: __sched_group_set_shares(): every CPU's entities of the group and its parents
 * brought up to date, then reweighted from the new shares. */
void sched_group_set_shares(struct task_group *tg, unsigned long shares)
{
	unsigned int cpu;

	shares = MIN(MAX(shares, MIN_SHARES), MAX_SHARES);
	WRITE_ONCE(tg->shares, shares);
	for_each_sched_cpu(cpu)
	{
		struct rq *rq = cpu_rq(cpu);
		unsigned long flags = spin_lock_irqsave(&rq->lock);
		struct sched_entity *se = tg->se[cpu];

		update_rq_clock(rq);
		for_each_sched_entity(se)
		{
			update_load_avg(se->cfs_rq, se, UPDATE_TG);
			update_cfs_group(se);
		}
		spin_unlock_irqrestore(&rq->lock, flags);
	}
}

/* ---- the weight of a group's entity ----------------------------------------------------- */

/*
 * Linux 6.1: calc_group_shares(). The group's shares split over the CPUs in proportion
 * to its load on each:
 *
 *                       tg->shares x load
 *   shares = ------------------------------------------    load = max(cfs_rq->load.weight,
 *            tg->load_avg - tg_load_avg_contrib + load                cfs_rq->avg.load_avg)
 *
 * (this CPU's contribution to tg->load_avg replaced by its current load, so that the
 * ratio is <= 1), clamped to [MIN_SHARES, tg->shares]. Weights are unscaled here
 * (NICE_0_LOAD 1024, Linux 64-bit: 2^20), so MIN_SHARES is 2 either way.
 */
long calc_group_shares(struct cfs_rq *cfs_rq)
{
	long tg_shares = (long)READ_ONCE(cfs_rq->tg->shares), load, tg_weight, shares;

	load = (long)MAX(cfs_rq->load.weight, cfs_rq->avg.load_avg);
	tg_weight = __atomic_load_n(&cfs_rq->tg->load_avg, __ATOMIC_RELAXED);
	tg_weight -= (long)cfs_rq->tg_load_avg_contrib;
	tg_weight += load;
	shares = tg_shares * load;
	if (tg_weight)
		shares /= tg_weight;
	return MIN(MAX(shares, (long)MIN_SHARES), tg_shares);
}

/* Linux 6.1: update_cfs_group() for a group entity (the wrapper: sched_internal.h).
 * Reweighted even at an unchanged weight, as 6.1 does (its load_avg is recomputed from
 * load_sum with the current divider; the skip came with 6.7's EEVDF reweight). */
void __update_cfs_group(struct sched_entity *se)
{
	reweight_entity(se->cfs_rq, se, (unsigned long)calc_group_shares(group_cfs_rq(se)));
}

/* Linux: update_tg_load_avg(): tg->load_avg follows the cfs_rq's load_avg, updated only
 * when it moved by more than 1/64 of what was last added (the atomic is shared by all
 * CPUs). The root group's is never read. */
void __update_tg_load_avg(struct cfs_rq *cfs_rq)
{
	long delta;

	delta = (long)cfs_rq->avg.load_avg - (long)cfs_rq->tg_load_avg_contrib;
	if ((unsigned long)(delta < 0 ? -delta : delta) > cfs_rq->tg_load_avg_contrib / 64) {
		__atomic_add_fetch(&cfs_rq->tg->load_avg, delta, __ATOMIC_RELAXED);
		cfs_rq->tg_load_avg_contrib = cfs_rq->avg.load_avg;
	}
}

/* ---- PELT propagation (Linux 6.1: propagate_entity_load_avg() and its helpers) ---------- */

/* Linux: update_tg_cfs_util(): the group entity's util is its cfs_rq's, at once. */
static void update_tg_cfs_util(struct cfs_rq *cfs_rq, struct sched_entity *se,
			       struct cfs_rq *gcfs_rq)
{
	long delta_avg = (long)gcfs_rq->avg.util_avg - (long)se->avg.util_avg, delta_sum;
	u32 divider, new_sum;

	if (!delta_avg)
		return;
	divider = get_pelt_divider(&cfs_rq->avg);
	se->avg.util_avg = gcfs_rq->avg.util_avg;
	new_sum = (u32)(se->avg.util_avg * divider);
	delta_sum = (long)new_sum - (long)se->avg.util_sum;
	se->avg.util_sum = new_sum;
	ADD_POS(cfs_rq->avg.util_avg, delta_avg);
	ADD_POS(cfs_rq->avg.util_sum, delta_sum);
	cfs_rq->avg.util_sum =
		MAX(cfs_rq->avg.util_sum, (u32)(cfs_rq->avg.util_avg * PELT_MIN_DIVIDER));
}

/* Linux: update_tg_cfs_runnable(): likewise for runnable. */
static void update_tg_cfs_runnable(struct cfs_rq *cfs_rq, struct sched_entity *se,
				   struct cfs_rq *gcfs_rq)
{
	long delta_avg = (long)gcfs_rq->avg.runnable_avg - (long)se->avg.runnable_avg, delta_sum;
	u64 new_sum;
	u32 divider;

	if (!delta_avg)
		return;
	divider = get_pelt_divider(&cfs_rq->avg);
	se->avg.runnable_avg = gcfs_rq->avg.runnable_avg;
	new_sum = (u64)se->avg.runnable_avg * divider;
	delta_sum = (long)new_sum - (long)se->avg.runnable_sum;
	se->avg.runnable_sum = new_sum;
	ADD_POS(cfs_rq->avg.runnable_avg, delta_avg);
	ADD_POS(cfs_rq->avg.runnable_sum, delta_sum);
	cfs_rq->avg.runnable_sum = MAX((u32)cfs_rq->avg.runnable_sum,
				       (u32)(cfs_rq->avg.runnable_avg * PELT_MIN_DIVIDER));
}

/* Linux: update_tg_cfs_load(): the group entity's load_sum gains what joined (at most a
 * full sum); what left is estimated from the group cfs_rq as if its tasks were equally
 * runnable, never above the entity's own; never below its running time. */
static void update_tg_cfs_load(struct cfs_rq *cfs_rq, struct sched_entity *se,
			       struct cfs_rq *gcfs_rq)
{
	long runnable_sum = gcfs_rq->prop_runnable_sum, running_sum, delta_avg;
	unsigned long load_avg;
	u64 load_sum = 0;
	s64 delta_sum;
	u32 divider;

	if (!runnable_sum)
		return;
	gcfs_rq->prop_runnable_sum = 0;
	divider = get_pelt_divider(&cfs_rq->avg);
	if (runnable_sum >= 0) {
		runnable_sum += (long)se->avg.load_sum;
		runnable_sum = MIN(runnable_sum, (long)divider);
	} else {
		if (gcfs_rq->load.weight)
			load_sum = gcfs_rq->avg.load_sum / gcfs_rq->load.weight;
		runnable_sum = (long)MIN(se->avg.load_sum, load_sum);
	}
	running_sum = (long)(se->avg.util_sum >> SCHED_CAPACITY_SHIFT);
	runnable_sum = MAX(runnable_sum, running_sum);
	load_sum = se->load.weight * (u64)runnable_sum;
	load_avg = (unsigned long)(load_sum / divider);
	delta_avg = (long)load_avg - (long)se->avg.load_avg;
	if (!delta_avg)
		return;
	delta_sum = (s64)load_sum - (s64)(se->load.weight * se->avg.load_sum);
	se->avg.load_sum = (u64)runnable_sum;
	se->avg.load_avg = load_avg;
	ADD_POS(cfs_rq->avg.load_avg, delta_avg);
	ADD_POS(cfs_rq->avg.load_sum, delta_sum);
	cfs_rq->avg.load_sum =
		MAX((u32)cfs_rq->avg.load_sum, (u32)(cfs_rq->avg.load_avg * PELT_MIN_DIVIDER));
}

/* Linux: propagate_entity_load_avg(): a group entity whose cfs_rq saw an attach or
 * detach takes the change into its own signals and passes it up. 1: it did. */
int __propagate_entity_load_avg(struct sched_entity *se)
{
	struct cfs_rq *cfs_rq, *gcfs_rq = group_cfs_rq(se);

	gcfs_rq->propagate = 0;
	cfs_rq = se->cfs_rq;
	add_tg_cfs_propagate(cfs_rq, gcfs_rq->prop_runnable_sum);
	update_tg_cfs_util(cfs_rq, se, gcfs_rq);
	update_tg_cfs_runnable(cfs_rq, se, gcfs_rq);
	update_tg_cfs_load(cfs_rq, se, gcfs_rq);
	return 1;
}

/* Linux: skip_blocked_update(): nothing left to decay or to propagate. */
bool skip_blocked_update(struct sched_entity *se)
{
	if (se->avg.load_avg || se->avg.util_avg)
		return false;
	return !group_cfs_rq(se)->propagate;
}

/* Linux: propagate_entity_cfs_rq(): after a (de)attach outside enqueue/dequeue, bring
 * each ancestor entity up to date so that the change reaches the root at once. */
void propagate_entity_cfs_rq(struct sched_entity *se)
{
	list_add_leaf_cfs_rq(cfs_rq_of(se));
	se = parent_entity(se);
	for_each_sched_entity(se)
	{
		update_load_avg(se->cfs_rq, se, UPDATE_TG);
		list_add_leaf_cfs_rq(se->cfs_rq);
	}
}

/* ---- the leaf list ------------------------------------------------------------------------ */

/*
 * update_blocked_averages() must decay a child cfs_rq before its parent, so that what
 * the child's entity propagates is folded in the same pass (Linux: list_add_leaf_cfs_rq()
 * keeps rq->leaf_cfs_rq_list children-first with its tmp_alone_branch splicing). Here: a
 * cfs_rq is inserted right before its parent, whose ancestors are added first; every
 * descendant then precedes every ancestor. The root cfs_rq is not on the list: it is
 * decayed last, always, as it was before groups existed. A cfs_rq leaves once decayed
 * and without children on the list.
 */
void __list_add_leaf_cfs_rq(struct cfs_rq *cfs_rq)
{
	struct cfs_rq *parent;

	parent = tg_se(cfs_rq->tg, cfs_rq->rq->cpu)->cfs_rq;
	if (parent->tg == &root_task_group) {
		list_add_tail(&cfs_rq->leaf_cfs_rq_list, &cfs_rq->rq->leaf_cfs_rq_list);
	} else {
		list_add_leaf_cfs_rq(parent);
		list_add_tail(&cfs_rq->leaf_cfs_rq_list, &parent->leaf_cfs_rq_list);
		parent->nr_leaf_children++;
	}
	cfs_rq->on_list = 1;
}

void list_del_leaf_cfs_rq(struct cfs_rq *cfs_rq)
{
	struct cfs_rq *parent;

	if (!cfs_rq->on_list)
		return;
	list_del_init(&cfs_rq->leaf_cfs_rq_list);
	cfs_rq->on_list = 0;
	parent = tg_se(cfs_rq->tg, cfs_rq->rq->cpu)->cfs_rq;
	if (parent->tg != &root_task_group)
		parent->nr_leaf_children--;
}

/* Linux: cfs_rq_is_decayed() (with child_cfs_rq_on_list()). */
bool cfs_rq_is_decayed(const struct cfs_rq *cfs_rq)
{
	return !cfs_rq->load.weight && !cfs_rq->avg.load_sum && !cfs_rq->avg.util_sum &&
	       !cfs_rq->avg.runnable_sum && !cfs_rq->nr_leaf_children;
}

/* ---- h_load: a task's share of its CPU's load, for the balancer ----------------------- */

/* Linux: update_cfs_rq_h_load(): once per jiffy, down the path from the highest cfs_rq
 * not yet updated: h_load(child) = h_load(parent) x se->load_avg / (parent load + 1). */
static void update_cfs_rq_h_load(struct cfs_rq *cfs_rq)
{
	unsigned long now = sched_jiffies(), load;
	struct sched_entity *se = tg_se(cfs_rq->tg, cfs_rq->rq->cpu);

	if (cfs_rq->last_h_load_update == now)
		return;
	WRITE_ONCE(cfs_rq->h_load_next, NULL);
	for_each_sched_entity(se)
	{
		cfs_rq = se->cfs_rq;
		WRITE_ONCE(cfs_rq->h_load_next, se);
		if (cfs_rq->last_h_load_update == now)
			break;
	}
	if (!se) {
		cfs_rq->h_load = cfs_rq->avg.load_avg;
		cfs_rq->last_h_load_update = now;
	}
	while ((se = READ_ONCE(cfs_rq->h_load_next)) != NULL) {
		load = cfs_rq->h_load;
		load = (unsigned long)((u64)load * se->avg.load_avg / (cfs_rq->avg.load_avg + 1));
		cfs_rq = group_cfs_rq(se);
		cfs_rq->h_load = load;
		cfs_rq->last_h_load_update = now;
	}
}

/* Linux: task_h_load() for a task of a group (the wrapper: sched_internal.h). */
unsigned long __task_h_load(struct task_struct *p)
{
	struct cfs_rq *cfs_rq = task_cfs_rq(p);

	update_cfs_rq_h_load(cfs_rq);
	return (unsigned long)((u64)p->se.avg.load_avg * cfs_rq->h_load /
			       (cfs_rq->avg.load_avg + 1));
}

/* ---- wakeup preemption, moving a task ------------------------------------------------------ */

static bool is_same_group(struct sched_entity *se, struct sched_entity *pse)
{
	return cfs_rq_of(se) == cfs_rq_of(pse);
}

static int se_depth(struct sched_entity *se)
{
	struct sched_entity *parent = parent_entity(se);

	return entity_is_task(se) ? (parent ? parent->depth + 1 : 0) : se->depth;
}

/* Linux: find_matching_se(): the ancestors of se and pse queued on one cfs_rq. */
void find_matching_se(struct sched_entity **se, struct sched_entity **pse)
{
	int d = se_depth(*se), pd = se_depth(*pse);

	while (d > pd) {
		d--;
		*se = parent_entity(*se);
	}
	while (pd > d) {
		pd--;
		*pse = parent_entity(*pse);
	}
	while (!is_same_group(*se, *pse)) {
		*se = parent_entity(*se);
		*pse = parent_entity(*pse);
	}
}

/* Linux: vruntime_normalized(): a queued task's vruntime was made relative by its
 * dequeue (DEQUEUE_SAVE), a task that never ran has its fork-time relative one; a
 * sleeper's is absolute. (No TASK_WAKING here: ttwu holds p->pi_lock throughout.) */
static bool vruntime_normalized(const struct task_struct *p)
{
	return p->on_rq || !p->se.sum_exec_runtime;
}

/* Linux: task_change_group_fair() = detach_task_cfs_rq(), set_task_rq(),
 * attach_task_cfs_rq(), called by sched_move_task() with p dequeued (and put if it
 * ran): its signals leave the old group's cfs_rq and join the new one's, both
 * propagated to the root at once; a sleeper is placed as a waking one on the old
 * cfs_rq (no unlimited sleep credit) and carried relative to min_vruntime. The group
 * pointer changes in between since a task's cfs_rq follows from it. */
void task_change_group_fair(struct task_struct *p, struct task_group *tg)
{
	struct sched_entity *se = &p->se;
	bool normalized = sched_eevdf() || vruntime_normalized(p); /* 6.12: lag travels */
	struct cfs_rq *cfs_rq;

	if (p->sched_class != &fair_sched_class || p->state == TASK_NEW) {
		WRITE_ONCE(p->sched_task_group, tg);
		return;
	}
	cfs_rq = cfs_rq_of(se);
	if (!normalized) {
		place_entity(cfs_rq, se, false);
		se->vruntime -= cfs_rq->min_vruntime;
	}
	detach_entity_cfs_rq(cfs_rq, se);
	se->avg.last_update_time = 0; /* Linux: "tell se's cfs_rq has been changed" */
	WRITE_ONCE(p->sched_task_group, tg);
	cfs_rq = cfs_rq_of(se);
	attach_entity_cfs_rq(cfs_rq, se);
	if (!normalized)
		se->vruntime += cfs_rq->min_vruntime;
}

/* ---- what the shell and the tests read ------------------------------------------------ */

int sched_group_cpu_stats(struct task_group *tg, unsigned int cpu, struct sched_group_cpu *out)
{
	struct cfs_rq *cfs_rq;
	struct sched_entity *se;

	if (!tg || tg == &root_task_group || cpu >= nr_cpu_ids)
		return -1;
	cfs_rq = tg_cfs_rq(tg, cpu);
	se = tg_se(tg, cpu);
	out->cfs_load = READ_ONCE(cfs_rq->avg.load_avg);
	out->cfs_util = READ_ONCE(cfs_rq->avg.util_avg);
	out->se_weight = READ_ONCE(se->load.weight);
	out->se_load = READ_ONCE(se->avg.load_avg);
	out->se_util = READ_ONCE(se->avg.util_avg);
	out->nr_running = READ_ONCE(cfs_rq->h_nr_running);
	return 0;
}

long sched_group_load_avg(struct task_group *tg)
{
	return tg ? __atomic_load_n(&tg->load_avg, __ATOMIC_RELAXED) : 0;
}
