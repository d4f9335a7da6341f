/* fair_pelt.c - CFS's load tracking: when a task's and its cfs_rq's PELT signals are
 * brought up to date (update_load_avg), how a task's signals join, leave or are removed
 * from a cfs_rq (attach, detach, remove with its migration-time sync), util_est's
 * bookkeeping, and the decay of blocked load (update_blocked_averages). The maths is
 * pelt.c's; the callers are fair.c's enqueue/dequeue/pick/tick and core.c. State under
 * rq->lock (cfs_rq->removed under its own lock). Linux: kernel/sched/fair.c (6.1). */
#include "sched_internal.h"
#include "trace.h"

/* a -= b, stopping at 0 (Linux: sub_positive()), in a's type. */
#define SUB_POS(a, b)                                                                              \
	do {                                                                                       \
		__typeof__(a) __v = (__typeof__(a))(b);                                            \
		(a) = (a) > __v ? (a)-__v : 0;                                                     \
	} while (0)

/* After a subtraction, a sum may have dropped below what its average implies
 * (the sums and averages are rounded separately): keep sum >= avg x the
 * smallest divider, or the next update would pull the average down with it.
 * Linux 6.1 does this with max_t(u32, ...), i.e. on the low 32 bits. */
static void pelt_floor_sums(struct sched_avg *sa, bool load, bool util_runnable)
{
	if (load)
		sa->load_sum = MAX((u32)sa->load_sum, (u32)(sa->load_avg * PELT_MIN_DIVIDER));
	if (util_runnable) {
		sa->util_sum = MAX(sa->util_sum, (u32)(sa->util_avg * PELT_MIN_DIVIDER));
		sa->runnable_sum =
			MAX((u32)sa->runnable_sum, (u32)(sa->runnable_avg * PELT_MIN_DIVIDER));
	}
}

/* The schedutil hook, for the root cfs_rq only (Linux: cfs_rq_util_change()). */
static void cfs_rq_util_change(struct cfs_rq *cfs_rq)
{
	struct rq *rq = rq_of(cfs_rq);

	if (&rq->cfs == cfs_rq)
		cpufreq_update_util(rq, 0);
}

/* Decay the cfs_rq and fold in the load of tasks that left it while blocked
 * (they could not take our lock then: cfs_rq->removed). Returns whether
 * anything changed. Linux: update_cfs_rq_load_avg(). */
static int update_cfs_rq_load_avg(u64 now, struct cfs_rq *cfs_rq)
{
	struct sched_avg *sa = &cfs_rq->avg;
	int decayed = 0;

	if (READ_ONCE(cfs_rq->removed.nr)) {
		u32 divider = get_pelt_divider(sa);
		unsigned long load, util, runnable;

		spin_lock(&cfs_rq->removed.lock);
		load = cfs_rq->removed.load_avg;
		util = cfs_rq->removed.util_avg;
		runnable = cfs_rq->removed.runnable_avg;
		cfs_rq->removed.load_avg = cfs_rq->removed.util_avg = 0;
		cfs_rq->removed.runnable_avg = 0;
		cfs_rq->removed.nr = 0;
		spin_unlock(&cfs_rq->removed.lock);
		SUB_POS(sa->load_avg, load);
		SUB_POS(sa->load_sum, (u64)load * divider);
		SUB_POS(sa->util_avg, util);
		SUB_POS(sa->util_sum, util * divider);
		SUB_POS(sa->runnable_avg, runnable);
		SUB_POS(sa->runnable_sum, (u64)runnable * divider);
		pelt_floor_sums(sa, true, true);
		/* runnable is the unweighted load: it estimates the load_sum that left */
		add_tg_cfs_propagate(cfs_rq,
				     -(long)(((u64)runnable * divider) >> SCHED_CAPACITY_SHIFT));
		decayed = 1;
	}
	decayed |= pelt_update_cfs_rq(sa, now, cfs_rq->load.weight, cfs_rq->h_nr_running,
				      cfs_rq->curr != NULL);
	return decayed;
}

/* A task's signals join a run queue's (new, or arrived by migration): align
 * the entity with the rq's PELT window and rebuild its sums from its averages
 * with the rq's divider. Linux: attach_entity_load_avg() + enqueue_load_avg(). */
