/* balance.c - CFS load balancing (Linux keeps it in fair.c; here it has its
 * own file to stay readable): sched domains built from the topology,
 * periodic balancing with Linux's interval growth, newidle balancing, a
 * NOHZ-style kick of an idle CPU by a busy one, group classification and
 * calculate_imbalance by migration type (load, util, task, misfit), and
 * active balancing through the stop class for running misfit tasks.
 * Locks: two rq locks, lowest CPU first (double_rq_lock). Linux v6.1. */
#include "sched.h"

enum group_type {	/* worst last: a busier type always wins */
	group_has_spare,
	group_fully_busy,
	group_misfit_task,
	group_imbalanced,
	group_overloaded,
};

enum migration_type { migrate_load, migrate_util, migrate_task, migrate_misfit };

struct sg_lb_stats {
	unsigned long avg_load, group_load, group_capacity, group_util, group_runnable;
	unsigned int sum_nr_running, sum_h_nr_running, idle_cpus, group_weight;
	enum group_type group_type;
	unsigned long group_misfit_task_load;
	unsigned long max_capacity;
};

struct lb_env {
	struct sched_domain *sd;
	struct rq *src_rq, *dst_rq;
	int src_cpu, dst_cpu;
	enum cpu_idle_type idle;
	long imbalance;
	enum migration_type migration_type;
	unsigned int loop_max;
};

/* ---- domains ------------------------------------------------------------------------ */

/* Each active CPU's MC and DIE levels, the topology's spans recomputed over
 * cpu_active_mask (at boot, and by CPU hotplug inside stop_machine); the
 * groups of a level are the spans of the level below (CPUs under MC). */
void sched_domains_init(void)
{
	const struct topology *t = &cpu_topology;

	topology_build_sched_domains(&cpu_topology, cpu_active_mask);
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		struct rq *rq = cpu_rq(cpu);
		cpumask_t prev_span = 0;

		rq->nr_sd = 0;
		rq->sd_asym_cpucapacity = NULL;
		for (int l = 0; l < SD_NR_LEVELS; l++) {
			const struct topology_sd *tsd = &t->cpu[cpu].sd[l];
			struct sched_domain *sd = &rq->sd[rq->nr_sd];
			cpumask_t left;

			if (!tsd->span || tsd->span == prev_span)
				continue;
			memset(sd, 0, sizeof(*sd));
			sd->level = l;
			sd->span = tsd->span;
			sd->flags = tsd->flags;
			sd->span_weight = cpumask_weight(sd->span);
			sd->min_interval = sd->span_weight;
			sd->max_interval = 2 * sd->span_weight;
			sd->balance_interval = sd->min_interval;
			sd->busy_factor = 16;
			sd->imbalance_pct = 117;
			/* Groups: the child level's spans (one CPU each at the lowest). */
			left = sd->span;
			for (int c = 0; c < NR_CPUS && left; c++) {
				cpumask_t g = cpumask_of(c);

				if (!(left & g))
					continue;
				if (rq->nr_sd)
					g = (t->cpu[c].sd[rq->sd[rq->nr_sd - 1].level].span & left) | g;
				sd->groups[sd->nr_groups++] = g;
				left &= ~g;
			}
			if (t->cpu[cpu].sd_asym_cpucapacity == l)
				rq->sd_asym_cpucapacity = sd;
			prev_span = sd->span;
			rq->nr_sd++;
		}
	}
}

/* ---- statistics of groups ---------------------------------------------------------- */

static bool group_has_capacity(unsigned int pct, const struct sg_lb_stats *s)
{
	if (s->sum_nr_running < s->group_weight)
		return true;
	if (s->group_capacity * 100 > s->group_util * pct &&
	    s->group_capacity * pct > s->group_runnable * 100)
		return true;
	return false;
}

static bool group_is_overloaded(unsigned int pct, const struct sg_lb_stats *s)
{
	if (s->sum_nr_running <= s->group_weight)
		return false;
	return s->group_capacity * 100 < s->group_util * pct ||
	       s->group_capacity * pct < s->group_runnable * 100;
}

static enum group_type group_classify(unsigned int pct, const struct sg_lb_stats *s)
{
	if (group_is_overloaded(pct, s))
		return group_overloaded;
	if (s->group_misfit_task_load)
		return group_misfit_task;
	if (!group_has_capacity(pct, s))
		return group_fully_busy;
	return group_has_spare;
}

