/* test_energy.c - EAS (kernel/sched/fair_energy.c) against Linux 6.1's rules on HiKey960's
 * energy model, with the expected energies worked out by hand below from the device tree's
 * facts (dynamic-power-coefficient 110 / 550, the OPPs of dts/hikey960-opp.dtsi) and Linux's
 * formulas, not from our code: em_cpu_energy(), compute_energy() through a domain's
 * utilizations, when EAS turns on, and the root domain's overutilized flag.
 * Also the fake cpufreq the harness machine has (cpufreq.c is not linked in the host tests). */
#include "../../kernel/sched/sched_internal.h"
#include "arch_topology.h"
#include "eas_model.h"
#include "fake_arch.h"
#include "sched_harness.h"

/* ---- a fake cpufreq: a policy per frequency domain, one governor for all ---------------- */

static const char *fake_governor = "performance";

int cpufreq_policy_of(unsigned int cpu)
{
	return cpu < (unsigned int)cpu_topology.nr_cpus ? cpu_topology.cpu[cpu].freq_domain : -1;
}

const char *cpufreq_governor_name(int policy)
{
	return fake_governor;
}

static void set_governor(const char *gov)
{
	fake_governor = gov;
	sched_energy_update();
}

/*
 * HiKey960's energy model by hand. Linux (drivers/opp/of.c, _get_power()):
 * power_uW = C x mV^2 x MHz / 10^6; em_create_perf_table(): cost = power x f_max / f.
 *   LITTLE (C 110, f_max 1844 MHz, capacity 462):
 *     533 MHz 700 mV: 110 x 490000 x 533 / 1e6 = 28728 uW, cost 28728 x 1844 / 533 = 99389
 *     999 MHz 800 mV: 110 x 640000 x 999 / 1e6 = 70329,    cost x 1844 / 999    = 129816
 *    1402 MHz 900 mV: 124918, cost 164300; 1709 MHz 1 V: 187990, cost 202840
 *    1844 MHz 1.1 V: 110 x 1210000 x 1844 / 1e6 = 245436, cost 245436
 *   big (C 550, f_max 2362 MHz, capacity 1024):
 *     903 MHz 700 mV: 550 x 490000 x 903 / 1e6 = 243358, cost 243358 x 2362 / 903 = 636557
 *    1805 MHz 900 mV: 550 x 810000 x 1805 / 1e6 = 804127, cost x 2362 / 1805 = 1052270
 * em_cpu_energy(): util' = min(1.25 x max_util, allowed), f = f_max x util' / scale, the
 * lowest OPP >= f, energy = cost x sum_util / scale (integer division at each step).
 */
static const struct topology_freq_domain *pd_of(struct ktest *t, int cpu)
{
	const struct topology_freq_domain *pd =
		&cpu_topology.freq_domain[cpu_topology.cpu[cpu].freq_domain];

	EXPECT_EQ(t, pd->nr_perf_states, 5);
	return pd;
}

static void em_cpu_energy_hikey960(struct ktest *t)
{
	const struct topology_freq_domain *little, *big;

	if (!machine_up(t))
		return;
	little = pd_of(t, 0);
	big = pd_of(t, 4);
	/* 100 -> 125, f = 1844000 x 125 / 462 = 498917 -> 533 MHz; 99389 x 150 / 462 */
	EXPECT_EQ(t, em_cpu_energy(little, 100, 150, 462, 462), 32269);
	/* 300 -> 375, f = 1496753 -> 1709 MHz; 202840 x 400 / 462 = 175619 */
	EXPECT_EQ(t, em_cpu_energy(little, 300, 400, 462, 462), 175619);
	/* 400 -> 500, capped at 462: f_max; 245436 x 800 / 462 = 424997 */
	EXPECT_EQ(t, em_cpu_energy(little, 400, 800, 462, 462), 424997);
	/* 200 -> 250, f = 2362000 x 250 / 1024 = 576660 -> 903 MHz; 636557 x 200 / 1024 */
	EXPECT_EQ(t, em_cpu_energy(big, 200, 200, 1024, 1024), 124327);
	/* 600 -> 750, f = 1729980 -> 1805 MHz; 1052270 x 1000 / 1024 = 1027607 */
	EXPECT_EQ(t, em_cpu_energy(big, 600, 1000, 1024, 1024), 1027607);
	EXPECT_EQ(t, em_cpu_energy(big, 600, 0, 1024, 1024), 0); /* nothing runs: nothing spent */
	machine_ok(t);
}

