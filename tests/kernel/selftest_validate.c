/* selftest_validate.c - selftest=validate (also `selftest validate` in the shell): what a
 * board run sends back. Per CPU and OPP, the throughput of cpu_work()'s native loop
 * (kernel/sched/native.c) measured with the arch counter, as a capacity (1024 = the
 * calibration: the biggest CPU at its top OPP), beside what the tree claims
 * (capacity_orig x f / f_max); per CPU, the wakeup delay out of each idle state
 * beside the tree's exit-latency-us; cpu_work() itself at f_max; on a board, E1 and
 * E5 short. The reference is
 * the tree, not our own timings. docs/hikey960.md says how to read the lines. */
#include "bench.h"
#include "cpufreq.h"
#include "cpuidle.h"
#include "kernel.h"
#include "ktest.h"
#include "sched.h"
#include "selftest.h"
#include "smp.h"
#include "speed.h"
#include "timer.h"

#define US	     1000ull
#define MS	     1000000ull
#define MEASURE_NS   (2 * MS) /* of loop at the reference rate, per CPU and OPP */
#define TOLERANCE_PC 5

struct probe {
	u64 iters, ns, sink;
};

/* Pinned to its CPU: the loop alone between two reads of the counter. Under
 * speed=all the stall owed for it is paid before the second read (speed_pay). */
static void probe_fn(void *arg)
{
	struct probe *p = arg;
	unsigned long flags;
	u64 t0;

	flags = arch_irq_save();
	speed_pay(); /* what the wakeup cost, before the clock starts */
	arch_irq_restore(flags);
	t0 = arch_clock_ns();
	p->sink = native_loop(p->iters, t0);
	flags = arch_irq_save();
	speed_pay();
	arch_irq_restore(flags);
	p->ns = arch_clock_ns() - t0;
}

/* The loop's rate on cpu as a capacity: 1024 x (iterations/ns) / reference rate. */
static u64 measured_capacity(unsigned int cpu)
{
	u64 q = native_iters_per_unit_q16();
	struct probe p = { .iters = (MEASURE_NS * q) >> 16 };
	struct task_struct *th = kthread_create(probe_fn, &p, "validate");

	if (!th)
		return 0;
	set_cpus_allowed(th, cpumask_of(cpu));
	wake_up_new_task(th);
	kthread_join(th);
	return p.ns ? (p.iters << 16) * SCHED_CAPACITY_SCALE / (p.ns * q) : 0;
}

static bool set_opp(int policy, u32 khz)
{
	if (cpufreq_set_governor(policy, "userspace") || cpufreq_set_speed(policy, khz))
		return false;
	for (int i = 0; i < 100 && cpufreq_cur_freq(policy) != khz; i++)
		msleep(1); /* the transition: clock-latency-ns, or the firmware's answer */
	return cpufreq_cur_freq(policy) == khz;
}

/* What the run must find: speed=all, the tree's capacities (the platform model's
 * self-check); speed=native on an emulated machine, equal vCPUs (every capacity
 * 1024); on a board, nothing to assert: the table is the measurement. */
static void check_row(struct ktest *t, u64 measured, u64 tree)
{
	if (speed_model == SPEED_ALL)
		EXPECT_NEAR(t, measured, tree, tree * TOLERANCE_PC / 100);
	else if (speed_model == SPEED_NATIVE && speed_emulated_machine())
		EXPECT_NEAR(t, measured, SCHED_CAPACITY_SCALE,
			    SCHED_CAPACITY_SCALE * TOLERANCE_PC / 100);
}

static void report(struct ktest *t, unsigned int cpu, int policy, u32 khz, u32 fmax)
{
	u64 tree = (u64)capacity_orig_of(cpu) * khz / fmax, m = measured_capacity(cpu);

	printk("RESULT validate cpu=%u opp_khz=%u hw_khz=%u measured=%llu tree=%llu "
	       "ratio=%llu.%03llu rel=%llu.%03llu speed=%s\n",
	       cpu, khz, policy >= 0 ? cpufreq_hw_freq(policy) : khz, m, tree, m / tree,
	       m * 1000 / tree % 1000, m / SCHED_CAPACITY_SCALE,
	       m * 1000 / SCHED_CAPACITY_SCALE % 1000, speed_model_name());
	ASSERT_GT(t, m, 0);
	check_row(t, m, tree);
}

static void validate_capacity(struct ktest *t)
{
	if (speed_model == SPEED_WORK)
		KTEST_SKIP(t, "speed=work: only cpu_work() is scaled, not the loop");
	ktest_diag(t, "reference: %llu.%03llu loop iterations per unit; driver %s",
		   native_iters_per_unit_q16() >> 16,
		   ((native_iters_per_unit_q16() & 0xffff) * 1000) >> 16, cpufreq_driver_name());
	for (unsigned int c = 0; c < nr_cpu_ids; c++) /* CPUs without DVFS: as they are */
		if (cpu_online(c) && cpufreq_policy_of(c) < 0)
			report(t, c, -1, 1, 1);
	for (int p = 0; p < cpufreq_nr_policies(); p++) {
		struct cpufreq_stats s;
		cpumask_t cpus = cpufreq_policy_cpus(p);

		cpufreq_get_stats(p, &s);
		for (int i = 0; i < s.nr; i++) {
			unsigned int c;

			ASSERT_TRUE(t, set_opp(p, s.freq[i]));
			for_each_cpu(c, &cpus)
				report(t, c, p, s.freq[i], cpufreq_max_freq(p));
		}
	}
	selftest_restore_governors();
}

struct work_probe {
	u64 ns;
};

static void work_fn(void *arg)
{
	struct work_probe *w = arg;
	u64 t0 = arch_clock_ns();

	cpu_work(MEASURE_NS);
	w->ns = arch_clock_ns() - t0;
}

