/* fair_energy.c - Energy Aware Scheduling (Linux 6.1.192): whether it is on
 * (sched_energy_enabled(), Linux: build_perf_domains()), the root domain's overutilized
 * flag, and the wakeup placement find_energy_efficient_cpu() with compute_energy() /
 * em_cpu_energy() over the performance domains of the device tree's energy model
 * (cpu_topology.freq_domain[].em, built by topology.c). Not the energy meter (energy.c).
 * Two words read locklessly: sched_energy_present (written by sched_energy_update() on
 * governor, feature and hotplug changes) and sched_rd_overutilized. */
#include "arch_topology.h"
#include "cpufreq.h"
#include "sched_internal.h"
#include "trace.h"

#define EM_MAX_COMPLEXITY 2048 /* Linux: kernel/sched/topology.c */

bool sched_energy_present; /* Linux: the sched_energy_present static key */
int sched_rd_overutilized; /* Linux: rq->rd->overutilized (one root domain here) */
static char eas_why[96];   /* why EAS is off, as last printed */

/* ---- enabling (Linux: build_perf_domains(), sched_cpufreq_governor_change()) ------------ */

/* Linux 6.1.192's conditions, in its order: the sysctl, asymmetric capacities, frequency
 * invariance, schedutil on every CPU's policy, an EM for every performance domain, and
 * nr_pd x (nr_ps + nr_cpus) <= EM_MAX_COMPLEXITY. false with the reason in why. */
static bool eas_possible(char *why, size_t n)
{
	const struct topology *t = &cpu_topology;
	int nr_pd = 0, nr_ps = 0, nr_cpus = (int)cpumask_weight(cpu_active_mask);
	cpumask_t seen = { { 0 } };
	unsigned int cpu;

	if (!sched_feat(EAS))
		return ksnprintf(why, n, "NO_EAS (Linux: sched_energy_aware = 0)"), false;
	if (!t->asym_cpucapacity)
		return ksnprintf(why, n, "CPUs do not have asymmetric capacities"), false;
	for_each_cpu(cpu, cpu_active_mask) {
		const struct topology_freq_domain *fd = &t->freq_domain[t->cpu[cpu].freq_domain];
		int pol = cpufreq_policy_of(cpu);

		if (pol < 0) /* Linux: !arch_scale_freq_invariant() or no policy */
			return ksnprintf(why, n, "CPU%u has no cpufreq policy", cpu), false;
		if (strcmp(cpufreq_governor_name(pol), "schedutil"))
			return ksnprintf(why, n, "policy%d governor %s, schedutil is mandatory",
					 pol, cpufreq_governor_name(pol)),
			       false;
		if (cpumask_test_cpu(cpu, &seen))
			continue;
		if (!fd->nr_perf_states)
			return ksnprintf(why, n, "no EM found for CPU%u", cpu), false;
		cpumask_or(&seen, &seen, &fd->cpus);
		nr_pd++;
		nr_ps += fd->nr_perf_states;
	}
	if (nr_pd * (nr_ps + nr_cpus) > EM_MAX_COMPLEXITY)
		return ksnprintf(why, n, "EM complexity is too high"), false;
	ksnprintf(why, n, "%d performance domains", nr_pd);
	return true;
}

/* Re-evaluate after a governor change, an EAS/NO_EAS write or a hotplug (Linux:
 * rebuild_sched_domains_energy()). Says so, with the reason, when EAS goes on or off;
 * the shell's `eas` says why it is off. */
void sched_energy_update(void)
{
	char why[sizeof(eas_why)];
	bool on = eas_possible(why, sizeof(why)), was = READ_ONCE(sched_energy_present);

	WRITE_ONCE(sched_energy_present, on);
	strlcpy_k(eas_why, why, sizeof(eas_why));
	if (on != was) /* Linux warns when EAS goes away; off from boot is silent */
		printk("sched_energy: EAS %s: %s\n", on ? "on" : "off", why);
}

bool sched_energy_enabled(void)
{
	return READ_ONCE(sched_energy_present);
}

const char *sched_energy_reason(void)
{
	return eas_why;
}

/* ---- overutilized ------------------------------------------------------------------------ */

/* Linux 6.1.192: cpu_overutilized(): the CFS util does not fit the CPU (80 %), within the
 * rq's clamps (uclamp_rq_get()); util_fits_cpu()'s -1 (only uclamp.min misses) is not
 * overutilized. False while EAS is off (be3a51e68f2f, in 6.1.y since 6.1.93). */