static void update_sg_lb_stats(struct lb_env *env, cpumask_t group, struct sg_lb_stats *s,
			       bool local)
{
	memset(s, 0, sizeof(*s));
	for (int c = 0; c < NR_CPUS; c++) {
		struct rq *rq = cpu_rq(c);

		if (!(group & cpumask_of(c)) || !cpu_active((unsigned int)c))
			continue;
		s->group_weight++;
		s->group_load += cpu_load(rq);
		s->group_util += cpu_util(c);
		s->group_runnable += rq->cfs.avg.runnable_avg;
		s->sum_h_nr_running += rq->cfs.h_nr_running;
		s->sum_nr_running += rq->nr_running;
		s->group_capacity += capacity_of((unsigned int)c);
		s->max_capacity = MAX(s->max_capacity, capacity_of((unsigned int)c));
		if (idle_cpu(c))
			s->idle_cpus++;
		/* A misfit only counts where the destination is bigger. */
		if (!local && (env->sd->flags & SD_ASYM_CPUCAPACITY) && rq->misfit_task_load &&
		    capacity_of((unsigned int)env->dst_cpu) * 1024 > capacity_of((unsigned int)c) * 1078)
			s->group_misfit_task_load = MAX(s->group_misfit_task_load,
							rq->misfit_task_load);
	}
	if (s->group_capacity)
		s->avg_load = s->group_load * SCHED_CAPACITY_SCALE / s->group_capacity;
	s->group_type = group_classify(env->sd->imbalance_pct, s);
}

/* Linux: update_sd_pick_busiest(). */
static bool pick_busiest(const struct sg_lb_stats *s, const struct sg_lb_stats *busiest,
			 const struct sg_lb_stats *local)
{
	if (!s->sum_h_nr_running && s->group_type != group_misfit_task)
		return false;
	if (s->group_type == group_misfit_task && local->group_type != group_has_spare)
		return false;
	if (!busiest)
		return true;
	if (s->group_type != busiest->group_type)
		return s->group_type > busiest->group_type;
	switch (s->group_type) {
	case group_overloaded:
	case group_fully_busy:
		return s->avg_load > busiest->avg_load;
	case group_misfit_task:
		return s->group_misfit_task_load > busiest->group_misfit_task_load;
	case group_imbalanced:
		return false;
	case group_has_spare:
		if (s->idle_cpus != busiest->idle_cpus)
			return s->idle_cpus < busiest->idle_cpus;
		return s->sum_nr_running > busiest->sum_nr_running;
	}
	return false;
}

/* ---- deciding what to move ------------------------------------------------------------ */

/* Linux: calculate_imbalance(). */
static void calculate_imbalance(struct lb_env *env, const struct sg_lb_stats *local,
				const struct sg_lb_stats *busiest, unsigned long sd_avg_load)
{
	if (busiest->group_type == group_misfit_task) {
		env->migration_type = migrate_misfit;
		env->imbalance = 1;
		return;
	}
	if (local->group_type == group_has_spare) {
		if (busiest->group_type > group_fully_busy) {
			/* Fill the spare capacity of the local group. */
			env->migration_type = migrate_util;
			env->imbalance = (long)MAX(local->group_capacity, local->group_util) -
					 (long)local->group_util;
			if (env->idle != CPU_NOT_IDLE && env->imbalance <= 0) {
				env->migration_type = migrate_task;
				env->imbalance = 1;
			}
			return;
		}
		env->migration_type = migrate_task;
		if (busiest->group_weight == 1)
			env->imbalance = (long)busiest->sum_nr_running - (long)local->sum_nr_running;
		else
			env->imbalance = (long)local->idle_cpus - (long)busiest->idle_cpus;
		env->imbalance = MAX(env->imbalance, 0l) >> 1;
		if (!env->imbalance && busiest->sum_nr_running > local->sum_nr_running + 1)
			env->imbalance = 1;
		return;
	}
	if (local->avg_load >= busiest->avg_load || local->avg_load >= sd_avg_load) {
		env->imbalance = 0;
		return;
	}
	env->migration_type = migrate_load;
	env->imbalance = (long)MIN((busiest->avg_load - sd_avg_load) * busiest->group_capacity,
				   (sd_avg_load - local->avg_load) * local->group_capacity) /
			 SCHED_CAPACITY_SCALE;
}

