/* deadline.c - SCHED_DEADLINE (Linux 6.1 semantics): EDF over absolute
 * deadlines per rq, the constant bandwidth server (runtime, throttling, the
 * replenishment timer), GRUB's active utilization (running_bw and the 0-lag
 * inactive timer) that schedutil takes as a frequency floor, the util_dl PELT
 * signal, admission control over the root domain (here: the active CPUs) and
 * capacity-aware wakeup placement. Not the moves between CPUs (push, pull,
 * find_later_rq(): deadline_push.c). Task and rq state under rq->lock, the
 * admitted bandwidth under dl_bw.lock (a leaf). Linux: kernel/sched/deadline.c. */
#include "sched_internal.h"

/* Linux: sysctl_sched_dl_period_max / _min (us). */
#define DL_PERIOD_MAX_NS ((1ull << 22) * NSEC_PER_USEC)
#define DL_PERIOD_MIN_NS (100 * NSEC_PER_USEC)

/* Linux: to_ratio(). */
static u64 to_ratio(u64 period, u64 runtime)
{
	return period ? (runtime << BW_SHIFT) / period : 0;
}

static inline struct task_struct *dl_task_of(struct sched_dl_entity *dl_se)
{
	return container_of(dl_se, struct task_struct, dl);
}

/* ---- admission control (one root domain: every active CPU) ------------------------ */

/* Linux: the root domain's struct dl_bw. */
static struct {
	spinlock_t lock;
	u64 total_bw; /* admitted, the sum of dl_bw */
} dl_b = { .lock = SPINLOCK_INIT };

static u64 dl_bw_limit(void) /* Linux: dl_b->bw, global_rt_runtime / global_rt_period */
{
	return sched_rt_bw();
}

/* Linux: dl_bw_capacity(): the sum of the root domain's active CPUs'
 * capacities (on a symmetric machine dl_bw_cpus() << SCHED_CAPACITY_SHIFT,
 * the same number). `without`: a CPU about to go (dl_bw_check_overflow). */
static unsigned long dl_bw_capacity(int without)
{
	unsigned long cap = 0;
	unsigned int c;

	for_each_cpu(c, cpu_active_mask)
		if ((int)c != without)
			cap += arch_scale_cpu_capacity((int)c);
	return cap;
}

/* Linux: __dl_overflow(). */
static bool dl_overflow(unsigned long cap, u64 old_bw, u64 new_bw)
{
	return cap_scale(dl_bw_limit(), cap) < dl_b.total_bw - old_bw + new_bw;
}

/* Linux: sched_dl_overflow(), called before the policy changes: admit a new
 * or changed DL bandwidth, or release it. -EBUSY if it does not fit. */
int sched_dl_overflow(struct task_struct *p, const struct sched_attr *attr)
{
	bool is = attr->sched_policy == SCHED_DEADLINE, was = dl_task(p);
	u64 period = attr->sched_period ? attr->sched_period : attr->sched_deadline;
	u64 new_bw = is ? to_ratio(period, attr->sched_runtime) : 0;
	unsigned long flags;
	int err = -EBUSY;

	if (!is && !was)
		return 0;
	if (is && was && new_bw == p->dl.dl_bw)
		return 0;
	flags = spin_lock_irqsave(&dl_b.lock);
	if (is && !dl_overflow(dl_bw_capacity(-1), was ? p->dl.dl_bw : 0, new_bw)) {
		/* back before the 0-lag time of its last stint: that bandwidth goes now */
		if (!was && p->dl.bw_release_pending)
			dl_b.total_bw -= p->dl.dl_bw;
		p->dl.bw_release_pending = false;
		dl_b.total_bw = dl_b.total_bw - (was ? p->dl.dl_bw : 0) + new_bw;
		err = 0;
	} else if (!is) {
		/* kept until the 0-lag time: switched_from_dl(), inactive_task_timer() */
		err = 0;
	}
	spin_unlock_irqrestore(&dl_b.lock, flags);
	return err;
}

/* Linux: sched_dl_global_validate(): a new RT bandwidth (the sysctls) must
 * leave room for the DL bandwidth already admitted. */
int sched_rt_global_bw_ok(u64 new_bw)
{
	unsigned long flags = spin_lock_irqsave(&dl_b.lock);
	bool ok = cap_scale(new_bw, dl_bw_capacity(-1)) >= dl_b.total_bw;

	spin_unlock_irqrestore(&dl_b.lock, flags);
	return ok;
}

/* A task that left DL gives its bandwidth back, once (the 0-lag time came, or
 * it had none left). Linux: the __dl_sub() of inactive_task_timer(). */
