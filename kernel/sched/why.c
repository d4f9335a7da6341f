/* why.c - the shell's `why PID`: a task's last wakeup placements (prev, waker,
 * target, chosen CPU and the rule of select_task_rq_fair() that chose it), its
 * misfit status and its last load-balance move. fair_select.c and balance.c note each
 * decision cheaply into the task (struct sched_why, include/sched.h); the CPUs
 * considered and which fit are worked out here when printed. Not the decisions
 * themselves. No lock of its own: the shell reads a copy (a hint). */
#include "sched_internal.h"

/* Under p->pi_lock, from select_task_rq_fair(): a few stores and one fit test. */
void why_note_wakeup(struct task_struct *p, int prev, int target, int chosen, enum why_rule rule,
		     int wake_flags)
{
	struct why_wakeup *w = &p->why.wakeup[p->why.nr % WHY_NR_WAKEUPS];

	w->ns = arch_clock_ns();
	w->prev = (s16)prev;
	w->waker = (s16)arch_cpu_id();
	w->target = (s16)target;
	w->chosen = (s16)chosen;
	w->util = (u16)MIN(task_util_est_of(p), 0xffffUL);
	w->rule = (u8)rule;
	w->sync = wake_flags & WF_SYNC;
	w->fits = task_fits_cpu(p, chosen);
	p->why.nr++;
}

/* Under the source rq's lock, from balance.c detach_task(). */
void why_note_move(struct task_struct *p, int src, int dst, int level, int idle, int type,
		   bool active)
{
	struct why_move *m = &p->why.move;

	m->ns = arch_clock_ns();
	m->src = (s16)src;
	m->dst = (s16)dst;
	m->level = (u8)level;
	m->idle = (u8)idle;
	m->type = (u8)type;
	m->active = active;
	m->kind = WHY_MOVE_BALANCE;
}

/* Under both rq locks, from rt.c's and deadline.c's push and pull. */
void why_note_push_pull(struct task_struct *p, int src, int dst, enum why_move_kind kind)
{
	struct why_move *m = &p->why.move;

	m->ns = arch_clock_ns();
	m->src = (s16)src;
	m->dst = (s16)dst;
	m->active = false;
	m->kind = (u8)kind;
}

static const char *rule_text(const struct why_wakeup *w)
{
	switch ((enum why_rule)w->rule) {
	case WHY_FORK:
		return "find_idlest_cpu(): a new task, the idlest group then its idlest CPU";
	case WHY_DEBOUNCE:
		return "SIS_DEBOUNCE: already placed in this tick, kept on prev";
	case WHY_TARGET_IDLE:
		return "select_idle_sibling(): target is idle";
	case WHY_PREV_IDLE:
		return "select_idle_sibling(): prev is idle and shares target's cache: prefer-prev";
	case WHY_RECENT_IDLE:
		return "select_idle_sibling(): recent_used_cpu is idle";
	case WHY_IDLE_CAPACITY:
		return w->fits ? "select_idle_capacity(): the first idle CPU from target on which "
				 "util fits"
			       : "select_idle_capacity(): no idle CPU fits util; the idle one with "
				 "the most capacity";
	case WHY_IDLE_CPU:
		return "select_idle_cpu(): the first idle CPU of target's cache domain (MC)";
	case WHY_NO_IDLE:
		return "no idle CPU in the scan: target";
	case WHY_EAS:
		return "find_energy_efficient_cpu(): EAS, the least energy";
	case WHY_NR_RULES:
		break;
	}
	return "?";
}

/* The rule of p's newest recorded wakeup (a copy's: a hint), "none" before any. */
const char *sched_why_last_rule(const struct task_struct *p)
{
	struct why_wakeup w;
	unsigned int nr = p->why.nr;

	if (!nr)
		return "none";
	w = p->why.wakeup[(nr - 1) % WHY_NR_WAKEUPS];
	return rule_text(&w);
}

/* The CPUs the rule looked at: the scan's span for the scanning rules, the
 * named CPUs for the others (domains as they are now). */
static void considered(const struct task_struct *p, const struct why_wakeup *w, cpumask_t *m)
{
	struct rq *rq = cpu_rq((unsigned int)w->target);
	const struct sched_domain *asym = rq->sd_asym_cpucapacity;

	cpumask_clear(m);
	switch ((enum why_rule)w->rule) {
	case WHY_FORK:
	case WHY_EAS:
		cpumask_and(m, &p->cpus_allowed, cpu_online_mask);
		return;
	case WHY_IDLE_CAPACITY:
	case WHY_IDLE_CPU:
	case WHY_NO_IDLE:
		if (asym && sched_feat(SELECT_IDLE_CAPACITY) && w->rule != WHY_IDLE_CPU)
			cpumask_and(m, &asym->span, &p->cpus_allowed);
		else if (rq->nr_sd)
			cpumask_and(m, &rq->sd[0].span, &p->cpus_allowed);
		break;
	default:
		break;
	}
	__cpumask_set_cpu((unsigned int)w->chosen, m);
	if (w->rule != WHY_DEBOUNCE)
		__cpumask_set_cpu((unsigned int)w->target, m);
	if (w->rule != WHY_TARGET_IDLE)
		__cpumask_set_cpu((unsigned int)w->prev, m);
}

