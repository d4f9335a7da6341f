/* fair_select.c - which CPU a CFS task runs on: each CPU's capacity and CFS
 * utilization, the fit checks (util_fits_cpu, misfit), wakeup placement (wake_affine,
 * select_idle_sibling / select_idle_capacity, ASYM_PREFER_PREV, SIS_DEBOUNCE) and fork
 * placement (find_idlest_cpu), behind select_task_rq_fair(). Not EAS's choice
 * (fair_energy.c) nor moves after placement (balance.c). A placement holds the task's
 * pi_lock and reads other run queues unlocked (hints, as in Linux); a CPU's capacity and
 * misfit flag are written under its rq->lock. Linux: kernel/sched/fair.c. */
#include "cpuidle.h"
#include "sched_internal.h"

/* ---- capacity (arch_scale_*: kernel/arch_topology.c) -------------------------------- */

unsigned long capacity_orig_of(unsigned int cpu)
{
	return cpu_rq(cpu)->cpu_capacity_orig;
}

unsigned long capacity_of(unsigned int cpu)
{
	return READ_ONCE(cpu_rq(cpu)->cpu_capacity);
}

/* Linux: scale_rt_capacity(): what RT, DL and IRQ leave to CFS. */
void update_cpu_capacity(struct rq *rq)
{
	unsigned long max = rq->cpu_capacity_orig, irq = rq->avg_irq.util_avg, used;

	if (irq >= max) {
		rq->cpu_capacity = 1;
		return;
	}
	used = READ_ONCE(rq->avg_rt.util_avg) + READ_ONCE(rq->avg_dl.util_avg);
	used = used < max ? max - used : 0;
	used = used * (max - irq) / max; /* scale_irq_capacity() */
	rq->cpu_capacity = used ? used : 1;
}

/* Linux: cpu_util_cfs() - util_avg or util_est, whichever is larger. */
unsigned long cpu_util(int cpu)
{
	struct cfs_rq *cfs_rq = &cpu_rq(cpu)->cfs;

	return pelt_cpu_util_cfs(READ_ONCE(cfs_rq->avg.util_avg),
				 sched_feat(UTIL_EST) ? READ_ONCE(cfs_rq->avg.util_est.enqueued)
						      : 0,
				 capacity_orig_of((unsigned int)cpu));
}

unsigned long cpu_util_cfs(unsigned int cpu)
{
	return cpu_util((int)cpu);
}

/* What update_cpu_capacity() subtracts (the shell's cpus shows them). */
unsigned long cpu_util_rt(unsigned int cpu)
{
	return READ_ONCE(cpu_rq(cpu)->avg_rt.util_avg);
}

unsigned long cpu_util_irq(unsigned int cpu)
{
	return READ_ONCE(cpu_rq(cpu)->avg_irq.util_avg);
}

unsigned long task_util(const struct task_struct *p)
{
	return READ_ONCE(p->se.avg.util_avg);
}

unsigned long task_util_est_of(const struct task_struct *p)
{
	if (!sched_feat(UTIL_EST))
		return task_util(p);
	return task_util_est(task_util(p), p->se.avg.util_est);
}

/* Linux 6.1.192: util_fits_cpu(). 1: fits; 0: does not; -1: util fits (or uclamp.max caps
 * the task below this CPU's capacity_orig) but uclamp.min asks more than capacity_orig
 * (less thermal pressure, none here) gives: look for a bigger CPU. The -1 form is
 * upstream's "sched/fair: unlink misfit task from cpu overutilized" (v6.3), backported to
 * 6.1.y with its callers: task_fits_cpu() and asym_fits_cpu() want 1, cpu_overutilized()
 * and find_energy_efficient_cpu() take -1 as "fits" (the latter ranks it below 1),
 * select_idle_capacity() ranks it above 0. */
int util_fits_cpu(unsigned long util, unsigned long umin, unsigned long umax, int cpu)
{
	unsigned long cap = capacity_of((unsigned int)cpu);
	unsigned long cap_orig = capacity_orig_of((unsigned int)cpu);
	bool fits = fits_capacity(util, cap), umax_fits;

	if (!uclamp_is_used())
		return fits;
	/* A task capped below this CPU's capacity fits it whatever its util,
	 * except on the biggest CPU with no cap at all. */
	umax_fits = !(cap_orig == SCHED_CAPACITY_SCALE && umax == SCHED_CAPACITY_SCALE) &&
		    umax <= cap_orig;
	fits = fits || umax_fits;
	umin = MIN(umin, umax);
	if (fits && util < umin && umin > cap_orig)
		return -1;
	return fits;
}