/* Linux: find_busiest_group(): the busiest group of the domain, or -1 when
 * the domain is balanced (env->imbalance then 0). */
static int find_busiest_group(struct lb_env *env)
{
	struct sched_domain *sd = env->sd;
	struct sg_lb_stats local = { 0 }, cur, busiest = { 0 };
	unsigned long total_load = 0, total_cap = 0;
	int busiest_idx = -1;

	for (int i = 0; i < sd->nr_groups; i++) {
		bool is_local = sd->groups[i] & cpumask_of(env->dst_cpu);

		update_sg_lb_stats(env, sd->groups[i], is_local ? &local : &cur, is_local);
		if (is_local)
			continue;
		total_load += cur.group_load;
		total_cap += cur.group_capacity;
		if (pick_busiest(&cur, busiest_idx < 0 ? NULL : &busiest, &local)) {
			busiest = cur;
			busiest_idx = i;
		}
	}
	total_load += local.group_load;
	total_cap += local.group_capacity;
	env->imbalance = 0;
	if (busiest_idx < 0 || (!busiest.sum_h_nr_running && busiest.group_type != group_misfit_task))
		return -1;
	if (busiest.group_type == group_misfit_task)
		goto calc;
	if (local.group_type > busiest.group_type)
		return -1;
	if (local.group_type == group_overloaded || busiest.group_type == group_overloaded ||
	    busiest.group_type == group_fully_busy) {
		if (local.group_type != group_has_spare) {
			if (local.avg_load >= busiest.avg_load)
				return -1;
			if (100 * busiest.avg_load <= sd->imbalance_pct * local.avg_load)
				return -1;
		}
	}
	if (local.group_type == group_has_spare && busiest.group_type != group_overloaded) {
		if (local.group_weight > 1 && local.idle_cpus <= busiest.idle_cpus + 1 &&
		    busiest.sum_h_nr_running <= busiest.group_weight)
			return -1;
		if (busiest.sum_h_nr_running == 1)
			return -1;	/* a single task: nothing to spread */
	}
calc:
	calculate_imbalance(env, &local, &busiest,
			    total_cap ? total_load * SCHED_CAPACITY_SCALE / total_cap : 0);
	return env->imbalance > 0 ? busiest_idx : -1;
}

/* Linux: find_busiest_queue(). A lone task is never pulled to a smaller CPU. */
static struct rq *find_busiest_queue(struct lb_env *env, cpumask_t group)
{
	struct rq *busiest = NULL;
	unsigned long best = 0;

	for (int c = 0; c < NR_CPUS; c++) {
		struct rq *rq = cpu_rq(c);
		unsigned long cap = capacity_of((unsigned int)c), v;

		if (!(group & cpumask_of(c)) || !cpu_active((unsigned int)c) || c == env->dst_cpu)
			continue;
		if ((env->sd->flags & SD_ASYM_CPUCAPACITY) && rq->cfs.h_nr_running == 1 &&
		    capacity_of((unsigned int)env->dst_cpu) * 1024 < cap * 1078 &&
		    env->migration_type != migrate_misfit)
			continue;
		switch (env->migration_type) {
		case migrate_load:
			v = cpu_load(rq) * SCHED_CAPACITY_SCALE / cap;
			if (rq->cfs.h_nr_running < 2 && cpu_load(rq) > (unsigned long)env->imbalance)
				continue;
			break;
		case migrate_util:
			v = cpu_util(c);
			if (rq->cfs.h_nr_running < 2)
				continue;
			break;
		case migrate_task:
			v = rq->cfs.h_nr_running;
			break;
		default:	/* migrate_misfit */
			v = rq->misfit_task_load;
			break;
		}
		if (v > best) {
			best = v;
			busiest = rq;
		}
	}
	return busiest;
}