bool cpu_overutilized(int cpu)
{
	struct rq *rq = cpu_rq(cpu);
	unsigned long umin = 0, umax = SCHED_CAPACITY_SCALE;

	if (!sched_energy_enabled())
		return false;
	if (uclamp_is_used()) {
		umin = READ_ONCE(rq->uclamp[UCLAMP_MIN].value);
		umax = READ_ONCE(rq->uclamp[UCLAMP_MAX].value);
	}
	return !util_fits_cpu(cpu_util_cfs((unsigned int)cpu), umin, umax, cpu);
}

/* Linux 6.1.192: set_rd_overutilized_status(): written only while EAS is on ("sched/fair:
 * Add EAS checks before updating root_domain::overutilized", in 6.1.y since 6.1.93). */
static void set_rd_overutilized(int status)
{
	if (!sched_energy_enabled())
		return;
	WRITE_ONCE(sched_rd_overutilized, status);
	trace_sched_overutilized(status != 0);
}

/* Linux: update_overutilized_status(): set on enqueue (not a new task's first) and tick. */
void update_overutilized_status(struct rq *rq)
{
	if (!READ_ONCE(sched_rd_overutilized) && cpu_overutilized((int)rq->cpu))
		set_rd_overutilized(SG_OVERUTILIZED);
}

/* Linux: update_sd_lb_stats()'s end: the root level publishes the flag the pass found,
 * a lower level can only set it. */
void update_rd_overutilized_lb(int sg_status, bool root)
{
	if (root)
		set_rd_overutilized(sg_status & SG_OVERUTILIZED);
	else if (sg_status & SG_OVERUTILIZED)
		set_rd_overutilized(SG_OVERUTILIZED);
}

/* Linux: find_busiest_group()'s EAS gate: no balancing while not overutilized. */
bool sched_energy_skip_balance(void)
{
	return sched_energy_enabled() && !READ_ONCE(sched_rd_overutilized);
}

bool sched_overutilized(void)
{
	return READ_ONCE(sched_rd_overutilized) != 0;
}

/* ---- the energy model (Linux: include/linux/energy_model.h) ----------------------------- */

/* Linux: EM_PERF_STATE_INEFFICIENT: a higher state costs no more than this one. */
static bool em_state_inefficient(const struct topology_freq_domain *pd, int i)
{
	for (int j = i + 1; j < pd->nr_perf_states; j++)
		if (pd->em[j].cost <= pd->em[i].cost)
			return true;
	return false;
}

/* Linux 6.1.192: em_cpu_energy(). The busiest CPU's util, with schedutil's 25 % headroom and at
 * most allowed_cpu_cap, asks for f = f_max x util / scale_cpu; the lowest efficient state at
 * or above f is taken, and the domain costs cost x sum_util / scale_cpu:
 *
 *	energy = sum_i(power x busy_time_i / cap_state) = cost x sum_util / scale_cpu,
 *	with cost = power x f_max / f (topology.c) and cap_state = scale_cpu x f / f_max.
 * Pure: the host tests run it on HiKey960's EM. */
u64 em_cpu_energy(const struct topology_freq_domain *pd, unsigned long max_util,
		  unsigned long sum_util, unsigned long allowed_cpu_cap, unsigned long scale_cpu)
{
	u64 freq;
	int i;

	if (!sum_util || !pd->nr_perf_states || !scale_cpu)
		return 0;
	/* schedutil's own arithmetic (cpufreq_math.c), so EAS predicts the OPP it sets */
	max_util = MIN(map_util_perf(max_util), allowed_cpu_cap);
	freq = map_util_freq(max_util, pd->em[pd->nr_perf_states - 1].frequency, scale_cpu);
	for (i = 0; i < pd->nr_perf_states - 1; i++) /* Linux: em_pd_get_efficient_state() */
		if (pd->em[i].frequency >= freq && !em_state_inefficient(pd, i))
			break;
	return pd->em[i].cost * sum_util / scale_cpu;
}

/* ---- utilization as EAS predicts it ------------------------------------------------------ */

