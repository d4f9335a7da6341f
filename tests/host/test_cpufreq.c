/* test_cpufreq.c - host tests of kernel/sched/cpufreq_math.c: OPP picks on
 * the HiKey960 tables (the numbers, worked out by hand from
 * 1.25 x f_max x util / cap), the shared-policy maximum, the rate limit,
 * RT_UTIL_TRACKING off and on, the statistics. Pure functions only. */
#include "cpufreq.h"
#include "ktest.h"

static const u32 a53[] = { 533000, 999000, 1402000, 1709000, 1844000 };
static const u32 a73[] = { 903000, 1421000, 1805000, 2112000, 2362000 };
#define A53_CAP 462
#define A73_CAP 1024

static u32 pick(const u32 *f, unsigned long cap, unsigned long util)
{
	struct sugov_cpu_util u = { .cfs = util, .cap = cap };

	return sugov_next_freq_shared(&u, 1, true, f, 5);
}

static void cpufreq_hikey_a53_picks(struct ktest *t)
{
	EXPECT_EQ(t, pick(a53, A53_CAP, 0), 533000);
	EXPECT_EQ(t, pick(a53, A53_CAP, 100), 533000);	/* 498917 kHz asked */
	EXPECT_EQ(t, pick(a53, A53_CAP, 200), 999000);	/* 997835 */
	EXPECT_EQ(t, pick(a53, A53_CAP, 300), 1709000); /* 1496753 */
	EXPECT_EQ(t, pick(a53, A53_CAP, 369), 1844000); /* 1840008 */
	EXPECT_EQ(t, pick(a53, A53_CAP, 400), 1844000);
	EXPECT_EQ(t, pick(a53, A53_CAP, 462), 1844000);
}

static void cpufreq_hikey_a73_picks(struct ktest *t)
{
	for (unsigned long u = 0; u <= 313; u++)
		EXPECT_EQ(t, pick(a73, A73_CAP, u), 903000); /* 313: 391 -> 901896 */
	EXPECT_EQ(t, pick(a73, A73_CAP, 314), 1421000);
	EXPECT_EQ(t, pick(a73, A73_CAP, 512), 1805000); /* 1476250 */
	EXPECT_EQ(t, pick(a73, A73_CAP, 700), 2112000); /* 2018310 */
	EXPECT_EQ(t, pick(a73, A73_CAP, 818), 2362000); /* 1022 -> 2357386 > 2112000 */
	for (unsigned long u = 819; u <= 1024; u++)
		EXPECT_EQ(t, pick(a73, A73_CAP, u), 2362000);
}

static void cpufreq_resolve_and_formula(struct ktest *t)
{
	EXPECT_EQ(t, cpufreq_resolve_index(a73, 5, 0), 0);
	EXPECT_EQ(t, cpufreq_resolve_index(a73, 5, 903000), 0);
	EXPECT_EQ(t, cpufreq_resolve_index(a73, 5, 903001), 1);
	EXPECT_EQ(t, cpufreq_resolve_index(a73, 5, 9000000), 4); /* above: the top */
	EXPECT_EQ(t, map_util_perf(1024), 1280);
	EXPECT_EQ(t, map_util_perf(7), 8); /* 7 + 7 / 4, truncated */
	EXPECT_EQ(t, map_util_freq(1280, 2362000, 1024), 2952500);
	EXPECT_EQ(t, map_util_freq(0, 2362000, 1024), 0);
}

/* Issue 33, item 1: Linux 6.1.192's get_next_freq() takes the headroom on util
 * (map_util_perf(), then map_util_freq() = f_max x util / cap), so at OPP edges it
 * asks for a lower OPP than the pre-5.14 (f_max + f_max / 4) x util / cap:
 *   big util 493:    493 + 123 = 616; 2362000 x 616 / 1024 = 1420890 <= 1421000 -> 1421 MHz
 *                    (pre-5.14: 2952500 x 493 / 1024 = 1421467 -> 1805 MHz)
 *   LITTLE util 107: 107 + 26 = 133;  1844000 x 133 / 462 = 530848 <= 533000   -> 533 MHz
 *                    (pre-5.14: 2305000 x 107 / 462 = 533841 -> 999 MHz)
 *   LITTLE util 343: 343 + 85 = 428;  1844000 x 428 / 462 = 1708294 <= 1709000 -> 1709 MHz
 *                    (pre-5.14: 2305000 x 343 / 462 = 1711287 -> 1844 MHz)
 * and one step further each asks the next OPP up (494: 617 -> 1423197 -> 1805 MHz;
 * 108: 135 -> 538831 -> 999 MHz; 344: 430 -> 1716277 -> 1844 MHz). */
