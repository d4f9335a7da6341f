/* nohz.c - who balances when (Linux keeps it in fair.c): the periodic
 * balance from the tick (trigger_load_balance, rebalance_domains), newidle
 * balancing with its cost gates, and NO_HZ idle balancing: CPUs whose tick
 * is stopped join nohz.idle_cpus_mask; a busy CPU's tick kicks one of them,
 * rate limited (nohz_balancer_kick), which balances on behalf of all of them
 * and decays their blocked load (_nohz_idle_balance). Not load_balance()
 * itself (balance.c) nor stopping the tick (kernel/timer.c). nohz is atomic
 * words; rq fields under rq->lock or written by their own CPU. Linux 6.1. */
#include "sched_internal.h"

#define NOHZ_BALANCE_KICK  0x1
#define NOHZ_STATS_KICK	   0x2
#define NOHZ_NEWILB_KICK   0x4 /* newidle asks its own idle loop for a stats pass */
#define NOHZ_NEXT_KICK	   0x8
#define NOHZ_KICK_MASK	   (NOHZ_BALANCE_KICK | NOHZ_STATS_KICK | NOHZ_NEXT_KICK)
#define LOAD_AVG_PERIOD_MS 32

static struct {
	cpumask_t idle_cpus_mask; /* tick stopped, not yet busy again */
	unsigned int nr_cpus;
	int has_blocked;	    /* idle CPUs may have blocked load to decay */
	int needs_update;	    /* newly idle CPUs' next_balance not collated yet */
	unsigned long next_balance; /* jiffies */
	unsigned long next_blocked; /* jiffies */
} nohz;

/* Linux: msecs_to_jiffies(), rounding up: a balance interval is never
 * shorter than asked. Jiffies here are sched_jiffies() (docs/deviations.md). */
static unsigned long msecs_to_jiffies(unsigned long ms)
{
	return (ms * HZ + 999) / 1000;
}

/* Linux: get_sd_balance_interval(). Busy CPUs balance busy_factor times less
 * often, one jiffy off so that levels do not line up. */
static unsigned long get_sd_balance_interval(const struct sched_domain *sd, bool busy)
{
	unsigned long interval = sd->balance_interval, max;

	if (busy)
		interval *= sd->busy_factor;
	interval = msecs_to_jiffies(interval);
	if (busy)
		interval -= 1;
	max = HZ * cpumask_weight(cpu_online_mask) / 10; /* max_load_balance_interval */
	return MIN(MAX(interval, 1ul), MAX(max, 1ul));
}

/* Linux: update_next_balance(): pull *next_balance forward to this level's
 * next due time, counted at the not-busy interval: the caller, newidle
 * balance, runs on a CPU that is about to idle. */
static void update_next_balance(const struct sched_domain *sd, unsigned long *next_balance)
{
	unsigned long next = sd->last_balance + get_sd_balance_interval(sd, false);

	if (time_after(*next_balance, next))
		*next_balance = next;
}

/* Linux: update_newidle_cost(): the max cost of a newidle pass at this level,
 * decaying ~1 % a second. True when it decayed. */
static bool update_newidle_cost(struct sched_domain *sd, u64 cost)
{
	unsigned long now = sched_jiffies();

	if (cost > sd->max_newidle_lb_cost) {
		sd->max_newidle_lb_cost = cost;
		sd->last_decay_max_lb_cost = now;
	} else if (time_after(now, sd->last_decay_max_lb_cost + HZ)) {
		sd->max_newidle_lb_cost = sd->max_newidle_lb_cost * 253 / 256;
		sd->last_decay_max_lb_cost = now;
		return true;
	}
	return false;
}

/* Linux: sched_idle_cpu(): only SCHED_IDLE tasks to run. */
static bool sched_idle_cpu(const struct rq *rq)
{
	return rq->nr_running && rq->nr_running == rq->cfs.idle_h_nr_running;
}

/* Linux: rebalance_domains(): each level when its interval has passed,
 * stopping where another CPU of the group balances (continue_balancing). */