/* Linux 6.1.192: cpu_util_next(): the CFS util of cpu if p moved to dst_cpu (-1: p nowhere). */
static unsigned long cpu_util_next(int cpu, const struct task_struct *p, int dst_cpu)
{
	const struct cfs_rq *cfs_rq = &cpu_rq(cpu)->cfs;
	unsigned long util = READ_ONCE(cfs_rq->avg.util_avg);

	if (p->cpu == cpu && dst_cpu != cpu)
		util -= MIN(util, task_util(p));
	else if (p->cpu != cpu && dst_cpu == cpu)
		util += task_util(p);
	if (sched_feat(UTIL_EST)) {
		unsigned long est = READ_ONCE(cfs_rq->avg.util_est.enqueued);
		unsigned long p_est = util_est_of(p->se.avg.util_est);

		if (dst_cpu == cpu)
			est += p_est;
		else if (task_on_rq_queued(p) || current == p)
			est -= MIN(est, p_est);
		util = MAX(util, est);
	}
	return MIN(util, capacity_orig_of((unsigned int)cpu));
}

enum cpu_util_type { FREQUENCY_UTIL, ENERGY_UTIL };

/* Linux 6.1.192: effective_cpu_util(). Unless uclamp is used, a runnable RT task
 * asks for the maximum frequency; the rq's clamps (with p's, p about to be
 * there) bound CFS + RT for FREQUENCY_UTIL; DL's util decides saturation and
 * counts for ENERGY_UTIL, its running bandwidth (cpu_bw_dl()) for FREQUENCY_UTIL. */
static unsigned long effective_cpu_util(int cpu, unsigned long util_cfs, enum cpu_util_type type,
					const struct task_struct *p)
{
	struct rq *rq = cpu_rq(cpu);
	unsigned long max = capacity_orig_of((unsigned int)cpu), irq, util, dl_util;

	if (!uclamp_is_used() && type == FREQUENCY_UTIL && rq->rt.rt_nr_running)
		return max; /* Linux: rt_rq_is_runnable() */
	irq = READ_ONCE(rq->avg_irq.util_avg);
	if (irq >= max)
		return max;
	util = util_cfs + READ_ONCE(rq->avg_rt.util_avg);
	if (type == FREQUENCY_UTIL)
		util = uclamp_rq_util_with(rq, util, p);
	dl_util = READ_ONCE(rq->avg_dl.util_avg);
	if (util + dl_util >= max)
		return max;
	if (type == ENERGY_UTIL)
		util += dl_util;
	util = util * (max - irq) / max + irq; /* scale_irq_capacity() + irq */
	if (type == FREQUENCY_UTIL)
		util += cpu_bw_dl(rq);
	return MIN(util, max);
}

/* Linux 6.1.192: struct energy_env. */
struct energy_env {
	unsigned long task_busy_time; /* p's util, scaled by prev_cpu's IRQ pressure */
	unsigned long pd_busy_time;   /* the domain's ENERGY_UTIL without p */
	unsigned long cpu_cap;	      /* one CPU of the domain (no thermal pressure here) */
	unsigned long pd_cap;	      /* all of the domain's candidate CPUs */
};

/* Linux: eenv_task_busy_time(). */
static void eenv_task_busy_time(struct energy_env *env, const struct task_struct *p, int prev_cpu)
{
	unsigned long max = arch_scale_cpu_capacity(prev_cpu);
	unsigned long irq = READ_ONCE(cpu_rq(prev_cpu)->avg_irq.util_avg);

	env->task_busy_time = irq >= max ? max : task_util_est_of(p) * (max - irq) / max;
}

/* Linux: eenv_pd_busy_time(). */
static void eenv_pd_busy_time(struct energy_env *env, const cpumask_t *pd_cpus,
			      const struct task_struct *p)
{
	unsigned long busy = 0;
	int cpu;

	for_each_cpu(cpu, pd_cpus)
		busy += effective_cpu_util(cpu, cpu_util_next(cpu, p, -1), ENERGY_UTIL, NULL);
	env->pd_busy_time = MIN(env->pd_cap, busy);
}

/* Linux: eenv_pd_max_util(): the domain's frequency is set by its busiest CPU. */
static unsigned long eenv_pd_max_util(const struct energy_env *env, const cpumask_t *pd_cpus,
				      const struct task_struct *p, int dst_cpu)
{
	unsigned long max_util = 0;
	int cpu;

	for_each_cpu(cpu, pd_cpus) {
		const struct task_struct *tsk = cpu == dst_cpu ? p : NULL;
		unsigned long util = cpu_util_next(cpu, p, dst_cpu);

		max_util = MAX(max_util, effective_cpu_util(cpu, util, FREQUENCY_UTIL, tsk));
	}
	return MIN(max_util, env->cpu_cap);
}

