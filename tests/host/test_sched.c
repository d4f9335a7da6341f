/* test_sched.c - host tests of the scheduler's policy: the real kernel/sched code (core,
 * fair, fair_pelt, balance, rt, idle, features, stats, pelt, topology), kernel/timer.c and
 * kernel/wait.c on the fake arch (fake_arch.c), on the HiKey960 tree: CPUs 0-3 Cortex-A53
 * (capacity 462), 4-7 Cortex-A73 (1024). Time moves only through fake_arch_run_until();
 * ticks and IPIs arrive as interrupts, the stoppers run as coroutines, so every run is
 * exact and repeatable. Suites: CFS shares, wakeup placement (with ASYM_PREFER_PREV on
 * and off), misfit and uclamp, features, and RT/balancing/random operations checked
 * against the run-queue invariants. Expected values follow Linux 6.1's rules, computed
 * here from the capacities: fits = util x 1280 < capacity x 1024. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../kernel/sched/sched_internal.h"
#include "bootargs.h"
#include "fake_arch.h"
#include "host.h"
#include "ktest.h"
#include "sched_harness.h"

/* Everything the current machine allocated: freed when the next one is built. */
struct task_struct *tasks[MAX_TASKS + NR_CPUS];
int nr_tasks;
static int next_pid = 1;

static const char *hikey_dtb(void)
{
	for (int i = 0; i < host_nr_dtbs; i++) {
		const char *f = host_dtb_files[i], *slash = strrchr(f, '/');

		if (!strcmp(slash ? slash + 1 : f, "hi3660-hikey960.dtb"))
			return f;
	}
	return "build/dts/hi3660-hikey960.dtb";
}

/* Parsed once: the topology keeps pointers into the blob (compatible strings). */
static bool load_topology(struct ktest *t)
{
	static void *blob;
	static struct topology parsed;
	static int ret = -1;

	if (!blob) {
		const char *path = hikey_dtb();
		struct dtb dt;
		size_t size;
		int err;

		if (!(blob = host_read_file(path, &size))) {
			ktest_fail(t, __FILE__, __LINE__, "cannot read %s (make dtbs builds it)",
				   path);
			return false;
		}
		if ((err = dtb_init(&dt, blob, size)) < 0) {
			ktest_fail(t, __FILE__, __LINE__, "%s: %s", path, dtb_strerror(err));
			return false;
		}
		ret = topology_parse(&dt, &parsed);
	}
	if (ret < 0 || parsed.nr_cpus != NR_HIKEY_CPUS || !parsed.asym_cpucapacity) {
		ktest_fail(t, __FILE__, __LINE__, "%s is not the HiKey960 (8 CPUs, asymmetric)",
			   hikey_dtb());
		return false;
	}
	cpu_topology = parsed;
	return true;
}

struct task_struct *task_alloc(const char *name)
{
	struct task_struct *p = calloc(1, sizeof(*p));

	if (!p || nr_tasks == (int)ARRAY_SIZE(tasks)) {
		printk("test_sched: out of tasks\n");
		abort();
	}
	tasks[nr_tasks++] = p;
	snprintf(p->comm, sizeof(p->comm), "%s", name);
	p->pid = next_pid++;
	p->cpu = -1;
	p->refcount = 1;
	cpumask_setall(&p->cpus_allowed);
	spin_lock_init(&p->pi_lock);
	return p;
}

void run_for(u64 ns)
{
	fake_arch_run_until(fake_arch_now() + ns);
}

/* Idle CPUs that were told to reschedule (locally, by the test acting on them) do so,
 * as their idle loop would right after the interrupt the test stands for. */
void settle(void)
{
	fake_arch_deliver_ipis();
	for (unsigned int cpu = 0; cpu < NR_HIKEY_CPUS; cpu++)
		if (cpu_rq(cpu)->need_resched && cpu_curr(cpu) == cpu_rq(cpu)->idle)
			fake_arch_irq(cpu);
	fake_arch_deliver_ipis();
}

/* A task that exited: nothing may touch it again (ASan watches the freed memory). */
static void task_free(struct task_struct *p)
{
	for (int i = 0; i < nr_tasks; i++) {
		if (tasks[i] == p) {
			tasks[i] = tasks[--nr_tasks];
			free(p);
			return;
		}
	}
}

/* A new machine: the HiKey960 with every CPU online and idle (its stopper thread
 * started and asleep), default features, empty bootargs, the clock at 1 ms: at 0, a
 * task attached to a run queue whose PELT clock is still below one 1024-ns unit would
 * keep last_update_time 0, PELT's "not attached" mark. */
static const char *machine_bootargs; /* the next machine's command line (NULL: none) */

bool machine_up(struct ktest *t)
{
	static u32 default_features;
	static bool saved;

	if (nr_tasks)
		settle(); /* idle.c's stop queues outlive machines: let them drain */
	while (nr_tasks)
		free(tasks[--nr_tasks]);
	if (!saved) {
		default_features = sysctl_sched_features;
		saved = true;
	}
	sysctl_sched_features = default_features;
	fake_arch_reset();
	if (!load_topology(t))
		return false;
	__cpu_online_mask = __cpu_active_mask = *ALL_CPUS;
	set_nr_cpu_ids(NR_HIKEY_CPUS);
	memset(runqueues, 0, sizeof(runqueues));
	bootargs_init(machine_bootargs);
	sched_init();
	for (unsigned int cpu = 0; cpu < NR_HIKEY_CPUS; cpu++) {
		char name[TASK_COMM_LEN];
		struct task_struct *idle;

		snprintf(name, sizeof(name), "idle/%u", cpu);
		idle = task_alloc(name);
		fake_arch_set_current(cpu, idle);
		sched_init_cpu(cpu, idle);
	}
	for (unsigned int cpu = 0; cpu < NR_HIKEY_CPUS; cpu++) {
		fake_arch_set_cpu(cpu);
		timer_cpu_init(cpu, NR_HIKEY_CPUS);
	}
	fake_arch_set_cpu(0);
	sched_init_smp(); /* domains, stoppers */
	settle();
	run_for(MS);
	return true;
}

/* What every case checks last: no arch.h obligation broken, no WARN. */
void machine_ok(struct ktest *t)
{
	EXPECT_EQ(t, fake_arch_violations, 0);
	EXPECT_EQ(t, fake_arch_warnings, 0);
}

struct task_struct *task_new(const char *name, const cpumask_t *allowed, int nice)
{
	struct task_struct *p = task_alloc(name);

	p->state = TASK_NEW;
	p->cpus_allowed = *allowed;
	sched_task_init(p);
	set_user_nice(p, nice);
	return p;
}

/* wake_up_new_task() called on CPU `from`. */
void task_start(struct task_struct *p, unsigned int from)
{
	fake_arch_set_cpu(from);
	wake_up_new_task(p);
	settle();
}

/* p, running, blocks (prepare_to_wait + schedule, without the wait queue). */
bool task_sleep(struct ktest *t, struct task_struct *p)
{
	if (p->cpu < 0 || cpu_curr(p->cpu) != p) {
		ktest_fail(t, __FILE__, __LINE__, "%s is not running: cannot block", p->comm);
		return false;
	}
	fake_arch_set_cpu((unsigned int)p->cpu);
	p->state = TASK_INTERRUPTIBLE;
	schedule();
	settle();
	return true;
}

/* p's utilization, with util_sum to match (the next PELT update goes on from it) and
 * util_est empty. */
static void set_util(struct task_struct *p, unsigned long util)
{
	p->se.avg.util_avg = util;
	p->se.avg.util_sum = (u32)(util * get_pelt_divider(&p->se.avg));
	p->se.avg.util_est = (struct util_est){ 0, 0 };
}

/* A sleeping task of util `util`, last run on `prev`, never queued: a wakee to place. */
static struct task_struct *sleeper(unsigned int prev, unsigned long util)
{
	struct task_struct *p = task_new("sleeper", ALL_CPUS, 0);

	p->state = TASK_INTERRUPTIBLE;
	p->cpu = p->wake_cpu = (int)prev;
	set_util(p, util);
	return p;
}

/* The fair class's choice for p waking from CPU `waker` (Linux: select_task_rq_fair). */
static int select_fair(struct task_struct *p, unsigned int waker, int wake_flags)
{
	fake_arch_set_cpu(waker);
	p->recent_used_cpu = -1;
	return fair_sched_class.select_task_rq(p, p->cpu, wake_flags | WF_TTWU);
}

/* An always-running task pinned to cpu. */
struct task_struct *hog(unsigned int cpu)
{
	struct task_struct *p = task_new("hog", cpumask_of(cpu), 0);