bool task_fits_cpu(const struct task_struct *p, int cpu)
{
	return util_fits_cpu(task_util_est_of(p), uclamp_eff_value(p, UCLAMP_MIN),
			     uclamp_eff_value(p, UCLAMP_MAX), cpu) > 0;
}

/* A task too big for its CPU, on an asymmetric system: balance.c pulls it. */
void update_misfit_status(struct task_struct *p, struct rq *rq)
{
	lockdep_assert_held(&rq->lock);
	if (!cpu_topology.asym_cpucapacity || !sched_feat(MISFIT)) {
		rq->misfit_task_load = 0; /* no flag outlives NO_MISFIT */
		return;
	}
	if (!p || p->nr_cpus_allowed == 1 || task_fits_cpu(p, (int)rq->cpu)) {
		rq->misfit_task_load = 0;
		return;
	}
	rq->misfit_task_load = MAX(task_h_load(p), 1ul);
}

unsigned long cpu_load(const struct rq *rq)
{
	return rq->cfs.avg.load_avg;
}

bool idle_cpu(int cpu)
{
	struct rq *rq = cpu_rq(cpu);

	return READ_ONCE(rq->curr) == rq->idle && !READ_ONCE(rq->nr_running);
}

/* ---- wakeup placement ---------------------------------------------------------------- */

static bool available_idle_cpu(int cpu)
{
	return cpu_active((unsigned int)cpu) && idle_cpu(cpu);
}

static bool cpus_share_cache(int a, int b)
{
	struct rq *rq = cpu_rq(a);

	return rq->nr_sd && cpumask_test_cpu(b, &rq->sd[0].span);
}

/* SIS_DEBOUNCE (E2): was the task placed in the current tick of its CPU? */
static bool placed_this_tick(const struct task_struct *p)
{
	return p->placed_tick && p->placed_tick == tick_count((unsigned int)p->cpu) + 1;
}

/* SIS_DEBOUNCE (E2): a wakee that has not run for the migration cost has
 * nothing in any cache; it is not pulled to the waker's LLC but balanced
 * within prev's. (Read without prev's rq lock: a hint, as in Linux.) */
static bool cache_cold(const struct task_struct *p)
{
	return READ_ONCE(task_rq(p)->clock_task) - p->se.exec_start >= sysctl_sched_migration_cost;
}

/* Linux: sched_idle_cpu(): only SCHED_IDLE tasks run there. */
static bool sched_idle_cpu(int cpu)
{
	struct rq *rq = cpu_rq(cpu);

	return rq->nr_running && rq->nr_running == rq->cfs.idle_h_nr_running;
}

/* Linux 6.1.192: select_idle_capacity() (5.7, with util_fits_cpu()'s ranking): the first
 * idle CPU (or one running only SCHED_IDLE tasks) of the asymmetric domain, scanning from
 * target, that fits the task fully; else the best fit (-1, only uclamp.min misses, before
 * 0), the most capacity among equals (capacity_orig for a -1: the boost is what is asked);
 * -1 if none is idle. */
int select_idle_capacity(struct task_struct *p, const cpumask_t *span, int target)
{
	unsigned long util = task_util_est_of(p), umin = uclamp_eff_value(p, UCLAMP_MIN);
	unsigned long umax = uclamp_eff_value(p, UCLAMP_MAX), best_cap = 0;
	int best = -1, best_fits = 0, cpu;
	cpumask_t cpus;

	cpumask_and(&cpus, span, &p->cpus_allowed);
	for_each_cpu_wrap(cpu, &cpus, (unsigned int)target)
	{
		unsigned long cap = capacity_of((unsigned int)cpu);
		int fits;

		if (!available_idle_cpu(cpu) && !sched_idle_cpu(cpu))
			continue;
		fits = util_fits_cpu(util, umin, umax, cpu);
		if (fits > 0)
			return cpu;
		if (fits < 0)
			cap = capacity_orig_of((unsigned int)cpu);
		if (fits < best_fits || (fits == best_fits && cap > best_cap)) {
			best_cap = cap;
			best = cpu;
			best_fits = fits;
		}
	}
	return best;
}