/* Linux 6.1.192: compute_energy(): the domain's energy with p on dst_cpu (-1: p elsewhere). */
static u64 compute_energy(const struct energy_env *env, const struct topology_freq_domain *pd,
			  const cpumask_t *pd_cpus, const struct task_struct *p, int dst_cpu)
{
	unsigned long max_util = eenv_pd_max_util(env, pd_cpus, p, dst_cpu);
	unsigned long busy = env->pd_busy_time;

	if (dst_cpu >= 0)
		busy = MIN(env->pd_cap, busy + env->task_busy_time);
	return em_cpu_energy(pd, max_util, busy, env->cpu_cap,
			     arch_scale_cpu_capacity((int)cpumask_first(&pd->cpus)));
}

/* A domain's online CPUs and their capacities into env (Linux: feec's per-pd prologue). */
static bool eenv_pd_init(struct energy_env *env, const struct topology_freq_domain *pd,
			 cpumask_t *cpus)
{
	cpumask_and(cpus, &pd->cpus, cpu_online_mask);
	if (cpumask_empty(cpus) || !pd->nr_perf_states)
		return false;
	env->cpu_cap = arch_scale_cpu_capacity((int)cpumask_first(cpus));
	env->pd_cap = env->cpu_cap * cpumask_weight(cpus);
	return true;
}

/* What compute_energy() says of performance domain `pd` with p on dst_cpu (-1: p not in
 * it), minus its energy without p: the shell's `eas` and the host tests. */
u64 sched_energy_delta(int pd_index, const struct task_struct *p, int dst_cpu, u64 *base)
{
	const struct topology_freq_domain *pd = &cpu_topology.freq_domain[pd_index];
	struct energy_env env;
	cpumask_t cpus;
	u64 e;

	*base = 0;
	if (!eenv_pd_init(&env, pd, &cpus))
		return 0;
	eenv_task_busy_time(&env, p, dst_cpu >= 0 ? dst_cpu : (int)cpumask_first(&cpus));
	eenv_pd_busy_time(&env, &cpus, p);
	*base = compute_energy(&env, pd, &cpus, p, -1);
	e = dst_cpu >= 0 ? compute_energy(&env, pd, &cpus, p, dst_cpu) : *base;
	return e > *base ? e - *base : 0;
}

/* ---- the wakeup placement ---------------------------------------------------------------- */

/* Linux: sync_entity_load_avg(): p's signals decayed to its old cfs_rq's last update. */
static void sync_entity_load_avg(struct task_struct *p)
{
	const struct cfs_rq *cfs_rq = cfs_rq_of(&p->se);

	pelt_update_blocked_se(&p->se.avg, READ_ONCE(cfs_rq->avg.last_update_time),
			       p->se.load.weight);
}

/* The lowest domain from this CPU's sd_asym_cpucapacity up that spans prev_cpu. */
static const struct sched_domain *eas_domain(int prev_cpu)
{
	struct rq *rq = this_rq();
	const struct sched_domain *sd = rq->sd_asym_cpucapacity;

	if (!sd)
		return NULL;
	for (; sd < &rq->sd[rq->nr_sd]; sd++)
		if (cpumask_test_cpu(prev_cpu, &sd->span))
			return sd;
	return NULL;
}

/* The task's clamps as feec sees them (Linux 6.1.192: none unless uclamp is used). */
struct feec_clamps {
	unsigned long p_min, p_max; /* p's effective uclamp.min / uclamp.max */
	unsigned long min, max;	    /* with a busy rq's clamps max-aggregated in */
};

/* A performance domain's two candidates: prev_cpu (if p fits it) and the other CPU that
 * fits p best (util_fits_cpu(): 1 before -1), with the most spare capacity among those.
 * A spare capacity of 0 is a candidate (a CPU p fits only through uclamp.max); -1: none. */
struct feec_pd {
	long prev_spare, max_spare;
	int prev_fits, max_fits, max_spare_cpu;
};