static void rebalance_domains(struct rq *rq, enum cpu_idle_type idle)
{
	unsigned long next_balance = sched_jiffies() + 60 * HZ, interval;
	bool busy = idle != CPU_IDLE && !sched_idle_cpu(rq), update_next = false;
	int continue_balancing = 1, cpu = (int)rq->cpu;
	bool need_decay = false;
	u64 max_cost = 0;

	for (int i = 0; i < rq->nr_sd; i++) {
		struct sched_domain *sd = &rq->sd[i];

		need_decay = update_newidle_cost(sd, 0);
		max_cost += sd->max_newidle_lb_cost;
		if (!continue_balancing) {
			if (need_decay)
				continue;
			break;
		}
		interval = get_sd_balance_interval(sd, busy);
		if (time_after_eq(sched_jiffies(), sd->last_balance + interval)) {
			if (load_balance(cpu, sd, idle, false, &continue_balancing)) {
				idle = idle_cpu(cpu) ? CPU_IDLE : CPU_NOT_IDLE;
				busy = idle != CPU_IDLE && !sched_idle_cpu(rq);
			}
			sd->last_balance = sched_jiffies();
			interval = get_sd_balance_interval(sd, busy);
		}
		if (time_after(next_balance, sd->last_balance + interval)) {
			next_balance = sd->last_balance + interval;
			update_next = true;
		}
	}
	if (need_decay)
		rq->max_idle_balance_cost = MAX((u64)sysctl_sched_migration_cost, max_cost);
	if (update_next)
		rq->next_balance = next_balance;
}

/* Linux: update_blocked_averages(cpu), rq locked: the blocked load's decay,
 * and has_blocked_load cleared once none is left. */
static void update_blocked_load(struct rq *rq)
{
	lockdep_assert_held(&rq->lock);
	WRITE_ONCE(rq->last_blocked_load_update_tick, sched_jiffies());
	if (!update_blocked_averages(rq)) /* clock, decay, cpufreq on decay */
		rq->has_blocked_load = false;
}

/* Linux: update_nohz_stats(): true while rq still has blocked load. */
static bool update_nohz_stats(struct rq *rq)
{
	unsigned long flags;

	if (!READ_ONCE(rq->has_blocked_load))
		return false;
	if (!cpumask_test_cpu(rq->cpu, &nohz.idle_cpus_mask))
		return false;
	if (!time_after(sched_jiffies(), READ_ONCE(rq->last_blocked_load_update_tick)))
		return true;
	flags = spin_lock_irqsave(&rq->lock);
	update_blocked_load(rq);
	spin_unlock_irqrestore(&rq->lock, flags);
	return READ_ONCE(rq->has_blocked_load);
}

/* Linux: _nohz_idle_balance(): on the kicked CPU, for every CPU of
 * nohz.idle_cpus_mask (this one last): decay blocked load (STATS) and
 * balance the CPUs whose next_balance has come (BALANCE). */
static void _nohz_idle_balance(struct rq *this_rq, unsigned int flags)
{
	unsigned long now = sched_jiffies(), next_balance = now + 60 * HZ;
	bool has_blocked_load = false, update_next = false;
	unsigned int cpu;

	this_rq->lb.nohz_passes++;
	if (flags & NOHZ_STATS_KICK)
		WRITE_ONCE(nohz.has_blocked, 0);
	if (flags & NOHZ_NEXT_KICK)
		WRITE_ONCE(nohz.needs_update, 0);
	__atomic_thread_fence(__ATOMIC_SEQ_CST); /* vs nohz_balance_enter_idle() */
	/* this CPU last: from the next one round (Linux: for_each_cpu_wrap) */
	for_each_cpu_wrap(cpu, &nohz.idle_cpus_mask, (this_rq->cpu + 1) % NR_CPUS)
	{
		struct rq *rq = cpu_rq(cpu);

		if (!idle_cpu((int)cpu))
			continue;
		if (need_resched()) { /* work arrived here: the next owner takes over */
			has_blocked_load |= flags & NOHZ_STATS_KICK;
			if (flags & NOHZ_NEXT_KICK)
				WRITE_ONCE(nohz.needs_update, 1);
			goto abort;
		}
		if (flags & NOHZ_STATS_KICK)
			has_blocked_load |= update_nohz_stats(rq);
		if (time_after_eq(sched_jiffies(), rq->next_balance)) {
			unsigned long irq = spin_lock_irqsave(&rq->lock);

			update_rq_clock(rq);
			spin_unlock_irqrestore(&rq->lock, irq);
			if (flags & NOHZ_BALANCE_KICK)
				rebalance_domains(rq, CPU_IDLE);
		}
		if (time_after(next_balance, rq->next_balance)) {
			next_balance = rq->next_balance;
			update_next = true;
		}
	}
	if (update_next)
		WRITE_ONCE(nohz.next_balance, next_balance);
	if (flags & NOHZ_STATS_KICK)
		WRITE_ONCE(nohz.next_blocked, now + msecs_to_jiffies(LOAD_AVG_PERIOD_MS));
abort:
	if (has_blocked_load)
		WRITE_ONCE(nohz.has_blocked, 1);
}

