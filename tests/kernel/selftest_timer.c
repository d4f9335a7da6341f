/* selftest_timer.c - self-tests of time: the tick rate, one-shot timer accuracy and
 * ordering, sleeping, and cancel against re-arms from other CPUs, all in emulated time
 * (exact under -icount). */
#include "cpuidle.h"
#include "kernel.h"
#include "ktest.h"
#include "sched.h"
#include "speed.h"
#include "sysreg.h"
#include "timer.h"

/* The clock against the architected counter it is read from: 10^9 / CNTFRQ ns a count,
 * D times slower with speed_dilate=D (kernel/sched/speed.c), over 20 ms of sleep. */
static void timer_clock_rate(struct ktest *t)
{
	u64 f = read_sysreg(cntfrq_el0) & 0xffffffff, c0, c1, t0, t1, d = speed_clock_dilation();

	isb();
	c0 = read_sysreg(cntvct_el0);
	t0 = arch_clock_ns();
	msleep(20);
	isb();
	c1 = read_sysreg(cntvct_el0);
	t1 = arch_clock_ns();
	ASSERT_TRUE(t, f > 0);
	u64 counter_ns = (c1 - c0) * 1000000000ull / f;
	ktest_diag(t, "%llu counts at %llu Hz = %llu ns of counter, %llu ns of clock (x%llu)",
		   c1 - c0, f, counter_ns, t1 - t0, d);
	EXPECT_GE(t, t1 - t0, 20 * 1000000ull);
	EXPECT_NEAR(t, counter_ns, (t1 - t0) * d, (t1 - t0) * d / 100);
}

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

/* One timer re-armed from up to 8 CPUs at once without waiting (timer_start(), as
 * deadline.c re-arms its timers), due at once, with a callback that yields for 20 us so
 * the others act while it runs; now and then one of them stops the re-arms (arm_lock)
 * and cancels it. Linux's rules (hrtimer, del_timer_sync()): a timer's callback never
 * runs twice at once, and once timer_cancel() returns it is not running anywhere and
 * does not run again until re-armed. */
struct hammer {
	struct timer timer;
	spinlock_t arm_lock; /* held by a canceller: no re-arm meanwhile */
	u64 end;	     /* the threads stop re-arming at this time */
	int in_cb;	     /* callbacks running now */
	u64 calls, overlaps, cancels, ran_after_cancel;
};

struct hammer_arg {
	struct hammer *h;
	int idx;
};

static void hammer_fn(struct timer *tm)
{
	struct hammer *h = container_of(tm, struct hammer, timer);
	u64 until = arch_clock_ns() + 20 * 1000;

	if (__atomic_add_fetch(&h->in_cb, 1, __ATOMIC_ACQ_REL) > 1)
		__atomic_add_fetch(&h->overlaps, 1, __ATOMIC_RELAXED);
	while (arch_clock_ns() < until)
		arch_cpu_relax(); /* QEMU runs the other vCPUs */
	__atomic_add_fetch(&h->calls, 1, __ATOMIC_RELAXED);
	__atomic_sub_fetch(&h->in_cb, 1, __ATOMIC_RELEASE);
}

static void hammer_thread(void *arg)
{
	struct hammer_arg *a = arg;
	struct hammer *h = a->h;

	for (unsigned int n = 0; arch_clock_ns() < h->end; n++) {
		unsigned long flags = spin_lock_irqsave(&h->arm_lock);
		u64 calls, wait = arch_clock_ns() + 5 * 1000;

		timer_start(&h->timer, arch_clock_ns()); /* due: its interrupt comes now */
		spin_unlock_irqrestore(&h->arm_lock, flags);
		while (arch_clock_ns() < wait)
			arch_cpu_relax();
		if ((n + (unsigned int)a->idx) % 8)
			continue;
		flags = spin_lock_irqsave(&h->arm_lock);
		timer_cancel(&h->timer);
		calls = __atomic_load_n(&h->calls, __ATOMIC_ACQUIRE);
		if (__atomic_load_n(&h->in_cb, __ATOMIC_ACQUIRE))
			h->ran_after_cancel++; /* still running */
		wait = arch_clock_ns() + 30 * 1000;
		while (arch_clock_ns() < wait)
			arch_cpu_relax();
		if (__atomic_load_n(&h->calls, __ATOMIC_ACQUIRE) != calls)
			h->ran_after_cancel++; /* ran again, not re-armed */
		h->cancels++;
		spin_unlock_irqrestore(&h->arm_lock, flags);
	}
}

static void timer_rearm_across_cpus(struct ktest *t)
{
	static struct hammer h;
	static struct hammer_arg args[8];
	struct task_struct *th[8];
	unsigned int cpu;
	int n = 0;

	memset(&h, 0, sizeof(h));
	timer_init(&h.timer, hammer_fn);
	spin_lock_init(&h.arm_lock);
	h.end = arch_clock_ns() + 20 * NSEC_PER_MSEC;
	for_each_cpu(cpu, cpu_online_mask) {
		if (n == (int)ARRAY_SIZE(th))
			break;
		args[n] = (struct hammer_arg){ &h, n };
		th[n] = kthread_create(hammer_thread, &args[n], "hammer");
		ASSERT_TRUE(t, th[n] != NULL);
		set_cpus_allowed(th[n], cpumask_of(cpu));
		wake_up_new_task(th[n++]);
	}
	for (int i = 0; i < n; i++)
		kthread_join(th[i]);
	timer_cancel(&h.timer);
	EXPECT_GE(t, n, 2);
	EXPECT_EQ(t, h.overlaps, 0);
	EXPECT_EQ(t, h.ran_after_cancel, 0);
	EXPECT_GE(t, h.calls, 100);
	EXPECT_GE(t, h.cancels, 10);
	ktest_diag(t,
		   "%d CPUs: %llu calls, %llu cancels, %llu overlapping calls, %llu after a "
		   "cancel",
		   n, h.calls, h.cancels, h.overlaps, h.ran_after_cancel);
}

KTEST_SUITE(timer, KTEST_CASE(timer_clock_rate), KTEST_CASE(timer_tick_rate),
	    KTEST_CASE(timer_oneshot), KTEST_CASE(timer_cancel_works), KTEST_CASE(timer_sleep),
	    KTEST_CASE(timer_rearm_across_cpus));
