/* core.c - the scheduler core: per-CPU run queues, the class loop of
 * schedule(), wakeups (try_to_wake_up), new tasks, affinity, the tick, the rq
 * clocks (task and PELT time), hotplug's migrations. Not the policy/nice/uclamp
 * setters (syscalls.c) nor the emulated work primitive (cpu_work.c). Policy lives
 * in the classes: fair.c (CFS), rt.c, deadline.c, idle.c (idle and stop).
 * Linux: kernel/sched/core.c.
 *
 * Lock order (the one statement of it; the debug build checks it, see
 * include/lockdep.h):
 *   1. task->pi_lock
 *   2. rq->lock; two rq locks: the lower CPU id first (double_rq_lock), or
 *      a higher one only by spin_trylock (newidle balance)
 *   3. locks nested inside rq->lock: cfs_rq->removed.lock, cpufreq
 *      policy->lock (the schedutil hook), cpudl's lock (cpudl.c)
 * Locks of no class (wait queues, mutex internals, timers, console) are
 * taken before pi_lock or as leaves, never around a class they order after.
 * The rq lock is held across the context switch and released by the task
 * switched to (finish_task_switch), as in Linux. */
#include "cpuidle.h"
#include "mm.h"
#include "sched_internal.h"
#include "trace.h"
#include "speed.h"

struct rq runqueues[NR_CPUS];
struct update_util_data *cpufreq_update_util_data[NR_CPUS]; /* set by cpufreq_schedutil.c */
const struct sched_class *const sched_classes[] = {
	&stop_sched_class, &dl_sched_class,   &rt_sched_class,
	&fair_sched_class, &idle_sched_class, NULL,
};

/* Linux: sched_prio_to_weight[] - each nice level is ~10% of CPU time: w(n) ~ 1024 / 1.25^n. */
static const int prio_to_weight[40] = {
	88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916,
	9548,  7620,  6100,  4904,  3906,  3121,  2501,	 1991,	1586,  1277,
	1024,  820,   655,   526,   423,   335,	  272,	 215,	172,   137,
	110,   87,    70,    56,    45,	   36,	  29,	 23,	18,    15,
};
#define WEIGHT_IDLEPRIO 3 /* SCHED_IDLE */

/* update_load: p is on a run queue (queued or asleep there, rq locked), so
 * a CFS task's PELT load moves to the new weight (Linux: reweight_task();
 * SCHED_IDLE is set directly, as in Linux). */
void set_load_weight(struct task_struct *p, bool update_load)
{
	unsigned long w = p->policy == SCHED_IDLE
				  ? WEIGHT_IDLEPRIO
				  : (unsigned long)prio_to_weight[p->static_prio - MAX_RT_PRIO];

	if (update_load && p->policy != SCHED_IDLE && p->sched_class == &fair_sched_class)
		reweight_task(p, w);
	p->se.load.weight = w;
	p->se.load.inv_weight = (u32)(0xffffffffull / w); /* Linux: sched_prio_to_wmult */
}

/* ---- clocks --------------------------------------------------------------------- */

static u64 irq_time[NR_CPUS]; /* written by this CPU's IRQ exit only */

/* From the IRQ path: ns spent handling one interrupt on this CPU. A handler
 * here runs microseconds; a stretch longer than a tick is the host pausing
 * the vCPU inside it (QEMU without -icount), not interrupt work, and counted
 * whole it would freeze clock_task and drive avg_irq, hence capacity_of(),
 * to nothing for as long. So one interrupt counts at most one tick; the rest
 * is the interrupted task's, as a pause outside a handler is. Linux:
 * irqtime_account_irq() has no bound (a guest's host pauses arrive as
 * paravirt steal time instead). */
void account_irq_time(u64 delta)
{
	irq_time[arch_cpu_id()] += MIN(delta, (u64)TICK_NSEC);
}

u64 cpu_irq_time_ns(unsigned int cpu)
{
	return cpu < NR_CPUS ? READ_ONCE(irq_time[cpu]) : 0;
}

/* While idle, remember where the clocks stood: a task leaving this CPU at
 * wakeup estimates our PELT clock from them (fair.c migrate_se_pelt_lag).
 * Linux: _update_idle_rq_clock_pelt()'s clock_idle, clock_pelt_idle. */
static void note_idle_clocks(struct rq *rq)
{
	WRITE_ONCE(rq->clock_idle, rq->clock);
	WRITE_ONCE(rq->clock_pelt_idle, rq_clock_pelt(rq));
}

/* Advance rq->clock, clock_task (minus IRQ time) and the PELT clock, which
 * runs slower on small or slowed-down CPUs (Linux >= 5.1 invariance). The
 * IRQ signal accrues here when there was IRQ time; it decays in
 * update_blocked_averages(). Linux: update_rq_clock(), update_rq_clock_task(). */
void update_rq_clock(struct rq *rq)
{
	u64 now = arch_clock_ns(), delta, irq;

	lockdep_assert_held(&rq->lock);
	if (now <= rq->clock)
		return;
	delta = now - rq->clock;
	rq->clock = now;
	irq = READ_ONCE(irq_time[rq->cpu]) - rq->prev_irq_time;
	if (irq > delta)
		irq = delta;
	rq->prev_irq_time += irq;
	rq->clock_task += delta - irq;
	sched_oracle_event(SCHED_EV_CLOCK, rq, NULL, (long)irq);
	if (irq)
		pelt_update_irq(&rq->avg_irq, rq->clock, irq, arch_scale_cpu_capacity((int)rq->cpu),
				arch_scale_freq_capacity((int)rq->cpu));
	rq->pelt = pelt_clock_update(rq->pelt, delta - irq, rq->curr == rq->idle,
				     arch_scale_cpu_capacity((int)rq->cpu),
				     arch_scale_freq_capacity((int)rq->cpu));
	if (rq->curr == rq->idle)
		note_idle_clocks(rq);
}

