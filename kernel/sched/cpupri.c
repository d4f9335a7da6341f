/* cpupri.c - each CPU's RT priority level, kept as it changes, so that
 * find_lowest_rq() (rt.c) finds the CPUs running the least important work
 * without visiting every run queue. One map (one root domain here). Not the
 * RT queues themselves (rt.c) nor DL's deadlines (deadline.c). Written under
 * the CPU's rq->lock, read without locks (a hint, as Linux's: a push or pull
 * re-checks under the target's lock). Linux: kernel/sched/cpupri.c. */
#include "sched_internal.h"

/*
 * Levels (Linux: convert_prio()), from a run queue's highest RT prio:
 *
 *   rq's prio          level
 *   -1 (invalid)        -1   CPUPRI_INVALID: the CPU is offline
 *   99 (no RT task)      0   CPUPRI_NORMAL: CFS, idle
 *   98 .. 0              1 .. 99
 *   100 (DL queued)    100   CPUPRI_HIGHER: DL tasks outrank every RT task
 *
 * A task of level L may preempt a CPU below L: find_lowest_rq() scans the
 * levels upwards from 0 and stops at the first with a CPU it may use.
 */
static struct {
	int count;	/* CPUs at this level (atomic) */
	cpumask_t mask; /* which (atomic bit operations) */
} pri_to_cpu[CPUPRI_NR_PRIORITIES];
static int cpu_to_pri[NR_CPUS];

static int convert_prio(int prio)
{
	if (prio == CPUPRI_INVALID)
		return CPUPRI_INVALID;
	if (prio >= MAX_RT_PRIO)
		return MAX_RT_PRIO; /* CPUPRI_HIGHER */
	if (prio == MAX_RT_PRIO - 1)
		return CPUPRI_NORMAL;
	return MAX_RT_PRIO - 1 - prio;
}

/* Leave a level: the count first, so that a reader that sees the CPU in the
 * mask of a level whose count is 0 skips it (the order of Linux's barriers). */
static void level_leave(unsigned int cpu, int idx)
{
	if (idx < 0)
		return;
	__atomic_sub_fetch(&pri_to_cpu[idx].count, 1, __ATOMIC_SEQ_CST);
	cpumask_clear_cpu(cpu, &pri_to_cpu[idx].mask);
}

static void level_enter(unsigned int cpu, int idx)
{
	if (idx < 0)
		return;
	cpumask_set_cpu(cpu, &pri_to_cpu[idx].mask);
	__atomic_add_fetch(&pri_to_cpu[idx].count, 1, __ATOMIC_SEQ_CST);
}

/* A CPU's run queue was (re)initialised: it is at CPUPRI_NORMAL and nowhere
 * else (the host tests set run queues up again and again). */
void cpupri_init_cpu(unsigned int cpu)
{
	for (int idx = 0; idx < CPUPRI_NR_PRIORITIES; idx++) {
		if (!cpumask_test_cpu(cpu, &pri_to_cpu[idx].mask))
			continue;
		cpumask_clear_cpu(cpu, &pri_to_cpu[idx].mask);
		__atomic_sub_fetch(&pri_to_cpu[idx].count, 1, __ATOMIC_SEQ_CST);
	}
	cpu_to_pri[cpu] = CPUPRI_NORMAL;
	level_enter(cpu, CPUPRI_NORMAL);
}

/* Linux: cpupri_set(): prio is the rq's highest RT prio (MAX_RT_PRIO - 1:
 * none; MAX_RT_PRIO: a DL task is queued). Under the CPU's rq->lock. */
void cpupri_set(unsigned int cpu, int prio)
{
	int newpri = convert_prio(prio), oldpri = cpu_to_pri[cpu];

	if (newpri == oldpri)
		return;
	level_enter(cpu, newpri); /* in both for a moment, never in none */
	level_leave(cpu, oldpri);
	WRITE_ONCE(cpu_to_pri[cpu], newpri);
}

int cpupri_get(unsigned int cpu)
{
	return READ_ONCE(cpu_to_pri[cpu]);
}

/* Linux: __cpupri_find(): p's allowed active CPUs at level idx. */
static bool cpupri_find_level(const struct task_struct *p, cpumask_t *lowest_mask, int idx)
{
	if (!__atomic_load_n(&pri_to_cpu[idx].count, __ATOMIC_SEQ_CST))
		return false;
	if (!cpumask_and(lowest_mask, &p->cpus_allowed, &pri_to_cpu[idx].mask))
		return false;
	return cpumask_and(lowest_mask, lowest_mask, cpu_active_mask);
}

/* Linux: cpupri_find_fitness(): the lowest level below p's own with a CPU p
 * may use (and, with fitness_fn, that fits p); none fits: the same search
 * without fitness, as priority matters more than fit. 1 with lowest_mask
 * filled, or 0. */
int cpupri_find_fitness(const struct task_struct *p, cpumask_t *lowest_mask,
			bool (*fitness_fn)(const struct task_struct *p, int cpu))
{
	int task_pri = convert_prio(p->prio);
	unsigned int cpu;

	for (int idx = 0; idx < task_pri; idx++) {
		if (!cpupri_find_level(p, lowest_mask, idx))
			continue;
		if (!fitness_fn)
			return 1;
		for_each_cpu(cpu, lowest_mask)
			if (!fitness_fn(p, (int)cpu))
				cpumask_clear_cpu(cpu, lowest_mask);
		if (!cpumask_empty(lowest_mask))
			return 1;
	}
	return fitness_fn ? cpupri_find_fitness(p, lowest_mask, NULL) : 0;
}