static void print_wakeup(const struct task_struct *p, const struct why_wakeup *w)
{
	char seen[64], fit[64];
	cpumask_t m, f;
	unsigned int cpu;
	const char *how = w->rule == WHY_FORK	  ? "fork: the parent's CPU"
			  : w->target == w->prev  ? "prev"
			  : w->target == w->waker ? "wake_affine() pulled it to the waker's CPU"
						  : "";

	considered(p, w, &m);
	cpumask_clear(&f);
	for_each_cpu(cpu, &m)
		if (util_fits_cpu(w->util, p->uclamp_req[UCLAMP_MIN], p->uclamp_req[UCLAMP_MAX],
				  (int)cpu) > 0)
			__cpumask_set_cpu(cpu, &f);
	topology_format_mask(seen, sizeof(seen), &m);
	topology_format_mask(fit, sizeof(fit), &f);
	printk("  %llu.%03llu s: prev %d, waker %d%s, target %d (%s) -> CPU %d\n",
	       w->ns / NSEC_PER_SEC, w->ns / NSEC_PER_MSEC % 1000, w->prev, w->waker,
	       w->sync ? " (sync)" : "", w->target, how, w->chosen);
	printk("    rule: %s%s\n", rule_text(w),
	       w->rule >= WHY_TARGET_IDLE && w->rule <= WHY_RECENT_IDLE &&
			       cpu_topology.asym_cpucapacity
		       ? " and util fits it (asym_fits_cpu)"
		       : "");
	printk("    considered %s; util %u fits (util x 1.25 < capacity_of, now) %s\n", seen,
	       w->util, cpumask_empty(&f) ? "none" : fit);
}

static void print_misfit(const struct task_struct *p)
{
	int cpu = p->cpu;
	unsigned long util = task_util_est_of(p), cap = capacity_of((unsigned int)cpu);

	if (!cpu_topology.asym_cpucapacity) {
		printk("misfit: never (symmetric capacities)\n");
		return;
	}
	if (p->nr_cpus_allowed == 1) {
		printk("misfit: never (pinned to one CPU)\n");
		return;
	}
	if (task_fits_cpu(p, cpu))
		printk("misfit: no - util %lu fits CPU %d (capacity_of %lu: %lu x 1.25 < %lu)\n",
		       util, cpu, cap, util, cap);
	else
		printk("misfit: yes - util %lu does not fit CPU %d (capacity_of %lu)%s\n", util,
		       cpu, cap,
		       !sched_feat(MISFIT) ? "; NO_MISFIT: the balancer ignores it"
		       : capacity_orig_of((unsigned int)cpu) == SCHED_CAPACITY_SCALE
			       ? "; a CPU of the most capacity already: nowhere bigger to go"
			       : "; the balancer pulls it to a CPU of more capacity "
				 "(migrate_misfit)");
}

static void print_move(const struct why_move *m)
{
	static const char *const level_name[] = { "MC", "DIE" };
	static const char *const type_name[] = {
		"migrate_load: load imbalance between the groups",
		"migrate_util: the destination group had spare capacity",
		"migrate_task: the destination group had fewer tasks / an idle CPU",
		"migrate_misfit: the task did not fit its CPU",
	};
	static const char *const idle_name[] = { "an idle CPU's balance", "a busy CPU's balance",
						 "a CPU going idle (newidle_balance)" };

	static const char *const push_pull[] = {
		[WHY_MOVE_RT_PUSH] = "RT push: it waited behind a higher-priority RT task and "
				     "this CPU ran lower-priority work (push_rt_tasks())",
		[WHY_MOVE_RT_PULL] = "RT pull: this CPU's RT priority dropped below it "
				     "(pull_rt_task())",
		[WHY_MOVE_DL_PUSH] = "DL push: it waited behind an earlier deadline and this CPU "
				     "was free or had a later one (push_dl_task())",
		[WHY_MOVE_DL_PULL] = "DL pull: this CPU's earliest deadline became later than "
				     "its own (pull_dl_task())",
	};

	if (!m->ns) {
		printk("last balance move: none\n");
		return;
	}
	if (m->kind != WHY_MOVE_BALANCE && m->kind < ARRAY_SIZE(push_pull)) {
		printk("last move: %llu.%03llu s, CPU %d -> CPU %d, by %s\n", m->ns / NSEC_PER_SEC,
		       m->ns / NSEC_PER_MSEC % 1000, m->src, m->dst, push_pull[m->kind]);
		return;
	}
	printk("last balance move: %llu.%03llu s, CPU %d -> CPU %d, %s domain, %s, by %s\n",
	       m->ns / NSEC_PER_SEC, m->ns / NSEC_PER_MSEC % 1000, m->src, m->dst,
	       m->level < ARRAY_SIZE(level_name) ? level_name[m->level] : "?",
	       m->active ? "active balance: pushed while running by its CPU's stopper (misfit "
			   "or repeated failures)"
	       : m->type < ARRAY_SIZE(type_name) ? type_name[m->type]
						 : "?",
	       m->idle < ARRAY_SIZE(idle_name) ? idle_name[m->idle] : "?");
}

