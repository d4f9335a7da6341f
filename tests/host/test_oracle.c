/* test_oracle.c - scenarios for the Linux-maths oracle (tests/oracle/linux_pelt.py): the
 * real kernel/sched code on the fake HiKey960 (sched_harness.h) runs scripted tasks (run X,
 * sleep Y, wake on CPU Z, migrate, fork, nice, affinity, a saturated LITTLE CPU, RT
 * bursts). With SCHED_ORACLE_TRACE set, every core-level event that drives PELT (the
 * kernel's sched_oracle_event() calls) and, after every step, every task's and run
 * queue's PELT state are printed as "O ..." lines; the Python model replays the events
 * through Linux 6.1's update paths and requires the printed values to the unit. Without
 * the variable the scenarios only run (and check the machine), as part of unittests. */
#include <stdio.h>
#include <stdlib.h>
#include "../../kernel/sched/sched_internal.h"
#include "fake_arch.h"
#include "sched_harness.h"

#define US NSEC_PER_USEC

static bool tracing;
static int step;

static char class_of(const struct task_struct *p)
{
	if (!p)
		return '-';
	if (p->sched_class == &fair_sched_class)
		return 'f';
	if (p->sched_class == &rt_sched_class)
		return 'r';
	if (p->sched_class == &idle_sched_class)
		return 'i';
	return 's';
}

static const char *const ev_names[] = {
	[SCHED_EV_CLOCK] = "clock",	  [SCHED_EV_ENQUEUE] = "enqueue",
	[SCHED_EV_DEQUEUE] = "dequeue",	  [SCHED_EV_PUT_PREV] = "put_prev",
	[SCHED_EV_PICK] = "pick",	  [SCHED_EV_SET_NEXT] = "set_next",
	[SCHED_EV_TICK] = "tick",	  [SCHED_EV_MIGRATE] = "migrate",
	[SCHED_EV_FORK] = "fork",	  [SCHED_EV_CHANGE] = "change",
	[SCHED_EV_CHANGED] = "changed",	  [SCHED_EV_BLOCKED] = "blocked",
	[SCHED_EV_SWITCHED] = "switched", [SCHED_EV_DEAD] = "dead",
};

/* kernel/sched/sched_internal.h's hook: one line per event, fields by name. */
void sched_oracle_event(enum sched_oracle_ev ev, struct rq *rq, struct task_struct *p, long arg)
{
	eevdf_oracle_event((int)ev, rq, p, arg); /* test_eevdf_oracle.c's stream */
	if (!tracing || ev >= SCHED_EV_PREEMPT_CHECK)
		return;
	printf("O ev %s t=%llu cpu=%u pid=%d cls=%c arg=%ld onrq=%d w=%lu idlepol=%d freq=%lu\n",
	       ev_names[ev], (unsigned long long)fake_arch_now(), rq->cpu, p ? p->pid : -1,
	       class_of(p), arg, p ? p->on_rq : 0, p ? p->se.load.weight : 0,
	       p ? p->policy == SCHED_IDLE : 0, arch_scale_freq_capacity((int)rq->cpu));
}

static void print_avg(const char *what, int id, const struct sched_avg *a)
{
	printf("O %s %d lut=%llu load_sum=%llu runnable_sum=%llu util_sum=%u period=%u "
	       "load=%lu runnable=%lu util=%lu ue_enq=%u ue_ewma=%u\n",
	       what, id, (unsigned long long)a->last_update_time, (unsigned long long)a->load_sum,
	       (unsigned long long)a->runnable_sum, a->util_sum, a->period_contrib, a->load_avg,
	       a->runnable_avg, a->util_avg, a->util_est.enqueued, a->util_est.ewma);
}

/* After a step: the kernel's values, for the model to compare. */
static void check(const char *what)
{
	if (!tracing)
		return;
	printf("O check %d %s t=%llu\n", ++step, what, (unsigned long long)fake_arch_now());
	for (int i = 0; i < nr_tasks; i++) {
		struct task_struct *p = tasks[i];

		if (p->is_idle || p->cpu < 0 || p->state == TASK_NEW || p->state == TASK_DEAD)
			continue;
		print_avg("task", p->pid, &p->se.avg);
	}
	for (unsigned int cpu = 0; cpu < NR_HIKEY_CPUS; cpu++) {
		struct rq *rq = cpu_rq(cpu);

		print_avg("cfs", (int)cpu, &rq->cfs.avg);
		print_avg("rt", (int)cpu, &rq->avg_rt);
		printf("O clock %u clock=%llu clock_task=%llu clock_pelt=%llu lost=%llu\n", cpu,
		       (unsigned long long)rq->clock, (unsigned long long)rq->pelt.clock_task,
		       (unsigned long long)rq->pelt.clock_pelt,
		       (unsigned long long)rq->pelt.lost_idle_time);
	}
	printf("O end\n");
	fflush(stdout);
}

