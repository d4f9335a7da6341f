/* push_pull.c - what RT's and DL's push and pull share (rt.c,
 * deadline_push.c): the overload masks' update, taking a second rq lock in
 * the lock order, the choice of a CPU among the candidates cpupri or cpudl
 * gave, the push loop, and the move itself with its trace and `why` note.
 * Not the classes' own rules (which task, which CPUs are candidates). Run
 * queues under their rq->lock; the masks are read without (hints, re-checked
 * under the locks). Linux: the shared shapes of kernel/sched/rt.c and
 * deadline.c. */
#include "sched_internal.h"
#include "trace.h"

/* Linux: rt_set_overload() / rt_clear_overload(), dl_set_overload() /
 * dl_clear_overload(): the mask before the count, so that a puller that
 * sees the count sees the CPU; the count first on the way out. */
void sched_update_overload(bool *overloaded, bool over, unsigned int cpu, cpumask_t *mask,
			   int *count)
{
	if (over == *overloaded)
		return;
	*overloaded = over;
	if (over) {
		cpumask_set_cpu(cpu, mask);
		__atomic_add_fetch(count, 1, __ATOMIC_SEQ_CST);
	} else {
		__atomic_sub_fetch(count, 1, __ATOMIC_SEQ_CST);
		cpumask_clear_cpu(cpu, mask);
	}
}

/* Linux: double_lock_balance(). this_rq is locked; busiest's lock is taken
 * in the lock order (core.c): at once if it is a higher CPU or free, else
 * this_rq's is dropped and both are taken lower first. 1: it was dropped. */
int double_lock_balance(struct rq *this_rq, struct rq *busiest)
{
	if (busiest->cpu > this_rq->cpu) {
		spin_lock(&busiest->lock);
		return 0;
	}
	if (spin_trylock(&busiest->lock))
		return 0;
	spin_unlock(&this_rq->lock);
	double_rq_lock(this_rq, busiest);
	return 1;
}

void double_unlock_balance(struct rq *this_rq, struct rq *busiest)
{
	spin_unlock(&busiest->lock);
}

/* Take src's lock beside this_rq's for a pull: may_drop as
 * double_lock_balance(); inside __schedule() (balance_rt(), balance_dl())
 * this_rq's lock must stay, so a lower src is only tried (the newidle rule
 * of balance.c). */
bool lock_pull_src(struct rq *this_rq, struct rq *src, bool may_drop)
{
	if (may_drop || src->cpu > this_rq->cpu) {
		double_lock_balance(this_rq, src);
		return true;
	}
	return spin_trylock(&src->lock);
}

/* Linux: cpumask_any_and_distribute(): the next CPU of a & b after the one
 * this CPU returned last, so concurrent searches spread. */
static int any_and_distribute(const cpumask_t *a, const cpumask_t *b)
{
	static int prev[NR_CPUS]; /* per CPU; only this CPU writes its slot */
	unsigned int me = arch_cpu_id(), c;
	cpumask_t both;

	if (!cpumask_and(&both, a, b))
		return -1;
	c = cpumask_first_wrap(&both, ((unsigned int)prev[me] + 1) % nr_cpu_ids);
	prev[me] = (int)c;
	return (int)c;
}

/* The tail of Linux's find_lowest_rq() and find_later_rq(): among the
 * candidates, p's own CPU (cache-hot), else the calling CPU if it is in p's
 * CPU's nearest domain (preempting here is cheaper than an IPI), else one
 * in that domain, then in the next up (every level is SD_WAKE_AFFINE here). */
int pick_candidate_near(const struct task_struct *p, const cpumask_t *candidates)
{
	int this_cpu = (int)arch_cpu_id(), cpu = p->cpu, best;
	int nr_sd = cpu >= 0 ? cpu_rq(cpu)->nr_sd : 0; /* -1: a new task, never placed */

	if (cpu >= 0 && cpumask_test_cpu((unsigned int)cpu, candidates))
		return cpu;
	if (!cpumask_test_cpu((unsigned int)this_cpu, candidates))
		this_cpu = -1;
	for (int l = 0; l < nr_sd; l++) {
		const struct rq *rq = cpu_rq(cpu);

		if (this_cpu >= 0 && cpumask_test_cpu((unsigned int)this_cpu, &rq->sd[l].span))
			return this_cpu;
		best = any_and_distribute(candidates, &rq->sd[l].span);
		if (best >= 0)
			return best;
	}
	if (this_cpu >= 0)
		return this_cpu;
	return any_and_distribute(candidates, candidates);
}

/* Move a queued, not running task between two locked run queues. Linux:
 * the deactivate / set_task_cpu / activate of push_rt_task(), pull_rt_task(),
 * push_dl_task(), pull_dl_task() and dl_task_offline_migration(). */
void move_queued_task_locked(struct rq *src, struct rq *dst, struct task_struct *p)
{
	update_rq_clock(src);
	update_rq_clock(dst);
	deactivate_task(src, p, 0);
	set_task_cpu(p, dst->cpu);
	activate_task(dst, p, 0);
	if (DEBUG_SCHED_ENABLED)
		sched_debug_check_rqs(src, dst);
}

/* A push or a pull: the move, traced and noted for `why`. */
void push_pull_move(struct rq *src, struct rq *dst, struct task_struct *p, enum why_move_kind why)
{
	move_queued_task_locked(src, dst, p);
	trace_sched_push_pull(p, src->cpu, dst->cpu, why);
	why_note_push_pull(p, (int)src->cpu, (int)dst->cpu, why);
}

/* Linux: push_rt_task() and push_dl_task(), whose loops are the same: take
 * the first pushable task; if it should rather run here, reschedule here;
 * else find and lock a target for it (rq's lock may drop on the way, so the
 * task is held by a reference); if none, and the first pushable task changed
 * meanwhile, try that one. 1: one moved. rq locked. */
int push_one_task(struct rq *rq, const struct push_ops *ops)
{
	struct task_struct *next_task = ops->first_pushable(rq), *task;
	struct rq *target;

	if (!next_task)
		return 0;
	for (;;) {
		if (ops->runs_here(rq, next_task)) {
			resched_curr(rq);
			return 0;
		}
		__atomic_add_fetch(&next_task->refcount, 1, __ATOMIC_ACQ_REL);
		target = ops->find_lock_target(next_task, rq);
		if (target)
			break;
		task = ops->first_pushable(rq);
		put_task_struct(next_task);
		if (!task || task == next_task)
			return 0;
		next_task = task; /* what we meant to push went; try the new first */
	}
	push_pull_move(rq, target, next_task, ops->why);
	resched_curr(target);
	double_unlock_balance(rq, target);
	put_task_struct(next_task);
	return 1;
}