static void cpufreq_headroom_on_util(struct ktest *t)
{
	EXPECT_EQ(t, pick(a73, A73_CAP, 493), 1421000);
	EXPECT_EQ(t, pick(a53, A53_CAP, 107), 533000);
	EXPECT_EQ(t, pick(a53, A53_CAP, 343), 1709000);
	EXPECT_EQ(t, pick(a73, A73_CAP, 494), 1805000);
	EXPECT_EQ(t, pick(a53, A53_CAP, 108), 999000);
	EXPECT_EQ(t, pick(a53, A53_CAP, 344), 1844000);
}

/* The policy follows its busiest CPU; the others do not pull it down. */
static void cpufreq_shared_policy_max(struct ktest *t)
{
	struct sugov_cpu_util u[4] = {
		{ .cfs = 10, .cap = A73_CAP },
		{ .cfs = 700, .cap = A73_CAP },
		{ .cfs = 0, .cap = A73_CAP },
		{ .cfs = 400, .cap = A73_CAP },
	};

	EXPECT_EQ(t, sugov_next_freq_shared(u, 4, true, a73, 5), 2112000);
	u[1].cfs = 100;
	EXPECT_EQ(t, sugov_next_freq_shared(u, 4, true, a73, 5), 1421000); /* 400 leads: 1153320 */
	u[2].rt_runnable = true;
	EXPECT_EQ(t, sugov_next_freq_shared(u, 4, true, a73, 5), 2362000);
}

/* Linux 6.1: latency_us x 1000 capped at 10 ms; HiKey960's 300 us gives 10 ms. */
static void cpufreq_rate_limit(struct ktest *t)
{
	u64 ms = 1000000;

	EXPECT_EQ(t, cpufreq_transition_delay_us(300000), 10000);
	EXPECT_EQ(t, cpufreq_transition_delay_us(5000), 5000);
	EXPECT_EQ(t, cpufreq_transition_delay_us(0), 1000);
	EXPECT_EQ(t, cpufreq_transition_delay_us(999), 1000); /* < 1 us counts as none */
	EXPECT_FALSE(t, sugov_should_update(100 * ms + 9 * ms, 100 * ms, 10 * ms, false));
	EXPECT_TRUE(t, sugov_should_update(110 * ms, 100 * ms, 10 * ms, false));
	EXPECT_TRUE(t, sugov_should_update(101 * ms, 100 * ms, 10 * ms, true));
	EXPECT_FALSE(t, sugov_should_update(99 * ms, 100 * ms, 10 * ms, false)); /* clock skew */
}

/* Off: RT runnable -> cap, otherwise CFS alone. On: CFS + RT, IRQ scaled in. */
static void cpufreq_rt_util_tracking(struct ktest *t)
{
	struct sugov_cpu_util u = { .cfs = 400, .rt = 300, .irq = 0, .cap = 1024 };

	EXPECT_EQ(t, sugov_effective_util(&u, false), 400);
	EXPECT_EQ(t, sugov_effective_util(&u, true), 700);
	u.irq = 256; /* 700 x 768 / 1024 + 256 = 781 */
	EXPECT_EQ(t, sugov_effective_util(&u, true), 781);
	EXPECT_EQ(t, sugov_effective_util(&u, false), 400);
	u.rt = 700; /* cfs + rt >= cap */
	EXPECT_EQ(t, sugov_effective_util(&u, true), 1024);
	u.rt = 0;
	u.irq = 2000;
	EXPECT_EQ(t, sugov_effective_util(&u, true), 1024);
	u.irq = 0;
	u.rt_runnable = true;
	EXPECT_EQ(t, sugov_effective_util(&u, false), 1024);
	EXPECT_EQ(t, sugov_effective_util(&u, true), 1024);
	u.rt_runnable = false;
	u.cfs = 5000; /* clamped */
	EXPECT_EQ(t, sugov_effective_util(&u, false), 1024);
	/* E5's shape on an A73: CFS 512 + RT 512 keeps f_max only with tracking. */
	u = (struct sugov_cpu_util){ .cfs = 512, .rt = 512, .cap = 1024 };
	EXPECT_EQ(t, sugov_next_freq_shared(&u, 1, true, a73, 5), 2362000);
	EXPECT_EQ(t, sugov_next_freq_shared(&u, 1, false, a73, 5), 1805000);
}

