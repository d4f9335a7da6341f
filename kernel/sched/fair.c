/* fair.c - CFS: vruntime-ordered rbtree per run queue, slices, placement
 * of new and waking entities, tick and wakeup preemption, buddies; PELT
 * signals of tasks and run queues with util_est; capacity (capacity_of,
 * util_fits_cpu) and capacity-aware wakeup placement (select_idle_capacity,
 * ASYM_PREFER_PREV, SIS_DEBOUNCE). Not load balancing (balance.c) nor the
 * PELT maths (pelt.c). State under rq->lock. Linux: kernel/sched/fair.c (v6.1). */
#include "sched.h"
#include "trace.h"

/* Linux's defaults for one CPU, scaled by 1 + ilog2(min(nr_cpus, 8))
 * (SCHED_TUNABLESCALING_LOG): 6 / 0.75 / 1 ms become 24 / 3 / 4 ms on 8 CPUs. */
unsigned int sysctl_sched_latency = 6000000;
unsigned int sysctl_sched_min_granularity = 750000;
unsigned int sysctl_sched_wakeup_granularity = 1000000;
unsigned int sysctl_sched_migration_cost = 500000;
static unsigned int sched_nr_latency = 8;

void sched_tunables_init(unsigned int nr_cpus)
{
	unsigned int n = MIN(nr_cpus, 8u), factor = 1;

	while (n >>= 1)
		factor++;	/* 1 + ilog2 */
	sysctl_sched_latency = 6000000 * factor;
	sysctl_sched_min_granularity = 750000 * factor;
	sysctl_sched_wakeup_granularity = 1000000 * factor;
}

static inline struct task_struct *task_of(struct sched_entity *se)
{
	return container_of(se, struct task_struct, se);
}

static inline struct rq *rq_of(struct cfs_rq *cfs_rq)
{
	return container_of(cfs_rq, struct rq, cfs);
}

/* ---- capacity (Linux: arch_topology.c + fair.c) -------------------------------------- */

static unsigned long freq_scale[NR_CPUS];

unsigned long arch_scale_cpu_capacity(int cpu)
{
	unsigned long c = cpu < cpu_topology.nr_cpus ? cpu_topology.cpu[cpu].capacity_orig : 0;

	return c ? c : SCHED_CAPACITY_SCALE;
}

/* f_cur x 1024 / f_max of the CPU's policy; 1024 until cpufreq says otherwise. */
unsigned long arch_scale_freq_capacity(int cpu)
{
	unsigned long s = READ_ONCE(freq_scale[cpu]);

	return s ? s : SCHED_CAPACITY_SCALE;
}

void arch_set_freq_scale(cpumask_t cpus, unsigned long scale)
{
	unsigned int cpu;

	for_each_cpu(cpu, cpus)
		WRITE_ONCE(freq_scale[cpu], scale);
}

unsigned long capacity_orig_of(unsigned int cpu)
{
	return cpu_rq(cpu)->cpu_capacity_orig;
}

unsigned long capacity_of(unsigned int cpu)
{
	return READ_ONCE(cpu_rq(cpu)->cpu_capacity);
}

/* Linux: scale_rt_capacity(): what RT and IRQ leave to CFS. */
void update_cpu_capacity(struct rq *rq)
{
	unsigned long max = rq->cpu_capacity_orig, irq = rq->avg_irq.util_avg, used;

	if (irq >= max) {
		rq->cpu_capacity = 1;
		return;
	}
	used = READ_ONCE(rq->avg_rt.util_avg);
	used = used < max ? max - used : 0;
	used = used * (max - irq) / max;	/* scale_irq_capacity() */
	rq->cpu_capacity = used ? used : 1;
}

/* Linux: cpu_util_cfs() - util_avg or util_est, whichever is larger. */
unsigned long cpu_util(int cpu)
{
	struct cfs_rq *cfs_rq = &cpu_rq(cpu)->cfs;

	return pelt_cpu_util_cfs(READ_ONCE(cfs_rq->avg.util_avg),
				 sched_feat(UTIL_EST) ? READ_ONCE(cfs_rq->avg.util_est.enqueued) : 0,
				 capacity_orig_of((unsigned int)cpu));
}