static void dl_release_bw(struct task_struct *p)
{
	unsigned long flags = spin_lock_irqsave(&dl_b.lock);

	if (p->dl.bw_release_pending)
		dl_b.total_bw -= p->dl.dl_bw;
	p->dl.bw_release_pending = false;
	spin_unlock_irqrestore(&dl_b.lock, flags);
}

void sched_dl_bw_info(u64 *total_bw, u64 *max_bw)
{
	*total_bw = READ_ONCE(dl_b.total_bw);
	*max_bw = cap_scale(dl_bw_limit(), dl_bw_capacity(-1));
}

/* Linux: dl_bw_check_overflow() (dl_cpu_busy() before 6.2), from
 * sched_cpu_deactivate(): the admitted bandwidth must fit what is left. */
int sched_dl_cpu_busy(unsigned int cpu)
{
	unsigned long flags = spin_lock_irqsave(&dl_b.lock);
	bool overflow = dl_overflow(dl_bw_capacity((int)cpu), 0, 0);

	spin_unlock_irqrestore(&dl_b.lock, flags);
	return overflow ? -EBUSY : 0;
}

/* ---- active utilization (GRUB) and util_dl ----------------------------------------- */

/* Linux: __add_running_bw() / __sub_running_bw(): schedutil hears of each change. */
static void add_running_bw(struct rq *rq, u64 bw)
{
	WRITE_ONCE(rq->dl.running_bw, rq->dl.running_bw + bw);
	cpufreq_update_util(rq, 0);
}

static void sub_running_bw(struct rq *rq, u64 bw)
{
	WRITE_ONCE(rq->dl.running_bw, rq->dl.running_bw >= bw ? rq->dl.running_bw - bw : 0);
	cpufreq_update_util(rq, 0);
}

/* DL time counts in avg_dl, as RT time in avg_rt. Linux: update_dl_rq_load_avg(). */
bool update_dl_rq_load_avg(struct rq *rq, bool running)
{
	return pelt_update_rt(&rq->avg_dl, rq_clock_pelt(rq), running) != 0;
}

/* Linux: the task lock of a timer callback (task_rq_lock()); IRQs are off. */
static struct rq *dl_timer_lock(struct task_struct *p)
{
	spin_lock(&p->pi_lock);
	return task_rq_lock(p);
}

static void dl_timer_unlock(struct task_struct *p, struct rq *rq)
{
	spin_unlock(&rq->lock);
	spin_unlock(&p->pi_lock);
}

/* The 0-lag time from now: deadline - runtime x period / dl_runtime - now
 * (had it used the rest of its runtime at its bandwidth it would finish then). */
static s64 dl_zerolag(const struct rq *rq, const struct sched_dl_entity *dl_se)
{
	/* runtime x period in 1024-ns units: periods up to 2^22 us stay in 64 bits */
	return (s64)dl_se->deadline -
	       (dl_se->runtime >> DL_SCALE) * (s64)dl_se->dl_period /
		       (s64)(dl_se->dl_runtime >> DL_SCALE) -
	       (s64)rq->clock;
}

/* A task stops contending when it sleeps, but its bandwidth stays active
 * until its 0-lag time. Linux: task_non_contending(). */
static void task_non_contending(struct rq *rq, struct task_struct *p)
{
	struct sched_dl_entity *dl_se = &p->dl;
	s64 zerolag;

	if (!dl_se->dl_runtime || dl_se->dl_non_contending)
		return;
	zerolag = dl_zerolag(rq, dl_se);
	if (zerolag < 0 || p->state == TASK_DEAD) {
		sub_running_bw(rq, dl_se->dl_bw);
		return;
	}
	dl_se->dl_non_contending = true;
	timer_start(&dl_se->inactive_timer, arch_clock_ns() + (u64)zerolag);
}

/* Linux: task_contending(): a waking task is active again; if its 0-lag
 * timer is still pending, its bandwidth never left. */
static void task_contending(struct rq *rq, struct sched_dl_entity *dl_se)
{
	if (!dl_se->dl_runtime)
		return;
	if (dl_se->dl_non_contending) {
		dl_se->dl_non_contending = false;
		timer_try_cancel(&dl_se->inactive_timer); /* running: it sees the flag */
	} else {
		add_running_bw(rq, dl_se->dl_bw);
	}
}