/* A new machine, announced with its capacities. */
static bool scenario(struct ktest *t, const char *name)
{
	tracing = false;
	if (!machine_up(t))
		return false;
	tracing = getenv("SCHED_ORACLE_TRACE") != NULL;
	step = 0;
	if (tracing) {
		printf("O scenario %s\n", name);
		for (unsigned int cpu = 0; cpu < NR_HIKEY_CPUS; cpu++) {
			struct rq *rq = cpu_rq(cpu);

			printf("O cpu %u cap=%lu clock=%llu clock_task=%llu clock_pelt=%llu "
			       "idle_pid=%d\n",
			       cpu, arch_scale_cpu_capacity((int)cpu),
			       (unsigned long long)rq->clock,
			       (unsigned long long)rq->pelt.clock_task,
			       (unsigned long long)rq->pelt.clock_pelt, rq->idle->pid);
		}
	}
	return true;
}

static void scenario_end(struct ktest *t)
{
	if (tracing)
		printf("O done\n");
	tracing = false;
	machine_ok(t);
}

/* A CFS task allowed on `cpus`, started from CPU `from`. */
static struct task_struct *start(const char *name, const cpumask_t *cpus, int nice,
				 unsigned int from)
{
	struct task_struct *p = task_new(name, cpus, nice);

	task_start(p, from);
	check("fork");
	return p;
}

/* p (asleep) wakes from CPU `from`, allowed only on `cpu`: a migration if it slept
 * elsewhere. */
static void wake_on(struct task_struct *p, unsigned int cpu, unsigned int from)
{
	set_cpus_allowed(p, cpumask_of(cpu));
	fake_arch_set_cpu(from);
	wake_up_process(p);
	settle();
	check("wake");
}

static void sleep_now(struct ktest *t, struct task_struct *p)
{
	task_sleep(t, p);
	check("sleep");
}

static void pass(u64 ns)
{
	run_for(ns);
	check("time");
}

/* Deviation 1: 2 ms every 32 ms on big CPUs, one task staying on CPU 4, one woken on
 * CPU 5 and 6 in turn. Linux: both settle near util 46. */
static void oracle_migrate_every_wakeup(struct ktest *t)
{
	struct task_struct *stay, *move;

	if (!scenario(t, "migrate_every_wakeup"))
		return;
	stay = start("stay", cpumask_of(4), 0, 4);
	move = start("move", cpumask_of(5), 0, 5);
	for (int i = 0; i < 24; i++) {
		pass(2 * MS);
		sleep_now(t, stay);
		sleep_now(t, move);
		pass(30 * MS);
		wake_on(stay, 4, 0);
		wake_on(move, i % 2 ? 5 : 6, 0);
	}
	EXPECT_LT(t, move->se.avg.util_avg, 100ul);
	scenario_end(t);
}

/* Deviation 1: a task asleep 244 ms leaves CPU 5, where another task runs, for CPU 6. */
static void oracle_long_sleeper_leaves(struct ktest *t)
{
	struct task_struct *sleeper, *hog;

	if (!scenario(t, "long_sleeper_leaves"))
		return;
	sleeper = start("sleeper", cpumask_of(5), 0, 5);
	for (int i = 0; i < 6; i++)
		pass(50 * MS);
	sleep_now(t, sleeper);
	hog = start("hog", cpumask_of(5), 0, 5);
	for (int i = 0; i < 8; i++)
		pass(30 * MS);
	pass(4 * MS);
	wake_on(sleeper, 6, 0);
	pass(1 * MS);
	EXPECT_GT(t, cpu_rq(5)->cfs.avg.util_avg, 500ul);
	EXPECT_LT(t, sleeper->se.avg.util_avg, 100ul);
	(void)hog;
	scenario_end(t);
}

/* Deviation 1, E1-like: two tasks hand a token back and forth, 300 times, each woken on
 * another LITTLE CPU than the one it slept on. */
static void oracle_ping_pong(struct ktest *t)
{
	struct task_struct *a, *b;

	if (!scenario(t, "ping_pong"))
		return;
	a = start("ping", cpumask_of(0), 0, 0);
	b = start("pong", cpumask_of(1), 0, 1);
	sleep_now(t, b);
	for (int i = 0; i < 300; i++) {
		struct task_struct *run = i % 2 ? b : a, *other = i % 2 ? a : b;

		unsigned int to = ((unsigned int)other->cpu + 1) % 4;

		if (to == (unsigned int)run->cpu)
			to = (to + 1) % 4;
		pass(40 * US);
		wake_on(other, to, (unsigned int)run->cpu);
		sleep_now(t, run);
	}
	scenario_end(t);
}