	task_start(p, cpu);
	return p;
}

/* The smallest util that does not fit `capacity` (Linux: fits_capacity, 80 %). */
static unsigned long first_misfit_util(unsigned long capacity)
{
	return (capacity * 1024 + 1279) / 1280;
}

/* ---- CFS shares ---------------------------------------------------------------------- */

/* Two always-runnable tasks on one CPU, nice 0 and nice 5, ticked for 10 s: their
 * running times stand as their weights, 1024 : 335 (sched_prio_to_weight), within 2 %. */
static void cfs_shares_nice0_nice5(struct ktest *t)
{
	struct task_struct *a, *b;
	u64 start, ran_a, ran_b;
	double ratio, want = 1024.0 / 335.0;

	if (!machine_up(t))
		return;
	a = task_new("nice0", cpumask_of(2), 0);
	b = task_new("nice5", cpumask_of(2), 5);
	EXPECT_EQ(t, a->se.load.weight, 1024);
	EXPECT_EQ(t, b->se.load.weight, 335);
	start = fake_arch_now();
	task_start(a, 2);
	task_start(b, 2);
	ASSERT_TRUE(t, cpu_curr(2) == a || cpu_curr(2) == b);
	run_for(10000 * MS);
	ran_a = a->se.sum_exec_runtime;
	ran_b = b->se.sum_exec_runtime;
	ASSERT_GT(t, ran_b, 0);
	ratio = (double)ran_a / (double)ran_b;
	ktest_diag(t,
		   "nice 0 ran %llu ms, nice 5 %llu ms: ratio %d.%03d (weights: %d.%03d), "
		   "%llu switches",
		   ran_a / MS, ran_b / MS, (int)ratio, (int)(ratio * 1000) % 1000, (int)want,
		   (int)(want * 1000) % 1000, cpu_rq(2)->nr_switches);
	EXPECT_TRUE(t, ratio > want * 0.98 && ratio < want * 1.02);
	/* The CPU never idled, and the two shared all of its time (to a tick). */
	EXPECT_NEAR(t, ran_a + ran_b, fake_arch_now() - start, TICK_NSEC);
	EXPECT_EQ(t, cpu_rq(2)->nr_running, 2);
	machine_ok(t);
}

/* Three nice-0 tasks on one CPU get a third each (to a slice), and the period they
 * share is sysctl_sched_latency = 6 ms x (1 + ilog2(8)) = 24 ms on 8 CPUs. */
static void cfs_equal_shares(struct ktest *t)
{
	struct task_struct *p[3];
	u64 total = 0;

	if (!machine_up(t))
		return;
	EXPECT_EQ(t, sysctl_sched_latency, 24 * MS);
	EXPECT_EQ(t, sysctl_sched_min_granularity, 3 * MS);
	EXPECT_EQ(t, sysctl_sched_wakeup_granularity, 4 * MS);
	for (int i = 0; i < 3; i++) {
		p[i] = task_new("equal", cpumask_of(5), 0);
		task_start(p[i], 5);
	}
	run_for(3000 * MS);
	for (int i = 0; i < 3; i++)
		total += p[i]->se.sum_exec_runtime;
	for (int i = 0; i < 3; i++)
		EXPECT_NEAR(t, p[i]->se.sum_exec_runtime, total / 3, 8 * MS + TICK_NSEC);
	machine_ok(t);
}

/* A task that runs alone on CPU 5 for a second and then moves to CPU 4, where another
 * ran alone for as long, shares CPU 4 equally with it from then on: its vruntime went
 * over relative to the min_vruntime of each run queue. Moved while running (an affinity
 * change: CPU 5's stopper moves it) and at a wakeup. */
static void cfs_fair_after_migration(struct ktest *t)
{
	for (int at_wakeup = 0; at_wakeup < 2; at_wakeup++) {
		struct task_struct *a, *b;
		u64 ran_a, ran_b;

		if (!machine_up(t))
			return;
		a = hog(4);
		b = task_new("mover", cpumask_of(5), 0);
		task_start(b, 5);
		run_for(1000 * MS);
		if (at_wakeup) {
			ASSERT_TRUE(t, task_sleep(t, b));
			ASSERT_EQ(t, set_cpus_allowed(b, cpumask_of(4)), 0);
			fake_arch_set_cpu(5);
			EXPECT_EQ(t, wake_up_process(b), 1);
		} else {
			fake_arch_set_cpu(0);
			ASSERT_EQ(t, set_cpus_allowed(b, cpumask_of(4)), 0);
		}
		settle();
		ASSERT_EQ(t, b->cpu, 4);
		ran_a = a->se.sum_exec_runtime;
		ran_b = b->se.sum_exec_runtime;
		run_for(1000 * MS);
		ran_a = a->se.sum_exec_runtime - ran_a;
		ran_b = b->se.sum_exec_runtime - ran_b;
		ktest_diag(t, "moved %s: then %llu ms and %llu ms",
			   at_wakeup ? "at a wakeup" : "running", ran_a / MS, ran_b / MS);
		/* Half each, to a slice (+ the sleeper credit of 12 ms at a wakeup). */
		EXPECT_NEAR(t, ran_a, 500 * MS, 24 * MS);
		EXPECT_NEAR(t, ran_b, 500 * MS, 24 * MS);
		machine_ok(t);
	}
}

/* ---- wakeup placement ------------------------------------------------------------------ */

/* util 300 fits an A53 (300 x 1280 < 462 x 1024): waking with prev on an idle A53,
 * it stays there, whichever CPU wakes it. */
static void place_small_stays_on_idle_little(struct ktest *t)
{
	if (!machine_up(t))
		return;
	for (unsigned int prev = 0; prev < 4; prev++) {
		struct task_struct *p = sleeper(prev, 300);

		EXPECT_EQ(t, select_fair(p, prev, 0), prev);	       /* from an interrupt there */
		EXPECT_EQ(t, select_fair(p, (prev + 1) % 4, 0), prev); /* from another A53 */
		EXPECT_EQ(t, select_fair(p, 6, 0), prev);	       /* from an A73 */
	}
	machine_ok(t);
}

/* util 400 does not fit an A53: the capacity scan takes an idle A73. */
static void place_big_goes_to_idle_big(struct ktest *t)
{
	if (!machine_up(t))
		return;
	for (unsigned int prev = 0; prev < 4; prev++) {
		struct task_struct *p = sleeper(prev, 400);
		int cpu = select_fair(p, prev, 0);

		EXPECT_TRUE(t, cpu >= 4 && cpu <= 7);
		EXPECT_TRUE(t, cpu >= 0 && idle_cpu(cpu));
	}
	machine_ok(t);
}

/* No idle CPU fits: the idle CPU of the highest capacity, not the first idle one. */
static void place_nothing_fits_highest_capacity(struct ktest *t)
{
	struct task_struct *p;

	if (!machine_up(t))
		return;
	/* util 1000 fits no CPU (1000 x 1280 > 1024 x 1024): all idle -> an A73. */
	p = sleeper(0, 1000);
	EXPECT_EQ(t, capacity_orig_of((unsigned int)select_fair(p, 0, 0)), 1024);
	/* A73s 4 and 5 busy: the scan from CPU 0 meets four idle A53s first, yet takes 6. */
	hog(4);
	hog(5);
	p = sleeper(0, 1000);
	EXPECT_EQ(t, select_fair(p, 0, 0), 6);
	/* Every A73 busy, util 400: an idle A53 (they are all the highest left). */
	hog(6);
	hog(7);
	p = sleeper(0, 400);
	EXPECT_EQ(t, select_fair(p, 0, 0), 0);
	p = sleeper(2, 400);
	EXPECT_EQ(t, select_fair(p, 2, 0), 2);
	machine_ok(t);
}

/* The same decision through try_to_wake_up: a task that ran on an A53 and slept
 * wakes with util 400 and runs on an idle A73. */
static void place_through_wakeup(struct ktest *t)
{
	struct task_struct *p;
	int cpu;

	if (!machine_up(t))
		return;
	p = task_new("waker", ALL_CPUS, 0);
	task_start(p, 1);
	ASSERT_EQ(t, p->cpu, 1); /* fork: every CPU idle, find_idlest_group() keeps CPU 1 */
	ASSERT_TRUE(t, cpu_curr(1) == p);
	run_for(2 * MS);
	ASSERT_TRUE(t, task_sleep(t, p));
	EXPECT_EQ(t, cpu_rq(1)->nr_running, 0);
	set_util(p, 400);
	fake_arch_set_cpu(1); /* a timer interrupt on the idle CPU 1 wakes it */
	EXPECT_EQ(t, wake_up_process(p), 1);
	settle();
	cpu = p->cpu;
	ASSERT_TRUE(t, cpu >= 4 && cpu <= 7);
	EXPECT_TRUE(t, cpu >= 0 && cpu_curr(cpu) == p);
	EXPECT_EQ(t, p->se.nr_migrations, 1);
	EXPECT_EQ(t, p->stats.nr_wakeups_migrate, 1);
	EXPECT_EQ(t, cpu_rq(1)->nr_running + cpu_rq(cpu)->nr_running, 1);
	machine_ok(t);
}

