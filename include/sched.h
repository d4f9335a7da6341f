/* sched.h - tasks (kernel threads) and the scheduler entry points the rest
 * of the kernel uses. The policy lives in kernel/sched/; thread lifetime
 * (stacks, create/exit/join) in kernel/thread.c. */
#ifndef SCHED_H
#define SCHED_H

#include "arch.h"
#include "cache.h"
#include "list.h"
#include "pelt.h"
#include "rbtree.h"
#include "smp.h"
#include "spinlock.h"
#include "timer.h"
#include "wait.h"

#define TASK_COMM_LEN 16

enum task_state {
	TASK_RUNNING = 0,	/* on a run queue or running */
	TASK_INTERRUPTIBLE = 1, /* sleeping until woken */
	TASK_DEAD = 2,
	TASK_NEW = 3, /* created, not yet woken */
};

/* Scheduling policies (Linux's values). */
#define SCHED_NORMAL   0
#define SCHED_FIFO     1
#define SCHED_RR       2
#define SCHED_BATCH    3
#define SCHED_IDLE     5
#define SCHED_DEADLINE 6

#define MAX_RT_PRIO	100
#define MAX_PRIO	(MAX_RT_PRIO + 40)
#define DEFAULT_PRIO	(MAX_RT_PRIO + 20)
#define NICE_TO_PRIO(n) ((n) + DEFAULT_PRIO)
#define PRIO_TO_NICE(p) ((p)-DEFAULT_PRIO)

struct load_weight {
	unsigned long weight;
	u32 inv_weight; /* 2^32 / weight, for divisions by multiplication */
};

/* A CFS entity: a task, or a task group on one CPU (my_q set: the group's cfs_rq there;
 * Linux: CONFIG_FAIR_GROUP_SCHED). A task's cfs_rq and parent follow from its group and
 * CPU (kernel/sched/sched_internal.h: cfs_rq_of(), parent_entity()). */
struct cfs_rq;
struct sched_entity {
	struct load_weight load;
	struct rb_node run_node;
	struct list_head group_node; /* on rq->cfs_tasks while queued (tasks only) */
	int on_rq;
	u64 exec_start;
	u64 sum_exec_runtime;
	u64 prev_sum_exec_runtime; /* at the start of this turn on the CPU */
	u64 vruntime;
	u64 nr_migrations;
	/* EEVDF (sched=eevdf; kernel/sched/fair_eevdf.c, Linux 6.12's fields) */
	u64 deadline;	    /* virtual deadline: vruntime at request start + slice / weight */
	u64 min_vruntime;   /* least vruntime in its subtree of the tree (augmented) */
	u64 slice;	    /* the request r_i, ns: base slice, or custom (spawn slice=) */
	u64 min_slice;	    /* least slice in its subtree (a group entity's slice) */
	s64 vlag;	    /* V - v when dequeued; while picked, RUN_TO_PARITY's stash */
	bool custom_slice;  /* slice set by the user (Linux: sched_attr.sched_runtime) */
	bool rel_deadline;  /* deadline kept relative to vruntime while off a queue */
	bool sched_delayed; /* DELAY_DEQUEUE: asleep, kept queued until eligible */
	struct sched_avg avg;
	/* group entities only (a task's are NULL / 0) */
	int depth;		       /* 0 under the root cfs_rq */
	struct sched_entity *parent;   /* the parent group's entity on this CPU, NULL at root */
	struct cfs_rq *cfs_rq;	       /* the cfs_rq it is queued on */
	struct cfs_rq *my_q;	       /* the cfs_rq it owns */
	unsigned long runnable_weight; /* my_q->h_nr_running (Linux: se_update_runnable) */
};

struct sched_rt_entity {
	struct list_head run_list;
	unsigned int time_slice; /* ns left of an RR slice */
	int on_rq;
	bool migratory;			/* counted in rt_nr_migratory when enqueued */
	struct list_head pushable_node; /* on rt_rq->pushable_tasks (rt.c) */
};