/* Deviation 2: a task saturates LITTLE CPU 0 for 2 s, then sleeps 8 ms. Linux counts
 * lost idle time when the idle task is picked; the task's util stays near 860. */
static void oracle_saturated_little(struct ktest *t)
{
	struct task_struct *p;

	if (!scenario(t, "saturated_little"))
		return;
	p = start("saturate", cpumask_of(0), 0, 0);
	for (int i = 0; i < 20; i++)
		pass(100 * MS);
	sleep_now(t, p);
	pass(8 * MS);
	wake_on(p, 0, 1);
	pass(1 * MS);
	EXPECT_GT(t, cpu_rq(0)->pelt.lost_idle_time, 0ull);
	EXPECT_GT(t, p->se.avg.util_avg, 700ul);
	scenario_end(t);
}

/* Deviation 4: 3 ms every 16 ms; util_est samples util_avg as dequeue left it. */
static void oracle_util_est(struct ktest *t)
{
	struct task_struct *p;

	if (!scenario(t, "util_est"))
		return;
	p = start("periodic", cpumask_of(4), 0, 4);
	for (int i = 0; i < 30; i++) {
		pass(3 * MS);
		sleep_now(t, p);
		pass(13 * MS);
		wake_on(p, 4, 0);
	}
	pass(3 * MS);
	sleep_now(t, p);
	/* The last sample is util_avg at dequeue, or one within 1 % of it (kept). */
	EXPECT_LT(t,
		  labs((long)(p->se.avg.util_est.enqueued & ~UTIL_AVG_UNCHANGED) -
		       (long)p->se.avg.util_avg),
		  (long)UTIL_EST_MARGIN);
	scenario_end(t);
}

/* Deviation 9: 2 ms RT bursts every 10 ms beside an always-running CFS task on CPU 6. */
static void oracle_rt_bursts(struct ktest *t)
{
	struct task_struct *cfs, *rt;

	if (!scenario(t, "rt_bursts"))
		return;
	cfs = start("cfs", cpumask_of(6), 0, 6);
	rt = task_new("rt", cpumask_of(6), 0);
	sched_setscheduler(rt, SCHED_FIFO, 10);
	task_start(rt, 0); /* from another CPU: the IPI preempts the CFS task */
	check("fork");
	for (int i = 0; i < 20; i++) {
		pass(2 * MS);
		sleep_now(t, rt);
		pass(8 * MS);
		wake_on(rt, 6, 0);
	}
	pass(2 * MS);
	sleep_now(t, rt);
	pass(40 * MS);
	EXPECT_GT(t, cpu_rq(6)->avg_rt.util_avg, 0ul);
	(void)cfs;
	scenario_end(t);
}

/* A parent on CPU 4 forks children onto idle CPU 7 and busy CPU 4 (pinned), which run
 * and sleep. */
static void oracle_fork(struct ktest *t)
{
	struct task_struct *parent, *child;

	if (!scenario(t, "fork"))
		return;
	parent = start("parent", cpumask_of(4), 0, 4);
	pass(20 * MS);
	fake_arch_set_cpu(4);
	child = start("child", cpumask_of(7), 0, 4);
	pass(5 * MS);
	sleep_now(t, child);
	pass(10 * MS);
	wake_on(child, 7, 4);
	pass(5 * MS);
	(void)parent;
	scenario_end(t);
}

/* Nice changes of a running, a queued and a sleeping task (Linux: reweight_entity). */
static void oracle_nice(struct ktest *t)
{
	struct task_struct *a, *b;

	if (!scenario(t, "nice"))
		return;
	a = start("a", cpumask_of(5), 0, 5);
	b = start("b", cpumask_of(5), 0, 5);
	pass(40 * MS);
	set_user_nice(a, 5);
	check("nice");
	set_user_nice(b, -3);
	check("nice");
	pass(40 * MS);
	sleep_now(t, cpu_curr(5));
	set_user_nice(a, 10);
	set_user_nice(b, 10);
	check("nice");
	pass(40 * MS);
	scenario_end(t);
}

/* Affinity changes that move a running and a queued task (stopper, move_queued_task:
 * detach with both locks held), then a sleeping one (at its wakeup). */
