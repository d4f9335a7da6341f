/* selftest_cpuidle.c - self-tests of the idle states in emulated time (issue 14): a
 * long predicted idle reaches the deepest state, a timer 100 us away keeps
 * WFI, a cluster powers off only when all of it idles, a wakeup from the
 * cluster state takes at least its exit latency, a pipe ping-pong between two
 * CPUs of a cluster never powers it off, and a CPU-bound task uses
 * the energy model's power. The references are the device tree's numbers
 * and Linux's rules, not our statistics' own view. */
#include "cpufreq.h"
#include "cpuidle.h"
#include "kernel.h"
#include "ktest.h"
#include "pipe.h"
#include "sched.h"
#include "smp.h"
#include "timer.h"

#define US 1000ull
#define MS 1000000ull

/* A cluster without CPU 0 (where the console and, in run_on(), the test
 * runner live), whose CPUs are online and have a cluster state; its last
 * CPU goes to *cpu. -1 if none. */
static int quiet_cluster(unsigned int *cpu)
{
	for (int c = cpu_topology.nr_clusters - 1; c >= 0; c--) {
		const cpumask_t *m = &cpu_topology.cluster_cpus[c];
		unsigned int last = 0, i;
		int n;

		for_each_cpu(i, m)
			last = i;
		n = cpuidle_nr_states(last);
		if (cpumask_empty(m) || cpumask_test_cpu(0, m) ||
		    !cpumask_subset(m, cpu_online_mask) || n < 2 ||
		    !cpuidle_state(last, n - 1)->level)
			continue;
		*cpu = last;
		return c;
	}
	return -1;
}

struct pinned {
	void (*fn)(struct pinned *);
	u64 arg, out[4];
	struct cpuidle_state_usage before[TOPOLOGY_MAX_IDLE_STATES];
	struct cpuidle_state_usage after[TOPOLOGY_MAX_IDLE_STATES];
};

static void pinned_fn(void *arg)
{
	struct pinned *p = arg;

	p->fn(p);
}

/* Run p->fn on a task pinned to cpu, the caller waiting on CPU 0 (so that
 * the other clusters hold nothing but the test task). */
static bool run_on(unsigned int cpu, struct pinned *p)
{
	struct task_struct *self = arch_current(), *th;
	cpumask_t mask = self->cpus_allowed;

	set_cpus_allowed(self, cpumask_of(0));
	th = kthread_create(pinned_fn, p, "idle-test");
	if (th) {
		set_cpus_allowed(th, cpumask_of(cpu));
		wake_up_new_task(th);
		kthread_join(th);
	}
	set_cpus_allowed(self, &mask);
	return th != NULL;
}

static void snapshot(struct cpuidle_state_usage *u)
{
	unsigned int cpu = arch_cpu_id();

	for (int i = 0; i < cpuidle_nr_states(cpu); i++)
		cpuidle_get_usage(cpu, i, &u[i]);
}

static bool usable(struct ktest *t)
{
	return cpuidle_enabled() && cpuidle_nr_states(0) >= 2;
}

/* The pinned task sleeps 50 ms three times: its CPU has nothing else. */
static void long_sleeps(struct pinned *p)
{
	snapshot(p->before);
	for (int i = 0; i < 3; i++)
		msleep(50);
	snapshot(p->after);
}

static void cpuidle_long_idle_deepest(struct ktest *t)
{
	struct pinned p = { .fn = long_sleeps };
	unsigned int cpu;
	int deepest;

	if (!usable(t) || quiet_cluster(&cpu) < 0)
		KTEST_SKIP(t, "no idle states, or no second cluster with a cluster state");
	deepest = cpuidle_nr_states(cpu) - 1;
	ASSERT_TRUE(t, run_on(cpu, &p));
	ktest_diag(t, "cpu%u: %s entered %llu times in 3 x 50 ms sleeps", cpu,
		   cpuidle_state(cpu, deepest)->name,
		   (unsigned long long)(p.after[deepest].usage - p.before[deepest].usage));
	EXPECT_GE(t, p.after[deepest].usage - p.before[deepest].usage, 3);
	EXPECT_GE(t, p.after[deepest].time_ns - p.before[deepest].time_ns, 3 * 45 * MS);
}

