/* rt.c - SCHED_FIFO and SCHED_RR: 100 priority queues with a bitmap, FIFO
 * until the task blocks or yields, RR with a 100 ms slice; an RT task
 * preempts any CFS task at once. Placement as Linux 6.1: a waking task goes
 * to a CPU running lower-priority work (find_lowest_rq() over cpupri.c's
 * map, capacity-aware), a CPU with more RT work than it can run pushes the
 * waiting tasks away (push_rt_tasks()) and a CPU whose RT priority drops
 * pulls (pull_rt_task(), or asks the overloaded CPUs to push: RT_PUSH_IPI).
 * RT throttling: RT may run sched_rt_runtime_us of every sched_rt_period_us
 * on a CPU, then its queue waits for the period's end (CFS gets the rest).
 * Also the RT utilization signal (avg_rt) that capacity_of() and schedutil
 * use. State under rq->lock; the overload mask and cpupri are read without. */
#include "sched_internal.h"
#include "trace.h"

#define RR_TIMESLICE (100 * NSEC_PER_MSEC)
#define RT_MAX_TRIES 3 /* Linux: find_lock_lowest_rq()'s attempts */

#define RUNTIME_INF (~0ull)

/* Linux: sysctl_sched_rt_period / sysctl_sched_rt_runtime (us), their defaults;
 * written by sched_rt_bandwidth_set() under rt_bw_lock, read without. */
static int sysctl_sched_rt_period = 1000000;
static int sysctl_sched_rt_runtime = 950000;
static spinlock_t rt_bw_lock = SPINLOCK_INIT;
static bool rt_throttle_said;

cpumask_t sched_rto_mask; /* Linux: rd->rto_mask */
int sched_rto_count;	  /* Linux: rd->rto_count (atomic) */

static void rto_push_work(void *arg);
static void sched_rt_period_timer(struct timer *t);

void init_rt_rq(struct rt_rq *rt_rq)
{
	memset(rt_rq, 0, sizeof(*rt_rq));
	for (int i = 0; i < MAX_RT_PRIO; i++)
		INIT_LIST_HEAD(&rt_rq->queue[i]);
	rt_rq->highest_prio_curr = rt_rq->highest_prio_next = MAX_RT_PRIO - 1;
	INIT_LIST_HEAD(&rt_rq->pushable_tasks);
}

/* The rq's CPU joins cpupri at CPUPRI_NORMAL and leaves the overload mask
 * (its queues are empty); its push work gets its cross-CPU call. Linux:
 * rq_online_rt(). */
