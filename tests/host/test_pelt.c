/* test_pelt.c - host tests of kernel/sched/pelt.c and its generated table.
 * Expected values come from the series itself, in doubles (closed forms of the
 * geometric sums, y = 2^(-1/32)) or from Linux's published numbers, never from
 * the code under test. Tolerances are the integer arithmetic's floors, stated
 * case by case. Host-only (doubles); no libm: the link has none. */
#include "ktest.h"
#include "pelt.h"

#define PERIOD_NS     (1024ull * 1024) /* one PELT period: 1024 units of 1024 ns */
#define MS	      1000000ull
#define NICE_0_WEIGHT 1024 /* scale_load_down(NICE_0_LOAD) */

/* 2^-x for x >= 0: whole halvings times a Taylor series of e^(-f ln 2). */
static double exp2_neg(double x)
{
	int k = (int)x;
	double t = -(x - k) * 0.6931471805599453, term = 1, sum = 1;

	for (int i = 1; i < 25; i++) {
		term *= t / i;
		sum += term;
	}
	while (k--)
		sum *= 0.5;
	return sum;
}

/* y^n, n in periods (any real n >= 0) */
static double y_pow(double n)
{
	return exp2_neg(n / 32.0);
}

/* ---- the generated table ------------------------------------------------ */

static void table_matches_linux(struct ktest *t)
{
	/* Linux's kernel/sched/sched-pelt.h, as published */
	EXPECT_EQ(t, runnable_avg_yN_inv[0], 0xffffffffu);
	EXPECT_EQ(t, runnable_avg_yN_inv[1], 0xfa83b2dau);
	EXPECT_EQ(t, runnable_avg_yN_inv[2], 0xf5257d14u);
	EXPECT_EQ(t, runnable_avg_yN_inv[16], 0xb504f333u); /* 2^32 / sqrt(2) */
	EXPECT_EQ(t, runnable_avg_yN_inv[25], 0x94f4efa8u);
	EXPECT_EQ(t, runnable_avg_yN_inv[31], 0x82cd8698u);
	EXPECT_EQ(t, ARRAY_SIZE(runnable_avg_yN_inv), 32);
	EXPECT_EQ(t, LOAD_AVG_PERIOD, 32);
	EXPECT_EQ(t, LOAD_AVG_MAX, 47742);
	EXPECT_EQ(t, LOAD_AVG_MAX_N, 345);
}

static void table_is_the_series(struct ktest *t)
{
	for (int n = 0; n < 32; n++)
		EXPECT_NEAR(t, runnable_avg_yN_inv[n], 4294967295.0 * y_pow(n), 1);

	/* LOAD_AVG_MAX: the fixed point of s = s*y + 1024 with the integer
	 * decay, a little under the float series' 1024 / (1 - y). */
	u64 s = 1024, last = 0;
	while (s != last) {
		last = s;
		s = ((s * runnable_avg_yN_inv[1]) >> 32) + 1024;
	}
	EXPECT_EQ(t, s, LOAD_AVG_MAX);
	double series = 1024 / (1 - y_pow(1));
	EXPECT_LT(t, LOAD_AVG_MAX, series);
	EXPECT_GT(t, LOAD_AVG_MAX, series * 0.998);
}

/* ---- decay_load ---------------------------------------------------------- */

static void decay_half_life(struct ktest *t)
{
	/* y^32 = 1/2. Exactly, Linux's decay_load(1024, 32) is 511: the shift
	 * halves to 512, then y^0 is the table's (2^32 - 1) / 2^32, floored. */
	EXPECT_NEAR(t, decay_load(1024, 32), 512, 1);
	EXPECT_EQ(t, decay_load(1024, 32), 511);
	EXPECT_NEAR(t, decay_load(1024, 64), 256, 1);
	/* wide values: to 2^-32 relative, the precision of the table */
	EXPECT_NEAR(t, decay_load(1ull << 40, 32), 1ull << 39, (1ull << 39) >> 31);
}