/* 100 sleeps of 100 us: below every non-WFI state's min-residency. */
static void short_sleeps(struct pinned *p)
{
	snapshot(p->before);
	for (int i = 0; i < 100; i++)
		sleep_ns(100 * US);
	snapshot(p->after);
}

static void cpuidle_timer_100us_stays_wfi(struct ktest *t)
{
	struct pinned p = { .fn = short_sleeps };
	unsigned int cpu;

	if (!usable(t) || quiet_cluster(&cpu) < 0)
		KTEST_SKIP(t, "no idle states, or no second cluster with a cluster state");
	ASSERT_GT(t, cpuidle_state(cpu, 1)->min_residency_us, 100);
	ASSERT_TRUE(t, run_on(cpu, &p));
	EXPECT_GE(t, p.after[0].usage - p.before[0].usage, 100);
	for (int i = 1; i < cpuidle_nr_states(cpu); i++)
		EXPECT_EQ(t, p.after[i].usage - p.before[i].usage, 0);
}

/* Busy (emulated work: the CPU runs a task) for p->arg ns. */
static void busy(struct pinned *p)
{
	cpu_work(p->arg);
}

static void idle_for(struct pinned *p)
{
	sleep_ns(p->arg);
}

static void cpuidle_cluster_only_when_all_idle(struct ktest *t)
{
	struct pinned p = { .fn = busy, .arg = 100 * MS };
	struct cpuidle_cluster_stats s0, s1, s2;
	unsigned int cpu;
	int c;

	if (!usable(t) || (c = quiet_cluster(&cpu)) < 0)
		KTEST_SKIP(t, "no idle states, or no second cluster with a cluster state");
	cpuidle_get_cluster(c, &s0);
	ASSERT_TRUE(t, run_on(cpu, &p)); /* one CPU of it busy, the rest idle */
	cpuidle_get_cluster(c, &s1);
	p.fn = idle_for;
	ASSERT_TRUE(t, run_on(0, &p)); /* all of it idle */
	cpuidle_get_cluster(c, &s2);
	ktest_diag(t, "cluster %d off: %llu us while cpu%u worked, %llu us while all idled", c,
		   (unsigned long long)((s1.time_ns - s0.time_ns) / US), cpu,
		   (unsigned long long)((s2.time_ns - s1.time_ns) / US));
	/* The busy stretch starts and ends with the task's fork and exit: allow the
	 * cluster's off time around them, not during the 100 ms of work. */
	EXPECT_LT(t, s1.time_ns - s0.time_ns, 10 * MS);
	EXPECT_GE(t, s2.count - s0.count, 1);
	/* Off most of the 100 ms: 97-101 ms in most boots, 71 ms once (the U-Boot
	 * dtb-after-kernel boot, after the cpufreq_driver suite: one stray wakeup
	 * of the cluster, not traced yet), so half is the bound. */
	EXPECT_GE(t, s2.time_ns - s1.time_ns, 50 * MS);
}

/* Two tasks pinned to two CPUs of the quiet cluster pass a token through two
 * pipes (perf bench sched pipe): at every moment one of the two runs or has a
 * wakeup pending, so the cluster must never power off during the exchange (on
 * the board the power controller abandons a power-down while a CPU of the
 * cluster has a wakeup pending). The rest of the cluster idles. */
struct pingpong {
	struct pipe pipe[2];
	unsigned int loops, settle_ms; /* each task first sleeps settle_ms, 5 times */
	int cluster;
	struct cpuidle_cluster_stats s0, s1;
};

struct pingpong_arg {
	struct pingpong *pp;
	unsigned int me;
};