void rt_rq_online(struct rq *rq)
{
	if (cpumask_test_cpu(rq->cpu, &sched_rto_mask)) {
		cpumask_clear_cpu(rq->cpu, &sched_rto_mask);
		__atomic_sub_fetch(&sched_rto_count, 1, __ATOMIC_SEQ_CST);
	}
	cpupri_init_cpu(rq->cpu);
	timer_init(&rq->rt.rt_period_timer, sched_rt_period_timer);
	rq->rt_push_csd = (struct call_single_data){ .fn = rto_push_work, .arg = rq };
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

/* ---- RT throttling (Linux: sched_rt_runtime_us of every sched_rt_period_us) --------- */

static u64 rt_period_ns(void)
{
	return (u64)READ_ONCE(sysctl_sched_rt_period) * NSEC_PER_USEC;
}

/* Linux: global_rt_runtime(): RUNTIME_INF for -1. */
static u64 rt_runtime_ns(void)
{
	int runtime = READ_ONCE(sysctl_sched_rt_runtime);

	return runtime < 0 ? RUNTIME_INF : (u64)runtime * NSEC_PER_USEC;
}

/* Linux: def_dl_bandwidth's bw (to_ratio() of the two): what admission
 * allows of each CPU; BW_UNIT with no limit. */
u64 sched_rt_bw(void)
{
	u64 runtime = rt_runtime_ns(), period = rt_period_ns();

	return runtime == RUNTIME_INF ? BW_UNIT : (runtime << BW_SHIFT) / period;
}

/* Linux: do_sched_rt_period_timer()'s pay-back: each period that ended since
 * the last look repays one runtime of rt_time. Periods end at multiples of
 * sched_rt_period_us of the clock (Linux: every period from the timer's start). */
static void rt_period_refresh(struct rq *rq)
{
	struct rt_rq *rt_rq = &rq->rt;
	u64 period = rt_period_ns(), runtime = rt_runtime_ns(), overrun;

	if (rq->clock < rt_rq->rt_period_end)
		return;
	overrun = rt_rq->rt_period_end ? (rq->clock - rt_rq->rt_period_end) / period + 1 : 0;
	if (runtime == RUNTIME_INF || overrun * runtime >= rt_rq->rt_time)
		rt_rq->rt_time = 0;
	else
		rt_rq->rt_time -= overrun * runtime;
	rt_rq->rt_period_end = (rq->clock / period + 1) * period;
}

/* Linux: sched_rt_rq_dequeue() / sched_rt_rq_enqueue(): a throttled queue's
 * tasks stay queued but leave rq->nr_running, and pick skips them. */
static void rt_throttle(struct rq *rq)
{
	rq->rt.rt_throttled = true;
	rq->nr_running -= rq->rt.rt_nr_running;
	timer_start(&rq->rt.rt_period_timer, arch_clock_ns() + (rq->rt.rt_period_end - rq->clock));
}

static void rt_unthrottle(struct rq *rq)
{
	rq->rt.rt_throttled = false;
	rq->nr_running += rq->rt.rt_nr_running;
	if (rq->rt.rt_nr_running && rq->rt.highest_prio_curr < rq->curr->prio)
		resched_curr(rq);
	cpufreq_update_util(rq, 0);
}

/* Linux: sched_rt_runtime_exceeded(): more RT time than runtime this period:
 * throttle until the period timer finds it paid back. (runtime 0 throttles
 * nothing: Linux forgets the time instead.) */
static bool sched_rt_runtime_exceeded(struct rq *rq)
{
	u64 runtime = rt_runtime_ns();

	if (rq->rt.rt_throttled)
		return true;
	if (runtime >= rt_period_ns() || rq->rt.rt_time <= runtime)
		return false;
	if (!runtime) {
		rq->rt.rt_time = 0;
		return false;
	}
	if (!READ_ONCE(rt_throttle_said)) { /* Linux: printk_deferred_once() */
		WRITE_ONCE(rt_throttle_said, true);
		printk("sched: RT throttling activated\n");
	}
	rt_throttle(rq);
	return true;
}

/* Linux: sched_rt_period_timer(): a period ended on a throttled queue. */
static void sched_rt_period_timer(struct timer *t)
{
	struct rq *rq = container_of(t, struct rq, rt.rt_period_timer);
	unsigned long flags = spin_lock_irqsave(&rq->lock);

	update_rq_clock(rq);
	rt_period_refresh(rq);
	if (rq->rt.rt_throttled) {
		if (rt_runtime_ns() == RUNTIME_INF || rq->rt.rt_time < rt_runtime_ns())
			rt_unthrottle(rq);
		else /* still in debt (the runtime was lowered): the next period */
			timer_start(t, arch_clock_ns() + (rq->rt.rt_period_end - rq->clock));
	}
	spin_unlock_irqrestore(&rq->lock, flags);
}

/* New sysctl values apply at once: the periods that ended are paid back under
 * the old period, the current one is cut at the new boundary, and a throttled
 * queue is let go or waits for that boundary. (Linux's period timer runs out
 * its old period first.) */
static void rt_bandwidth_changed(struct rq *rq)
{
	unsigned long flags = spin_lock_irqsave(&rq->lock);
	u64 period = rt_period_ns(), runtime = rt_runtime_ns();

	update_rq_clock(rq);
	rt_period_refresh(rq);
	rq->rt.rt_period_end = (rq->clock / period + 1) * period;
	if (rq->rt.rt_throttled) {
		if (runtime == RUNTIME_INF || rq->rt.rt_time < runtime)
			rt_unthrottle(rq);
		else
			timer_start(&rq->rt.rt_period_timer,
				    arch_clock_ns() + (rq->rt.rt_period_end - rq->clock));
	}
	spin_unlock_irqrestore(&rq->lock, flags);
}

/* Linux: sched_rt_handler() -> sched_rt_global_validate(), sched_dl_global_validate()
 * (the admitted DL bandwidth must still fit), then the new values. */
int sched_rt_bandwidth_set(long runtime_us, long period_us)
{
	unsigned int cpu;
	u64 bw;
	int err = 0;
	unsigned long flags;

	if (period_us < 1 || period_us > 0x7fffffff || runtime_us < -1 || runtime_us > period_us)
		return -EINVAL;
	bw = runtime_us < 0 ? BW_UNIT : ((u64)runtime_us << BW_SHIFT) / (u64)period_us;
	flags = spin_lock_irqsave(&rt_bw_lock);
	if (!sched_rt_global_bw_ok(bw)) {
		err = -EBUSY;
	} else {
		WRITE_ONCE(sysctl_sched_rt_period, (int)period_us);
		WRITE_ONCE(sysctl_sched_rt_runtime, (int)runtime_us);
	}
	spin_unlock_irqrestore(&rt_bw_lock, flags);
	if (!err)
		for_each_cpu(cpu, cpu_online_mask)
			rt_bandwidth_changed(cpu_rq(cpu));
	return err;
}

void sched_rt_bandwidth_get(long *runtime_us, long *period_us)
{
	*runtime_us = READ_ONCE(sysctl_sched_rt_runtime);
	*period_us = READ_ONCE(sysctl_sched_rt_period);
}

/* Linux: update_curr_rt(): runtime since exec_start is charged to the task
 * and credited as emulated work (cpu_work()), and counts against the CPU's
 * RT bandwidth (not with sched_rt_runtime_us -1: rt_bandwidth_enabled()). */
static void update_curr_rt(struct rq *rq)
{
	struct task_struct *curr = rq->curr;
	u64 now = rq->clock_task, delta;

	if (curr->sched_class != &rt_sched_class || (s64)(now - curr->se.exec_start) <= 0)
		return;
	delta = now - curr->se.exec_start;
	curr->se.exec_start = now;
	curr->se.sum_exec_runtime += delta;
	account_cpu_work(rq, curr, delta);
	if (READ_ONCE(sysctl_sched_rt_runtime) < 0)
		return;
	rt_period_refresh(rq);
	rq->rt.rt_time += delta;
	if (sched_rt_runtime_exceeded(rq))
		resched_curr(rq);
}

/* ---- the SMP bookkeeping: highest prio, cpupri, overload, pushable tasks ---------- */

/* Linux: inc_rt_prio_smp() / dec_rt_prio_smp(): cpupri follows the rq's
 * highest queued prio. A CPU with DL work stays CPUPRI_HIGHER (deadline.c
 * sets it; Linux lets an RT change overwrite it until the next DL change). */
static void update_rt_prio(struct rq *rq)
{
	int prio = MIN(rt_first_prio(&rq->rt), MAX_RT_PRIO - 1);

	if (prio == rq->rt.highest_prio_curr)
		return;
	WRITE_ONCE(rq->rt.highest_prio_curr, prio);
	if (!rq->dl.dl_nr_running)
		cpupri_set(rq->cpu, prio);
}

/* Linux: rt_set_overload() / rt_clear_overload() (push_pull.c). */
static void update_rt_migration(struct rq *rq)
{
	struct rt_rq *rt_rq = &rq->rt;

	sched_update_overload(&rt_rq->overloaded,
			      rt_rq->rt_nr_migratory && rt_rq->rt_nr_running > 1, rq->cpu,
			      &sched_rto_mask, &sched_rto_count);
}

/* Linux: inc_rt_migration() / dec_rt_migration(). What was counted is kept
 * in the task, as its affinity may change while it is queued. */
static void inc_rt_migration(struct rq *rq, struct task_struct *p)
{
	p->rt.migratory = p->nr_cpus_allowed > 1;
	rq->rt.rt_nr_migratory += p->rt.migratory;
	update_rt_migration(rq);
}

static void dec_rt_migration(struct rq *rq, struct task_struct *p)
{
	rq->rt.rt_nr_migratory -= p->rt.migratory;
	p->rt.migratory = false;
	update_rt_migration(rq);
}

static bool has_pushable_tasks(const struct rq *rq)
{
	return !list_empty(&rq->rt.pushable_tasks);
}

static struct task_struct *first_pushable(const struct rq *rq)
{
	return list_first_entry(&rq->rt.pushable_tasks, struct task_struct, rt.pushable_node);
}

/* Linux: enqueue_pushable_task(): a queued, not running task that may run
 * elsewhere, kept in priority order (behind its equals). */
static void enqueue_pushable_task(struct rq *rq, struct task_struct *p)
{
	struct list_head *pos;

	list_del_init(&p->rt.pushable_node);
	list_for_each(pos, &rq->rt.pushable_tasks)
		if (list_entry(pos, struct task_struct, rt.pushable_node)->prio > p->prio)
			break;
	list_add_tail(&p->rt.pushable_node, pos); /* before the first of lower priority */
	if (p->prio < rq->rt.highest_prio_next)
		WRITE_ONCE(rq->rt.highest_prio_next, p->prio);
}

static void dequeue_pushable_task(struct rq *rq, struct task_struct *p)
{
	list_del_init(&p->rt.pushable_node);
	WRITE_ONCE(rq->rt.highest_prio_next,
		   has_pushable_tasks(rq) ? first_pushable(rq)->prio : MAX_RT_PRIO - 1);
}

/* ---- the class -------------------------------------------------------------------- */

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
	if (rt_rq->rt_throttled && !(flags & ENQUEUE_RESTORE))
		rq->nr_running--; /* the core counts it; a throttled queue's tasks do not count */
	update_rt_prio(rq);
	inc_rt_migration(rq, p);
	if (!task_running(rq, p) && p->nr_cpus_allowed > 1)
		enqueue_pushable_task(rq, p);
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
	if (rt_rq->rt_throttled && !(flags & DEQUEUE_SAVE))
		rq->nr_running++; /* the core uncounts what was not counted */
	dequeue_pushable_task(rq, p);
	update_rt_prio(rq);
	dec_rt_migration(rq, p);
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

/* Linux: rt_queue_push_tasks(): push once the switch is done. */
static void rt_queue_push_tasks(struct rq *rq)
{
	if (has_pushable_tasks(rq))
		queue_balance_callback(rq, BALANCE_PUSH_RT);
}

/* The running RT task stays in its queue (Linux does the same) but is no
 * longer pushable; others waiting here may be pushed after the switch. */
static struct task_struct *pick_next_task_rt(struct rq *rq)
{
	int prio = rt_first_prio(&rq->rt);
	struct task_struct *p;

	lockdep_assert_held(&rq->lock);
	if (prio >= MAX_RT_PRIO || rq->rt.rt_throttled)
		return NULL;
	p = list_first_entry(&rq->rt.queue[prio], struct task_struct, rt.run_list);
	p->se.exec_start = rq->clock_task;
	dequeue_pushable_task(rq, p);
	/* Linux: set_next_task_rt(first): rq->curr is still prev here; if prev
	 * was RT, put_prev_task_rt() has just updated the signal. */
	if (rq->curr->sched_class != &rt_sched_class)
		update_rt_rq_load_avg(rq, false);
	rt_queue_push_tasks(rq);
	return p;
}

/* Leaving the CPU: charge the run, and avg_rt accrues it as running time.
 * Still queued (preempted): it may now be pushed. */
static void put_prev_task_rt(struct rq *rq, struct task_struct *p)
{
	lockdep_assert_held(&rq->lock);
	update_curr_rt(rq);
	update_rt_rq_load_avg(rq, true);
	if (p->rt.on_rq && p->nr_cpus_allowed > 1)
		enqueue_pushable_task(rq, p);
}

/* Not a first pick (the core puts back a task it changed): no PELT update,
 * as Linux's set_next_task_rt() with first == false. */
static void set_next_task_rt(struct rq *rq, struct task_struct *p, bool first)
{
	lockdep_assert_held(&rq->lock);
	p->se.exec_start = rq->clock_task;
	dequeue_pushable_task(rq, p);
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

/* ---- where an RT task may go: cpupri and capacity ------------------------------------ */

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

/* Linux: find_lowest_rq(): among the lowest-priority CPUs (that fit p, on an
 * asymmetric machine), the nearest (pick_candidate_near()). */
static int find_lowest_rq(struct task_struct *p)
{
	cpumask_t lowest;

	if (p->nr_cpus_allowed == 1)
		return -1;
	if (!cpupri_find_fitness(p, &lowest,
				 cpu_topology.asym_cpucapacity ? rt_task_fits_capacity : NULL))
		return -1;
	return pick_candidate_near(p, &lowest);
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
	if (target >= 0 && p->prio < READ_ONCE(cpu_rq(target)->rt.highest_prio_curr))
		return target;
	return cpu;
}

/* ---- push and pull ------------------------------------------------------------------ */

/* Linux: find_lock_lowest_rq(): a CPU of lower priority for task, locked
 * along with rq; NULL if none (or task moved or ran meanwhile). */
static struct rq *find_lock_lowest_rq(struct task_struct *task, struct rq *rq)
{
	for (int tries = 0; tries < RT_MAX_TRIES; tries++) {
		int cpu = find_lowest_rq(task);
		struct rq *lowest;

		if (cpu < 0 || cpu == (int)rq->cpu)
			return NULL;
		lowest = cpu_rq(cpu);
		/* as busy as we are: another try would find the same */
		if (READ_ONCE(lowest->rt.highest_prio_curr) <= task->prio)
			return NULL;
		if (double_lock_balance(rq, lowest) &&
		    (task_rq(task) != rq || !cpumask_test_cpu(lowest->cpu, &task->cpus_allowed) ||
		     task_running(rq, task) || task->sched_class != &rt_sched_class ||
		     !task_on_rq_queued(task))) {
			double_unlock_balance(rq, lowest);
			return NULL;
		}
		if (lowest->rt.highest_prio_curr > task->prio)
			return lowest;
		double_unlock_balance(rq, lowest); /* it got busier meanwhile: again */
	}
	return NULL;
}

/* A woken task that outranks curr runs here rather than elsewhere. */
static bool rt_runs_here(struct rq *rq, struct task_struct *p)
{
	return p->prio < rq->curr->prio;
}

static struct task_struct *first_pushable_or_null(struct rq *rq)
{
	return has_pushable_tasks(rq) ? first_pushable(rq) : NULL;
}

static const struct push_ops rt_push_ops = {
	.first_pushable = first_pushable_or_null,
	.runs_here = rt_runs_here,
	.find_lock_target = find_lock_lowest_rq,
	.why = WHY_MOVE_RT_PUSH,
};

/* Linux: push_rt_task(): if this CPU is overloaded, move its best waiting
 * RT task to a CPU running lower-priority work. 1: one moved. rq locked;
 * its lock may be dropped on the way. */
static int push_rt_task(struct rq *rq)
{
	return rq->rt.overloaded ? push_one_task(rq, &rt_push_ops) : 0;
}

/* Linux: push_rt_tasks(). */
void push_rt_tasks(struct rq *rq)
{
	lockdep_assert_held(&rq->lock);
	if (!sched_feat(RT_PUSH_PULL))
		return;
	while (push_rt_task(rq))
		;
}

/* RT_PUSH_IPI: an overloaded CPU pushes its own tasks, in an interrupt
 * (Linux: rto_push_irq_work_func()). */
static void rto_push_work(void *arg)
{
	struct rq *rq = arg;
	unsigned long flags = spin_lock_irqsave(&rq->lock);

	if (has_pushable_tasks(rq))
		push_rt_tasks(rq);
	spin_unlock_irqrestore(&rq->lock, flags);
}

/* Linux: tell_cpu_to_push(): with RT_PUSH_IPI a CPU lowering its priority
 * does not lock every overloaded run queue in turn (the lock storm on big
 * machines): each overloaded CPU that has something better than ours to
 * give is asked to push. Linux passes one IPI along the overloaded CPUs in
 * turn (rto_next_cpu()); here each gets its own call, one in flight at most. */
static void tell_cpu_to_push(struct rq *this_rq)
{
	unsigned int cpu;

	for_each_cpu(cpu, &sched_rto_mask) {
		struct rq *src = cpu_rq(cpu);

		if (cpu == this_rq->cpu ||
		    READ_ONCE(src->rt.highest_prio_next) >= this_rq->rt.highest_prio_curr)
			continue;
		smp_call_function_single_async(cpu, &src->rt_push_csd);
	}
}

/* Linux: pick_highest_pushable_task(): the best waiting task of rq allowed
 * on cpu. */
static struct task_struct *pick_highest_pushable_task(struct rq *rq, unsigned int cpu)
{
	struct list_head *pos;

	list_for_each(pos, &rq->rt.pushable_tasks) {
		struct task_struct *p = list_entry(pos, struct task_struct, rt.pushable_node);

		if (!task_running(rq, p) && cpumask_test_cpu(cpu, &p->cpus_allowed))
			return p;
	}
	return NULL;
}

/* Linux: pull_rt_task(): this CPU's RT priority dropped: take the best
 * waiting task of the overloaded CPUs that outranks what is left here (one
 * per CPU; a better one found later is pulled too). A source that could not
 * be locked in __schedule() is tried again after the switch. */
static void __pull_rt_task(struct rq *this_rq, bool may_drop)
{
	unsigned int this_cpu = this_rq->cpu, cpu;
	int count = __atomic_load_n(&sched_rto_count, __ATOMIC_SEQ_CST);
	bool resched = false;

	if (!sched_feat(RT_PUSH_PULL) || !count)
		return;
	if (count == 1 && cpumask_test_cpu(this_cpu, &sched_rto_mask))
		return; /* we are the only overloaded one */
	if (sched_feat(RT_PUSH_IPI)) {
		tell_cpu_to_push(this_rq);
		return;
	}
	for_each_cpu(cpu, &sched_rto_mask) {
		struct rq *src = cpu_rq(cpu);
		struct task_struct *p;

		/* unlocked hint: if src's best waiter is about to improve,
		 * src pushes it; if it worsens, we do not want it */
		if (cpu == this_cpu ||
		    READ_ONCE(src->rt.highest_prio_next) >= this_rq->rt.highest_prio_curr)
			continue;
		if (!lock_pull_src(this_rq, src, may_drop)) {
			queue_balance_callback(this_rq, BALANCE_PULL_RT);
			continue;
		}
		p = pick_highest_pushable_task(src, this_cpu);
		/* not one that is about to preempt src's curr: src runs it */
		if (p && p->prio < this_rq->rt.highest_prio_curr && p->prio >= src->curr->prio) {
			push_pull_move(src, this_rq, p, WHY_MOVE_RT_PULL);
			resched = true;
		}
		double_unlock_balance(this_rq, src);
	}
	if (resched)
		resched_curr(this_rq);
}

void pull_rt_task(struct rq *this_rq)
{
	__pull_rt_task(this_rq, true);
}

/* Linux: need_pull_rt_task(): prev leaves and what is left here is of lower
 * priority than it. */
static bool need_pull_rt_task(const struct rq *rq, const struct task_struct *prev)
{
	return cpu_active(rq->cpu) && rq->rt.highest_prio_curr > prev->prio;
}

/* Linux: balance_rt(), before the pick (core.c put_prev_task_balance()):
 * prev blocked or left RT: pull. Nonzero: a class from RT up has work. */
static int balance_rt(struct rq *rq, struct task_struct *prev)
{
	if (!prev->rt.on_rq && need_pull_rt_task(rq, prev))
		__pull_rt_task(rq, false);
	return rq->dl.dl_nr_running || (rq->rt.rt_nr_running && !rq->rt.rt_throttled);
}

/* Linux: task_woken_rt(): a woken task that will not run here soon (curr
 * is RT or DL of at least its priority, or pinned, and no resched is
 * coming) is pushed at once. */
static void task_woken_rt(struct rq *rq, struct task_struct *p)
{
	struct task_struct *curr = rq->curr;

	if (!task_running(rq, p) && !rq->need_resched && p->nr_cpus_allowed > 1 &&
	    rt_prio(curr->prio) && (curr->nr_cpus_allowed < 2 || curr->prio <= p->prio))
		push_rt_tasks(rq);
}

/* A queued task's affinity changed: recount it (Linux: the dequeue/enqueue
 * of __do_set_cpus_allowed()). */
static void cpus_allowed_changed_rt(struct rq *rq, struct task_struct *p)
{
	bool migratory = p->nr_cpus_allowed > 1;

	if (migratory != p->rt.migratory) {
		rq->rt.rt_nr_migratory += migratory ? 1 : -1;
		p->rt.migratory = migratory;
		update_rt_migration(rq);
	}
	if (!task_running(rq, p)) {
		if (migratory)
			enqueue_pushable_task(rq, p);
		else
			dequeue_pushable_task(rq, p);
	}
}

/* Linux: switched_from_rt(): the last RT task here left the class: pull. */
static void switched_from_rt(struct rq *rq, struct task_struct *p)
{
	if (task_on_rq_queued(p) && !rq->rt.rt_nr_running)
		queue_balance_callback(rq, BALANCE_PULL_RT);
}

/* Linux: switched_to_rt(): a queued task that became RT may make this CPU
 * overloaded (push) or preempt curr. */
static void switched_to_rt(struct rq *rq, struct task_struct *p)
{
	if (task_running(rq, p) || !task_on_rq_queued(p))
		return;
	if (p->nr_cpus_allowed > 1 && rq->rt.overloaded)
		rt_queue_push_tasks(rq);
	if (p->prio < rq->curr->prio)
		resched_curr(rq);
}

/* Linux: prio_changed_rt(): curr lowered its priority: pull, and let pick
 * decide if something here outranks it now; a waiting task raised above
 * curr preempts it. */
static void prio_changed_rt(struct rq *rq, struct task_struct *p, int oldprio)
{
	lockdep_assert_held(&rq->lock);
	if (!task_on_rq_queued(p))
		return;
	if (task_running(rq, p)) {
		if (oldprio < p->prio)
			queue_balance_callback(rq, BALANCE_PULL_RT);
		if (p->prio > rq->rt.highest_prio_curr)
			resched_curr(rq);
	} else if (p->prio < rq->curr->prio) {
		resched_curr(rq);
	}
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
	.balance = balance_rt,
	.select_task_rq = select_task_rq_rt,
	.task_tick = task_tick_rt,
	.update_curr = update_curr_rt,
	.prio_changed = prio_changed_rt,
	.task_woken = task_woken_rt,
	.cpus_allowed_changed = cpus_allowed_changed_rt,
	.switched_from = switched_from_rt,
	.switched_to = switched_to_rt,
};