static void decay_points(struct ktest *t)
{
	static const unsigned int n[] = { 0, 1, 31, 63, 64, 100, 345, 1000 };

	for (size_t i = 0; i < ARRAY_SIZE(n); i++)
		EXPECT_NEAR(t, decay_load(1024, n[i]), 1024 * y_pow(n[i]), 1);
	EXPECT_NEAR(t, decay_load(LOAD_AVG_MAX, 1), LOAD_AVG_MAX * y_pow(1), 1);
}

static void decay_wide_values(struct ktest *t)
{
	/* The 64 x 32-bit multiply keeps 64-bit values to ~2^-32 relative. */
	const u64 v = 0x0123456789abcdefull;

	for (unsigned int n = 0; n < 200; n += 7) {
		double want = (double)v * y_pow(n);
		EXPECT_NEAR(t, decay_load(v, n), want, want * 1e-9 + 1);
	}
}

static void decay_to_zero(struct ktest *t)
{
	/* Past 63 half-lives even ~0 survives nothing. */
	EXPECT_EQ(t, decay_load(~0ull, LOAD_AVG_PERIOD * 63 + 1), 0);
	EXPECT_EQ(t, decay_load(~0ull, 64 * 32), 0);
	EXPECT_EQ(t, decay_load(~0ull, 1ull << 40), 0);
	EXPECT_EQ(t, decay_load(LOAD_AVG_MAX, LOAD_AVG_PERIOD * 63), 0);
	EXPECT_GT(t, decay_load(~0ull, LOAD_AVG_PERIOD * 62), 0);

	u64 prev = ~0ull;
	int monotonic = 1;
	for (unsigned int n = 0; n <= 2100; n++) {
		u64 d = decay_load(1ull << 62, n);
		monotonic &= d <= prev;
		prev = d;
	}
	EXPECT_TRUE(t, monotonic);
}

/* ---- the signal ---------------------------------------------------------- */

/* Advance an entity to `until`, updating every `tick` ns and at `until`,
 * in one state (running and queued, or sleeping). Returns the min and max of
 * util_avg seen after each update. */
static void run_until(struct sched_avg *sa, u64 until, bool running, u64 tick, unsigned long *min,
		      unsigned long *max)
{
	u64 now = sa->last_update_time;

	while (now < until) {
		now = (now / tick + 1) * tick;
		if (now > until)
			now = until;
		pelt_update_se(sa, now, running, running, running, NICE_0_WEIGHT);
		if (min && sa->util_avg < *min)
			*min = sa->util_avg;
		if (max && sa->util_avg > *max)
			*max = sa->util_avg;
	}
}

static void three_segments(struct ktest *t)
{
	/* One update from 300 units into a period to 100 units into the one
	 * 6 periods later: d1 = 724, d2 = 5 full periods, d3 = 100. */
	struct sched_avg sa = { 0 };
	const u64 t0 = 10 * PERIOD_NS + 300 * 1024;

	pelt_update_se(&sa, t0, true, true, true, NICE_0_WEIGHT);
	sa.util_sum = 0;
	sa.load_sum = 0;
	EXPECT_EQ(t, sa.period_contrib, 300);
	EXPECT_EQ(t,
		  pelt_update_se(&sa, t0 + (724 + 5 * 1024 + 100) * 1024 + 1000, true, true, true,
				 NICE_0_WEIGHT),
		  1);
	EXPECT_EQ(t, sa.period_contrib, 100);
	EXPECT_EQ(t, sa.last_update_time, t0 + (724 + 5 * 1024 + 100) * 1024);

	double c2 = 0;
	for (int n = 1; n <= 5; n++)
		c2 += 1024 * y_pow(n);
	double want = 724 * y_pow(6) + c2 + 100;
	/* c2 comes from LOAD_AVG_MAX, 0.1 % under the float series: ~6 units */
	EXPECT_NEAR(t, sa.util_sum >> SCHED_CAPACITY_SHIFT, want, 8);
	EXPECT_NEAR(t, sa.load_sum, want, 8);
	EXPECT_EQ(t, sa.util_avg, sa.util_sum / (PELT_MIN_DIVIDER + 100));
}

