/* fair.c - CFS: vruntime-ordered rbtree per run queue, slices, placement
 * of new and waking entities on the timeline, tick and wakeup preemption, buddies, the
 * class's hooks. Not which CPU a task runs on (fair_select.c: capacity, wakeup and fork
 * placement), nor load balancing (balance.c), nor when and how PELT signals update
 * (fair_pelt.c), nor the PELT maths (pelt.c). State under rq->lock. Linux:
 * kernel/sched/fair.c (6.1.192). */
#include "sched_internal.h"
#include "trace.h"

/* Linux's defaults for one CPU, scaled by 1 + ilog2(min(nr_cpus, 8))
 * (SCHED_TUNABLESCALING_LOG): 6 / 0.75 / 1 ms become 24 / 3 / 4 ms on 8 CPUs. */
unsigned int sysctl_sched_latency = 6000000;
unsigned int sysctl_sched_min_granularity = 750000;
unsigned int sysctl_sched_wakeup_granularity = 1000000;
unsigned int sysctl_sched_migration_cost = 500000;
static unsigned int sched_nr_latency = 8;

void sched_tunables_init(unsigned int nr_cpus)
{
	unsigned int n = MIN(nr_cpus, 8u), factor = 1;

	while (n >>= 1)
		factor++; /* 1 + ilog2 */
	sysctl_sched_latency = 6000000 * factor;
	sysctl_sched_min_granularity = 750000 * factor;
	sysctl_sched_wakeup_granularity = 1000000 * factor;
	eevdf_tunables_init(factor);
}

/* ---- the CFS timeline ---------------------------------------------------------------- */

/* The origin ps's VRUNTIME is shown against: CFS's min_vruntime, EEVDF's V. */
u64 task_min_vruntime(const struct task_struct *p)
{
	if (p->cpu < 0)
		return 0;
	return sched_eevdf() ? READ_ONCE(task_cfs_rq(p)->zero_vruntime)
			     : READ_ONCE(task_cfs_rq(p)->min_vruntime);
}

static inline bool entity_before(const struct sched_entity *a, const struct sched_entity *b)
{
	return (s64)(a->vruntime - b->vruntime) < 0;
}

static bool rb_less(const struct rb_node *a, const struct rb_node *b)
{
	return entity_before(rb_entry(a, struct sched_entity, run_node),
			     rb_entry(b, struct sched_entity, run_node));
}

static void __enqueue_entity(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	if (sched_eevdf()) {
		eevdf_enqueue_tree(cfs_rq, se); /* by deadline, augmented */
		return;
	}
	rb_insert_cached(&cfs_rq->tasks_timeline, &se->run_node, rb_less);
}

static void __dequeue_entity(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	if (sched_eevdf()) {
		eevdf_dequeue_tree(cfs_rq, se);
		return;
	}
	rb_erase_cached(&cfs_rq->tasks_timeline, &se->run_node);
}

static struct sched_entity *__pick_first_entity(struct cfs_rq *cfs_rq)
{
	struct rb_node *left = rb_first_cached(&cfs_rq->tasks_timeline);

	return left ? rb_entry(left, struct sched_entity, run_node) : NULL;
}

static struct sched_entity *__pick_next_entity(struct sched_entity *se)
{
	struct rb_node *next = rb_next(&se->run_node);

	return next ? rb_entry(next, struct sched_entity, run_node) : NULL;
}

/* min_vruntime follows the smallest vruntime of curr and the tree, and
 * never goes backwards (sleepers are placed relative to it). */
static void update_min_vruntime(struct cfs_rq *cfs_rq)
{
	struct sched_entity *curr = cfs_rq->curr, *left = __pick_first_entity(cfs_rq);
	u64 v = cfs_rq->min_vruntime;

	if (sched_eevdf())
		return; /* 6.12.117 has none: V (zero_vruntime) is the origin */
	if (curr && !curr->on_rq)
		curr = NULL;
	if (curr)
		v = curr->vruntime;
	if (left)
		v = curr ? ((s64)(left->vruntime - v) < 0 ? left->vruntime : v) : left->vruntime;
	if ((s64)(v - cfs_rq->min_vruntime) > 0)
		cfs_rq->min_vruntime = v;
}

static void update_load_add(struct load_weight *lw, unsigned long inc)
{
	lw->weight += inc;
}

static void update_load_sub(struct load_weight *lw, unsigned long dec)
{
	lw->weight -= dec;
}

/* Linux: __sched_period(): the latency target, stretched when more than
 * sched_nr_latency tasks share the CPU so slices stay >= min_granularity. */
static u64 sched_period(unsigned long nr_running)
{
	if (nr_running > sched_nr_latency)
		return nr_running * (u64)sysctl_sched_min_granularity;
	return sysctl_sched_latency;
}

/* Linux 6.1: sched_slice() (ALT_PERIOD, BASE_SLICE): the period for all CFS tasks of
 * the CPU, times w / W at each level up the hierarchy (W includes se when it is not
 * queued yet). */