static void attach_entity_load_avg(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	u32 divider = get_pelt_divider(&cfs_rq->avg);
	unsigned long weight = se->load.weight;

	se->avg.last_update_time = cfs_rq->avg.last_update_time;
	se->avg.period_contrib = cfs_rq->avg.period_contrib;
	se->avg.util_sum = (u32)(se->avg.util_avg * divider);
	se->avg.runnable_sum = (u64)se->avg.runnable_avg * divider;
	se->avg.load_sum = (u64)se->avg.load_avg * divider;
	se->avg.load_sum = weight < se->avg.load_sum ? se->avg.load_sum / weight : 1;
	cfs_rq->avg.load_avg += se->avg.load_avg;
	cfs_rq->avg.load_sum += weight * se->avg.load_sum;
	cfs_rq->avg.util_avg += se->avg.util_avg;
	cfs_rq->avg.util_sum += se->avg.util_sum;
	cfs_rq->avg.runnable_avg += se->avg.runnable_avg;
	cfs_rq->avg.runnable_sum += se->avg.runnable_sum;
	add_tg_cfs_propagate(cfs_rq, (long)se->avg.load_sum);
	cfs_rq_util_change(cfs_rq);
	if (cfs_rq == &rq_of(cfs_rq)->cfs) /* the trace shows the CPU's signals */
		trace_sched_pelt_cfs(rq_of(cfs_rq)->cpu, &cfs_rq->avg);
}

/* Linux: dequeue_load_avg(): the entity's load leaves the cfs_rq's. */
void dequeue_load_avg(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	SUB_POS(cfs_rq->avg.load_avg, se->avg.load_avg);
	SUB_POS(cfs_rq->avg.load_sum, se->load.weight * se->avg.load_sum);
	pelt_floor_sums(&cfs_rq->avg, true, false);
}

/* Linux: detach_entity_load_avg(). Used with both locks held (balancer,
 * forced migration): the entity's signals, synced to now, leave at once. */
static void detach_entity_load_avg(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	struct sched_avg *sa = &cfs_rq->avg;

	dequeue_load_avg(cfs_rq, se);
	SUB_POS(sa->util_avg, se->avg.util_avg);
	SUB_POS(sa->util_sum, se->avg.util_sum);
	SUB_POS(sa->runnable_avg, se->avg.runnable_avg);
	SUB_POS(sa->runnable_sum, se->avg.runnable_sum);
	pelt_floor_sums(sa, false, true);
	add_tg_cfs_propagate(cfs_rq, -(long)se->avg.load_sum);
	cfs_rq_util_change(cfs_rq);
	if (cfs_rq == &rq_of(cfs_rq)->cfs) /* the trace shows the CPU's signals */
		trace_sched_pelt_cfs(rq_of(cfs_rq)->cpu, &cfs_rq->avg);
}

/* Linux: enqueue_load_avg(). */
void enqueue_load_avg(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	cfs_rq->avg.load_avg += se->avg.load_avg;
	cfs_rq->avg.load_sum += se->load.weight * se->avg.load_sum;
}

/* Linux: update_load_avg(). Entity first, then the run queue, at PELT time,
 * then (a group entity) what its cfs_rq propagates; then attach (DO_ATTACH:
 * enqueue of a task that migrated, last_update_time 0) or detach (DO_DETACH:
 * dequeue of a migrating task); schedutil hears of it on attach/detach or
 * when a signal decayed (Linux: cfs_rq_util_change), tg->load_avg likewise
 * (UPDATE_TG). Counted per rq, and timed while sched_pelt_timing is on (E3). */