/* Linux: can_migrate_task(). *hot says it failed only for being cache hot. */
int can_migrate_task(struct task_struct *p, struct rq *src, int dst_cpu, enum cpu_idle_type idle,
		     bool *hot)
{
	*hot = false;
	if (!(p->cpus_allowed & cpumask_of(dst_cpu)) || task_running(src, p) || p == src->stop)
		return 0;
	if (sched_feat(SIS_DEBOUNCE) && p->placed_tick &&
	    p->placed_tick == tick_count(src->cpu) + 1) {
		*hot = true;	/* placed in this very tick: cache hot there (E2) */
		return 0;
	}
	if (p->policy != SCHED_IDLE && src->clock_task - p->se.exec_start <
					       sysctl_sched_migration_cost) {
		*hot = true;
		return 0;
	}
	return 1;
}

static void detach_task(struct lb_env *env, struct task_struct *p)
{
	lockdep_assert_held(&env->src_rq->lock);
	lockdep_assert_held(&env->dst_rq->lock);
	deactivate_task(env->src_rq, p, 0);
	set_task_cpu(p, (unsigned int)env->dst_cpu);
}

static void attach_task(struct rq *rq, struct task_struct *p)
{
	lockdep_assert_held(&rq->lock);
	activate_task(rq, p, ENQUEUE_MIGRATED);
	p->on_rq = TASK_ON_RQ_QUEUED;
	check_preempt_curr(rq, p, 0);
}

/* Move queued (not running) CFS tasks from src to dst until the imbalance
 * is gone. Both rq locks held. Returns how many moved. */
static int detach_attach_tasks(struct lb_env *env)
{
	struct task_struct *moved[8];
	int n = 0, tries = 0;
	struct rb_node *node;

	node = rb_first_cached(&env->src_rq->cfs.tasks_timeline);
	while (node && env->imbalance > 0 && n < (int)ARRAY_SIZE(moved) && tries++ < 32) {
		struct task_struct *p = container_of(rb_entry(node, struct sched_entity, run_node),
						     struct task_struct, se);
		unsigned long util = task_util(p), load = p->se.avg.load_avg;
		bool hot;

		node = rb_next(node);
		if (env->idle != CPU_NOT_IDLE && env->src_rq->nr_running <= 1)
			break;	/* never empty the source while pulling for idle */
		if (!can_migrate_task(p, env->src_rq, env->dst_cpu, env->idle, &hot) &&
		    !(hot && env->sd->nr_balance_failed > 1))
			continue;
		switch (env->migration_type) {
		case migrate_load:
			if (load / 2 > (unsigned long)env->imbalance && env->sd->nr_balance_failed < 3)
				continue;
			env->imbalance -= (long)load;
			break;
		case migrate_util:
			env->imbalance -= (long)util;
			break;
		case migrate_task:
			env->imbalance--;
			break;
		case migrate_misfit:
			if (task_fits_cpu(p, env->src_cpu))
				continue;
			env->imbalance = 0;
			break;
		}
		detach_task(env, p);
		moved[n++] = p;
	}
	for (int i = 0; i < n; i++)
		attach_task(env->dst_rq, moved[i]);
	return n;
}

/* ---- active balance: move a running task with the stop class ------------------------ */

/* Runs on the busiest CPU as its stop task: the task we want is no longer
 * running there (we are), so it can be moved like a queued one. */
static int active_load_balance_cpu_stop(void *data)
{
	struct rq *busiest = data, *target;
	struct rb_node *node;
	unsigned long flags = arch_irq_save();

	target = cpu_rq(busiest->push_cpu);
	double_rq_lock(busiest, target);
	busiest->lb.alb_count++;
	if (busiest->active_balance && cpu_active(target->cpu)) {
		update_rq_clock(busiest);
		update_rq_clock(target);
		for (node = rb_first_cached(&busiest->cfs.tasks_timeline); node; node = rb_next(node)) {
			struct task_struct *p = container_of(
				rb_entry(node, struct sched_entity, run_node), struct task_struct, se);

			if (!(p->cpus_allowed & cpumask_of(target->cpu)))
				continue;
			if (busiest->misfit_task_load && task_fits_cpu(p, (int)busiest->cpu))
				continue;
			deactivate_task(busiest, p, 0);
			set_task_cpu(p, target->cpu);
			attach_task(target, p);
			busiest->lb.alb_pushed++;
			p->stats.nr_forced_migrations++;
			break;
		}
	}
	busiest->active_balance = 0;
	double_rq_unlock(busiest, target);
	arch_irq_restore(flags);
	return 0;
}