static u64 sched_slice(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	u64 slice = sched_period(rq_of(cfs_rq)->cfs.h_nr_running + !se->on_rq);

	for_each_sched_entity(se)
	{
		struct cfs_rq *qcfs_rq = cfs_rq_of(se);
		unsigned long w = qcfs_rq->load.weight + (se->on_rq ? 0 : se->load.weight);

		if (w)
			slice = slice * se->load.weight / w;
	}
	return MAX(slice, (u64)sysctl_sched_min_granularity);
}

static u64 sched_vslice(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	return calc_delta_fair(sched_slice(cfs_rq, se), se);
}

static void clear_buddies(struct cfs_rq *cfs_rq, struct sched_entity *se);
static void enqueue_entity_eevdf(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags);

/* Charge the running entity for the time since exec_start. */
static void update_curr(struct cfs_rq *cfs_rq)
{
	struct sched_entity *curr = cfs_rq->curr;
	struct rq *rq = rq_of(cfs_rq);
	u64 now = rq->clock_task, delta;

	if (!curr || (s64)(now - curr->exec_start) <= 0)
		return;
	delta = now - curr->exec_start;
	curr->exec_start = now;
	curr->sum_exec_runtime += delta;
	curr->vruntime += calc_delta_fair(delta, curr);
	if (sched_eevdf()) {
		/* Linux 6.12: a served request or, PREEMPT_SHORT, lost eligibility */
		bool resched = eevdf_update_deadline(cfs_rq, curr);

		if (entity_is_task(curr))
			account_cpu_work(rq, task_of(curr), delta);
		if (cfs_rq->nr_running > 1 && (resched || eevdf_did_preempt_short(cfs_rq, curr))) {
			resched_curr(rq);
			clear_buddies(cfs_rq, curr);
		}
		return;
	}
	update_min_vruntime(cfs_rq);
	if (entity_is_task(curr))
		account_cpu_work(rq, task_of(curr), delta);
}

static void update_curr_fair(struct rq *rq)
{
	lockdep_assert_held(&rq->lock);
	sched_oracle_event(SCHED_EV_UPDATE_CURR, rq, rq->curr, 0);
	update_curr(cfs_rq_of(&rq->curr->se));
}

/* Linux: place_entity(). New tasks start a slice behind (START_DEBIT);
 * sleepers get at most half a latency period of credit (GENTLE_FAIR_SLEEPERS),
 * never more than they had. */
void place_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, bool initial)
{
	u64 vruntime = cfs_rq->min_vruntime;

	if (initial && sched_feat(START_DEBIT))
		vruntime += sched_vslice(cfs_rq, se);
	if (!initial) {
		u64 thresh = sysctl_sched_latency;

		if (sched_feat(GENTLE_FAIR_SLEEPERS))
			thresh >>= 1;
		vruntime -= thresh;
	}
	if ((s64)(se->vruntime - vruntime) > 0)
		vruntime = se->vruntime; /* never gain time by sleeping */
	se->vruntime = vruntime;
}

/* An entity's weight changes (a task's nice or policy, the core having dequeued it and
 * put it back if it ran; a group entity's share, fair_group.c): its load leaves the
 * cfs_rq's at the old weight and comes back at the new one, load_avg recomputed from
 * its unweighted load_sum. Linux: reweight_entity(). */
void reweight_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, unsigned long weight)
{
	bool eevdf = sched_eevdf(), curr = cfs_rq->curr == se;

	if (se->on_rq) {
		if (curr || eevdf)
			update_curr(cfs_rq);
		if (eevdf) {
			/* Linux 6.12: out of the tree (and V's sums) at the old weight, its
			 * lag and the deadline's distance from V kept at the new one */
			u64 avruntime = avg_vruntime(cfs_rq);

			if (!curr)
				__dequeue_entity(cfs_rq, se);
			eevdf_reweight(se, avruntime, weight);
		}
		update_load_sub(&cfs_rq->load, se->load.weight);
	} else if (eevdf) {
		se->vlag = se->vlag * (s64)se->load.weight / (s64)weight; /* vlag = lag / w */
	}
	dequeue_load_avg(cfs_rq, se);
	se->load.weight = weight;
	se->avg.load_avg = weight * se->avg.load_sum / get_pelt_divider(&se->avg);
	enqueue_load_avg(cfs_rq, se);
	if (se->on_rq) {
		update_load_add(&cfs_rq->load, se->load.weight);
		if (eevdf && !curr)
			__enqueue_entity(cfs_rq, se);
	}
}

void reweight_task(struct task_struct *p, unsigned long weight)
{
	lockdep_assert_held(&task_rq(p)->lock);
	reweight_entity(cfs_rq_of(&p->se), &p->se, weight);
}

/* ---- enqueue, dequeue, pick ------------------------------------------------------------ */

/* h_nr_running is counted by enqueue/dequeue_task_fair() at every level (Linux). */
static void account_entity_enqueue(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	update_load_add(&cfs_rq->load, se->load.weight);
	cfs_rq->nr_running++;
	if (entity_is_task(se))
		list_add(&se->group_node, &rq_of(cfs_rq)->cfs_tasks); /* balance.c's LRU */
}

static void account_entity_dequeue(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	update_load_sub(&cfs_rq->load, se->load.weight);
	cfs_rq->nr_running--;
	if (entity_is_task(se))
		list_del_init(&se->group_node);
}