/* Every CPU's utilization set (CFS util_avg, no util_est, no RT or IRQ time). */
static void set_cpu_utils(const unsigned long *util)
{
	for (int cpu = 0; cpu < NR_HIKEY_CPUS; cpu++) {
		struct rq *rq = cpu_rq(cpu);

		rq->cfs.avg.util_avg = util[cpu];
		rq->cfs.avg.util_est.enqueued = 0;
		rq->avg_rt.util_avg = rq->avg_irq.util_avg = 0;
	}
}

/* Linux 6.1 compute_energy() for a waking task of util 100 (on no CPU yet): LITTLE CPU 1
 * has util 200, the rest 0.
 *   LITTLE without p: busy 200, max 200 -> 250, f = 997835 -> 999 MHz:
 *     129816 x 200 / 462 = 56197
 *   p on CPU 0: busy 300, max still 200 (999 MHz): 129816 x 300 / 462 = 84296, delta 28099
 *   p on CPU 1: busy 300, max 300 -> 375, f = 1496753 -> 1709 MHz:
 *     202840 x 300 / 462 = 131714, delta 75517 (the busier CPU raises the domain's OPP)
 *   big without p: 0; p on CPU 4: max 100 -> 125, f = 288330 -> 903 MHz:
 *     636557 x 100 / 1024 = 62163
 * so find_energy_efficient_cpu() picks CPU 0 (prev CPU 6, idle: its delta is CPU 4's). */
static void compute_energy_hikey960(struct ktest *t)
{
	static const unsigned long util[NR_HIKEY_CPUS] = { 0, 200 };
	struct task_struct *p;
	u64 base;

	if (!machine_up(t))
		return;
	p = task_new("wakee", ALL_CPUS, 0);
	p->se.avg.util_avg = 100;
	p->se.avg.util_est = (struct util_est){ 0, 0 };
	p->cpu = -1;
	set_cpu_utils(util);
	EXPECT_EQ(t, sched_energy_delta(0, p, 0, &base), 28099);
	EXPECT_EQ(t, base, 56197);
	EXPECT_EQ(t, sched_energy_delta(0, p, 1, &base), 75517);
	EXPECT_EQ(t, sched_energy_delta(1, p, 4, &base), 62163);
	EXPECT_EQ(t, base, 0);
	set_governor("schedutil");
	ASSERT_TRUE(t, sched_energy_enabled());
	p->cpu = 6;
	p->se.avg.last_update_time = cpu_rq(6)->cfs.avg.last_update_time; /* nothing to decay */
	set_cpu_utils(util);
	fake_arch_set_cpu(6);
	EXPECT_EQ(t, find_energy_efficient_cpu(p, 6), 0);
	set_governor("performance");
	machine_ok(t);
}

/* ---- issue 33: find_energy_efficient_cpu() as Linux 6.1.192 (Debian's linux-source-6.1)
 * has it. Each case: one waking task p, sleeping on prev_cpu (its blocked util is that
 * CPU's util_avg), every other CPU idle with util 0, no util_est, the waker on prev_cpu,
 * schedutil on both policies. Energies from the EM costs above, plus
 *   big 2362 MHz 1.1 V: 550 x 1210000 x 2362 / 1e6 = 1571911 (cost = power at f_max)
 * Read in 6.1.192's fair.c: feec() keeps per domain prev_spare_cap / max_spare_cap as
 * longs starting at -1 (so a CPU with 0 spare capacity is a candidate), ranks candidates
 * by util_fits_cpu() (1 before -1), and picks best_energy_cpu when it fits better than
 * prev (best_fits > prev_fits), or both fit and its delta is strictly lower, or neither
 * fits uclamp.min and it is bigger. Its early exit is `!task_util_est(p) && p_util_min
 * == 0`. */

/* p (util `util`, clamps umin/umax) sleeping on prev; the waker on prev too. */
static struct task_struct *feec_task(unsigned long util, unsigned int umin, unsigned int umax,
				     int prev)
{
	struct task_struct *p = task_new("wakee", ALL_CPUS, 0);
	unsigned long u[NR_HIKEY_CPUS] = { 0 };

	uclamp_host_reset();
	uclamp_set_request(p, umin, umax); /* uclamp is used from here on */
	p->se.avg.util_avg = util;
	p->se.avg.util_est = (struct util_est){ 0, 0 };
	p->cpu = prev;
	u[prev] = util;
	set_cpu_utils(u);
	p->se.avg.last_update_time = cpu_rq(prev)->cfs.avg.last_update_time; /* no decay */
	fake_arch_set_cpu(prev);
	return p;
}