/* The rq goes idle: if it was saturated (cfs + rt + dl util_sum at the maximum),
 * the time its PELT clock lags the task clock would not have been idle at
 * full capacity either, and is kept as lost idle time before the clocks
 * resync. Linux: update_idle_rq_clock_pelt(). */
static void update_idle_rq_clock_pelt(struct rq *rq)
{
	rq->pelt = pelt_clock_enter_idle(rq->pelt, rq->cfs.avg.util_sum + rq->avg_rt.util_sum +
							   rq->avg_dl.util_sum);
	note_idle_clocks(rq);
}

/* ---- run queue basics ----------------------------------------------------------- */

void resched_curr(struct rq *rq)
{
	lockdep_assert_held(&rq->lock);
	if (READ_ONCE(rq->need_resched))
		return;
	WRITE_ONCE(rq->need_resched, true);
	if (rq->cpu != arch_cpu_id())
		arch_send_ipi(rq->cpu, IPI_RESCHEDULE);
}

void resched_cpu(unsigned int cpu)
{
	WRITE_ONCE(cpu_rq(cpu)->need_resched, true);
	if (cpu != arch_cpu_id())
		arch_send_ipi(cpu, IPI_RESCHEDULE);
}

bool need_resched(void)
{
	return READ_ONCE(this_rq()->need_resched);
}

/* Linux: enqueue_task()/dequeue_task(): uclamp counts the task before the
 * class sees it (the class's cpufreq update then reads the new clamps). */
void enqueue_task(struct rq *rq, struct task_struct *p, int flags)
{
	/* Linux 6.12: a delayed sleeper moved between CPUs (or restored) stays asleep
	 * and uncounted; only its wakeup (ENQUEUE_DELAYED) counts it again. Counted, it
	 * would stay in its bucket when the pick finishes its dequeue. */
	if (!p->se.sched_delayed || (flags & ENQUEUE_DELAYED))
		uclamp_rq_inc(rq, p);
	p->sched_class->enqueue_task(rq, p, flags);
}

void dequeue_task(struct rq *rq, struct task_struct *p, int flags)
{
	uclamp_rq_dec(rq, p);
	p->sched_class->dequeue_task(rq, p, flags);
}

void activate_task(struct rq *rq, struct task_struct *p, int flags)
{
	BUG_ON(p->cpu != (int)rq->cpu || !spin_is_held(&rq->lock));
	sched_oracle_event(SCHED_EV_ENQUEUE, rq, p, flags);
	enqueue_task(rq, p, flags);
	p->on_rq = TASK_ON_RQ_QUEUED;
	if (++rq->nr_running == 2 && !READ_ONCE(sched_rd_overload))
		WRITE_ONCE(sched_rd_overload, 1); /* Linux: add_nr_running() */
}

void deactivate_task(struct rq *rq, struct task_struct *p, int flags)
{
	BUG_ON(p->cpu != (int)rq->cpu || !spin_is_held(&rq->lock));
	p->on_rq = (flags & DEQUEUE_SLEEP) ? 0 : TASK_ON_RQ_MIGRATING;
	sched_oracle_event(SCHED_EV_DEQUEUE, rq, p, flags);
	dequeue_task(rq, p, flags);
	if (p->se.sched_delayed && (flags & DEQUEUE_SLEEP)) {
		/* Linux 6.12 DELAY_DEQUEUE: asleep but still queued, competing until it is
		 * eligible; the pick or a wakeup ends that (block_delayed_task, ttwu) */
		p->on_rq = TASK_ON_RQ_QUEUED;
		return;
	}
	rq->nr_running--;
}

void block_delayed_task(struct rq *rq, struct task_struct *p)
{
	lockdep_assert_held(&rq->lock);
	sched_oracle_event(SCHED_EV_BLOCK, rq, p, 0);
	p->sched_class->dequeue_task(rq, p, DEQUEUE_SLEEP | DEQUEUE_DELAYED);
	p->on_rq = 0;
	rq->nr_running--;
}

void check_preempt_curr(struct rq *rq, struct task_struct *p, int flags)
{
	const struct sched_class *c;

	lockdep_assert_held(&rq->lock);
	if (p->sched_class == rq->curr->sched_class) {
		sched_oracle_event(SCHED_EV_PREEMPT_CHECK, rq, p, flags);
		p->sched_class->check_preempt_curr(rq, p, flags);
		return;
	}
	for_each_class(c) { /* a higher class always preempts */
		if (c == rq->curr->sched_class)
			return;
		if (c == p->sched_class) {
			resched_curr(rq);
			return;
		}
	}
}

/* Move p's accounting to `cpu` (p is not queued anywhere, or is being moved
 * under both rq locks). */