/* Linux: __dl_clear_params(): what a task that left DL keeps until its 0-lag time. */
static void dl_clear_params(struct sched_dl_entity *dl_se)
{
	dl_se->dl_runtime = dl_se->dl_deadline = dl_se->dl_period = 0;
	dl_se->dl_bw = dl_se->dl_density = 0;
	dl_se->deadline = 0;
	dl_se->runtime = 0;
}

/* Linux: inactive_task_timer(): the 0-lag time came while it slept (its
 * running_bw goes), or after it left DL (its admitted bandwidth goes too). */
static void inactive_task_timer(struct timer *t)
{
	struct sched_dl_entity *dl_se = container_of(t, struct sched_dl_entity, inactive_timer);
	struct task_struct *p = dl_task_of(dl_se);
	struct rq *rq = dl_timer_lock(p);
	bool put;

	if (!dl_task(p)) {
		dl_release_bw(p);
		dl_clear_params(dl_se);
	} else if (dl_se->dl_non_contending) {
		update_rq_clock(rq);
		dl_se->dl_non_contending = false;
		sub_running_bw(rq, dl_se->dl_bw);
	}
	put = dl_se->inactive_ref;
	dl_se->inactive_ref = false;
	dl_timer_unlock(p, rq);
	if (put) /* it may have exited meanwhile: this was the last reference */
		put_task_struct(p);
}

/* ---- CBS: deadlines, runtime, throttling -------------------------------------------- */

/* Linux: setup_new_dl_entity(). */
static void setup_new_dl_entity(struct rq *rq, struct sched_dl_entity *dl_se)
{
	dl_se->deadline = rq->clock + dl_se->dl_deadline;
	dl_se->runtime = (s64)dl_se->dl_runtime;
}

/* Linux: replenish_dl_entity(): the next period(s) until runtime is
 * positive again; a task lagging more than that starts afresh. */
static void replenish_dl_entity(struct rq *rq, struct sched_dl_entity *dl_se)
{
	if (dl_se->dl_yielded && dl_se->runtime > 0)
		dl_se->runtime = 0;
	while (dl_se->runtime <= 0) {
		dl_se->deadline += dl_se->dl_period;
		dl_se->runtime += (s64)dl_se->dl_runtime;
	}
	if (dl_time_before(dl_se->deadline, rq->clock))
		setup_new_dl_entity(rq, dl_se); /* Linux: "DL replenish lagged too much" */
	dl_se->dl_yielded = false;
	dl_se->dl_throttled = false;
}

/* Linux: dl_entity_overflow(): would the remaining runtime, used before the
 * current deadline, exceed the task's bandwidth from t on?
 * runtime / (deadline - t) > dl_runtime / dl_deadline, in 1024-ns units. */
static bool dl_entity_overflow(struct sched_dl_entity *dl_se, u64 t)
{
	u64 left = (dl_se->dl_deadline >> DL_SCALE) * ((u64)dl_se->runtime >> DL_SCALE);
	u64 right = ((dl_se->deadline - t) >> DL_SCALE) * (dl_se->dl_runtime >> DL_SCALE);

	return dl_time_before(right, left);
}

/* Linux: update_dl_entity(), at wakeup: keep deadline and runtime if using
 * them cannot overflow the bandwidth, else a new instance from now. A
 * constrained task (deadline < period) before its deadline gets the runtime
 * its density allows in the time left (update_dl_revised_wakeup()). */
static void update_dl_entity(struct rq *rq, struct sched_dl_entity *dl_se)
{
	u64 now = rq->clock;

	if (!dl_time_before(dl_se->deadline, now) && !dl_entity_overflow(dl_se, now))
		return;
	if (dl_se->dl_deadline != dl_se->dl_period && !dl_time_before(dl_se->deadline, now)) {
		dl_se->runtime = (s64)((dl_se->dl_density * (dl_se->deadline - now)) >> BW_SHIFT);
		return;
	}
	setup_new_dl_entity(rq, dl_se);
}

/* Linux: start_dl_timer(): arm the replenishment at the next period; 0 if
 * that is already past (the caller replenishes at once). */
static bool start_dl_timer(struct rq *rq, struct sched_dl_entity *dl_se)
{
	u64 act = dl_se->deadline - dl_se->dl_deadline + dl_se->dl_period; /* dl_next_period() */

	if (!dl_time_before(rq->clock, act))
		return false;
	/* timer_start() never waits for a running callback (Linux:
	 * hrtimer_start()): the callback may be spinning on this rq lock. */
	timer_start(&dl_se->dl_timer, act + (arch_clock_ns() - rq->clock));
	return true;
}

