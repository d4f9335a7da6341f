/* balance.c - CFS load balancing (Linux keeps it in fair.c; here it has its
 * own file to stay readable): sched domains from the topology, load_balance()
 * with group classification and calculate_imbalance by migration type (load,
 * util, task, misfit), detaching from the tail of rq->cfs_tasks, and active
 * balancing through the stop class. Its callers (the tick, newidle, NO_HZ
 * idle balancing) are in nohz.c. Locks: two rq locks, lowest CPU first
 * (double_rq_lock). Linux 6.1. */
#include "sched_internal.h"

enum migration_type { migrate_load, migrate_util, migrate_task, migrate_misfit };

#define SG_OVERLOAD	       0x1  /* some CPU has 2+ tasks or a misfit */
#define LBF_ALL_PINNED	       0x01 /* no task seen could run on dst_cpu */
#define LBF_NEED_BREAK	       0x02
#define LBF_DST_PINNED	       0x04 /* a task could not run on dst_cpu but on new_dst_cpu */
#define LBF_SOME_PINNED	       0x08 /* some task could not run on dst_cpu */
#define LBF_ACTIVE_LB	       0x10 /* the stop class moves it: cache hotness does not count */
#define MAX_PINNED_INTERVAL    512  /* ms */
#define SCHED_NR_MIGRATE_BREAK 32u  /* Linux: sched_nr_migrate_break */
const unsigned int sysctl_sched_nr_migrate = 32; /* Linux 6.1, !PREEMPT_RT */

struct lb_env {
	struct sched_domain *sd;
	struct rq *src_rq, *dst_rq;
	int src_cpu, dst_cpu;
	int new_dst_cpu;       /* LBF_DST_PINNED: another CPU of the local group p may use */
	cpumask_t cpus;	       /* the domain's active CPUs */
	cpumask_t dst_grpmask; /* the local group (Linux: group_balance_mask(sd->groups)) */
	enum cpu_idle_type idle;
	long imbalance;
	enum migration_type migration_type;
	unsigned int flags, loop, loop_max, loop_break;
};

int sched_rd_overload;

/* Linux: sgc->imbalance, one per sched group, shared by the group's CPUs: set by a
 * balance at the level below that left an imbalance because of affinity
 * (LBF_SOME_PINNED), cleared when one reaches balance with a task that could move.
 * Groups of one level do not overlap, so a group is named by its level and first
 * CPU. Written and read without locks, as Linux's. */
static int sg_imbalance[SD_NR_LEVELS][NR_CPUS];

static int *sg_imbalance_of(const struct sched_domain *sd, const cpumask_t *group)
{
	return &sg_imbalance[sd->level][cpumask_first(group)];
}

/* Linux: sg_imbalanced(). */
int sg_imbalanced(const struct sched_domain *sd, const cpumask_t *group)
{
	return READ_ONCE(*sg_imbalance_of(sd, group));
}

/* ---- domains ------------------------------------------------------------------------ */

/* Linux: sd_init()'s numbers for one level of one CPU. */
static void sd_init(struct sched_domain *sd, const struct topology_sd *tsd, int level)
{
	memset(sd, 0, sizeof(*sd));
	sd->level = level;
	sd->span = tsd->span;
	sd->flags = tsd->flags;
	sd->span_weight = cpumask_weight(&sd->span);
	sd->min_interval = sd->span_weight;
	sd->max_interval = 2 * sd->span_weight;
	sd->balance_interval = sd->min_interval;
	sd->busy_factor = 16;
	sd->imbalance_pct = 117;
	sd->cache_nice_tries = 1; /* MC (SD_SHARE_PKG_RESOURCES) and DIE alike */
	sd->last_balance = sched_jiffies();
	sd->last_decay_max_lb_cost = sd->last_balance;
}

/* Each active CPU's MC and DIE levels, the topology's spans recomputed over
 * cpu_active_mask (at boot, and by CPU hotplug inside stop_machine); the
 * groups of a level are the spans of the level below (CPUs under MC). */
void sched_domains_init(void)
{
	const struct topology *t = &cpu_topology;

	topology_build_sched_domains(&cpu_topology, cpu_active_mask);
	memset(sg_imbalance, 0, sizeof(sg_imbalance)); /* Linux: new groups, new sgc */
	sched_energy_update(); /* asymmetry and the policies' CPUs may have changed */
	for (int cpu = 0; cpu < t->nr_cpus; cpu++) {
		struct rq *rq = cpu_rq(cpu);
		cpumask_t prev_span = { { 0 } };

		rq->nr_sd = 0;
		rq->sd_asym_cpucapacity = NULL;
		for (int l = 0; l < SD_NR_LEVELS; l++) {
			const struct topology_sd *tsd = &t->cpu[cpu].sd[l];
			struct sched_domain *sd = &rq->sd[rq->nr_sd];
			cpumask_t left, g;
			int c;

			if (cpumask_empty(&tsd->span) || cpumask_equal(&tsd->span, &prev_span) ||
			    !rq->sd_groups) /* no memory at bring-up: no domains */
				continue;
			sd_init(sd, tsd, l);
			sd->groups = rq->sd_groups + (size_t)rq->nr_sd * (size_t)t->nr_cpus;
			/* Every level has SD_PREFER_SIBLING but the child of an
			 * asymmetric one: "don't spread across capacities". */
			sd->prefer_sibling = rq->nr_sd && !(sd->flags & SD_ASYM_CPUCAPACITY);
			/* Groups: the level below's spans (one CPU each at the lowest),
			 * even where this CPU dropped that level as degenerate (alone in
			 * its cluster): Linux's build_sched_groups() takes the child spans
			 * before sd_degenerate() drops the child. */
			left = sd->span;
			for_each_cpu(c, &left) {
				g = *cpumask_of(c);
				if (l > 0) {
					cpumask_and(&g, &t->cpu[c].sd[l - 1].span, &left);
					__cpumask_set_cpu((unsigned int)c, &g);
				}
				sd->groups[sd->nr_groups++] = g;
				cpumask_andnot(&left, &left, &g);
			}
			if (t->cpu[cpu].sd_asym_cpucapacity == l)
				rq->sd_asym_cpucapacity = sd;
			prev_span = sd->span;
			rq->nr_sd++;
		}
	}
}