unsigned long cpu_util_cfs(unsigned int cpu)
{
	return cpu_util((int)cpu);
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

/* Linux: uclamp_task_util() */
unsigned long uclamp_task_util(const struct task_struct *p)
{
	unsigned long u = task_util_est_of(p);

	return MIN(MAX(u, (unsigned long)p->uclamp_req[UCLAMP_MIN]),
		   (unsigned long)p->uclamp_req[UCLAMP_MAX]);
}

/* Linux 6.1: util_fits_cpu(). 1: fits; 0: does not; -1: fits, but only the
 * uclamp_min performance request does not (look for a bigger CPU). */
int util_fits_cpu(unsigned long util, unsigned long umin, unsigned long umax, int cpu)
{
	unsigned long cap = capacity_of((unsigned int)cpu);
	unsigned long cap_orig = capacity_orig_of((unsigned int)cpu);
	bool fits = fits_capacity(util, cap), umax_fits;

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
	return util_fits_cpu(task_util_est_of(p), p->uclamp_req[UCLAMP_MIN],
			     p->uclamp_req[UCLAMP_MAX], cpu) > 0;
}

/* A task too big for its CPU, on an asymmetric system: balance.c pulls it. */
void update_misfit_status(struct task_struct *p, struct rq *rq)
{
	lockdep_assert_held(&rq->lock);
	if (!cpu_topology.asym_cpucapacity || !sched_feat(MISFIT)) {
		rq->misfit_task_load = 0;	/* no flag outlives NO_MISFIT */
		return;
	}
	if (!p || p->nr_cpus_allowed == 1 || task_fits_cpu(p, (int)rq->cpu)) {
		rq->misfit_task_load = 0;
		return;
	}
	rq->misfit_task_load = MAX(p->se.avg.load_avg, 1ul);
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

/* ---- the CFS timeline ---------------------------------------------------------------- */

/* delta x NICE_0_LOAD / weight: time on a heavier entity's clock runs slower. */
static u64 calc_delta_fair(u64 delta, const struct sched_entity *se)
{
	if (se->load.weight == NICE_0_LOAD)
		return delta;
	return delta * NICE_0_LOAD / se->load.weight;
}

static inline bool entity_before(const struct sched_entity *a, const struct sched_entity *b)
{
	return (s64)(a->vruntime - b->vruntime) < 0;
}

static bool rb_less(const struct rb_node *a, const struct rb_node *b)
{
	return entity_before(rb_entry(a, struct sched_entity, run_node),
			     rb_entry(b, struct sched_entity, run_node));
}

static void __enqueue_entity(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	rb_insert_cached(&cfs_rq->tasks_timeline, &se->run_node, rb_less);
}

static void __dequeue_entity(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	rb_erase_cached(&cfs_rq->tasks_timeline, &se->run_node);
}

static struct sched_entity *__pick_first_entity(struct cfs_rq *cfs_rq)
{
	struct rb_node *left = rb_first_cached(&cfs_rq->tasks_timeline);

	return left ? rb_entry(left, struct sched_entity, run_node) : NULL;
}

static struct sched_entity *__pick_next_entity(struct sched_entity *se)
{
	struct rb_node *next = rb_next(&se->run_node);

	return next ? rb_entry(next, struct sched_entity, run_node) : NULL;
}

/* min_vruntime follows the smallest vruntime of curr and the tree, and
 * never goes backwards (sleepers are placed relative to it). */
static void update_min_vruntime(struct cfs_rq *cfs_rq)
{
	struct sched_entity *curr = cfs_rq->curr, *left = __pick_first_entity(cfs_rq);
	u64 v = cfs_rq->min_vruntime;

	if (curr && !curr->on_rq)
		curr = NULL;
	if (curr)
		v = curr->vruntime;
	if (left)
		v = curr ? ((s64)(left->vruntime - v) < 0 ? left->vruntime : v) : left->vruntime;
	if ((s64)(v - cfs_rq->min_vruntime) > 0)
		cfs_rq->min_vruntime = v;
}

static void update_load_add(struct load_weight *lw, unsigned long inc)
{
	lw->weight += inc;
}

static void update_load_sub(struct load_weight *lw, unsigned long dec)
{
	lw->weight -= dec;
}

/* Linux: __sched_period(): the latency target, stretched when more than
 * sched_nr_latency tasks share the CPU so slices stay >= min_granularity. */
static u64 sched_period(unsigned long nr_running)
{
	if (nr_running > sched_nr_latency)
		return nr_running * (u64)sysctl_sched_min_granularity;
	return sysctl_sched_latency;
}

/* slice = period x w / W (W includes se when it is not queued yet). */
static u64 sched_slice(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	unsigned long nr = cfs_rq->nr_running + !se->on_rq;
	unsigned long w = cfs_rq->load.weight + (se->on_rq ? 0 : se->load.weight);
	u64 slice = sched_period(nr);

	if (w)
		slice = slice * se->load.weight / w;
	return MAX(slice, (u64)sysctl_sched_min_granularity);
}

static u64 sched_vslice(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	return calc_delta_fair(sched_slice(cfs_rq, se), se);
}

/* Charge the running entity for the time since exec_start. */
static void update_curr(struct cfs_rq *cfs_rq)
{
	struct sched_entity *curr = cfs_rq->curr;
	struct rq *rq = rq_of(cfs_rq);
	u64 now = rq->clock_task, delta;

	if (!curr || (s64)(now - curr->exec_start) <= 0)
		return;
	delta = now - curr->exec_start;
	curr->exec_start = now;
	curr->sum_exec_runtime += delta;
	curr->vruntime += calc_delta_fair(delta, curr);
	update_min_vruntime(cfs_rq);
	account_cpu_work(rq, task_of(curr), delta);
}

static void update_curr_fair(struct rq *rq)
{
	lockdep_assert_held(&rq->lock);
	update_curr(&rq->cfs);
}

/* Linux: place_entity(). New tasks start a slice behind (START_DEBIT);
 * sleepers get at most half a latency period of credit (GENTLE_FAIR_SLEEPERS),
 * never more than they had. */
static void place_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, bool initial)
{
	u64 vruntime = cfs_rq->min_vruntime;

	if (initial && sched_feat(START_DEBIT))
		vruntime += sched_vslice(cfs_rq, se);
	if (!initial) {
		u64 thresh = sysctl_sched_latency;

		if (sched_feat(GENTLE_FAIR_SLEEPERS))
			thresh >>= 1;
		vruntime -= thresh;
	}
	if ((s64)(se->vruntime - vruntime) > 0)
		vruntime = se->vruntime;	/* never gain time by sleeping */
	se->vruntime = vruntime;
}

/* ---- PELT of entities and run queues --------------------------------------------------- */

/* Fold in the load of tasks that left this rq while blocked (they could not
 * take our lock then: Linux's cfs_rq->removed). */
static void update_cfs_rq_removed(struct cfs_rq *cfs_rq)
{
	struct sched_avg *sa = &cfs_rq->avg;
	unsigned long load, util, runnable;
	u32 divider = get_pelt_divider(sa);

	if (!READ_ONCE(cfs_rq->removed.nr))
		return;
	spin_lock(&cfs_rq->removed.lock);
	load = cfs_rq->removed.load_avg;
	util = cfs_rq->removed.util_avg;
	runnable = cfs_rq->removed.runnable_avg;
	cfs_rq->removed.load_avg = cfs_rq->removed.util_avg = cfs_rq->removed.runnable_avg = 0;
	cfs_rq->removed.nr = 0;
	spin_unlock(&cfs_rq->removed.lock);
#define SUB_POS(x, v) ((x) = (x) > (v) ? (x) - (v) : 0)
	SUB_POS(sa->load_avg, load);
	SUB_POS(sa->load_sum, (u64)load * divider);
	SUB_POS(sa->util_avg, util);
	SUB_POS(sa->util_sum, (u32)(util * divider));
	SUB_POS(sa->runnable_avg, runnable);
	SUB_POS(sa->runnable_sum, (u64)runnable * divider);
}

/* A task's signals join a run queue's (new, or arrived by migration). */
static void attach_entity_load_avg(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	u32 divider = get_pelt_divider(&cfs_rq->avg);

	/* Align the entity with the rq's PELT window, then rebuild its sums
	 * from its averages with the rq's divider (Linux does the same). */
	se->avg.last_update_time = cfs_rq->avg.last_update_time;
	se->avg.period_contrib = cfs_rq->avg.period_contrib;
	se->avg.util_sum = (u32)(se->avg.util_avg * divider);
	se->avg.runnable_sum = (u64)se->avg.runnable_avg * divider;
	se->avg.load_sum = se->load.weight ? (u64)se->avg.load_avg * divider / se->load.weight : 0;
	cfs_rq->avg.util_avg += se->avg.util_avg;
	cfs_rq->avg.util_sum += se->avg.util_sum;
	cfs_rq->avg.runnable_avg += se->avg.runnable_avg;
	cfs_rq->avg.runnable_sum += se->avg.runnable_sum;
	cfs_rq->avg.load_avg += se->avg.load_avg;
	cfs_rq->avg.load_sum += (u64)se->avg.load_avg * divider;
}

static void detach_entity_load_avg(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	struct sched_avg *sa = &cfs_rq->avg;
	u32 divider = get_pelt_divider(sa);

	SUB_POS(sa->load_avg, se->avg.load_avg);
	SUB_POS(sa->load_sum, (u64)se->avg.load_avg * divider);
	SUB_POS(sa->util_avg, se->avg.util_avg);
	SUB_POS(sa->util_sum, se->avg.util_sum);
	SUB_POS(sa->runnable_avg, se->avg.runnable_avg);
	SUB_POS(sa->runnable_sum, se->avg.runnable_sum);
}

/* Linux: update_load_avg(). Entity first, then the run queue, at PELT time.
 * A sum that decayed (a 1024 us period passed) is traced, as Linux's
 * pelt_se_tp/pelt_cfs_tp fire. Counted per rq, and timed while
 * sched_pelt_timing is on (E3: the cost of PELT on the scheduler's paths;
 * one load and branch when off). */
static void update_load_avg(struct cfs_rq *cfs_rq, struct sched_entity *se, bool attach)
{
	struct rq *rq = rq_of(cfs_rq);
	u64 now = rq_clock_pelt(rq);
	u64 t0 = READ_ONCE(sched_pelt_timing) ? arch_clock_ns() : 0;

	if (se->avg.last_update_time &&
	    pelt_update_se(&se->avg, now, se->on_rq, se->on_rq, cfs_rq->curr == se,
			   se->load.weight))
		trace_sched_pelt_se(rq->cpu, task_of(se));
	update_cfs_rq_removed(cfs_rq);
	if (pelt_update_cfs_rq(&cfs_rq->avg, now, cfs_rq->load.weight, cfs_rq->h_nr_running,
			       cfs_rq->curr != NULL))
		trace_sched_pelt_cfs(rq->cpu, &cfs_rq->avg);
	if (attach && !se->avg.last_update_time)
		attach_entity_load_avg(cfs_rq, se);
	rq->nr_pelt_updates++;
	if (t0)
		rq->pelt_update_ns += arch_clock_ns() - t0;
}

void update_load_avg_task(struct rq *rq, struct task_struct *p)
{
	lockdep_assert_held(&rq->lock);
	update_load_avg(&rq->cfs, &p->se, false);
}

/* Idle CPUs still decay their blocked load (Linux: update_blocked_averages).
 * True while some is left (Linux: others_have_blocked || cfs_rq_has_blocked). */
bool update_blocked_averages(struct rq *rq)
{
	struct cfs_rq *cfs_rq = &rq->cfs;

	lockdep_assert_held(&rq->lock);
	update_cfs_rq_removed(cfs_rq);
	pelt_update_cfs_rq(&cfs_rq->avg, rq_clock_pelt(rq), cfs_rq->load.weight,
			   cfs_rq->h_nr_running, cfs_rq->curr != NULL);
	if (rq->curr == rq->idle)
		rq->pelt = pelt_clock_enter_idle(rq->pelt, cfs_rq->avg.util_sum);
	update_cpu_capacity(rq);
	return cfs_rq->avg.load_avg || cfs_rq->avg.util_avg || READ_ONCE(rq->avg_rt.util_avg) ||
	       READ_ONCE(rq->avg_irq.util_avg);
}

/* util_est: the rq's estimate is the sum of its queued tasks' estimates. */
static void util_est_enqueue_task(struct cfs_rq *cfs_rq, struct task_struct *p)
{
	if (sched_feat(UTIL_EST))
		cfs_rq->avg.util_est.enqueued =
			util_est_enqueue(cfs_rq->avg.util_est.enqueued, p->se.avg.util_est);
}

static void util_est_dequeue_task(struct cfs_rq *cfs_rq, struct task_struct *p, bool sleep)
{
	if (!sched_feat(UTIL_EST))
		return;
	cfs_rq->avg.util_est.enqueued =
		util_est_dequeue(cfs_rq->avg.util_est.enqueued, p->se.avg.util_est);
	if (sleep)	/* a task's estimate is updated when it goes to sleep */
		p->se.avg.util_est = util_est_update(p->se.avg.util_est, task_util(p),
						     capacity_orig_of(rq_of(cfs_rq)->cpu),
						     sched_feat(UTIL_EST_FASTUP));
}

/* ---- enqueue, dequeue, pick ------------------------------------------------------------ */

static void account_entity_enqueue(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	update_load_add(&cfs_rq->load, se->load.weight);
	cfs_rq->nr_running++;
	cfs_rq->h_nr_running++;
	if (task_of(se)->policy == SCHED_IDLE)
		cfs_rq->idle_h_nr_running++;
	list_add(&se->group_node, &rq_of(cfs_rq)->cfs_tasks);	/* balance.c's LRU */
}

static void account_entity_dequeue(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	update_load_sub(&cfs_rq->load, se->load.weight);
	cfs_rq->nr_running--;
	cfs_rq->h_nr_running--;
	if (task_of(se)->policy == SCHED_IDLE)
		cfs_rq->idle_h_nr_running--;
	list_del_init(&se->group_node);
}

/* vruntime is kept relative to min_vruntime while a task is between run
 * queues (Linux 6.1): added back here unless it is a plain local wakeup,
 * which place_entity() positions instead. */
static void enqueue_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags)
{
	bool renorm = !(flags & ENQUEUE_WAKEUP) || (flags & ENQUEUE_MIGRATED);
	bool curr = cfs_rq->curr == se;

	if (renorm && curr)
		se->vruntime += cfs_rq->min_vruntime;
	update_curr(cfs_rq);
	if (renorm && !curr)
		se->vruntime += cfs_rq->min_vruntime;
	update_load_avg(cfs_rq, se, true);
	account_entity_enqueue(cfs_rq, se);
	if (flags & ENQUEUE_WAKEUP)
		place_entity(cfs_rq, se, false);
	if (!curr)
		__enqueue_entity(cfs_rq, se);
	se->on_rq = 1;
}