/* The prev a wakeup weighs is the CPU the task last ran on (Linux: __set_task_cpu()
 * sets p->wake_cpu), not the one it was forked on: a task moved to an A73 that wakes
 * small from an interrupt on that idle A73 stays there. */
static void wakeup_prev_is_last_cpu(struct ktest *t)
{
	struct task_struct *p;
	int big;

	if (!machine_up(t))
		return;
	p = task_new("mover", ALL_CPUS, 0);
	task_start(p, 0);
	ASSERT_EQ(t, p->cpu, 0);
	run_for(2 * MS);
	ASSERT_TRUE(t, task_sleep(t, p));
	set_util(p, 400);
	fake_arch_set_cpu(0);
	EXPECT_EQ(t, wake_up_process(p), 1);
	settle();
	big = p->cpu;
	ASSERT_TRUE(t, big >= 4 && big <= 7 && cpu_curr(big) == p);
	run_for(2 * MS);
	ASSERT_TRUE(t, task_sleep(t, p));
	set_util(p, 100);
	fake_arch_set_cpu((unsigned int)big);
	EXPECT_EQ(t, wake_up_process(p), 1);
	settle();
	EXPECT_EQ(t, p->cpu, big);
	EXPECT_EQ(t, p->se.nr_migrations, 1);
	machine_ok(t);
}

/* ---- misfit ---------------------------------------------------------------------------- */

/* update_misfit_status() runs under rq->lock (the debug build asserts it). */
static void misfit_update(struct task_struct *p, struct rq *rq)
{
	spin_lock(&rq->lock);
	update_misfit_status(p, rq);
	spin_unlock(&rq->lock);
}

/* Misfit on an A53 from util 370 on (369 x 1280 < 462 x 1024 <= 370 x 1280), and on an
 * A73 from 820: the biggest CPU without a uclamp_max is no exception (Linux 6.1). */
static void misfit_boundary(struct ktest *t)
{
	struct task_struct *p;

	if (!machine_up(t))
		return;
	p = task_new("misfit", ALL_CPUS, 0);
	EXPECT_EQ(t, first_misfit_util(462), 370);
	EXPECT_EQ(t, first_misfit_util(1024), 820);
	for (unsigned int cpu = 0; cpu < NR_HIKEY_CPUS; cpu++) {
		unsigned long first = first_misfit_util(capacity_orig_of(cpu));
		struct rq *rq = cpu_rq(cpu);

		p->cpu = (int)cpu;
		set_util(p, first - 1);
		EXPECT_TRUE(t, task_fits_cpu(p, (int)cpu));
		misfit_update(p, rq);
		EXPECT_EQ(t, rq->misfit_task_load, 0);
		set_util(p, first);
		EXPECT_FALSE(t, task_fits_cpu(p, (int)cpu));
		misfit_update(p, rq);
		EXPECT_NE(t, rq->misfit_task_load, 0);
		set_util(p, first - 1); /* and it clears */
		misfit_update(p, rq);
		EXPECT_EQ(t, rq->misfit_task_load, 0);
	}
	machine_ok(t);
}

/* What counts is max(util_avg, util_est) with UTIL_EST, util_avg without; a task that
 * can run on one CPU only is never a misfit. */
static void misfit_util_est_and_affinity(struct ktest *t)
{
	struct task_struct *p;
	struct rq *rq;

	if (!machine_up(t))
		return;
	rq = cpu_rq(0);
	p = task_new("misfit", ALL_CPUS, 0);
	p->cpu = 0;
	set_util(p, 300);
	p->se.avg.util_est.ewma = 370;
	misfit_update(p, rq);
	EXPECT_NE(t, rq->misfit_task_load, 0);
	EXPECT_EQ(t, sched_feat_set("NO_UTIL_EST"), 0);
	misfit_update(p, rq);
	EXPECT_EQ(t, rq->misfit_task_load, 0);
	p = task_new("pinned", cpumask_of(0), 0);
	p->cpu = 0;
	set_util(p, 1000);
	misfit_update(p, rq);
	EXPECT_EQ(t, rq->misfit_task_load, 0);
	machine_ok(t);
}

/* NO_MISFIT at run time: the rq's misfit flag must not outlive the feature, or the
 * balancer (update_sg_lb_stats, kick_idle_balance) keeps acting on a stale one. */
static void misfit_cleared_by_no_misfit(struct ktest *t)
{
	struct task_struct *p;
	struct rq *rq;

	if (!machine_up(t))
		return;
	rq = cpu_rq(0);
	p = task_new("misfit", ALL_CPUS, 0);
	p->cpu = 0;
	set_util(p, 500);
	misfit_update(p, rq);
	ASSERT_NE(t, rq->misfit_task_load, 0);
	EXPECT_EQ(t, sched_feat_set("NO_MISFIT"), 0);
	misfit_update(p, rq);
	EXPECT_EQ(t, rq->misfit_task_load, 0);
	machine_ok(t);
}

/* As the kernel sees it: an always-running task forked on CPU 0 (A53) is flagged at the
 * first tick where its util_avg is >= 370 and never before; from that tick CPU 0 kicks the
 * idle balancer (check_misfit_status), which balances for an A73 whose next_balance has
 * come (at most one tick later: Linux 6.1's nohz.next_balance), finds the misfit and asks
 * CPU 0's stopper to push the running task over (active balance). */
static void misfit_up_migration(struct ktest *t)
{
	struct task_struct *p;
	u64 start, moved_at = 0;
	unsigned long util_before = 0;

	if (!machine_up(t))
		return;
	p = task_new("grower", ALL_CPUS, 0);
	task_start(p, 0);
	ASSERT_EQ(t, p->cpu, 0);
	ASSERT_TRUE(t, cpu_curr(0) == p);
	start = fake_arch_now();
	ktest_diag(t, "initial util_avg %lu (half the spare capacity of the A53)", task_util(p));
	for (int tick = 0; tick < 100 && !moved_at; tick++) {
		u64 ticks = tick_count(0);

		util_before = task_util(p);
		while (tick_count(0) == ticks)
			run_for(TICK_NSEC / 4);
		if (p->cpu != 0) {
			moved_at = fake_arch_now();
			break;
		}
		/* Right after the tick: the flag follows util_avg exactly. */
		if ((cpu_rq(0)->misfit_task_load != 0) != (task_util(p) >= 370)) {
			ktest_fail(t, __FILE__, __LINE__, "tick %d: util %lu, misfit_task_load %lu",
				   tick, task_util(p), cpu_rq(0)->misfit_task_load);
			return;
		}
	}
	ASSERT_NE(t, moved_at, 0);
	ktest_diag(t, "on CPU%d %llu ms after the start: util %lu at the tick before", p->cpu,
		   (moved_at - start) / MS, util_before);
	EXPECT_LT(t, util_before, 370);
	EXPECT_TRUE(t, p->cpu >= 4 && p->cpu <= 7 && cpu_curr(p->cpu) == p);
	/* From 231, util_avg = 1024 - 793 y^n reaches 370 after n = 8.9 periods of PELT
	 * time, 9.1 ms, which an A53's PELT clock (462/1024 of real time) covers in 20 ms:
	 * the tick after that. */
	EXPECT_GE(t, moved_at - start, 20 * MS);
	EXPECT_LE(t, moved_at - start, 20 * MS + TICK_NSEC);
	EXPECT_EQ(t, p->stats.nr_forced_migrations, 1); /* by the stopper */
	EXPECT_EQ(t, cpu_rq(p->cpu)->lb.misfit_pulls, 1);
	EXPECT_EQ(t, cpu_rq(0)->misfit_task_load, 0); /* CPU 0 went idle */
	EXPECT_EQ(t, cpu_rq(0)->nr_running, 0);
	/* Where it fits, it stays. */
	run_for(500 * MS);
	EXPECT_EQ(t, p->se.nr_migrations, 1);
	machine_ok(t);
}

/* A misfit task that blocks leaves no flag behind (Linux: newidle_balance() starts with
 * update_misfit_status(NULL)): an idle machine then sends no IPI and fails no balance.
 * The task may run on CPUs 0-1 only, so it stays a misfit while it runs (Linux 6.1
 * does not weigh the affinity either), and the A73s are kicked in vain each tick. */