/* Linux: kick_ilb(): the first idle CPU of nohz.idle_cpus_mask balances for
 * all; its reschedule IPI ends its wait (Linux: nohz_csd). */
static void kick_ilb(struct rq *rq, unsigned int flags)
{
	cpumask_t idle;
	unsigned int ilb, prev;

	cpumask_and(&idle, &nohz.idle_cpus_mask, cpu_active_mask);
	if (flags & NOHZ_BALANCE_KICK)
		WRITE_ONCE(nohz.next_balance, sched_jiffies() + 1);
	for_each_cpu(ilb, &idle)
		if (ilb != rq->cpu && idle_cpu((int)ilb))
			break;
	if (ilb >= NR_CPUS)
		return;
	prev = __atomic_fetch_or(&cpu_rq(ilb)->nohz_flags, flags, __ATOMIC_ACQ_REL);
	if (prev & NOHZ_KICK_MASK)
		return; /* already kicked, not yet run */
	rq->lb.nohz_kicks[flags & NOHZ_BALANCE_KICK ? 1 : 0]++;
	arch_send_ipi(ilb, IPI_RESCHEDULE);
}

/* Linux: check_misfit_status(): a misfit that a bigger CPU (or a CPU less
 * squeezed by RT/IRQ) could run better. */
static bool check_misfit_status(const struct rq *rq, const struct sched_domain *sd)
{
	unsigned long max_cap = 0;
	unsigned int c;

	for_each_cpu(c, cpu_active_mask) /* Linux: rq->rd->max_cpu_capacity */
		max_cap = MAX(max_cap, cpu_rq(c)->cpu_capacity_orig);
	return rq->misfit_task_load &&
	       (rq->cpu_capacity_orig < max_cap || check_cpu_capacity(rq, sd));
}

/* Linux: nohz_balancer_kick(): from a busy CPU's tick, at most once per
 * nohz.next_balance, when there is something an idle CPU could take: two
 * tasks here, one squeezed by RT/IRQ, a misfit (asymmetric machines look at
 * nothing else), or more than one busy CPU in the LLC. Blocked load of idle
 * CPUs alone asks for a stats-only pass (NOHZ_STATS_KICK). */
static void nohz_balancer_kick(struct rq *rq)
{
	unsigned long now = sched_jiffies();
	unsigned int flags = 0;
	const struct sched_domain *llc;

	if (rq->idle_balance)
		return;
	nohz_balance_exit_idle(rq); /* the first busy tick after idle */
	if (!READ_ONCE(nohz.nr_cpus))
		return;
	if (READ_ONCE(nohz.has_blocked) && time_after(now, READ_ONCE(nohz.next_blocked)))
		flags = NOHZ_STATS_KICK;
	if (time_after(READ_ONCE(nohz.next_balance), now))
		goto out;
	if (rq->nr_running >= 2 ||
	    (rq->cfs.h_nr_running >= 1 && check_cpu_capacity(rq, &rq->sd[0]))) {
		flags = NOHZ_STATS_KICK | NOHZ_BALANCE_KICK;
		goto out;
	}
	if (rq->sd_asym_cpucapacity) { /* only capacity matters, not cache use */
		if (check_misfit_status(rq, rq->sd_asym_cpucapacity))
			flags = NOHZ_STATS_KICK | NOHZ_BALANCE_KICK;
		goto out;
	}
	llc = (rq->sd[0].flags & SD_SHARE_PKG_RESOURCES) ? &rq->sd[0] : NULL;
	if (llc) {
		cpumask_t busy; /* sds->nr_busy_cpus */

		cpumask_and(&busy, &llc->span, cpu_active_mask);
		cpumask_andnot(&busy, &busy, &nohz.idle_cpus_mask);
		if (cpumask_weight(&busy) > 1)
			flags = NOHZ_STATS_KICK | NOHZ_BALANCE_KICK;
	}
out:
	if (READ_ONCE(nohz.needs_update))
		flags |= NOHZ_NEXT_KICK;
	if (flags)
		kick_ilb(rq, flags);
}