static void ns_units_and_no_period(struct ktest *t)
{
	struct sched_avg sa = { 0 };

	/* Under 1024 ns: nothing happens, not even to last_update_time. */
	EXPECT_EQ(t, pelt_update_se(&sa, 1023, true, true, true, NICE_0_WEIGHT), 0);
	EXPECT_EQ(t, sa.last_update_time, 0);
	/* 5000 ns = 4 units (+904 ns carried over); no boundary: no average. */
	EXPECT_EQ(t, pelt_update_se(&sa, 5000, true, true, true, NICE_0_WEIGHT), 0);
	EXPECT_EQ(t, sa.last_update_time, 4096);
	EXPECT_EQ(t, sa.period_contrib, 4);
	EXPECT_EQ(t, sa.util_sum, 4 << SCHED_CAPACITY_SHIFT);
	EXPECT_EQ(t, sa.util_avg, 0);
	/* A clock going backwards resyncs and accrues nothing. */
	EXPECT_EQ(t, pelt_update_se(&sa, 2048, true, true, true, NICE_0_WEIGHT), 0);
	EXPECT_EQ(t, sa.last_update_time, 2048);
	EXPECT_EQ(t, sa.util_sum, 4 << SCHED_CAPACITY_SHIFT);
}

/* An entity that always runs, from nothing: util_avg = 1024 (1 - y^n) after n
 * periods (the completed periods weigh y^1..y^n of a series whose whole sum is
 * the divider). Tolerance: floors of the integer decay, a few units. */
static void always_running(struct ktest *t)
{
	static const unsigned int periods[] = { 1, 32, 64, 345 };
	struct sched_avg sa = { 0 };

	for (size_t i = 0; i < ARRAY_SIZE(periods); i++) {
		run_until(&sa, periods[i] * PERIOD_NS, true, MS, NULL, NULL);
		double want = 1024 * (1 - y_pow(periods[i]));
		EXPECT_NEAR(t, sa.util_avg, want, 2);
		EXPECT_NEAR(t, sa.runnable_avg, want, 2);
		EXPECT_NEAR(t, sa.load_avg, want, 3);
		ktest_diag(t, "%u periods: util_avg %lu, series %.2f", periods[i], sa.util_avg,
			   want);
	}
	/* 345 periods: within 1/1024 of the top */
	EXPECT_GE(t, sa.util_avg, 1023);
	run_until(&sa, 2000 * PERIOD_NS, true, MS, NULL, NULL);
	EXPECT_LE(t, sa.util_avg, 1024);
	EXPECT_GE(t, sa.util_avg, 1023);
	/* LOAD_AVG_MAX_N periods of sleep and more than 63 half-lives: gone. */
	run_until(&sa, (2000 + 2017) * PERIOD_NS, false, 4017 * PERIOD_NS, NULL, NULL);
	EXPECT_EQ(t, sa.util_sum, 0);
	EXPECT_EQ(t, sa.load_sum, 0);
	EXPECT_EQ(t, sa.util_avg, 0);
}

/* A periodic task, run r then sleep p - r (in periods), at steady state:
 *   max = 1024 (1 - y^r) / (1 - y^p)   at the end of each run,
 *   min = max y^(p - r)                at the end of each sleep.
 * Updates every 1 ms (a tick) and at each transition. */