/* ---- statistics of groups ---------------------------------------------------------- */

/* Linux: capacity_greater(): more than ~5 % apart. */
static bool capacity_greater(unsigned long a, unsigned long b)
{
	return a * 1024 > b * 1078;
}

/* Linux: group_has_capacity(): room for more work when a CPU of the group has
 * no task at all, or when both util and runnable stay under the capacity less
 * the domain's imbalance_pct margin (runnable catches waiting tasks util hides). */
static bool group_has_capacity(unsigned int pct, const struct sg_lb_stats *s)
{
	if (s->sum_nr_running < s->group_weight)
		return true;
	if (s->group_capacity * pct < s->group_runnable * 100)
		return false;
	return s->group_capacity * 100 > s->group_util * pct;
}

/* Linux: group_is_overloaded(): more tasks than CPUs, and util or runnable past
 * the capacity with the imbalance_pct margin: only then does load (avg_load)
 * decide what moves; below it the balancer counts tasks, idle CPUs or util. */
static bool group_is_overloaded(unsigned int pct, const struct sg_lb_stats *s)
{
	if (s->sum_nr_running <= s->group_weight)
		return false;
	return s->group_capacity * 100 < s->group_util * pct ||
	       s->group_capacity * pct < s->group_runnable * 100;
}

/* Linux: group_classify(), the most urgent state first: overloaded, then
 * imbalanced (a balance below failed because of affinity: sg_imbalanced()),
 * then a misfit task (too big for its CPU), then fully busy, else spare
 * capacity. group_asym_packing never arises here (no ASYM_PACKING machine). */
enum group_type group_classify(unsigned int pct, const struct sg_lb_stats *s, bool imbalanced)
{
	if (group_is_overloaded(pct, s))
		return group_overloaded;
	if (imbalanced)
		return group_imbalanced;
	if (s->group_misfit_task_load)
		return group_misfit_task;
	if (!group_has_capacity(pct, s))
		return group_fully_busy;
	return group_has_spare;
}

/* Linux: update_sg_lb_stats(). avg_load only for an overloaded group. */
static void update_sg_lb_stats(struct lb_env *env, const cpumask_t *group, struct sg_lb_stats *s,
			       bool local, int *sg_status)
{
	cpumask_t cpus;
	int c;

	memset(s, 0, sizeof(*s));
	s->min_capacity = ~0ul;
	cpumask_and(&cpus, group, &env->cpus);
	for_each_cpu(c, &cpus) {
		struct rq *rq = cpu_rq(c);
		unsigned long cap = capacity_of((unsigned int)c);
		unsigned int nr = rq->nr_running;

		s->group_weight++;
		s->group_load += cpu_load(rq);
		s->group_util += cpu_util(c);
		s->group_runnable += rq->cfs.avg.runnable_avg;
		s->sum_h_nr_running += rq->cfs.h_nr_running;
		s->sum_nr_running += nr;
		s->group_capacity += cap; /* Linux: sgc->capacity */
		s->max_capacity = MAX(s->max_capacity, cap);
		s->min_capacity = MIN(s->min_capacity, cap);
		if (nr > 1)
			*sg_status |= SG_OVERLOAD;
		if (cpu_overutilized(c)) /* false while EAS is off */
			*sg_status |= SG_OVERUTILIZED;
		if (!nr && idle_cpu(c)) {
			s->idle_cpus++;
			continue; /* an idle CPU has no misfit */
		}
		if (!local && (env->sd->flags & SD_ASYM_CPUCAPACITY) &&
		    s->group_misfit_task_load < rq->misfit_task_load) {
			s->group_misfit_task_load = rq->misfit_task_load;
			*sg_status |= SG_OVERLOAD;
		}
	}
	s->group_type = group_classify(env->sd->imbalance_pct, s, sg_imbalanced(env->sd, group));
	if (s->group_type == group_overloaded)
		s->avg_load = s->group_load * SCHED_CAPACITY_SCALE / s->group_capacity;
}

/* Linux: update_sd_pick_busiest(): the worse group_type is busier; on a tie,
 * the higher avg_load, the bigger misfit load, or fewer idle CPUs. A misfit
 * group we cannot help (dst not bigger, or local not spare) and, on an asym
 * domain, a group of bigger CPUs that is not overloaded are never busiest. */
