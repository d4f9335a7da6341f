/* test_timer.c - host tests of kernel/timer.c's cancel and re-arm rules on the fake arch
 * (the HiKey960 machine of sched_harness.h), where one host thread plays every CPU, so
 * "CPU 2 acts while CPU 1 runs the callback" is a step inside the callback. The rules
 * are Linux's (hrtimer_start()'s switch_hrtimer_base(), hrtimer_try_to_cancel(),
 * del_timer_sync()): a timer's callback never runs twice at once, and a timer re-armed
 * while its callback runs stays on the CPU running it, so that one look at one base
 * tells a canceller whether to wait. */
#include "../../kernel/sched/sched_internal.h"
#include "fake_arch.h"
#include "ktest.h"
#include "sched_harness.h"
#include "timer.h"

/* What the callback does on its first run, as other CPUs acting while it runs. */
enum meanwhile {
	REARM_ON_2,	    /* CPU 2 re-arms it (timer_start), CPU 3 tries to cancel it */
	REARM_ON_2_EXPIRED, /* CPU 2 re-arms it already due and takes its interrupt */
};

struct probe {
	struct timer timer;
	enum meanwhile what;
	int calls, depth, max_depth;
	int try_cancel;	      /* timer_try_cancel() from CPU 3 while the first call ran */
	unsigned int cpus[4]; /* the CPU of each call */
};

static void probe_fn(struct timer *tm)
{
	struct probe *p = container_of(tm, struct probe, timer);
	unsigned int self = arch_cpu_id();

	if (p->calls < (int)ARRAY_SIZE(p->cpus))
		p->cpus[p->calls] = self;
	p->depth++;
	p->max_depth = MAX(p->max_depth, p->depth);
	if (p->calls++ == 0) {
		fake_arch_set_cpu(2);
		if (p->what == REARM_ON_2) {
			timer_start(tm, fake_arch_now() + 5 * MS);
			fake_arch_set_cpu(3);
			p->try_cancel = timer_try_cancel(tm);
		} else {
			timer_start(tm, fake_arch_now());
			fake_arch_irq(2); /* its deadline has passed: the interrupt comes now */
		}
		fake_arch_set_cpu(self);
	}
	p->depth--;
}

/* Armed on CPU 1, fired there; while the callback runs, CPU 2 re-arms the timer without
 * waiting (as deadline.c's start_dl_timer() does) and CPU 3 tries to cancel it. Linux:
 * hrtimer_try_to_cancel() is -1 while the callback runs (hrtimer_callback_running() on
 * the timer's base), so hrtimer_cancel() waits. It was 1: the re-arm had queued the timer
 * on CPU 2, the cancel dequeued it there and a timer_cancel() would have returned with
 * the callback still running on CPU 1. After the callback, the re-arming is pending,
 * on CPU 1 (switch_hrtimer_base() does not move a running timer): cancelled, no call. */
static void timer_rearm_while_running_then_cancel(struct ktest *t)
{
	struct probe p = { .what = REARM_ON_2 };

	if (!machine_up(t))
		return;
	timer_init(&p.timer, probe_fn);
	fake_arch_set_cpu(1);
	timer_start(&p.timer, fake_arch_now() + MS);
	run_for(2 * MS);
	EXPECT_EQ(t, p.calls, 1);
	EXPECT_EQ(t, p.cpus[0], 1);
	EXPECT_EQ(t, p.try_cancel, -1);
	fake_arch_set_cpu(3);
	EXPECT_TRUE(t, timer_cancel(&p.timer)); /* the re-arming, still pending */
	run_for(10 * MS);
	EXPECT_EQ(t, p.calls, 1);
	EXPECT_EQ(t, timer_try_cancel(&p.timer), 0);
	machine_ok(t);
}

/* The same re-arm, due at once, and CPU 2 takes its timer interrupt while the first call
 * still runs on CPU 1: the callback must not run on CPU 2 inside the first call (it did:
 * two calls at once, depth 2). Linux runs it again on CPU 1 once the first call returns. */
static void timer_rearm_while_running_never_overlaps(struct ktest *t)
{
	struct probe p = { .what = REARM_ON_2_EXPIRED };

	if (!machine_up(t))
		return;
	timer_init(&p.timer, probe_fn);
	fake_arch_set_cpu(1);
	timer_start(&p.timer, fake_arch_now() + MS);
	run_for(2 * MS);
	EXPECT_EQ(t, p.max_depth, 1);
	EXPECT_EQ(t, p.calls, 2);
	EXPECT_EQ(t, p.cpus[0], 1);
	EXPECT_EQ(t, p.cpus[1], 1);
	fake_arch_set_cpu(0);
	EXPECT_FALSE(t, timer_cancel(&p.timer));
	machine_ok(t);
}

/* A timer not running anywhere moves to the CPU that re-arms it (Linux: the new base
 * is this CPU's when the timer is idle); timer_add() waits and moves it too. A cancel
 * from any CPU finds it there, and after the move the old CPU does not fire it. */
static void timer_rearm_idle_timer_moves(struct ktest *t)
{
	struct probe p = { .what = REARM_ON_2 };

	if (!machine_up(t))
		return;
	timer_init(&p.timer, probe_fn);
	p.calls = 1; /* no meanwhile steps: only counting */
	fake_arch_set_cpu(1);
	timer_start(&p.timer, fake_arch_now() + MS);
	fake_arch_set_cpu(5);
	timer_start(&p.timer, fake_arch_now() + 2 * MS);
	EXPECT_EQ(t, p.timer.cpu, 5);
	fake_arch_set_cpu(6);
	timer_add(&p.timer, fake_arch_now() + 3 * MS);
	EXPECT_EQ(t, p.timer.cpu, 6);
	run_for(4 * MS);
	EXPECT_EQ(t, p.calls, 2);
	EXPECT_EQ(t, p.cpus[1], 6);
	fake_arch_set_cpu(0);
	EXPECT_EQ(t, timer_try_cancel(&p.timer), 0);
	machine_ok(t);
}

/* Linux: timers_dead_cpu(): a pending timer of an offline CPU moves to the CPU that
 * takes it over, and a cancel finds it on its new base (one look, not a scan). */
static void timer_cancel_finds_a_moved_timer(struct ktest *t)
{
	struct probe p = { .what = REARM_ON_2 };

	if (!machine_up(t))
		return;
	timer_init(&p.timer, probe_fn);
	p.calls = 1;
	fake_arch_set_cpu(3);
	timer_start(&p.timer, fake_arch_now() + MS);
	fake_arch_set_cpu(0);
	EXPECT_EQ(t, timers_dead_cpu(3), 1);
	EXPECT_EQ(t, p.timer.cpu, 0);
	fake_arch_set_cpu(7);
	EXPECT_EQ(t, timer_try_cancel(&p.timer), 1);
	run_for(2 * MS);
	EXPECT_EQ(t, p.calls, 1);
	machine_ok(t);
}

KTEST_SUITE(timer_cancel, KTEST_CASE(timer_rearm_while_running_then_cancel),
	    KTEST_CASE(timer_rearm_while_running_never_overlaps),
	    KTEST_CASE(timer_rearm_idle_timer_moves), KTEST_CASE(timer_cancel_finds_a_moved_timer));