/* Linux: nohz_balance_enter_idle(): the tick of this CPU (IRQs off) was just
 * stopped in its idle loop (kernel/timer.c). */
void nohz_balance_enter_idle(unsigned int cpu)
{
	struct rq *rq = cpu_rq(cpu);

	if (!cpu_active(cpu))
		return;
	WRITE_ONCE(rq->has_blocked_load, true);
	if (!rq->nohz_tick_stopped) {
		if (!rq->nr_sd)
			return;
		rq->nohz_tick_stopped = true;
		cpumask_set_cpu(cpu, &nohz.idle_cpus_mask);
		__atomic_add_fetch(&nohz.nr_cpus, 1, __ATOMIC_SEQ_CST);
		WRITE_ONCE(nohz.needs_update, 1);
	}
	WRITE_ONCE(nohz.has_blocked, 1); /* assume blocked load: a periodic update */
}

/* Linux: nohz_balance_exit_idle(): at its first busy tick (or going
 * offline) a CPU leaves nohz.idle_cpus_mask. */
void nohz_balance_exit_idle(struct rq *rq)
{
	if (!rq->nohz_tick_stopped)
		return;
	rq->nohz_tick_stopped = false;
	cpumask_clear_cpu(rq->cpu, &nohz.idle_cpus_mask);
	__atomic_sub_fetch(&nohz.nr_cpus, 1, __ATOMIC_SEQ_CST);
}

/* Linux: run_rebalance_domains() (SCHED_SOFTIRQ), here straight from the
 * tick: this CPU's own blocked load first, then each level that is due. */
static void run_rebalance_domains(struct rq *rq)
{
	enum cpu_idle_type idle = rq->idle_balance ? CPU_IDLE : CPU_NOT_IDLE;
	unsigned long flags = spin_lock_irqsave(&rq->lock);

	update_blocked_load(rq);
	spin_unlock_irqrestore(&rq->lock, flags);
	rebalance_domains(rq, idle);
}

/* Linux: trigger_load_balance(). From the tick (IRQ context, no rq lock held;
 * rq->idle_balance set): perhaps kick an idle CPU to balance for the tickless
 * ones, then this CPU's own periodic balance once rq->next_balance has come. */
void trigger_load_balance(struct rq *rq)
{
	lockdep_assert_not_held(&rq->lock);
	if (!rq->nr_sd || !cpu_active(rq->cpu))
		return;
	nohz_balancer_kick(rq);
	if (time_after_eq(sched_jiffies(), rq->next_balance))
		run_rebalance_domains(rq);
}

/* From this CPU's idle loop, IRQs off: the kick's pass (Linux: nohz_csd_func
 * + nohz_idle_balance), or newidle's stats pass (nohz_run_idle_balance). */
void nohz_run_idle_balance(struct rq *rq)
{
	unsigned int flags;

	lockdep_assert_irqs_disabled();
	run_deferred_active_balance(rq);
	flags = __atomic_fetch_and(&rq->nohz_flags, ~(NOHZ_KICK_MASK | NOHZ_NEWILB_KICK),
				   __ATOMIC_ACQ_REL);
	if (flags & NOHZ_KICK_MASK) {
		spin_lock(&rq->lock); /* the kick's IPI asked to reschedule: nothing to */
		if (!rq->nr_running)
			WRITE_ONCE(rq->need_resched, false);
		spin_unlock(&rq->lock);
		rq->idle_balance = idle_cpu((int)rq->cpu);
		if (rq->idle_balance && !need_resched())
			_nohz_idle_balance(rq, flags & NOHZ_KICK_MASK);
	} else if (flags == NOHZ_NEWILB_KICK && !need_resched()) {
		_nohz_idle_balance(rq, NOHZ_STATS_KICK);
	}
}

