/* sched_internal.h - the scheduler's internal header: run queues, scheduling
 * classes, and the helpers shared by core.c, fair.c, fair_pelt.c, balance.c,
 * nohz.c, rt.c, idle.c, features.c, stats.c and cpufreq*.c. Linux names
 * throughout (Linux: kernel/sched/sched.h).
 * Locking: rq->lock guards everything in struct rq and the sched state of
 * the tasks queued on it; task->pi_lock is taken before rq->lock. */
#ifndef KERNEL_SCHED_SCHED_H
#define KERNEL_SCHED_SCHED_H

#include "kernel.h"
#include "pelt.h"
#include "rbtree.h"
#include "sched.h" /* the public one: tasks and the entry points */
#include "smp.h"
#include "timer.h"
#include "topology.h"

#define TASK_ON_RQ_QUEUED    1
#define TASK_ON_RQ_MIGRATING 2

#define NICE_0_LOAD (1ul << 10) /* 64-bit Linux scales it up by 2^10; we keep 1024 */

/* enqueue/dequeue flags */
#define ENQUEUE_WAKEUP	  0x01
#define ENQUEUE_MIGRATED  0x02
#define ENQUEUE_INITIAL	  0x04
#define ENQUEUE_RESTORE	  0x08 /* change_task() puts it back (Linux: with DEQUEUE_SAVE) */
#define ENQUEUE_REPLENISH 0x10 /* deadline.c: a throttled task got its runtime back */
#define ENQUEUE_DELAYED	  0x20 /* EEVDF: a delayed (asleep, still queued) task wakes */
#define DEQUEUE_SLEEP	  0x01
#define DEQUEUE_SAVE	  0x02 /* change_task() takes it off to change it */
#define DEQUEUE_DELAYED	  0x04 /* EEVDF: the delayed dequeue of a sleeper is finished */
#define DEQUEUE_SPECIAL	  0x08 /* a state no spurious wakeup may end (TASK_DEAD): never delayed */

/* wake flags (select_task_rq) */
#define WF_TTWU	    0x08
#define WF_FORK	    0x10
#define WF_MIGRATED 0x20

enum cpu_idle_type { CPU_IDLE, CPU_NOT_IDLE, CPU_NEWLY_IDLE, CPU_MAX_IDLE_TYPES };

/* ---- features -------------------------------------------------------------- */
#define SCHED_FEATURES(F)                                                                          \
	F(START_DEBIT, true)                                                                       \
	F(GENTLE_FAIR_SLEEPERS, true)                                                              \
	F(WAKEUP_PREEMPTION, true)                                                                 \
	F(NEXT_BUDDY, false)                                                                       \
	F(LAST_BUDDY, true)                                                                        \
	F(UTIL_EST, true)                                                                          \
	F(UTIL_EST_FASTUP, true)                                                                   \
	F(ASYM_PREFER_PREV, true)                                                                  \
	F(SELECT_IDLE_CAPACITY, true)                                                              \
	F(SIS_DEBOUNCE, false)                                                                     \
	F(MISFIT, true)                                                                            \
	F(CACHE_HOT_BUDDY, true)                                                                   \
	F(RT_UTIL_TRACKING, true)                                                                  \
	F(WA_IDLE, true)                                                                           \
	F(WA_WEIGHT, true)                                                                         \
	F(WA_BIAS, true)                                                                           \
	F(EAS, true)                                                                               \
	F(UCLAMP, true)                                                                            \
	F(RT_PUSH_PULL, true)                                                                      \
	F(RT_PUSH_IPI, true)                                                                       \
	F(DL_PUSH_PULL, true)                                                                      \
	F(PLACE_LAG, true)                                                                         \
	F(PLACE_DEADLINE_INITIAL, true)                                                            \
	F(PLACE_REL_DEADLINE, true)                                                                \
	F(RUN_TO_PARITY, true)                                                                     \
	F(PREEMPT_SHORT, true)                                                                     \
	F(PICK_BUDDY, true)                                                                        \
	F(DELAY_DEQUEUE, true)                                                                     \
	F(DELAY_ZERO, true)

#define F_ENUM(name, def) __SCHED_FEAT_##name,
enum { SCHED_FEATURES(F_ENUM) __SCHED_FEAT_NR };
#undef F_ENUM
extern u32 sysctl_sched_features;
#define sched_feat(x) (!!(READ_ONCE(sysctl_sched_features) & (1u << __SCHED_FEAT_##x)))
void sched_feat_init_from_bootargs(void);

/* ---- run queues ---------------------------------------------------------------- */
struct task_group;
struct rq;
struct cfs_rq {
	struct load_weight load;
	unsigned int nr_running;
	unsigned int h_nr_running;
	unsigned int idle_h_nr_running; /* SCHED_IDLE tasks */
	u64 min_vruntime;
	/* EEVDF (fair_eevdf.c): V = zero_vruntime + avg_vruntime / avg_load over the
	 * queued entities but curr (Linux 6.12.117: cfs_rq::zero_vruntime) */
	s64 avg_vruntime;  /* sum of (v_i - zero_vruntime) x w_i */
	long avg_load;	   /* sum of w_i */
	u64 zero_vruntime; /* the origin of those keys, moved to V by avg_vruntime() */
	struct rb_root_cached tasks_timeline;
	struct sched_entity *curr, *next, *last, *skip;
	struct sched_avg avg;
	struct {
		spinlock_t lock; /* load of tasks that left while blocked */
		int nr;
		unsigned long load_avg, util_avg, runnable_avg;
	} removed;
	/* group scheduling (fair_group.c; Linux: CONFIG_FAIR_GROUP_SCHED) */
	struct rq *rq;			   /* the CPU's rq (Linux: cfs_rq->rq) */
	struct task_group *tg;		   /* whose cfs_rq: &root_task_group for rq->cfs */
	unsigned long tg_load_avg_contrib; /* what tg->load_avg holds of ours */
	long propagate;			   /* a (de)attach below: tell the parent */
	long prop_runnable_sum;		   /* ... the load_sum it moved */
	unsigned long h_load;		   /* the hierarchical load (balancer) */
	u64 last_h_load_update;		   /* jiffies of h_load */
	struct sched_entity *h_load_next;  /* the path down update_cfs_rq_h_load() walks */
	struct list_head leaf_cfs_rq_list; /* on rq->leaf_cfs_rq_list: children first */
	int on_list;
	unsigned int nr_leaf_children; /* children of ours on that list */
};

