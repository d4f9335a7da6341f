/* rt.c - SCHED_FIFO and SCHED_RR: 100 priority queues with a bitmap, FIFO
 * until the task blocks or yields, RR with a 100 ms slice; an RT task
 * preempts any CFS task at once; a waking RT task whose CPU runs RT work of
 * higher or equal priority, or is too small for its uclamp.min, goes to a
 * CPU running lower-priority work (Linux: find_lowest_rq; no push/pull).
 * Also the RT utilization signal (avg_rt) that capacity_of() and schedutil
 * use. State under rq->lock. */
#include "sched_internal.h"

#define RR_TIMESLICE (100 * NSEC_PER_MSEC)

void init_rt_rq(struct rt_rq *rt_rq)
{
	memset(rt_rq, 0, sizeof(*rt_rq));
	for (int i = 0; i < MAX_RT_PRIO; i++)
		INIT_LIST_HEAD(&rt_rq->queue[i]);
}

/* The best queued priority: the lowest set bit of the 100-bit map (0 is the
 * highest RT priority, as Linux's prio), MAX_RT_PRIO when none is queued.
 * Linux: sched_find_first_bit(). */
static int rt_first_prio(const struct rt_rq *rt_rq)
{
	if (rt_rq->bitmap[0])
		return __builtin_ctzll(rt_rq->bitmap[0]);
	if (rt_rq->bitmap[1])
		return 64 + __builtin_ctzll(rt_rq->bitmap[1]);
	return MAX_RT_PRIO;
}

/* RT time counts in avg_rt: schedutil and capacity_of() see it. Updated
 * where Linux 6.1 updates it: an RT task put back or ticking (running), the
 * first RT task picked after other work (not running until now), and
 * update_blocked_averages(). Returns whether it decayed. */
bool update_rt_rq_load_avg(struct rq *rq, bool running)
{
	return pelt_update_rt(&rq->avg_rt, rq_clock_pelt(rq), running) != 0;
}

/* Linux: update_curr_rt(): runtime since exec_start is charged to the task
 * and credited as emulated work (cpu_work()). No RT throttling (Linux's
 * sched_rt_runtime_us 95 % cap): an RT task may hold its CPU indefinitely. */
static void update_curr_rt(struct rq *rq)
{
	struct task_struct *curr = rq->curr;
	u64 now = rq->clock_task, delta;

	if (curr->sched_class != &rt_sched_class || (s64)(now - curr->se.exec_start) <= 0)
		return;
	delta = now - curr->se.exec_start;
	curr->se.exec_start = now;
	curr->se.sum_exec_runtime += delta;
	rq->rt.rt_time += delta;
	account_cpu_work(rq, curr, delta);
}

/* At the tail of its priority's list: a woken task waits behind its equals.
 * (Linux queues a task whose priority was just lowered at the head,
 * ENQUEUE_HEAD from __sched_setscheduler(); not done here.) */
static void enqueue_task_rt(struct rq *rq, struct task_struct *p, int flags)
{
	struct rt_rq *rt_rq = &rq->rt;
	int prio = p->prio;

	lockdep_assert_held(&rq->lock);
	list_add_tail(&p->rt.run_list, &rt_rq->queue[prio]);
	rt_rq->bitmap[prio / 64] |= 1ull << (prio % 64);
	rt_rq->rt_nr_running++;
	p->rt.on_rq = 1;
	cpufreq_update_util(rq, 0); /* Linux: enqueue_top_rt_rq() kicks cpufreq */
}

static void dequeue_task_rt(struct rq *rq, struct task_struct *p, int flags)
{
	struct rt_rq *rt_rq = &rq->rt;
	int prio = p->prio;

	lockdep_assert_held(&rq->lock);
	update_curr_rt(rq);
	list_del_init(&p->rt.run_list);
	if (list_empty(&rt_rq->queue[prio]))
		rt_rq->bitmap[prio / 64] &= ~(1ull << (prio % 64));
	rt_rq->rt_nr_running--;
	p->rt.on_rq = 0;
	cpufreq_update_util(rq, 0);
}

/* To the tail of its priority's list: the next equal-priority task runs
 * first (a yield, or an RR slice that ran out). */
static void requeue_task_rt(struct rq *rq, struct task_struct *p)
{
	list_del_init(&p->rt.run_list);
	list_add_tail(&p->rt.run_list, &rq->rt.queue[p->prio]);
}