static bool dl_less(const struct rb_node *a, const struct rb_node *b)
{
	return dl_time_before(rb_entry(a, struct sched_dl_entity, rb_node)->deadline,
			      rb_entry(b, struct sched_dl_entity, rb_node)->deadline);
}

/* Linux: inc_dl_deadline() / dec_dl_deadline(): the rq's earliest deadline,
 * and cpudl with it (a CPU with no DL task is free, if online). */
static void update_earliest_dl(struct rq *rq)
{
	struct rb_node *left = rb_first_cached(&rq->dl.root);
	u64 dl = left ? rb_entry(left, struct sched_dl_entity, rb_node)->deadline : 0;

	if (left && (!rq->dl.in_cpudl || dl != rq->dl.earliest_dl))
		cpudl_set(rq->cpu, dl);
	else if (!left && rq->dl.in_cpudl)
		cpudl_clear(rq->cpu, cpu_active(rq->cpu));
	rq->dl.in_cpudl = left != NULL;
	WRITE_ONCE(rq->dl.earliest_dl, dl);
}

/* Linux: __enqueue_dl_entity() + inc_dl_tasks(). */
static void __enqueue_dl_entity(struct rq *rq, struct sched_dl_entity *dl_se)
{
	rb_insert_cached(&rq->dl.root, &dl_se->rb_node, dl_less);
	dl_se->on_dl_rq = true;
	WRITE_ONCE(rq->dl.dl_nr_running, rq->dl.dl_nr_running + 1);
	update_earliest_dl(rq);
	dl_se->migratory = dl_task_of(dl_se)->nr_cpus_allowed > 1; /* Linux: inc_dl_migration() */
	rq->dl.dl_nr_migratory += dl_se->migratory;
	update_dl_migration(rq);
	if (rq->dl.dl_nr_running == 1) /* Linux: inc_dl_deadline(): RT must not come here */
		cpupri_set(rq->cpu, MAX_RT_PRIO);
}

static void __dequeue_dl_entity(struct rq *rq, struct sched_dl_entity *dl_se)
{
	rb_erase_cached(&rq->dl.root, &dl_se->rb_node);
	dl_se->on_dl_rq = false;
	WRITE_ONCE(rq->dl.dl_nr_running, rq->dl.dl_nr_running - 1);
	update_earliest_dl(rq);
	rq->dl.dl_nr_migratory -= dl_se->migratory; /* Linux: dec_dl_migration() */
	dl_se->migratory = false;
	update_dl_migration(rq);
	if (!rq->dl.dl_nr_running) /* Linux: dec_dl_deadline(): the RT level again */
		cpupri_set(rq->cpu, rq->rt.highest_prio_curr);
}

/* A throttled task stays on_rq but off the EDF tree and out of
 * rq->nr_running until its replenishment timer, as Linux's (whose
 * nr_running counts only the tree). `counted`: the core counts this
 * enqueue/dequeue in nr_running, which we undo. */
static void throttled_add(struct rq *rq, bool counted)
{
	rq->nr_running -= counted ? 1 : 0;
}

static void throttled_del(struct rq *rq, bool counted)
{
	rq->nr_running += counted ? 1 : 0;
}

static void enqueue_task_dl(struct rq *rq, struct task_struct *p, int flags);

/* Linux: update_curr_dl(): charge the run. Runtime is consumed at the
 * invariant rate (capacity x frequency, as PELT time); once it is used up
 * the task leaves the tree until its replenishment timer. Time and work are
 * charged even to a throttled curr (Linux returns early: a few us unseen). */
static void update_curr_dl(struct rq *rq)
{
	struct task_struct *curr = rq->curr;
	struct sched_dl_entity *dl_se = &curr->dl;
	int cpu = (int)rq->cpu;
	u64 now = rq->clock_task, delta;

	if (curr->sched_class != &dl_sched_class || (s64)(now - curr->se.exec_start) <= 0)
		return;
	delta = now - curr->se.exec_start;
	curr->se.exec_start = now;
	curr->se.sum_exec_runtime += delta;
	account_cpu_work(rq, curr, delta);
	if (!dl_se->on_dl_rq)
		return;
	delta = cap_scale(delta, arch_scale_freq_capacity(cpu));
	dl_se->runtime -= (s64)cap_scale(delta, arch_scale_cpu_capacity(cpu));
	if (dl_se->runtime > 0 && !dl_se->dl_yielded)
		return;
	dl_se->dl_throttled = true;
	dl_se->nr_throttled++;
	__dequeue_dl_entity(rq, dl_se);
	throttled_add(rq, true);
	if (!start_dl_timer(rq, dl_se)) {
		throttled_del(rq, false); /* enqueue_task_dl() counts it */
		enqueue_task_dl(rq, curr, ENQUEUE_REPLENISH);
	}
	if (rb_first_cached(&rq->dl.root) != &dl_se->rb_node)
		resched_curr(rq);
}