/* Linux: need_active_balance(): a misfit, a task stuck on a CPU much
 * smaller than an idle destination, or repeated failures. */
static bool need_active_balance(struct lb_env *env)
{
	if (env->migration_type == migrate_misfit)
		return true;
	if (env->idle != CPU_NOT_IDLE && (env->sd->flags & SD_ASYM_CPUCAPACITY) &&
	    env->src_rq->cfs.h_nr_running == 1 &&
	    capacity_of((unsigned int)env->src_cpu) * env->sd->imbalance_pct <
		    capacity_of((unsigned int)env->dst_cpu) * 100 &&
	    !task_fits_cpu(env->src_rq->curr, env->src_cpu))
		return true;
	return env->sd->nr_balance_failed > 3;
}

/* ---- load_balance ----------------------------------------------------------------- */

/* Linux: load_balance(). IRQs off; called without rq locks, or (newidle)
 * with this_cpu's rq locked, which then stays locked throughout: the busiest
 * rq is taken in lock order or by trylock, and an idle pull that cannot get
 * it simply fails (newidle is opportunistic; Linux: double_lock_balance).
 * Dropping this rq's lock in the middle of __schedule() would expose a
 * half-switched prev to the rest of the system. Returns the tasks pulled. */
static int load_balance(int this_cpu, struct sched_domain *sd, enum cpu_idle_type idle,
			bool this_locked)
{
	struct lb_env env = { .sd = sd, .dst_cpu = this_cpu, .dst_rq = cpu_rq(this_cpu),
			      .idle = idle };
	struct rq *this_rq = cpu_rq(this_cpu), *busiest;
	int gi, moved = 0;
	bool active = false;

	lockdep_assert_irqs_disabled();
	if (this_locked)
		lockdep_assert_held(&this_rq->lock);
	if (DEBUG_SCHED_ENABLED) {	/* the invariant checker at every balance */
		if (!this_locked)
			spin_lock(&this_rq->lock);
		sched_debug_check_rqs(this_rq, this_rq);
		if (!this_locked)
			spin_unlock(&this_rq->lock);
	}
	this_rq->lb.lb_count[idle]++;
	/* Linux: update_sd_lb_stats() -> update_group_capacity() -> update_cpu_capacity()
	 * for the local group at the lowest level (newidle: at most once an interval). */
	if (sd == &this_rq->sd[0] && idle != CPU_NEWLY_IDLE)
		update_cpu_capacity(this_rq);
	gi = find_busiest_group(&env);
	if (gi < 0)
		goto balanced;
	busiest = find_busiest_queue(&env, sd->groups[gi]);
	if (!busiest)
		goto balanced;
	env.src_rq = busiest;
	env.src_cpu = (int)busiest->cpu;
	if (!this_locked)
		double_rq_lock(this_rq, busiest);
	else if (busiest->cpu > this_rq->cpu)
		spin_lock(&busiest->lock);
	else if (!spin_trylock(&busiest->lock))
		goto balanced;
	update_rq_clock(this_rq);
	update_rq_clock(busiest);
	if (busiest->nr_running > 1 || env.migration_type == migrate_misfit)
		moved = detach_attach_tasks(&env);
	if (DEBUG_SCHED_ENABLED)
		sched_debug_check_rqs(this_rq, busiest);
	if (!moved && !this_locked && need_active_balance(&env) && !busiest->active_balance &&
	    busiest->curr->sched_class == &fair_sched_class &&
	    (busiest->curr->cpus_allowed & cpumask_of(this_cpu))) {
		busiest->active_balance = 1;
		busiest->push_cpu = this_cpu;
		active = true;
	}
	if (this_locked)
		spin_unlock(&busiest->lock);
	else
		double_rq_unlock(this_rq, busiest);
	if (active) {
		if (env.migration_type == migrate_misfit)
			this_rq->lb.misfit_pulls++;
		stop_one_cpu_nowait(busiest->cpu, active_load_balance_cpu_stop, busiest);
	}
	if (moved) {
		this_rq->lb.lb_gained[idle] += (u64)moved;
		sd->nr_balance_failed = 0;
		sd->balance_interval = sd->min_interval;
	} else {
		this_rq->lb.lb_failed[idle]++;
		if (idle != CPU_NEWLY_IDLE)
			sd->nr_balance_failed++;
		if (!active && sd->balance_interval < sd->max_interval)
			sd->balance_interval *= 2;
	}
	return moved;
balanced:
	this_rq->lb.lb_balanced[idle]++;
	sd->nr_balance_failed = 0;
	sd->balance_interval = sd->min_interval;
	return 0;
}