static void yield_task_rt(struct rq *rq)
{
	lockdep_assert_held(&rq->lock);
	requeue_task_rt(rq, rq->curr);
}

/* Linux: check_preempt_curr_rt(): only a strictly higher priority preempts;
 * an equal one waits for a block, a yield or the end of an RR slice. (A CFS
 * curr is preempted by the core, since the RT class ranks above fair.) */
static void check_preempt_curr_rt(struct rq *rq, struct task_struct *p, int flags)
{
	lockdep_assert_held(&rq->lock);
	if (p->prio < rq->curr->prio)
		resched_curr(rq);
}

/* The running RT task stays in its queue (Linux does the same). */
static struct task_struct *pick_next_task_rt(struct rq *rq)
{
	int prio = rt_first_prio(&rq->rt);
	struct task_struct *p;

	lockdep_assert_held(&rq->lock);
	if (prio >= MAX_RT_PRIO)
		return NULL;
	p = list_first_entry(&rq->rt.queue[prio], struct task_struct, rt.run_list);
	p->se.exec_start = rq->clock_task;
	/* Linux: set_next_task_rt(first): rq->curr is still prev here; if prev
	 * was RT, put_prev_task_rt() has just updated the signal. */
	if (rq->curr->sched_class != &rt_sched_class)
		update_rt_rq_load_avg(rq, false);
	return p;
}

/* Leaving the CPU: charge the run, and avg_rt accrues it as running time. */
static void put_prev_task_rt(struct rq *rq, struct task_struct *p)
{
	lockdep_assert_held(&rq->lock);
	update_curr_rt(rq);
	update_rt_rq_load_avg(rq, true);
}

/* Not a first pick (the core puts back a task it changed): no PELT update,
 * as Linux's set_next_task_rt() with first == false. */
static void set_next_task_rt(struct rq *rq, struct task_struct *p, bool first)
{
	lockdep_assert_held(&rq->lock);
	p->se.exec_start = rq->clock_task;
}

/* Linux: task_tick_rt(): FIFO runs on; RR loses a tick of its 100 ms slice
 * and, once it is used up, gets a new one and goes behind its equals (only if
 * there are any: a lone RR task just carries on). */
static void task_tick_rt(struct rq *rq, struct task_struct *p)
{
	lockdep_assert_held(&rq->lock);
	update_curr_rt(rq);
	update_rt_rq_load_avg(rq, true);
	if (p->policy != SCHED_RR)
		return;
	if (p->rt.time_slice > TICK_NSEC) {
		p->rt.time_slice -= TICK_NSEC;
		return;
	}
	p->rt.time_slice = RR_TIMESLICE;
	if (p->rt.run_list.next != p->rt.run_list.prev) { /* others at this prio */
		requeue_task_rt(rq, p);
		resched_curr(rq);
	}
}

/* Linux: rt_task_fits_capacity(): on an asymmetric machine an RT task fits a
 * CPU whose capacity_orig meets its effective uclamp.min (capped by its
 * uclamp.max). RT tasks get uclamp.min 1024 by default, so they go big. */
static bool rt_task_fits_capacity(const struct task_struct *p, int cpu)
{
	unsigned long min_cap, max_cap;

	if (!cpu_topology.asym_cpucapacity)
		return true;
	min_cap = uclamp_eff_value(p, UCLAMP_MIN);
	max_cap = uclamp_eff_value(p, UCLAMP_MAX);
	return capacity_orig_of((unsigned int)cpu) >= MIN(min_cap, max_cap);
}

/* Linux: convert_prio() of cpupri.c: a CPU's level is its highest queued RT
 * priority (rt.highest_prio.curr), 1 (RT prio 98) .. 99 (prio 0); 0
 * (CPUPRI_NORMAL) for a CPU with no RT work, busy with CFS or idle alike. */
static int cpupri_of(unsigned int cpu)
{
	int prio = rt_first_prio(&cpu_rq(cpu)->rt);

	return prio >= MAX_RT_PRIO - 1 ? 0 : MAX_RT_PRIO - 1 - prio;
}

static int task_cpupri(const struct task_struct *p)
{
	return p->prio >= MAX_RT_PRIO - 1 ? 0 : MAX_RT_PRIO - 1 - p->prio;
}