/* group.c: task groups (Linux: struct task_group); their CFS side is fair_group.c's */
struct task_group {
	struct task_group *parent;
	struct list_head siblings, children; /* under tg_mutex */
	char name[32];
	unsigned long shares;		     /* cpu.weight x 1024 / 100 */
	unsigned int uclamp_req[UCLAMP_CNT]; /* cpu.uclamp.min/max as written */
	unsigned int uclamp[UCLAMP_CNT];     /* effective: capped by the parent's */
	/* per possible CPU (nr_cpu_ids of each), NULL for the root: its cfs_rq is rq->cfs */
	struct sched_entity **se;
	struct cfs_rq **cfs_rq;
	long load_avg; /* sum of the cfs_rqs' tg_load_avg_contrib (atomic) */
};
extern struct task_group root_task_group;

/* A non-root group's cfs_rq and entity on cpu. */
static inline struct cfs_rq *tg_cfs_rq(struct task_group *tg, unsigned int cpu)
{
	return tg->cfs_rq[cpu];
}
static inline struct sched_entity *tg_se(struct task_group *tg, unsigned int cpu)
{
	return tg->se[cpu];
}

/* uclamp's per-rq aggregation (uclamp.c; Linux: struct uclamp_rq). */
#define UCLAMP_BUCKETS	 5 /* Linux: CONFIG_UCLAMP_BUCKETS_COUNT's default */
#define UCLAMP_FLAG_IDLE 0x01
struct uclamp_bucket {
	unsigned int value; /* the largest clamp counted since it was last empty */
	unsigned int tasks; /* RUNNABLE tasks whose clamp falls in it */
};
struct uclamp_rq {
	unsigned int value; /* the max-aggregated clamp */
	struct uclamp_bucket bucket[UCLAMP_BUCKETS];
};

struct rt_rq {
	u64 bitmap[2]; /* bit p set: queue[p] non-empty (prio 0 = highest) */
	struct list_head queue[MAX_RT_PRIO];
	unsigned int rt_nr_running;
	u64 rt_time;
	/* push/pull (Linux: rt_rq's SMP part). highest_prio_curr: the best queued
	 * prio (curr included), highest_prio_next: the best pushable one (not
	 * running, may move); MAX_RT_PRIO - 1 when none, as Linux 6.1. */
	int highest_prio_curr, highest_prio_next;
	unsigned int rt_nr_migratory;	 /* queued RT tasks allowed more than one CPU */
	bool overloaded;		 /* in rto_mask: 2+ RT tasks queued, one may move */
	struct list_head pushable_tasks; /* by prio, FIFO within one (Linux: a plist) */
	/* RT throttling (Linux: rt_bandwidth): rt_time is RT run time not yet paid back
	 * by the periods since; past sched_rt_runtime_us the queue is throttled, its
	 * tasks out of rq->nr_running, until the period timer finds the debt paid. */
	bool rt_throttled;
	u64 rt_period_end;	      /* rq clock: where the current period ends */
	struct timer rt_period_timer; /* armed while throttled */
};

/* The EDF queue (kernel/sched/deadline.c). Linux: struct dl_rq; bandwidths << BW_SHIFT. */
struct dl_rq {
	struct rb_root_cached root; /* by absolute deadline */
	unsigned int dl_nr_running; /* in the tree (throttled tasks are not) */
	u64 earliest_dl;	    /* the leftmost's deadline (Linux: earliest_dl.curr) */
	bool in_cpudl;		    /* cpudl holds earliest_dl for this CPU */
	u64 running_bw;		    /* the active ("contending") tasks' dl_bw (GRUB) */
	/* push/pull (Linux: dl_rq's SMP part) */
	u64 earliest_dl_next;		 /* the earliest pushable deadline, 0: none */
	unsigned int dl_nr_migratory;	 /* in the tree, allowed more than one CPU */
	bool overloaded;		 /* in dlo_mask: 2+ in the tree, one may move */
	struct list_head pushable_tasks; /* in the tree, not running, by deadline */
};

/* A sched domain of one CPU at one level (MC, DIE): span from the topology,
 * groups = the child level's spans (single CPUs under MC). */
struct sched_domain {
	int level;
	cpumask_t span;
	u32 flags; /* SD_* of topology.h */
	unsigned int span_weight;
	unsigned long balance_interval; /* ms */
	unsigned int busy_factor;
	unsigned int imbalance_pct;
	unsigned int cache_nice_tries;
	unsigned int nr_balance_failed;
	unsigned long last_balance;		 /* jiffies (balance.c) */
	unsigned int min_interval, max_interval; /* ms */
	bool prefer_sibling;	 /* child has SD_PREFER_SIBLING (Linux: sds->prefer_sibling) */
	u64 max_newidle_lb_cost; /* ns */
	u64 lb_count[CPU_MAX_IDLE_TYPES];     /* schedstat: load_balance() calls */
	u64 lb_nobusyg[CPU_MAX_IDLE_TYPES];   /* ... that looked and found no busier group */
	unsigned long last_decay_max_lb_cost; /* jiffies */
	int nr_groups;
	cpumask_t *groups; /* nr_groups masks, in the rq's sd_groups */
};