static bool pick_busiest(struct lb_env *env, const struct sg_lb_stats *s,
			 const struct sg_lb_stats *busiest, const struct sg_lb_stats *local)
{
	if (!s->sum_h_nr_running)
		return false;
	/* Don't try to pull misfit tasks we can't help. */
	if (s->group_type == group_misfit_task &&
	    (!capacity_greater(capacity_of((unsigned int)env->dst_cpu), s->max_capacity) ||
	     local->group_type != group_has_spare))
		return false;
	if (s->group_type != busiest->group_type)
		return s->group_type > busiest->group_type;
	switch (s->group_type) {
	case group_overloaded:
	case group_fully_busy: /* avg_load 0 when fully busy: the first one wins */
		if (s->avg_load <= busiest->avg_load)
			return false;
		break;
	case group_imbalanced:
		return false;
	case group_misfit_task:
		if (s->group_misfit_task_load < busiest->group_misfit_task_load)
			return false;
		break;
	case group_has_spare:
		if (s->idle_cpus > busiest->idle_cpus)
			return false;
		if (s->idle_cpus == busiest->idle_cpus &&
		    s->sum_nr_running <= busiest->sum_nr_running)
			return false;
		break;
	}
	/* No more than one task per CPU on bigger CPUs: moving them down hurts. */
	if ((env->sd->flags & SD_ASYM_CPUCAPACITY) && s->group_type <= group_fully_busy &&
	    capacity_greater(s->min_capacity, capacity_of((unsigned int)env->dst_cpu)))
		return false;
	return true;
}

struct sd_lb_stats {
	struct sg_lb_stats local, busiest;
	int busiest_idx;
	unsigned long total_load, total_capacity, avg_load;
};

/* Linux: update_sd_lb_stats(): the local group first, as Linux's sd->groups
 * starts with it; the root level publishes rd->overload. */
static void update_sd_lb_stats(struct lb_env *env, struct sd_lb_stats *sds)
{
	struct sched_domain *sd = env->sd;
	int local_idx = 0, sg_status = 0;
	struct sg_lb_stats cur;

	memset(sds, 0, sizeof(*sds));
	sds->busiest_idx = -1;
	sds->busiest.idle_cpus = ~0u;
	for (int i = 0; i < sd->nr_groups; i++)
		if (cpumask_test_cpu(env->dst_cpu, &sd->groups[i]))
			local_idx = i;
	update_sg_lb_stats(env, &sd->groups[local_idx], &sds->local, true, &sg_status);
	sds->total_load = sds->local.group_load;
	sds->total_capacity = sds->local.group_capacity;
	for (int i = 0; i < sd->nr_groups; i++) {
		if (i == local_idx)
			continue;
		update_sg_lb_stats(env, &sd->groups[i], &cur, false, &sg_status);
		if (pick_busiest(env, &cur, &sds->busiest, &sds->local)) {
			sds->busiest = cur;
			sds->busiest_idx = i;
		}
		sds->total_load += cur.group_load;
		sds->total_capacity += cur.group_capacity;
	}
	if (sd == &env->dst_rq->sd[env->dst_rq->nr_sd - 1]) /* !sd->parent */
		WRITE_ONCE(sched_rd_overload, sg_status & SG_OVERLOAD);
	if (sched_energy_enabled())
		update_rd_overutilized_lb(sg_status,
					  sd == &env->dst_rq->sd[env->dst_rq->nr_sd - 1]);
}

/* ---- deciding what to move ------------------------------------------------------------ */

/* Linux: calculate_imbalance(), the has-spare local group: across LLCs with an
 * overloaded busiest, fill local's spare capacity (migrate_util); within an LLC,
 * even out task counts or idle CPUs, halved so that the two sides meet. */
static void imbalance_has_spare(struct lb_env *env, struct sd_lb_stats *sds)
{
	const struct sg_lb_stats *local = &sds->local, *busiest = &sds->busiest;

	if (busiest->group_type > group_fully_busy && !(env->sd->flags & SD_SHARE_PKG_RESOURCES)) {
		/* Fill the spare capacity of the local group. */
		env->migration_type = migrate_util;
		env->imbalance =
			(long)(MAX(local->group_capacity, local->group_util) - local->group_util);
		if (env->idle != CPU_NOT_IDLE && env->imbalance == 0) {
			env->migration_type = migrate_task;
			env->imbalance = 1;
		}
		return;
	}
	/* Within an LLC (or one CPU per group, or prefer_sibling): by count. */
	env->migration_type = migrate_task;
	if (busiest->group_weight == 1 || env->sd->prefer_sibling)
		env->imbalance =
			(long)busiest->sum_nr_running > (long)local->sum_nr_running
				? (long)busiest->sum_nr_running - (long)local->sum_nr_running
				: 0;
	else /* even out the idle CPUs */
		env->imbalance = MAX(0l, (long)local->idle_cpus - (long)busiest->idle_cpus);
	env->imbalance >>= 1;
}

/* Linux: calculate_imbalance(): how much to move and in what unit. A misfit
 * moves one task; an imbalanced group one task; spare local capacity is
 * filled by util or count; otherwise load, to bring both sides to the average. */