static void duty_cycle(struct ktest *t, u64 run_ns, u64 period_ns, double tol)
{
	struct sched_avg sa = { 0 };
	unsigned long min = ~0ul, max = 0;
	double r = (double)run_ns / PERIOD_NS, p = (double)period_ns / PERIOD_NS;
	double want_max = 1024 * (1 - y_pow(r)) / (1 - y_pow(p));
	double want_min = want_max * y_pow(p - r);

	for (u64 c = 0; c < 60; c++) { /* 60 cycles: y^(60 * 15) ~ 0, settled */
		bool measure = c >= 56;
		run_until(&sa, c * period_ns + run_ns, true, MS, NULL, measure ? &max : NULL);
		run_until(&sa, (c + 1) * period_ns, false, MS, measure ? &min : NULL, NULL);
	}
	ktest_diag(t, "run %llu / %llu ns: util_avg %lu..%lu, series %.1f..%.1f",
		   (unsigned long long)run_ns, (unsigned long long)period_ns, min, max, want_min,
		   want_max);
	EXPECT_NEAR(t, max, want_max, tol);
	EXPECT_NEAR(t, min, want_min, tol);
}

static void duty_cycle_25_aligned(struct ktest *t)
{
	duty_cycle(t, 4 * PERIOD_NS, 16 * PERIOD_NS, 2);
}

static void duty_cycle_50_aligned(struct ktest *t)
{
	duty_cycle(t, 8 * PERIOD_NS, 16 * PERIOD_NS, 2);
}

/* In ms the transitions fall inside periods, where PELT weighs a whole period
 * alike while the closed form decays continuously; measured 0.3 units apart. */
static void duty_cycle_25_ms(struct ktest *t)
{
	duty_cycle(t, 4 * MS, 16 * MS, 3);
}

static void duty_cycle_50_ms(struct ktest *t)
{
	duty_cycle(t, 8 * MS, 16 * MS, 3);
}

static void cfs_rq_and_rt(struct ktest *t)
{
	struct sched_avg rq = { 0 }, rt = { 0 };

	/* Two nice-0 tasks queued, one running, for 345 periods: load_avg at
	 * the queued weight, runnable_avg at 2 tasks, util_avg at 100 %. */
	for (u64 now = MS; now <= 345 * PERIOD_NS; now += MS) {
		pelt_update_cfs_rq(&rq, now, 2 * NICE_0_WEIGHT, 2, true);
		pelt_update_rt(&rt, now, (now / MS) % 4 == 0); /* 1 ms in 4 */
	}
	EXPECT_NEAR(t, rq.load_avg, 2 * 1024, 6);
	EXPECT_NEAR(t, rq.runnable_avg, 2 * 1024, 4);
	EXPECT_NEAR(t, rq.util_avg, 1024, 2);
	EXPECT_NEAR(t, rt.util_avg, 256, 12); /* ripple of a 4 ms cycle: ~ +-2 % */
}

static void irq_time(struct ktest *t)
{
	struct sched_avg big = { 0 }, little = { 0 };

	/* Half of every ms in interrupts: ~512 on the big CPU at f_max; on a
	 * 462-capacity CPU at half frequency the same time is worth 462/2048. */
	for (u64 now = MS; now <= 1000 * MS; now += MS) {
		pelt_update_irq(&big, now, MS / 2, 1024, 1024);
		pelt_update_irq(&little, now, MS / 2, 462, 512);
	}
	EXPECT_NEAR(t, big.util_avg, 512, 8);
	EXPECT_NEAR(t, little.util_avg, 512.0 * 462 / 2048, 4);
}

/* ---- invariance ---------------------------------------------------------- */

static void clock_pelt_scaled(struct ktest *t)
{
	struct pelt_clock c = { 0 };

	c = pelt_clock_update(c, 10 * MS, false, 462, 512);
	EXPECT_EQ(t, c.clock_task, 10 * MS);
	EXPECT_NEAR(t, c.clock_pelt, 10.0 * MS * 462 / 1024 / 2, 1);
	EXPECT_EQ(t, pelt_clock_now(c), c.clock_pelt);
	/* Full capacity, full frequency: no scaling at all. */
	struct pelt_clock big =
		pelt_clock_update((struct pelt_clock){ 0 }, 10 * MS, false, 1024, 1024);
	EXPECT_EQ(t, big.clock_pelt, 10 * MS);
}