static bool asym_fits_cpu(struct task_struct *p, unsigned long util, int cpu)
{
	if (!cpu_topology.asym_cpucapacity)
		return true;
	return util_fits_cpu(util, uclamp_eff_value(p, UCLAMP_MIN), uclamp_eff_value(p, UCLAMP_MAX),
			     cpu) > 0;
}

/* Linux: select_idle_cpu() over the LLC domain (our MC level): first idle. */
static int select_idle_cpu(struct task_struct *p, int target)
{
	struct rq *rq = cpu_rq(target);
	cpumask_t cpus;
	int cpu;

	cpumask_and(&cpus, rq->nr_sd ? &rq->sd[0].span : cpumask_of(target), &p->cpus_allowed);
	for_each_cpu_wrap(cpu, &cpus, (unsigned int)target) if (available_idle_cpu(cpu)) return cpu;
	return -1;
}

/* Linux: select_idle_sibling(). With ASYM_PREFER_PREV (Linux >= 5.10) an
 * idle target, prev or recently used CPU on which the task fits is taken
 * before any scan; without it (5.7-5.9) asymmetric systems scan at once.
 * *rule: the step that chose, for the shell's `why` (Linux has no such out). */
static int select_idle_sibling(struct task_struct *p, int prev, int target, enum why_rule *rule)
{
	struct rq *rq = cpu_rq(target);
	bool asym = cpu_topology.asym_cpucapacity && sched_feat(SELECT_IDLE_CAPACITY) &&
		    rq->sd_asym_cpucapacity;
	unsigned long util = task_util_est_of(p); /* the clamps go separately */
	int recent = p->recent_used_cpu, i;

	if (asym && !sched_feat(ASYM_PREFER_PREV)) {
		i = select_idle_capacity(p, &rq->sd_asym_cpucapacity->span, target);
		*rule = i >= 0 ? WHY_IDLE_CAPACITY : WHY_NO_IDLE;
		return i >= 0 ? i : target;
	}
	*rule = WHY_TARGET_IDLE;
	if ((available_idle_cpu(target) || sched_idle_cpu(target)) &&
	    asym_fits_cpu(p, util, target))
		return target;
	*rule = WHY_PREV_IDLE;
	if (prev != target && cpus_share_cache(prev, target) &&
	    (available_idle_cpu(prev) || sched_idle_cpu(prev)) && asym_fits_cpu(p, util, prev))
		return prev;
	*rule = WHY_RECENT_IDLE;
	if (recent >= 0 && recent != prev && recent != target && cpus_share_cache(recent, target) &&
	    (available_idle_cpu(recent) || sched_idle_cpu(recent)) &&
	    cpumask_test_cpu(recent, &p->cpus_allowed) && asym_fits_cpu(p, util, recent)) {
		p->recent_used_cpu = prev;
		return recent;
	}
	*rule = asym ? WHY_IDLE_CAPACITY : WHY_IDLE_CPU;
	i = asym ? select_idle_capacity(p, &rq->sd_asym_cpucapacity->span, target)
		 : select_idle_cpu(p, target);
	if (i < 0)
		*rule = WHY_NO_IDLE;
	return i >= 0 ? i : target;
}

/* Linux: wake_wide() - a waker with many wakees spreads them instead of
 * pulling them all to itself. */
static void record_wakee(struct task_struct *p)
{
	struct task_struct *curr = current;
	u64 now = arch_clock_ns();

	if (now - curr->wakee_flip_decay_ts > NSEC_PER_SEC) {
		curr->wakee_flips >>= 1;
		curr->wakee_flip_decay_ts = now;
	}
	if (curr->last_wakee != p) {
		curr->last_wakee = p;
		curr->wakee_flips++;
	}
}