void update_load_avg(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags)
{
	struct rq *rq = rq_of(cfs_rq);
	u64 now = rq_clock_pelt(rq);
	u64 t0 = READ_ONCE(sched_pelt_timing) ? arch_clock_ns() : 0;
	int decayed;

	if (se->avg.last_update_time &&
	    pelt_update_se(&se->avg, now, se->on_rq,
			   entity_is_task(se) ? (unsigned long)se->on_rq : se->runnable_weight,
			   cfs_rq->curr == se, se->load.weight) &&
	    entity_is_task(se))
		trace_sched_pelt_se(rq->cpu, task_of(se));
	decayed = update_cfs_rq_load_avg(now, cfs_rq);
	if (decayed && cfs_rq == &rq->cfs)
		trace_sched_pelt_cfs(rq->cpu, &cfs_rq->avg);
	decayed |= propagate_entity_load_avg(se);
	if (!se->avg.last_update_time && (flags & DO_ATTACH)) {
		attach_entity_load_avg(cfs_rq, se);
		update_tg_load_avg(cfs_rq);
	} else if (flags & DO_DETACH) {
		detach_entity_load_avg(cfs_rq, se);
		update_tg_load_avg(cfs_rq);
	} else if (decayed) {
		cfs_rq_util_change(cfs_rq);
		if (flags & UPDATE_TG)
			update_tg_load_avg(cfs_rq);
	}
	rq->nr_pelt_updates++;
	if (t0)
		rq->pelt_update_ns += arch_clock_ns() - t0;
}

void update_load_avg_task(struct rq *rq, struct task_struct *p)
{
	lockdep_assert_held(&rq->lock);
	update_load_avg(cfs_rq_of(&p->se), &p->se, 0);
}

/* A task leaves CFS for another class: its signals, brought up to now, leave
 * the cfs_rq at once (one never attached has nothing to take).
 * Linux: detach_entity_cfs_rq(). */
void detach_entity_cfs_rq(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	if (!se->avg.last_update_time)
		return;
	update_load_avg(cfs_rq, se, 0);
	detach_entity_load_avg(cfs_rq, se);
	update_tg_load_avg(cfs_rq);
	propagate_entity_cfs_rq(se);
}

/* ... and comes back: aged to now as blocked (ATTACH_AGE_LOAD), then attached.
 * Linux: attach_entity_cfs_rq(). */
void attach_entity_cfs_rq(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	update_load_avg(cfs_rq, se, 0);
	attach_entity_load_avg(cfs_rq, se);
	update_tg_load_avg(cfs_rq);
	propagate_entity_cfs_rq(se);
}

/* Age a sleeping entity to its cfs_rq's last update, then queue its signals
 * for removal by the next update of that cfs_rq (whose lock we may not hold).
 * Linux: remove_entity_load_avg() with sync_entity_load_avg(). */
void remove_entity_load_avg(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	pelt_update_blocked_se(&se->avg, READ_ONCE(cfs_rq->avg.last_update_time), se->load.weight);
	spin_lock(&cfs_rq->removed.lock);
	cfs_rq->removed.nr++;
	cfs_rq->removed.util_avg += se->avg.util_avg;
	cfs_rq->removed.load_avg += se->avg.load_avg;
	cfs_rq->removed.runnable_avg += se->avg.runnable_avg;
	spin_unlock(&cfs_rq->removed.lock);
}

/*
 * The old CPU is idle, so its cfs_rq may not have been updated for long
 * (no tick there): estimate its PELT clock now, as clock_pelt when it went
 * idle plus the time since, and age the leaving entity to that. Not needed
 * once the signals are 0. Linux: migrate_se_pelt_lag() (CONFIG_NO_HZ_COMMON).
 */
void migrate_se_pelt_lag(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	struct rq *rq = rq_of(cfs_rq);
	u64 now, lut;

	if (!se->avg.load_sum && !se->avg.util_sum && !se->avg.runnable_sum)
		return; /* Linux: load_avg_is_decayed() */
	if (READ_ONCE(rq->curr) != rq->idle)
		return;
	now = READ_ONCE(rq->clock_pelt_idle);
	lut = READ_ONCE(cfs_rq->avg.last_update_time);
	if (now < lut)
		now = lut; /* the cfs_rq is more recent than the estimate */
	else
		now += arch_clock_ns() - READ_ONCE(rq->clock_idle);
	pelt_update_blocked_se(&se->avg, now, se->load.weight);
}

/* Linux: __update_blocked_others(): the rt, dl and irq signals of a CPU with
 * nothing of theirs running decay here. */
static bool update_blocked_others(struct rq *rq, bool *done)
{
	bool decayed;

	decayed = update_rt_rq_load_avg(rq, rq->curr->sched_class == &rt_sched_class);
	decayed |= update_dl_rq_load_avg(rq, rq->curr->sched_class == &dl_sched_class);
	decayed |=
		pelt_update_irq(&rq->avg_irq, rq->clock, 0, arch_scale_cpu_capacity((int)rq->cpu),
				arch_scale_freq_capacity((int)rq->cpu));
	if (READ_ONCE(rq->avg_rt.util_avg) || READ_ONCE(rq->avg_dl.util_avg) ||
	    READ_ONCE(rq->avg_irq.util_avg))
		*done = false; /* Linux: others_have_blocked() */
	return decayed;
}