/* cpu_work() itself, every policy at f_max (performance), on the first CPU of each
 * capacity: under speed=native real instructions, so on QEMU every CPU does 2 ms of
 * units in 2 ms (before native.c it waited the emulated 1024/capacity as long). */
static void validate_cpu_work(struct ktest *t)
{
	if (speed_model == SPEED_WORK)
		KTEST_SKIP(t, "speed=work: the older model");
	selftest_restore_governors();
	msleep(2);
	for (unsigned int c = 0; c < nr_cpu_ids; c++) {
		struct work_probe w = { 0 };
		struct task_struct *th;
		u64 m, tree = capacity_orig_of(c);

		if (!cpu_online(c) || (c && capacity_orig_of(c - 1) == tree))
			continue;
		th = kthread_create(work_fn, &w, "validate-work");
		ASSERT_TRUE(t, th != NULL);
		set_cpus_allowed(th, cpumask_of(c));
		wake_up_new_task(th);
		kthread_join(th);
		ASSERT_GT(t, w.ns, 0);
		m = MEASURE_NS * SCHED_CAPACITY_SCALE / w.ns;
		printk("RESULT validate_work cpu=%u units_us=%llu took_us=%llu measured=%llu "
		       "tree=%llu speed=%s\n",
		       c, MEASURE_NS / US, w.ns / US, m, tree, speed_model_name());
		check_row(t, m, tree);
	}
}

/* Usage of each state of cpu, for telling which one a sleep ended in. */
static void usage_of(unsigned int cpu, u64 *u)
{
	for (int i = 0; i < cpuidle_nr_states(cpu); i++) {
		struct cpuidle_state_usage su;

		cpuidle_get_usage(cpu, i, &su);
		u[i] = su.usage;
	}
}

struct sleeper {
	u64 sleep_ns, late_ns;
	int state;   /* deepest state entered during the sleep, -1 if none */
	u64 entries; /* idle periods during the sleep (1: the timer ended the only one) */
};

/* Pinned: sleep, then how late the CPU ran again, and in which state it was. */
static void sleeper_fn(void *arg)
{
	struct sleeper *s = arg;
	unsigned int cpu = arch_cpu_id();
	u64 before[TOPOLOGY_MAX_IDLE_STATES], after[TOPOLOGY_MAX_IDLE_STATES], deadline;

	msleep(2); /* the others settle */
	usage_of(cpu, before);
	deadline = arch_clock_ns() + s->sleep_ns;
	sleep_until_ns(deadline);
	s->late_ns = arch_clock_ns() - deadline;
	usage_of(cpu, after);
	s->state = -1;
	s->entries = 0;
	for (int i = 0; i < cpuidle_nr_states(cpu); i++) {
		if (after[i] != before[i])
			s->state = i;
		s->entries += after[i] - before[i];
	}
}

/* Sleeps of 0.5 ms, 2.5 ms and 20 ms (around the HiKey960's residencies) on the first
 * CPU of each cluster; the delay past the timer is what leaving the state cost. */
static void validate_idle(struct ktest *t)
{
	static const u64 sleeps[] = { 500 * US, 2500 * US, 20 * MS };

	if (!cpuidle_enabled())
		KTEST_SKIP(t, "cpuidle=off");
	for (unsigned int c = 0; c < nr_cpu_ids; c++) {
		if (!cpu_online(c) ||
		    (c && cpu_topology.cpu[c].cluster_id == cpu_topology.cpu[c - 1].cluster_id))
			continue;
		for (unsigned int k = 0; k < ARRAY_SIZE(sleeps); k++) {
			struct sleeper s = { .sleep_ns = sleeps[k] };
			struct task_struct *th = kthread_create(sleeper_fn, &s, "validate-idle");
			const struct topology_idle_state *st;
			u64 exit_us;

			ASSERT_TRUE(t, th != NULL);
			set_cpus_allowed(th, cpumask_of(c));
			wake_up_new_task(th);
			kthread_join(th);
			/* state -1: plain wfi outside the cpuidle core (one state left, as
			 * on a board whose states are all kept off): the tree claims 0. */
			st = s.state >= 0 ? cpuidle_state(c, s.state) : NULL;
			exit_us = s.state > 0 ? st->exit_latency_us : 0;
			printk("RESULT validate_idle cpu=%u sleep_us=%llu state=%d name=%s "
			       "entry_us_tree=%u exit_us_tree=%llu late_us=%llu idles=%llu\n",
			       c, sleeps[k] / US, s.state, st ? st->name : "wfi",
			       st ? st->entry_latency_us : 0, exit_us, s.late_ns / US, s.entries);
			/* The emulated exit is the tree's, paid after the interrupt that ends
			 * the idle period. Only a sleep longer than a tick is sure to end by
			 * its own timer (menu keeps the tick for shorter predictions, and a
			 * tick just before the deadline starts the exit earlier). */
			if (speed_emulated_machine() && s.entries == 1 && sleeps[k] > TICK_NSEC)
				EXPECT_GE(t, s.late_ns, exit_us * US);
		}
	}
}

/* E1 and E5 short, on a board only: QEMU runs them on their own (tests/runs.py). */
static void validate_experiments(struct ktest *t)
{
	if (speed_emulated_machine())
		KTEST_SKIP(t, "emulated machine: E1 and E5 have their own runs");
	EXPECT_EQ(t, experiment_run("1,short"), 0);
	EXPECT_EQ(t, experiment_run("5,short"), 0);
}

KTEST_SUITE_BY_NAME(validate, KTEST_CASE(validate_capacity), KTEST_CASE(validate_cpu_work),
		    KTEST_CASE(validate_idle), KTEST_CASE(validate_experiments));