void set_task_cpu(struct task_struct *p, unsigned int cpu)
{
#ifdef CONFIG_DEBUG_SCHED
	/* Linux: set_task_cpu()'s lockdep check: wakeups hold pi_lock, migrations the rq lock. */
	if (!lockdep_held_by_me(&p->pi_lock) && !lockdep_held_by_me(&task_rq(p)->lock))
		lockdep_assert_failed("neither lock held", "p->pi_lock or task_rq(p)->lock held",
				      __func__, __FILE__, __LINE__);
#endif
	BUG_ON(p->on_rq == TASK_ON_RQ_QUEUED);		       /* dequeue first */
	BUG_ON(__atomic_load_n(&p->on_cpu, __ATOMIC_ACQUIRE)); /* never a running task */
	if ((int)cpu == p->cpu)
		return;
	sched_oracle_event(SCHED_EV_MIGRATE, task_rq(p), p, (long)cpu);
	if (p->sched_class->migrate_task_rq)
		p->sched_class->migrate_task_rq(p, (int)cpu);
	trace_sched_migrate_task(p, cpu);
	p->se.nr_migrations++;
	p->cpu = (int)cpu;
	p->wake_cpu = (int)cpu; /* the prev_cpu of its next wakeup (Linux: __set_task_cpu) */
}

void double_rq_lock(struct rq *a, struct rq *b)
{
	if (a == b) {
		spin_lock(&a->lock);
	} else if (a->cpu < b->cpu) {
		spin_lock(&a->lock);
		spin_lock(&b->lock);
	} else {
		spin_lock(&b->lock);
		spin_lock(&a->lock);
	}
}

void double_rq_unlock(struct rq *a, struct rq *b)
{
	spin_unlock(&a->lock);
	if (a != b)
		spin_unlock(&b->lock);
}

/* Linux: __task_rq_lock(). With p->pi_lock held, lock the rq p is on; the
 * load balancer moves queued tasks without pi_lock, so check after locking
 * that p is still there (and not between two run queues). */
struct rq *task_rq_lock(struct task_struct *p)
{
	for (;;) {
		struct rq *rq = task_rq(p);

		spin_lock(&rq->lock);
		if (rq == task_rq(p) && p->on_rq != TASK_ON_RQ_MIGRATING)
			return rq;
		spin_unlock(&rq->lock);
		arch_cpu_relax();
	}
}

/* Linux: is_cpu_allowed(). Tasks run on active CPUs only; a per-CPU kthread
 * (idle, stop task) stays allowed on its CPU while that is still online. Our
 * other kthreads stand for user tasks, so they get the user-task rule. */
static bool is_cpu_allowed(const struct task_struct *p, int cpu)
{
	if (cpu < 0 || cpu >= NR_CPUS || !cpumask_test_cpu((unsigned int)cpu, &p->cpus_allowed))
		return false;
	if (p->per_cpu_kthread)
		return cpu_online((unsigned int)cpu);
	return cpu_active((unsigned int)cpu);
}

/* Linux: select_fallback_rq(): the first allowed active CPU; when p's mask
 * holds none ("No more Mr. Nice Guy"), p's mask becomes every possible CPU
 * (task_cpu_possible_mask) and it is told. Called with p->pi_lock held, or
 * from the dying CPU inside stop_machine. */
static int select_fallback_rq(struct task_struct *p, int cpu)
{
	cpumask_t ok;

	if (p->per_cpu_kthread && cpumask_and(&ok, &p->cpus_allowed, cpu_online_mask))
		return (int)cpumask_first(&ok);
	if (!cpumask_and(&ok, &p->cpus_allowed, cpu_active_mask)) {
		p->cpus_allowed = *cpu_possible_mask;
		p->nr_cpus_allowed = (int)cpumask_weight(&p->cpus_allowed);
		cpumask_and(&ok, &p->cpus_allowed, cpu_active_mask);
		printk("sched: process %d (%s) no longer affine to cpu%d: allowed on all CPUs "
		       "now\n",
		       p->pid, p->comm, cpu);
	}
	BUG_ON(cpumask_empty(&ok)); /* cpu_down() never takes the last active CPU */
	return (int)cpumask_first(&ok);
}

static int select_task_rq(struct task_struct *p, int cpu, int wake_flags)
{
	int prev = cpu;

	if (p->nr_cpus_allowed > 1)
		cpu = p->sched_class->select_task_rq(p, cpu, wake_flags);
	else
		cpu = (int)cpumask_first(&p->cpus_allowed);
	if (!is_cpu_allowed(p, cpu))
		cpu = select_fallback_rq(p, prev);
	return cpu;
}

/* ---- wakeups -------------------------------------------------------------------- */

/* Linux: ttwu_do_wakeup()'s task_woken(): the class may push what will not
 * run here soon (rt.c). rq locked; its lock may be dropped and retaken. */
static void task_woken(struct rq *rq, struct task_struct *p)
{
	if (p->sched_class->task_woken)
		p->sched_class->task_woken(rq, p);
}

/* A refill still owed when the task is about to wake another or leave the CPU: a stall
 * now, before its effects reach anyone (cache_charge()). Task context. */
static void cache_pay(void)
{
	struct task_struct *p = current;
	unsigned long flags;
	u64 owed;

	if (!READ_ONCE(p->cache.uncredited))
		return;
	flags = arch_irq_save();
	owed = p->cache.uncredited;
	if (speed_stall_plain(owed)) {
		p->cache.uncredited = 0;
		p->cache.stalled_ns += owed;
	}
	arch_irq_restore(flags);
}