/* Item 2: uclamp.min 1024, util 300, prev LITTLE CPU 0.
 *   big CPUs 4-7: util 300 fits 1024 (300 x 1.25 < 1024); uclamp.min 1024 is not above
 *     capacity_orig 1024: util_fits_cpu() = 1; spare 724; candidate CPU 4.
 *     p on 4: uclamp_rq_util_with(rq4, 300, p) on an idle rq = p's clamps, min >= max: 1024
 *     -> effective util 1024 (saturated): map_util_perf 1280, capped at 1024 -> 2362 MHz;
 *     delta 1571911 x 300 / 1024 = 460520 (base 0)
 *   LITTLE CPUs 0-3: util 300 fits 462 (375 < 462), but uclamp.min 1024 > 462: -1;
 *     prev (0): spare 162, prev_fits -1; p on 0: util 1024 -> capped 462 -> 1844 MHz,
 *     delta 245436 x 300 / 462 = 159374; CPU 1's spare 162 is not > prev's: not evaluated
 *   best_fits 1 > prev_fits -1: CPU 4, where p fits (no misfit), although LITTLE costs less.
 * Treating -1 as a plain fit (before) chose CPU 0 by energy, marked p misfit there, and
 * cpu_overutilized(0) stayed false (!util_fits_cpu() of -1): the balancer stayed gated. */
static void feec_uclamp_min_prefers_full_fit(struct ktest *t)
{
	struct task_struct *p;

	if (!machine_up(t))
		return;
	set_governor("schedutil");
	ASSERT_TRUE(t, sched_energy_enabled());
	p = feec_task(300, 1024, 1024, 0);
	EXPECT_EQ(t, util_fits_cpu(300, 1024, 1024, 0), -1);
	EXPECT_EQ(t, util_fits_cpu(300, 1024, 1024, 4), 1);
	EXPECT_EQ(t, find_energy_efficient_cpu(p, 0), 4);
	EXPECT_TRUE(t, task_fits_cpu(p, 4));
	set_governor("performance");
	uclamp_host_reset();
	machine_ok(t);
}

/* Item 3: uclamp.max 300, util 462, prev LITTLE CPU 0.
 *   big CPUs 4-7: util 462 fits 1024: 1, spare 562; p on 4: clamp(462, 0, 300) = 300,
 *     map_util_perf 375, f = 2362000 x 375 / 1024 = 864990 -> 903 MHz;
 *     delta 636557 x 462 / 1024 = 287196 (base 0)
 *   LITTLE CPUs 0-3: util 462 does not fit 462, but uclamp.max 300 <= 462: 1, spare
 *     462 - 462 = 0 for every one; prev (0) is a candidate at spare 0; p on 0: 300 -> 375,
 *     f = 1844000 x 375 / 462 = 1496753 -> 1709 MHz, delta 202840 x 462 / 462 = 202840;
 *     CPU 1's spare 0 is not > prev's 0: not evaluated
 *   both fit (1, 1), 287196 is not below 202840: prev, CPU 0.
 * Before, a spare capacity of 0 was never a candidate: the LITTLE domain was skipped and
 * p went to CPU 4. (The issue quotes 287198 for the big delta; by hand it is 287196.) */
static void feec_zero_spare_is_candidate(struct ktest *t)
{
	struct task_struct *p;
	u64 base;

	if (!machine_up(t))
		return;
	set_governor("schedutil");
	ASSERT_TRUE(t, sched_energy_enabled());
	p = feec_task(462, 0, 300, 0);
	EXPECT_EQ(t, sched_energy_delta(0, p, 0, &base), 202840);
	EXPECT_EQ(t, sched_energy_delta(1, p, 4, &base), 287196);
	EXPECT_EQ(t, find_energy_efficient_cpu(p, 0), 0);
	set_governor("performance");
	uclamp_host_reset();
	machine_ok(t);
}

/* Item 4, the early exit: uclamp.max 0, util 200, prev big CPU 4. task_util_est(p) is 200,
 * so 6.1.192 does not exit early (uclamp_task_util(p) == 0, the 6.2 rule, did).
 *   big: prev (4): util 200 fits, spare 824; p on 4: clamp(200, 0, 0): min >= max -> 0,
 *     903 MHz, delta 636557 x 200 / 1024 = 124327; CPU 5's spare 824 is not > 824
 *   LITTLE: CPU 0: util 200 fits 462 (250 < 462): 1, spare 262; p on 0: 0 -> 533 MHz,
 *     delta 99389 x 200 / 462 = 43025
 *   both fit, 43025 < 124327: CPU 0. */