static void pingpong_fn(void *arg)
{
	struct pingpong_arg *a = arg;
	struct pingpong *pp = a->pp;
	u32 token = 0;

	for (int i = 0; pp->settle_ms && i < 5; i++)
		msleep(pp->settle_ms);
	if (a->me == 0)
		cpuidle_get_cluster(pp->cluster, &pp->s0);
	for (unsigned int i = 0; i < pp->loops; i++) {
		if (a->me == 0) {
			pipe_write(&pp->pipe[0], &token, sizeof(token));
			pipe_read_full(&pp->pipe[1], &token, sizeof(token));
		} else {
			pipe_read_full(&pp->pipe[0], &token, sizeof(token));
			pipe_write(&pp->pipe[1], &token, sizeof(token));
		}
	}
	if (a->me == 0)
		cpuidle_get_cluster(pp->cluster, &pp->s1);
}

/* Run pp->loops round trips between two CPUs of the quiet cluster (cpu[0],
 * cpu[1]); each CPU's deepest-state-but-WFI entries in *deep. False: skip. */
static bool run_pingpong(struct ktest *t, struct pingpong *pp, unsigned int cpu[2], u64 deep[2])
{
	struct pingpong_arg a[2] = { { pp, 0 }, { pp, 1 } };
	struct task_struct *self = arch_current(), *th[2];
	cpumask_t mask = self->cpus_allowed;
	struct cpuidle_state_usage u;
	unsigned int c;

	if (!usable(t) || (pp->cluster = quiet_cluster(&cpu[1])) < 0)
		return false;
	cpu[0] = cpu[1];
	for_each_cpu(c, &cpu_topology.cluster_cpus[pp->cluster]) {
		if (c != cpu[1]) {
			cpu[0] = c;
			break;
		}
	}
	if (cpu[0] == cpu[1] || pipe_init(&pp->pipe[0], 0) || pipe_init(&pp->pipe[1], 0))
		return false;
	for (int i = 0; i < 2; i++) {
		deep[i] = 0;
		for (int s = 1; s < cpuidle_nr_states(cpu[i]); s++, deep[i] -= u.usage)
			cpuidle_get_usage(cpu[i], s, &u);
	}
	set_cpus_allowed(self, cpumask_of(0));
	for (int i = 0; i < 2; i++) {
		th[i] = kthread_create(pingpong_fn, &a[i], "idle-pp");
		if (th[i])
			set_cpus_allowed(th[i], cpumask_of(cpu[i]));
	}
	if (th[0] && th[1]) {
		wake_up_new_task(th[1]);
		wake_up_new_task(th[0]);
		kthread_join(th[0]);
		kthread_join(th[1]);
	}
	set_cpus_allowed(self, &mask);
	pipe_destroy(&pp->pipe[0]);
	pipe_destroy(&pp->pipe[1]);
	for (int i = 0; i < 2; i++)
		for (int s = 1; s < cpuidle_nr_states(cpu[i]); s++, deep[i] += u.usage)
			cpuidle_get_usage(cpu[i], s, &u);
	return th[0] && th[1];
}

static void cpuidle_pingpong_keeps_cluster_on(struct ktest *t)
{
	struct pingpong pp = { .loops = 300 };
	unsigned int cpu[2];
	u64 deep[2];

	if (!run_pingpong(t, &pp, cpu, deep))
		KTEST_SKIP(t, "no idle states, no second cluster with a cluster state and 2 CPUs");
	ktest_diag(t, "cpu%u <-> cpu%u, %u round trips: cluster %d off %llu times, %llu us", cpu[0],
		   cpu[1], pp.loops, pp.cluster, (unsigned long long)(pp.s1.count - pp.s0.count),
		   (unsigned long long)((pp.s1.time_ns - pp.s0.time_ns) / US));
	EXPECT_EQ(t, pp.s1.count - pp.s0.count, 0);
}

/* teo (cpuidle_governor=teo), after both CPUs idled long (5 x 20 ms sleeps,
 * as before a benchmark): in a ping-pong every idle ends by the partner's
 * wakeup, long before the sleep length (no timer), so Linux 6.1's teo counts
 * intercepts in the shallow bins and picks WFI once they are over half of the
 * last NR_RECENT (9) idles (alt_recent) or outweigh the deeper bins' decayed
 * hits (alt_intercepts): after a handful of idles. Under 5 % of the round trips
 * may see a deeper state. Menu fails this (227 and 222 of 300 on qemu-bl44: its
 * timer-based prediction keeps choosing CPU_SLEEP, docs/experiments.md). */