/* Linux: dl_task_timer(): the next period began: replenish and requeue (on
 * another CPU if its own went offline meanwhile: it waited there). */
static void dl_task_timer(struct timer *t)
{
	struct sched_dl_entity *dl_se = container_of(t, struct sched_dl_entity, dl_timer);
	struct task_struct *p = dl_task_of(dl_se);
	struct rq *rq = dl_timer_lock(p);

	if (!dl_task(p) || !dl_se->dl_throttled)
		goto unlock;
	update_rq_clock(rq);
	if (!task_on_rq_queued(p)) { /* it slept while throttled: wake up replenished */
		replenish_dl_entity(rq, dl_se);
		goto unlock;
	}
	if (!cpu_active(rq->cpu)) /* its CPU went offline: this changes rq */
		rq = dl_task_offline_migration(rq, p);
	throttled_del(rq, false); /* enqueue_task_dl() counts it */
	enqueue_task_dl(rq, p, ENQUEUE_REPLENISH);
	if (dl_task(rq->curr))
		rq->curr->sched_class->check_preempt_curr(rq, p, 0);
	else
		resched_curr(rq);
	if (has_pushable_dl_tasks(rq)) /* back in the tree, it may overload rq */
		push_dl_task_once(rq);
unlock:
	dl_timer_unlock(p, rq);
}

/* Linux: dl_check_constrained_dl(): a constrained task woken after its
 * deadline but before its next period waits for that period. */
static void dl_check_constrained_dl(struct rq *rq, struct sched_dl_entity *dl_se)
{
	u64 now = rq->clock;

	if (dl_time_before(dl_se->deadline, now) &&
	    dl_time_before(now, dl_se->deadline - dl_se->dl_deadline + dl_se->dl_period)) {
		if (!start_dl_timer(rq, dl_se))
			return;
		dl_se->dl_throttled = true;
		if (dl_se->runtime > 0)
			dl_se->runtime = 0;
	}
}

/* ---- the class ---------------------------------------------------------------------- */

static void enqueue_task_dl(struct rq *rq, struct task_struct *p, int flags)
{
	struct sched_dl_entity *dl_se = &p->dl;
	bool wakeup = flags & (ENQUEUE_WAKEUP | ENQUEUE_INITIAL);

	lockdep_assert_held(&rq->lock);
	if (!dl_se->dl_throttled && dl_se->dl_deadline != dl_se->dl_period)
		dl_check_constrained_dl(rq, dl_se);
	if (p->on_rq == TASK_ON_RQ_MIGRATING || flags & ENQUEUE_RESTORE)
		add_running_bw(rq, dl_se->dl_bw);
	if (dl_se->dl_throttled && !(flags & ENQUEUE_REPLENISH)) {
		if (wakeup)
			task_contending(rq, dl_se);
		throttled_add(rq, !(flags & ENQUEUE_RESTORE));
		return;
	}
	if (wakeup) { /* Linux: enqueue_dl_entity(); a new task is a first wakeup here */
		task_contending(rq, dl_se);
		update_dl_entity(rq, dl_se);
	} else if (flags & ENQUEUE_REPLENISH) {
		replenish_dl_entity(rq, dl_se);
	} else if ((flags & ENQUEUE_RESTORE) && dl_time_before(dl_se->deadline, rq->clock)) {
		setup_new_dl_entity(rq, dl_se);
	}
	__enqueue_dl_entity(rq, dl_se);
	if (!task_running(rq, p) && p->nr_cpus_allowed > 1)
		enqueue_pushable_dl_task(rq, p);
	if (flags & ENQUEUE_REPLENISH) /* from the timer or update_curr_dl: not the core */
		rq->nr_running++;
}

static void dequeue_task_dl(struct rq *rq, struct task_struct *p, int flags)
{
	struct sched_dl_entity *dl_se = &p->dl;

	lockdep_assert_held(&rq->lock);
	update_curr_dl(rq);
	dequeue_pushable_dl_task(rq, p);
	if (dl_se->on_dl_rq)
		__dequeue_dl_entity(rq, dl_se);
	else if (dl_se->dl_throttled) /* queued, so throttled while queued */
		throttled_del(rq, !(flags & DEQUEUE_SAVE));
	if (p->on_rq == TASK_ON_RQ_MIGRATING || flags & DEQUEUE_SAVE)
		sub_running_bw(rq, dl_se->dl_bw);
	if (flags & DEQUEUE_SLEEP)
		task_non_contending(rq, p);
}