/* Linux: se_update_runnable(): a group entity is as runnable as its tasks. */
static void se_update_runnable(struct sched_entity *se)
{
	if (!entity_is_task(se))
		se->runnable_weight = se->my_q->h_nr_running;
}

/* vruntime is kept relative to min_vruntime while a task is between run
 * queues (Linux 6.1): added back here unless it is a plain local wakeup,
 * which place_entity() positions instead. */
static void enqueue_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags)
{
	bool renorm = !(flags & ENQUEUE_WAKEUP) || (flags & ENQUEUE_MIGRATED);
	bool curr = cfs_rq->curr == se;

	if (sched_eevdf()) {
		enqueue_entity_eevdf(cfs_rq, se, flags);
		return;
	}
	if (renorm && curr)
		se->vruntime += cfs_rq->min_vruntime;
	update_curr(cfs_rq);
	if (renorm && !curr)
		se->vruntime += cfs_rq->min_vruntime;
	update_load_avg(cfs_rq, se, UPDATE_TG | DO_ATTACH);
	se_update_runnable(se);
	update_cfs_group(se);
	account_entity_enqueue(cfs_rq, se);
	if (flags & ENQUEUE_WAKEUP)
		place_entity(cfs_rq, se, false);
	if (!curr)
		__enqueue_entity(cfs_rq, se);
	se->on_rq = 1;
	if (cfs_rq->nr_running == 1)
		list_add_leaf_cfs_rq(cfs_rq);
}

/* Linux 6.12: enqueue_entity(). No relative vruntime: every enqueue is placed by its lag
 * (curr before update_curr(), which must see it at its place; others after the group
 * entity's reweight, which scales the lag). */
static void enqueue_entity_eevdf(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags)
{
	bool curr = cfs_rq->curr == se;

	if (curr)
		eevdf_place_entity(cfs_rq, se, flags);
	update_curr(cfs_rq);
	update_load_avg(cfs_rq, se, UPDATE_TG | DO_ATTACH);
	se_update_runnable(se);
	update_cfs_group(se);
	if (!curr)
		eevdf_place_entity(cfs_rq, se, flags);
	account_entity_enqueue(cfs_rq, se);
	if (!curr)
		__enqueue_entity(cfs_rq, se);
	se->on_rq = 1;
	if (cfs_rq->nr_running == 1)
		list_add_leaf_cfs_rq(cfs_rq);
}

/* Buddies: entities pick_next_entity() prefers to the leftmost while that stays fair.
 * next: the wakee that preempted (cache hot with what its waker touched); last: the task
 * it preempted (hot with its own data); skip: a task that yielded. Set and cleared at
 * every level up the hierarchy. A SCHED_IDLE task is never a buddy (Linux: se_is_idle()). */
static bool se_is_idle(struct sched_entity *se)
{
	return entity_is_task(se) && task_of(se)->policy == SCHED_IDLE;
}

static void set_next_buddy(struct sched_entity *se)
{
	for_each_sched_entity(se)
	{
		if (WARN_ON_ONCE(!se->on_rq) || se_is_idle(se))
			return;
		cfs_rq_of(se)->next = se;
	}
}

static void set_last_buddy(struct sched_entity *se)
{
	for_each_sched_entity(se)
	{
		if (WARN_ON_ONCE(!se->on_rq) || se_is_idle(se))
			return;
		cfs_rq_of(se)->last = se;
	}
}

static void set_skip_buddy(struct sched_entity *se)
{
	for_each_sched_entity(se) cfs_rq_of(se)->skip = se;
}

/* Linux: __clear_buddies_last/next/skip(): up while the parent's buddy is the path. */
#define CLEAR_BUDDY(se, field)                                                                     \
	do {                                                                                       \
		struct sched_entity *__s = (se);                                                   \
		for_each_sched_entity(__s)                                                         \
		{                                                                                  \
			if (cfs_rq_of(__s)->field != __s)                                          \
				break;                                                             \
			cfs_rq_of(__s)->field = NULL;                                              \
		}                                                                                  \
	} while (0)

static void clear_buddies(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	if (cfs_rq->last == se)
		CLEAR_BUDDY(se, last);
	if (cfs_rq->next == se)
		CLEAR_BUDDY(se, next);
	if (cfs_rq->skip == se)
		CLEAR_BUDDY(se, skip);
}

/* A task leaving for another rq under both locks (balancer, forced migration:
 * TASK_ON_RQ_MIGRATING) takes its signals along at once (DO_DETACH); one
 * that goes to sleep leaves them here, to decay as blocked load. */