/* The same 20 ms of running on a 462-capacity CPU at half frequency accrue
 * what 20 ms x 462/1024 x 1/2 accrue on the biggest CPU at f_max. */
static void same_work_same_util(struct ktest *t)
{
	struct pelt_clock c = { 0 };
	struct sched_avg little = { 0 }, big = { 0 };

	for (int ms = 0; ms < 20; ms++) {
		c = pelt_clock_update(c, MS, false, 462, 512);
		pelt_update_se(&little, pelt_clock_now(c), true, true, true, NICE_0_WEIGHT);
	}
	u64 scaled = 20.0 * MS * 462 / 2048;
	run_until(&big, scaled, true, MS, NULL, NULL);
	EXPECT_NEAR(t, little.last_update_time, scaled, 1024);
	EXPECT_NEAR(t, little.util_sum >> SCHED_CAPACITY_SHIFT,
		    big.util_sum >> SCHED_CAPACITY_SHIFT, 2);
	/* util_avg itself is refreshed only when a period boundary is crossed,
	 * which the two update patterns do at different times: compare sums
	 * over the divider instead. */
	EXPECT_NEAR(t, little.util_sum / get_pelt_divider(&little),
		    big.util_sum / get_pelt_divider(&big), 1);
}

static void idle_resync(struct ktest *t)
{
	struct pelt_clock c = { 0 };

	c = pelt_clock_update(c, 4 * MS, false, 462, 512);
	/* Not saturated (util_sum of a 25 % task): the stolen idle time is given
	 * back, clock_pelt jumps to clock_task. */
	c = pelt_clock_enter_idle(c, 290 * (PELT_MIN_DIVIDER + 0u));
	EXPECT_EQ(t, c.clock_pelt, 4 * MS);
	EXPECT_EQ(t, c.lost_idle_time, 0);
	/* While idle, clock_pelt follows clock_task. */
	c = pelt_clock_update(c, 3 * MS, true, 462, 512);
	EXPECT_EQ(t, c.clock_pelt, 7 * MS);
	EXPECT_EQ(t, pelt_clock_now(c), 7 * MS);
}

static void lost_idle_time(struct ktest *t)
{
	struct pelt_clock c = { 0 };
	struct sched_avg sa = { 0 };

	/* Always running on the slow CPU: its util_sum reaches the top, in
	 * PELT time, however slow the CPU. */
	for (int ms = 0; ms < 2000; ms++) {
		c = pelt_clock_update(c, MS, false, 462, 512);
		pelt_update_se(&sa, pelt_clock_now(c), true, true, true, NICE_0_WEIGHT);
	}
	EXPECT_GE(t, sa.util_avg, 1023);
	u64 before = pelt_clock_now(c), gap = c.clock_task - c.clock_pelt;

	/* Saturated: no idle would have existed at full capacity, so the gap is
	 * lost, and the PELT clock does not jump at the resync. */
	c = pelt_clock_enter_idle(c, sa.util_sum);
	EXPECT_EQ(t, c.lost_idle_time, gap);
	EXPECT_EQ(t, c.clock_pelt, c.clock_task);
	EXPECT_EQ(t, pelt_clock_now(c), before);
	/* Idle from then on, it advances at the rate of clock_task. */
	c = pelt_clock_update(c, 5 * MS, true, 462, 512);
	EXPECT_EQ(t, pelt_clock_now(c), before + 5 * MS);
	/* The threshold: a 100 % sum at any point of a period, less slack. */
	struct pelt_clock d = { 10 * MS, 4 * MS, 0 };
	EXPECT_EQ(t,
		  pelt_clock_enter_idle(d, (PELT_MIN_DIVIDER << 10) - LOAD_AVG_MAX).lost_idle_time,
		  6 * MS);
	EXPECT_EQ(t,
		  pelt_clock_enter_idle(d, (PELT_MIN_DIVIDER << 10) - LOAD_AVG_MAX - 1)
			  .lost_idle_time,
		  0);
}