static void misfit_cleared_when_idle(struct ktest *t)
{
	struct task_struct *p;
	u64 ipis = 0, failed = 0;

	if (!machine_up(t))
		return;
	p = task_new("grower", CPUS(0x3), 0);
	task_start(p, 0);
	run_for(40 * MS);
	ASSERT_EQ(t, p->cpu, 0);
	ASSERT_NE(t, cpu_rq(0)->misfit_task_load, 0);
	ASSERT_TRUE(t, task_sleep(t, p));
	EXPECT_EQ(t, cpu_rq(0)->misfit_task_load, 0);
	for (unsigned int cpu = 0; cpu < NR_HIKEY_CPUS; cpu++) {
		ipis -= fake_cpus[cpu].nr_ipis[IPI_RESCHEDULE];
		failed -= cpu_rq(cpu)->lb.lb_failed[CPU_IDLE];
	}
	run_for(200 * MS);
	for (unsigned int cpu = 0; cpu < NR_HIKEY_CPUS; cpu++) {
		ipis += fake_cpus[cpu].nr_ipis[IPI_RESCHEDULE];
		failed += cpu_rq(cpu)->lb.lb_failed[CPU_IDLE];
	}
	EXPECT_EQ(t, ipis, 0);
	EXPECT_EQ(t, failed, 0);
	machine_ok(t);
}

/* ---- util_fits_cpu with uclamp ---------------------------------------------------------- */

static void uclamp_fits(struct ktest *t)
{
	if (!machine_up(t))
		return;
	/* No clamps: the 80 % margin on capacity_of. */
	EXPECT_EQ(t, util_fits_cpu(369, 0, 1024, 0), 1);
	EXPECT_EQ(t, util_fits_cpu(370, 0, 1024, 0), 0);
	EXPECT_EQ(t, util_fits_cpu(819, 0, 1024, 4), 1);
	EXPECT_EQ(t, util_fits_cpu(820, 0, 1024, 4), 0);
	/* uclamp_max up to capacity_orig caps the task: it fits whatever its util. */
	EXPECT_EQ(t, util_fits_cpu(1000, 0, 462, 0), 1);
	EXPECT_EQ(t, util_fits_cpu(1000, 0, 300, 0), 1);
	EXPECT_EQ(t, util_fits_cpu(1000, 0, 463, 0), 0);
	EXPECT_EQ(t, util_fits_cpu(1000, 0, 1000, 4), 1);
	/* ... except on the biggest CPU with no cap at all. */
	EXPECT_EQ(t, util_fits_cpu(1000, 0, 1024, 4), 0);
	/* uclamp_min above capacity_orig: fits, but wants a bigger CPU (-1). */
	EXPECT_EQ(t, util_fits_cpu(100, 600, 1024, 0), -1);
	EXPECT_EQ(t, util_fits_cpu(100, 462, 1024, 0), 1); /* up to capacity_orig: no margin */
	EXPECT_EQ(t, util_fits_cpu(100, 1024, 1024, 4), 1);
	EXPECT_EQ(t, util_fits_cpu(500, 600, 1024, 0), 0); /* util alone does not fit */
	/* uclamp_min is capped by uclamp_max. */
	EXPECT_EQ(t, util_fits_cpu(100, 600, 400, 0), 1);
	machine_ok(t);
}

/* Linux 6.1 (task_fits_cpu, select_idle_capacity, select_idle_sibling) gives
 * util_fits_cpu the task's own util (task_util_est) and the clamps separately, so a
 * uclamp_min up to capacity_orig is met without the 80 % margin (the uclamp and
 * migration margin fixes, Linux commits 48d5e9daa8b7 and b48e16a69792). */
static void uclamp_min_fits_up_to_capacity_orig(struct ktest *t)
{
	struct task_struct *p;

	if (!machine_up(t))
		return;
	p = sleeper(0, 100);
	EXPECT_EQ(t, sched_set_uclamp(p, 400, 1024), 0);
	EXPECT_TRUE(t, task_fits_cpu(p, 0)); /* 400 <= 462 */
	misfit_update(p, cpu_rq(0));
	EXPECT_EQ(t, cpu_rq(0)->misfit_task_load, 0);
	EXPECT_EQ(t, select_fair(p, 0, 0), 0); /* idle prev that fits: stays */
	EXPECT_EQ(t, sched_set_uclamp(p, 500, 1024), 0);
	EXPECT_FALSE(t, task_fits_cpu(p, 0)); /* 500 > 462: wants an A73 */
	EXPECT_GE(t, select_fair(p, 0, 0), 4);
	/* uclamp_max keeps a big task on a little CPU. */
	set_util(p, 900);
	EXPECT_EQ(t, sched_set_uclamp(p, 0, 400), 0);
	EXPECT_TRUE(t, task_fits_cpu(p, 0));
	EXPECT_EQ(t, select_fair(p, 0, 0), 0);
	EXPECT_EQ(t, sched_set_uclamp(p, 500, 400), -1); /* min > max refused */
	EXPECT_EQ(t, sched_set_uclamp(p, 0, 1025), -1);
	machine_ok(t);
}

/* ---- ASYM_PREFER_PREV ------------------------------------------------------------------- */

/* A waker on CPU w hands over (WF_SYNC) to a small task that last ran on the idle CPU
 * prev of the same cluster: wake_affine picks w as the target. With ASYM_PREFER_PREV
 * (Linux >= 5.10) the idle prev is taken before any scan; without it (5.7-5.9) the
 * capacity scan runs first and takes the first idle CPU that fits from the target. */
static int sync_wakeup(struct ktest *t, unsigned int w, unsigned int prev, bool prefer_prev)
{
	struct task_struct *waker, *p;

	if (!machine_up(t))
		return -1;
	EXPECT_EQ(t, sched_feat_set(prefer_prev ? "ASYM_PREFER_PREV" : "NO_ASYM_PREFER_PREV"), 0);
	waker = hog(w);
	p = sleeper(prev, 100);
	fake_arch_set_cpu(w);
	if (cpu_curr(w) != waker || wake_up_process_flags(p, WF_SYNC) != 1) {
		ktest_fail(t, __FILE__, __LINE__, "the wakeup did not happen");
		return -1;
	}
	settle();
	EXPECT_TRUE(t, cpu_curr(p->cpu) == p);
	EXPECT_EQ(t, cpu_rq(p->cpu)->nr_running, 1);
	machine_ok(t);
	return p->cpu;
}

static void asym_prefer_prev_on(struct ktest *t)
{
	EXPECT_EQ(t, sync_wakeup(t, 4, 6, true), 6); /* A73s */
	EXPECT_EQ(t, sync_wakeup(t, 1, 3, true), 3); /* A53s */
}

static void asym_prefer_prev_off(struct ktest *t)
{
	EXPECT_EQ(t, sync_wakeup(t, 4, 6, false), 5); /* scan from 4: 5 is idle and fits */
	EXPECT_EQ(t, sync_wakeup(t, 1, 3, false), 2);
}

/* Without a hand-over the target is prev itself, and both versions keep it. */
static void asym_prefer_prev_no_sync(struct ktest *t)
{
	for (int on = 0; on < 2; on++) {
		struct task_struct *p;

		if (!machine_up(t))
			return;
		EXPECT_EQ(t, sched_feat_set(on ? "ASYM_PREFER_PREV" : "NO_ASYM_PREFER_PREV"), 0);
		hog(4);
		p = sleeper(6, 100);
		EXPECT_EQ(t, select_fair(p, 4, 0), 6);
		machine_ok(t);
	}
}

/* ---- RT and balancing ------------------------------------------------------------------- */

/* An RT task woken for a CPU that runs CFS work runs there at once: the IPI's return
 * path preempts, without waiting for a tick. When it blocks, the CFS task resumes. */
static void rt_preempts_cfs_at_once(struct ktest *t)
{
	struct task_struct *cfs, *rt;
	u64 now, ipis;

	if (!machine_up(t))
		return;
	cfs = hog(3);
	rt = task_new("rt", cpumask_of(3), 0);
	ASSERT_EQ(t, sched_setscheduler(rt, SCHED_FIFO, 50), 0);
	EXPECT_EQ(t, rt->prio, MAX_RT_PRIO - 1 - 50);
	run_for(10 * MS);
	now = fake_arch_now();
	ipis = fake_cpus[3].nr_ipis[IPI_RESCHEDULE];
	task_start(rt, 0); /* from CPU 0: an IPI to CPU 3 */
	EXPECT_TRUE(t, cpu_curr(3) == rt);
	EXPECT_EQ(t, fake_arch_now(), now);
	EXPECT_EQ(t, fake_cpus[3].nr_ipis[IPI_RESCHEDULE], ipis + 1);
	run_for(100 * MS); /* FIFO: no tick takes the CPU from it */
	EXPECT_TRUE(t, cpu_curr(3) == rt);
	ASSERT_TRUE(t, task_sleep(t, rt));
	EXPECT_TRUE(t, cpu_curr(3) == cfs);
	EXPECT_GE(t, rt->se.sum_exec_runtime, 100 * MS);
	machine_ok(t);
}

