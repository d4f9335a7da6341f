/* stats.c - scheduler statistics in readable form (/proc/<pid>/sched and
 * /proc/schedstat-like) and the run-queue invariant checker that tests and
 * the debug build run. Reads rq state under rq->lock. */
#include "sched_internal.h"

void sched_print_task(const struct task_struct *p)
{
	const struct sched_statistics *s = &p->stats;

	printk("%s (%d, #threads: 1)\n", p->comm, p->pid);
	printk("-------------------------------------------------------------------\n");
	printk("se.exec_start                      : %llu\n", p->se.exec_start);
	printk("se.vruntime                        : %llu\n", p->se.vruntime);
	printk("se.sum_exec_runtime                : %llu\n", p->se.sum_exec_runtime);
	printk("se.nr_migrations                   : %llu\n", p->se.nr_migrations);
	printk("nr_switches                        : %llu\n", s->nr_switches);
	printk("nr_wakeups                         : %llu\n", s->nr_wakeups);
	printk("nr_wakeups_local                   : %llu\n", s->nr_wakeups_local);
	printk("nr_wakeups_remote                  : %llu\n", s->nr_wakeups_remote);
	printk("nr_wakeups_affine                  : %llu\n", s->nr_wakeups_affine);
	printk("nr_wakeups_idle                    : %llu\n", s->nr_wakeups_idle);
	printk("nr_wakeups_migrate                 : %llu\n", s->nr_wakeups_migrate);
	printk("nr_forced_migrations               : %llu\n", s->nr_forced_migrations);
	printk("nr_wakeups_bounced                 : %llu\n", s->nr_wakeups_bounced);
	printk("wait_sum                           : %llu\n", s->wait_sum);
	printk("wait_max                           : %llu\n", s->wait_max);
	printk("wait_count                         : %llu\n", s->wait_count);
	printk("se.avg.load_avg                    : %lu\n", p->se.avg.load_avg);
	printk("se.avg.runnable_avg                : %lu\n", p->se.avg.runnable_avg);
	printk("se.avg.util_avg                    : %lu\n", p->se.avg.util_avg);
	printk("se.avg.util_est.ewma               : %u\n", p->se.avg.util_est.ewma);
	printk("se.avg.util_est.enqueued           : %u\n", p->se.avg.util_est.enqueued);
	printk("policy                             : %u\n", p->policy);
	printk("prio                               : %d\n", p->prio);
	printk("uclamp.min / max                   : %u / %u\n", p->uclamp_req[UCLAMP_MIN],
	       p->uclamp_req[UCLAMP_MAX]);
}

void sched_print_rq_stats(unsigned int cpu)
{
	struct rq *rq = cpu_rq(cpu);
	const struct rq_lb_stats *lb = &rq->lb;

	printk("cpu%u nr_running=%u nr_switches=%llu idle_ns=%llu capacity_orig=%lu capacity=%lu "
	       "util=%lu rt_util=%lu irq_util=%lu misfit=%lu\n",
	       cpu, rq->nr_running, rq->nr_switches, rq->idle_time, rq->cpu_capacity_orig,
	       rq->cpu_capacity, cpu_util((int)cpu), rq->avg_rt.util_avg, rq->avg_irq.util_avg,
	       rq->misfit_task_load);
	printk("cpu%u lb idle: count=%llu balanced=%llu failed=%llu gained=%llu; busy: count=%llu "
	       "balanced=%llu failed=%llu gained=%llu; newidle: count=%llu gained=%llu; "
	       "active=%llu pushed=%llu misfit_pulls=%llu\n",
	       cpu, lb->lb_count[CPU_IDLE], lb->lb_balanced[CPU_IDLE], lb->lb_failed[CPU_IDLE],
	       lb->lb_gained[CPU_IDLE], lb->lb_count[CPU_NOT_IDLE], lb->lb_balanced[CPU_NOT_IDLE],
	       lb->lb_failed[CPU_NOT_IDLE], lb->lb_gained[CPU_NOT_IDLE],
	       lb->lb_count[CPU_NEWLY_IDLE], lb->lb_gained[CPU_NEWLY_IDLE], lb->alb_count,
	       lb->alb_pushed, lb->misfit_pulls);
}