static void calculate_imbalance(struct lb_env *env, struct sd_lb_stats *sds)
{
	struct sg_lb_stats *local = &sds->local, *busiest = &sds->busiest;

	if (busiest->group_type == group_misfit_task) {
		if (env->sd->flags & SD_ASYM_CPUCAPACITY) {
			env->migration_type = migrate_misfit;
			env->imbalance = 1;
		} else { /* a CPU with reduced capacity: move its load */
			env->migration_type = migrate_load;
			env->imbalance = (long)busiest->group_misfit_task_load;
		}
		return;
	}
	if (busiest->group_type == group_imbalanced) {
		env->migration_type = migrate_task;
		env->imbalance = 1;
		return;
	}
	if (local->group_type == group_has_spare) {
		imbalance_has_spare(env, sds);
		return;
	}
	if (local->group_type < group_overloaded) {
		/* Local will become overloaded: avg_load is finally needed. */
		local->avg_load = local->group_load * SCHED_CAPACITY_SCALE / local->group_capacity;
		sds->avg_load = sds->total_load * SCHED_CAPACITY_SCALE / sds->total_capacity;
		if (local->avg_load >= busiest->avg_load || local->avg_load >= sds->avg_load) {
			env->imbalance = 0;
			return;
		}
	}
	env->migration_type = migrate_load;
	env->imbalance = (long)(MIN((busiest->avg_load - sds->avg_load) * busiest->group_capacity,
				    (sds->avg_load - local->avg_load) * local->group_capacity) /
				SCHED_CAPACITY_SCALE);
}

/* Linux: find_busiest_group(): the index of the busiest group of the domain,
 * or -1 when the domain is balanced (env->imbalance then 0). */
static int find_busiest_group(struct lb_env *env)
{
	struct sd_lb_stats sds;
	struct sg_lb_stats *local = &sds.local, *busiest = &sds.busiest;

	update_sd_lb_stats(env, &sds);
	env->imbalance = 0;
	if (sched_energy_skip_balance()) /* EAS places tasks while not overutilized */
		return -1;
	if (sds.busiest_idx < 0)
		return -1;
	if (busiest->group_type == group_misfit_task || busiest->group_type == group_imbalanced)
		goto force_balance;
	if (local->group_type > busiest->group_type)
		return -1;
	if (local->group_type == group_overloaded) { /* fairness between tasks */
		if (local->avg_load >= busiest->avg_load)
			return -1;
		sds.avg_load = sds.total_load * SCHED_CAPACITY_SCALE / sds.total_capacity;
		if (local->avg_load >= sds.avg_load)
			return -1;
		if (100 * busiest->avg_load <= env->sd->imbalance_pct * local->avg_load)
			return -1;
	}
	if (env->sd->prefer_sibling && local->group_type == group_has_spare &&
	    busiest->sum_nr_running > local->sum_nr_running + 1)
		goto force_balance;
	if (busiest->group_type != group_overloaded) {
		if (env->idle == CPU_NOT_IDLE)
			return -1; /* let an idle CPU pull */
		if (busiest->group_weight > 1 && local->idle_cpus <= busiest->idle_cpus + 1)
			return -1;
		if (busiest->sum_h_nr_running == 1)
			return -1; /* nothing waiting to run */
	}
force_balance:
	calculate_imbalance(env, &sds);
	return env->imbalance ? sds.busiest_idx : -1;
}

/* Linux: check_cpu_capacity(): RT, IRQ (or thermal) pressure took more than
 * imbalance_pct of the CPU's capacity. */
bool check_cpu_capacity(const struct rq *rq, const struct sched_domain *sd)
{
	return rq->cpu_capacity * sd->imbalance_pct < rq->cpu_capacity_orig * 100;
}

/* Linux: find_busiest_queue(): within the busiest group, the CPU that has most
 * of the unit being moved (load per capacity, util, tasks, misfit load). On an
 * asym domain a CPU whose one task would land on a CPU not bigger is skipped.
 * capacity_of(dst_cpu) once per scan (Linux reads it per CPU: the same value). */
static struct rq *find_busiest_queue(struct lb_env *env, const cpumask_t *group)
{
	unsigned long busiest_load = 0, busiest_cap = 1, busiest_util = 0;
	unsigned long dst_cap = capacity_of((unsigned int)env->dst_cpu);
	unsigned int busiest_nr = 0;
	struct rq *busiest = NULL;
	cpumask_t cpus;
	int c;

	cpumask_and(&cpus, group, &env->cpus);
	for_each_cpu(c, &cpus) {
		struct rq *rq = cpu_rq(c);
		unsigned long cap = capacity_of((unsigned int)c), load, util;
		unsigned int nr = rq->cfs.h_nr_running;

		if (!nr)
			continue;
		/* Never a lone task to a CPU that is not bigger: no high->low active balance. */
		if ((env->sd->flags & SD_ASYM_CPUCAPACITY) && !capacity_greater(dst_cap, cap) &&
		    nr == 1)
			continue;
		switch (env->migration_type) {
		case migrate_load:
			load = cpu_load(rq);
			if (nr == 1 && load > (unsigned long)env->imbalance &&
			    !check_cpu_capacity(rq, env->sd))
				break;
			/* The highest load / capacity. */
			if (load * busiest_cap > busiest_load * cap) {
				busiest_load = load;
				busiest_cap = cap;
				busiest = rq;
			}
			break;
		case migrate_util:
			util = cpu_util(c);
			if (nr > 1 && busiest_util < util) {
				busiest_util = util;
				busiest = rq;
			}
			break;
		case migrate_task:
			if (busiest_nr < nr) {
				busiest_nr = nr;
				busiest = rq;
			}
			break;
		case migrate_misfit:
			if (rq->misfit_task_load > busiest_load) {
				busiest_load = rq->misfit_task_load;
				busiest = rq;
			}
			break;
		}
	}
	return busiest;
}

/* ---- moving queued tasks -------------------------------------------------------------- */

