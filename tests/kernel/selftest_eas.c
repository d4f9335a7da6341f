/* selftest_eas.c - Energy Aware Scheduling (kernel/sched/fair_energy.c) in emulated time,
 * as Linux 6.1 behaves on an asymmetric machine under schedutil: a small periodic task
 * is placed on a LITTLE CPU by EAS and left where it was by the capacity path with EAS
 * off; a task that outgrows LITTLE leaves it (overutilized: EAS steps aside); EAS is off
 * with any other governor and on again with schedutil. Suite `eas`, by name only (run
 * eas-bl44). Every case leaves every policy on the default governor and EAS on. */
#include "cpufreq.h"
#include "kernel.h"
#include "ktest.h"
#include "sched.h"
#include "selftest.h"
#include "timer.h"

#define US	1000ull
#define MS	1000000ull
#define PERIOD	(16 * MS) /* LISA's EAS behaviour tests: 16 ms rt-app periods */
#define NPHASES 2

/* A periodic task of up to two phases; each counts its activations on LITTLE and big
 * CPUs from `count_after` into the phase, and those that saw the root domain
 * overutilized. */
struct ptask {
	struct {
		u64 len, work, count_after;
		unsigned int little, big, overutilized;
	} ph[NPHASES];
	unsigned long little_cap;
};

static void ptask_fn(void *arg)
{
	struct ptask *t = arg;
	u64 next = arch_clock_ns(), start = next;

	for (int i = 0; i < NPHASES; i++) {
		u64 end = start + t->ph[i].len;

		while (next < end) {
			unsigned int cpu;

			cpu_work(t->ph[i].work);
			cpu = arch_cpu_id();
			if (arch_clock_ns() >= start + t->ph[i].count_after) {
				if (capacity_orig_of(cpu) <= t->little_cap)
					t->ph[i].little++;
				else
					t->ph[i].big++;
				t->ph[i].overutilized += sched_overutilized();
			}
			next += PERIOD;
			while (next < arch_clock_ns()) /* overran: the next period */
				next += PERIOD;
			sleep_ns(next - arch_clock_ns());
		}
		start = end;
	}
}

static bool all_schedutil(void)
{
	for (int p = 0; p < cpufreq_nr_policies(); p++)
		if (cpufreq_set_governor(p, "schedutil"))
			return false;
	return true;
}

/* The task first runs on `first` (pinned for its first 20 ms), then anywhere. */
static void run_ptask(struct ptask *t, int first)
{
	struct task_struct *th = kthread_create(ptask_fn, t, "eas-task");

	if (!th)
		return;
	set_cpus_allowed(th, cpumask_of((unsigned int)first));
	wake_up_new_task(th);
	msleep(20);
	set_cpus_allowed(th, cpu_online_mask);
	kthread_join(th);
}

/* A bare machine for EAS: asymmetric, with cpufreq; *little / *big: one of each. */
static bool eas_machine(struct ktest *t, int *little, int *big)
{
	*little = selftest_pick_cpu(true, true);
	*big = selftest_pick_cpu(false, true);
	if (*little < 0 ||
	    capacity_orig_of((unsigned int)*little) == capacity_orig_of((unsigned int)*big))
		return false;
	return all_schedutil();
}

/* LISA's OneSmallTask: 50 % of the smallest CPU's capacity every 16 ms. Started on a big
 * CPU: with EAS on, wakeups move it to LITTLE (find_energy_efficient_cpu: LITTLE costs
 * less); with EAS off the capacity path keeps it on its idle, fitting prev CPU (big).
 * Counted from 200 ms on, for 800 ms. */