/* A SCHED_DEADLINE task (kernel/sched/deadline.c; Linux: struct
 * sched_dl_entity). Parameters in ns; bandwidths << BW_SHIFT (20). */
struct sched_dl_entity {
	struct rb_node rb_node; /* in the rq's EDF tree (dl_rq->root) */
	u64 dl_runtime, dl_deadline, dl_period;
	u64 dl_bw;	/* dl_runtime / dl_period */
	u64 dl_density; /* dl_runtime / dl_deadline */
	s64 runtime;	/* left in this instance (scale-invariant ns) */
	u64 deadline;	/* absolute, on the rq clock */
	bool on_dl_rq;	/* in the EDF tree */
	bool dl_throttled, dl_yielded, dl_non_contending;
	bool inactive_ref;	 /* the armed inactive_timer holds a task reference (rq lock) */
	bool bw_release_pending; /* left DL: dl_bw still in total_bw until 0-lag (dl_b.lock) */
	bool migratory;		 /* counted in dl_nr_migratory while in the EDF tree */
	struct list_head pushable_node; /* on dl_rq->pushable_tasks (deadline.c) */
	struct timer dl_timer;		/* replenishment at the next period */
	struct timer inactive_timer;	/* the 0-lag time: running_bw drops then */
	u64 nr_throttled;		/* statistics: times its runtime ran out */
};

/* Linux: struct sched_attr (include/uapi/linux/sched/types.h), times in ns. */
struct sched_attr {
	u32 sched_policy;
	u64 sched_flags;
	s32 sched_nice;
	u32 sched_priority;
	u64 sched_runtime, sched_deadline, sched_period;
};

enum uclamp_id { UCLAMP_MIN, UCLAMP_MAX, UCLAMP_CNT };

/* Linux: struct uclamp_se: a clamp value and its rq bucket; active while the
 * task is counted in its rq's bucket (kernel/sched/uclamp.c). */
struct uclamp_se {
	unsigned int value : 11;
	unsigned int bucket_id : 5;
	unsigned int active : 1;
};

/* Per-task statistics, as /proc/<pid>/sched names them. */
struct sched_statistics {
	u64 nr_wakeups, nr_wakeups_local, nr_wakeups_remote, nr_wakeups_affine;
	u64 nr_wakeups_idle, nr_wakeups_migrate, nr_forced_migrations;
	u64 nr_wakeups_bounced; /* moved again in the tick of its last placement (E2) */
	u64 wait_start, wait_sum, wait_max, wait_count;
	u64 nr_switches; /* times it was switched in */
	u64 exact_insns; /* speed=exact: its own instructions, as charged (kernel/sched/speed.c) */
};

struct sched_class;
struct task_group;

/* A task's last wakeup placements and load-balance move, for the shell's
 * `why` (kernel/sched/why.c). Written by the scheduler under the locks of
 * those paths (p->pi_lock at wakeup, the source rq's lock for a move); read
 * without them by the shell: a hint, as Linux's /proc/PID/sched is. */
#define WHY_NR_WAKEUPS 4
struct why_wakeup {
	u64 ns;				 /* emulated time of the decision */
	s16 prev, waker, target, chosen; /* target: after wake_affine() */
	u16 util;			 /* task_util_est() then */
	u8 rule;			 /* enum why_rule (kernel/sched/sched_internal.h) */
	bool sync, fits;		 /* WF_SYNC; util fitted the chosen CPU */
};
/* Who made a task's last move (why_move.kind): the fair balancer, or the
 * push / pull of the RT and DL classes (kernel/sched/rt.c, deadline.c). */
enum why_move_kind {
	WHY_MOVE_BALANCE,
	WHY_MOVE_RT_PUSH,
	WHY_MOVE_RT_PULL,
	WHY_MOVE_DL_PUSH,
	WHY_MOVE_DL_PULL,
};
struct why_move {
	u64 ns; /* 0: never moved by the balancer, a push or a pull */
	s16 src, dst;
	u8 level, idle, type; /* sched domain level, enum cpu_idle_type, migration_type */
	bool active;	      /* pushed by active balance (the stopper) */
	u8 kind;	      /* enum why_move_kind */
};
struct sched_why {
	struct why_wakeup wakeup[WHY_NR_WAKEUPS];
	unsigned int nr; /* wakeups recorded; the latest is wakeup[(nr - 1) % WHY_NR_WAKEUPS] */
	struct why_move move;
};