static void clear_buddies(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	if (cfs_rq->last == se)
		cfs_rq->last = NULL;
	if (cfs_rq->next == se)
		cfs_rq->next = NULL;
	if (cfs_rq->skip == se)
		cfs_rq->skip = NULL;
}

static void dequeue_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags)
{
	update_curr(cfs_rq);
	update_load_avg(cfs_rq, se, false);
	clear_buddies(cfs_rq, se);
	if (se != cfs_rq->curr)
		__dequeue_entity(cfs_rq, se);
	se->on_rq = 0;
	account_entity_dequeue(cfs_rq, se);
	if (!(flags & DEQUEUE_SLEEP))
		se->vruntime -= cfs_rq->min_vruntime;	/* leaving for another rq */
	update_min_vruntime(cfs_rq);
}

static void enqueue_task_fair(struct rq *rq, struct task_struct *p, int flags)
{
	lockdep_assert_held(&rq->lock);
	util_est_enqueue_task(&rq->cfs, p);
	enqueue_entity(&rq->cfs, &p->se, flags);
	cpufreq_update_util(rq, 0);
}

static void dequeue_task_fair(struct rq *rq, struct task_struct *p, int flags)
{
	lockdep_assert_held(&rq->lock);
	util_est_dequeue_task(&rq->cfs, p, flags & DEQUEUE_SLEEP);
	dequeue_entity(&rq->cfs, &p->se, flags);
	cpufreq_update_util(rq, 0);
}