struct rq_lb_stats {
	u64 lb_count[CPU_MAX_IDLE_TYPES];
	u64 lb_balanced[CPU_MAX_IDLE_TYPES];
	u64 lb_failed[CPU_MAX_IDLE_TYPES];
	u64 lb_gained[CPU_MAX_IDLE_TYPES];
	u64 alb_count, alb_pushed;
	u64 misfit_pulls;
	u64 nohz_kicks[2]; /* sent by this CPU: [0] stats only, [1] with balance */
	u64 nohz_passes;   /* _nohz_idle_balance() runs here */
};

struct rq {
	spinlock_t lock;
	unsigned int cpu;
	unsigned int nr_running;
	struct cfs_rq cfs;
	struct rt_rq rt;
	struct dl_rq dl;
	struct task_struct *curr, *idle, *stop;
	bool need_resched;
	u64 clock, clock_task;		 /* ns; clock_task excludes IRQ time */
	struct pelt_clock pelt;		 /* Linux: clock_pelt + lost_idle_time */
	u64 clock_idle, clock_pelt_idle; /* clock and PELT clock when last seen idle */
	u64 prev_irq_time;
	u64 irq_time; /* ns spent in IRQ handlers, accumulated */
	struct sched_avg avg_rt, avg_dl, avg_irq;
	struct uclamp_rq uclamp[UCLAMP_CNT];
	unsigned int uclamp_flags;  /* UCLAMP_FLAG_IDLE */
	unsigned long cpu_capacity; /* capacity_of(): orig minus RT/IRQ pressure */
	unsigned long cpu_capacity_orig;
	unsigned long misfit_task_load;
	/* balancing */
	int nr_sd;
	struct sched_domain sd[SD_NR_LEVELS];
	/* Room for the groups of every level: SD_NR_LEVELS x the DT's CPU count
	 * masks, allocated once by sched_init_cpu (a static [NR_CPUS] array per
	 * level made struct rq 19 KiB at NR_CPUS 256). */
	cpumask_t *sd_groups;
	struct sched_domain *sd_asym_cpucapacity;
	struct list_head cfs_tasks;	   /* queued CFS tasks, the last picked first (MRU) */
	struct list_head leaf_cfs_rq_list; /* cfs_rqs with load, children first, root last */
	unsigned long next_balance;	   /* jiffies (balance.c) */
	unsigned int nohz_flags;	   /* NOHZ_*_KICK asked of this CPU (atomic) */
	unsigned int nohz_idle_balance;	   /* the kick's flags, to run from its idle loop */
	bool idle_balance;		   /* idle at its last tick (Linux: rq->idle_balance) */
	bool nohz_tick_stopped;		   /* in nohz.idle_cpus_mask */
	bool has_blocked_load;
	unsigned long last_blocked_load_update_tick;	 /* jiffies */
	u64 idle_stamp, avg_idle, max_idle_balance_cost; /* ns: newidle's gates */
	int active_balance;
	int push_cpu;
	int active_balance_deferred;	     /* newidle's stopper request: busiest CPU + 1 */
	unsigned int balance_callback;	     /* BALANCE_* work to run once the rq may be dropped */
	struct call_single_data rt_push_csd; /* RT_PUSH_IPI: push from this CPU */
	/* statistics */
	u64 nr_switches;
	u64 idle_time, idle_start;
	struct rq_lb_stats lb;
	u64 nr_pelt_updates; /* CFS update_load_avg() calls (E3) */
	u64 pelt_update_ns;  /* their time, while sched_pelt_timing is on */
} __attribute__((aligned(64)));

extern bool sched_pelt_timing; /* E3: time each CFS PELT update (stats.c) */

extern struct rq runqueues[NR_CPUS];
#define cpu_rq(cpu)   (&runqueues[(cpu)])
#define this_rq()     cpu_rq(arch_cpu_id())
#define task_rq(p)    cpu_rq((p)->cpu)
#define cpu_curr(cpu) (cpu_rq(cpu)->curr)

struct sched_class {
	void (*enqueue_task)(struct rq *rq, struct task_struct *p, int flags);
	void (*dequeue_task)(struct rq *rq, struct task_struct *p, int flags);
	void (*yield_task)(struct rq *rq);
	void (*check_preempt_curr)(struct rq *rq, struct task_struct *p, int wake_flags);
	struct task_struct *(*pick_next_task)(struct rq *rq);
	void (*put_prev_task)(struct rq *rq, struct task_struct *p);
	void (*set_next_task)(struct rq *rq, struct task_struct *p, bool first);
	int (*balance)(struct rq *rq, struct task_struct *prev); /* newidle pull */
	int (*select_task_rq)(struct task_struct *p, int prev_cpu, int wake_flags);
	void (*migrate_task_rq)(struct task_struct *p, int new_cpu);
	void (*task_tick)(struct rq *rq, struct task_struct *p);
	void (*task_fork)(struct task_struct *p);
	void (*task_dead)(struct task_struct *p); /* it exited; no rq lock held */
	void (*update_curr)(struct rq *rq);
	void (*switched_from)(struct rq *rq, struct task_struct *p);
	void (*switched_to)(struct rq *rq, struct task_struct *p);
	void (*prio_changed)(struct rq *rq, struct task_struct *p, int oldprio);
	void (*task_woken)(struct rq *rq, struct task_struct *p); /* after its wakeup enqueue */
	/* p's cpus_allowed changed while queued (rq locked): recount (Linux does it by a
	 * DEQUEUE_SAVE / ENQUEUE_RESTORE pair in __do_set_cpus_allowed()) */
	void (*cpus_allowed_changed)(struct rq *rq, struct task_struct *p);
	bool uclamp_enabled; /* its tasks count in the rq's clamps (fair, rt) */
};