struct task_struct {
	struct arch_context ctx; /* must stay first: entry.S switches it */
	int pid;
	char comm[TASK_COMM_LEN];
	volatile long state;
	int cpu; /* CPU it is queued on / last ran on */
	int wake_cpu;
	int recent_used_cpu;
	int on_rq;	    /* TASK_ON_RQ_QUEUED or 0 */
	int on_cpu;	    /* its registers are live on a CPU */
	int preempt_count;  /* > 0: no preemption on IRQ return */
	spinlock_t pi_lock; /* serializes wakeups and affinity changes */
	cpumask_t cpus_allowed;
	int nr_cpus_allowed;
	bool is_idle;
	bool per_cpu_kthread; /* Linux: kthread_is_per_cpu(): idle, stop task */
	/* scheduling */
	int prio, static_prio, normal_prio;
	unsigned int rt_priority;
	unsigned int policy;
	const struct sched_class *sched_class;
	struct sched_entity se;
	struct sched_rt_entity rt;
	struct sched_dl_entity dl;
	unsigned int uclamp_req[UCLAMP_CNT];  /* requested (Linux: uclamp_req[].value) */
	bool uclamp_user_defined[UCLAMP_CNT]; /* set by the user, kept across policies */
	struct uclamp_se uclamp[UCLAMP_CNT];  /* effective, as counted in the rq */
	struct task_group *sched_task_group;  /* NULL: the root group */
	u64 placed_tick; /* SIS_DEBOUNCE: wakeup placement's tick + 1, 0: none */
	struct task_struct *last_wakee;
	unsigned int wakee_flips;
	u64 wakee_flip_decay_ts;
	u64 work_done; /* emulated work units completed (cpu_work) */
	struct sched_statistics stats;
	struct sched_why why;	 /* the shell's `why` */
	struct task_cache cache; /* working set and warmth (kernel/sched/cache.c) */
	/* lifetime */
	void *stack; /* lowest usable address; guard page below */
	size_t stack_size;
	void (*entry)(void *);
	void *arg;
	int exit_code;
	bool exited;
	int refcount;
	struct wait_queue_head exit_wq;
	struct list_head tasks; /* all_tasks */
	/* the run-queue invariant checker's marks (kernel/sched/stats.c) */
	unsigned int debug_seen_gen;
	int debug_seen_cpu;
};

#define current arch_current()

/* kernel/thread.c */
/* A new thread, not yet running: set affinity etc., then wake_up_new_task(). */
struct task_struct *kthread_create(void (*fn)(void *), void *arg, const char *name);
/* Free a kthread_create()d thread that was never woken (out of memory for the rest). */
void kthread_discard(struct task_struct *t);
/* Create and start; NULL if out of memory. */
struct task_struct *kthread_run(void (*fn)(void *), void *arg, const char *name);
/* Wait for t to exit; returns its exit code and releases t. */
int kthread_join(struct task_struct *t);
void thread_exit(int code) __attribute__((noreturn));
void put_task_struct(struct task_struct *t);
unsigned long nr_tasks_alive(void);
/* fn on every task, under the task-list lock (a leaf: fn takes no lock). */
void for_each_task(void (*fn)(struct task_struct *, void *), void *arg);
struct task_struct *idle_task_create(unsigned int cpu);
/* A consistent-enough copy of one task for the shell (ps, top): read under
 * tasks_lock, scheduler fields without the rq lock (a display may be a tick
 * stale, never a dangling pointer). */
