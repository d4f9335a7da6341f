/* test_eevdf_oracle.c - random event sequences for the EEVDF oracle
 * (tests/oracle/linux_eevdf.py): the real kernel/sched code under sched=eevdf on the fake
 * HiKey960 (sched_harness.h), tasks pinned to CPU 4 forked, run, put to sleep, woken
 * (locally and from another CPU), reniced and given slices at random. With
 * SCHED_EEVDF_TRACE set, every class-level event (enqueue, dequeue, put_prev, pick,
 * set_next, tick, the wakeup check, nice changes, the core's update_curr) is printed with
 * CPU 4's clock_task as an "E ev" line, and after every step each task's vruntime,
 * deadline, vlag, slice and weight and the run queue's V as "E task" / "E rq" lines; the
 * model replays the events through Linux 6.12's rules and must pick the same task and
 * print the same numbers. Without the variable the sequences only run, as part of
 * unittests, with the run-queue invariants (debug build: sums, lags, pick) checked. */
#include <stdio.h>
#include <stdlib.h>
#include "../../kernel/sched/sched_internal.h"
#include "fake_arch.h"
#include "sched_harness.h"

#define CPU  4u
#define US   NSEC_PER_USEC
#define MAXT 7

static bool etrace;
static int estep;

static const char *const names[] = {
	[SCHED_EV_ENQUEUE] = "enqueue",
	[SCHED_EV_DEQUEUE] = "dequeue",
	[SCHED_EV_PUT_PREV] = "put_prev",
	[SCHED_EV_PICK] = "pick",
	[SCHED_EV_SET_NEXT] = "set_next",
	[SCHED_EV_TICK] = "tick",
	[SCHED_EV_CHANGED] = "changed",
	[SCHED_EV_PREEMPT_CHECK] = "preempt_check",
	[SCHED_EV_UPDATE_CURR] = "update_curr",
	[SCHED_EV_REQUEUE] = "requeue",
	[SCHED_EV_BLOCK] = "block",
};

void eevdf_oracle_event(int ev, struct rq *rq, struct task_struct *p, long arg)
{
	if (!etrace || rq->cpu != CPU || ev < 0 || ev >= (int)ARRAY_SIZE(names) || !names[ev])
		return;
	if (p && (p->is_idle || p->sched_class != &fair_sched_class))
		p = NULL; /* the idle task's put_prev/pick: no fair entity */
	printf("E ev %s ct=%llu pid=%d arg=%ld resched=%d w=%lu slice=%llu custom=%d\n", names[ev],
	       (unsigned long long)rq->clock_task, p ? p->pid : -1, arg, (int)rq->need_resched,
	       p ? p->se.load.weight : 0, p ? (unsigned long long)p->se.slice : 0,
	       p ? p->se.custom_slice : 0);
}

static struct task_struct *et[MAXT];
static int ent;

/* V as avg_vruntime() computes it, without moving zero_vruntime (a readout). */
static u64 read_V(struct cfs_rq *cfs)
{
	struct sched_entity *curr = cfs->curr && cfs->curr->on_rq ? cfs->curr : NULL;
	s64 sum = cfs->avg_vruntime;
	long load = cfs->avg_load;

	if (curr) {
		sum += (s64)(curr->vruntime - cfs->zero_vruntime) * (s64)curr->load.weight;
		load += (long)curr->load.weight;
	}
	if (load)
		return cfs->zero_vruntime + (u64)((sum < 0 ? sum - (load - 1) : sum) / load);
	return curr ? curr->vruntime : cfs->zero_vruntime;
}

static void echeck(const char *what)
{
	struct rq *rq = cpu_rq(CPU);

	if (!etrace)
		return;
	printf("E check %d %s V=%llu nr=%u curr=%d\n", ++estep, what,
	       (unsigned long long)read_V(&rq->cfs), rq->cfs.nr_running,
	       rq->curr->is_idle ? -1 : rq->curr->pid);
	for (int i = 0; i < ent; i++) {
		struct sched_entity *se = &et[i]->se;

		printf("E task pid=%d q=%d dl=%d v=%llu d=%llu vlag=%lld slice=%llu w=%lu rel=%d\n",
		       et[i]->pid, se->on_rq, se->sched_delayed, (unsigned long long)se->vruntime,
		       (unsigned long long)se->deadline, (long long)se->vlag,
		       (unsigned long long)se->slice, se->load.weight, se->rel_deadline);
	}
}

static u32 rnd(u32 *s) /* xorshift32 */
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static void wake(struct task_struct *p, unsigned int from)
{
	fake_arch_set_cpu(from);
	wake_up_process(p);
	settle();
}

/* One random step; true when something happened. */
static bool random_step(struct ktest *t, u32 *s)
{
	struct task_struct *curr = cpu_curr(CPU), *p = ent ? et[rnd(s) % (u32)ent] : NULL;
	u32 r = rnd(s) % 100;

	if (r < 12 && ent < MAXT) {
		p = task_new("e", CPUS(1u << CPU), (int)(rnd(s) % 11) - 5);
		if (rnd(s) % 3 == 0)
			sched_set_slice(p, 100 * US + rnd(s) % (5000 * US));
		et[ent++] = p;
		task_start(p, rnd(s) % 2 ? CPU : 0);
		echeck("fork");
	} else if (r < 50) {
		run_for(20 * US + rnd(s) % (6000 * US));
		echeck("time");
	} else if (r < 65) {
		if (curr->is_idle)
			return false;
		task_sleep(t, curr);
		echeck("sleep");
	} else if (r < 80) {
		if (!p || p->state == TASK_RUNNING)
			return false;
		wake(p, rnd(s) % 2 ? CPU : 1);
		echeck("wake");
	} else if (r < 90) {
		if (!p)
			return false;
		fake_arch_set_cpu(CPU);
		set_user_nice(p, (int)(rnd(s) % 21) - 10);
		settle();
		echeck("nice");
	} else {
		if (!p)
			return false;
		fake_arch_set_cpu(CPU);
		sched_set_slice(p, rnd(s) % 2 ? 0 : 100 * US + rnd(s) % (8000 * US));
		settle();
		echeck("slice");
	}
	return true;
}

static void eevdf_random(struct ktest *t, u32 seed, int steps)
{
	u32 s = seed;

	sysctl_sched_eevdf = true; /* before the first task: a boot with sched=eevdf */
	if (!machine_up(t)) {
		sysctl_sched_eevdf = false;
		return;
	}
	ent = 0;
	estep = 0;
	etrace = getenv("SCHED_EEVDF_TRACE") != NULL;
	if (etrace)
		printf("E scenario seed=%u base_slice=%u tick=%llu features=%u\n", seed,
		       sysctl_sched_base_slice, (unsigned long long)TICK_NSEC,
		       sysctl_sched_features);
	for (int i = 0; i < steps; i++)
		random_step(t, &s);
	EXPECT_TRUE(t, sched_check_invariants(false) == 0);
	if (etrace)
		printf("E done\n");
	etrace = false;
	machine_ok(t);
	sysctl_sched_eevdf = false;
}

static void eevdf_oracle_seed1(struct ktest *t)
{
	eevdf_random(t, 1, 400);
}

static void eevdf_oracle_seed2(struct ktest *t)
{
	eevdf_random(t, 0xbeef, 400);
}

static void eevdf_oracle_seed3(struct ktest *t)
{
	eevdf_random(t, 0x29292929, 400);
}

KTEST_SUITE(eevdf_oracle, KTEST_CASE(eevdf_oracle_seed1), KTEST_CASE(eevdf_oracle_seed2),
	    KTEST_CASE(eevdf_oracle_seed3));