/* Linux 6.1.192: find_energy_efficient_cpu()'s CPU loop over one performance domain.
 * The fit test runs on the unclamped util with the rq's and p's clamps max-aggregated
 * (uclamp_rq_util_with() without its clamp(), unless the rq is idle: p will reset its
 * held max). As in that source, the aggregated clamps carry over to the domain's next
 * CPU, whose rq may be idle (c's min and max are not reset per CPU). */
static void feec_pd_candidates(const struct task_struct *p, const cpumask_t *cpus,
			       const struct sched_domain *sd, int prev_cpu, struct feec_clamps *c,
			       struct feec_pd *r)
{
	int cpu;

	*r = (struct feec_pd){ -1, -1, -1, -1, -1 };
	c->min = c->p_min;
	c->max = c->p_max;
	for_each_cpu(cpu, cpus) {
		struct rq *rq = cpu_rq(cpu);
		unsigned long util, cap;
		int fits;

		if (!cpumask_test_cpu(cpu, &sd->span) || !cpumask_test_cpu(cpu, &p->cpus_allowed))
			continue;
		util = cpu_util_next(cpu, p, cpu);
		cap = capacity_of((unsigned int)cpu);
		if (uclamp_is_used() && !(READ_ONCE(rq->uclamp_flags) & UCLAMP_FLAG_IDLE)) {
			c->min = MAX(c->p_min,
				     (unsigned long)READ_ONCE(rq->uclamp[UCLAMP_MIN].value));
			c->max = MAX(c->p_max,
				     (unsigned long)READ_ONCE(rq->uclamp[UCLAMP_MAX].value));
		}
		/* -1 (only uclamp.min does not fit) is a candidate here, ranked below 1:
		 * so a boosted task goes where its boost fits, if such a CPU is idle enough. */
		fits = util_fits_cpu(util, c->min, c->max, cpu);
		if (!fits)
			continue;
		cap -= MIN(cap, util);
		if (cpu == prev_cpu) {
			r->prev_spare = (long)cap; /* prev_cpu is always a candidate */
			r->prev_fits = fits;
		} else if (fits > r->max_fits ||
			   (fits == r->max_fits && (long)cap > r->max_spare)) {
			r->max_spare = (long)cap;
			r->max_spare_cpu = cpu;
			r->max_fits = fits;
		}
	}
}

/* What feec keeps across domains (Linux 6.1.192's locals). thermal_cap is the domain's
 * CPU capacity (no thermal pressure here): among CPUs that fit only uclamp.min's -1,
 * the bigger wins. */
struct feec_best {
	u64 prev_delta, best_delta;
	int prev_fits, best_fits, best_cpu;
	unsigned long prev_thermal_cap, best_thermal_cap;
};

/* One domain's energies (Linux 6.1.192: feec's per-pd body after the CPU loop). false:
 * some CPU's utilization changed under us (an energy below the base), prev_cpu it is. */
static bool feec_pd_energy(struct energy_env *env, const struct topology_freq_domain *pd,
			   const cpumask_t *cpus, const struct task_struct *p, int prev_cpu,
			   const struct feec_pd *r, struct feec_best *b)
{
	u64 base, e;

	eenv_pd_busy_time(env, cpus, p);
	base = compute_energy(env, pd, cpus, p, -1);
	if (r->prev_spare > -1) {
		e = compute_energy(env, pd, cpus, p, prev_cpu);
		if (e < base)
			return false;
		b->prev_delta = e - base;
		b->prev_thermal_cap = env->cpu_cap;
		b->best_delta = MIN(b->best_delta, b->prev_delta);
	}
	/* The 6.2 gate (backported): the other CPU only if it has more spare capacity. */
	if (r->max_spare_cpu < 0 || r->max_spare <= r->prev_spare)
		return true;
	if (r->max_fits < b->best_fits) /* the best so far fits better */
		return true;
	if (r->max_fits < 0 && env->cpu_cap <= b->best_thermal_cap)
		return true; /* neither fits uclamp.min; the best so far is bigger */
	e = compute_energy(env, pd, cpus, p, r->max_spare_cpu);
	if (e < base)
		return false;
	e -= base;
	if (r->max_fits > 0 && b->best_fits > 0 && e >= b->best_delta)
		return true; /* both fit: the lower energy stays */
	b->best_delta = e;
	b->best_cpu = r->max_spare_cpu;
	b->best_fits = r->max_fits;
	b->best_thermal_cap = env->cpu_cap;
	return true;
}