struct task_info {
	int pid;
	char comm[TASK_COMM_LEN];
	int cpu;
	long state;
	bool on_cpu, is_idle;
	const char *class_name; /* task_class_name() */
	unsigned int policy;
	int prio, nice;
	unsigned long util_avg, util_est;
	u64 vruntime, nr_migrations, sum_exec_runtime;
	u64 dl_runtime, dl_deadline, dl_period; /* ns; SCHED_DEADLINE only */
	cpumask_t cpus_allowed;
	char group[24];	     /* its task group's path ("/": the root) */
	u64 min_vruntime;    /* its cfs_rq's (its group's on its CPU); under eevdf V */
	u64 deadline, slice; /* EEVDF: virtual deadline, request (ns) */
	s64 vlag;	     /* EEVDF: the lag it left with (not queued) */
	bool queued;	     /* on its run queue (its vruntime counts for V) */
};
/* Fills up to max entries in pid order; returns how many tasks there are. */
int task_snapshot(struct task_info *out, int max);
/* The live task with this pid, with a reference (put_task_struct), or NULL. */
struct task_struct *find_get_task(int pid);
void task_register_boot_idle(struct task_struct *t); /* init_task, pid 0 */

/* kernel/sched/core.c */
void sched_init(void);			     /* boot CPU, before any task is created */
void sched_init_smp(void);		     /* once the CPUs are online: domains, stoppers */
void sched_task_init(struct task_struct *p); /* a new task's scheduler state */
void account_irq_time(u64 delta);
/* kernel/sched/fair_eevdf.c: the fair class's policy, sched=cfs|eevdf (boot or shell) */
const char *sched_policy_name(void);
int sched_policy_set(const char *name); /* 0, or -1: unknown name or stop_machine failed */
bool sched_policy_is_eevdf(void);	/* from the IRQ path */
u64 cpu_irq_time_ns(unsigned int cpu);	/* IRQ time so far (not in clock_task) */
void sched_init_cpu(unsigned int cpu, struct task_struct *idle);
void schedule(void);
void schedule_tail(struct task_struct *prev);
int wake_up_process(struct task_struct *t);
#define WF_SYNC 0x1 /* the waker is about to sleep (pipe-style hand-over) */
int wake_up_process_flags(struct task_struct *t, int wake_flags);
void wake_up_new_task(struct task_struct *t);
void yield(void);
void scheduler_tick(void);
/* NO_HZ idle: this CPU's tick was just stopped in its idle loop (timer.c). */
void nohz_balance_enter_idle(unsigned int cpu);
void irq_exit_preempt(void); /* from the IRQ return path */
void cpu_idle_loop(void) __attribute__((noreturn));
void cpu_idle_once(void); /* one pass of it, for hosted arches (tests/host/fake_arch.c) */
int set_cpus_allowed(struct task_struct *t, const cpumask_t *mask);
void resched_cpu(unsigned int cpu);
bool need_resched(void);
u64 cpu_nr_switches(unsigned int cpu);
unsigned int cpu_nr_running(unsigned int cpu);
/* kernel/sched/syscalls.c. Policy and priority: SCHED_NORMAL/BATCH/IDLE take nice
 * (-20..19), FIFO/RR take rt_priority 1..99. Return 0 or -1 for invalid values. */
int sched_setscheduler(struct task_struct *p, unsigned int policy, unsigned int rt_priority);
/* Linux: sched_setattr(): any policy; SCHED_DEADLINE takes sched_runtime <=
 * sched_deadline <= sched_period (period 0: = deadline). 0, -EINVAL for
 * invalid values, -EBUSY when admission control refuses the bandwidth, -EPERM
 * when p may not run on every active CPU (Linux: the root domain's span). */
int sched_setattr(struct task_struct *p, const struct sched_attr *attr);
/* What SCHED_DEADLINE tasks hold: the admitted bandwidth and what admission
 * allows (both << 20, over the active CPUs' capacity x 1024 / 1024). */
void sched_dl_bw_info(u64 *total_bw, u64 *max_bw);
/* Hotplug: may `cpu` go offline without breaking admitted DL bandwidth?
 * Linux: dl_cpu_busy(). 0 or -EBUSY. */