static bool wake_wide(struct task_struct *p)
{
	unsigned int master = current->wakee_flips, slave = p->wakee_flips;
	unsigned int factor = cpu_rq(arch_cpu_id())->nr_sd
				      ? cpumask_weight(&cpu_rq(arch_cpu_id())->sd[0].span)
				      : 1;

	if (master < slave) {
		unsigned int t = master;

		master = slave;
		slave = t;
	}
	return !(slave < factor || master < slave * factor);
}

/* ---- fork placement: Linux's slow path ------------------------------------------------ */

/* Linux: update_sg_wakeup_stats(). p is a new task here (fork is the only slow path:
 * SD_BALANCE_WAKE is off, there is no exec), in no CPU's sums, so Linux's *_without(p)
 * helpers reduce to the plain values. On an asymmetric domain the group counts as
 * misfit unless p fits one of its CPUs. */
static void update_sg_wakeup_stats(struct sched_domain *sd, const cpumask_t *group,
				   struct sg_lb_stats *sgs, struct task_struct *p)
{
	unsigned int i;

	memset(sgs, 0, sizeof(*sgs));
	if (sd->flags & SD_ASYM_CPUCAPACITY)
		sgs->group_misfit_task_load = 1;
	for_each_cpu(i, group) {
		struct rq *rq = cpu_rq(i);

		sgs->group_load += cpu_load(rq);
		sgs->group_util += cpu_util((int)i);
		sgs->group_runnable += rq->cfs.avg.runnable_avg;
		sgs->sum_h_nr_running += rq->cfs.h_nr_running;
		sgs->sum_nr_running += rq->nr_running;
		if (!rq->nr_running && idle_cpu((int)i))
			sgs->idle_cpus++;
		if ((sd->flags & SD_ASYM_CPUCAPACITY) && sgs->group_misfit_task_load &&
		    task_fits_cpu(p, (int)i))
			sgs->group_misfit_task_load = 0;
		sgs->group_capacity += capacity_of(i);
		sgs->max_capacity = MAX(sgs->max_capacity, capacity_of(i));
	}
	sgs->group_weight = cpumask_weight(group);
	sgs->group_type = group_classify(sd->imbalance_pct, sgs, sg_imbalanced(sd, group));
	if (sgs->group_type == group_fully_busy || sgs->group_type == group_overloaded)
		sgs->avg_load = sgs->group_load * SCHED_CAPACITY_SCALE / sgs->group_capacity;
}

/* Linux: update_pick_idlest(): is sgs idler than idlest? The least busy type; then the
 * lowest avg_load, the biggest CPU (misfit), or the most idle CPUs and the lowest util. */
static bool update_pick_idlest(const struct sg_lb_stats *idlest, const struct sg_lb_stats *sgs)
{
	if (sgs->group_type != idlest->group_type)
		return sgs->group_type < idlest->group_type;
	switch (sgs->group_type) {
	case group_overloaded:
	case group_fully_busy:
		return idlest->avg_load > sgs->avg_load;
	case group_misfit_task:
		return idlest->max_capacity < sgs->max_capacity;
	case group_has_spare:
		if (idlest->idle_cpus != sgs->idle_cpus)
			return idlest->idle_cpus < sgs->idle_cpus;
		return idlest->group_util > sgs->group_util;
	case group_imbalanced: /* not used on the fork path (as in Linux) */
		return false;
	}
	return false;
}

/* Linux 6.1: find_idlest_group(): the index of the idlest group of sd that p may use, or
 * -1 to stay in the local group (the one of this_cpu) when it is no busier: of a lower
 * type, within imbalance_pct on load, of as big a CPU, or with as many idle CPUs. */