/* ---- the run-queue invariant checker ---------------------------------------------
 * Run by the self-tests after every case (tests/kernel/selftest_debug.c), by the debug
 * build at every load balance (on the two run queues involved), and by the
 * random-operation tests. Each violation is one debug_report() (lockdep.h):
 * "BUG: sched invariant: <which> ...", CPU, thread, backtrace, counted. */

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			bad++;                                                                     \
			if (verbose)                                                               \
				debug_report("sched invariant", __VA_ARGS__);                      \
		}                                                                                  \
	} while (0)

static u64 last_min_vruntime[NR_CPUS]; /* under that CPU's rq->lock */
static bool last_min_valid[NR_CPUS];

/* EEVDF: a node's cached least vruntime is its subtree's. */
static u64 subtree_min_vruntime(const struct sched_entity *se)
{
	const struct rb_node *kids[2] = { se->run_node.left, se->run_node.right };
	u64 m = se->vruntime;

	for (int i = 0; i < 2; i++) {
		const struct sched_entity *c;

		if (!kids[i])
			continue;
		c = rb_entry(kids[i], struct sched_entity, run_node);
		if ((s64)(c->min_vruntime - m) < 0)
			m = c->min_vruntime;
	}
	return m;
}

/* EEVDF's invariants: the incremental sums are the tree's (sum (v - zero) w, sum w); the
 * weighted lags sum to zero, sum w (V - v) in (-W, 0] for V rounded down as
 * avg_vruntime() rounds it; and with two or more queued, the pick is eligible. */
static void check_eevdf_sums(struct rq *rq, struct cfs_rq *cfs, s64 tree_sum, long tree_load,
			     bool verbose, int *badp)
{
	struct sched_entity *curr = cfs->curr;
	s64 sum = tree_sum, vkey, lag_sum;
	long load = tree_load;
	int bad = 0;

	CHECK(tree_sum == cfs->avg_vruntime && tree_load == cfs->avg_load,
	      "cpu%u: eevdf avg_vruntime %lld / avg_load %ld, the tree's %lld / %ld", rq->cpu,
	      (long long)cfs->avg_vruntime, cfs->avg_load, (long long)tree_sum, tree_load);
	if (curr && curr->on_rq) {
		sum += (s64)(curr->vruntime - cfs->zero_vruntime) * (s64)curr->load.weight;
		load += (long)curr->load.weight;
	}
	if (load) {
		vkey = (sum < 0 ? sum - (load - 1) : sum) / load;
		lag_sum = vkey * load - sum; /* sum w_i (V - v_i) */
		CHECK(lag_sum <= 0 && lag_sum > -load,
		      "cpu%u: eevdf weighted lags sum to %lld (W %ld)", rq->cpu, (long long)lag_sum,
		      load);
	}
	if (cfs->nr_running >= 2) {
		struct sched_entity *pick = pick_eevdf(cfs);

		CHECK(pick && entity_eligible(cfs, pick), "cpu%u: eevdf pick not eligible",
		      rq->cpu);
	}
	*badp += bad;
}

/* One cfs_rq of the hierarchy, and those of the group entities on it: tree order and
 * placement, counts and weights (h_nr_running: the tasks below). Returns the tasks. */