static void dequeue_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags)
{
	int action = UPDATE_TG;

	if (entity_is_task(se) && task_of(se)->on_rq == TASK_ON_RQ_MIGRATING)
		action |= DO_DETACH;
	update_curr(cfs_rq);
	update_load_avg(cfs_rq, se, action);
	se_update_runnable(se);
	clear_buddies(cfs_rq, se);
	if (sched_eevdf()) {
		/* Linux 6.12: the lag leaves with it (for any dequeue), and a deadline
		 * relative to vruntime when not sleeping (PLACE_REL_DEADLINE) */
		eevdf_update_entity_lag(cfs_rq, se);
		if (sched_feat(PLACE_REL_DEADLINE) && !(flags & DEQUEUE_SLEEP)) {
			se->deadline -= se->vruntime;
			se->rel_deadline = true;
		}
	}
	if (se != cfs_rq->curr)
		__dequeue_entity(cfs_rq, se);
	se->on_rq = 0;
	account_entity_dequeue(cfs_rq, se);
	if (!(flags & DEQUEUE_SLEEP) && !sched_eevdf())
		se->vruntime -= cfs_rq->min_vruntime; /* leaving for another rq */
	if (flags & DEQUEUE_DELAYED) { /* Linux 6.12: finish_delayed_dequeue_entity() */
		se->sched_delayed = false;
		if (sched_feat(DELAY_ZERO) && se->vlag > 0)
			se->vlag = 0;
	}
	update_cfs_group(se);
	update_min_vruntime(cfs_rq);
}

/* Linux 6.12: above the entities just (de)queued, each queued group entity's request
 * is the least below it, the tree's augmentation told of it. */
static void eevdf_group_slice(struct cfs_rq *cfs_rq, struct sched_entity *se, u64 *slice)
{
	if (!sched_eevdf() || !*slice)
		return;
	se->slice = *slice;
	if (se != cfs_rq->curr)
		eevdf_propagate(se);
	*slice = cfs_rq_min_slice(cfs_rq);
}

/* Linux 6.1: enqueue_task_fair(). Up the hierarchy, each entity not yet queued is
 * enqueued (the parents as wakeups); above the first one already queued, each is
 * brought up to date and reweighted. schedutil hears of it from update_load_avg() (a
 * decay or an attach), as in Linux 6.1, not on every enqueue. */
static void enqueue_task_fair(struct rq *rq, struct task_struct *p, int flags)
{
	struct sched_entity *se = &p->se;
	unsigned int idle = p->policy == SCHED_IDLE;
	bool task_new = !(flags & ENQUEUE_WAKEUP);
	struct cfs_rq *cfs_rq;
	u64 slice = 0;

	lockdep_assert_held(&rq->lock);
	/* 6.12: a delayed task moved or changed keeps its estimate out (left at its sleep) */
	if (!(se->sched_delayed && (p->on_rq == TASK_ON_RQ_MIGRATING || (flags & ENQUEUE_RESTORE))))
		util_est_enqueue_task(&rq->cfs, p);
	if (flags & ENQUEUE_DELAYED) {
		requeue_delayed_entity(se); /* counted and queued all along */
		return;
	}
	for_each_sched_entity(se)
	{
		if (se->on_rq)
			break;
		cfs_rq = cfs_rq_of(se);
		if (slice) {
			se->slice = slice; /* 6.12: a group's request is its least one */
			se->custom_slice = true;
		}
		enqueue_entity(cfs_rq, se, flags);
		slice = sched_eevdf() ? cfs_rq_min_slice(cfs_rq) : 0;
		cfs_rq->h_nr_running++;
		cfs_rq->idle_h_nr_running += idle;
		flags = ENQUEUE_WAKEUP;
	}
	for_each_sched_entity(se)
	{
		cfs_rq = cfs_rq_of(se);
		update_load_avg(cfs_rq, se, UPDATE_TG);
		se_update_runnable(se);
		update_cfs_group(se);
		eevdf_group_slice(cfs_rq, se, &slice);
		cfs_rq->h_nr_running++;
		cfs_rq->idle_h_nr_running += idle;
	}
	/* Not a new task's first enqueue: its util is a guess (half the spare capacity). */
	if (!task_new)
		update_overutilized_status(rq);
}

/* Linux 6.12 DELAY_DEQUEUE: a task going to sleep while not eligible stays queued,
 * competing (its negative lag burnt off as V moves), until the pick meets it or it wakes.
 * Tasks only: a group entity is never delayed here (deviations.md). */
static bool delay_dequeue(struct rq *rq, struct task_struct *p, int flags)
{
	struct sched_entity *se = &p->se;
	struct cfs_rq *cfs_rq = cfs_rq_of(se);

	if (!sched_eevdf() || !sched_feat(DELAY_DEQUEUE) ||
	    (flags & (DEQUEUE_DELAYED | DEQUEUE_SPECIAL)) || !(flags & DEQUEUE_SLEEP))
		return false;
	update_curr(cfs_rq);
	clear_buddies(cfs_rq, se);
	if (entity_eligible(cfs_rq, se))
		return false;
	update_load_avg(cfs_rq, se, 0);
	se->sched_delayed = true;
	util_est_update_task(&rq->cfs, p, true);
	return true;
}

/* Linux 6.1: dequeue_task_fair(). Up the hierarchy, each entity is dequeued until one
 * whose cfs_rq keeps other load (a sleeping task there makes its group entity the next
 * buddy); above it, each is brought up to date and reweighted. util_est: the task's
 * estimate leaves the rq's first; its own is refreshed last, from the util_avg that
 * dequeue_entity() has just brought up to date. */