static void oracle_affinity(struct ktest *t)
{
	struct task_struct *a, *b;

	if (!scenario(t, "affinity"))
		return;
	a = start("a", cpumask_of(2), 0, 2);
	b = start("b", cpumask_of(2), 0, 2);
	pass(30 * MS);
	fake_arch_set_cpu(0);
	set_cpus_allowed(cpu_curr(2), cpumask_of(6));
	settle();
	check("affinity");
	pass(20 * MS);
	fake_arch_set_cpu(0);
	set_cpus_allowed(a->cpu == 2 ? a : b, cpumask_of(3));
	settle();
	check("affinity");
	pass(20 * MS);
	sleep_now(t, a);
	pass(10 * MS);
	wake_on(a, 7, 0);
	pass(20 * MS);
	scenario_end(t);
}

static void random_policy(struct task_struct *p, unsigned int r)
{
	static const unsigned int policies[] = { SCHED_NORMAL, SCHED_BATCH, SCHED_IDLE,
						 SCHED_FIFO };
	unsigned int policy = policies[r % ARRAY_SIZE(policies)];

	sched_setscheduler(p, policy, policy == SCHED_FIFO ? 1 + (r >> 4) % 50 : 0);
}

/* The task running on cpu (one of ts) exits; at most 4 do. A new CFS task is forked in
 * its place from that CPU: its first util is post_init_entity_util_avg()'s (the weight
 * scaled by 1024 as on 64-bit Linux, so half the spare capacity of a CPU that may
 * still carry blocked load), and find_idlest_cpu() picks its CPU. */
static void random_exit(struct task_struct **ts, struct task_struct *curr, unsigned int cpu,
			int *exits)
{
	int i;

	for (i = 0; i < 12 && ts[i] != curr; i++)
		;
	if (i == 12 || *exits >= 4)
		return;
	(*exits)++;
	curr->state = TASK_DEAD;
	schedule();
	settle();
	ts[i] = task_new("cfs", ALL_CPUS, 0);
	task_start(ts[i], cpu);
}

/* Everything at once, 2000 random steps over 10 CFS tasks and 2 FIFO tasks on all CPUs:
 * time, sleeps, wakeups where select_task_rq() decides, affinity, nice, yield, policy
 * changes (CFS <-> FIFO, SCHED_IDLE, BATCH), exits and forks; the balancer moves what it
 * will. A fixed seed: the same steps every run. */
static void oracle_random_ops(struct ktest *t)
{
	struct task_struct *ts[12];
	u64 rng = 0x5eed;
	int exits = 0;

	if (!scenario(t, "random_ops"))
		return;
	for (int i = 0; i < 12; i++) {
		ts[i] = task_new(i < 10 ? "cfs" : "fifo", ALL_CPUS, 0);
		if (i >= 10)
			sched_setscheduler(ts[i], SCHED_FIFO, 5);
		task_start(ts[i], (unsigned int)i % NR_HIKEY_CPUS);
		check("fork");
	}
	for (int i = 0; i < 2000; i++) {
		unsigned int r, cpu;
		struct task_struct *p, *curr;

		rng = rng * 6364136223846793005ull + 1442695040888963407ull;
		r = (unsigned int)(rng >> 33);
		cpu = r % NR_HIKEY_CPUS;
		p = ts[(r >> 3) % 12];
		curr = cpu_curr(cpu);
		fake_arch_set_cpu(cpu);

		switch (p->state == TASK_DEAD ? 0 : (r >> 8) % 9) { /* none on the dead */
		case 0:
		case 1:
			run_for((r >> 12) % (6 * MS));
			break;
		case 2:
			if (!curr->is_idle && (curr->sched_class == &fair_sched_class ||
					       curr->sched_class == &rt_sched_class))
				task_sleep(t, curr);
			break;
		case 3:
			wake_up_process(p);
			break;
		case 4:
			set_cpus_allowed(p, CPUS(((r >> 12) & 0xff) | 1u << ((r >> 20) % 8)));
			break;
		case 5:
			if (p->sched_class == &fair_sched_class)
				set_user_nice(p, (int)((r >> 12) % 40) - 20);
			break;
		case 6:
			if (!curr->is_idle && curr->sched_class == &fair_sched_class)
				yield();
			break;
		case 7:
			random_policy(p, r >> 12);
			break;
		case 8:
			random_exit(ts, curr, cpu, &exits);
			break;
		}
		settle();
		check("random");
	}
	scenario_end(t);
}

KTEST_SUITE(sched_oracle, KTEST_CASE(oracle_migrate_every_wakeup),
	    KTEST_CASE(oracle_long_sleeper_leaves), KTEST_CASE(oracle_ping_pong),
	    KTEST_CASE(oracle_saturated_little), KTEST_CASE(oracle_util_est),
	    KTEST_CASE(oracle_rt_bursts), KTEST_CASE(oracle_fork), KTEST_CASE(oracle_nice),
	    KTEST_CASE(oracle_affinity), KTEST_CASE(oracle_random_ops));