static unsigned int check_cfs_level(struct rq *rq, struct cfs_rq *cfs, bool verbose, int *badp)
{
	unsigned int n = 0, h = 0;
	unsigned long weight = 0;
	u64 prev_v = 0;
	int bad = 0;
	bool eevdf = sched_eevdf();
	s64 lsum = 0;

	for (struct rb_node *nd = rb_first_cached(&cfs->tasks_timeline); nd; nd = rb_next(nd)) {
		struct sched_entity *se = rb_entry(nd, struct sched_entity, run_node);

		u64 key = eevdf ? se->deadline : se->vruntime; /* the tree's order */

		CHECK(n == 0 || (s64)(key - prev_v) >= 0, "cpu%u: tree out of order", rq->cpu);
		if (eevdf) {
			CHECK(se->min_vruntime == subtree_min_vruntime(se),
			      "cpu%u: augmented min_vruntime stale", rq->cpu);
			lsum += (s64)(se->vruntime - cfs->zero_vruntime) * (s64)se->load.weight;
		}
		CHECK(se->on_rq && cfs->curr != se, "cpu%u: entity in the tree not on_rq or curr",
		      rq->cpu);
		if (entity_is_task(se)) {
			struct task_struct *p = task_of(se);

			CHECK(p->cpu == (int)rq->cpu,
			      "cpu%u: %s (pid %d) queued here but p->cpu=%d", rq->cpu, p->comm,
			      p->pid, p->cpu);
			CHECK(task_on_rq_queued(p), "cpu%u: %s (pid %d) in the tree but on_rq=%d",
			      rq->cpu, p->comm, p->pid, p->on_rq);
			CHECK(rq->curr != p,
			      "cpu%u: %s (pid %d) both running and queued in the tree", rq->cpu,
			      p->comm, p->pid);
			CHECK(cfs_rq_of(se) == cfs, "cpu%u: %s (pid %d) in another group's tree",
			      rq->cpu, p->comm, p->pid);
			h++;
		} else {
			h += check_cfs_level(rq, se->my_q, verbose, &bad);
		}
		prev_v = key;
		weight += se->load.weight;
		n++;
	}
	if (eevdf)
		check_eevdf_sums(rq, cfs, lsum, (long)weight, verbose, &bad);
	if (cfs->curr && cfs->curr->on_rq) {
		weight += cfs->curr->load.weight;
		h += entity_is_task(cfs->curr)
			     ? 1
			     : check_cfs_level(rq, cfs->curr->my_q, verbose, &bad);
		n++;
	}
	CHECK(n == cfs->nr_running, "cpu%u: cfs nr_running %u, found %u queued", rq->cpu,
	      cfs->nr_running, n);
	CHECK(h == cfs->h_nr_running, "cpu%u: cfs h_nr_running %u, found %u tasks", rq->cpu,
	      cfs->h_nr_running, h);
	CHECK(weight == cfs->load.weight, "cpu%u: cfs load weight %lu, queued entities sum to %lu",
	      rq->cpu, cfs->load.weight, weight);
	*badp += bad;
	return h;
}

/* The CFS side of one rq: the hierarchy, and the root's min_vruntime never going back. */
static int check_cfs_rq(struct rq *rq, bool verbose)
{
	struct cfs_rq *cfs = &rq->cfs;
	int bad = 0;

	check_cfs_level(rq, cfs, verbose, &bad);
	if (!last_min_valid[rq->cpu]) { /* the first look: nothing to compare with */
		last_min_valid[rq->cpu] = true;
		last_min_vruntime[rq->cpu] = cfs->min_vruntime;
	}
	CHECK((s64)(cfs->min_vruntime - last_min_vruntime[rq->cpu]) >= 0,
	      "cpu%u: min_vruntime went back from %llu to %llu", rq->cpu,
	      last_min_vruntime[rq->cpu], cfs->min_vruntime);
	last_min_vruntime[rq->cpu] = cfs->min_vruntime;
	return bad;
}

/* uclamp (uclamp.c): each bucket counts exactly the queued tasks marked active
 * in it, holds a value at least theirs, and the rq's value is its top non-empty
 * bucket's (an empty rq: no check, the max clamp is held). */
static void uclamp_count(struct task_struct *p, unsigned int cnt[UCLAMP_CNT][UCLAMP_BUCKETS],
			 const struct rq *rq, int *bad, bool verbose)
{
	for (int id = 0; id < UCLAMP_CNT; id++) {
		const struct uclamp_se *uc = &p->uclamp[id];

		if (!uc->active)
			continue;
		cnt[id][uc->bucket_id]++;
		if (uc->value > rq->uclamp[id].bucket[uc->bucket_id].value) {
			++*bad;
			if (verbose)
				debug_report("sched invariant",
					     "cpu%u: uclamp %d bucket %u value %u below %s's %u",
					     rq->cpu, id, uc->bucket_id,
					     rq->uclamp[id].bucket[uc->bucket_id].value, p->comm,
					     uc->value);
		}
	}
}

static int check_uclamp_rq(struct rq *rq, bool verbose)
{
	unsigned int cnt[UCLAMP_CNT][UCLAMP_BUCKETS] = { { 0 } };
	struct list_head *pos;
	int bad = 0;

	list_for_each(pos, &rq->cfs_tasks)
		uclamp_count(container_of(pos, struct task_struct, se.group_node), cnt, rq, &bad,
			     verbose);
	for (int prio = 0; prio < MAX_RT_PRIO; prio++)
		list_for_each(pos, &rq->rt.queue[prio])
			uclamp_count(container_of(pos, struct task_struct, rt.run_list), cnt, rq,
				     &bad, verbose);
	for (int id = 0; id < UCLAMP_CNT; id++) {
		int top = -1;

		for (int b = 0; b < UCLAMP_BUCKETS; b++) {
			CHECK(cnt[id][b] == rq->uclamp[id].bucket[b].tasks,
			      "cpu%u: uclamp %d bucket %d counts %u tasks, %u queued are in it",
			      rq->cpu, id, b, rq->uclamp[id].bucket[b].tasks, cnt[id][b]);
			if (cnt[id][b])
				top = b;
		}
		CHECK(top < 0 || rq->uclamp[id].value == rq->uclamp[id].bucket[top].value,
		      "cpu%u: uclamp %d rq value %u, top bucket %d holds %u", rq->cpu, id,
		      rq->uclamp[id].value, top, top < 0 ? 0 : rq->uclamp[id].bucket[top].value);
	}
	return bad;
}