/* 16 always-running tasks forked on CPU 0: fork placement and load balancing leave no
 * CPU idle, and the A73s (2.2x the capacity) carry at least as many as the A53s. */
static void sixteen_hogs_spread(struct ktest *t)
{
	unsigned int total = 0, little = 0, big = 0;
	char line[64];
	int n = 0;

	if (!machine_up(t))
		return;
	for (int i = 0; i < 16; i++)
		task_start(task_new("spread", ALL_CPUS, 0), 0);
	run_for(2000 * MS);
	for (unsigned int cpu = 0; cpu < NR_HIKEY_CPUS; cpu++) {
		unsigned int nr = cpu_rq(cpu)->nr_running;

		n += snprintf(line + n, sizeof(line) - (size_t)n, " %u", nr);
		EXPECT_GE(t, nr, 1);
		total += nr;
		if (cpu < 4)
			little += nr;
		else
			big += nr;
	}
	ktest_diag(t, "tasks per CPU after 2 s:%s", line);
	EXPECT_EQ(t, total, 16);
	EXPECT_GE(t, big, little);
	machine_ok(t);
}

/* ---- random operations ------------------------------------------------------------------ */

#define NR_RANDOM_TASKS 24

static u64 rng;
/* Preempted between marking themselves sleeping and calling schedule(): still queued
 * (Linux: SM_PREEMPT), they finish going to sleep when they run again, unless a
 * wakeup found them queued first. */
static bool half_asleep[NR_RANDOM_TASKS];

static unsigned int rnd(unsigned int n)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull; /* Knuth's MMIX LCG */
	return (unsigned int)(rng >> 33) % n;
}

/* Every runnable task queued on exactly one run queue, the one p->cpu names, and
 * running on at most that CPU; a sleeping one on none; nr_running as counted (with
 * the CPU's stopper, when it is queued). */
static int check_tasks(struct ktest *t, struct task_struct **ts, int n)
{
	unsigned int queued[NR_RANDOM_TASKS] = { 0 }, nr[NR_CPUS] = { 0 };
	int where[NR_RANDOM_TASKS], bad = 0;

	for (unsigned int cpu = 0; cpu < NR_HIKEY_CPUS; cpu++) {
		struct rq *rq = cpu_rq(cpu);

		for (int i = 0; i < n; i++) {
			struct task_struct *p = ts[i];
			bool here = rq->cfs.curr == &p->se && p->se.on_rq;

			for (struct rb_node *nd = rb_first_cached(&rq->cfs.tasks_timeline); nd;
			     nd = rb_next(nd))
				here |= nd == &p->se.run_node;
			for (int prio = 0; prio < MAX_RT_PRIO; prio++) {
				struct list_head *pos;

				list_for_each(pos, &rq->rt.queue[prio])
					here |= pos == &p->rt.run_list;
			}
			if (here) {
				queued[i]++;
				where[i] = (int)cpu;
				nr[cpu]++;
			}
			if (rq->curr == p && (p->state != TASK_RUNNING || p->cpu != (int)cpu)) {
				ktest_diag(t, "%s (pid %d) runs on CPU%u: state %ld, cpu %d",
					   p->comm, p->pid, cpu, p->state, p->cpu);
				bad++;
			}
		}
		/* A stopper woken by a local wakeup waits for the next interrupt. */
		nr[cpu] += rq->stop && task_on_rq_queued(rq->stop);
		if (nr[cpu] != rq->nr_running) {
			ktest_diag(t, "CPU%u: nr_running %u, %u tasks queued", cpu, rq->nr_running,
				   nr[cpu]);
			bad++;
		}
	}
	for (int i = 0; i < n; i++) {
		struct task_struct *p = ts[i];
		bool ok = p->state == TASK_RUNNING || half_asleep[i]
				  ? queued[i] == 1 && where[i] == p->cpu && task_on_rq_queued(p)
				  : queued[i] == 0 && !p->on_rq && !p->on_cpu;

		if (!ok) {
			ktest_diag(
				t,
				"%s (pid %d): state %ld on_rq %d cpu %d, queued %u times (CPU%d)",
				p->comm, p->pid, p->state, p->on_rq, p->cpu, queued[i],
				queued[i] ? where[i] : -1);
			bad++;
		}
	}
	return bad;
}

static const char *const op_names[] = { "time",		 "sleep",  "wake",	     "affinity",
					"nice",		 "policy", "yield",	     "uclamp",
					"self-affinity", "exit",   "preempted-sleep" };

/* Index of ts[] running on cpu, or -1 (its idle task runs). */
static int running_on(struct task_struct **ts, unsigned int cpu)
{
	for (int i = 0; i < NR_RANDOM_TASKS; i++)
		if (ts[i] == cpu_curr(cpu))
			return i;
	return -1;
}

/* The task running on cpu exits (thread_exit()) and a new one takes its slot. */
static int op_exit(struct ktest *t, struct task_struct **ts, unsigned int cpu)
{
	int i = running_on(ts, cpu);
	struct task_struct *p;

	if (i < 0)
		return 0;
	p = ts[i];
	p->state = TASK_DEAD;
	schedule();
	settle();
	if (cpu_curr(cpu) == p || p->on_rq) {
		ktest_diag(t, "%s (pid %d) exited but is still %s", p->comm, p->pid,
			   p->on_rq ? "queued" : "running");
		return 1;
	}
	if (p->refcount == 0) /* else pending stop work still holds it: freed later */
		task_free(p);
	ts[i] = task_new("random", ALL_CPUS, 0);
	task_start(ts[i], cpu);
	return 0;
}

/* An interrupt between prepare_to_wait() and schedule() preempts the task on cpu. */
static void op_preempted_sleep(struct task_struct **ts, unsigned int cpu)
{
	int i = running_on(ts, cpu);

	if (i < 0)
		return;
	ts[i]->state = TASK_INTERRUPTIBLE;
	resched_cpu(cpu);
	fake_arch_irq(cpu);
	if (cpu_curr(cpu) == ts[i])
		schedule(); /* nothing else to run: it goes on to schedule() */
	else
		half_asleep[i] = true;
}

/* The half-asleep tasks that run again call schedule(), as they were about to. */
static void finish_half_asleep(struct task_struct **ts)
{
	for (bool again = true; again;) {
		again = false;
		for (int i = 0; i < NR_RANDOM_TASKS; i++) {
			struct task_struct *q = ts[i];

			if (!half_asleep[i] || (q->state != TASK_RUNNING && cpu_curr(q->cpu) != q))
				continue;
			half_asleep[i] = false;
			if (q->state == TASK_RUNNING)
				continue; /* woken while still queued */
			fake_arch_set_cpu((unsigned int)q->cpu);
			schedule();
			settle();
			again = true;
		}
	}
}

/* One random operation, done from (or by the task running on) a random CPU. Returns
 * the number of problems it saw itself. */
static int random_op(struct ktest *t, struct task_struct **ts, int op)
{
	static const unsigned int policies[] = { SCHED_NORMAL, SCHED_BATCH, SCHED_IDLE, SCHED_FIFO,
						 SCHED_RR };
	unsigned int cpu = rnd(NR_HIKEY_CPUS), policy, lo;
	struct task_struct *p = ts[rnd(NR_RANDOM_TASKS)], *curr = cpu_curr(cpu);
	int bad = 0;

	fake_arch_set_cpu(cpu);
	switch (op) {
	case 0:
		run_for(rnd(3 * MS));
		break;
	case 1:
		if (curr->is_idle)
			break;
		curr->state = TASK_INTERRUPTIBLE;
		schedule();
		break;
	case 2:
		wake_up_process_flags(p, rnd(2) ? WF_SYNC : 0);
		break;
	case 3:
		set_cpus_allowed(p, CPUS(rnd(255) + 1));
		break;
	case 4:
		set_user_nice(p, (int)rnd(40) - 20);
		break;
	case 5:
		policy = policies[rnd(ARRAY_SIZE(policies))];
		sched_setscheduler(p, policy,
				   policy == SCHED_FIFO || policy == SCHED_RR ? rnd(99) + 1 : 0);
		break;
	case 6:
		if (!curr->is_idle)
			yield();
		break;
	case 7:
		lo = rnd(1025);
		sched_set_uclamp(p, lo, lo + rnd(1025 - lo));
		break;
	case 8:
		if (!curr->is_idle)
			set_cpus_allowed(curr, CPUS(0xffull & ~(1ull << cpu)));
		break;
	case 9:
		bad = op_exit(t, ts, cpu);
		break;
	case 10:
		op_preempted_sleep(ts, cpu);
		break;
	}
	settle();
	finish_half_asleep(ts);
	return bad;
}