static void set_next_entity(struct cfs_rq *cfs_rq, struct sched_entity *se)
{
	if (se->on_rq) {
		__dequeue_entity(cfs_rq, se);
		update_load_avg(cfs_rq, se, false);
	}
	se->exec_start = rq_of(cfs_rq)->clock_task;
	cfs_rq->curr = se;
	se->prev_sum_exec_runtime = se->sum_exec_runtime;
}

/* Linux: wakeup_preempt_entity(): -1 curr is behind, 0 within the
 * granularity, 1 se is ahead of curr by more than it. The granularity is in
 * se's virtual time so lighter tasks preempt less eagerly. */
static int wakeup_preempt_entity(struct sched_entity *curr, struct sched_entity *se)
{
	s64 vdiff = (s64)(curr->vruntime - se->vruntime);
	s64 gran = (s64)calc_delta_fair(sysctl_sched_wakeup_granularity, se);

	if (vdiff <= 0)
		return -1;
	return vdiff > gran ? 1 : 0;
}

/* Leftmost, unless a buddy (next, last) is not too far behind it. */
static struct sched_entity *pick_next_entity(struct cfs_rq *cfs_rq, struct sched_entity *curr)
{
	struct sched_entity *left = __pick_first_entity(cfs_rq), *se;

	if (!left || (curr && entity_before(curr, left)))
		left = curr;
	se = left;
	if (cfs_rq->skip && cfs_rq->skip == se) {
		struct sched_entity *second = curr == se ? __pick_first_entity(cfs_rq)
							 : __pick_next_entity(se);

		if (!second || (curr && curr != se && entity_before(curr, second)))
			second = curr;
		if (second && wakeup_preempt_entity(second, left) < 1)
			se = second;
	}
	if (cfs_rq->next && wakeup_preempt_entity(cfs_rq->next, left) < 1)
		se = cfs_rq->next;
	else if (cfs_rq->last && wakeup_preempt_entity(cfs_rq->last, left) < 1)
		se = cfs_rq->last;
	return se;
}