/* rt.c's push/pull bookkeeping: the migratory count, the overload mask, the
 * pushable list (queued, not running, in priority order) and highest prios. */
static int check_rt_push_state(struct rq *rq, bool verbose)
{
	unsigned int migratory = 0;
	int bad = 0, prev_prio = -1, first = MAX_RT_PRIO - 1, next = MAX_RT_PRIO - 1;
	struct list_head *pos;

	for (int prio = 0; prio < MAX_RT_PRIO; prio++)
		list_for_each(pos, &rq->rt.queue[prio]) {
			migratory +=
				container_of(pos, struct task_struct, rt.run_list)->rt.migratory;
			first = MIN(first, prio);
		}
	list_for_each(pos, &rq->rt.pushable_tasks) {
		struct task_struct *p = container_of(pos, struct task_struct, rt.pushable_node);

		CHECK(p->rt.on_rq && p->cpu == (int)rq->cpu && rq->curr != p &&
			      p->prio >= prev_prio,
		      "cpu%u: pushable %s (pid %d) is not a waiting RT task here in order", rq->cpu,
		      p->comm, p->pid);
		next = prev_prio < 0 ? p->prio : next;
		prev_prio = p->prio;
	}
	CHECK(migratory == rq->rt.rt_nr_migratory, "cpu%u: rt_nr_migratory %u, counted %u", rq->cpu,
	      rq->rt.rt_nr_migratory, migratory);
	CHECK(rq->rt.overloaded == (migratory && rq->rt.rt_nr_running > 1) &&
		      rq->rt.overloaded == cpumask_test_cpu(rq->cpu, &sched_rto_mask),
	      "cpu%u: rt overloaded %d, in rto_mask %d", rq->cpu, rq->rt.overloaded,
	      cpumask_test_cpu(rq->cpu, &sched_rto_mask));
	CHECK(rq->rt.highest_prio_curr == first && rq->rt.highest_prio_next == next,
	      "cpu%u: rt highest prio %d/%d, queued say %d/%d", rq->cpu, rq->rt.highest_prio_curr,
	      rq->rt.highest_prio_next, first, next);
	return bad;
}

/* One rq, locked: its classes' counts agree with what is queued, and the
 * sum over the classes is rq->nr_running. */