/* 10 000 random sleeps, wakeups, affinity, nice, policy, yield, uclamp changes and exits
 * over 24 tasks and 8 CPUs, with time passing: after each, every run queue's invariants
 * hold (sched_check_invariants) and no task is lost or queued twice. Other runs:
 * SCHED_TEST_SEED=n SCHED_TEST_OPS=n build/host/unittests sched_core. */
static void random_ops_keep_invariants(struct ktest *t)
{
	struct task_struct *ts[NR_RANDOM_TASKS];
	const char *seed = getenv("SCHED_TEST_SEED"), *ops = getenv("SCHED_TEST_OPS");
	int counts[ARRAY_SIZE(op_names)] = { 0 }, nr_ops = ops ? atoi(ops) : 10000;

	if (!machine_up(t))
		return;
	rng = seed ? strtoull(seed, NULL, 0) : 1;
	memset(half_asleep, 0, sizeof(half_asleep));
	for (int i = 0; i < NR_RANDOM_TASKS; i++) {
		ts[i] = task_new("random", ALL_CPUS, 0);
		task_start(ts[i], rnd(NR_HIKEY_CPUS));
	}
	for (int i = 0; i < nr_ops; i++) {
		int op = (int)rnd(ARRAY_SIZE(op_names)), bad;

		bad = random_op(t, ts, op);
		counts[op]++;
		bad += sched_check_invariants(true) + check_tasks(t, ts, NR_RANDOM_TASKS);
		if (bad || fake_arch_violations || fake_arch_warnings) {
			ktest_fail(t, __FILE__, __LINE__,
				   "after operation %d (%s, seed %s): %d bad", i, op_names[op],
				   seed ? seed : "1", bad);
			break;
		}
	}
	ktest_diag(t,
		   "%d sleeps (%d preempted), %d wakeups, %d affinity, %d nice, %d policy, "
		   "%d yields, %d exits, %llu ms",
		   counts[1], counts[10], counts[2], counts[3], counts[4], counts[5], counts[6],
		   counts[9], fake_arch_now() / MS);
	machine_ok(t);
}

/* A sleeping CFS task made FIFO and then NORMAL again keeps its vruntime, as in Linux
 * (switched_from_fair makes it relative to min_vruntime, switched_to_fair absolute
 * again), and wakes where it would have without the round trip. */
static void class_round_trip_keeps_vruntime(struct ktest *t)
{
	struct task_struct *p;
	u64 v;

	if (!machine_up(t))
		return;
	p = task_new("round-trip", cpumask_of(2), 0);
	task_start(p, 2);
	run_for(10 * MS);
	ASSERT_TRUE(t, task_sleep(t, p));
	v = p->se.vruntime;
	fake_arch_set_cpu(0);
	ASSERT_EQ(t, sched_setscheduler(p, SCHED_FIFO, 10), 0);
	ASSERT_EQ(t, sched_setscheduler(p, SCHED_NORMAL, 0), 0);
	EXPECT_EQ(t, p->se.vruntime, v);
	EXPECT_EQ(t, wake_up_process(p), 1);
	settle();
	EXPECT_TRUE(t, cpu_curr(2) == p);
	EXPECT_EQ(t, p->se.vruntime, v); /* min_vruntime - 12 ms is below it */
	machine_ok(t);
}

/* ---- features API ----------------------------------------------------------------------- */

static void features_api(struct ktest *t)
{
	u32 before;
	bool v;

	if (!machine_up(t))
		return;
	ASSERT_TRUE(t, sched_feat_get("ASYM_PREFER_PREV", &v));
	EXPECT_TRUE(t, v);
	ASSERT_TRUE(t, sched_feat_get("SIS_DEBOUNCE", &v));
	EXPECT_FALSE(t, v);
	ASSERT_TRUE(t, sched_feat_get("UTIL_EST", &v));
	EXPECT_TRUE(t, v);
	EXPECT_EQ(t, sched_feat_set("NO_ASYM_PREFER_PREV"), 0);
	EXPECT_FALSE(t, sched_feat(ASYM_PREFER_PREV));
	EXPECT_TRUE(t, sched_feat_get("ASYM_PREFER_PREV", &v) && !v);
	EXPECT_EQ(t, sched_feat_set("NO_ASYM_PREFER_PREV"), 0); /* idempotent */
	EXPECT_FALSE(t, sched_feat(ASYM_PREFER_PREV));
	EXPECT_EQ(t, sched_feat_set("ASYM_PREFER_PREV"), 0);
	EXPECT_TRUE(t, sched_feat(ASYM_PREFER_PREV));
	EXPECT_EQ(t, sched_feat_set("SIS_DEBOUNCE"), 0);
	EXPECT_TRUE(t, sched_feat(SIS_DEBOUNCE));
	/* Unknown names are refused and change nothing. */
	before = sysctl_sched_features;
	EXPECT_EQ(t, sched_feat_set("BOGUS"), -1);
	EXPECT_EQ(t, sched_feat_set("NO_BOGUS"), -1);
	EXPECT_EQ(t, sched_feat_set(""), -1);
	EXPECT_EQ(t, sched_feat_set("NO_"), -1);
	EXPECT_EQ(t, sched_feat_set("asym_prefer_prev"), -1);
	EXPECT_EQ(t, sched_feat_set("NO_NO_ASYM_PREFER_PREV"), -1);
	EXPECT_EQ(t, sched_feat_set("ASYM_PREFER_PREV "), -1);
	EXPECT_FALSE(t, sched_feat_get("BOGUS", &v));
	EXPECT_EQ(t, sysctl_sched_features, before);
	machine_ok(t);
}

/* bootargs sched_features=...: known names applied in order, unknown ones skipped. */
static void features_from_bootargs(struct ktest *t)
{
	if (!machine_up(t))
		return;
	bootargs_init(
		"selftest sched_features=NO_ASYM_PREFER_PREV,BOGUS,SIS_DEBOUNCE,,NO_UTIL_EST");
	sched_feat_init_from_bootargs();
	EXPECT_FALSE(t, sched_feat(ASYM_PREFER_PREV));
	EXPECT_TRUE(t, sched_feat(SIS_DEBOUNCE));
	EXPECT_FALSE(t, sched_feat(UTIL_EST));
	EXPECT_TRUE(t, sched_feat(MISFIT));
	bootargs_init(NULL);
	machine_ok(t);
}

/* ---- load-balance cadence and NO_HZ idle (Linux 6.1) ---------------------------------- */

/* Linux 6.1's msecs_to_jiffies() at HZ, computed here. */
static unsigned long ms_to_jiffies(unsigned long ms)
{
	return (ms * HZ + 999) / 1000;
}

/* An idle machine with every tick on (nohz=off): each balance finds the domain balanced,
 * and load_balance()'s out_balanced doubles balance_interval up to max_interval (Linux
 * 6.1: "tune up the balancing interval"); so after one second every level of every CPU
 * is at max_interval = 2 x span weight, and a CPU balances each level once per
 * msecs_to_jiffies(max_interval) jiffies: 1000 / (4 x 2) + 1000 / (4 x 4) = 187.5 calls a
 * second on the HiKey960 (MC span 4, DIE span 8). Before: reset to min_interval when
 * balanced, 375 calls a second. */
static void lb_interval_backoff_when_balanced(struct ktest *t)
{
	u64 before[NR_HIKEY_CPUS];

	machine_bootargs = "nohz=off";
	if (!machine_up(t))
		goto out;
	run_for(200 * MS);
	for (unsigned int cpu = 0; cpu < NR_HIKEY_CPUS; cpu++) {
		struct rq *rq = cpu_rq(cpu);

		before[cpu] = rq->lb.lb_count[CPU_IDLE];
		for (int l = 0; l < rq->nr_sd; l++)
			EXPECT_EQ(t, rq->sd[l].balance_interval, 2ul * rq->sd[l].span_weight);
	}
	run_for(1000 * MS);
	for (unsigned int cpu = 0; cpu < NR_HIKEY_CPUS; cpu++) {
		struct rq *rq = cpu_rq(cpu);
		u64 expect = 0, n = rq->lb.lb_count[CPU_IDLE] - before[cpu];

		for (int l = 0; l < rq->nr_sd; l++)
			expect += 1000 / (ms_to_jiffies(2 * rq->sd[l].span_weight) * (1000 / HZ));
		EXPECT_LE(t, n, expect + 2);
		EXPECT_GE(t, n, expect - 2);
	}
	machine_ok(t);
out:
	machine_bootargs = NULL;
}