/* Linux 6.1.192: find_energy_efficient_cpu(). Per performance domain (Linux's rd->pd list:
 * the last domain first), the energy p adds on prev_cpu and on the domain's best other
 * candidate. A candidate that fits p fully (util_fits_cpu() 1) beats one that fits all but
 * uclamp.min (-1); between full fits the lower energy, strictly, beats prev_cpu; between
 * -1 fits the bigger CPU. -1: not used (overutilized, no asymmetric domain), the caller
 * takes its usual path. */
int find_energy_efficient_cpu(struct task_struct *p, int prev_cpu)
{
	struct feec_best b = { ~0ull, ~0ull, -1, -1, prev_cpu, 0, 0 };
	const struct sched_domain *sd;
	struct energy_env env;
	struct feec_clamps c = { 0, SCHED_CAPACITY_SCALE, 0, SCHED_CAPACITY_SCALE };

	if (READ_ONCE(sched_rd_overutilized) || !(sd = eas_domain(prev_cpu)))
		return -1;
	if (uclamp_is_used()) {
		c.p_min = uclamp_eff_value(p, UCLAMP_MIN);
		c.p_max = uclamp_eff_value(p, UCLAMP_MAX);
	}
	sync_entity_load_avg(p);
	/* No util and no boost: nothing to place by energy (uclamp.max 0 does not count:
	 * "sched/uclamp: Ignore (util == 0) optimization in feec() when p_util_max = 0"). */
	if (!task_util_est_of(p) && c.p_min == 0)
		return prev_cpu;
	eenv_task_busy_time(&env, p, prev_cpu);
	for (int i = cpu_topology.nr_freq_domains - 1; i >= 0; i--) {
		const struct topology_freq_domain *pd = &cpu_topology.freq_domain[i];
		struct feec_pd r;
		cpumask_t cpus;

		if (!eenv_pd_init(&env, pd, &cpus))
			continue;
		feec_pd_candidates(p, &cpus, sd, prev_cpu, &c, &r);
		if (r.max_spare_cpu < 0 && r.prev_spare < 0)
			continue;
		if (r.prev_spare > -1)
			b.prev_fits = r.prev_fits;
		if (!feec_pd_energy(&env, pd, &cpus, p, prev_cpu, &r, &b))
			return prev_cpu; /* CPU utilization has changed */
	}
	trace_sched_compute_energy(p, prev_cpu, b.prev_delta, b.best_cpu, b.best_delta);
	if (b.best_fits > b.prev_fits || (b.best_fits > 0 && b.best_delta < b.prev_delta) ||
	    (b.best_fits < 0 && b.best_thermal_cap > b.prev_thermal_cap))
		return b.best_cpu;
	return prev_cpu;
}

/* The shell's `eas [UTIL]`: on or why not, overutilized now, each CPU's util and whether it
 * is overutilized; with UTIL, what a task of that util (waking from nowhere) would add to
 * its performance domain on each online CPU, as compute_energy() estimates it. */
void sched_energy_print(long util)
{
	static struct task_struct p; /* hypothetical: on no CPU, no util_est */
	unsigned int cpu;

	printk("eas: %s (%s), overutilized=%d\n", sched_energy_enabled() ? "on" : "off", eas_why,
	       sched_overutilized());
	for_each_cpu(cpu, cpu_online_mask)
		printk("eas: cpu%u util=%lu capacity=%lu overutilized=%d\n", cpu, cpu_util_cfs(cpu),
		       capacity_of(cpu),
		       !util_fits_cpu(cpu_util_cfs(cpu), 0, SCHED_CAPACITY_SCALE, (int)cpu));
	if (util < 0)
		return;
	p.cpu = -1;
	p.se.avg.util_avg = (unsigned long)util;
	p.uclamp_req[UCLAMP_MAX] = SCHED_CAPACITY_SCALE;
	for_each_cpu(cpu, cpu_online_mask) {
		u64 base, delta = sched_energy_delta(cpu_topology.cpu[cpu].freq_domain, &p,
						     (int)cpu, &base);

		printk("eas: util=%ld on cpu%u: pd%d energy %llu + %llu\n", util, cpu,
		       cpu_topology.cpu[cpu].freq_domain, base, delta);
	}
}
