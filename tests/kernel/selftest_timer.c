/* selftest_timer.c - self-tests of time: the tick rate, one-shot timer accuracy and
 * ordering, and sleeping, all in emulated time (exact under -icount). */
#include "cpuidle.h"
#include "kernel.h"
#include "ktest.h"
#include "sched.h"
#include "timer.h"

/* The tick: HZ a second on a CPU that runs something, or on every CPU with
 * nohz=off; none at all on a CPU that stays idle with NO_HZ idle (Linux:
 * CONFIG_NO_HZ_IDLE). Over 1 s of emulated time, while this task sleeps and
 * the CPUs that nothing woke stay idle. */
static void timer_tick_rate(struct ktest *t)
{
	unsigned int cpu, idle = 0;
	u64 before[NR_CPUS], sw[NR_CPUS], start = arch_clock_ns();

	for_each_cpu(cpu, cpu_online_mask) {
		before[cpu] = tick_count(cpu);
		sw[cpu] = cpu_nr_switches(cpu);
	}
	msleep(1000);
	for_each_cpu(cpu, cpu_online_mask) {
		u64 n = tick_count(cpu) - before[cpu];

		if (cpu_nr_switches(cpu) != sw[cpu] && tick_nohz_active())
			continue; /* it ran something: its tick ran then */
		idle++;
		/* 1 s at HZ=250 is 250 ticks; +-1 for the phase of the window. */
		/* With cpuidle's menu, a CPU that went idle predicting a short idle keeps
		 * its tick (Linux: do_idle's stop_tick). Each tick that wakes it enters
		 * menu's history as a long idle (tick_wakeup) and moves one correction
		 * factor by 1/8; once the 8-interval history (Linux: INTERVALS) no longer
		 * shows a short typical idle, menu predicts long and the tick stops. So a
		 * CPU coming from a run of short idles takes up to 2 x 8 ticks, then none
		 * (observed: 1 to 8). */
		if (tick_nohz_active())
			EXPECT_LE(t, n, cpuidle_nr_states(cpu) > 1 && cpuidle_enabled() ? 16 : 0);
		else
			EXPECT_NEAR(t, n, HZ, 1);
	}
	EXPECT_GE(t, idle, 1);
	ktest_diag(t, "HZ=%d, NO_HZ idle %s, %u CPUs checked, %llu ns elapsed", HZ,
		   tick_nohz_active() ? "on" : "off (nohz=off)", idle, arch_clock_ns() - start);
}

struct shot {
	struct timer timer;
	u64 fired_at;
	int order;
};

static int fire_count;

static void shot_fn(struct timer *tm)
{
	struct shot *s = container_of(tm, struct shot, timer);

	s->fired_at = arch_clock_ns();
	s->order = __atomic_fetch_add(&fire_count, 1, __ATOMIC_RELAXED);
}

/* Timers fire at or after their deadline, soon after, and in deadline order. */
static void timer_oneshot(struct ktest *t)
{
	static const u64 offs_us[] = { 700, 300, 1500, 100, 900, 50, 1200, 400 };
	struct shot s[ARRAY_SIZE(offs_us)];
	u64 now, worst = 0;

	fire_count = 0;
	arch_irq_disable(); /* all armed on this CPU at one `now` */
	now = arch_clock_ns();
	for (size_t i = 0; i < ARRAY_SIZE(offs_us); i++) {
		timer_init(&s[i].timer, shot_fn);
		s[i].fired_at = 0;
		timer_add(&s[i].timer, now + offs_us[i] * 1000);
	}
	arch_irq_enable();
	msleep(3);
	for (size_t i = 0; i < ARRAY_SIZE(offs_us); i++) {
		int earlier = 0;

		ASSERT_NE(t, s[i].fired_at, 0);
		EXPECT_GE(t, s[i].fired_at, now + offs_us[i] * 1000);
		worst = MAX(worst, s[i].fired_at - (now + offs_us[i] * 1000));
		for (size_t j = 0; j < ARRAY_SIZE(offs_us); j++)
			earlier += offs_us[j] < offs_us[i];
		EXPECT_EQ(t, s[i].order, earlier);
	}
	EXPECT_LT(t, worst, 100 * 1000); /* under 100 us late */
	ktest_diag(t, "worst lateness %llu ns", worst);
}

static void timer_cancel_works(struct ktest *t)
{
	struct shot s = { .fired_at = 0 };

	timer_init(&s.timer, shot_fn);
	timer_add(&s.timer, arch_clock_ns() + 500 * 1000);
	EXPECT_TRUE(t, timer_cancel(&s.timer));
	msleep(1);
	EXPECT_EQ(t, s.fired_at, 0);
	EXPECT_FALSE(t, timer_cancel(&s.timer));
}

static void timer_sleep(struct ktest *t)
{
	for (u64 ms = 1; ms <= 8; ms *= 2) {
		u64 start = arch_clock_ns(), slept;

		msleep(ms);
		slept = arch_clock_ns() - start;
		EXPECT_GE(t, slept, ms * NSEC_PER_MSEC);
		/* plus what leaving an idle state may cost (cpuidle, issue 14) */
		EXPECT_LT(t, slept, ms * NSEC_PER_MSEC + 200 * 1000 + cpuidle_wakeup_cost_max_ns());
	}
}

KTEST_SUITE(timer, KTEST_CASE(timer_tick_rate), KTEST_CASE(timer_oneshot),
	    KTEST_CASE(timer_cancel_works), KTEST_CASE(timer_sleep));