static struct task_struct *pick_next_task_fair(struct rq *rq)
{
	struct cfs_rq *cfs_rq = &rq->cfs;
	struct sched_entity *se;
	struct task_struct *p;

	lockdep_assert_held(&rq->lock);
	if (!cfs_rq->nr_running)
		return NULL;
	se = pick_next_entity(cfs_rq, NULL);
	clear_buddies(cfs_rq, se);
	set_next_entity(cfs_rq, se);
	p = task_of(se);
	list_move(&se->group_node, &rq->cfs_tasks);	/* most recently picked first */
	update_misfit_status(p, rq);
	return p;
}

static void put_prev_task_fair(struct rq *rq, struct task_struct *p)
{
	struct cfs_rq *cfs_rq = &rq->cfs;
	struct sched_entity *se = &p->se;

	lockdep_assert_held(&rq->lock);
	if (se->on_rq) {
		update_curr(cfs_rq);
		__enqueue_entity(cfs_rq, se);
		update_load_avg(cfs_rq, se, false);
	}
	cfs_rq->curr = NULL;
}

static void set_next_task_fair(struct rq *rq, struct task_struct *p, bool first)
{
	lockdep_assert_held(&rq->lock);
	if (task_on_rq_queued(p))
		list_move(&p->se.group_node, &rq->cfs_tasks);
	set_next_entity(&rq->cfs, &p->se);
	update_misfit_status(p, rq);
}

/* Linux: check_preempt_tick(): the slice is used up, or curr is more than a
 * slice ahead of the leftmost. */
static void check_preempt_tick(struct cfs_rq *cfs_rq, struct sched_entity *curr)
{
	u64 ideal = sched_slice(cfs_rq, curr);
	u64 ran = curr->sum_exec_runtime - curr->prev_sum_exec_runtime;
	struct sched_entity *first;
	s64 delta;

	if (ran > ideal) {
		resched_curr(rq_of(cfs_rq));
		clear_buddies(cfs_rq, curr);
		return;
	}
	if (ran < sysctl_sched_min_granularity)
		return;
	first = __pick_first_entity(cfs_rq);
	if (!first)
		return;
	delta = (s64)(curr->vruntime - first->vruntime);
	if (delta > 0 && (u64)delta > ideal)
		resched_curr(rq_of(cfs_rq));
}

static void task_tick_fair(struct rq *rq, struct task_struct *curr)
{
	struct cfs_rq *cfs_rq = &rq->cfs;

	lockdep_assert_held(&rq->lock);
	update_curr(cfs_rq);
	update_load_avg(cfs_rq, &curr->se, false);
	if (cfs_rq->nr_running > 1)
		check_preempt_tick(cfs_rq, &curr->se);
	update_misfit_status(curr, rq);
}