/* ---- util_est ------------------------------------------------------------ */

static struct util_est ue_make(unsigned int enqueued, unsigned int ewma)
{
	return (struct util_est){ .enqueued = enqueued, .ewma = ewma };
}

static void util_est_ewma(struct ktest *t)
{
	/* ewma(t) = 3/4 ewma(t-1) + 1/4 sample, the sample recorded, flagged. */
	struct util_est ue = util_est_update(ue_make(300, 400), 200, 1024, true);
	EXPECT_EQ(t, ue.ewma, 350);
	EXPECT_EQ(t, ue.enqueued, 200 | UTIL_AVG_UNCHANGED);

	/* Repeated samples of 200 from 800: ewma = 200 + 600 (3/4)^k, each step
	 * floored; stops within the 1 % margin of 200. */
	double want = 800;
	ue = ue_make(800, 800);
	for (int k = 1; k <= 40; k++) {
		ue.enqueued &= ~UTIL_AVG_UNCHANGED; /* util_avg moved */
		ue = util_est_update(ue, 200, 1024, true);
		want = want * 3 / 4 + 200 * 1.0 / 4;
		if (want - 200 >= UTIL_EST_MARGIN)
			EXPECT_NEAR(t, ue.ewma, want, 2);
	}
	EXPECT_LT(t, ue.ewma, 200 + UTIL_EST_MARGIN);
}

static void util_est_margin(struct ktest *t)
{
	struct util_est ue;

	EXPECT_EQ(t, UTIL_EST_MARGIN, 1024 / 100);
	/* ewma and last sample both within 1 %: nothing changes, no flag. */
	ue = util_est_update(ue_make(395, 400), 395, 1024, true);
	EXPECT_EQ(t, ue.ewma, 400);
	EXPECT_EQ(t, ue.enqueued, 395);
	/* ewma within 1 %, last sample not: the sample is recorded, ewma kept. */
	ue = util_est_update(ue_make(300, 400), 395, 1024, true);
	EXPECT_EQ(t, ue.ewma, 400);
	EXPECT_EQ(t, ue.enqueued, 395 | UTIL_AVG_UNCHANGED);
	/* The edge: |diff| < 10 is inside, 10 is out. */
	EXPECT_EQ(t, util_est_update(ue_make(391, 400), 391, 1024, true).ewma, 400);
	EXPECT_EQ(t, util_est_update(ue_make(390, 400), 390, 1024, true).ewma, (400 * 3 + 390) / 4);
}

static void util_est_fast_up(struct ktest *t)
{
	struct util_est ue = util_est_update(ue_make(200, 200), 500, 1024, true);

	EXPECT_EQ(t, ue.ewma, 500);
	EXPECT_EQ(t, ue.enqueued, 500 | UTIL_AVG_UNCHANGED);
	/* Without UTIL_EST_FASTUP the average climbs like it falls. */
	ue = util_est_update(ue_make(200, 200), 500, 1024, false);
	EXPECT_EQ(t, ue.ewma, (200 * 3 + 500) / 4);
}

static void util_est_capacity(struct ktest *t)
{
	/* Above capacity_orig the task had no idle time: sample not trusted. */
	struct util_est in = ue_make(600, 600);
	struct util_est ue = util_est_update(in, 500, 462, true);

	EXPECT_EQ(t, ue.ewma, 600);
	EXPECT_EQ(t, ue.enqueued, 600);
	EXPECT_EQ(t, util_est_update(in, 500, 1024, true).ewma, (600 * 3 + 500) / 4);
}