static void dequeue_task_fair(struct rq *rq, struct task_struct *p, int flags)
{
	struct sched_entity *se = &p->se;
	unsigned int idle = p->policy == SCHED_IDLE;
	bool task_sleep = flags & DEQUEUE_SLEEP;
	struct cfs_rq *cfs_rq;
	u64 slice = 0;

	lockdep_assert_held(&rq->lock);
	if (!(se->sched_delayed &&
	      (p->on_rq == TASK_ON_RQ_MIGRATING || (flags & (DEQUEUE_SAVE | DEQUEUE_DELAYED)))))
		util_est_dequeue_task(&rq->cfs, p);
	if (delay_dequeue(rq, p, flags))
		return;
	for_each_sched_entity(se)
	{
		cfs_rq = cfs_rq_of(se);
		dequeue_entity(cfs_rq, se, flags);
		cfs_rq->h_nr_running--;
		cfs_rq->idle_h_nr_running -= idle;
		if (cfs_rq->load.weight) {
			slice = sched_eevdf() ? cfs_rq_min_slice(cfs_rq) : 0;
			se = parent_entity(se); /* not dequeued: updated below */
			if (task_sleep && se)
				set_next_buddy(se);
			break;
		}
		flags |= DEQUEUE_SLEEP;
	}
	for_each_sched_entity(se)
	{
		cfs_rq = cfs_rq_of(se);
		update_load_avg(cfs_rq, se, UPDATE_TG);
		se_update_runnable(se);
		update_cfs_group(se);
		eevdf_group_slice(cfs_rq, se, &slice);
		cfs_rq->h_nr_running--;
		cfs_rq->idle_h_nr_running -= idle;
	}
	util_est_update_task(&rq->cfs, p, task_sleep);
}

static void set_next_entity(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	if (se->on_rq) {
		if (sched_eevdf())
			eevdf_trace_pick(cfs_rq, se);
		__dequeue_entity(cfs_rq, se);
		update_load_avg(cfs_rq, se, UPDATE_TG);
		if (sched_eevdf())
			eevdf_set_protect_slice(se); /* RUN_TO_PARITY: until this deadline */
	}
	se->exec_start = rq_of(cfs_rq)->clock_task;
	cfs_rq->curr = se;
	se->prev_sum_exec_runtime = se->sum_exec_runtime;
}

/* Linux: wakeup_preempt_entity(): -1 curr is behind, 0 within the
 * granularity, 1 se is ahead of curr by more than it. The granularity is in
 * se's virtual time so lighter tasks preempt less eagerly. */
static int wakeup_preempt_entity(struct sched_entity *curr, struct sched_entity *se)
{
	s64 vdiff = (s64)(curr->vruntime - se->vruntime);
	s64 gran = (s64)calc_delta_fair(sysctl_sched_wakeup_granularity, se);

	if (vdiff <= 0)
		return -1;
	return vdiff > gran ? 1 : 0;
}

/* Linux 6.1: pick_next_entity(). The leftmost, unless it is the skip buddy and the
 * second is within the wakeup granularity of it; then the next buddy, else the last
 * buddy, if within the granularity of the leftmost. */
static struct sched_entity *pick_next_entity(struct cfs_rq *cfs_rq, struct sched_entity *curr)
{
	struct sched_entity *left = __pick_first_entity(cfs_rq), *se;

	if (!left || (curr && entity_before(curr, left)))
		left = curr;
	se = left;
	if (cfs_rq->skip && cfs_rq->skip == se) {
		struct sched_entity *second;

		if (se == curr) {
			second = __pick_first_entity(cfs_rq);
		} else {
			second = __pick_next_entity(se);
			if (!second || (curr && entity_before(curr, second)))
				second = curr;
		}
		if (second && wakeup_preempt_entity(second, left) < 1)
			se = second;
	}
	if (cfs_rq->next && wakeup_preempt_entity(cfs_rq->next, left) < 1)
		se = cfs_rq->next; /* someone really wants it to run */
	else if (cfs_rq->last && wakeup_preempt_entity(cfs_rq->last, left) < 1)
		se = cfs_rq->last; /* give the CPU back to the task a wakeup preempted */
	return se;
}

/* Linux 6.1: pick_next_task_fair()'s simple path (the core has put prev already): down
 * the hierarchy, the entity each cfs_rq picks becomes its curr, to a task. */
static struct task_struct *pick_next_task_fair(struct rq *rq)
{
	struct cfs_rq *cfs_rq = &rq->cfs;
	struct sched_entity *se;
	struct task_struct *p;

	lockdep_assert_held(&rq->lock);
again:
	if (!cfs_rq->nr_running)
		return NULL;
	if (sched_eevdf()) { /* 6.12: a delayed sleeper picked is dequeued for good */
		do {
			se = eevdf_pick_next_entity(cfs_rq);
			cfs_rq = group_cfs_rq(se);
		} while (cfs_rq);
		cfs_rq = &rq->cfs;
		if (se->sched_delayed) {
			block_delayed_task(rq, task_of(se));
			goto again;
		}
	}
	do {
		se = sched_eevdf() ? eevdf_pick_next_entity(cfs_rq)
				   : pick_next_entity(cfs_rq, NULL);
		clear_buddies(cfs_rq, se);
		set_next_entity(cfs_rq, se);
		cfs_rq = group_cfs_rq(se);
	} while (cfs_rq);
	p = task_of(se);
	list_move(&se->group_node, &rq->cfs_tasks); /* most recently picked first */
	update_misfit_status(p, rq);
	return p;
}