/* Linux: yield_task_dl(): give up the rest of this instance's runtime. */
static void yield_task_dl(struct rq *rq)
{
	rq->curr->dl.dl_yielded = true;
	update_curr_dl(rq);
}

/* Linux: dl_entity_preempt(): the earlier deadline preempts. */
static void check_preempt_curr_dl(struct rq *rq, struct task_struct *p, int flags)
{
	lockdep_assert_held(&rq->lock);
	if (dl_task(rq->curr) && dl_time_before(p->dl.deadline, rq->curr->dl.deadline))
		resched_curr(rq);
}

static struct task_struct *pick_next_task_dl(struct rq *rq)
{
	struct rb_node *left = rb_first_cached(&rq->dl.root);
	struct task_struct *p;

	lockdep_assert_held(&rq->lock);
	if (!left)
		return NULL;
	p = dl_task_of(rb_entry(left, struct sched_dl_entity, rb_node));
	p->se.exec_start = rq->clock_task;
	dequeue_pushable_dl_task(rq, p);
	/* Linux: set_next_task_dl(first): the signal was idle until now */
	if (rq->curr->sched_class != &dl_sched_class)
		update_dl_rq_load_avg(rq, false);
	if (has_pushable_dl_tasks(rq)) /* Linux: deadline_queue_push_tasks() */
		queue_balance_callback(rq, BALANCE_PUSH_DL);
	return p;
}

/* Still in the tree (preempted): it may now be pushed. */
static void put_prev_task_dl(struct rq *rq, struct task_struct *p)
{
	lockdep_assert_held(&rq->lock);
	update_curr_dl(rq);
	update_dl_rq_load_avg(rq, true);
	if (p->dl.on_dl_rq && p->nr_cpus_allowed > 1)
		enqueue_pushable_dl_task(rq, p);
}

static void set_next_task_dl(struct rq *rq, struct task_struct *p, bool first)
{
	p->se.exec_start = rq->clock_task;
	dequeue_pushable_dl_task(rq, p);
}

/* Linux: task_tick_dl() (no HRTICK_DL: throttling is seen at the tick or at
 * the next update_curr, as with Linux's default features). */
static void task_tick_dl(struct rq *rq, struct task_struct *p)
{
	lockdep_assert_held(&rq->lock);
	update_curr_dl(rq);
	update_dl_rq_load_avg(rq, true);
}

/* Linux: select_task_rq_dl(): stay unless prev runs a DL task that p does
 * not preempt, or (asymmetric capacities) prev cannot do p's bandwidth.
 * Linux places only at wakeup (a DL task cannot fork); our spawn makes a
 * task DL before its first wakeup, placed here too. */
static int select_task_rq_dl(struct task_struct *p, int cpu, int wake_flags)
{
	struct task_struct *curr = READ_ONCE(cpu_rq(cpu)->curr);
	bool select;
	int target;

	if (!(wake_flags & (WF_TTWU | WF_FORK)))
		return cpu;
	select =
		curr && dl_task(curr) &&
		(curr->nr_cpus_allowed < 2 || !dl_time_before(p->dl.deadline, curr->dl.deadline)) &&
		p->nr_cpus_allowed > 1;
	if (sched_asym_cpucap_active(cpu))
		select |= !dl_task_fits_capacity(p, cpu);
	if (!select)
		return cpu;
	target = find_later_rq(p);
	if (target >= 0 &&
	    (!READ_ONCE(cpu_rq(target)->dl.dl_nr_running) ||
	     dl_time_before(p->dl.deadline, READ_ONCE(cpu_rq(target)->dl.earliest_dl))))
		cpu = target;
	return cpu;
}

/* Linux: balance_dl(): prev, a DL task, blocked or was throttled: pull. */
static int balance_dl(struct rq *rq, struct task_struct *prev)
{
	if (!prev->dl.on_dl_rq && dl_task(prev) && cpu_active(rq->cpu))
		__pull_dl_task(rq, false);
	return rq->dl.dl_nr_running;
}

/* Linux: task_woken_dl(): a woken task that will not run here soon is pushed. */
static void task_woken_dl(struct rq *rq, struct task_struct *p)
{
	struct task_struct *curr = rq->curr;

	if (!task_running(rq, p) && !rq->need_resched && p->nr_cpus_allowed > 1 && dl_task(curr) &&
	    (curr->nr_cpus_allowed < 2 || !dl_time_before(p->dl.deadline, curr->dl.deadline)))
		push_dl_tasks(rq);
}