static int check_rq(struct rq *rq, bool verbose)
{
	unsigned int rt_n = 0, n;
	int bad = check_cfs_rq(rq, verbose);

	for (int prio = 0; prio < MAX_RT_PRIO; prio++) {
		bool bit = rq->rt.bitmap[prio / 64] >> (prio % 64) & 1;
		struct list_head *pos;

		CHECK(bit == !list_empty(&rq->rt.queue[prio]),
		      "cpu%u: rt bitmap bit %d is %d but the queue is %s", rq->cpu, prio, bit,
		      list_empty(&rq->rt.queue[prio]) ? "empty" : "not empty");
		list_for_each(pos, &rq->rt.queue[prio]) {
			struct task_struct *p = container_of(pos, struct task_struct, rt.run_list);

			CHECK(p->cpu == (int)rq->cpu && task_on_rq_queued(p) && p->prio == prio,
			      "cpu%u: rt queue %d holds %s (pid %d, cpu %d, on_rq %d, prio %d)",
			      rq->cpu, prio, p->comm, p->pid, p->cpu, p->on_rq, p->prio);
			rt_n++;
		}
	}
	CHECK(rt_n == rq->rt.rt_nr_running, "cpu%u: rt_nr_running %u, found %u queued", rq->cpu,
	      rq->rt.rt_nr_running, rt_n);
	bad += check_rt_push_state(rq, verbose);
	/* balance.c walks cfs_tasks: exactly the queued CFS tasks, the running one too. */
	n = 0;
	for (struct list_head *pos = rq->cfs_tasks.next; pos != &rq->cfs_tasks && n <= 100000;
	     pos = pos->next) {
		struct task_struct *p = container_of(pos, struct task_struct, se.group_node);

		CHECK(p->cpu == (int)rq->cpu && p->se.on_rq,
		      "cpu%u: cfs_tasks holds %s (pid %d, cpu %d, se.on_rq %d)", rq->cpu, p->comm,
		      p->pid, p->cpu, p->se.on_rq);
		n++;
	}
	CHECK(n == rq->cfs.h_nr_running, "cpu%u: cfs h_nr_running %u, cfs_tasks holds %u", rq->cpu,
	      rq->cfs.h_nr_running, n);
	n = rq->cfs.h_nr_running + (rq->rt.rt_throttled ? 0 : rq->rt.rt_nr_running) +
	    rq->dl.dl_nr_running + (rq->stop && task_on_rq_queued(rq->stop) ? 1 : 0);
	CHECK(n == rq->nr_running, "cpu%u: nr_running %u, the classes say %u", rq->cpu,
	      rq->nr_running, n);
	CHECK(rq->curr && (rq->curr == rq->idle || rq->curr->cpu == (int)rq->cpu),
	      "cpu%u: running task %s has p->cpu=%d", rq->cpu, rq->curr ? rq->curr->comm : "?",
	      rq->curr ? rq->curr->cpu : -1);
	CHECK(cpudl_holds(rq->cpu, rq->dl.dl_nr_running != 0, rq->dl.earliest_dl),
	      "cpu%u: cpudl does not hold its earliest deadline (%u DL tasks, earliest %llu)",
	      rq->cpu, rq->dl.dl_nr_running, rq->dl.earliest_dl);
	bad += check_uclamp_rq(rq, verbose);
	return bad;
}

/* A CPU's rq is (re)initialized: its min_vruntime starts again. */
void sched_debug_rq_init(unsigned int cpu)
{
	last_min_valid[cpu] = false;
}

/* The debug build, at every load balance: the two rqs involved, both locked. */
void sched_debug_check_rqs(struct rq *a, struct rq *b)
{
	lockdep_assert_held(&a->lock);
	lockdep_assert_held(&b->lock);
	check_rq(a, true);
	if (b != a)
		check_rq(b, true);
}

/* With every rq locked: each task queued in a run queue is queued in exactly
 * one, and every task that says it is queued is found in one. A task between
 * two queues (TASK_ON_RQ_MIGRATING) is in none. */
static unsigned int check_gen;

static void mark_queued(struct task_struct *p, unsigned int cpu, int *bad, bool verbose)
{
	if (p->debug_seen_gen == check_gen && p->debug_seen_cpu != (int)cpu) {
		(*bad)++;
		if (verbose)
			debug_report("sched invariant",
				     "%s (pid %d) on two run queues: cpu%d and cpu%u", p->comm,
				     p->pid, p->debug_seen_cpu, cpu);
	}
	p->debug_seen_gen = check_gen;
	p->debug_seen_cpu = (int)cpu;
}

/* Every task queued in cfs (curr of a group excepted: the rq's curr), down the groups. */
static void mark_cfs_queued(struct cfs_rq *cfs, unsigned int cpu, int *bad, bool verbose)
{
	for (struct rb_node *nd = rb_first_cached(&cfs->tasks_timeline); nd; nd = rb_next(nd)) {
		struct sched_entity *se = rb_entry(nd, struct sched_entity, run_node);

		if (entity_is_task(se))
			mark_queued(task_of(se), cpu, bad, verbose);
		else
			mark_cfs_queued(se->my_q, cpu, bad, verbose);
	}
	if (cfs->curr && cfs->curr->on_rq && !entity_is_task(cfs->curr))
		mark_cfs_queued(cfs->curr->my_q, cpu, bad, verbose);
}

struct task_check {
	int bad;
	bool verbose;
};