static void feec_uclamp_max_0_still_placed(struct ktest *t)
{
	struct task_struct *p;

	if (!machine_up(t))
		return;
	set_governor("schedutil");
	ASSERT_TRUE(t, sched_energy_enabled());
	p = feec_task(200, 0, 0, 4);
	EXPECT_EQ(t, find_energy_efficient_cpu(p, 4), 0);
	set_governor("performance");
	uclamp_host_reset();
	machine_ok(t);
}

/* Item 4, the prev-CPU gate under IRQ pressure: util 350, uclamp.max 300, prev LITTLE
 * CPU 0 with avg_irq 120: capacity_of(0) = 462 x (462 - 120) / 462 = 342 < 350, so p fits
 * CPU 0 only through uclamp.max and its spare capacity is 0 - still a candidate in 6.1.192.
 *   task_busy_time = 350 x (462 - 120) / 462 = 259 (prev's IRQ scaling)
 *   big: CPU 4: spare 674; p on 4: clamp 300 -> 903 MHz, delta 636557 x 259 / 1024 = 161004
 *   LITTLE: pd_busy = CPU 0's IRQ, 120; base: max util 120 -> 150, f = 598701 -> 999 MHz,
 *     129816 x 120 / 462 = 33718
 *     p on 0 (prev): 300 x 342 / 462 + 120 = 342 -> 427, f = 1704303 -> 1709 MHz,
 *       202840 x (120 + 259) / 462 = 166399, delta 132681
 *     p on 1 (spare 462 - 350 = 112 > 0): max(120, 300) = 300 -> 1709 MHz, the same
 *       132681: not below the best (132681), skipped
 *   prev's delta is the best; no other is strictly lower: CPU 0.
 * Before, prev's spare 0 made it no candidate and CPU 1 won (132681 < 161004). */
static void feec_prev_zero_spare_under_irq(struct ktest *t)
{
	struct task_struct *p;

	if (!machine_up(t))
		return;
	set_governor("schedutil");
	ASSERT_TRUE(t, sched_energy_enabled());
	p = feec_task(350, 0, 300, 0);
	cpu_rq(0)->avg_irq.util_avg = 120;
	update_cpu_capacity(cpu_rq(0));
	EXPECT_EQ(t, capacity_of(0), 342);
	EXPECT_EQ(t, find_energy_efficient_cpu(p, 0), 0);
	cpu_rq(0)->avg_irq.util_avg = 0;
	update_cpu_capacity(cpu_rq(0));
	set_governor("performance");
	uclamp_host_reset();
	machine_ok(t);
}

/* Linux 6.1's sched_energy_enabled() conditions: schedutil on every policy, the sysctl
 * (our EAS feature); the reason is kept for the shell. */
static void eas_enabled_conditions(struct ktest *t)
{
	if (!machine_up(t))
		return;
	EXPECT_FALSE(t, sched_energy_enabled()); /* the fake's performance governor */
	EXPECT_TRUE(t, !strncmp(sched_energy_reason(), "policy0 governor performance", 28));
	set_governor("schedutil");
	EXPECT_TRUE(t, sched_energy_enabled());
	ASSERT_EQ(t, sched_feat_set("NO_EAS"), 0);
	EXPECT_FALSE(t, sched_energy_enabled());
	EXPECT_TRUE(t, !strncmp(sched_energy_reason(), "NO_EAS", 6));
	ASSERT_EQ(t, sched_feat_set("EAS"), 0);
	EXPECT_TRUE(t, sched_energy_enabled());
	set_governor("performance");
	EXPECT_FALSE(t, sched_energy_enabled());
	machine_ok(t);
}

static bool rd_overutilized(void *arg)
{
	return sched_overutilized();
}

/* Linux 6.1: a CPU is overutilized when its CFS util does not fit 80 % of its capacity
 * (462 x 0.8: util 370 on a LITTLE CPU); the tick sets the root domain's flag, a load-balance
 * pass at the root level that finds no such CPU clears it. A hog on LITTLE CPU 0 starts at
 * half the spare capacity (231) and crosses 370 after ~9 ms of PELT time (x 462/1024 of
 * wall time there: ~20 ms). */