/* Busy CPUs (two always-running tasks pinned to CPU 0, two to CPU 4) kick an idle
 * balancer only once nohz.next_balance has come (Linux 6.1 nohz_balancer_kick), and that
 * is the earliest next_balance of the idle CPUs. Their MC passes find only pinned tasks
 * (out_all_pinned: the interval doubles up to MAX_PINNED_INTERVAL, 512 ms), their DIE
 * passes a balanced machine (max_interval 16 ms = msecs_to_jiffies 4 jiffies), and one
 * pass balances every CPU that is due, so kicks with NOHZ_BALANCE_KICK come about every
 * 4 jiffies: at most HZ / 3 a second here. Before: every tick of each busy CPU, 2 x HZ. */
static void nohz_kick_rate_limited(struct ktest *t)
{
	u64 ipis = 0, kicks = 0;

	if (!machine_up(t))
		return;
	hog(0);
	hog(0);
	hog(4);
	hog(4);
	run_for(1000 * MS);
	for (unsigned int cpu = 0; cpu < NR_HIKEY_CPUS; cpu++) {
		ipis -= fake_cpus[cpu].nr_ipis[IPI_RESCHEDULE];
		kicks -= cpu_rq(cpu)->lb.nohz_kicks[1];
	}
	run_for(1000 * MS);
	for (unsigned int cpu = 0; cpu < NR_HIKEY_CPUS; cpu++) {
		ipis += fake_cpus[cpu].nr_ipis[IPI_RESCHEDULE];
		kicks += cpu_rq(cpu)->lb.nohz_kicks[1];
	}
	ktest_diag(t, "balance kicks in 1 s: %llu, reschedule IPIs: %llu", kicks, ipis);
	EXPECT_LE(t, ipis, HZ / 3);
	EXPECT_LE(t, kicks, HZ / 3);
	machine_ok(t);
}

/* NO_HZ idle: an idle CPU takes no tick in steady idle; with nohz=off it takes HZ a
 * second. Its blocked load still decays, on the idle balancer's passes. */
static void nohz_idle_cpu_takes_no_tick(struct ktest *t)
{
	u64 ticks;

	if (!machine_up(t))
		return;
	run_for(100 * MS);
	ticks = tick_count(7);
	run_for(1000 * MS);
	EXPECT_EQ(t, tick_count(7) - ticks, 0);
	EXPECT_TRUE(t, tick_nohz_tick_stopped_cpu(7));
	machine_ok(t);
	machine_bootargs = "nohz=off";
	if (!machine_up(t))
		goto out;
	run_for(100 * MS);
	ticks = tick_count(7);
	run_for(1000 * MS);
	EXPECT_EQ(t, tick_count(7) - ticks, HZ);
	machine_ok(t);
out:
	machine_bootargs = NULL;
}

/* A task that ran on CPU 5 and sleeps leaves blocked load; CPU 5's tick is stopped, and
 * the idle balancer's NOHZ_STATS_KICK passes decay it (Linux 6.1 update_nohz_stats):
 * after 1 s, util_avg is what 1 s of idle decay leaves (y^1000/1.0 ~ 0), and
 * has_blocked_load is cleared once nothing is left. A busy CPU 0 sends the kicks. */
static void nohz_blocked_load_decays(struct ktest *t)
{
	struct task_struct *p;

	if (!machine_up(t))
		return;
	p = task_new("blocked", cpumask_of(5), 0);
	task_start(p, 5);
	run_for(100 * MS);
	ASSERT_TRUE(t, task_sleep(t, p));
	ASSERT_GT(t, cpu_rq(5)->cfs.avg.util_avg, 100);
	hog(0);
	hog(0);
	run_for(1000 * MS);
	EXPECT_TRUE(t, tick_nohz_tick_stopped_cpu(5));
	EXPECT_EQ(t, cpu_rq(5)->cfs.avg.util_avg, 0);
	EXPECT_FALSE(t, cpu_rq(5)->has_blocked_load);
	machine_ok(t);
}

/* Four always-running tasks queued on CPU 1, then allowed CPUs 0-1. Within a cluster
 * (MC, SD_SHARE_PKG_RESOURCES) Linux 6.1's calculate_imbalance() balances an idle local
 * CPU against an overloaded one by task count, not by spare utilization: one CPU per
 * group, so imbalance = (4 - 0) >> 1 = 2 tasks, and the first balance that moves
 * anything (CPU 0's, on the idle balancer's pass) leaves 2 and 2. Before: migrate_util
 * filled CPU 0's spare capacity, 3 tasks at once. */
static void mc_balance_by_task_count(struct ktest *t)
{
	struct task_struct *p[4];

	if (!machine_up(t))
		return;
	for (int i = 0; i < 4; i++)
		p[i] = hog(1);
	run_for(40 * MS);
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(t, set_cpus_allowed(p[i], CPUS(0x3)), 0);
	for (int ms = 0; ms < 200 && !cpu_rq(0)->cfs.h_nr_running; ms++)
		run_for(MS);
	EXPECT_EQ(t, cpu_rq(0)->cfs.h_nr_running, 2);
	EXPECT_EQ(t, cpu_rq(1)->cfs.h_nr_running, 2);
	machine_ok(t);
}

/* The LITTLE cluster's group at the top level of CPU 0, as sg_imbalanced() reads it. */
static int little_group_imbalanced(void)
{
	struct sched_domain *die = &cpu_rq(0)->sd[cpu_rq(0)->nr_sd - 1];

	for (int i = 0; i < die->nr_groups; i++)
		if (cpumask_test_cpu(0, &die->groups[i]))
			return sg_imbalanced(die, &die->groups[i]);
	return -1;
}

/* Linux 6.1 load_balance(): a balance that leaves an imbalance because of affinity
 * (LBF_SOME_PINNED) marks its group on the parent level (sd->parent->groups->sgc->
 * imbalance), which group_classify() then calls group_imbalanced (sg_imbalanced());
 * a balance at the level below that reaches balance while some task could move clears
 * it. Three hogs pinned to CPU 1: CPUs 0, 2 and 3 find it busiest and cannot pull, so
 * the LITTLE group is marked; once the hogs may use all the LITTLE CPUs they move,
 * and the first pass that finds balance with a movable task clears the mark. Before:
 * never marked. */
static void group_imbalanced_marked_and_cleared(struct ktest *t)
{
	struct task_struct *p[3];

	if (!machine_up(t))
		return;
	EXPECT_EQ(t, little_group_imbalanced(), 0);
	for (int i = 0; i < 3; i++)
		p[i] = hog(1);
	run_for(50 * MS);
	EXPECT_EQ(t, little_group_imbalanced(), 1);
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(t, set_cpus_allowed(p[i], CPUS(0xf)), 0);
	for (int ms = 0; ms < 300 && little_group_imbalanced(); ms++)
		run_for(MS);
	EXPECT_EQ(t, little_group_imbalanced(), 0);
	machine_ok(t);
}

/* A newly idle CPU pulls at most one task (Linux 6.1 detach_tasks() with
 * CONFIG_PREEMPTION: "NEWIDLE balancing is a source of latency ... stop after the first
 * task is detached"), even where the imbalance is two tasks (4 on CPU 1, 0 here).
 * Before: up to 8 tasks per newidle pass, here 2 or 3. */
static void newidle_pulls_one_task(struct ktest *t)
{
	struct task_struct *p[4], *r;

	if (!machine_up(t))
		return;
	r = hog(0);
	for (int i = 0; i < 4; i++)
		p[i] = hog(1);
	/* no time passes pinned: with the four pinned to CPU 1 the idle LITTLEs' balance
	 * marks the LITTLE group imbalanced (group_imbalanced), and the idle big that then
	 * balances the top level every min_interval writes rd->overload = 0 from its
	 * all-pinned retry, so newidle_balance() would not look (as on Linux 6.1) */
	for (int i = 0; i < 4; i++)
		ASSERT_EQ(t, set_cpus_allowed(p[i], CPUS(0x3)), 0);
	ASSERT_TRUE(t, task_sleep(t, r)); /* CPU 0 goes newly idle */
	EXPECT_EQ(t, cpu_rq(0)->cfs.h_nr_running, 1);
	EXPECT_EQ(t, cpu_rq(1)->cfs.h_nr_running, 3);
	machine_ok(t);
}