static void check_one_task(struct task_struct *p, void *arg)
{
	struct task_check *c = arg;
	bool verbose = c->verbose, seen = p->debug_seen_gen == check_gen;
	int bad = 0;

	if (p->is_idle || p->sched_class == &stop_sched_class)
		return;
	/* a throttled DL task is queued in no tree until its timer (Linux too);
	 * one whose CPU went offline waits there for it (dl_task_offline_migration()) */
	CHECK(seen || p->on_rq != TASK_ON_RQ_QUEUED || (dl_task(p) && p->dl.dl_throttled),
	      "%s (pid %d) is runnable (on_rq=1, cpu %d) but on no run queue", p->comm, p->pid,
	      p->cpu);
	CHECK(!seen || p->on_rq == TASK_ON_RQ_QUEUED,
	      "%s (pid %d) is on cpu%d's run queue but on_rq=%d", p->comm, p->pid,
	      p->debug_seen_cpu, p->on_rq);
	c->bad += bad;
}

static int check_all_tasks(bool verbose)
{
	struct task_check c = { 0, verbose };
	unsigned int cpu;
	int bad = 0;

	check_gen++;
	for_each_cpu(cpu, cpu_online_mask) {
		struct rq *rq = cpu_rq(cpu);

		mark_cfs_queued(&rq->cfs, cpu, &bad, verbose);
		for (int prio = 0; prio < MAX_RT_PRIO; prio++) {
			struct list_head *pos;

			list_for_each(pos, &rq->rt.queue[prio])
				mark_queued(container_of(pos, struct task_struct, rt.run_list), cpu,
					    &bad, verbose);
		}
		for (struct rb_node *nd = rb_first_cached(&rq->dl.root); nd; nd = rb_next(nd))
			mark_queued(container_of(rb_entry(nd, struct sched_dl_entity, rb_node),
						 struct task_struct, dl),
				    cpu, &bad, verbose);
		if (rq->cfs.curr && rq->cfs.curr->on_rq && rq->curr != rq->idle)
			mark_queued(rq->curr, cpu, &bad, verbose);
	}
	for_each_task(check_one_task, &c);
	return bad + c.bad;
}

/* Every online rq, all locked at once (in the lock order), then the task
 * list. Returns the number of violations (each reported when verbose). */
int sched_check_invariants(bool verbose)
{
	unsigned long flags = arch_irq_save();
	unsigned int cpu;
	int bad = 0;

	for_each_cpu(cpu, cpu_online_mask)
		spin_lock(&cpu_rq(cpu)->lock);
	for_each_cpu(cpu, cpu_online_mask)
		bad += check_rq(cpu_rq(cpu), verbose);
	bad += check_all_tasks(verbose);
	for_each_cpu(cpu, cpu_online_mask)
		spin_unlock(&cpu_rq(cpu)->lock);
	arch_irq_restore(flags);
	return bad;
}

/* Idle time so far, the current stretch included (rq->lock held). */
static u64 rq_idle_time(struct rq *rq, u64 now)
{
	u64 idle = rq->idle_time;

	if (rq->curr == rq->idle && now > rq->idle_start)
		idle += now - rq->idle_start;
	return idle;
}

/* For the shell's idle %: idle time so far, the current idle stretch included. */
u64 cpu_idle_time_ns(unsigned int cpu)
{
	struct rq *rq = cpu_rq(cpu);
	unsigned long flags = spin_lock_irqsave(&rq->lock);
	u64 idle = rq_idle_time(rq, arch_clock_ns());

	spin_unlock_irqrestore(&rq->lock, flags);
	return idle;
}

/* The shell's IDLE% over the last second needs each CPU's idle time a second ago: the
 * tick keeps one sample (clock, idle time) per 1/16 s slot, 32 slots (2 s) a CPU, taken
 * at the slot's first tick, under rq->lock. An idle CPU's tick is stopped (NO_HZ) and
 * takes none: between two samples the idle time is interpolated, which is exact for a
 * CPU busy throughout and, across a tick-stopped gap, off by the few ms it ran before
 * its first tick. */
#define IDLE_HIST_SLOTS 32
#define IDLE_HIST_NS	(NSEC_PER_SEC / 16)
struct idle_sample {
	u64 t, idle;
};
static struct idle_sample idle_hist[NR_CPUS][IDLE_HIST_SLOTS];

void idle_history_tick(void)
{
	struct rq *rq = this_rq();
	u64 now = arch_clock_ns();
	struct idle_sample *s = &idle_hist[rq->cpu][now / IDLE_HIST_NS % IDLE_HIST_SLOTS];

	if (s->t && s->t / IDLE_HIST_NS == now / IDLE_HIST_NS)
		return; /* this slot has its sample */
	spin_lock(&rq->lock);
	s->t = now;
	s->idle = rq_idle_time(rq, now);
	spin_unlock(&rq->lock);
}