/* Linux: put_prev_entity() */
static void put_prev_entity(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	if (se->on_rq) {
		update_curr(cfs_rq);
		__enqueue_entity(cfs_rq, se);
		update_load_avg(cfs_rq, se, 0);
	}
	cfs_rq->curr = NULL;
}

static void put_prev_task_fair(struct rq *rq, struct task_struct *p)
{
	struct sched_entity *se = &p->se;

	lockdep_assert_held(&rq->lock);
	for_each_sched_entity(se) put_prev_entity(cfs_rq_of(se), se);
}

static void set_next_task_fair(struct rq *rq, struct task_struct *p, bool first)
{
	struct sched_entity *se = &p->se;

	lockdep_assert_held(&rq->lock);
	if (task_on_rq_queued(p))
		list_move(&p->se.group_node, &rq->cfs_tasks);
	for_each_sched_entity(se) set_next_entity(cfs_rq_of(se), se);
	update_misfit_status(p, rq);
}

/* Linux: check_preempt_tick(): the slice is used up, or curr is more than a
 * slice ahead of the leftmost. */
static void check_preempt_tick(struct cfs_rq *cfs_rq, struct sched_entity *curr)
{
	u64 ideal = sched_slice(cfs_rq, curr);
	u64 ran = curr->sum_exec_runtime - curr->prev_sum_exec_runtime;
	struct sched_entity *first;
	s64 delta;

	if (ran > ideal) {
		resched_curr(rq_of(cfs_rq));
		clear_buddies(cfs_rq, curr);
		return;
	}
	if (ran < sysctl_sched_min_granularity)
		return;
	first = __pick_first_entity(cfs_rq);
	if (!first)
		return;
	delta = (s64)(curr->vruntime - first->vruntime);
	if (delta > 0 && (u64)delta > ideal)
		resched_curr(rq_of(cfs_rq));
}

/* Linux: entity_tick() at each level of the running task's hierarchy. */
static void task_tick_fair(struct rq *rq, struct task_struct *curr)
{
	struct sched_entity *se = &curr->se;

	lockdep_assert_held(&rq->lock);
	for_each_sched_entity(se)
	{
		struct cfs_rq *cfs_rq = cfs_rq_of(se);

		update_curr(cfs_rq);
		update_load_avg(cfs_rq, se, UPDATE_TG);
		update_cfs_group(se);
		if (cfs_rq->nr_running > 1 && !sched_eevdf())
			check_preempt_tick(cfs_rq, se); /* EEVDF: update_curr() decided */
	}
	update_misfit_status(curr, rq);
	update_overutilized_status(rq);
}

/* Linux 6.12: check_preempt_wakeup_fair(). NEXT_BUDDY marks every wakee; SCHED_IDLE
 * never preempts and anything preempts it; batch and idle tasks do not preempt; else,
 * where the hierarchies meet, a wakee with a shorter slice that is eligible cancels
 * curr's slice protection when it is ahead of curr or curr is not eligible
 * (PREEMPT_SHORT), and the wakee preempts if it is now what pick_eevdf() takes. */
static void check_preempt_wakeup_eevdf(struct rq *rq, struct task_struct *p, int wake_flags)
{
	struct task_struct *curr = rq->curr;
	struct sched_entity *se = &curr->se, *pse = &p->se;
	struct cfs_rq *cfs_rq;

	if (sched_feat(NEXT_BUDDY) && !(wake_flags & WF_FORK))
		set_next_buddy(pse);
	if (rq->need_resched || !sched_feat(WAKEUP_PREEMPTION))
		return;
	find_matching_se(&se, &pse);
	if (se_is_idle(se) && !se_is_idle(pse)) {
		eevdf_cancel_protect_slice(se);
		goto preempt;
	}
	if (se_is_idle(se) != se_is_idle(pse) || p->policy != SCHED_NORMAL)
		return;
	cfs_rq = cfs_rq_of(se);
	update_curr(cfs_rq);
	if (sched_feat(PREEMPT_SHORT) && pse->slice < se->slice && entity_eligible(cfs_rq, pse) &&
	    ((s64)(pse->deadline - se->deadline) < 0 || !entity_eligible(cfs_rq, se)))
		eevdf_cancel_protect_slice(se);
	if (pick_eevdf(cfs_rq) != pse)
		return;
	trace_sched_eevdf(rq->cpu, pse, 'W', cfs_rq->zero_vruntime, true);
preempt:
	resched_curr(rq);
}

/* Linux 6.1: check_preempt_wakeup(). SCHED_IDLE never preempts; anything preempts
 * SCHED_IDLE; otherwise the wakee preempts if curr is ahead of it by more than the
 * wakeup granularity, compared at the level where their hierarchies meet
 * (find_matching_se), and becomes the next buddy so that the pick takes it. With
 * sched_nr_latency or more tasks queued (scale), NEXT_BUDDY marks every wakee and
 * LAST_BUDDY marks the preempted task, so that it gets the CPU back. */
