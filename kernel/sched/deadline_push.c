/* deadline_push.c - SCHED_DEADLINE tasks between CPUs (Linux 6.1 semantics):
 * find_later_rq() over cpudl.c's heap, the overload mask and the pushable
 * list, push_dl_task() / pull_dl_task(), and dl_task_offline_migration()
 * (a throttled task whose CPU went offline moves from its replenishment
 * timer). Not the EDF queue, CBS or bandwidth (deadline.c) nor the loop
 * shapes it shares with RT (push_pull.c). State under rq->lock; the overload
 * mask and cpudl are read without. Linux: the SMP half of deadline.c. */
#include "sched_internal.h"

#define DL_MAX_TRIES 3 /* Linux: find_lock_later_rq()'s attempts */

/* ---- push/pull bookkeeping: the overload mask, the pushable list ------------------ */

cpumask_t sched_dlo_mask;
int sched_dlo_count;

/* Linux: update_dl_migration(): dl_set_overload() / dl_clear_overload()
 * (push_pull.c). */
void update_dl_migration(struct rq *rq)
{
	struct dl_rq *dl_rq = &rq->dl;

	sched_update_overload(&dl_rq->overloaded,
			      dl_rq->dl_nr_migratory && dl_rq->dl_nr_running > 1, rq->cpu,
			      &sched_dlo_mask, &sched_dlo_count);
}

bool has_pushable_dl_tasks(const struct rq *rq)
{
	return !list_empty(&rq->dl.pushable_tasks);
}

static struct task_struct *first_pushable_dl(const struct rq *rq)
{
	return list_first_entry(&rq->dl.pushable_tasks, struct task_struct, dl.pushable_node);
}

/* Linux: enqueue_pushable_dl_task(): earliest deadline first (Linux: an rbtree). */
void enqueue_pushable_dl_task(struct rq *rq, struct task_struct *p)
{
	struct list_head *pos;

	list_del_init(&p->dl.pushable_node);
	list_for_each(pos, &rq->dl.pushable_tasks)
		if (dl_time_before(
			    p->dl.deadline,
			    list_entry(pos, struct task_struct, dl.pushable_node)->dl.deadline))
			break;
	list_add_tail(&p->dl.pushable_node, pos);
	WRITE_ONCE(rq->dl.earliest_dl_next, first_pushable_dl(rq)->dl.deadline);
}

void dequeue_pushable_dl_task(struct rq *rq, struct task_struct *p)
{
	list_del_init(&p->dl.pushable_node);
	WRITE_ONCE(rq->dl.earliest_dl_next,
		   has_pushable_dl_tasks(rq) ? first_pushable_dl(rq)->dl.deadline : 0);
}

/* Linux: find_later_rq(): cpudl's candidates (the free CPUs p may use, on
 * asymmetric capacities those that fit its bandwidth, else the biggest; or
 * else the CPU whose earliest deadline is the latest, if p's is earlier),
 * the nearest of them (pick_candidate_near()). -1: none. */
int find_later_rq(struct task_struct *p)
{
	cpumask_t later;

	if (p->nr_cpus_allowed == 1)
		return -1;
	if (!cpudl_find(p, &later, sched_asym_cpucap_active(p->cpu)))
		return -1;
	return pick_candidate_near(p, &later);
}

/* ---- push and pull (Linux: push_dl_task(), pull_dl_task()) -------------------------- */

/* rq's lock was dropped while later's was taken: is task still what we
 * meant to move? A throttled one (the offline migration) is still queued
 * here, not running, still DL; a pushable one is still rq's first. */
static bool still_movable(struct task_struct *task, struct rq *rq, struct rq *later)
{
	if (!cpumask_test_cpu(later->cpu, &task->cpus_allowed))
		return false;
	if (task->dl.dl_throttled)
		return task_rq(task) == rq && !task_running(rq, task) && dl_task(task) &&
		       task_on_rq_queued(task);
	return has_pushable_dl_tasks(rq) && task == first_pushable_dl(rq);
}

/* Linux: find_lock_later_rq(): a CPU with no DL task or a later earliest
 * deadline than task's, locked along with rq; NULL if none (or task moved). */
static struct rq *find_lock_later_rq(struct task_struct *task, struct rq *rq)
{
	for (int tries = 0; tries < DL_MAX_TRIES; tries++) {
		int cpu = find_later_rq(task);
		struct rq *later;

		if (cpu < 0 || cpu == (int)rq->cpu)
			return NULL;
		later = cpu_rq(cpu);
		if (READ_ONCE(later->dl.dl_nr_running) &&
		    !dl_time_before(task->dl.deadline, READ_ONCE(later->dl.earliest_dl)))
			return NULL; /* nothing later than us: another try finds the same */
		if (double_lock_balance(rq, later) && !still_movable(task, rq, later)) {
			double_unlock_balance(rq, later);
			return NULL;
		}
		if (!later->dl.dl_nr_running ||
		    dl_time_before(task->dl.deadline, later->dl.earliest_dl))
			return later;
		double_unlock_balance(rq, later);
	}
	return NULL;
}

/* A woken task that preempts curr (which could move) runs here. */
static bool dl_runs_here(struct rq *rq, struct task_struct *p)
{
	return dl_task(rq->curr) && dl_time_before(p->dl.deadline, rq->curr->dl.deadline) &&
	       rq->curr->nr_cpus_allowed > 1;
}