static void util_est_unchanged_flag(struct ktest *t)
{
	struct sched_avg sa = { 0 };

	sa.util_est = ue_make(300 | UTIL_AVG_UNCHANGED, 400);
	/* Flag set: util_avg has not moved since the last sample. */
	struct util_est ue = util_est_update(sa.util_est, 100, 1024, true);
	EXPECT_EQ(t, ue.ewma, 400);
	EXPECT_EQ(t, ue.enqueued, 300 | UTIL_AVG_UNCHANGED);
	EXPECT_EQ(t, util_est_of(sa.util_est), 400); /* the flag is no utilization */
	/* An update inside the period leaves util_avg, and the flag, alone... */
	sa.last_update_time = 0;
	EXPECT_EQ(t, pelt_update_se(&sa, 500 * 1024, true, true, true, NICE_0_WEIGHT), 0);
	EXPECT_TRUE(t, sa.util_est.enqueued & UTIL_AVG_UNCHANGED);
	/* ...one that crosses a boundary clears it; a blocked update does not. */
	struct sched_avg blocked = sa;
	EXPECT_EQ(t, pelt_update_blocked_se(&blocked, PERIOD_NS, NICE_0_WEIGHT), 1);
	EXPECT_TRUE(t, blocked.util_est.enqueued & UTIL_AVG_UNCHANGED);
	EXPECT_EQ(t, pelt_update_se(&sa, PERIOD_NS, true, true, true, NICE_0_WEIGHT), 1);
	EXPECT_EQ(t, sa.util_est.enqueued, 300);
}

static void util_est_rq_sums(struct ktest *t)
{
	struct util_est a = ue_make(300 | UTIL_AVG_UNCHANGED, 250), b = ue_make(100, 180);
	unsigned int rq = 0;

	rq = util_est_enqueue(rq, a);
	rq = util_est_enqueue(rq, b);
	EXPECT_EQ(t, rq, 300 + 180);
	rq = util_est_dequeue(rq, a);
	EXPECT_EQ(t, rq, 180);
	EXPECT_EQ(t, util_est_dequeue(100, a), 0); /* saturates */
	EXPECT_EQ(t, task_util_est(350, a), 350);
	EXPECT_EQ(t, task_util_est(50, b), 180);
	/* cpu_util_cfs = min(max(util_avg, util_est), capacity_orig) */
	EXPECT_EQ(t, pelt_cpu_util_cfs(300, 500, 462), 462);
	EXPECT_EQ(t, pelt_cpu_util_cfs(300, 200, 1024), 300);
	EXPECT_EQ(t, pelt_cpu_util_cfs(300, 400, 1024), 400);
}

KTEST_SUITE(pelt_table, KTEST_CASE(table_matches_linux), KTEST_CASE(table_is_the_series));
KTEST_SUITE(pelt_decay, KTEST_CASE(decay_half_life), KTEST_CASE(decay_points),
	    KTEST_CASE(decay_wide_values), KTEST_CASE(decay_to_zero));
KTEST_SUITE(pelt_signal, KTEST_CASE(three_segments), KTEST_CASE(ns_units_and_no_period),
	    KTEST_CASE(always_running), KTEST_CASE(duty_cycle_25_aligned),
	    KTEST_CASE(duty_cycle_50_aligned), KTEST_CASE(duty_cycle_25_ms),
	    KTEST_CASE(duty_cycle_50_ms), KTEST_CASE(cfs_rq_and_rt), KTEST_CASE(irq_time));
KTEST_SUITE(pelt_invariance, KTEST_CASE(clock_pelt_scaled), KTEST_CASE(same_work_same_util),
	    KTEST_CASE(idle_resync), KTEST_CASE(lost_idle_time));
KTEST_SUITE(pelt_util_est, KTEST_CASE(util_est_ewma), KTEST_CASE(util_est_margin),
	    KTEST_CASE(util_est_fast_up), KTEST_CASE(util_est_capacity),
	    KTEST_CASE(util_est_unchanged_flag), KTEST_CASE(util_est_rq_sums));