/* Linux: cpupri_find_fitness(): the allowed CPUs of the lowest level below
 * p's that has any (with fitness, any that also fit p); when no level has a
 * fitting CPU, the same search without fitness (priority beats fit). */
static bool cpupri_find(const struct task_struct *p, cpumask_t *lowest, bool fitness)
{
	cpumask_t cpus;
	unsigned int c;

	cpumask_and(&cpus, &p->cpus_allowed, cpu_active_mask);
	for (int idx = 0; idx < task_cpupri(p); idx++) {
		cpumask_clear(lowest);
		for_each_cpu(c, &cpus)
			if (cpupri_of(c) == idx && (!fitness || rt_task_fits_capacity(p, (int)c)))
				cpumask_set_cpu(c, lowest);
		if (!cpumask_empty(lowest))
			return true;
	}
	return fitness && cpupri_find(p, lowest, false);
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

/* Linux: find_lowest_rq(): among the lowest-priority CPUs (that fit p, on an
 * asymmetric machine), p's own CPU (cache-hot), else the waking CPU if it is
 * in p's CPU's nearest domain, else one in that domain, then in the next. */
static int find_lowest_rq(struct task_struct *p)
{
	int this_cpu = (int)arch_cpu_id(), cpu = p->cpu, best;
	struct rq *rq = cpu_rq(cpu);
	cpumask_t lowest;

	if (p->nr_cpus_allowed == 1)
		return -1;
	if (!cpupri_find(p, &lowest, cpu_topology.asym_cpucapacity))
		return -1;
	if (cpumask_test_cpu((unsigned int)cpu, &lowest))
		return cpu;
	if (!cpumask_test_cpu((unsigned int)this_cpu, &lowest))
		this_cpu = -1;
	for (int l = 0; l < rq->nr_sd; l++) { /* every level is SD_WAKE_AFFINE */
		if (this_cpu >= 0 && cpumask_test_cpu((unsigned int)this_cpu, &rq->sd[l].span))
			return this_cpu;
		best = any_and_distribute(&lowest, &rq->sd[l].span);
		if (best >= 0)
			return best;
	}
	if (this_cpu >= 0)
		return this_cpu;
	return any_and_distribute(&lowest, &lowest);
}

/* Linux: select_task_rq_rt(): a waking or new RT task stays on its CPU
 * unless an RT task of higher or equal priority (or a pinned one) runs
 * there, or the CPU does not fit its uclamp; then find_lowest_rq()'s CPU if
 * that one runs lower-priority work (and, when only fit moved it, fits). */
static int select_task_rq_rt(struct task_struct *p, int cpu, int wake_flags)
{
	struct task_struct *curr;
	bool test;
	int target;

	if (!(wake_flags & (WF_TTWU | WF_FORK)))
		return cpu;
	curr = READ_ONCE(cpu_rq(cpu)->curr);
	test = curr && rt_prio(curr->prio) && /* Linux: rt_task(): stop, DL, RT */
	       (curr->nr_cpus_allowed < 2 || curr->prio <= p->prio);
	if (!test && rt_task_fits_capacity(p, cpu))
		return cpu;
	target = find_lowest_rq(p);
	if (!test && target >= 0 && !rt_task_fits_capacity(p, target))
		return cpu;
	if (target >= 0 && p->prio < rt_first_prio(&cpu_rq(target)->rt))
		return target;
	return cpu;
}

/* A running task whose priority dropped may no longer be the best here:
 * reschedule and let pick decide. (Linux also pulls RT work from other CPUs.) */
static void prio_changed_rt(struct rq *rq, struct task_struct *p, int oldprio)
{
	lockdep_assert_held(&rq->lock);
	if (task_running(rq, p) && p->prio > oldprio)
		resched_curr(rq);
}

const struct sched_class rt_sched_class = {
	.uclamp_enabled = true,
	.enqueue_task = enqueue_task_rt,
	.dequeue_task = dequeue_task_rt,
	.yield_task = yield_task_rt,
	.check_preempt_curr = check_preempt_curr_rt,
	.pick_next_task = pick_next_task_rt,
	.put_prev_task = put_prev_task_rt,
	.set_next_task = set_next_task_rt,
	.select_task_rq = select_task_rq_rt,
	.task_tick = task_tick_rt,
	.update_curr = update_curr_rt,
	.prio_changed = prio_changed_rt,
};