/* Linux: task_hot(): ran within the migration cost, or is a buddy. */
static int task_hot(struct task_struct *p, struct lb_env *env)
{
	struct cfs_rq *cfs_rq = cfs_rq_of(&p->se);

	if (p->sched_class != &fair_sched_class || p->policy == SCHED_IDLE)
		return 0;
	if (sched_feat(CACHE_HOT_BUDDY) && env->dst_rq->nr_running &&
	    (&p->se == cfs_rq->next || &p->se == cfs_rq->last))
		return 1;
	if (sysctl_sched_migration_cost == 0)
		return 0;
	/* exec_start is 0 once the task migrated (migrate_task_rq_fair): cold. */
	return (s64)(env->src_rq->clock_task - p->se.exec_start) < (s64)sysctl_sched_migration_cost;
}

/* Linux: can_migrate_task(): allowed on dst and not running; for an active
 * balance that is all. Otherwise a cache-hot task stays unless the domain has
 * failed more than cache_nice_tries times. Clears LBF_ALL_PINNED on the way.
 * A task not allowed on dst marks LBF_SOME_PINNED and, outside newidle and
 * active balance, names the first CPU of the local group it may use
 * (LBF_DST_PINNED, new_dst_cpu): load_balance() tries again from there. */
static int can_migrate_task(struct task_struct *p, struct lb_env *env)
{
	unsigned int cpu;

	if (p->per_cpu_kthread)
		return 0;
	if (!cpumask_test_cpu(env->dst_cpu, &p->cpus_allowed)) {
		cpumask_t both;

		env->flags |= LBF_SOME_PINNED;
		if (env->idle == CPU_NEWLY_IDLE || env->flags & (LBF_DST_PINNED | LBF_ACTIVE_LB))
			return 0;
		cpumask_and(&both, &env->dst_grpmask, &env->cpus);
		for_each_cpu(cpu, &both) {
			if (cpumask_test_cpu(cpu, &p->cpus_allowed)) {
				env->flags |= LBF_DST_PINNED;
				env->new_dst_cpu = (int)cpu;
				break;
			}
		}
		return 0;
	}
	env->flags &= ~LBF_ALL_PINNED;
	if (task_running(env->src_rq, p) || p->se.sched_delayed) /* asleep: stays (EEVDF) */
		return 0;
	if (env->flags & LBF_ACTIVE_LB)
		return 1;
	if (sched_feat(SIS_DEBOUNCE) && p->placed_tick &&
	    p->placed_tick == tick_count(env->src_rq->cpu) + 1)
		return 0; /* placed in this very tick: cache hot there (E2) */
	return !task_hot(p, env) || env->sd->nr_balance_failed > env->sd->cache_nice_tries;
}

/* Linux: detach_task(): off busiest's queue and onto dst's CPU number (its
 * PELT leaves with it, migrate_task_rq_fair); attach_task() queues it on dst. */
static void detach_task(struct lb_env *env, struct task_struct *p)
{
	lockdep_assert_held(&env->src_rq->lock);
	why_note_move(p, env->src_cpu, env->dst_cpu, env->sd ? env->sd->level : -1, env->idle,
		      env->migration_type, env->flags & LBF_ACTIVE_LB);
	deactivate_task(env->src_rq, p, 0);
	set_task_cpu(p, (unsigned int)env->dst_cpu);
}

/* Linux: attach_task(): queued as a migrated task, then it may preempt dst's
 * current task (check_preempt_curr), as a wakeup would. */
static void attach_task(struct rq *rq, struct task_struct *p)
{
	lockdep_assert_held(&rq->lock);
	activate_task(rq, p, ENQUEUE_MIGRATED);
	p->on_rq = TASK_ON_RQ_QUEUED;
	check_preempt_curr(rq, p, 0);
}

/* Linux: detach_tasks()'s choice for one task: false to skip it. */
static bool detach_fits(struct lb_env *env, struct task_struct *p)
{
	unsigned long load, util;

	switch (env->migration_type) {
	case migrate_load:
		load = MAX(task_h_load(p), 1ul);
		/* Not too much load, less strict after each failure. */
		if ((env->sd->nr_balance_failed >= 64 ? 0 : load >> env->sd->nr_balance_failed) >
		    (unsigned long)env->imbalance)
			return false;
		env->imbalance -= (long)load;
		return true;
	case migrate_util:
		util = task_util_est_of(p);
		if (util > (unsigned long)env->imbalance)
			return false;
		env->imbalance -= (long)util;
		return true;
	case migrate_task:
		env->imbalance--;
		return true;
	case migrate_misfit:
		if (task_fits_cpu(p, env->src_cpu))
			return false;
		env->imbalance = 0;
		return true;
	}
	return false;
}

/* Linux: detach_tasks(): from the tail of cfs_tasks (the least recently
 * picked), skipped tasks rotate to the head. Both rq locks held. */
static int detach_tasks(struct lb_env *env, struct task_struct **moved, int max)
{
	struct list_head *tasks = &env->src_rq->cfs_tasks;
	int n = 0;

	if (env->src_rq->nr_running <= 1) {
		env->flags &= ~LBF_ALL_PINNED;
		return 0;
	}
	while (!list_empty(tasks) && env->imbalance > 0 && n < max) {
		struct task_struct *p;

		if (env->idle != CPU_NOT_IDLE && env->src_rq->nr_running <= 1)
			break; /* never empty the source while pulling for idle */
		env->loop++;
		if (env->loop > env->loop_max && !(env->flags & LBF_ALL_PINNED))
			break;
		if (env->loop > env->loop_break) {
			env->loop_break += SCHED_NR_MIGRATE_BREAK;
			env->flags |= LBF_NEED_BREAK;
			break;
		}
		p = list_last_entry(tasks, struct task_struct, se.group_node);
		if (!can_migrate_task(p, env) || !detach_fits(env, p)) {
			list_move(&p->se.group_node, tasks);
			continue;
		}
		detach_task(env, p);
		moved[n++] = p;
		if (env->idle == CPU_NEWLY_IDLE)
			break; /* CONFIG_PREEMPTION: newidle moves one task */
	}
	return n;
}