/* Linux: check_preempt_wakeup(). SCHED_IDLE never preempts; anything
 * preempts SCHED_IDLE; otherwise the wakeup granularity decides. */
static void check_preempt_wakeup(struct rq *rq, struct task_struct *p, int wake_flags)
{
	struct task_struct *curr = rq->curr;
	struct sched_entity *se = &curr->se, *pse = &p->se;

	lockdep_assert_held(&rq->lock);
	if (curr == p || rq->need_resched)
		return;
	if (curr->policy == SCHED_IDLE && p->policy != SCHED_IDLE) {
		resched_curr(rq);
		return;
	}
	if (p->policy != SCHED_NORMAL || !sched_feat(WAKEUP_PREEMPTION))
		return;	/* batch and idle tasks do not preempt */
	update_curr(&rq->cfs);
	if (sched_feat(NEXT_BUDDY) && !(wake_flags & WF_FORK))
		rq->cfs.next = pse;
	if (wakeup_preempt_entity(se, pse) == 1) {
		resched_curr(rq);
		/* The preempted task keeps a claim to run next (cache warm). */
		if (sched_feat(LAST_BUDDY) && se->on_rq)
			rq->cfs.last = se;
	}
}

static void yield_task_fair(struct rq *rq)
{
	struct cfs_rq *cfs_rq = &rq->cfs;

	lockdep_assert_held(&rq->lock);
	if (cfs_rq->nr_running <= 1)
		return;
	clear_buddies(cfs_rq, &rq->curr->se);
	update_curr(cfs_rq);
	cfs_rq->skip = &rq->curr->se;
}

/* A new task: its PELT signals start from its CPU's (Linux:
 * init_entity_runnable_average + post_init_entity_util_avg), its vruntime a
 * slice after min_vruntime, kept relative until enqueue. */
static void task_fork_fair(struct task_struct *p)
{
	struct rq *rq = task_rq(p);
	struct cfs_rq *cfs_rq = &rq->cfs;
	struct sched_entity *se = &p->se;
	long cap = ((long)capacity_orig_of(rq->cpu) - (long)cfs_rq->avg.util_avg) / 2;

	memset(&se->avg, 0, sizeof(se->avg));
	se->avg.load_avg = se->load.weight;
	if (cap > 0) {
		unsigned long u = cfs_rq->avg.util_avg;

		se->avg.util_avg = u ? MIN(u * se->load.weight / (cfs_rq->avg.load_avg + 1),
					   (unsigned long)cap)
				     : (unsigned long)cap;
	}
	se->avg.runnable_avg = se->avg.util_avg;
	update_curr(cfs_rq);
	se->vruntime = cfs_rq->min_vruntime;
	place_entity(cfs_rq, se, true);
	se->vruntime -= cfs_rq->min_vruntime;
}

/* Leaving for new_cpu: keep vruntime relative, and take the task's load
 * off the old rq (directly when we hold its lock, else via `removed`). */
static void migrate_task_rq_fair(struct task_struct *p, int new_cpu)
{
	struct cfs_rq *cfs_rq = &task_rq(p)->cfs;
	struct sched_entity *se = &p->se;

	/* A wakeup (queued nowhere): make vruntime relative to the old rq; a
	 * queued task's was made relative by its dequeue. */
	if (!p->on_rq)
		se->vruntime -= READ_ONCE(cfs_rq->min_vruntime);
	if (p->on_rq == TASK_ON_RQ_MIGRATING) {
		detach_entity_load_avg(cfs_rq, se);
	} else if (se->avg.last_update_time) {
		spin_lock(&cfs_rq->removed.lock);
		cfs_rq->removed.nr++;
		cfs_rq->removed.load_avg += se->avg.load_avg;
		cfs_rq->removed.util_avg += se->avg.util_avg;
		cfs_rq->removed.runnable_avg += se->avg.runnable_avg;
		spin_unlock(&cfs_rq->removed.lock);
	}
	se->avg.last_update_time = 0;	/* attach on the next enqueue */
	se->exec_start = 0;	/* migrated: no longer cache hot (balance.c task_hot) */
	p->placed_tick = 0;
}

static void prio_changed_fair(struct rq *rq, struct task_struct *p, int oldprio)
{
	lockdep_assert_held(&rq->lock);
	if (task_running(rq, p) && p->prio > oldprio)
		resched_curr(rq);
}

static void switched_from_fair(struct rq *rq, struct task_struct *p)
{
	lockdep_assert_held(&rq->lock);
	/* Keep vruntime meaningful if it comes back (Linux: detach_task_cfs_rq). */
	if (!task_on_rq_queued(p))
		p->se.vruntime -= rq->cfs.min_vruntime;
}

static void switched_to_fair(struct rq *rq, struct task_struct *p)
{
	lockdep_assert_held(&rq->lock);
	/* Back from another class while not queued: absolute again, as
	 * switched_from_fair left it relative (Linux: attach_task_cfs_rq). A
	 * queued task was made absolute by its enqueue. */
	if (!task_on_rq_queued(p))
		p->se.vruntime += rq->cfs.min_vruntime;
}

