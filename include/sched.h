/* sched.h - tasks (kernel threads) and the scheduler entry points the rest
 * of the kernel uses. The policy lives in kernel/sched/; thread lifetime
 * (stacks, create/exit/join) in kernel/thread.c. */
#ifndef SCHED_H
#define SCHED_H

#include "arch.h"
#include "list.h"
#include "smp.h"
#include "spinlock.h"
#include "wait.h"

#define TASK_COMM_LEN 16

enum task_state {
	TASK_RUNNING = 0,	/* on a run queue or running */
	TASK_INTERRUPTIBLE = 1,	/* sleeping until woken */
	TASK_DEAD = 2,
	TASK_NEW = 3,		/* created, not yet woken */
};

struct task_struct {
	struct arch_context ctx;	/* must stay first: entry.S switches it */
	int pid;
	char comm[TASK_COMM_LEN];
	volatile long state;
	int cpu;		/* CPU it is queued on / last ran on */
	int on_rq;		/* queued on (or running from) a run queue */
	int on_cpu;		/* its registers are live on a CPU */
	int preempt_count;	/* > 0: no preemption on IRQ return */
	spinlock_t pi_lock;	/* serializes wakeups and affinity changes */
	cpumask_t cpus_allowed;
	bool is_idle;
	/* PLACEHOLDER scheduler state (replaced by the scheduler issue) */
	struct list_head run_list;
	u64 slice_start;	/* when it last got the CPU (ns) */
	/* lifetime */
	void *stack;		/* lowest usable address; guard page below */
	size_t stack_size;
	void (*entry)(void *);
	void *arg;
	int exit_code;
	bool exited;
	int refcount;
	struct wait_queue_head exit_wq;
	struct list_head tasks;	/* all_tasks */
	/* statistics */
	u64 nr_switches, nr_migrations, nr_wakeups;
	u64 sum_exec_runtime, exec_start;
};

#define current arch_current()

/* kernel/thread.c */
/* A new thread, not yet running: set affinity etc., then wake_up_new_task(). */
struct task_struct *kthread_create(void (*fn)(void *), void *arg, const char *name);
/* Create and start; NULL if out of memory. */
struct task_struct *kthread_run(void (*fn)(void *), void *arg, const char *name);
/* Wait for t to exit; returns its exit code and releases t. */
int kthread_join(struct task_struct *t);
void thread_exit(int code) __attribute__((noreturn));
void put_task_struct(struct task_struct *t);
unsigned long nr_tasks_alive(void);
struct task_struct *idle_task_create(unsigned int cpu);

/* kernel/sched/core.c */
void sched_init(void);
void sched_init_cpu(unsigned int cpu, struct task_struct *idle);
void schedule(void);
void schedule_tail(struct task_struct *prev);
int wake_up_process(struct task_struct *t);
void wake_up_new_task(struct task_struct *t);
void yield(void);
void scheduler_tick(void);
void irq_exit_preempt(void);	/* from the IRQ return path */
void cpu_idle_loop(void) __attribute__((noreturn));
int set_cpus_allowed(struct task_struct *t, cpumask_t mask);
void resched_cpu(unsigned int cpu);
bool need_resched(void);
u64 cpu_nr_switches(unsigned int cpu);
unsigned int cpu_nr_running(unsigned int cpu);

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