static void overutilized_set_by_tick_cleared_by_balance(struct ktest *t)
{
	struct task_struct *h;

	if (!machine_up(t))
		return;
	set_governor("schedutil");
	ASSERT_TRUE(t, sched_energy_enabled());
	EXPECT_FALSE(t, sched_overutilized());
	h = hog(0);
	run_for(5 * MS);
	EXPECT_FALSE(t, sched_overutilized());
	for (u64 end = fake_arch_now() + 100 * MS; !rd_overutilized(NULL) && fake_arch_now() < end;)
		run_for(TICK_NSEC / 4);
	EXPECT_TRUE(t, sched_overutilized());
	EXPECT_TRUE(t, cpu_overutilized(0));
	ASSERT_TRUE(t, task_sleep(t, h));
	/* A balance pass while CPU 0's util is still high keeps the flag. */
	fake_arch_set_cpu(4);
	sched_lb_pass_cost_ns(1);
	EXPECT_TRUE(t, sched_overutilized());
	/* Decayed (blocked util halves every 32 ms), the next root-level pass clears it. */
	run_for(200 * MS);
	fake_arch_set_cpu(0);
	{
		unsigned long flags = spin_lock_irqsave(&cpu_rq(0)->lock);

		update_blocked_averages(cpu_rq(0));
		spin_unlock_irqrestore(&cpu_rq(0)->lock, flags);
	}
	EXPECT_FALSE(t, cpu_overutilized(0));
	fake_arch_set_cpu(4);
	sched_lb_pass_cost_ns(1);
	EXPECT_FALSE(t, sched_overutilized());
	/* EAS off: no CPU counts as overutilized (Linux >= 6.9; the flag is not read then). */
	set_governor("performance");
	machine_ok(t);
}

/* E6's judge (kernel/bench/eas_model.c) on HiKey960's EM, by hand: a domain runs at the
 * lowest OPP whose capacity (scale x f / f_max) holds its busiest CPU; power = cost x
 * sum(util) / scale; the optimum over all placements that overload no CPU.
 *   one task of 231: on LITTLE, 462 x f / 1844 >= 231 -> 999 MHz: 129816 x 231 / 462 = 64908
 *     (on big: 903 MHz, 636557 x 231 / 1024 = 143598)
 *   two of 819: one per big CPU (together: 1638 > 1024; on LITTLE: 819 > 462), f >= 1889 MHz
 *     -> 2112 MHz: 1299100 x 1638 / 1024 = 2078052
 *   two of 300: one per LITTLE CPU, f >= 1197 MHz -> 1402 MHz: 164300 x 600 / 462 = 213376;
 *     both on CPU 4 (600 -> 1421 MHz): 831424 x 600 / 1024 = 487162 */
static void eas_model_optimal_placement(struct ktest *t)
{
	static const unsigned long one[] = { 231 }, big[] = { 819, 819 }, two[] = { 300, 300 };
	static const int both_on_4[] = { 4, 4 };
	int best[2] = { -1, -1 };

	if (!machine_up(t))
		return;
	EXPECT_EQ(t, eas_optimal_power(&cpu_topology, ALL_CPUS, one, 1, best), 64908);
	EXPECT_LT(t, best[0], 4); /* a LITTLE CPU */
	EXPECT_EQ(t, eas_placement_power(&cpu_topology, ALL_CPUS, one, (const int[]){ 5 }, 1),
		  143598);
	EXPECT_EQ(t, eas_optimal_power(&cpu_topology, ALL_CPUS, big, 2, best), 2078052);
	EXPECT_TRUE(t, best[0] >= 4 && best[1] >= 4 && best[0] != best[1]);
	EXPECT_EQ(t, eas_optimal_power(&cpu_topology, ALL_CPUS, two, 2, best), 213376);
	EXPECT_TRUE(t, best[0] < 4 && best[1] < 4 && best[0] != best[1]);
	EXPECT_EQ(t, eas_placement_power(&cpu_topology, ALL_CPUS, two, both_on_4, 2), 487162);
	machine_ok(t);
}

KTEST_SUITE(sched_energy, KTEST_CASE(eas_model_optimal_placement),
	    KTEST_CASE(em_cpu_energy_hikey960), KTEST_CASE(compute_energy_hikey960),
	    KTEST_CASE(eas_enabled_conditions), KTEST_CASE(feec_uclamp_min_prefers_full_fit),
	    KTEST_CASE(feec_zero_spare_is_candidate), KTEST_CASE(feec_uclamp_max_0_still_placed),
	    KTEST_CASE(feec_prev_zero_spare_under_irq),
	    KTEST_CASE(overutilized_set_by_tick_cleared_by_balance));