static int find_idlest_group(struct sched_domain *sd, struct task_struct *p, int this_cpu)
{
	struct sg_lb_stats local = { 0 },
			   idlest = { .avg_load = ~0ul, .group_type = group_overloaded }, sgs;
	int idlest_g = -1, local_g = -1;
	unsigned long imbalance;

	for (int g = 0; g < sd->nr_groups; g++) {
		if (!cpumask_intersects(&sd->groups[g], &p->cpus_allowed))
			continue;
		if (cpumask_test_cpu(this_cpu, &sd->groups[g])) {
			local_g = g;
			update_sg_wakeup_stats(sd, &sd->groups[g], &local, p);
			continue;
		}
		update_sg_wakeup_stats(sd, &sd->groups[g], &sgs, p);
		if (update_pick_idlest(&idlest, &sgs)) {
			idlest_g = g;
			idlest = sgs;
		}
	}
	if (idlest_g < 0 || local_g < 0)
		return idlest_g; /* nowhere to go, or the local group is not allowed */
	if (local.group_type != idlest.group_type)
		return local.group_type < idlest.group_type ? -1 : idlest_g;
	switch (local.group_type) {
	case group_overloaded:
	case group_fully_busy:
		imbalance = NICE_0_LOAD * (sd->imbalance_pct - 100) / 100;
		if (idlest.avg_load >= local.avg_load + imbalance)
			return -1;
		if (100 * local.avg_load <= sd->imbalance_pct * idlest.avg_load)
			return -1;
		break;
	case group_misfit_task:
		if (local.max_capacity >= idlest.max_capacity)
			return -1;
		break;
	case group_has_spare:
		if (local.idle_cpus >= idlest.idle_cpus)
			return -1;
		break;
	case group_imbalanced: /* not used on the fork path: stay (Linux: return NULL) */
		return -1;
	}
	return idlest_g;
}

/* Linux: find_idlest_group_cpu(): a CPU running only SCHED_IDLE tasks; else the idle
 * CPU in the idle state with the smallest exit latency (idle_get_state()), among equal
 * ones (or with no state) the one that went idle last (Linux: rq->idle_stamp, here
 * rq->idle_start); else the least loaded CPU (this_cpu if none is less loaded).
 * Linux's idle_stamp is 0 on a CPU idle since boot, which then loses to this_cpu even
 * when busy; a running Linux has none such, our experiments start with them: the + 1
 * makes them candidates (deviation table). */
static int find_idlest_group_cpu(const cpumask_t *group, struct task_struct *p, int this_cpu)
{
	unsigned long min_load = ~0ul;
	u64 latest_idle = 0, min_exit_latency = ~0ull;
	int least_loaded = this_cpu, shallowest_idle = -1;
	unsigned int i;
	cpumask_t cpus;

	if (cpumask_weight(group) == 1)
		return (int)cpumask_first(group);
	cpumask_and(&cpus, group, &p->cpus_allowed);
	for_each_cpu(i, &cpus) {
		struct rq *rq = cpu_rq(i);

		if (sched_idle_cpu((int)i))
			return (int)i;
		if (available_idle_cpu((int)i)) {
			int idle = idle_get_state_idx(i);
			u64 exit = idle >= 0 ? cpuidle_exit_latency_ns(i, idle) : 0;

			if (idle >= 0 && exit < min_exit_latency) {
				min_exit_latency = exit;
				latest_idle = rq->idle_start + 1;
				shallowest_idle = (int)i;
			} else if ((idle < 0 || exit == min_exit_latency) &&
				   rq->idle_start + 1 > latest_idle) {
				latest_idle = rq->idle_start + 1;
				shallowest_idle = (int)i;
			}
		} else if (shallowest_idle == -1 && cpu_load(rq) < min_load) {
			min_load = cpu_load(rq);
			least_loaded = (int)i;
		}
	}
	return shallowest_idle != -1 ? shallowest_idle : least_loaded;
}

/* Linux 6.1: find_idlest_cpu(): from cpu's top domain down, the idlest group's idlest
 * CPU; on moving to another CPU, go on with that CPU's domains below the level left. */
static int find_idlest_cpu(struct task_struct *p, int cpu, int prev_cpu)
{
	int level = cpu_rq(cpu)->nr_sd - 1, new_cpu = cpu;

	if (!cpumask_intersects(&cpu_rq(cpu)->sd[level].span, &p->cpus_allowed))
		return prev_cpu;
	while (level >= 0) {
		struct sched_domain *sd = &cpu_rq(cpu)->sd[level];
		int g = find_idlest_group(sd, p, cpu);
		unsigned int weight;

		if (g < 0) {
			level--;
			continue;
		}
		new_cpu = find_idlest_group_cpu(&sd->groups[g], p, cpu);
		if (new_cpu == cpu) {
			level--; /* balance at a lower level of cpu */
			continue;
		}
		weight = sd->span_weight;
		cpu = new_cpu;
		for (level = cpu_rq(cpu)->nr_sd - 1; level >= 0; level--)
			if (cpu_rq(cpu)->sd[level].span_weight < weight)
				break;
	}
	return new_cpu;
}