/* ---- active balance: move a running task with the stop class ------------------------ */

/* Linux: active_load_balance_cpu_stop(). Runs on the busiest CPU as its
 * stop task: the task we want is no longer running there (we are), so it
 * can be moved like a queued one: the last of cfs_tasks that may go. */
static int active_load_balance_cpu_stop(void *data)
{
	struct rq *busiest = data, *target;
	struct task_struct *p = NULL;
	unsigned long flags = arch_irq_save();
	struct lb_env env = { .idle = CPU_IDLE, .flags = LBF_ACTIVE_LB };

	target = cpu_rq(busiest->push_cpu);
	double_rq_lock(busiest, target);
	busiest->lb.alb_count++;
	for (int i = 0; i < target->nr_sd && !env.sd; i++) /* a domain spanning both */
		if (cpumask_test_cpu(busiest->cpu, &target->sd[i].span))
			env.sd = &target->sd[i];
	if (busiest->active_balance && cpu_active(target->cpu) && cpu_active(busiest->cpu) &&
	    busiest->nr_running > 1 && env.sd) {
		struct task_struct *q;

		env.src_rq = busiest;
		env.dst_rq = target;
		env.src_cpu = (int)busiest->cpu;
		env.dst_cpu = (int)target->cpu;
		update_rq_clock(busiest);
		update_rq_clock(target);
		for (struct list_head *n = busiest->cfs_tasks.prev; n != &busiest->cfs_tasks && !p;
		     n = n->prev) {
			q = list_entry(n, struct task_struct, se.group_node);
			if (can_migrate_task(q, &env))
				p = q;
		}
		if (p) {
			detach_task(&env, p);
			attach_task(target, p);
			busiest->lb.alb_pushed++;
			p->stats.nr_forced_migrations++;
			env.sd->nr_balance_failed = 0;
		}
	}
	busiest->active_balance = 0;
	double_rq_unlock(busiest, target);
	arch_irq_restore(flags);
	return 0;
}

/* Linux: need_active_balance(): push busiest's running task out through its
 * stopper when nothing queued could move and either the spread keeps failing
 * (pinned tasks), RT/IRQ squeeze a lone task on a smaller CPU, or it is a misfit. */
static bool need_active_balance(struct lb_env *env)
{
	struct sched_domain *sd = env->sd;

	/* Pinned tasks or an uneven spread that failed too often. */
	if (env->migration_type == migrate_task && sd->nr_balance_failed > sd->cache_nice_tries + 2)
		return true;
	/* One CFS task on a CPU that RT/IRQ squeeze, and more room on dst. */
	if (env->idle != CPU_NOT_IDLE && env->src_rq->cfs.h_nr_running == 1 &&
	    check_cpu_capacity(env->src_rq, sd) &&
	    capacity_of((unsigned int)env->src_cpu) * sd->imbalance_pct <
		    capacity_of((unsigned int)env->dst_cpu) * 100)
		return true;
	return env->migration_type == migrate_misfit;
}

/* Linux: should_we_balance(): newidle always; otherwise only the first idle
 * CPU of the local group, or its first CPU if none is idle, balances this
 * level for the group. */
static bool should_we_balance(struct lb_env *env)
{
	cpumask_t group = { { 0 } };
	int c;

	if (!cpumask_test_cpu(env->dst_cpu, &env->cpus))
		return false;
	if (env->idle == CPU_NEWLY_IDLE)
		return !env->dst_rq->nr_running;
	for (int i = 0; i < env->sd->nr_groups; i++)
		if (cpumask_test_cpu(env->dst_cpu, &env->sd->groups[i]))
			cpumask_and(&group, &env->sd->groups[i], &env->cpus);
	for_each_cpu(c, &group)
		if (idle_cpu(c))
			return c == env->dst_cpu;
	return !cpumask_empty(&group) && (int)cpumask_first(&group) == env->dst_cpu;
}

/* ---- load_balance ----------------------------------------------------------------- */

/* Lock busiest (this rq too unless newidle holds it), move, unlock. A
 * newidle pass that cannot take busiest's lock in order simply fails
 * (Linux: double_lock_balance). Returns the tasks moved, -1 if not locked. */
static int move_tasks(struct lb_env *env, bool this_locked)
{
	struct task_struct *moved[SCHED_NR_MIGRATE_BREAK];
	struct rq *busiest = env->src_rq, *this_rq = env->dst_rq;
	int n;

	if (!this_locked)
		double_rq_lock(this_rq, busiest);
	else if (busiest->cpu > this_rq->cpu)
		spin_lock(&busiest->lock);
	else if (!spin_trylock(&busiest->lock))
		return -1;
	update_rq_clock(this_rq);
	update_rq_clock(busiest);
	n = detach_tasks(env, moved, (int)ARRAY_SIZE(moved));
	for (int i = 0; i < n; i++)
		attach_task(this_rq, moved[i]);
	if (DEBUG_SCHED_ENABLED)
		sched_debug_check_rqs(this_rq, busiest);
	if (this_locked)
		spin_unlock(&busiest->lock);
	else
		double_rq_unlock(this_rq, busiest);
	return n;
}