int sched_dl_cpu_busy(unsigned int cpu);
int set_user_nice(struct task_struct *p, int nice);
int task_nice(const struct task_struct *p);
int sched_set_uclamp(struct task_struct *p, unsigned int min, unsigned int max);
/* A fair task's EEVDF request in ns (Linux 6.12: sched_attr.sched_runtime; clamped to
 * 0.1-100 ms), 0: the base slice. 0 or -EINVAL. */
int sched_set_slice(struct task_struct *p, u64 ns);
/* RT throttling (kernel/sched/rt.c; Linux: the sysctls kernel.sched_rt_runtime_us and
 * kernel.sched_rt_period_us). runtime -1: no limit. 0, -EINVAL (period < 1, runtime < -1
 * or above period), -EBUSY (less than the admitted SCHED_DEADLINE bandwidth). */
int sched_rt_bandwidth_set(long runtime_us, long period_us);
void sched_rt_bandwidth_get(long *runtime_us, long *period_us);
/* kernel/sched/uclamp.c. The effective clamp (request cut to the system
 * limits; the counted one while queued); the rq's aggregated clamp; the
 * system-wide limits and the RT tasks' default uclamp.min (Linux's sysctls
 * sched_util_clamp_min, _max, _min_rt_default; -1 if out of range). */
unsigned long uclamp_eff_value(const struct task_struct *p, enum uclamp_id clamp_id);
unsigned int uclamp_rq_value(unsigned int cpu, enum uclamp_id clamp_id);
int sched_uclamp_sysctl(unsigned int util_min, unsigned int util_max, unsigned int rt_default);
void sched_uclamp_sysctl_get(unsigned int *util_min, unsigned int *util_max,
			     unsigned int *rt_default);
/* kernel/sched/cpu_work.c: consume `units` of emulated CPU work (ns on the biggest CPU
 * at its top OPP): the task stays running, the CPU waits for the completion deadline. */
void cpu_work(u64 units);
/* Utilization views for tests, the shell and cpufreq. */
unsigned long task_util(const struct task_struct *p);
unsigned long cpu_util_cfs(unsigned int cpu);
unsigned long cpu_util_rt(unsigned int cpu);  /* Linux: cpu_util_rt(), avg_rt.util_avg */
unsigned long cpu_util_irq(unsigned int cpu); /* Linux: cpu_util_irq(), avg_irq.util_avg */
unsigned long capacity_of(unsigned int cpu);
unsigned long capacity_orig_of(unsigned int cpu);
void sched_print_task(const struct task_struct *p); /* /proc/<pid>/sched-like */
void sched_print_rq_stats(unsigned int cpu);
void sched_why_print(struct task_struct *p);		      /* the shell's `why` (why.c) */
const char *sched_why_last_rule(const struct task_struct *p); /* its newest wakeup's rule */
u64 task_min_vruntime(const struct task_struct *p);	      /* its own cfs_rq's (its group's) */
void sched_print_domains(void);				      /* each CPU's sched domains (shell) */
u64 cpu_idle_time_ns(unsigned int cpu); /* idle so far, the current stretch included */
/* Idle time of cpu between t (at most 2 s ago) and *now, which it sets (kernel/sched/stats.c:
 * from the samples idle_history_tick() keeps at each CPU's tick). */
u64 cpu_idle_time_since(unsigned int cpu, u64 t, u64 *now);
void idle_history_tick(void); /* the tick, IRQs off */
/* E3: totals of CFS PELT updates and of their timed ns over all CPUs; then
 * turns their timing on or off (one load and branch per update when off). */
void sched_pelt_stats(bool timing, u64 *updates, u64 *ns);
/* experiment=cost: emulated ns of one full wakeup scan of the asymmetric domain
 * (fair_select.c; 0 if symmetric) and of one load-balance pass's statistics at the top
 * domain (balance.c), on the calling CPU, averaged over `loops`. */
u64 sched_wakeup_scan_cost_ns(unsigned int loops);
u64 sched_lb_pass_cost_ns(unsigned int loops);
const char *task_class_name(const struct task_struct *p); /* stop, dl, rt, fair, idle */
/* Hotplug (kernel/cpu.c): on the dying CPU inside stop_machine, move every
 * queued task away; before a CPU starts again, reset its run queue. */