/* Linux: wake_affine_idle(). An idle waking CPU means a wakeup from an interrupt: take
 * it only within the LLC, and prefer an idle prev there (cache hot, and one busier CPU
 * is better for cpufreq). A sync waker about to sleep leaves its CPU to the wakee. -1:
 * no opinion. */
static int wake_affine_idle(int this_cpu, int prev_cpu, bool sync)
{
	if (available_idle_cpu(this_cpu) && cpus_share_cache(this_cpu, prev_cpu))
		return available_idle_cpu(prev_cpu) ? prev_cpu : this_cpu;
	if (sync && cpu_rq(this_cpu)->nr_running == 1)
		return this_cpu;
	if (available_idle_cpu(prev_cpu))
		return prev_cpu;
	return -1;
}

/* Linux: wake_affine_weight(). Compare the two CPUs' loads as they would be with the
 * wakee moved to this_cpu, each scaled by the other's capacity (so the load per unit of
 * capacity is compared); WA_BIAS holds prev to half the domain's imbalance_pct more.
 * A sync waker's load leaves this_cpu. Loads are task_h_load(). this_cpu, or -1. */
static int wake_affine_weight(struct sched_domain *sd, struct task_struct *p, int this_cpu,
			      int prev_cpu, bool sync)
{
	s64 this_eff_load = (s64)cpu_load(cpu_rq(this_cpu)), prev_eff_load;
	unsigned long task_load;

	if (sync) {
		unsigned long current_load = task_h_load(current);

		if ((s64)current_load > this_eff_load)
			return this_cpu;
		this_eff_load -= (s64)current_load;
	}
	task_load = task_h_load(p);
	this_eff_load += (s64)task_load;
	if (sched_feat(WA_BIAS))
		this_eff_load *= 100;
	this_eff_load *= (s64)capacity_of((unsigned int)prev_cpu);

	prev_eff_load = (s64)cpu_load(cpu_rq(prev_cpu)) - (s64)task_load;
	if (sched_feat(WA_BIAS))
		prev_eff_load *= 100 + (sd->imbalance_pct - 100) / 2;
	prev_eff_load *= (s64)capacity_of((unsigned int)this_cpu);
	/* sync: on a tie, stack the wakee on the waker if nothing else is idle */
	if (sync)
		prev_eff_load += 1;
	return this_eff_load < prev_eff_load ? this_cpu : -1;
}

/* Linux: wake_affine(): WA_IDLE, then WA_WEIGHT; this_cpu or prev_cpu. */
static int wake_affine(struct sched_domain *sd, struct task_struct *p, int this_cpu, int prev_cpu,
		       bool sync)
{
	int target = -1;

	if (sched_feat(WA_IDLE))
		target = wake_affine_idle(this_cpu, prev_cpu, sync);
	if (sched_feat(WA_WEIGHT) && target < 0)
		target = wake_affine_weight(sd, p, this_cpu, prev_cpu, sync);
	if (target != this_cpu)
		return prev_cpu;
	p->stats.nr_wakeups_affine++;
	return this_cpu;
}

/* The lowest domain of this_cpu whose span holds prev_cpu (Linux: the SD_WAKE_AFFINE
 * domain select_task_rq_fair() stops at; every level here has that flag). */
static struct sched_domain *affine_domain(int this_cpu, int prev_cpu)
{
	struct rq *rq = cpu_rq(this_cpu);

	for (int l = 0; l < rq->nr_sd; l++)
		if (cpumask_test_cpu(prev_cpu, &rq->sd[l].span))
			return &rq->sd[l];
	return NULL;
}

/* Linux 6.1: select_task_rq_fair(). A wakeup: EAS's choice when it makes one
 * (fair_energy.c), else wake_affine() in the lowest domain spanning the waker's CPU
 * and prev (unless the waker has many wakees), then select_idle_sibling() around it.
 * A fork: the slow path, find_idlest_cpu() from the top domain (every level has
 * SD_BALANCE_FORK). Each placement is noted into the task for the shell's `why`
 * (why.c). */