void init_cfs_rq(struct cfs_rq *cfs_rq)
{
	memset(cfs_rq, 0, sizeof(*cfs_rq));
	cfs_rq->tasks_timeline = RB_ROOT_CACHED;
	cfs_rq->min_vruntime = (u64)(-(1ll << 20));	/* wraps early, as Linux's does */
	spin_lock_init_class(&cfs_rq->removed.lock, LOCK_CLASS_RQ_INNER, 0);
}

/* ---- wakeup placement ---------------------------------------------------------------- */

static bool available_idle_cpu(int cpu)
{
	return cpu_active((unsigned int)cpu) && idle_cpu(cpu);
}

static bool cpus_share_cache(int a, int b)
{
	struct rq *rq = cpu_rq(a);

	return rq->nr_sd && (rq->sd[0].span & cpumask_of(b));
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

/* Linux 5.7: select_idle_capacity(): the first idle CPU of the asymmetric
 * domain (scanning from target) on which the task fits, else the idle CPU
 * with the most capacity; -1 if none is idle. */
int select_idle_capacity(struct task_struct *p, cpumask_t span, int target)
{
	unsigned long util = task_util_est_of(p), umin = p->uclamp_req[UCLAMP_MIN];
	unsigned long umax = p->uclamp_req[UCLAMP_MAX], best_cap = 0;
	cpumask_t cpus = span & p->cpus_allowed;
	int best = -1;

	for (int i = 0; i < NR_CPUS; i++) {
		int cpu = (target + i) % NR_CPUS;
		unsigned long cap = capacity_of((unsigned int)cpu);
		int fits;

		if (!(cpus & cpumask_of(cpu)) || !available_idle_cpu(cpu))
			continue;
		fits = util_fits_cpu(util, umin, umax, cpu);
		if (fits > 0)
			return cpu;
		if (fits < 0)
			cap = capacity_orig_of((unsigned int)cpu);
		if (cap > best_cap) {
			best_cap = cap;
			best = cpu;
		}
	}
	return best;
}

static bool asym_fits_cpu(struct task_struct *p, unsigned long util, int cpu)
{
	if (!cpu_topology.asym_cpucapacity)
		return true;
	return util_fits_cpu(util, p->uclamp_req[UCLAMP_MIN], p->uclamp_req[UCLAMP_MAX], cpu) > 0;
}

/* Linux: select_idle_cpu() over the LLC domain (our MC level): first idle. */
static int select_idle_cpu(struct task_struct *p, int target)
{
	struct rq *rq = cpu_rq(target);
	cpumask_t span = rq->nr_sd ? rq->sd[0].span : cpumask_of(target);

	for (int i = 0; i < NR_CPUS; i++) {
		int cpu = (target + i) % NR_CPUS;

		if ((span & p->cpus_allowed & cpumask_of(cpu)) && available_idle_cpu(cpu))
			return cpu;
	}
	return -1;
}

/* Linux: select_idle_sibling(). With ASYM_PREFER_PREV (Linux >= 5.10) an
 * idle target, prev or recently used CPU on which the task fits is taken
 * before any scan; without it (5.7-5.9) asymmetric systems scan at once. */
static int select_idle_sibling(struct task_struct *p, int prev, int target)
{
	struct rq *rq = cpu_rq(target);
	bool asym = cpu_topology.asym_cpucapacity && sched_feat(SELECT_IDLE_CAPACITY) &&
		    rq->sd_asym_cpucapacity;
	unsigned long util = task_util_est_of(p);	/* the clamps go separately */
	int recent = p->recent_used_cpu, i;

	if (asym && !sched_feat(ASYM_PREFER_PREV)) {
		i = select_idle_capacity(p, rq->sd_asym_cpucapacity->span, target);
		return i >= 0 ? i : target;
	}
	if (available_idle_cpu(target) && asym_fits_cpu(p, util, target))
		return target;
	if (prev != target && cpus_share_cache(prev, target) && available_idle_cpu(prev) &&
	    asym_fits_cpu(p, util, prev))
		return prev;
	if (recent >= 0 && recent != prev && recent != target && cpus_share_cache(recent, target) &&
	    available_idle_cpu(recent) && (p->cpus_allowed & cpumask_of(recent)) &&
	    asym_fits_cpu(p, util, recent)) {
		p->recent_used_cpu = prev;
		return recent;
	}
	if (asym) {
		i = select_idle_capacity(p, rq->sd_asym_cpucapacity->span, target);
		return i >= 0 ? i : target;
	}
	i = select_idle_cpu(p, target);
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
	unsigned int factor = cpu_rq(arch_cpu_id())->nr_sd ?
				      cpumask_weight(cpu_rq(arch_cpu_id())->sd[0].span) : 1;

	if (master < slave) {
		unsigned int t = master;

		master = slave;
		slave = t;
	}
	return !(slave < factor || master < slave * factor);
}

/* Linux: wake_affine() (WA_IDLE then WA_WEIGHT, simplified): the waking
 * CPU if it is idle or about to be (sync), else prev if prev is idle, else
 * the one with less load. */
static int wake_affine(struct task_struct *p, int this_cpu, int prev, bool sync)
{
	if (idle_cpu(this_cpu) && cpus_share_cache(this_cpu, prev))
		return idle_cpu(prev) ? prev : this_cpu;
	if (sync && cpu_rq(this_cpu)->nr_running == 1)
		return this_cpu;
	if (available_idle_cpu(prev))
		return prev;
	return cpu_load(cpu_rq(this_cpu)) < cpu_load(cpu_rq(prev)) ? this_cpu : prev;
}

/* Linux: find_idlest_cpu() for fork placement: the least loaded group of
 * each level, then its idlest CPU (an idle one, or the least loaded). */
static int find_idlest_cpu(struct task_struct *p, int cpu)
{
	struct rq *rq = cpu_rq(cpu);
	cpumask_t span = rq->nr_sd ? rq->sd[rq->nr_sd - 1].span : cpu_active_mask;
	unsigned long best_load = ~0ul;
	int best = cpu;

	span &= p->cpus_allowed & cpu_active_mask;
	if (cpu_topology.asym_cpucapacity && sched_feat(SELECT_IDLE_CAPACITY)) {
		int i = select_idle_capacity(p, span, cpu);

		if (i >= 0)
			return i;
	}
	for (int c = 0; c < NR_CPUS; c++) {
		struct rq *r = cpu_rq(c);
		unsigned long load;

		if (!(span & cpumask_of(c)))
			continue;
		if (idle_cpu(c))
			return c;
		load = (cpu_load(r) + 1) * SCHED_CAPACITY_SCALE / capacity_of((unsigned int)c) +
		       r->nr_running * 1024;
		if (load < best_load) {
			best_load = load;
			best = c;
		}
	}
	return best;
}

static int select_task_rq_fair(struct task_struct *p, int prev_cpu, int wake_flags)
{
	int this_cpu = (int)arch_cpu_id(), new_cpu = prev_cpu;
	bool sync = wake_flags & WF_SYNC;

	if (wake_flags & WF_FORK)
		return find_idlest_cpu(p, this_cpu);
	/* SIS_DEBOUNCE: placed in this tick already, so not moved again in it,
	 * idle or not (the 2017 RFC: the wakee counts as cache hot there). */
	if (sched_feat(SIS_DEBOUNCE) && placed_this_tick(p) &&
	    (p->cpus_allowed & cpumask_of(prev_cpu)) &&
	    cpu_online((unsigned int)prev_cpu))
		return prev_cpu;
	record_wakee(p);
	if (!wake_wide(p) && (p->cpus_allowed & cpumask_of(this_cpu)) && this_cpu != prev_cpu &&
	    cpus_share_cache(this_cpu, prev_cpu)) {
		new_cpu = wake_affine(p, this_cpu, prev_cpu, sync);
		if (new_cpu == this_cpu)
			p->stats.nr_wakeups_affine++;
	} else if (!wake_wide(p) && (p->cpus_allowed & cpumask_of(this_cpu)) &&
		   this_cpu != prev_cpu && !(sched_feat(SIS_DEBOUNCE) && cache_cold(p))) {
		/* Different LLCs: Linux's want_affine reaches up to the DIE domain. */
		new_cpu = wake_affine(p, this_cpu, prev_cpu, sync);
		if (new_cpu == this_cpu)
			p->stats.nr_wakeups_affine++;
	}
	new_cpu = select_idle_sibling(p, prev_cpu, new_cpu);
	if (idle_cpu(new_cpu))
		p->stats.nr_wakeups_idle++;
	if (new_cpu != prev_cpu && p->recent_used_cpu != prev_cpu)
		p->recent_used_cpu = prev_cpu;
	if (new_cpu != prev_cpu && placed_this_tick(p))
		p->stats.nr_wakeups_bounced++;	/* what SIS_DEBOUNCE forbids */
	p->placed_tick = tick_count((unsigned int)new_cpu) + 1;
	return new_cpu;
}

/* Newly idle: pull before going idle (balance.c). */
static int balance_fair(struct rq *rq, struct task_struct *prev)
{
	lockdep_assert_held(&rq->lock);
	return newidle_balance(rq);
}

const struct sched_class fair_sched_class = {
	.enqueue_task = enqueue_task_fair,
	.dequeue_task = dequeue_task_fair,
	.yield_task = yield_task_fair,
	.check_preempt_curr = check_preempt_wakeup,
	.pick_next_task = pick_next_task_fair,
	.put_prev_task = put_prev_task_fair,
	.set_next_task = set_next_task_fair,
	.balance = balance_fair,
	.select_task_rq = select_task_rq_fair,
	.migrate_task_rq = migrate_task_rq_fair,
	.task_tick = task_tick_fair,
	.task_fork = task_fork_fair,
	.update_curr = update_curr_fair,
	.switched_from = switched_from_fair,
	.switched_to = switched_to_fair,
	.prio_changed = prio_changed_fair,
};