/* Ask busiest's stopper to push its running task to this CPU: 1 asked, 0 not
 * (one is pending already), -1 the running task may not run here. Newidle
 * holds this rq's lock inside __schedule(), where waking the stopper would
 * take pi_lock after an rq lock: it leaves the request to its idle loop. */
static int start_active_balance(struct lb_env *env, struct rq *this_rq, bool this_locked)
{
	struct rq *busiest = env->src_rq;
	bool active = false, pinned;

	if (!this_locked)
		spin_lock(&busiest->lock);
	else if (busiest->cpu < this_rq->cpu && !spin_trylock(&busiest->lock))
		return 0;
	else if (busiest->cpu > this_rq->cpu)
		spin_lock(&busiest->lock);
	pinned = !cpumask_test_cpu((int)this_rq->cpu, &busiest->curr->cpus_allowed);
	if (!pinned && !busiest->active_balance) {
		busiest->active_balance = 1;
		busiest->push_cpu = (int)this_rq->cpu;
		active = true;
	}
	spin_unlock(&busiest->lock);
	if (!active)
		return pinned ? -1 : 0;
	if (env->migration_type == migrate_misfit)
		this_rq->lb.misfit_pulls++;
	if (this_locked)
		WRITE_ONCE(this_rq->active_balance_deferred, (int)busiest->cpu + 1);
	else if (stop_one_cpu_nowait(busiest->cpu, active_load_balance_cpu_stop, busiest))
		WRITE_ONCE(busiest->active_balance, 0); /* its stop queue is full */
	return 1;
}

/* From this CPU's idle loop: the stopper request newidle had to leave. */
void run_deferred_active_balance(struct rq *rq)
{
	int cpu = READ_ONCE(rq->active_balance_deferred) - 1;

	if (cpu < 0)
		return;
	WRITE_ONCE(rq->active_balance_deferred, 0);
	if (stop_one_cpu_nowait((unsigned int)cpu, active_load_balance_cpu_stop, cpu_rq(cpu)))
		WRITE_ONCE(cpu_rq(cpu)->active_balance, 0);
}

/* Linux: the tail of load_balance() after a pass that found an imbalance
 * and moved nothing. False: busiest's running task is pinned away from us
 * (Linux: goto out_one_pinned). */
static bool balance_failed(struct lb_env *env, struct rq *this_rq, bool this_locked)
{
	struct sched_domain *sd = env->sd;
	int active = 0;

	this_rq->lb.lb_failed[env->idle]++;
	/* Only periodic balance counts failures: newidle is too frequent. */
	if (env->idle != CPU_NEWLY_IDLE)
		sd->nr_balance_failed++;
	if (need_active_balance(env) &&
	    (active = start_active_balance(env, this_rq, this_locked)) < 0)
		return false;
	/* We were unbalanced: reset the interval (Linux: unless an active
	 * balance started for a reason need_active_balance() no longer sees). */
	if (!active || need_active_balance(env))
		sd->balance_interval = sd->min_interval;
	return true;
}

/* The run-queue invariants of this rq at every balance (stats.c): a broken
 * count or tree is reported where the balancer would act on it. */
static void lb_debug_check(struct rq *this_rq, bool this_locked)
{
	if (!this_locked)
		spin_lock(&this_rq->lock);
	sched_debug_check_rqs(this_rq, this_rq);
	if (!this_locked)
		spin_unlock(&this_rq->lock);
}

/* Linux: load_balance()'s more_balance loop over busiest, a breather every
 * SCHED_NR_MIGRATE_BREAK tasks; while an imbalance is left because a task
 * could not run on dst but could on another CPU of the local group
 * (LBF_DST_PINNED), again from busiest with that CPU as dst (dst_cpu leaves
 * env->cpus, so it is not chosen again). Returns the tasks moved, -1 when
 * newidle could not lock busiest. */
static int balance_busiest(struct lb_env *env, bool this_locked)
{
	struct rq *busiest = env->src_rq;
	int moved = 0, n;

	env->flags |= LBF_ALL_PINNED;
	env->loop = 0;
	env->loop_break = SCHED_NR_MIGRATE_BREAK;
	if (busiest->nr_running <= 1)
		return 0;
	env->loop_max = MIN(sysctl_sched_nr_migrate, busiest->nr_running);
	for (;;) {
		do {
			env->flags &= ~LBF_NEED_BREAK;
			n = move_tasks(env, this_locked);
			moved += MAX(n, 0);
		} while (n >= 0 && (env->flags & LBF_NEED_BREAK) &&
			 env->loop < busiest->nr_running);
		if (n < 0)
			return -1;
		if (!(env->flags & LBF_DST_PINNED) || env->imbalance <= 0)
			return moved;
		/* never newidle (can_migrate_task()): this rq is not held */
		__cpumask_clear_cpu((unsigned int)env->dst_cpu, &env->cpus);
		env->dst_cpu = env->new_dst_cpu;
		env->dst_rq = cpu_rq(env->new_dst_cpu);
		env->flags &= ~LBF_DST_PINNED;
		env->loop = 0;
		env->loop_break = SCHED_NR_MIGRATE_BREAK;
	}
}

/* The parent level's group of this CPU (Linux: sd->parent->groups, its
 * first group, whose sgc->imbalance a balance here marks); NULL at the top. */