/* Linux 6.1 should_we_balance(): above the lowest level only one CPU of each group
 * balances the level for its group: the group's first idle CPU, or its first CPU when
 * none is idle; the others stop there (continue_balancing = 0). An idle HiKey960 with
 * every tick on: at DIE, only CPU 0 (of 0-3) and CPU 4 (of 4-7) look for a busiest
 * group (schedstat lb_nobusyg); all eight call load_balance() (lb_count). With a task
 * running on CPU 4, CPU 5 is the big cluster's first idle CPU. Before: every CPU
 * balanced DIE. */
static void should_we_balance_one_cpu_per_group(struct ktest *t)
{
	machine_bootargs = "nohz=off";
	if (!machine_up(t))
		goto out;
	run_for(500 * MS);
	for (unsigned int cpu = 0; cpu < NR_HIKEY_CPUS; cpu++) {
		struct sched_domain *die = &cpu_rq(cpu)->sd[cpu_rq(cpu)->nr_sd - 1];

		EXPECT_GT(t, die->lb_count[CPU_IDLE], 0);
		if (cpu == 0 || cpu == 4)
			EXPECT_GT(t, die->lb_nobusyg[CPU_IDLE], 0);
		else
			EXPECT_EQ(t, die->lb_nobusyg[CPU_IDLE], 0);
	}
	hog(4);
	for (unsigned int cpu = 4; cpu < NR_HIKEY_CPUS; cpu++) {
		struct sched_domain *die = &cpu_rq(cpu)->sd[cpu_rq(cpu)->nr_sd - 1];

		die->lb_nobusyg[CPU_IDLE] = die->lb_nobusyg[CPU_NOT_IDLE] = 0;
	}
	run_for(500 * MS);
	for (unsigned int cpu = 4; cpu < NR_HIKEY_CPUS; cpu++) {
		struct sched_domain *die = &cpu_rq(cpu)->sd[cpu_rq(cpu)->nr_sd - 1];
		u64 looked = die->lb_nobusyg[CPU_IDLE] + die->lb_nobusyg[CPU_NOT_IDLE];

		if (cpu == 5)
			EXPECT_GT(t, looked, 0);
		else
			EXPECT_EQ(t, looked, 0);
	}
	machine_ok(t);
out:
	machine_bootargs = NULL;
}

/* load_balance() calls a second, by Linux 6.1's cadence computed here: a busy CPU whose
 * levels stay balanced balances each once per msecs_to_jiffies(max_interval x
 * busy_factor) - 1 jiffies (get_sd_balance_interval); an idle CPU with its tick stopped
 * never does unless kicked, and a lone pinned task is no reason to kick. Busy: one
 * pinned always-running task per CPU (96 calls a second in all, was 188); idle-ish:
 * only CPU 0 busy (12 a second, was ~2650: every idle CPU balanced every tick). */
static u64 lb_calls(void)
{
	u64 n = 0;

	for (unsigned int cpu = 0; cpu < NR_HIKEY_CPUS; cpu++)
		for (int i = 0; i < CPU_MAX_IDLE_TYPES; i++)
			n += cpu_rq(cpu)->lb.lb_count[i];
	return n;
}

static u64 busy_lb_rate(unsigned int cpu)
{
	u64 n = 0;

	for (int l = 0; l < cpu_rq(cpu)->nr_sd; l++) {
		u64 j = ms_to_jiffies(2 * cpu_rq(cpu)->sd[l].span_weight * 16) - 1;

		n += (HZ + j / 2) / j; /* one a j jiffies, rounded */
	}
	return n;
}

static void lb_calls_per_second(struct ktest *t)
{
	u64 n, expect = 0;

	if (!machine_up(t))
		return;
	hog(0);
	run_for(2000 * MS);
	n = lb_calls();
	run_for(1000 * MS);
	n = lb_calls() - n;
	expect = busy_lb_rate(0);
	ktest_diag(t, "idle-ish (CPU 0 busy): %llu load_balance() calls in 1 s (Linux: %llu)", n,
		   expect);
	EXPECT_LE(t, n, expect + 2);
	EXPECT_GE(t, n + 2, expect);
	for (unsigned int cpu = 1; cpu < NR_HIKEY_CPUS; cpu++) {
		hog(cpu);
		expect += busy_lb_rate(cpu);
	}
	run_for(2000 * MS);
	n = lb_calls();
	run_for(1000 * MS);
	n = lb_calls() - n;
	ktest_diag(t, "busy (8 CPUs): %llu load_balance() calls in 1 s (Linux: %llu)", n, expect);
	EXPECT_LE(t, n, expect + 2 * NR_HIKEY_CPUS);
	EXPECT_GE(t, n + 2 * NR_HIKEY_CPUS, expect);
	machine_ok(t);
}

/* A CPU alone in its cluster (5-7 inactive): its MC level is degenerate and
 * dropped, yet its DIE groups are still the clusters' spans, {0-3}{4}, as
 * Linux builds them (build_sched_groups() takes the child spans before
 * sd_degenerate() drops the child), not one group per CPU. */
static void die_groups_of_a_lone_cpu(struct ktest *t)
{
	const struct sched_domain *die = NULL;
	bool found_little = false, found_big = false;
	struct rq *rq;

	if (!machine_up(t))
		return;
	for (unsigned int cpu = 5; cpu < NR_HIKEY_CPUS; cpu++)
		set_cpu_active(cpu, false);
	sched_domains_init();
	rq = cpu_rq(4);
	for (int i = 0; i < rq->nr_sd; i++)
		if (rq->sd[i].level == SD_LEVEL_DIE)
			die = &rq->sd[i];
	ASSERT_TRUE(t, die != NULL);
	EXPECT_EQ(t, die->nr_groups, 2);
	for (int g = 0; g < die->nr_groups; g++) {
		found_little |= cpumask_equal(&die->groups[g], CPUS(0x0full));
		found_big |= cpumask_equal(&die->groups[g], CPUS(0x10ull));
	}
	EXPECT_TRUE(t, found_little);
	EXPECT_TRUE(t, found_big);
	for (unsigned int cpu = 5; cpu < NR_HIKEY_CPUS; cpu++)
		set_cpu_active(cpu, true);
	sched_domains_init();
	machine_ok(t);
}

KTEST_SUITE(sched_balance, KTEST_CASE(lb_interval_backoff_when_balanced),
	    KTEST_CASE(group_imbalanced_marked_and_cleared), KTEST_CASE(lb_calls_per_second),
	    KTEST_CASE(should_we_balance_one_cpu_per_group), KTEST_CASE(nohz_kick_rate_limited),
	    KTEST_CASE(nohz_idle_cpu_takes_no_tick), KTEST_CASE(nohz_blocked_load_decays),
	    KTEST_CASE(mc_balance_by_task_count), KTEST_CASE(newidle_pulls_one_task),
	    KTEST_CASE(die_groups_of_a_lone_cpu));
KTEST_SUITE(sched_fair, KTEST_CASE(cfs_shares_nice0_nice5), KTEST_CASE(cfs_equal_shares),
	    KTEST_CASE(cfs_fair_after_migration));
KTEST_SUITE(sched_placement, KTEST_CASE(place_small_stays_on_idle_little),
	    KTEST_CASE(place_big_goes_to_idle_big), KTEST_CASE(place_nothing_fits_highest_capacity),
	    KTEST_CASE(place_through_wakeup), KTEST_CASE(wakeup_prev_is_last_cpu),
	    KTEST_CASE(asym_prefer_prev_on), KTEST_CASE(asym_prefer_prev_off),
	    KTEST_CASE(asym_prefer_prev_no_sync));
KTEST_SUITE(sched_misfit, KTEST_CASE(misfit_boundary), KTEST_CASE(misfit_util_est_and_affinity),
	    KTEST_CASE(misfit_cleared_by_no_misfit), KTEST_CASE(misfit_up_migration),
	    KTEST_CASE(misfit_cleared_when_idle), KTEST_CASE(uclamp_fits),
	    KTEST_CASE(uclamp_min_fits_up_to_capacity_orig));
KTEST_SUITE(sched_features, KTEST_CASE(features_api), KTEST_CASE(features_from_bootargs));
KTEST_SUITE(sched_core, KTEST_CASE(rt_preempts_cfs_at_once), KTEST_CASE(sixteen_hogs_spread),
	    KTEST_CASE(class_round_trip_keeps_vruntime), KTEST_CASE(random_ops_keep_invariants));