extern const struct sched_class stop_sched_class, dl_sched_class, rt_sched_class, fair_sched_class,
	idle_sched_class;
/* Highest first: a class only runs when every class above has nothing. */
#define for_each_class(c)                                                                          \
	for (const struct sched_class *const *__c = sched_classes; ((c) = *__c); __c++)
extern const struct sched_class *const sched_classes[];

static inline bool rt_prio(int prio)
{
	return prio < MAX_RT_PRIO;
}
static inline bool task_has_rt_policy(const struct task_struct *p)
{
	return p->policy == SCHED_FIFO || p->policy == SCHED_RR;
}
static inline bool task_running(const struct rq *rq, const struct task_struct *p)
{
	return rq->curr == p;
}
static inline bool task_on_rq_queued(const struct task_struct *p)
{
	return p->on_rq == TASK_ON_RQ_QUEUED;
}

/* core.c */
void update_rq_clock(struct rq *rq);
void resched_curr(struct rq *rq);
void enqueue_task(struct rq *rq, struct task_struct *p, int flags); /* syscalls.c too */
void dequeue_task(struct rq *rq, struct task_struct *p, int flags);
void activate_task(struct rq *rq, struct task_struct *p, int flags);
void deactivate_task(struct rq *rq, struct task_struct *p, int flags);
void check_preempt_curr(struct rq *rq, struct task_struct *p, int flags);
void set_task_cpu(struct task_struct *p, unsigned int cpu);
void double_rq_lock(struct rq *a, struct rq *b);
void double_rq_unlock(struct rq *a, struct rq *b);
void set_load_weight(struct task_struct *p, bool update_load);
u64 sched_tick_count(void); /* this CPU's tick count, for SIS_DEBOUNCE */
int stop_one_cpu_nowait(unsigned int cpu, int (*fn)(void *), void *arg);
void __schedule(bool preempt); /* preempt: from an interrupt or cpu_work() */
void account_cpu_work(struct rq *rq, struct task_struct *p, u64 delta_exec); /* cpu_work.c */

static inline u64 rq_clock_pelt(const struct rq *rq)
{
	return pelt_clock_now(rq->pelt);
}

static inline struct task_struct *task_of(struct sched_entity *se)
{
	return container_of(se, struct task_struct, se);
}

static inline struct rq *rq_of(const struct cfs_rq *cfs_rq)
{
	return cfs_rq->rq;
}

/* ---- the CFS hierarchy (Linux: CONFIG_FAIR_GROUP_SCHED) ---------------------------------- */
/* A group entity owns a cfs_rq (my_q); a task does not. A task's cfs_rq and parent are its
 * group's on its CPU (Linux stores them at set_task_rq(); derived here, under the lock that
 * guards p->cpu and p->sched_task_group, so that no p->cpu write needs a hook). */
static inline bool entity_is_task(const struct sched_entity *se)
{
	return !se->my_q;
}

static inline struct cfs_rq *task_cfs_rq(const struct task_struct *p)
{
	struct task_group *tg = p->sched_task_group;

	return tg ? tg_cfs_rq(tg, (unsigned int)p->cpu) : &task_rq(p)->cfs;
}

static inline struct cfs_rq *cfs_rq_of(struct sched_entity *se)
{
	return entity_is_task(se) ? task_cfs_rq(task_of(se)) : se->cfs_rq;
}

static inline struct cfs_rq *group_cfs_rq(const struct sched_entity *se)
{
	return se->my_q;
}

static inline struct sched_entity *parent_entity(struct sched_entity *se)
{
	if (!entity_is_task(se))
		return se->parent;
	return task_of(se)->sched_task_group
		       ? tg_se(task_of(se)->sched_task_group, (unsigned int)task_of(se)->cpu)
		       : NULL;
}

#define for_each_sched_entity(se) for (; se; se = parent_entity(se))

/* fair_group.c */
#define MIN_SHARES 2ul	       /* Linux: MIN_SHARES (unscaled) */
#define MAX_SHARES (1ul << 18) /* Linux: MAX_SHARES */
int alloc_fair_sched_group(struct task_group *tg, struct task_group *parent);
void online_fair_sched_group(struct task_group *tg);
void unregister_fair_sched_group(struct task_group *tg);
void free_fair_sched_group(struct task_group *tg);
void sched_group_set_shares(struct task_group *tg, unsigned long shares);
long calc_group_shares(struct cfs_rq *cfs_rq);
bool skip_blocked_update(struct sched_entity *se);
/* The group-only halves; the inline wrappers keep a root-group task's path to one test. */
void __update_cfs_group(struct sched_entity *se);
void __update_tg_load_avg(struct cfs_rq *cfs_rq);
int __propagate_entity_load_avg(struct sched_entity *se);
void __list_add_leaf_cfs_rq(struct cfs_rq *cfs_rq);

/* Linux: update_cfs_group(): a group entity's weight follows its group's load here. */
static inline void update_cfs_group(struct sched_entity *se)
{
	if (se->my_q)
		__update_cfs_group(se);
}

/* Linux: update_tg_load_avg() (the root group's is never read) */
static inline void update_tg_load_avg(struct cfs_rq *cfs_rq)
{
	if (cfs_rq->tg != &root_task_group)
		__update_tg_load_avg(cfs_rq);
}