/* Linux: __update_blocked_fair() but the root: each group cfs_rq with load on this CPU,
 * children first (fair_group.c's leaf list), decays and passes what changed to its
 * group entity, which thus reaches the root cfs_rq (decayed by the caller, last). */
static void update_blocked_groups(struct rq *rq, bool *done)
{
	u64 now = rq_clock_pelt(rq);
	struct list_head *pos, *n;

	list_for_each_safe(pos, n, &rq->leaf_cfs_rq_list) {
		struct cfs_rq *cfs_rq = list_entry(pos, struct cfs_rq, leaf_cfs_rq_list);
		struct sched_entity *se = tg_se(cfs_rq->tg, rq->cpu);

		if (update_cfs_rq_load_avg(now, cfs_rq))
			update_tg_load_avg(cfs_rq);
		if (!skip_blocked_update(se))
			update_load_avg(se->cfs_rq, se, UPDATE_TG);
		if (cfs_rq_is_decayed(cfs_rq))
			list_del_leaf_cfs_rq(cfs_rq);
		if (cfs_rq->avg.load_avg || cfs_rq->avg.util_avg)
			*done = false; /* Linux: cfs_rq_has_blocked() */
	}
}

/*
 * Decay the signals a CPU keeps for tasks that are not running there (its
 * blocked load), and its rt/irq signals. Called by the balancer for itself
 * and, under NO_HZ, for idle CPUs; takes no lock itself (the caller holds
 * rq->lock) but updates the rq clock. Returns true while some signal is
 * still above 0 (Linux: !done, kept in rq->has_blocked_load), so that the
 * NO_HZ idle balancer knows to come back.
 * Linux: update_blocked_averages(); __update_blocked_fair() is
 * update_blocked_groups() and then the root cfs_rq.
 */
bool update_blocked_averages(struct rq *rq)
{
	struct cfs_rq *cfs_rq = &rq->cfs;
	bool decayed, done = true;

	lockdep_assert_held(&rq->lock);
	update_rq_clock(rq);
	sched_oracle_event(SCHED_EV_BLOCKED, rq, NULL, 0);
	decayed = update_blocked_others(rq, &done);
	if (!list_empty(&rq->leaf_cfs_rq_list))
		update_blocked_groups(rq, &done);
	decayed |= update_cfs_rq_load_avg(rq_clock_pelt(rq), cfs_rq) != 0;
	if (cfs_rq->avg.load_avg || cfs_rq->avg.util_avg)
		done = false; /* Linux: cfs_rq_has_blocked() */
	if (decayed)
		cpufreq_update_util(rq, 0);
	return !done;
}

/* util_est: the rq's estimate is the sum of its queued tasks' estimates.
 * Linux: util_est_enqueue() / util_est_dequeue(). */
void util_est_enqueue_task(struct cfs_rq *cfs_rq, struct task_struct *p)
{
	if (sched_feat(UTIL_EST))
		cfs_rq->avg.util_est.enqueued =
			util_est_enqueue(cfs_rq->avg.util_est.enqueued, p->se.avg.util_est);
}

void util_est_dequeue_task(struct cfs_rq *cfs_rq, struct task_struct *p)
{
	if (sched_feat(UTIL_EST))
		cfs_rq->avg.util_est.enqueued =
			util_est_dequeue(cfs_rq->avg.util_est.enqueued, p->se.avg.util_est);
}

/* A task that goes to sleep takes its util_avg, just updated by
 * dequeue_entity(), as a new sample. Linux: util_est_update(). */
void util_est_update_task(struct cfs_rq *cfs_rq, struct task_struct *p, bool task_sleep)
{
	if (!sched_feat(UTIL_EST) || !task_sleep)
		return;
	p->se.avg.util_est =
		util_est_update(p->se.avg.util_est, task_util(p),
				capacity_orig_of(rq_of(cfs_rq)->cpu), sched_feat(UTIL_EST_FASTUP));
}