unsigned int sched_migrate_tasks(unsigned int dead_cpu);
void sched_cpu_starting(unsigned int cpu);
struct task_struct *idle_task(unsigned int cpu);
bool sched_cpu_has_stopper(unsigned int cpu); /* its migration/N thread exists */
/* Rebuild every active CPU's sched domains over cpu_active_mask (balance.c);
 * inside stop_machine, or before other CPUs run. */
void sched_domains_init(void);
/* Linux: stop_machine_cpuslocked(): fn(arg) runs on `cpu` (IRQs off) while
 * every other online CPU waits in its stop task with IRQs off; returns fn's
 * value, or -1 if a stop task could not be queued. Task context, may sleep. */
int stop_machine(int (*fn)(void *), void *arg, unsigned int cpu);
/* kernel/cpu.c: stop_machine() on this CPU under cpu_hotplug_lock (may sleep). */
int stop_machine_cpus_locked(int (*fn)(void *), void *arg);
/* Hotplug of the stop task (Linux: stop_machine_park/unpark): a parked one
 * takes no new work. */
void stop_machine_park(unsigned int cpu);
void stop_machine_unpark(unsigned int cpu);
/* The dying CPU's idle task (kernel/cpu.c); does not return. */
void cpuhp_report_idle_dead(void) __attribute__((noreturn));
/* Check every run queue's invariants; returns the number of violations. */
int sched_check_invariants(bool verbose);

/* kernel/sched/group.c: task groups (the cpu cgroup's tree; its CFS hierarchy is
 * kernel/sched/fair_group.c's: the weight shares CPU time, the clamps act through uclamp).
 * path "A/B" ("" or "/": root); NULL parent: root; -1 / NULL on refusal. */
struct task_group *sched_group_find(const char *path);
struct task_group *sched_group_create(struct task_group *parent, const char *name);
int sched_group_destroy(struct task_group *tg); /* refused with tasks or children */
int sched_group_set_weight(struct task_group *tg, unsigned int weight); /* 1..10000 */
int sched_group_set_uclamp(struct task_group *tg, unsigned int min, unsigned int max);
int sched_move_task(struct task_struct *p, struct task_group *tg);
struct task_group *task_group(const struct task_struct *p);
int sched_group_path(const struct task_group *tg, char *buf, size_t size);
void sched_group_print(void); /* the shell's `cgroups` */
/* A non-root group on one CPU, read without its lock (a snapshot): its cfs_rq's load and
 * util, its entity's weight (the share calc_group_shares gave it), load and util. */
struct sched_group_cpu {
	unsigned long cfs_load, cfs_util, se_weight, se_load, se_util;
	unsigned int nr_running; /* tasks below it there (h_nr_running) */
};
int sched_group_cpu_stats(struct task_group *tg, unsigned int cpu, struct sched_group_cpu *out);
long sched_group_load_avg(struct task_group *tg); /* tg->load_avg */

/* kernel/sched/features.c: runtime feature flags, as Linux's sched features. */
int sched_feat_set(const char *name_or_NO_name); /* 0, or -1 if unknown */
bool sched_feat_get(const char *name, bool *value);
void sched_feat_print(void);
/* EAS (kernel/sched/fair_energy.c): on? why not? the root domain overutilized? */
void sched_energy_update(void); /* after a governor, EAS feature or CPU set change */
bool sched_energy_enabled(void);
const char *sched_energy_reason(void);
bool sched_overutilized(void);
/* The energy p would add to performance domain pd on dst_cpu; *base: pd's without it. */
u64 sched_energy_delta(int pd, const struct task_struct *p, int dst_cpu, u64 *base);
void sched_energy_print(long util); /* the shell's `eas [UTIL]` (util < 0: none) */
void sched_feat_describe(void);	    /* each with its state and a line on it */

static inline void preempt_disable(void)
{
	current->preempt_count++;
	__asm__ volatile("" ::: "memory");
}
static inline void preempt_enable(void)
{
	__asm__ volatile("" ::: "memory");
	current->preempt_count--;
}

#endif