static void cpuidle_teo_pingpong_stays_wfi(struct ktest *t)
{
	struct pingpong pp = { .loops = 300, .settle_ms = 20 };
	unsigned int cpu[2];
	u64 deep[2];

	if (strcmp(cpuidle_governor_name(), "teo"))
		KTEST_SKIP(t, "the governor is not teo (cpuidle_governor=teo)");
	if (!run_pingpong(t, &pp, cpu, deep))
		KTEST_SKIP(t, "no idle states, no second cluster with a cluster state and 2 CPUs");
	ktest_diag(t, "cpu%u / cpu%u: %llu / %llu idles deeper than WFI in %u round trips", cpu[0],
		   cpu[1], (unsigned long long)deep[0], (unsigned long long)deep[1], pp.loops);
	EXPECT_LE(t, deep[0] * 100, pp.loops * 5);
	EXPECT_LE(t, deep[1] * 100, pp.loops * 5);
}

/* Sleep to an absolute deadline and record how late the task ran. */
static void late_wakeups(struct pinned *p)
{
	u64 min = ~0ull, max = 0;

	msleep(5);
	for (int i = 0; i < 5; i++) {
		u64 deadline = arch_clock_ns() + 20 * MS, late;

		sleep_until_ns(deadline);
		late = arch_clock_ns() - deadline;
		min = MIN(min, late);
		max = MAX(max, late);
	}
	p->out[0] = min;
	p->out[1] = max;
}

static void cpuidle_wakeup_pays_exit_latency(struct ktest *t)
{
	struct pinned p = { .fn = late_wakeups };
	unsigned int cpu;
	u64 exit_ns;

	if (!usable(t) || quiet_cluster(&cpu) < 0)
		KTEST_SKIP(t, "no idle states, or no second cluster with a cluster state");
	exit_ns = cpuidle_state(cpu, cpuidle_nr_states(cpu) - 1)->exit_latency_us * US;
	ASSERT_TRUE(t, run_on(cpu, &p));
	ktest_diag(t, "cpu%u: woke %llu-%llu us after its timer; cluster exit latency %llu us", cpu,
		   (unsigned long long)(p.out[0] / US), (unsigned long long)(p.out[1] / US),
		   (unsigned long long)(exit_ns / US));
	EXPECT_GE(t, p.out[0], exit_ns);
	EXPECT_LT(t, p.out[1], exit_ns + 500 * US);
}

/* A CPU-bound task: the energy its CPU used over the time it ran. */
static void metered_work(struct pinned *p)
{
	unsigned int cpu = arch_cpu_id();
	u64 e0 = energy_cpu_uj(cpu), t0 = arch_clock_ns();

	cpu_work(p->arg);
	p->out[0] = energy_cpu_uj(cpu) - e0;
	p->out[1] = arch_clock_ns() - t0;
}

/* Linux's EM: power_uW = dynamic-power-coefficient x mV^2 x MHz / 10^6,
 * from the device tree's top OPP of the LITTLE CPU. */