/* A task's load_sum joined (>0) or left (<0) cfs_rq: its group entity must hear.
 * Linux: add_tg_cfs_propagate(). */
static inline void add_tg_cfs_propagate(struct cfs_rq *cfs_rq, long runnable_sum)
{
	cfs_rq->propagate = 1;
	cfs_rq->prop_runnable_sum += runnable_sum;
}

/* Linux: propagate_entity_load_avg() (a task has nothing below it) */
static inline int propagate_entity_load_avg(struct sched_entity *se)
{
	return se->my_q && se->my_q->propagate ? __propagate_entity_load_avg(se) : 0;
}

static inline void list_add_leaf_cfs_rq(struct cfs_rq *cfs_rq)
{
	if (!cfs_rq->on_list && cfs_rq->tg != &root_task_group)
		__list_add_leaf_cfs_rq(cfs_rq);
}
void list_del_leaf_cfs_rq(struct cfs_rq *cfs_rq);
bool cfs_rq_is_decayed(const struct cfs_rq *cfs_rq);
unsigned long __task_h_load(struct task_struct *p);
/* Linux: task_h_load(). A task of the root group: its load_avg, as Linux without
 * CONFIG_FAIR_GROUP_SCHED (with it, x root load / (root load + 1): deviation table). */
static inline unsigned long task_h_load(struct task_struct *p)
{
	return p->sched_task_group ? __task_h_load(p) : p->se.avg.load_avg;
}
void find_matching_se(struct sched_entity **se, struct sched_entity **pse);
void task_change_group_fair(struct task_struct *p, struct task_group *tg);
void propagate_entity_cfs_rq(struct sched_entity *se);
void init_cfs_rq_of(struct cfs_rq *cfs_rq, struct rq *rq, struct task_group *tg);

/* fair_pelt.c (for fair.c): update_load_avg() flags (Linux's) */
#define DO_ATTACH 0x1
#define DO_DETACH 0x2
#define UPDATE_TG 0x4 /* and tg->load_avg when the cfs_rq decayed */
void update_load_avg(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags);
void enqueue_load_avg(struct cfs_rq *cfs_rq, struct sched_entity *se);
void dequeue_load_avg(struct cfs_rq *cfs_rq, struct sched_entity *se);
void remove_entity_load_avg(struct cfs_rq *cfs_rq, struct sched_entity *se);
void detach_entity_cfs_rq(struct cfs_rq *cfs_rq, struct sched_entity *se);
void attach_entity_cfs_rq(struct cfs_rq *cfs_rq, struct sched_entity *se);
void migrate_se_pelt_lag(struct cfs_rq *cfs_rq, struct sched_entity *se);
void util_est_enqueue_task(struct cfs_rq *cfs_rq, struct task_struct *p);
void util_est_dequeue_task(struct cfs_rq *cfs_rq, struct task_struct *p);
void util_est_update_task(struct cfs_rq *cfs_rq, struct task_struct *p, bool task_sleep);

/* fair.c and fair_select.c (shared with balance.c) */
extern unsigned int sysctl_sched_latency, sysctl_sched_min_granularity,
	sysctl_sched_wakeup_granularity, sysctl_sched_migration_cost;
void init_cfs_rq(struct cfs_rq *cfs_rq);
void update_load_avg_task(struct rq *rq, struct task_struct *p);
bool update_blocked_averages(struct rq *rq); /* true: blocked load left to decay */
void reweight_task(struct task_struct *p, unsigned long weight);
void reweight_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, unsigned long weight);
void place_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, bool initial);
unsigned long cpu_util(int cpu);			     /* CFS util incl. util_est, clamped */
unsigned long task_util_est_of(const struct task_struct *p); /* Linux: task_util_est() */
int util_fits_cpu(unsigned long util, unsigned long umin, unsigned long umax, int cpu);
static inline bool fits_capacity(unsigned long util, unsigned long cap)
{
	return util * 1280 < cap * 1024;
}
bool task_fits_cpu(const struct task_struct *p, int cpu);
/* why.c: the rule of select_task_rq_fair() that placed a wakee (the shell's `why`). */
enum why_rule {
	WHY_FORK,	   /* find_idlest_cpu(): a new task, the slow path */
	WHY_DEBOUNCE,	   /* SIS_DEBOUNCE: placed in this tick already, kept on prev */
	WHY_TARGET_IDLE,   /* select_idle_sibling(): target idle (and fits) */
	WHY_PREV_IDLE,	   /* ... prev idle, shares target's cache (and fits) */
	WHY_RECENT_IDLE,   /* ... recent_used_cpu idle (and fits) */
	WHY_IDLE_CAPACITY, /* select_idle_capacity() over the asymmetric domain */
	WHY_IDLE_CPU,	   /* select_idle_cpu(): an idle CPU of target's LLC */
	WHY_NO_IDLE,	   /* nothing idle found: target */
	WHY_EAS,	   /* find_energy_efficient_cpu() */
	WHY_NR_RULES
};
void why_note_wakeup(struct task_struct *p, int prev, int target, int chosen, enum why_rule rule,
		     int wake_flags);
void why_note_move(struct task_struct *p, int src, int dst, int level, int idle, int type,
		   bool active);
void why_note_push_pull(struct task_struct *p, int src, int dst, enum why_move_kind kind);
void update_misfit_status(struct task_struct *p, struct rq *rq);
unsigned long cpu_load(const struct rq *rq);
bool idle_cpu(int cpu);
/* core.c (Linux: __task_rq_lock()): with p->pi_lock held, lock the rq p is on. */
struct rq *task_rq_lock(struct task_struct *p);
void update_cpu_capacity(struct rq *rq);
void post_init_entity_util_avg(struct task_struct *p); /* a new task, on its first rq */
int select_idle_capacity(struct task_struct *p, const cpumask_t *span, int target);
int select_task_rq_fair(struct task_struct *p, int prev_cpu, int wake_flags); /* fair_select.c */