static struct task_struct *first_pushable_dl_or_null(struct rq *rq)
{
	return has_pushable_dl_tasks(rq) ? first_pushable_dl(rq) : NULL;
}

static const struct push_ops dl_push_ops = {
	.first_pushable = first_pushable_dl_or_null,
	.runs_here = dl_runs_here,
	.find_lock_target = find_lock_later_rq,
	.why = WHY_MOVE_DL_PUSH,
};

/* Linux: push_dl_task(): if this CPU is overloaded, move its earliest waiting
 * DL task to a free CPU or one whose earliest deadline is later. 1: moved. */
static int push_dl_task(struct rq *rq)
{
	return rq->dl.overloaded ? push_one_task(rq, &dl_push_ops) : 0;
}

/* One push (Linux: the push_dl_task() of dl_task_timer()). */
void push_dl_task_once(struct rq *rq)
{
	if (sched_feat(DL_PUSH_PULL))
		push_dl_task(rq);
}

void push_dl_tasks(struct rq *rq)
{
	lockdep_assert_held(&rq->lock);
	if (!sched_feat(DL_PUSH_PULL))
		return;
	while (push_dl_task(rq))
		;
}

/* Linux: pick_earliest_pushable_dl_task(). */
static struct task_struct *pick_earliest_pushable_dl_task(struct rq *rq, unsigned int cpu)
{
	struct list_head *pos;

	list_for_each(pos, &rq->dl.pushable_tasks) {
		struct task_struct *p = list_entry(pos, struct task_struct, dl.pushable_node);

		if (!task_running(rq, p) && cpumask_test_cpu(cpu, &p->cpus_allowed))
			return p;
	}
	return NULL;
}

/* Linux: pull_dl_task(): this CPU's earliest deadline became later (its DL
 * task blocked or left): take the earliest waiting DL task of the overloaded
 * CPUs that would be the earliest here. may_drop: as rt.c's pull (inside
 * __schedule() a lower CPU is only tried, and tried again after the switch). */
void __pull_dl_task(struct rq *this_rq, bool may_drop)
{
	unsigned int this_cpu = this_rq->cpu, cpu;
	bool resched = false, have_dmin = false;
	u64 dmin = 0;

	if (!sched_feat(DL_PUSH_PULL) || !__atomic_load_n(&sched_dlo_count, __ATOMIC_SEQ_CST))
		return;
	for_each_cpu(cpu, &sched_dlo_mask) {
		struct rq *src = cpu_rq(cpu);
		struct task_struct *p;

		if (cpu == this_cpu ||
		    (this_rq->dl.dl_nr_running &&
		     dl_time_before(this_rq->dl.earliest_dl, READ_ONCE(src->dl.earliest_dl_next))))
			continue; /* unlocked hint, as Linux: src pushes what improves */
		if (!lock_pull_src(this_rq, src, may_drop)) {
			queue_balance_callback(this_rq, BALANCE_PULL_DL);
			continue;
		}
		p = src->dl.dl_nr_running > 1 ? pick_earliest_pushable_dl_task(src, this_cpu)
					      : NULL;
		if (p && (!have_dmin || dl_time_before(p->dl.deadline, dmin)) &&
		    (!this_rq->dl.dl_nr_running ||
		     dl_time_before(p->dl.deadline, this_rq->dl.earliest_dl)) &&
		    /* not one about to preempt src's curr: src runs it */
		    dl_task(src->curr) && !dl_time_before(p->dl.deadline, src->curr->dl.deadline)) {
			push_pull_move(src, this_rq, p, WHY_MOVE_DL_PULL);
			dmin = p->dl.deadline;
			have_dmin = resched = true;
		}
		double_unlock_balance(this_rq, src);
	}
	if (resched)
		resched_curr(this_rq);
}

void pull_dl_task(struct rq *this_rq)
{
	__pull_dl_task(this_rq, true);
}

/* Linux: dl_task_offline_migration(): p was throttled on rq, whose CPU went
 * offline meanwhile (hotplug moves only the tasks in the tree): its
 * replenishment timer, run on a live CPU, moves it to a CPU find_later_rq()
 * chooses, or else the first active one it may use. Still throttled there;
 * the timer goes on to replenish it. Its running bandwidth moves with it
 * (dequeue and enqueue as migrating); one root domain, so total_bw stays.
 * Returns the new rq, locked; rq is unlocked. */
struct rq *dl_task_offline_migration(struct rq *rq, struct task_struct *p)
{
	struct rq *later = find_lock_later_rq(p, rq);

	if (!later) {
		cpumask_t ok;
		unsigned int cpu;

		/* admission control keeps a DL task's affinity a superset of the active CPUs */
		if (WARN_ON_ONCE(!cpumask_and(&ok, cpu_active_mask, &p->cpus_allowed)))
			cpu = cpumask_first(cpu_active_mask);
		else
			cpu = cpumask_first(&ok);
		later = cpu_rq(cpu);
		double_lock_balance(rq, later);
	}
	move_queued_task_locked(rq, later, p);
	double_unlock_balance(later, rq); /* rq's lock goes, later's stays */
	return later;
}