static void eas_small_task_placement(struct ktest *t)
{
	int little, big;

	if (!eas_machine(t, &little, &big))
		KTEST_SKIP(t, "needs asymmetric CPUs with cpufreq");
	for (int on = 1; on >= 0; on--) {
		struct ptask p = { .little_cap = capacity_orig_of((unsigned int)little) };

		sched_feat_set(on ? "EAS" : "NO_EAS");
		EXPECT_EQ(t, sched_energy_enabled(), (bool)on);
		p.ph[0].len = 1000 * MS;
		p.ph[0].count_after = 200 * MS;
		p.ph[0].work = PERIOD * p.little_cap / 1024 / 2;
		run_ptask(&p, big);
		ktest_diag(t, "EAS %s: %u activations on LITTLE, %u on big, %u overutilized",
			   on ? "on" : "off", p.ph[0].little, p.ph[0].big, p.ph[0].overutilized);
		if (on)
			EXPECT_GE(t, p.ph[0].little, 9 * (p.ph[0].little + p.ph[0].big) / 10);
		else
			EXPECT_GE(t, p.ph[0].big, 9 * (p.ph[0].little + p.ph[0].big) / 10);
	}
	sched_feat_set("EAS");
	selftest_restore_governors();
}

/* A task at 10 % of LITTLE for 500 ms (on LITTLE under EAS), then at 80 % of a big CPU for
 * 600 ms: LITTLE's util passes 80 % of its capacity, the root domain is overutilized, EAS
 * steps aside and the task ends on a big CPU (its last 300 ms there). */
static void eas_task_outgrows_little(struct ktest *t)
{
	struct ptask p = { 0 };
	int little, big;

	if (!eas_machine(t, &little, &big))
		KTEST_SKIP(t, "needs asymmetric CPUs with cpufreq");
	ASSERT_TRUE(t, sched_energy_enabled());
	p.little_cap = capacity_orig_of((unsigned int)little);
	p.ph[0].len = 500 * MS;
	p.ph[0].count_after = 200 * MS;
	p.ph[0].work = PERIOD * p.little_cap / 1024 / 10;
	p.ph[1].len = 600 * MS;
	p.ph[1].count_after = 300 * MS;
	p.ph[1].work = PERIOD * 8 / 10;
	run_ptask(&p, big);
	ktest_diag(t, "small: %u LITTLE / %u big; big phase's end: %u LITTLE / %u big, %u overutil",
		   p.ph[0].little, p.ph[0].big, p.ph[1].little, p.ph[1].big, p.ph[1].overutilized);
	EXPECT_GE(t, p.ph[0].little, 9 * (p.ph[0].little + p.ph[0].big) / 10);
	EXPECT_GE(t, p.ph[1].big, 9 * (p.ph[1].little + p.ph[1].big) / 10);
	selftest_restore_governors();
}

/* Linux 6.1 (build_perf_domains): schedutil is mandatory on every policy; the
 * sched_energy_aware sysctl (our EAS feature) turns it off too. */
static void eas_follows_governor(struct ktest *t)
{
	int little, big, pol;

	if (!eas_machine(t, &little, &big))
		KTEST_SKIP(t, "needs asymmetric CPUs with cpufreq");
	EXPECT_TRUE(t, sched_energy_enabled());
	pol = cpufreq_policy_of((unsigned int)big);
	ASSERT_EQ(t, cpufreq_set_governor(pol, "performance"), 0);
	EXPECT_FALSE(t, sched_energy_enabled());
	ktest_diag(t, "off: %s", sched_energy_reason());
	ASSERT_EQ(t, cpufreq_set_governor(pol, "schedutil"), 0);
	EXPECT_TRUE(t, sched_energy_enabled());
	sched_feat_set("NO_EAS");
	EXPECT_FALSE(t, sched_energy_enabled());
	sched_feat_set("EAS");
	EXPECT_TRUE(t, sched_energy_enabled());
	selftest_restore_governors();
	EXPECT_FALSE(t, sched_energy_enabled());
}

KTEST_SUITE_BY_NAME(eas, KTEST_CASE(eas_follows_governor), KTEST_CASE(eas_small_task_placement),
		    KTEST_CASE(eas_task_outgrows_little));