/* A sched group's state as the balancer (balance.c) and fork placement
 * (fair_select.c's find_idlest_group) see it. Linux: fair.c's enum group_type and
 * struct sg_lb_stats; group_asym_packing never arises here. */
enum group_type { /* worst last: a busier type always wins */
		  group_has_spare,
		  group_fully_busy,
		  group_misfit_task,
		  group_imbalanced,
		  group_overloaded,
};

struct sg_lb_stats {
	unsigned long avg_load, group_load, group_capacity, group_util, group_runnable;
	unsigned int sum_nr_running, sum_h_nr_running, idle_cpus, group_weight;
	enum group_type group_type;
	unsigned long group_misfit_task_load;
	unsigned long max_capacity, min_capacity;
};
enum group_type group_classify(unsigned int pct, const struct sg_lb_stats *s, bool imbalanced);
int sg_imbalanced(const struct sched_domain *sd, const cpumask_t *group); /* balance.c */

/* fair_energy.c: EAS (Linux 6.1's find_energy_efficient_cpu() and the overutilized flag) */
#define SG_OVERUTILIZED 0x2 /* Linux: some CPU's util does not fit it */
extern bool sched_energy_present;
extern int sched_rd_overutilized;
bool cpu_overutilized(int cpu);
void update_overutilized_status(struct rq *rq);
void update_rd_overutilized_lb(int sg_status, bool root);
bool sched_energy_skip_balance(void);
int find_energy_efficient_cpu(struct task_struct *p, int prev_cpu);
struct topology_freq_domain;
u64 em_cpu_energy(const struct topology_freq_domain *pd, unsigned long max_util,
		  unsigned long sum_util, unsigned long allowed_cpu_cap, unsigned long scale_cpu);

/* balance.c: load_balance() and what it needs */
extern int sched_rd_overload; /* Linux: rq->rd->overload (one root domain) */
void sched_domains_init(void);
int load_balance(int this_cpu, struct sched_domain *sd, enum cpu_idle_type idle, bool this_locked,
		 int *continue_balancing);
bool check_cpu_capacity(const struct rq *rq, const struct sched_domain *sd);
void run_deferred_active_balance(struct rq *rq);
/* Linux's jiffies, for the balancer's intervals: the tick period of the
 * global clock (our per-CPU ticks are phase-shifted, Linux's are not). */
static inline unsigned long sched_jiffies(void)
{
	return (unsigned long)(arch_clock_ns() / TICK_NSEC);
}
static inline bool time_after(unsigned long a, unsigned long b)
{
	return (long)(b - a) < 0;
}
static inline bool time_after_eq(unsigned long a, unsigned long b)
{
	return (long)(a - b) >= 0;
}

/* nohz.c: who balances when: the tick, newidle, NO_HZ idle balancing */
void trigger_load_balance(struct rq *rq);
int newidle_balance(struct rq *this_rq);
void nohz_run_idle_balance(struct rq *rq);
void nohz_balance_exit_idle(struct rq *rq);
void sched_balance_rq_init(struct rq *rq);
void sched_ttwu_idle_stamp(struct rq *rq);

/* cpufreq: the governor's one hook (Linux: cpufreq_update_util()). Called
 * under rq->lock with IRQs off where Linux 6.1 calls it: when the root
 * cfs_rq's PELT signal decayed or a task attached/detached (fair_pelt.c),
 * on RT enqueue/dequeue, when blocked load decayed;
 * the governor registers per CPU (kernel/sched/cpufreq_schedutil.c) and must
 * neither sleep nor take another rq's lock. */
struct update_util_data {
	void (*func)(struct update_util_data *data, u64 time, unsigned int flags);
};
extern struct update_util_data *cpufreq_update_util_data[NR_CPUS];
static inline void cpufreq_update_util(struct rq *rq, unsigned int flags)
{
	struct update_util_data *d = READ_ONCE(cpufreq_update_util_data[rq->cpu]);

	if (d)
		d->func(d, rq->clock, flags);
}

/* stats.c: the run-queue invariant checker (both rqs locked) */
void sched_debug_check_rqs(struct rq *a, struct rq *b);
void sched_debug_rq_init(unsigned int cpu);

void sched_group_init(void);
/* syscalls.c's dequeue / fn / enqueue dance (Linux: __sched_setscheduler's) */
void sched_change_task(struct task_struct *p, void (*fn)(struct task_struct *, long), long arg);

/* uclamp.c */
void uclamp_mark_used(void);
unsigned int uclamp_none(enum uclamp_id clamp_id);
unsigned int uclamp_bucket_id(unsigned int clamp_value);
bool uclamp_is_used(void);
void init_uclamp_rq(struct rq *rq);
void uclamp_rq_inc(struct rq *rq, struct task_struct *p);
void uclamp_rq_dec(struct rq *rq, struct task_struct *p);
unsigned long uclamp_rq_util_with(struct rq *rq, unsigned long util, const struct task_struct *p);
void uclamp_policy_defaults(struct task_struct *p);
void uclamp_set_request(struct task_struct *p, unsigned int min, unsigned int max);
#ifdef HOST_BUILD
void uclamp_host_reset(void);
#endif