static void check_preempt_wakeup(struct rq *rq, struct task_struct *p, int wake_flags)
{
	struct task_struct *curr = rq->curr;
	struct sched_entity *se = &curr->se, *pse = &p->se;
	bool scale = task_cfs_rq(curr)->nr_running >= sched_nr_latency, next_buddy_marked = false;

	lockdep_assert_held(&rq->lock);
	if (se == pse)
		return;
	if (sched_eevdf()) {
		check_preempt_wakeup_eevdf(rq, p, wake_flags);
		return;
	}
	if (sched_feat(NEXT_BUDDY) && scale && !(wake_flags & WF_FORK)) {
		set_next_buddy(pse);
		next_buddy_marked = true;
	}
	if (rq->need_resched)
		return; /* and no last buddy: curr may already be on its way out */
	if (curr->policy == SCHED_IDLE && p->policy != SCHED_IDLE)
		goto preempt;
	if (p->policy != SCHED_NORMAL || !sched_feat(WAKEUP_PREEMPTION))
		return; /* batch and idle tasks do not preempt */
	find_matching_se(&se, &pse);
	update_curr(cfs_rq_of(se));
	if (wakeup_preempt_entity(se, pse) == 1) {
		if (!next_buddy_marked)
			set_next_buddy(pse);
		goto preempt;
	}
	return;
preempt:
	resched_curr(rq);
	if (!se->on_rq || curr == rq->idle)
		return;
	if (sched_feat(LAST_BUDDY) && scale && entity_is_task(se))
		set_last_buddy(se);
}

/* Linux: yield_task_fair(): the skip buddy at each level. */
static void yield_task_fair(struct rq *rq)
{
	struct cfs_rq *cfs_rq = task_cfs_rq(rq->curr);

	lockdep_assert_held(&rq->lock);
	if (rq->cfs.h_nr_running <= 1)
		return;
	clear_buddies(cfs_rq, &rq->curr->se);
	update_curr(cfs_rq);
	if (sched_eevdf()) {
		struct sched_entity *se = &rq->curr->se;

		/* Linux 6.12: an eligible yielder gives up the rest of its request */
		if (entity_eligible(cfs_rq, se)) {
			se->vruntime = se->deadline;
			eevdf_update_deadline(cfs_rq, se);
		}
		return;
	}
	set_skip_buddy(&rq->curr->se);
}

/* Linux: sched_child_runs_first (off by default): the child swaps vruntime with its parent
 * when that puts it first. */
static unsigned int sysctl_sched_child_runs_first;

/* Linux 6.1: task_fork_fair(), at fork on the parent's CPU, before the child's CPU is
 * chosen. Its load starts as its weight (Linux: init_entity_runnable_average); its
 * vruntime starts at the parent's, or a slice after min_vruntime (START_DEBIT) if that
 * is later, and is kept relative to min_vruntime until the enqueue on its own CPU. */
static void task_fork_fair(struct task_struct *p)
{
	struct rq *rq = this_rq();
	struct cfs_rq *cfs_rq = task_cfs_rq(current);
	struct sched_entity *se = &p->se, *curr;

	spin_lock(&rq->lock); /* IRQs are off: wake_up_new_task() holds p->pi_lock */

	memset(&se->avg, 0, sizeof(se->avg));
	se->avg.load_avg = se->load.weight;
	if (sched_eevdf()) {
		/* Linux 6.12: placed at its first enqueue (ENQUEUE_INITIAL), lag 0 */
		se->vlag = 0;
		se->rel_deadline = false;
		se->vruntime = 0;
		if (!se->custom_slice)
			se->slice = sysctl_sched_base_slice;
		spin_unlock(&rq->lock);
		return;
	}
	update_rq_clock(rq);
	curr = cfs_rq->curr;
	se->vruntime = cfs_rq->min_vruntime; /* Linux: 0, below any min_vruntime + slice */
	if (curr) {
		update_curr(cfs_rq);
		se->vruntime = curr->vruntime;
	}
	place_entity(cfs_rq, se, true);
	if (sysctl_sched_child_runs_first && curr && entity_before(curr, se)) {
		u64 v = curr->vruntime;

		curr->vruntime = se->vruntime;
		se->vruntime = v;
		resched_curr(rq);
	}
	se->vruntime -= cfs_rq->min_vruntime;
	spin_unlock(&rq->lock);
}

/* Linux 6.1: post_init_entity_util_avg(), on the child's first rq: its util starts as
 * its share (by weight) of the rq's util, at most half of the capacity the rq has spare.
 * 64-bit Linux scales the weight by 2^10 (scale_load), which we do not: done here, so
 * the share is ~1024x the rq's util and the cap decides, as in Linux. */