/* What its moves cost in refills (kernel/sched/cache.c), the last one in detail. */
static void print_cache(const struct task_cache *c)
{
	if (!cache_model.on) {
		printk("cache refills: not charged (cache=on charges them), working set %u KiB\n",
		       c->ws_kib);
		return;
	}
	if (!c->nr) {
		printk("cache refills: none, working set %u KiB\n", c->ws_kib);
		return;
	}
	printk("cache refills: %llu, %llu us in all, working set %u KiB; last at %llu.%03llu s, "
	       "CPU %d -> CPU %d: %u KiB from L2 + %u KiB from DRAM = %llu.%03llu us stalled\n",
	       (unsigned long long)c->nr, (unsigned long long)(c->total_ns / 1000), c->ws_kib,
	       (unsigned long long)(c->last_at / NSEC_PER_SEC),
	       (unsigned long long)(c->last_at / 1000000 % 1000), c->last_from, c->last_to,
	       c->last_l2_kib, c->last_dram_kib, (unsigned long long)(c->last_ns / 1000),
	       (unsigned long long)(c->last_ns % 1000));
}

/* sched=eevdf: where the task stands in its cfs_rq's pick now (under the rq lock, since
 * the pick reads the tree): lag and deadline against V, and the rule (pick_eevdf()). */
static void print_eevdf_pick(struct task_struct *p)
{
	unsigned long flags;
	struct rq *rq;

	if (!sched_eevdf() || p->sched_class != &fair_sched_class || p->cpu < 0)
		return;
	flags = spin_lock_irqsave(&p->pi_lock);
	rq = task_rq_lock(p);
	if (!task_on_rq_queued(p)) {
		printk("eevdf: not queued; left with lag %lld us (virtual), slice %llu us%s\n",
		       (long long)p->se.vlag / 1000, p->se.slice / 1000,
		       p->se.custom_slice ? " (its own)" : "");
	} else {
		struct cfs_rq *cfs_rq = cfs_rq_of(&p->se);
		u64 V = avg_vruntime(cfs_rq);

		printk("eevdf: lag %lld us, deadline in %lld us (virtual), slice %llu us%s: %s\n",
		       (long long)(s64)(V - p->se.vruntime) / 1000,
		       (long long)(s64)(p->se.deadline - V) / 1000, p->se.slice / 1000,
		       p->se.custom_slice ? " (its own)" : "", eevdf_pick_rule(cfs_rq, &p->se));
	}
	spin_unlock(&rq->lock);
	spin_unlock_irqrestore(&p->pi_lock, flags);
}

void sched_why_print(struct task_struct *p)
{
	struct sched_why w = p->why; /* a copy: the scheduler goes on writing */
	unsigned int n = MIN(w.nr, (unsigned int)WHY_NR_WAKEUPS);
	char allowed[64];

	topology_format_mask(allowed, sizeof(allowed), &p->cpus_allowed);
	printk("why %d (%s): %s, on CPU %d (capacity_orig %lu, capacity_of %lu), util_est %lu, "
	       "allowed %s\n",
	       p->pid, p->comm, task_class_name(p), p->cpu, capacity_orig_of((unsigned int)p->cpu),
	       capacity_of((unsigned int)p->cpu), task_util_est_of(p), allowed);
	if (p->sched_class != &fair_sched_class) {
		printk("placement: not a CFS task (select_task_rq_rt() or its own CPU): not "
		       "recorded\n");
	} else if (!n) {
		printk("last wakeups: none recorded%s\n",
		       p->nr_cpus_allowed == 1 ? " (pinned to one CPU: no choice made)" : "");
	} else {
		printk("last wakeups (newest first, %u in all):\n", w.nr);
		for (unsigned int i = 0; i < n; i++)
			print_wakeup(p, &w.wakeup[(w.nr - 1 - i) % WHY_NR_WAKEUPS]);
	}
	print_misfit(p);
	print_move(&w.move);
	print_cache(&p->cache);
	print_eevdf_pick(p);
}