/* Linux 6.1 effective_cpu_util(FREQUENCY_UTIL): util_dl only decides
 * saturation (cfs + rt + dl >= cap -> cap); the DL request is cpu_bw_dl(),
 * added after the IRQ scaling. Off: CFS alone, DL unseen. */
static void cpufreq_dl_util(struct ktest *t)
{
	struct sugov_cpu_util u = { .cfs = 200, .dl = 100, .bw_dl = 512, .cap = 1024 };

	EXPECT_EQ(t, sugov_effective_util(&u, true), 712);  /* 200 + 512 */
	EXPECT_EQ(t, sugov_effective_util(&u, false), 200); /* CFS only */
	u.irq = 256;					    /* 200 x 768 / 1024 + 256 + 512 */
	EXPECT_EQ(t, sugov_effective_util(&u, true), 918);
	u.irq = 0;
	u.cfs = 500;
	u.dl = 600; /* cfs + dl >= cap: saturated */
	EXPECT_EQ(t, sugov_effective_util(&u, true), 1024);
	u = (struct sugov_cpu_util){ .cfs = 0, .dl = 50, .bw_dl = 600, .cap = 1024 };
	EXPECT_EQ(t, sugov_effective_util(&u, true), 600);
	/* 600 x 1.25 x 2362 / 1024 = 1730 MHz -> the A73's 1805 MHz OPP */
	EXPECT_EQ(t, sugov_next_freq_shared(&u, 1, true, a73, 5), 1805000);
}

static void cpufreq_stats_bookkeeping(struct ktest *t)
{
	static struct cpufreq_stats s;

	cpufreq_stats_init(&s, a73, 5, 4, 1000);
	cpufreq_stats_transition(&s, 4, 2000); /* no change: not counted */
	EXPECT_EQ(t, s.total_trans, 0);
	cpufreq_stats_transition(&s, 0, 3000);
	cpufreq_stats_transition(&s, 4, 3500);
	cpufreq_stats_update(&s, 4000);
	EXPECT_EQ(t, s.total_trans, 2);
	EXPECT_EQ(t, s.trans_table[4][0], 1);
	EXPECT_EQ(t, s.trans_table[0][4], 1);
	EXPECT_EQ(t, s.time_in_state[4], 2500);
	EXPECT_EQ(t, s.time_in_state[0], 500);
	cpufreq_stats_reset(&s, 5000);
	EXPECT_EQ(t, s.total_trans, 0);
	EXPECT_EQ(t, s.time_in_state[4], 0);
	cpufreq_stats_update(&s, 6000);
	EXPECT_EQ(t, s.time_in_state[4], 1000); /* still counting the current OPP */
}

KTEST_SUITE(cpufreq_math, KTEST_CASE(cpufreq_hikey_a53_picks), KTEST_CASE(cpufreq_hikey_a73_picks),
	    KTEST_CASE(cpufreq_resolve_and_formula), KTEST_CASE(cpufreq_headroom_on_util),
	    KTEST_CASE(cpufreq_shared_policy_max), KTEST_CASE(cpufreq_rate_limit),
	    KTEST_CASE(cpufreq_rt_util_tracking), KTEST_CASE(cpufreq_dl_util),
	    KTEST_CASE(cpufreq_stats_bookkeeping));