u64 cpu_idle_time_since(unsigned int cpu, u64 t, u64 *now)
{
	struct rq *rq = cpu_rq(cpu);
	unsigned long flags = spin_lock_irqsave(&rq->lock);
	struct idle_sample a = { 0, 0 }, b; /* the last sample at or before t, the first after */
	u64 at, idle_now;

	b.t = arch_clock_ns();
	b.idle = idle_now = rq_idle_time(rq, b.t);
	*now = b.t;
	for (int i = 0; i < IDLE_HIST_SLOTS; i++) {
		const struct idle_sample *s = &idle_hist[cpu][i];

		if (s->t && s->t <= t && s->t >= a.t)
			a = *s;
		else if (s->t > t && s->t < b.t)
			b = *s;
	}
	spin_unlock_irqrestore(&rq->lock, flags);
	if (t >= *now)
		return 0;
	at = a.idle;
	if (b.t > a.t && b.idle > a.idle)
		at += (b.idle - a.idle) * (t - a.t) / (b.t - a.t);
	return idle_now - MIN(at, idle_now);
}

bool sched_pelt_timing;

/* E3: CFS PELT updates on every CPU so far, and their time while timing was
 * on. Read without the rq locks: the benchmark reads them with its
 * workload finished, and a sum one update stale would not matter. */
void sched_pelt_stats(bool timing, u64 *updates, u64 *ns)
{
	*updates = *ns = 0;
	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		*updates += READ_ONCE(cpu_rq(cpu)->nr_pelt_updates);
		*ns += READ_ONCE(cpu_rq(cpu)->pelt_update_ns);
	}
	WRITE_ONCE(sched_pelt_timing, timing);
}

/* "SD_A|SD_B" for the flags of include/topology.h ("none" if none). */
static void format_sd_flags(char *buf, size_t size, unsigned int flags)
{
	static const char *const names[] = { "SD_SHARE_PKG_RESOURCES", "SD_ASYM_CPUCAPACITY",
					     "SD_ASYM_CPUCAPACITY_FULL" };
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < 32 && n < size; i++)
		if (flags & (1u << i))
			n += (size_t)ksnprintf(buf + n, size - n, "%s%s", n ? "|" : "",
					       i < ARRAY_SIZE(names) ? names[i] : "?");
	if (!flags)
		strlcpy_k(buf, "none", size);
}

/* The shell's `domains`: each CPU's rq->sd levels as the balancer uses them. */
void sched_print_domains(void)
{
	static const char *const level_name[SD_NR_LEVELS] = { "MC", "DIE" };
	unsigned int cpu;

	for_each_cpu(cpu, cpu_online_mask) {
		struct rq *rq = cpu_rq(cpu);

		for (int i = 0; i < rq->nr_sd; i++) {
			const struct sched_domain *sd = &rq->sd[i];
			char span[64], groups[400], flags[96];
			size_t n = 0;

			topology_format_mask(span, sizeof(span), &sd->span);
			groups[0] = '\0';
			for (int g = 0; g < sd->nr_groups && n < sizeof(groups); g++) {
				char m[64];

				topology_format_mask(m, sizeof(m), &sd->groups[g]);
				n += (size_t)ksnprintf(groups + n, sizeof(groups) - n, "{%s}", m);
			}
			format_sd_flags(flags, sizeof(flags), sd->flags);
			printk("cpu%u %s span=%s groups=%s flags=%s%s interval=%lums "
			       "imbalance_pct=%u nr_balance_failed=%u\n",
			       cpu, sd->level < SD_NR_LEVELS ? level_name[sd->level] : "?", span,
			       groups, flags, sd == rq->sd_asym_cpucapacity ? " asym" : "",
			       sd->balance_interval, sd->imbalance_pct, sd->nr_balance_failed);
		}
	}
}

/* For the shell: which class runs p ("stop" and "idle" tasks are the
 * scheduler's own and refuse affinity, nice and policy changes). */
const char *task_class_name(const struct task_struct *p)
{
	if (p->sched_class == &stop_sched_class)
		return "stop";
	if (p->sched_class == &idle_sched_class || p->is_idle)
		return "idle";
	if (p->sched_class == &dl_sched_class)
		return "dl";
	return p->sched_class == &rt_sched_class ? "rt" : "fair";
}
