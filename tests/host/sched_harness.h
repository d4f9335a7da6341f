/* sched_harness.h - the scheduler test machine of tests/host/test_sched.c, shared with
 * tests/host/test_oracle.c and test_wakeup.c: the HiKey960 (CPUs 0-3 capacity 462, 4-7
 * 1024) on the fake arch, tasks the tests own, and the steps that move them (start, block,
 * time). */
#ifndef SCHED_HARNESS_H
#define SCHED_HARNESS_H

#include "ktest.h"
#include "types.h"

#define NR_HIKEY_CPUS 8
/* A mask from the bits of the first 64 CPUs (the harness machine has 8). */
#define CPUS(bits)    (&(const cpumask_t){ { (bits) } })
#define ALL_CPUS      CPUS(0xffull)
#define MS	      NSEC_PER_MSEC
#define MAX_TASKS     256

struct task_struct;

/* Everything the current machine allocated (idle tasks first): freed by the next one. */
extern struct task_struct *tasks[MAX_TASKS + NR_CPUS];
extern int nr_tasks;

bool machine_up(struct ktest *t); /* a new machine, all CPUs idle, clock at 1 ms */
void machine_ok(struct ktest *t); /* no arch.h obligation broken, no WARN */
struct task_struct *task_alloc(const char *name);
struct task_struct *task_new(const char *name, const cpumask_t *allowed, int nice);
void task_start(struct task_struct *p, unsigned int from); /* wake_up_new_task on from */
bool task_sleep(struct ktest *t, struct task_struct *p);   /* p, running, blocks */
void run_for(u64 ns);			   /* time passes: ticks and IPIs as they come */
void settle(void);			   /* pending IPIs delivered, told idle CPUs reschedule */
struct task_struct *hog(unsigned int cpu); /* an always-running nice-0 task pinned to cpu */

/* test_eevdf_oracle.c's half of test_oracle.c's event hook. */
struct rq;
void eevdf_oracle_event(int ev, struct rq *rq, struct task_struct *p, long arg);
#endif