/* Linux: try_to_wake_up(). Returns 1 if the task was woken. */
int wake_up_process_flags(struct task_struct *p, int wake_flags)
{
	unsigned long flags;

	/* A slow waker wakes its partner late (kernel/sched/speed.c). */
	if (p->state == TASK_INTERRUPTIBLE) {
		cache_pay();
		speed_pay();
	}
	flags = spin_lock_irqsave(&p->pi_lock);
	unsigned int this_cpu = arch_cpu_id();
	struct rq *rq;
	int cpu;

	if (p->state != TASK_INTERRUPTIBLE) {
		spin_unlock_irqrestore(&p->pi_lock, flags);
		return 0;
	}
	p->stats.nr_wakeups++;
	/* Still queued (it has not switched out yet): just make it runnable. */
	rq = task_rq_lock(p);
	if (task_on_rq_queued(p)) {
		update_rq_clock(rq);
		if (p->se.sched_delayed) { /* Linux 6.12: ttwu_runnable() */
			sched_oracle_event(SCHED_EV_REQUEUE, rq, p, ENQUEUE_DELAYED);
			enqueue_task(rq, p, ENQUEUE_DELAYED);
		}
		p->state = TASK_RUNNING;
		check_preempt_curr(rq, p, wake_flags);
		task_woken(rq, p);
		spin_unlock(&rq->lock);
		spin_unlock_irqrestore(&p->pi_lock, flags);
		return 1;
	}
	spin_unlock(&rq->lock);
	/* Dequeued, maybe still switching out: its registers must be saved
	 * before it can run anywhere (Linux: smp_cond_load_acquire(on_cpu)). */
	speed_spin_begin();
	while (__atomic_load_n(&p->on_cpu, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	speed_spin_end();
	cpu = select_task_rq(p, p->wake_cpu, wake_flags | WF_TTWU);
	if (cpu != p->cpu) {
		wake_flags |= WF_MIGRATED;
		p->stats.nr_wakeups_migrate++;
		set_task_cpu(p, (unsigned int)cpu);
	}
	if ((unsigned int)cpu == this_cpu)
		p->stats.nr_wakeups_local++;
	else
		p->stats.nr_wakeups_remote++;
	rq = cpu_rq(cpu);
	spin_lock(&rq->lock);
	update_rq_clock(rq);
	p->state = TASK_RUNNING;
	activate_task(rq, p, ENQUEUE_WAKEUP | (wake_flags & WF_MIGRATED ? ENQUEUE_MIGRATED : 0));
	sched_ttwu_idle_stamp(rq);
	trace_sched_wakeup(p);
	check_preempt_curr(rq, p, wake_flags);
	task_woken(rq, p);
	spin_unlock(&rq->lock);
	spin_unlock_irqrestore(&p->pi_lock, flags);
	return 1;
}

int wake_up_process(struct task_struct *p)
{
	return wake_up_process_flags(p, 0);
}

/* Scheduler state of a task that has never run. */
static void sched_fork(struct task_struct *p)
{
	struct task_struct *parent = current;

	p->policy = SCHED_NORMAL;
	p->static_prio = DEFAULT_PRIO;
	if (parent && !parent->is_idle && parent->policy != SCHED_FIFO &&
	    parent->policy != SCHED_RR && parent->policy != SCHED_DEADLINE) { /* like fork */
		p->policy = parent->policy;
		p->static_prio = parent->static_prio;
	}
	p->prio = p->normal_prio = p->static_prio;
	p->sched_class = &fair_sched_class;
	/* Linux: sched_cgroup_fork(): the parent's group */
	p->sched_task_group = parent && !parent->is_idle ? parent->sched_task_group : NULL;
	set_load_weight(p, false);
	/* Linux: uclamp_fork() with reset_on_fork (the policy is reset too) */
	for (int id = 0; id < UCLAMP_CNT; id++) {
		p->uclamp[id].active = 0;
		p->uclamp_user_defined[id] = false;
	}
	uclamp_policy_defaults(p);
	p->recent_used_cpu = -1;
	p->cache =
		(struct task_cache){ .ws_kib = p->is_idle ? 0 : CACHE_WS_DEFAULT_KIB, .cpu = -1 };
	INIT_LIST_HEAD(&p->rt.run_list);
	INIT_LIST_HEAD(&p->rt.pushable_node);
	sched_dl_task_init(p);
	memset(&p->se.avg, 0, sizeof(p->se.avg));
}

void sched_task_init(struct task_struct *p)
{
	sched_fork(p);
	p->nr_cpus_allowed = (int)cpumask_weight(&p->cpus_allowed);
}

/* Linux: wake_up_new_task(): fork balancing picks the CPU. */
void wake_up_new_task(struct task_struct *p)
{
	unsigned long flags;

	cache_pay();
	speed_pay();
	flags = spin_lock_irqsave(&p->pi_lock);
	struct rq *rq;
	int cpu;

	p->state = TASK_RUNNING;
	/* Linux: sched_cgroup_fork() -> task_fork(), on the parent's CPU, at copy_process(). */
	p->cpu = (int)arch_cpu_id();
	if (p->sched_class->task_fork)
		p->sched_class->task_fork(p);
	p->recent_used_cpu = p->cpu; /* Linux: task_cpu(p), the parent's */
	cpu = select_task_rq(p, arch_cpu_id(), WF_FORK);
	p->cpu = cpu;
	p->wake_cpu = cpu;
	rq = cpu_rq(cpu);
	spin_lock(&rq->lock);
	update_rq_clock(rq);
	sched_oracle_event(SCHED_EV_FORK, rq, p, 0);
	post_init_entity_util_avg(p);
	activate_task(rq, p, ENQUEUE_INITIAL);
	trace_sched_wakeup_new(p);
	check_preempt_curr(rq, p, WF_FORK);
	task_woken(rq, p);
	spin_unlock(&rq->lock);
	spin_unlock_irqrestore(&p->pi_lock, flags);
}

/* ---- schedule() ----------------------------------------------------------------- */

/* Linux: put_prev_task_balance(): each class from prev's down may pull work
 * before the pick (RT and DL when prev leaves them, CFS's newidle balance
 * when nothing is left), until one says a class from it up has work. This
 * rq stays locked throughout (deviations.md). */
static void put_prev_task_balance(struct rq *rq, struct task_struct *prev)
{
	const struct sched_class *c;
	bool below = false;

	for_each_class(c) {
		below |= c == prev->sched_class;
		if (c == &fair_sched_class)
			break;
		if (below && c->balance && c->balance(rq, prev))
			return;
	}
	if (!rq->nr_running) /* Linux: balance_fair() */
		fair_sched_class.balance(rq, prev);
}

/* Linux: __balance_callbacks(): the push/pull work queued under rq->lock
 * while it could not be dropped (inside __schedule(), a policy change). */
void __run_balance_callbacks(struct rq *rq)
{
	lockdep_assert_held(&rq->lock);
	while (rq->balance_callback) {
		unsigned int work = rq->balance_callback;

		rq->balance_callback = 0;
		if (work & BALANCE_PUSH_RT)
			push_rt_tasks(rq);
		if (work & BALANCE_PULL_RT)
			pull_rt_task(rq);
		if (work & BALANCE_PUSH_DL)
			push_dl_tasks(rq);
		if (work & BALANCE_PULL_DL)
			pull_dl_task(rq);
	}
}

static struct task_struct *pick_next_task(struct rq *rq, struct task_struct *prev)
{
	const struct sched_class *c;
	struct task_struct *p;

	lockdep_assert_held(&rq->lock);
	/* Linux: __pick_next_task()'s fast path: prev fair or idle, no class above
	 * fair has a balance to run, only CFS's newidle pull. */
	if (prev->sched_class == &fair_sched_class || prev->sched_class == &idle_sched_class) {
		if (!rq->nr_running)
			fair_sched_class.balance(rq, prev);
	} else {
		put_prev_task_balance(rq, prev);
	}
	sched_oracle_event(SCHED_EV_PUT_PREV, rq, prev, 0);
	prev->sched_class->put_prev_task(rq, prev);
	for_each_class(c) {
		p = c->pick_next_task(rq);
		if (!p)
			continue;
		/* Linux: pick_next_task_fair()'s idle path, reached through
		 * __pick_next_task()'s fast path only (prev fair or idle). */
		if (p == rq->idle && (prev->sched_class == &fair_sched_class || prev == rq->idle))
			update_idle_rq_clock_pelt(rq);
		sched_oracle_event(SCHED_EV_PICK, rq, p, 0);
		return p;
	}
	BUG_ON(1); /* the idle class always has its task */
}

static void account_switch(struct rq *rq, struct task_struct *prev, struct task_struct *next)
{
	u64 now = rq->clock;

	lockdep_assert_held(&rq->lock);
	rq->nr_switches++;
	next->stats.nr_switches++;
	if (prev == rq->idle)
		rq->idle_time += now - rq->idle_start;
	if (next == rq->idle)
		rq->idle_start = now;
	if (next->stats.wait_start) {
		u64 wait = now - next->stats.wait_start;

		next->stats.wait_sum += wait;
		next->stats.wait_max = MAX(next->stats.wait_max, wait);
		next->stats.wait_count++;
		next->stats.wait_start = 0;
	}
	if (prev->state == TASK_RUNNING && !prev->is_idle && task_on_rq_queued(prev))
		prev->stats.wait_start = now;
}

/* The refill a move costs (kernel/sched/cache.c), owed by current from this switch on:
 * inside cpu_work() it delays the work's completion (no work is credited for it); what is
 * left when the task wakes another or leaves the CPU is stalled for then (cache_pay()). */
static void cache_charge(struct rq *rq, struct task_struct *prev)
{
	u64 t0 = arch_clock_ns(), ns = cache_switch(prev, current, (int)rq->cpu);
	u64 own = arch_clock_ns() - t0; /* the model's own bookkeeping is part of the refill */

	current->cache.uncredited += ns > own ? ns - own : 0;
}

/* Runs on the new task's side of a switch, rq lock held, IRQs off. */
static void finish_task_switch(struct task_struct *prev)
{
	lockdep_assert_held(&this_rq()->lock);
	lockdep_assert_irqs_disabled();
	cache_charge(this_rq(), prev);
	__atomic_store_n(&prev->on_cpu, 0, __ATOMIC_RELEASE);
}

/* Linux: move_queued_task(). p is queued, not running, on rq (locked), and
 * we hold p->pi_lock: move it to `cpu`. Everything that touches the old rq
 * (dequeue, PELT detach in set_task_cpu) happens under its lock.
 * Returns with rq unlocked. */
static void move_queued_task(struct rq *rq, struct task_struct *p, int cpu)
{
	struct rq *dst = cpu_rq(cpu);

	update_rq_clock(rq);
	deactivate_task(rq, p, 0);
	set_task_cpu(p, (unsigned int)cpu);
	p->stats.nr_forced_migrations++;
	spin_unlock(&rq->lock);
	spin_lock(&dst->lock);
	update_rq_clock(dst);
	activate_task(dst, p, ENQUEUE_MIGRATED);
	check_preempt_curr(dst, p, 0);
	spin_unlock(&dst->lock);
}

/* Linux: migration_cpu_stop(). Runs as the stop task of the CPU that p was
 * running on, so p is now merely queued there and can be moved. */
static int migration_cpu_stop(void *arg)
{
	struct task_struct *p = arg;
	unsigned long flags = spin_lock_irqsave(&p->pi_lock);
	struct rq *rq = task_rq_lock(p);

	if (p->cpu == (int)arch_cpu_id() && task_on_rq_queued(p) && !task_running(rq, p) &&
	    !cpumask_test_cpu((unsigned int)p->cpu, &p->cpus_allowed)) {
		move_queued_task(rq, p, select_task_rq(p, p->cpu, 0));
	} else {
		spin_unlock(&rq->lock);
	}
	spin_unlock_irqrestore(&p->pi_lock, flags);
	put_task_struct(p); /* the reference set_cpus_allowed took */
	return 0;
}

static void finish_switch_unlocked(struct task_struct *prev)
{
	if (prev->state == TASK_DEAD && prev != current) {
		sched_oracle_event(SCHED_EV_DEAD, task_rq(prev), prev, 0);
		if (prev->sched_class->task_dead)
			prev->sched_class->task_dead(prev);
		put_task_struct(prev);
	}
}

void schedule_tail(struct task_struct *prev)
{
	struct rq *rq = this_rq();

	lockdep_assert_irqs_disabled();
	finish_task_switch(prev);
	run_balance_callbacks(rq);
	spin_unlock(&rq->lock);
	finish_switch_unlocked(prev);
	arch_irq_enable();
}

/* preempt: called from the IRQ return path (or yield). A task preempted
 * between marking itself sleeping and calling schedule() stays queued, or
 * the wakeup it is about to wait for could be lost (Linux: SM_PREEMPT). */
void __schedule(bool preempt)
{
	unsigned long flags = arch_irq_save();
	struct rq *rq;
	struct task_struct *prev, *next;

	cache_pay();	/* a refill not yet done is done before prev leaves */
	speed_switch(); /* speed=exact: prev's slowness is prev's runtime */
	rq = this_rq();
	prev = rq->curr;
	spin_lock(&rq->lock);
	update_rq_clock(rq);
	rq->need_resched = false;
	/* Linux 6.12: a special state (here TASK_DEAD) is dequeued at once, never delayed:
	 * a dying task left queued would be freed while still on the tree. */
	if (!prev->is_idle && prev->state != TASK_RUNNING && !preempt)
		deactivate_task(rq, prev,
				DEQUEUE_SLEEP | (prev->state == TASK_DEAD ? DEQUEUE_SPECIAL : 0));
	next = pick_next_task(rq, prev);
	rq->need_resched = false;
	if (next != prev) {
		/* A task runs on the CPU whose queue it is on, and on one only. */
		BUG_ON(next->cpu != (int)rq->cpu);
		BUG_ON(__atomic_load_n(&next->on_cpu, __ATOMIC_ACQUIRE));
		trace_sched_switch(preempt, prev, next);
		account_switch(rq, prev, next);
		rq->curr = next;
		next->on_cpu = 1;
		prev = arch_context_switch(prev, &prev->ctx, next, &next->ctx);
		/* Back in our task, maybe on another CPU; `prev` is now the task
		 * that ran there before us. */
		rq = this_rq();
		finish_task_switch(prev);
	}
	run_balance_callbacks(rq); /* the switch is done: rq's lock may be dropped now */
	spin_unlock(&rq->lock);
	finish_switch_unlocked(prev);
	arch_irq_restore(flags);
}

void schedule(void)
{
	lockdep_assert_no_locks_held(); /* Linux: "scheduling while atomic" */
	__schedule(false);
}

/* Linux: sched_yield(): the class decides what yielding means. */
void yield(void)
{
	unsigned long flags = arch_irq_save();
	struct rq *rq = this_rq();

	spin_lock(&rq->lock);
	update_rq_clock(rq);
	if (current->sched_class->yield_task)
		current->sched_class->yield_task(rq);
	spin_unlock(&rq->lock);
	arch_irq_restore(flags);
	__schedule(true);
}

/* Called from the IRQ return path with IRQs off. */
void irq_exit_preempt(void)
{
	struct task_struct *t = current;

	lockdep_assert_irqs_disabled();
	if (READ_ONCE(this_rq()->need_resched) && t->preempt_count == 0 && !t->is_idle) {
		lockdep_assert_no_locks_held(); /* preempted holding a spinlock */
		__schedule(true);
	}
}

/* ---- the tick ------------------------------------------------------------------- */

static u64 cpu_ticks[NR_CPUS];

u64 sched_tick_count(void)
{
	return cpu_ticks[arch_cpu_id()];
}

void scheduler_tick(void)
{
	struct rq *rq = this_rq();
	struct task_struct *curr;

	lockdep_assert_irqs_disabled();
	lockdep_assert_not_held(&rq->lock);
	spin_lock(&rq->lock);
	cpu_ticks[rq->cpu]++;
	update_rq_clock(rq);
	curr = rq->curr;
	sched_oracle_event(SCHED_EV_TICK, rq, curr, 0);
	curr->sched_class->task_tick(rq, curr);
	rq->idle_balance = idle_cpu((int)rq->cpu);
	spin_unlock(&rq->lock);
	trigger_load_balance(rq); /* idle: its blocked load decays there */
}

/* One pass of each CPU's idle task. IRQs are masked around the check and the
 * wait, so a wakeup IPI between them still ends the wait (docs/design.md:
 * mask/wfi/unmask). A hosted arch, whose CPUs cannot sit in a loop, calls
 * it once after each interrupt of an idle CPU (its arch_idle() returns). */
void cpu_idle_once(void)
{
	struct rq *rq;

	arch_irq_disable();
	rq = this_rq();
	nohz_run_idle_balance(rq); /* a kick, or newidle's stats pass */
	if (!READ_ONCE(rq->need_resched)) {
		speed_busy_end(true); /* a slow CPU reaches idle late */
		cpuidle_idle_call();  /* stops the tick (NO_HZ idle) unless menu keeps it */
		speed_busy_begin();
		nohz_run_idle_balance(rq); /* the kick that woke us */
	}
	arch_irq_enable();
	if (READ_ONCE(this_rq()->need_resched)) {
		tick_nohz_idle_exit();
		schedule();
	}
}

/* A CPU taken offline (kernel/cpu.c) leaves here, from its idle task, once
 * its stop task has emptied its run queue (Linux: do_idle() ->
 * cpuhp_report_idle_dead()). */
void cpu_idle_loop(void)
{
	for (;;) {
		cpu_idle_once();
		if (!cpu_online(arch_cpu_id()))
			cpuhp_report_idle_dead();
	}
}

/* ---- affinity (the policy, nice, slice and uclamp setters: syscalls.c) ------------- */

/* Change affinity; a task queued or running outside the new mask moves:
 * a queued one at once, a running one by its CPU's stop task (Linux:
 * migration_cpu_stop). A mask with no online CPU is refused. */
int set_cpus_allowed(struct task_struct *p, const cpumask_t *mask)
{
	unsigned long flags;
	struct rq *rq;
	bool stop = false;
	int cpu;

	if (!cpumask_intersects(mask, p->per_cpu_kthread ? cpu_online_mask : cpu_active_mask))
		return -1;
	if (dl_task(p) && !cpumask_subset(cpu_active_mask, mask))
		return -1; /* Linux: sched_setaffinity()'s -EBUSY: DL tasks span the root domain */
	flags = spin_lock_irqsave(&p->pi_lock);
	p->cpus_allowed = *mask;
	p->nr_cpus_allowed = (int)cpumask_weight(mask);
	if (p->state == TASK_NEW) { /* not queued anywhere yet */
		spin_unlock_irqrestore(&p->pi_lock, flags);
		return 0;
	}
	rq = task_rq_lock(p);
	cpu = p->cpu;
	if (task_on_rq_queued(p) && p->sched_class->cpus_allowed_changed)
		p->sched_class->cpus_allowed_changed(rq, p);
	if (!cpumask_test_cpu((unsigned int)cpu, mask) && task_on_rq_queued(p)) {
		if (task_running(rq, p)) {
			stop = true;
		} else {
			move_queued_task(rq, p, select_task_rq(p, p->cpu, 0));
			spin_unlock_irqrestore(&p->pi_lock, flags);
			return 0;
		}
	}
	spin_unlock(&rq->lock);
	if (stop)
		__atomic_add_fetch(&p->refcount, 1, __ATOMIC_ACQ_REL);
	spin_unlock_irqrestore(&p->pi_lock, flags);
	if (stop && stop_one_cpu_nowait((unsigned int)cpu, migration_cpu_stop, p))
		put_task_struct(p); /* no slot: it moves at its next wakeup */
	if (stop && p == current)
		__schedule(true); /* let our stop task move us now */
	return 0;
}

/* ---- CPU hotplug (kernel/cpu.c drives it) ----------------------------------------- */

/* A task queued on rq that may leave it: DL (throttled too), RT queues, then the CFS tree
 * (the stop task is in neither; the running task was put back when the stop
 * task took the CPU). */
static struct task_struct *pick_migratable(struct rq *rq)
{
	struct task_struct *dl = pick_migratable_dl(rq);
	struct rb_node *node;

	if (dl)
		return dl;
	for (int prio = 0; prio < MAX_RT_PRIO; prio++)
		if (!list_empty(&rq->rt.queue[prio]))
			return list_first_entry(&rq->rt.queue[prio], struct task_struct,
						rt.run_list);
	node = rb_first_cached(&rq->cfs.tasks_timeline);
	/* a group entity in a tree is not running: its own tree holds its tasks */
	while (node && !entity_is_task(rb_entry(node, struct sched_entity, run_node)))
		node = rb_first_cached(
			&rb_entry(node, struct sched_entity, run_node)->my_q->tasks_timeline);
	return node ? container_of(rb_entry(node, struct sched_entity, run_node),
				   struct task_struct, se)
		    : NULL;
}

/* Linux: migrate_tasks() (6.1 does the same through balance_push()). On
 * the dying CPU, run by its stop task inside stop_machine(), so nothing else
 * runs anywhere and every task queued here is merely queued: each goes to
 * select_fallback_rq()'s CPU (the first allowed active one; a task allowed
 * only offline CPUs is widened to all, with the message). Per-CPU kthreads
 * are not queued here: idle is running-not-queued and the stop task is us
 * (Linux parks them). Returns the number of tasks moved. */
unsigned int sched_migrate_tasks(unsigned int dead_cpu)
{
	struct rq *rq = cpu_rq(dead_cpu);
	unsigned int moved = 0;
	struct task_struct *p;

	BUG_ON(arch_cpu_id() != dead_cpu || cpu_active(dead_cpu) || rq->curr != rq->stop);
	spin_lock(&rq->lock);
	dl_rq_offline(rq); /* Linux: set_rq_offline() in sched_cpu_deactivate() */
	spin_unlock(&rq->lock);
	for (;;) {
		spin_lock(&rq->lock);
		p = pick_migratable(rq);
		if (!p) {
			spin_unlock(&rq->lock);
			break;
		}
		spin_unlock(&rq->lock);
		spin_lock(&p->pi_lock); /* lock order: pi_lock, then rq->lock */
		spin_lock(&rq->lock);
		update_rq_clock(rq);
		move_queued_task(rq, p, select_fallback_rq(p, (int)dead_cpu));
		spin_unlock(&p->pi_lock);
		moved++;
	}
	BUG_ON(rq->nr_running != 1); /* us; Linux: "Dying CPU not properly vacated!" */
	nohz_balance_exit_idle(rq);  /* no ilb kick may pick it any more */
	return moved;
}

/* Before the CPU starts again: its idle task is what it will run first,
 * from the top of its stack (the old context was abandoned when it died). */
void sched_cpu_starting(unsigned int cpu)
{
	struct rq *rq = cpu_rq(cpu);
	unsigned long flags = spin_lock_irqsave(&rq->lock);

	BUG_ON(rq->nr_running != 0 || rq->curr != rq->idle);
	rq->need_resched = false;
	rq->active_balance = 0;
	rq->misfit_task_load = 0;
	update_rq_clock(rq);	    /* PELT decays the offline time as idle */
	rq->idle_start = rq->clock; /* but it is not counted as idle time */
	sched_balance_rq_init(rq);
	dl_rq_online(rq); /* Linux: set_rq_online() in sched_cpu_activate() */
	spin_unlock_irqrestore(&rq->lock, flags);
}

/* Linux: idle_task(cpu). */
struct task_struct *idle_task(unsigned int cpu)
{
	return cpu_rq(cpu)->idle;
}

bool sched_cpu_has_stopper(unsigned int cpu)
{
	return cpu_rq(cpu)->stop != NULL;
}

/* ---- init and small accessors ---------------------------------------------------- */

void sched_tunables_init(unsigned int nr_cpus);
void sched_stoppers_init(void);

void sched_init(void)
{
	sched_feat_init_from_bootargs();
	sched_policy_init_from_bootargs(); /* sched=cfs|eevdf */
	sched_group_init();
	sched_tunables_init((unsigned int)cpu_topology.nr_cpus);
}

void sched_init_smp(void)
{
	sched_domains_init();
	sched_stoppers_init();
}

void sched_init_cpu(unsigned int cpu, struct task_struct *idle)
{
	struct rq *rq = cpu_rq(cpu);

	spin_lock_init_class(&rq->lock, LOCK_CLASS_RQ, cpu);
	if (!rq->sd_groups) /* never freed: a CPU coming back reuses it */
		rq->sd_groups = kzalloc(SD_NR_LEVELS * (size_t)MAX(cpu_topology.nr_cpus, 1) *
					sizeof(cpumask_t));
	sched_debug_rq_init(cpu);
	rq->cpu = cpu;
	init_cfs_rq(&rq->cfs);
	init_cfs_rq_of(&rq->cfs, rq, &root_task_group);
	INIT_LIST_HEAD(&rq->leaf_cfs_rq_list);
	init_rt_rq(&rq->rt);
	rt_rq_online(rq);
	init_uclamp_rq(rq);
	init_dl_rq(&rq->dl);
	dl_rq_online(rq);
	INIT_LIST_HEAD(&rq->cfs_tasks);
	sched_balance_rq_init(rq);
	rq->cpu_capacity_orig = rq->cpu_capacity = arch_scale_cpu_capacity((int)cpu);
	rq->clock = arch_clock_ns();
	rq->curr = rq->idle = idle;
	rq->idle_start = rq->clock;
	idle->cpu = (int)cpu;
	idle->on_cpu = 1;
	idle->is_idle = true;
	idle->per_cpu_kthread = true;
	idle->state = TASK_RUNNING;
	idle->sched_class = &idle_sched_class;
	idle->policy = SCHED_IDLE;
	idle->prio = MAX_PRIO;
	idle->cpus_allowed = *cpumask_of(cpu);
	idle->nr_cpus_allowed = 1;
}

u64 cpu_nr_switches(unsigned int cpu)
{
	return READ_ONCE(cpu_rq(cpu)->nr_switches);
}

unsigned int cpu_nr_running(unsigned int cpu)
{
	return READ_ONCE(cpu_rq(cpu)->nr_running);
}
