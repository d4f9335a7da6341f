/* sched_harness.h - the machine of test_sched.c (the HiKey960 on the fake arch, the real
 * kernel/sched code) for the other scheduler test files: build it, run it, start, block
 * and pin tasks. Defined in test_sched.c; see the comments there. */
#ifndef TESTS_HOST_SCHED_HARNESS_H
#define TESTS_HOST_SCHED_HARNESS_H

#include "ktest.h"

struct task_struct;

bool machine_up(struct ktest *t);	/* a fresh HiKey960, all CPUs idle, clock at 1 ms */
void machine_ok(struct ktest *t);	/* no arch.h obligation broken, no WARN */
void run_for(u64 ns);			/* emulated time moves: ticks, IPIs, stoppers */
void settle(void);			/* IPIs delivered, idle CPUs told to resched do */
struct task_struct *task_new(const char *name, cpumask_t allowed, int nice);
void task_start(struct task_struct *p, unsigned int from);	/* wake_up_new_task on from */
bool task_sleep(struct ktest *t, struct task_struct *p);	/* p, running, blocks */
struct task_struct *hog(unsigned int cpu);	/* an always-running nice-0 task pinned to cpu */

#endif
