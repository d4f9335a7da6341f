/* stats.c - scheduler statistics in readable form (/proc/<pid>/sched and
 * /proc/schedstat-like) and the run-queue invariant checker that tests and
 * the debug build run. Reads rq state under rq->lock. */
#include "sched.h"

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

#define CHECK(cond, ...)                                                                   \
	do {                                                                               \
		if (!(cond)) {                                                             \
			bad++;                                                             \
			if (verbose)                                                       \
				printk("sched invariant: " __VA_ARGS__);                   \
		}                                                                          \
	} while (0)

/* One rq, locked: counts and weights agree with what is queued, the tree is
 * ordered, min_vruntime never went back, nothing is both running and queued. */
static int check_rq(struct rq *rq, bool verbose, u64 *last_min)
{
	struct cfs_rq *cfs = &rq->cfs;
	unsigned int n = 0, rt_n = 0;
	unsigned long weight = 0;
	u64 prev_v = 0;
	int bad = 0;

	for (struct rb_node *nd = rb_first_cached(&cfs->tasks_timeline); nd; nd = rb_next(nd)) {
		struct sched_entity *se = rb_entry(nd, struct sched_entity, run_node);
		struct task_struct *p = container_of(se, struct task_struct, se);

		CHECK(n == 0 || (s64)(se->vruntime - prev_v) >= 0, "cpu%u: tree out of order\n",
		      rq->cpu);
		CHECK(p->cpu == (int)rq->cpu, "cpu%u: %s queued here but p->cpu=%d\n", rq->cpu,
		      p->comm, p->cpu);
		CHECK(task_on_rq_queued(p) && se->on_rq, "cpu%u: %s in tree but not on_rq\n",
		      rq->cpu, p->comm);
		CHECK(rq->curr != p, "cpu%u: %s both running and in the tree\n", rq->cpu, p->comm);
		prev_v = se->vruntime;
		weight += se->load.weight;
		n++;
	}
	if (cfs->curr && cfs->curr->on_rq) {
		weight += cfs->curr->load.weight;
		n++;
	}
	CHECK(n == cfs->nr_running, "cpu%u: cfs nr_running %u, found %u\n", rq->cpu,
	      cfs->nr_running, n);
	CHECK(weight == cfs->load.weight, "cpu%u: cfs load %lu, found %lu\n", rq->cpu,
	      cfs->load.weight, weight);
	for (int prio = 0; prio < MAX_RT_PRIO; prio++) {
		struct list_head *pos;

		list_for_each(pos, &rq->rt.queue[prio])
			rt_n++;
	}
	CHECK(rt_n == rq->rt.rt_nr_running, "cpu%u: rt_nr_running %u, found %u\n", rq->cpu,
	      rq->rt.rt_nr_running, rt_n);
	n = cfs->h_nr_running + rq->rt.rt_nr_running +
	    (rq->stop && task_on_rq_queued(rq->stop) ? 1 : 0);
	CHECK(n == rq->nr_running, "cpu%u: nr_running %u, classes say %u\n", rq->cpu,
	      rq->nr_running, n);
	CHECK((s64)(cfs->min_vruntime - *last_min) >= 0, "cpu%u: min_vruntime went back\n",
	      rq->cpu);
	*last_min = cfs->min_vruntime;
	return bad;
}

int sched_check_invariants(bool verbose)
{
	static u64 last_min[NR_CPUS];
	unsigned int cpu;
	int bad = 0;

	for_each_cpu(cpu, cpu_online_mask) {
		unsigned long flags = spin_lock_irqsave(&cpu_rq(cpu)->lock);

		if (!last_min[cpu])
			last_min[cpu] = cpu_rq(cpu)->cfs.min_vruntime;
		bad += check_rq(cpu_rq(cpu), verbose, &last_min[cpu]);
		spin_unlock_irqrestore(&cpu_rq(cpu)->lock, flags);
	}
	return bad;
}

/* For the shell's idle %: idle time so far, the current idle stretch included. */
u64 cpu_idle_time_ns(unsigned int cpu)
{
	struct rq *rq = cpu_rq(cpu);
	unsigned long flags = spin_lock_irqsave(&rq->lock);
	u64 idle = rq->idle_time, now = arch_clock_ns();

	if (rq->curr == rq->idle && now > rq->idle_start)
		idle += now - rq->idle_start;
	spin_unlock_irqrestore(&rq->lock, flags);
	return idle;
}

bool sched_pelt_timing;

/* E3: CFS PELT updates on every CPU so far, and their time while timing was
 * on. Read without the rq locks: the benchmark reads them with its
 * workload finished, and a sum one update stale would not matter. */
void sched_pelt_stats(bool timing, u64 *updates, u64 *ns)
{
	*updates = *ns = 0;
	for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
		*updates += READ_ONCE(cpu_rq(cpu)->nr_pelt_updates);
		*ns += READ_ONCE(cpu_rq(cpu)->pelt_update_ns);
	}
	WRITE_ONCE(sched_pelt_timing, timing);
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
			char span[64], groups[160];
			size_t n = 0;

			topology_format_mask(span, sizeof(span), sd->span);
			groups[0] = '\0';
			for (int g = 0; g < sd->nr_groups && n < sizeof(groups); g++) {
				char m[64];

				topology_format_mask(m, sizeof(m), sd->groups[g]);
				n += (size_t)ksnprintf(groups + n, sizeof(groups) - n, "{%s}", m);
			}
			printk("cpu%u %s span=%s groups=%s flags=0x%x%s interval=%lums "
			       "imbalance_pct=%u nr_balance_failed=%u\n",
			       cpu, sd->level < SD_NR_LEVELS ? level_name[sd->level] : "?", span,
			       groups, sd->flags, sd == rq->sd_asym_cpucapacity ? " asym" : "",
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
	return p->sched_class == &rt_sched_class ? "rt" : "fair";
}