int select_task_rq_fair(struct task_struct *p, int prev_cpu, int wake_flags)
{
	int this_cpu = (int)arch_cpu_id(), new_cpu = prev_cpu, target;
	bool sync = wake_flags & WF_SYNC;
	struct sched_domain *sd;
	enum why_rule rule;

	if (wake_flags & WF_FORK) {
		new_cpu =
			cpu_rq(this_cpu)->nr_sd ? find_idlest_cpu(p, this_cpu, prev_cpu) : prev_cpu;
		why_note_wakeup(p, prev_cpu, prev_cpu, new_cpu, WHY_FORK, wake_flags);
		return new_cpu;
	}
	/* SIS_DEBOUNCE: placed in this tick already, so not moved again in it,
	 * idle or not (the 2017 RFC: the wakee counts as cache hot there). */
	if (sched_feat(SIS_DEBOUNCE) && placed_this_tick(p) &&
	    cpumask_test_cpu(prev_cpu, &p->cpus_allowed) && cpu_online((unsigned int)prev_cpu)) {
		why_note_wakeup(p, prev_cpu, prev_cpu, prev_cpu, WHY_DEBOUNCE, wake_flags);
		return prev_cpu;
	}
	record_wakee(p);
	if ((wake_flags & WF_TTWU) && sched_energy_enabled()) { /* fair_energy.c */
		new_cpu = find_energy_efficient_cpu(p, prev_cpu);
		if (new_cpu >= 0) {
			why_note_wakeup(p, prev_cpu, prev_cpu, new_cpu, WHY_EAS, wake_flags);
			return new_cpu;
		}
		new_cpu = prev_cpu;
	}
	if (!wake_wide(p) && cpumask_test_cpu(this_cpu, &p->cpus_allowed) && this_cpu != prev_cpu &&
	    (sd = affine_domain(this_cpu, prev_cpu)) &&
	    /* SIS_DEBOUNCE: a cache-cold wakee is not pulled to another LLC */
	    (cpus_share_cache(this_cpu, prev_cpu) || !(sched_feat(SIS_DEBOUNCE) && cache_cold(p))))
		new_cpu = wake_affine(sd, p, this_cpu, prev_cpu, sync);
	target = new_cpu;
	new_cpu = select_idle_sibling(p, prev_cpu, target, &rule);
	why_note_wakeup(p, prev_cpu, target, new_cpu, rule, wake_flags);
	if (idle_cpu(new_cpu))
		p->stats.nr_wakeups_idle++;
	if (new_cpu != prev_cpu && p->recent_used_cpu != prev_cpu)
		p->recent_used_cpu = prev_cpu;
	if (new_cpu != prev_cpu && placed_this_tick(p))
		p->stats.nr_wakeups_bounced++; /* what SIS_DEBOUNCE forbids */
	p->placed_tick = tick_count((unsigned int)new_cpu) + 1;
	return new_cpu;
}

/* experiment=cost (kernel/bench): emulated ns of one wakeup scan of the whole
 * asymmetric domain - select_idle_capacity() for a task that fits no CPU, so
 * every CPU is looked at, as for a misfit wakee on a busy machine - averaged
 * over `loops`, IRQs off, nothing written. 0 on a symmetric machine. */
u64 sched_wakeup_scan_cost_ns(unsigned int loops)
{
	static struct task_struct t; /* a task of util 1024, on no run queue */
	struct rq *rq = this_rq();
	unsigned long flags;
	u64 t0, ns;

	if (!rq->sd_asym_cpucapacity || !loops)
		return 0;
	t.se.avg.util_avg = SCHED_CAPACITY_SCALE;
	t.uclamp_req[UCLAMP_MAX] = SCHED_CAPACITY_SCALE;
	cpumask_setall(&t.cpus_allowed);
	flags = arch_irq_save();
	t0 = arch_clock_ns();
	for (unsigned int i = 0; i < loops; i++)
		select_idle_capacity(&t, &rq->sd_asym_cpucapacity->span, (int)rq->cpu);
	ns = arch_clock_ns() - t0;
	arch_irq_restore(flags);
	return ns / loops;
}