/* Linux: migrate_task_rq_dl(): a sleeping task woken elsewhere takes its
 * still-active bandwidth along (the old rq loses it now, the new one gains
 * it in task_contending()). A queued one moves it by dequeue/enqueue. */
static void migrate_task_rq_dl(struct task_struct *p, int new_cpu)
{
	struct rq *rq = task_rq(p);

	if (p->on_rq || !p->dl.dl_non_contending)
		return;
	spin_lock(&rq->lock);
	if (p->dl.dl_non_contending) {
		update_rq_clock(rq);
		p->dl.dl_non_contending = false;
		sub_running_bw(rq, p->dl.dl_bw);
		timer_try_cancel(&p->dl.inactive_timer);
	}
	spin_unlock(&rq->lock);
}

/* The task exited (no lock held): its timers go, and its bandwidth with it
 * (Linux: task_dead_dl(), and the inactive timer's TASK_DEAD branch). */
static void task_dead_dl(struct task_struct *p)
{
	unsigned long flags;
	struct rq *rq;

	timer_cancel(&p->dl.dl_timer);
	if (timer_cancel(&p->dl.inactive_timer) && p->dl.inactive_ref) {
		p->dl.inactive_ref = false; /* not the last: the core still holds one */
		put_task_struct(p);
	}
	flags = spin_lock_irqsave(&p->pi_lock);
	rq = task_rq(p);
	spin_lock(&rq->lock);
	if (p->dl.dl_non_contending) {
		p->dl.dl_non_contending = false;
		sub_running_bw(rq, p->dl.dl_bw);
	}
	spin_unlock(&rq->lock);
	spin_unlock_irqrestore(&p->pi_lock, flags);
	flags = spin_lock_irqsave(&dl_b.lock);
	dl_b.total_bw -= p->dl.dl_bw;
	spin_unlock_irqrestore(&dl_b.lock, flags);
}

/* Leaving DL (change_task(): dequeued with DEQUEUE_SAVE, which took a queued
 * task's bandwidth off running_bw). Its admitted bandwidth stays in total_bw
 * until its 0-lag time (a sleeper's timer is armed already; a queued task's
 * is armed now), then inactive_task_timer() gives it back and clears its
 * parameters; with no 0-lag time ahead, at once. A sleeper's running_bw goes
 * now (it may run elsewhere as another class meanwhile); a throttled queued
 * task counts in nr_running again. Linux: switched_from_dl(). */
static void switched_from_dl(struct rq *rq, struct task_struct *p)
{
	struct sched_dl_entity *dl_se = &p->dl;
	bool queued = task_on_rq_queued(p), hold = false;
	unsigned long flags;
	s64 zerolag = 0;

	if (queued && dl_se->dl_runtime) {
		zerolag = dl_zerolag(rq, dl_se);
		hold = zerolag > 0;
	} else if (dl_se->dl_non_contending) {
		dl_se->dl_non_contending = false;
		sub_running_bw(rq, dl_se->dl_bw);
		hold = true;
	}
	if (dl_se->dl_throttled && queued)
		rq->nr_running++;
	dl_se->dl_throttled = dl_se->dl_yielded = false;
	if (queued && !rq->dl.dl_nr_running) /* the last DL task here left: pull */
		queue_balance_callback(rq, BALANCE_PULL_DL);
	flags = spin_lock_irqsave(&dl_b.lock);
	dl_se->bw_release_pending = true;
	spin_unlock_irqrestore(&dl_b.lock, flags);
	if (!hold) {
		dl_release_bw(p);
		dl_clear_params(dl_se);
		return;
	}
	if (!dl_se->inactive_ref) { /* the timer may outlive the task's other users */
		dl_se->inactive_ref = true;
		__atomic_add_fetch(&p->refcount, 1, __ATOMIC_ACQ_REL);
	}
	if (queued)
		timer_start(&dl_se->inactive_timer, arch_clock_ns() + (u64)zerolag);
}

/* Linux: switched_to_dl(): a queued task that became DL may overload this CPU. */
static void switched_to_dl(struct rq *rq, struct task_struct *p)
{
	if (task_running(rq, p))
		update_dl_rq_load_avg(rq, false);
	else if (task_on_rq_queued(p) && p->nr_cpus_allowed > 1 && rq->dl.overloaded)
		queue_balance_callback(rq, BALANCE_PUSH_DL);
}