/* deadline.c */
#define BW_SHIFT 20
#define BW_UNIT	 (1ull << BW_SHIFT)
#define DL_SCALE 10
void init_dl_rq(struct dl_rq *dl_rq);
bool update_dl_rq_load_avg(struct rq *rq, bool running);
struct task_struct *pick_migratable_dl(struct rq *rq); /* hotplug: a queued DL task, or NULL */
void dl_rq_offline(struct rq *rq);		       /* Linux: rq_offline_dl() */
void dl_rq_online(struct rq *rq);		       /* Linux: rq_online_dl() */
static inline bool dl_time_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}
/* deadline_push.c: DL push and pull, find_later_rq() over cpudl */
void push_dl_tasks(struct rq *rq);
void push_dl_task_once(struct rq *rq);
void pull_dl_task(struct rq *rq);
void __pull_dl_task(struct rq *this_rq, bool may_drop);
int find_later_rq(struct task_struct *p);
struct rq *dl_task_offline_migration(struct rq *rq, struct task_struct *p);
void update_dl_migration(struct rq *rq);
bool has_pushable_dl_tasks(const struct rq *rq);
void enqueue_pushable_dl_task(struct rq *rq, struct task_struct *p);
void dequeue_pushable_dl_task(struct rq *rq, struct task_struct *p);
extern cpumask_t sched_dlo_mask; /* Linux: rd->dlo_mask, rd->dlo_count */
extern int sched_dlo_count;
int sched_dl_overflow(struct task_struct *p, const struct sched_attr *attr);
void sched_dl_setparams(struct task_struct *p, const struct sched_attr *attr); /* rq locked */
void sched_dl_task_init(struct task_struct *p);
bool sched_dl_param_ok(const struct sched_attr *attr); /* Linux: __checkparam_dl() */
static inline bool dl_task(const struct task_struct *p)
{
	return p->policy == SCHED_DEADLINE;
}
/* Linux: sched_asym_cpucap_active(): capacities differ in cpu's domains. */
static inline bool sched_asym_cpucap_active(int cpu)
{
	return cpu_rq(cpu)->sd_asym_cpucapacity != NULL;
}
/* Linux: cpu_bw_dl(): the running DL bandwidth as a capacity, the frequency floor. */
static inline unsigned long cpu_bw_dl(const struct rq *rq)
{
	return (unsigned long)((READ_ONCE(rq->dl.running_bw) * SCHED_CAPACITY_SCALE) >> BW_SHIFT);
}

/* rt.c */
void init_rt_rq(struct rt_rq *rt_rq);
bool update_rt_rq_load_avg(struct rq *rq, bool running);
void rt_rq_online(struct rq *rq);
int sched_rt_global_bw_ok(u64 new_bw); /* deadline.c: admitted DL bandwidth fits new_bw */
u64 sched_rt_bw(void); /* global_rt_runtime / period << BW_SHIFT (Linux: dl_b->bw) */
void push_rt_tasks(struct rq *rq);
void pull_rt_task(struct rq *rq);

/* Work a class queued under rq->lock for a moment when the lock may be dropped
 * and retaken (after the context switch, at the end of a policy change).
 * Linux: queue_balance_callback() / __balance_callbacks(); core.c runs them. */
#define BALANCE_PUSH_RT 0x1
#define BALANCE_PULL_RT 0x2
#define BALANCE_PUSH_DL 0x4
#define BALANCE_PULL_DL 0x8
static inline void queue_balance_callback(struct rq *rq, unsigned int work)
{
	rq->balance_callback |= work;
}
void __run_balance_callbacks(struct rq *rq);
static inline void run_balance_callbacks(struct rq *rq)
{
	if (__builtin_expect(rq->balance_callback != 0, 0))
		__run_balance_callbacks(rq);
}
/* push_pull.c: what RT's and DL's push and pull share. */
/* Linux: double_lock_balance(): this_rq is locked; take busiest's too, in
 * lock order. Returns 1 if this_rq's lock was dropped on the way (what it
 * guarded must be checked again). */
int double_lock_balance(struct rq *this_rq, struct rq *busiest);
void double_unlock_balance(struct rq *this_rq, struct rq *busiest);
bool lock_pull_src(struct rq *this_rq, struct rq *src, bool may_drop);
void sched_update_overload(bool *overloaded, bool over, unsigned int cpu, cpumask_t *mask,
			   int *count);
int pick_candidate_near(const struct task_struct *p, const cpumask_t *candidates);
void move_queued_task_locked(struct rq *src, struct rq *dst, struct task_struct *p);
void push_pull_move(struct rq *src, struct rq *dst, struct task_struct *p, enum why_move_kind why);
/* One class's side of the push loop (push_one_task()). */
struct push_ops {
	struct task_struct *(*first_pushable)(struct rq *rq);	 /* NULL: none */
	bool (*runs_here)(struct rq *rq, struct task_struct *p); /* it preempts curr */
	struct rq *(*find_lock_target)(struct task_struct *p, struct rq *rq);
	enum why_move_kind why;
};
int push_one_task(struct rq *rq, const struct push_ops *ops);

/* cpupri.c: each CPU's RT priority level, for find_lowest_rq() (Linux: struct
 * cpupri of the root domain; one root domain here). Levels as convert_prio(). */
#define CPUPRI_INVALID	     (-1)
#define CPUPRI_NORMAL	     0 /* no RT task: CFS, idle (or DL: RT does not see it) */
#define CPUPRI_NR_PRIORITIES (MAX_RT_PRIO + 1)
void cpupri_init_cpu(unsigned int cpu);
void cpupri_set(unsigned int cpu, int prio); /* prio: the rq's highest RT prio, under its lock */
int cpupri_get(unsigned int cpu);	     /* the CPU's level */
int cpupri_find_fitness(const struct task_struct *p, cpumask_t *lowest_mask,
			bool (*fitness_fn)(const struct task_struct *p, int cpu));