static void energy_little_at_fmax(struct ktest *t)
{
	struct pinned p = { .fn = metered_work, .arg = 100 * MS };
	unsigned int cpu = 0;
	const struct topology_freq_domain *fd;
	const struct topology_opp_table *ot;
	u64 mv, khz, expect_uw, got_uw;

	for (unsigned int c = 1; c < nr_cpu_ids; c++)
		if (cpu_online(c) && capacity_orig_of(c) < capacity_orig_of(cpu))
			cpu = c;
	fd = &cpu_topology.freq_domain[cpu_topology.cpu[cpu].freq_domain];
	if (!fd->power_coeff || fd->opp_table < 0 || cpufreq_policy_of(cpu) < 0)
		KTEST_SKIP(t, "no energy model");
	ot = &cpu_topology.opp_table[fd->opp_table];
	if (cpufreq_cur_freq(cpufreq_policy_of(cpu)) != ot->opp[ot->nr_opps - 1].freq_khz)
		KTEST_SKIP(t, "the LITTLE CPU is not at f_max");
	ASSERT_TRUE(t, run_on(cpu, &p));
	mv = ot->opp[ot->nr_opps - 1].microvolt / 1000;
	khz = ot->opp[ot->nr_opps - 1].freq_khz;
	expect_uw = fd->power_coeff * mv * mv * khz / 1000000000ull;
	got_uw = p.out[1] ? p.out[0] * 1000000000ull / p.out[1] : 0;
	ktest_diag(t, "cpu%u: %llu uJ in %llu us: %llu uW, EM %llu uW", cpu,
		   (unsigned long long)p.out[0], (unsigned long long)(p.out[1] / US),
		   (unsigned long long)got_uw, (unsigned long long)expect_uw);
	EXPECT_LT(t, got_uw * 100, expect_uw * 101);
	EXPECT_GT(t, got_uw * 100, expect_uw * 99);
}

static void nothing(struct pinned *p)
{
	(void)p;
}

/* With the idle states off (cpuidle=off, or a tree with WFI only) an idle CPU
 * sits in plain WFI and draws WFI's documented power (ENERGY_WFI_PERMILLE of
 * the EM's power at its lowest OPP, dynamic-power-coefficient x mV^2 x MHz),
 * not its OPP's busy power. */
static void energy_idle_wfi_without_cpuidle(struct ktest *t)
{
	struct pinned p = { .fn = nothing };
	unsigned int cpu = 0;
	const struct topology_freq_domain *fd;
	const struct topology_opp_table *ot;
	bool was = cpuidle_enabled();
	u64 mv, khz, expect_uw, got_uw, e0, t0, e1, t1;

	for (unsigned int c = 1; c < nr_cpu_ids; c++)
		if (cpu_online(c))
			cpu = c;
	fd = &cpu_topology.freq_domain[cpu_topology.cpu[cpu].freq_domain];
	if (!cpu || !fd->power_coeff || fd->opp_table < 0)
		KTEST_SKIP(t, "no second CPU, or no energy model");
	ot = &cpu_topology.opp_table[fd->opp_table];
	cpuidle_set_enabled(false);
	ASSERT_TRUE(t, run_on(cpu, &p)); /* it idles again with the states off */
	msleep(1);
	e0 = energy_cpu_uj(cpu);
	t0 = arch_clock_ns();
	msleep(50);
	e1 = energy_cpu_uj(cpu);
	t1 = arch_clock_ns();
	cpuidle_set_enabled(was);
	mv = ot->opp[0].microvolt / 1000;
	khz = ot->opp[0].freq_khz;
	expect_uw = fd->power_coeff * mv * mv * khz / 1000000000ull * ENERGY_WFI_PERMILLE / 1000;
	got_uw = (e1 - e0) * 1000000000ull / (t1 - t0);
	ktest_diag(t, "cpu%u idle in plain WFI: %llu uW, WFI's %llu uW", cpu,
		   (unsigned long long)got_uw, (unsigned long long)expect_uw);
	EXPECT_LT(t, got_uw * 100, expect_uw * 105);
	EXPECT_GT(t, got_uw * 100, expect_uw * 95);
}

KTEST_SUITE(cpuidle, KTEST_CASE(cpuidle_long_idle_deepest),
	    KTEST_CASE(cpuidle_timer_100us_stays_wfi),
	    KTEST_CASE(cpuidle_cluster_only_when_all_idle),
	    KTEST_CASE(cpuidle_wakeup_pays_exit_latency),
	    /* last of the idle cases: it leaves two CPUs of the cluster with a history
	     * of short idles, which menu takes some ticks to forget */
	    KTEST_CASE(cpuidle_teo_pingpong_stays_wfi),
	    KTEST_CASE(cpuidle_pingpong_keeps_cluster_on), KTEST_CASE(energy_little_at_fmax),
	    KTEST_CASE(energy_idle_wfi_without_cpuidle));