/* A changed deadline may reorder: let pick decide. */
static void prio_changed_dl(struct rq *rq, struct task_struct *p, int oldprio)
{
	if (task_running(rq, p))
		resched_curr(rq);
}

const struct sched_class dl_sched_class = {
	.enqueue_task = enqueue_task_dl,
	.dequeue_task = dequeue_task_dl,
	.yield_task = yield_task_dl,
	.check_preempt_curr = check_preempt_curr_dl,
	.pick_next_task = pick_next_task_dl,
	.put_prev_task = put_prev_task_dl,
	.set_next_task = set_next_task_dl,
	.select_task_rq = select_task_rq_dl,
	.balance = balance_dl,
	.task_woken = task_woken_dl,
	.migrate_task_rq = migrate_task_rq_dl,
	.task_tick = task_tick_dl,
	.task_dead = task_dead_dl,
	.update_curr = update_curr_dl,
	.switched_from = switched_from_dl,
	.switched_to = switched_to_dl,
	.prio_changed = prio_changed_dl,
};

/* ---- parameters, init, hotplug ------------------------------------------------------ */

/* Linux: __checkparam_dl(). */
bool sched_dl_param_ok(const struct sched_attr *attr)
{
	u64 period = attr->sched_period ? attr->sched_period : attr->sched_deadline;

	if (!attr->sched_deadline || attr->sched_runtime < (1ull << DL_SCALE))
		return false;
	if ((attr->sched_deadline | attr->sched_period) & (1ull << 63))
		return false;
	if (period < attr->sched_deadline || attr->sched_deadline < attr->sched_runtime)
		return false;
	return period >= DL_PERIOD_MIN_NS && period <= DL_PERIOD_MAX_NS;
}

/* Linux: __setparam_dl() (and dl_change_utilization() for a sleeper whose
 * old bandwidth is still active: it goes now). Under the rq lock, p not
 * queued (change_task() dequeued it). */
void sched_dl_setparams(struct task_struct *p, const struct sched_attr *attr)
{
	struct sched_dl_entity *dl_se = &p->dl;

	if (dl_se->dl_non_contending && p->cpu >= 0) {
		dl_se->dl_non_contending = false;
		sub_running_bw(task_rq(p), dl_se->dl_bw);
		timer_try_cancel(&dl_se->inactive_timer);
	}
	dl_se->dl_runtime = attr->sched_runtime;
	dl_se->dl_deadline = attr->sched_deadline;
	dl_se->dl_period = attr->sched_period ? attr->sched_period : attr->sched_deadline;
	dl_se->dl_bw = to_ratio(dl_se->dl_period, dl_se->dl_runtime);
	dl_se->dl_density = to_ratio(dl_se->dl_deadline, dl_se->dl_runtime);
}

void sched_dl_task_init(struct task_struct *p)
{
	memset(&p->dl, 0, sizeof(p->dl));
	INIT_LIST_HEAD(&p->dl.pushable_node);
	timer_init(&p->dl.dl_timer, dl_task_timer);
	timer_init(&p->dl.inactive_timer, inactive_task_timer);
}

void init_dl_rq(struct dl_rq *dl_rq)
{
	memset(dl_rq, 0, sizeof(*dl_rq));
	dl_rq->root = RB_ROOT_CACHED;
	INIT_LIST_HEAD(&dl_rq->pushable_tasks);
}

/* Hotplug (core.c pick_migratable()): a DL task in the tree here. A
 * throttled one stays until its replenishment timer moves it (Linux:
 * dl_task_offline_migration()). */
struct task_struct *pick_migratable_dl(struct rq *rq)
{
	struct rb_node *left = rb_first_cached(&rq->dl.root);

	return left ? dl_task_of(rb_entry(left, struct sched_dl_entity, rb_node)) : NULL;
}

/* Linux: rq_online_dl() / rq_offline_dl(): the CPU joins cpudl with its
 * earliest deadline, or free (at boot and at hotplug's bring-up), or leaves
 * it (tasks still queued are moving away; the last one's dequeue leaves it
 * out of the free mask, as it is inactive). Under rq->lock. */
void dl_rq_online(struct rq *rq)
{
	rq->dl.in_cpudl = rq->dl.dl_nr_running != 0;
	if (rq->dl.in_cpudl)
		cpudl_set(rq->cpu, rq->dl.earliest_dl);
	else
		cpudl_clear(rq->cpu, true);
}

void dl_rq_offline(struct rq *rq)
{
	cpudl_clear(rq->cpu, false);
	rq->dl.in_cpudl = false;
}