/* Newly idle: pull from the lowest domain up, stop at the first success.
 * Called from pick_next_task with this rq locked, and keeps it locked. */
int newidle_balance(struct rq *this_rq)
{
	int pulled = 0;

	update_misfit_status(NULL, this_rq);	/* going idle: no misfit here any more */
	if (!cpu_active(this_rq->cpu) || !this_rq->nr_sd)
		return 0;
	for (int i = 0; i < this_rq->nr_sd && !pulled; i++)
		pulled = load_balance((int)this_rq->cpu, &this_rq->sd[i], CPU_NEWLY_IDLE, true);
	return pulled || this_rq->nr_running;
}

/* Linux: rebalance_domains(): each level at its own interval; busy CPUs
 * balance busy_factor times less often. force: ignore the intervals. */
static void rebalance_domains(struct rq *rq, enum cpu_idle_type idle, bool force)
{
	u64 now = arch_clock_ns(), next = now + 100 * NSEC_PER_MSEC;

	for (int i = 0; i < rq->nr_sd; i++) {
		struct sched_domain *sd = &rq->sd[i];
		u64 interval = (u64)sd->balance_interval * NSEC_PER_MSEC;

		if (idle == CPU_NOT_IDLE)
			interval *= sd->busy_factor;
		if (force || now - sd->last_balance >= interval) {
			if (load_balance((int)rq->cpu, sd, idle, false))
				idle = CPU_NOT_IDLE;	/* we have work now */
			sd->last_balance = now;
		}
		next = MIN(next, sd->last_balance + interval);
	}
	rq->next_balance = next;
}

/* The kicked idle CPU, from its idle loop (IRQs off). */
void run_idle_balance(struct rq *rq)
{
	lockdep_assert_irqs_disabled();
	WRITE_ONCE(rq->idle_balance_kick, false);
	if (idle_cpu((int)rq->cpu))
		rebalance_domains(rq, CPU_IDLE, true);
}

/* A busy CPU with something to give asks an idle CPU to balance now
 * (Linux: nohz_balancer_kick; our idle CPUs keep their tick, so this only
 * shortens the wait). A misfit prefers the biggest idle CPU. */
static void kick_idle_balance(struct rq *rq)
{
	int best = -1;
	unsigned long best_cap = 0;

	if (rq->nr_running < 2 && !rq->misfit_task_load)
		return;
	for (int c = 0; c < NR_CPUS; c++) {
		if (!cpu_active((unsigned int)c) || c == (int)rq->cpu || !idle_cpu(c) ||
		    READ_ONCE(cpu_rq(c)->idle_balance_kick))
			continue;
		if (capacity_of((unsigned int)c) > best_cap) {
			best_cap = capacity_of((unsigned int)c);
			best = c;
		}
		if (!rq->misfit_task_load)
			break;
	}
	if (best < 0 || (rq->misfit_task_load && best_cap <= capacity_of(rq->cpu)))
		return;
	WRITE_ONCE(cpu_rq(best)->idle_balance_kick, true);
	resched_cpu((unsigned int)best);
}

/* From the tick (IRQ context, no rq lock held). */
void trigger_load_balance(struct rq *rq)
{
	u64 now = arch_clock_ns();

	lockdep_assert_not_held(&rq->lock);
	if (!rq->nr_sd || !cpu_active(rq->cpu))
		return;
	if (now >= rq->next_balance) {
		/* Linux: run_rebalance_domains() decays this CPU's blocked load first. */
		spin_lock(&rq->lock);
		update_blocked_averages(rq);
		spin_unlock(&rq->lock);
		rebalance_domains(rq, idle_cpu((int)rq->cpu) ? CPU_IDLE : CPU_NOT_IDLE, false);
	}
	if (now >= rq->balance_tick) {
		rq->balance_tick = now + TICK_NSEC;
		kick_idle_balance(rq);
	}
}