static int *parent_group_imbalance(struct rq *this_rq, struct sched_domain *sd)
{
	struct sched_domain *parent;

	if (sd == &this_rq->sd[this_rq->nr_sd - 1])
		return NULL;
	parent = sd + 1;
	for (int i = 0; i < parent->nr_groups; i++)
		if (cpumask_test_cpu(this_rq->cpu, &parent->groups[i]))
			return sg_imbalance_of(parent, &parent->groups[i]);
	return NULL;
}

/* Linux: load_balance(). IRQs off; called without rq locks, or (newidle)
 * with this_cpu's rq locked, which then stays locked throughout: dropping it
 * in the middle of __schedule() would expose a half-switched prev. Returns
 * the tasks pulled; *continue_balancing = 0 when another CPU of the local
 * group balances this level (should_we_balance). */
int load_balance(int this_cpu, struct sched_domain *sd, enum cpu_idle_type idle, bool this_locked,
		 int *continue_balancing)
{
	struct rq *this_rq = cpu_rq(this_cpu), *busiest;
	struct lb_env env = { .sd = sd, .dst_cpu = this_cpu, .dst_rq = this_rq, .idle = idle };
	int *group_imbalance = parent_group_imbalance(this_rq, sd);
	int gi, moved;

	cpumask_and(&env.cpus, &sd->span, cpu_active_mask);

	lockdep_assert_irqs_disabled();
	if (this_locked)
		lockdep_assert_held(&this_rq->lock);
	if (DEBUG_SCHED_ENABLED) /* the invariant checker at every balance */
		lb_debug_check(this_rq, this_locked);
	this_rq->lb.lb_count[idle]++;
	sd->lb_count[idle]++;
	for (int i = 0; i < sd->nr_groups; i++)
		if (cpumask_test_cpu(this_cpu, &sd->groups[i]))
			env.dst_grpmask = sd->groups[i];
redo:
	if (!should_we_balance(&env)) {
		*continue_balancing = 0;
		goto out_balanced;
	}
	/* Linux: update_sd_lb_stats() -> update_group_capacity() -> update_cpu_capacity()
	 * for the local group at the lowest level (newidle: at most once an interval). */
	if (sd == &this_rq->sd[0] && idle != CPU_NEWLY_IDLE)
		update_cpu_capacity(this_rq);
	gi = find_busiest_group(&env);
	if (gi < 0)
		sd->lb_nobusyg[idle]++;
	busiest = gi < 0 ? NULL : find_busiest_queue(&env, &sd->groups[gi]);
	if (!busiest)
		goto out_balanced;
	env.src_rq = busiest;
	env.src_cpu = (int)busiest->cpu;
	moved = balance_busiest(&env, this_locked);
	if (moved < 0)
		goto out_one_pinned; /* newidle could not lock busiest: give up */
	/* Affinity kept us from reaching balance: the parent level sees this
	 * group as imbalanced (group_imbalanced) until a balance here succeeds. */
	if (group_imbalance && (env.flags & LBF_SOME_PINNED) && env.imbalance > 0)
		WRITE_ONCE(*group_imbalance, 1);
	if (!moved && (env.flags & LBF_ALL_PINNED) && busiest->nr_running > 1) {
		/* Every task there is pinned: try the other CPUs. */
		cpumask_t rest;

		__cpumask_clear_cpu(busiest->cpu, &env.cpus);
		if (cpumask_andnot(&rest, &env.cpus, &env.dst_grpmask))
			goto redo;
		goto out_all_pinned;
	}
	if (moved) {
		this_rq->lb.lb_gained[idle] += (u64)moved;
		sd->nr_balance_failed = 0;
		sd->balance_interval = sd->min_interval;
		return moved;
	}
	if (balance_failed(&env, this_rq, this_locked))
		return 0;
	goto out_one_pinned;
out_balanced:
	/* Balanced although some tasks may have been pinned: clear the parent's
	 * mark only if other tasks had a chance to move. */
	if (group_imbalance && !(env.flags & LBF_ALL_PINNED) && READ_ONCE(*group_imbalance))
		WRITE_ONCE(*group_imbalance, 0);
out_all_pinned:
	this_rq->lb.lb_balanced[idle]++;
	sd->nr_balance_failed = 0;
out_one_pinned:
	/* Newidle disregards intervals: it must not make them grow. */
	if (idle != CPU_NEWLY_IDLE &&
	    ((env.flags & LBF_ALL_PINNED && sd->balance_interval < MAX_PINNED_INTERVAL) ||
	     sd->balance_interval < sd->max_interval))
		sd->balance_interval *= 2;
	return 0;
}

/* experiment=cost (kernel/bench): emulated ns of one load-balance pass's
 * statistics at this CPU's top domain - find_busiest_group(), which reads
 * every CPU of the domain once - averaged over `loops`, IRQs off, as a CPU_IDLE
 * balance would run it. Moves nothing. 0 without a domain. */
u64 sched_lb_pass_cost_ns(unsigned int loops)
{
	struct rq *rq = this_rq();
	struct lb_env env = { .dst_cpu = (int)rq->cpu, .dst_rq = rq, .idle = CPU_IDLE };
	unsigned long flags;
	u64 t0, ns;

	if (!rq->nr_sd || !loops)
		return 0;
	env.sd = &rq->sd[rq->nr_sd - 1];
	cpumask_and(&env.cpus, &env.sd->span, cpu_active_mask);
	flags = arch_irq_save();
	t0 = arch_clock_ns();
	for (unsigned int i = 0; i < loops; i++)
		find_busiest_group(&env);
	ns = arch_clock_ns() - t0;
	arch_irq_restore(flags);
	return ns / loops;
}