/* Linux: nohz_newidle_balance(): a CPU about to idle for a while decays the
 * idle CPUs' blocked load itself rather than waking another for it. */
static void nohz_newidle_balance(struct rq *rq)
{
	if (rq->avg_idle < sysctl_sched_migration_cost)
		return;
	if (!READ_ONCE(nohz.has_blocked) ||
	    time_after(READ_ONCE(nohz.next_blocked), sched_jiffies()))
		return;
	__atomic_or_fetch(&rq->nohz_flags, NOHZ_NEWILB_KICK, __ATOMIC_ACQ_REL);
}

/* Linux: newidle_balance(). Called from pick_next_task with this rq locked,
 * and keeps it locked (load_balance takes busiest in order or by trylock).
 * Gates: something is overloaded, and the expected idle time pays for the
 * balance (avg_idle vs max_newidle_lb_cost). */
int newidle_balance(struct rq *this_rq)
{
	unsigned long next_balance = sched_jiffies() + HZ;
	int this_cpu = (int)this_rq->cpu, pulled = 0;
	u64 t0, t1, curr_cost = 0;

	update_misfit_status(NULL, this_rq); /* going idle: no misfit here any more */
	this_rq->idle_stamp = this_rq->clock;
	if (!cpu_active(this_rq->cpu) || !this_rq->nr_sd)
		return 0;
	if (!READ_ONCE(sched_rd_overload) ||
	    this_rq->avg_idle < this_rq->sd[0].max_newidle_lb_cost) {
		update_next_balance(&this_rq->sd[0], &next_balance);
		goto out;
	}
	t0 = arch_clock_ns();
	update_blocked_load(this_rq);
	for (int i = 0; i < this_rq->nr_sd; i++) {
		struct sched_domain *sd = &this_rq->sd[i];
		int continue_balancing = 1;

		update_next_balance(sd, &next_balance);
		if (this_rq->avg_idle < curr_cost + sd->max_newidle_lb_cost)
			break;
		pulled = load_balance(this_cpu, sd, CPU_NEWLY_IDLE, true, &continue_balancing);
		t1 = arch_clock_ns();
		update_newidle_cost(sd, t1 - t0);
		curr_cost += t1 - t0;
		t0 = t1;
		if (pulled || this_rq->nr_running)
			break;
	}
	if (curr_cost > this_rq->max_idle_balance_cost)
		this_rq->max_idle_balance_cost = curr_cost;
	if (this_rq->cfs.h_nr_running && !pulled)
		pulled = 1;
	if (this_rq->nr_running != this_rq->cfs.h_nr_running)
		pulled = -1;
out:
	if (time_after(this_rq->next_balance, next_balance))
		this_rq->next_balance = next_balance;
	if (pulled)
		this_rq->idle_stamp = 0;
	else
		nohz_newidle_balance(this_rq);
	return pulled;
}

/* Linux: ttwu_do_wakeup()'s avg_idle: how long this CPU stays idle. rq locked. */
void sched_ttwu_idle_stamp(struct rq *rq)
{
	u64 max = 2 * rq->max_idle_balance_cost;

	if (!rq->idle_stamp)
		return;
	rq->avg_idle += (u64)((s64)(rq->clock - rq->idle_stamp - rq->avg_idle) / 8);
	if (rq->avg_idle > max)
		rq->avg_idle = max;
	rq->idle_stamp = 0;
}

/* Boot and CPU bring-up (sched_init_cpu, sched_cpu_starting). */
void sched_balance_rq_init(struct rq *rq)
{
	rq->avg_idle = 2 * (u64)sysctl_sched_migration_cost;
	rq->max_idle_balance_cost = sysctl_sched_migration_cost;
	rq->idle_stamp = 0;
	rq->next_balance = sched_jiffies();
	rq->nohz_flags = 0;
	rq->active_balance_deferred = 0;
	nohz_balance_exit_idle(rq);
}