void post_init_entity_util_avg(struct task_struct *p)
{
	struct cfs_rq *cfs_rq = cfs_rq_of(&p->se);
	struct sched_avg *sa = &p->se.avg;
	long cpu_scale = (long)arch_scale_cpu_capacity(rq_of(cfs_rq)->cpu);
	long cap = (cpu_scale - (long)cfs_rq->avg.util_avg) / 2;

	lockdep_assert_held(&rq_of(cfs_rq)->lock);
	if (p->sched_class != &fair_sched_class)
		return;
	if (cap > 0) {
		if (cfs_rq->avg.util_avg) {
			sa->util_avg = cfs_rq->avg.util_avg * (p->se.load.weight << 10) /
				       (cfs_rq->avg.load_avg + 1);
			sa->util_avg = MIN(sa->util_avg, (unsigned long)cap);
		} else {
			sa->util_avg = (unsigned long)cap;
		}
	}
	sa->runnable_avg = sa->util_avg;
}

/* Leaving for new_cpu: keep vruntime relative. A migrating task (both
 * locks held) was detached by its dequeue; a waking one is aged as blocked
 * to the old cfs_rq's last update (and, the old CPU being idle, to an
 * estimate of its PELT clock now), then queued for removal there. The next
 * enqueue attaches it (last_update_time 0). Linux: migrate_task_rq_fair(). */
static void migrate_task_rq_fair(struct task_struct *p, int new_cpu)
{
	struct sched_entity *se = &p->se;
	struct cfs_rq *cfs_rq = cfs_rq_of(se);

	/* A wakeup (queued nowhere): make vruntime relative to the old cfs_rq; a
	 * queued task's was made relative by its dequeue. */
	if (!p->on_rq && !sched_eevdf()) /* 6.12: none, the lag travels */
		se->vruntime -= READ_ONCE(cfs_rq->min_vruntime);
	if (p->on_rq != TASK_ON_RQ_MIGRATING && se->avg.last_update_time) {
		remove_entity_load_avg(cfs_rq, se);
		migrate_se_pelt_lag(cfs_rq, se);
	}
	se->avg.last_update_time = 0; /* attach on the next enqueue */
	se->exec_start = 0;	      /* migrated: no longer cache hot (balance.c task_hot) */
	p->placed_tick = 0;
}

static void prio_changed_fair(struct rq *rq, struct task_struct *p, int oldprio)
{
	lockdep_assert_held(&rq->lock);
	if (task_running(rq, p) && p->prio > oldprio)
		resched_curr(rq);
}

static void switched_from_fair(struct rq *rq, struct task_struct *p)
{
	lockdep_assert_held(&rq->lock);
	/* Keep vruntime meaningful if it comes back (Linux: detach_task_cfs_rq). */
	if (!task_on_rq_queued(p) && !sched_eevdf())
		p->se.vruntime -= cfs_rq_of(&p->se)->min_vruntime;
	detach_entity_cfs_rq(cfs_rq_of(&p->se), &p->se);
}

static void switched_to_fair(struct rq *rq, struct task_struct *p)
{
	lockdep_assert_held(&rq->lock);
	/* Back from another class while not queued: absolute again, as
	 * switched_from_fair left it relative (Linux: attach_task_cfs_rq). A
	 * queued task was made absolute by its enqueue. */
	if (!task_on_rq_queued(p) && !sched_eevdf())
		p->se.vruntime += cfs_rq_of(&p->se)->min_vruntime;
	attach_entity_cfs_rq(cfs_rq_of(&p->se), &p->se);
}

/* An exited task's blocked load leaves its last cfs_rq (rq lock not held).
 * Linux: task_dead_fair(). */
static void task_dead_fair(struct task_struct *p)
{
	remove_entity_load_avg(cfs_rq_of(&p->se), &p->se);
}

void init_cfs_rq(struct cfs_rq *cfs_rq)
{
	memset(cfs_rq, 0, sizeof(*cfs_rq));
	cfs_rq->tasks_timeline = RB_ROOT_CACHED;
	cfs_rq->min_vruntime = (u64)(-(1ll << 20)); /* wraps early, as Linux's does */
	cfs_rq->zero_vruntime = cfs_rq->min_vruntime;
	spin_lock_init_class(&cfs_rq->removed.lock, LOCK_CLASS_RQ_INNER, 0);
}

/* Newly idle: pull before going idle (balance.c). */
static int balance_fair(struct rq *rq, struct task_struct *prev)
{
	lockdep_assert_held(&rq->lock);
	return newidle_balance(rq);
}

const struct sched_class fair_sched_class = {
	.uclamp_enabled = true,
	.enqueue_task = enqueue_task_fair,
	.dequeue_task = dequeue_task_fair,
	.yield_task = yield_task_fair,
	.check_preempt_curr = check_preempt_wakeup,
	.pick_next_task = pick_next_task_fair,
	.put_prev_task = put_prev_task_fair,
	.set_next_task = set_next_task_fair,
	.balance = balance_fair,
	.select_task_rq = select_task_rq_fair,
	.migrate_task_rq = migrate_task_rq_fair,
	.task_tick = task_tick_fair,
	.task_fork = task_fork_fair,
	.update_curr = update_curr_fair,
	.task_dead = task_dead_fair,
	.switched_from = switched_from_fair,
	.switched_to = switched_to_fair,
	.prio_changed = prio_changed_fair,
};