/* cpudl.c: each CPU's earliest DL deadline, for find_later_rq() (Linux: struct
 * cpudl of the root domain; one root domain here). Under the CPU's rq->lock. */
void cpudl_set(unsigned int cpu, u64 dl);
void cpudl_clear(unsigned int cpu, bool online);
int cpudl_find(const struct task_struct *p, cpumask_t *later_mask, bool asym);
bool dl_task_fits_capacity(const struct task_struct *p, int cpu);
int cpudl_snapshot(int *cpus, u64 *dls, int max); /* the heap in array order; its size */
bool cpudl_is_free(unsigned int cpu);
bool cpudl_holds(unsigned int cpu, bool has_dl, u64 dl); /* the invariant checker */
/* Linux: rd->rto_mask, rd->rto_count: the CPUs whose RT queue is overloaded. */
extern cpumask_t sched_rto_mask;
extern int sched_rto_count;

/* The host oracle's view of the core (tests/host/test_oracle.c): the
 * core-level events that drive PELT (the rq clock, enqueue/dequeue, the
 * switch, the tick, migration, fork, weight changes, blocked-load decay), so
 * that tests/oracle/linux_pelt.py can replay Linux 6.1's class-level
 * handling of each and compare. Compiled away outside the host tests. */
enum sched_oracle_ev {
	SCHED_EV_CLOCK,
	SCHED_EV_ENQUEUE,
	SCHED_EV_DEQUEUE,
	SCHED_EV_PUT_PREV,
	SCHED_EV_PICK,
	SCHED_EV_SET_NEXT,
	SCHED_EV_TICK,
	SCHED_EV_MIGRATE,
	SCHED_EV_FORK,
	SCHED_EV_CHANGE,
	SCHED_EV_CHANGED,
	SCHED_EV_BLOCKED,
	SCHED_EV_SWITCHED,
	SCHED_EV_DEAD,
	/* for tests/oracle/linux_eevdf.py only (test_eevdf_oracle.c): the core asks the
	 * class to judge a wakeup; the core brings curr's runtime up to date */
	SCHED_EV_PREEMPT_CHECK,
	SCHED_EV_UPDATE_CURR,
	SCHED_EV_REQUEUE, /* a delayed task woke: enqueue with ENQUEUE_DELAYED */
	SCHED_EV_BLOCK,	  /* a delayed task's dequeue finished */
};
#ifdef HOST_BUILD
void sched_oracle_event(enum sched_oracle_ev ev, struct rq *rq, struct task_struct *p, long arg);
#else
#define sched_oracle_event(ev, rq, p, arg) ((void)0)
#endif

/* ---- fair_eevdf.c: the fair class's policy under sched=eevdf (Linux 6.12) -------------
 * fair.c keeps the class (enqueue/dequeue up the hierarchy; PELT: fair_pelt.c; placement
 * across CPUs: fair_select.c)
 * and asks sched_eevdf() at each point where 6.12's policy differs from 6.1's: the tree's
 * order and its augmentation, update_curr()'s deadline, placement, pick, preemption,
 * reweight, yield. Each eevdf_* below runs under the cfs_rq's rq->lock. */
extern bool sysctl_sched_eevdf;
static inline bool sched_eevdf(void)
{
	return READ_ONCE(sysctl_sched_eevdf);
}
extern unsigned int sysctl_sched_base_slice;

/* delta x NICE_0_LOAD / weight: time on a heavier entity's clock runs slower. Linux's
 * __calc_delta() multiplies by a 32-bit inverse instead (deviations.md). */
static inline u64 calc_delta_fair(u64 delta, const struct sched_entity *se)
{
	if (se->load.weight == NICE_0_LOAD)
		return delta;
	return delta * NICE_0_LOAD / se->load.weight;
}

void sched_policy_init_from_bootargs(void);
void eevdf_tunables_init(unsigned int factor);
u64 avg_vruntime(struct cfs_rq *cfs_rq);
bool entity_eligible(struct cfs_rq *cfs_rq, struct sched_entity *se);
void eevdf_enqueue_tree(struct cfs_rq *cfs_rq, struct sched_entity *se);
void eevdf_dequeue_tree(struct cfs_rq *cfs_rq, struct sched_entity *se);
void eevdf_update_entity_lag(struct cfs_rq *cfs_rq, struct sched_entity *se);
bool eevdf_update_deadline(struct cfs_rq *cfs_rq, struct sched_entity *se);
bool eevdf_did_preempt_short(struct cfs_rq *cfs_rq, struct sched_entity *curr);
void eevdf_place_entity(struct cfs_rq *cfs_rq, struct sched_entity *se, int flags);
void eevdf_reweight(struct sched_entity *se, u64 avruntime, unsigned long weight);
struct sched_entity *pick_eevdf(struct cfs_rq *cfs_rq);
struct sched_entity *eevdf_pick_next_entity(struct cfs_rq *cfs_rq);
void eevdf_set_protect_slice(struct sched_entity *se);
void eevdf_trace_pick(struct cfs_rq *cfs_rq, struct sched_entity *se);
void eevdf_cancel_protect_slice(struct sched_entity *se);
u64 cfs_rq_min_slice(struct cfs_rq *cfs_rq);
void eevdf_propagate(struct sched_entity *se);
void requeue_delayed_entity(struct sched_entity *se);
/* core.c: a delayed task's dequeue is finished (the pick met it, or its class changes):
 * off the class, off the rq's count, blocked (p->on_rq 0). Under rq->lock. */
void block_delayed_task(struct rq *rq, struct task_struct *p);
/* why.c / the shell: which rule picked curr ("eligible-earliest-deadline", ...). */
const char *eevdf_pick_rule(struct cfs_rq *cfs_rq, struct sched_entity *se);

#endif
