/* selftest_debug.c - the self-tests' glue to the debug checks, and the suite that
 * proves each check fires (suite debug). After every case of every suite
 * (kernel/ktest.c calls ktest_case_end) the run-queue invariants are checked
 * and any report of the debug build (include/lockdep.h) fails the case.
 * Cases that provoke a report on purpose declare it (expect_reports). */
#include "../../kernel/sched/sched_internal.h"
#include "kernel.h"
#include "ktest.h"
#include "lockdep.h"

static unsigned long expected_reports; /* provoked on purpose by the debug suite */

static void expect_reports(unsigned long n)
{
	__atomic_add_fetch(&expected_reports, n, __ATOMIC_ACQ_REL);
}

unsigned long debug_unexpected_reports(void)
{
	return debug_failures() - __atomic_load_n(&expected_reports, __ATOMIC_ACQUIRE);
}

unsigned long ktest_case_begin(void)
{
	return debug_unexpected_reports();
}

void ktest_case_end(struct ktest *t, unsigned long token)
{
	int bad = sched_check_invariants(true);
	unsigned long reports = debug_unexpected_reports() - token - (unsigned long)bad;

	if (bad)
		ktest_fail(
			t, __FILE__, __LINE__,
			"run-queue invariants: %d violation(s) after the case (BUG: lines above)",
			bad);
	if (reports)
		ktest_fail(t, __FILE__, __LINE__,
			   "%lu debug check report(s) during the case (BUG: lines above)", reports);
}

/* ---- suite debug: each check fires ----------------------------------------------------- */

/* The checker itself on the running system: nothing to report. */
static void debug_invariants_hold(struct ktest *t)
{
	EXPECT_EQ(t, sched_check_invariants(true), 0);
}

/* A corrupted nr_running, cfs load weight and rt bitmap are each reported by
 * the checker that load balancing runs, and nothing else is. */
static void debug_invariants_catch_corruption(struct ktest *t)
{
	unsigned long flags = arch_irq_save();
	struct rq *rq = this_rq();
	unsigned long before = debug_failures();
	int bad[3];

	expect_reports(3);
	spin_lock(&rq->lock);
	rq->nr_running++;
	bad[0] = 0;
	sched_debug_check_rqs(rq, rq);
	bad[0] = (int)(debug_failures() - before);
	rq->nr_running--;
	rq->cfs.load.weight += 7;
	sched_debug_check_rqs(rq, rq);
	bad[1] = (int)(debug_failures() - before) - bad[0];
	rq->cfs.load.weight -= 7;
	rq->rt.bitmap[0] ^= 1ull << 5; /* prio 5: no RT task here has it */
	sched_debug_check_rqs(rq, rq);
	bad[2] = (int)(debug_failures() - before) - bad[0] - bad[1];
	rq->rt.bitmap[0] ^= 1ull << 5;
	spin_unlock(&rq->lock);
	arch_irq_restore(flags);
	EXPECT_EQ(t, bad[0], 1);
	EXPECT_EQ(t, bad[1], 1);
	EXPECT_EQ(t, bad[2], 1);
}

static void debug_lockdep_tracks_held(struct ktest *t)
{
#ifndef CONFIG_DEBUG_SCHED
	KTEST_SKIP(t, "release build: no lock tracking");
#else
	spinlock_t l = SPINLOCK_INIT;
	unsigned long flags = arch_irq_save();

	EXPECT_FALSE(t, lockdep_held_by_me(&l));
	spin_lock(&l);
	EXPECT_TRUE(t, lockdep_held_by_me(&l));
	EXPECT_EQ(t, lockdep_nr_held(), 1);
	spin_unlock(&l);
	EXPECT_FALSE(t, lockdep_held_by_me(&l));
	EXPECT_EQ(t, lockdep_nr_held(), 0);
	arch_irq_restore(flags);
#endif
}

/* Two locks of the rq class (private ones: no other CPU can hold them, so
 * the wrong order cannot deadlock here), and an rq lock before a pi_lock:
 * each reported once; the right order and a trylock are not. */
static void debug_lock_order_reported(struct ktest *t)
{
	spinlock_t rq0, rq1, pi;
	unsigned long before, flags;

	if (!DEBUG_SCHED_ENABLED)
		KTEST_SKIP(t, "release build: no lock order checks");
	spin_lock_init_class(&rq0, LOCK_CLASS_RQ, 0);
	spin_lock_init_class(&rq1, LOCK_CLASS_RQ, 1);
	spin_lock_init_class(&pi, LOCK_CLASS_PI, 0);
	flags = arch_irq_save();
	before = debug_failures();
	spin_lock(&pi); /* right: pi, rq0, rq1 */
	spin_lock(&rq0);
	spin_lock(&rq1);
	spin_unlock(&rq1);
	spin_unlock(&rq0);
	spin_unlock(&pi);
	EXPECT_EQ(t, debug_failures() - before, 0);
	expect_reports(2);
	spin_lock(&rq1); /* wrong: rq1 then rq0 */
	spin_lock(&rq0);
	spin_unlock(&rq0);
	spin_lock(&pi); /* wrong: pi_lock under an rq lock */
	spin_unlock(&pi);
	EXPECT_TRUE(t, spin_trylock(&rq0)); /* a trylock cannot deadlock: fine */
	spin_unlock(&rq0);
	spin_unlock(&rq1);
	arch_irq_restore(flags);
	EXPECT_EQ(t, debug_failures() - before, 2);
}

/* The assertions the scheduler's entry points open with. */
static void debug_assertions_reported(struct ktest *t)
{
	struct rq *rq;
	unsigned long before, flags;

	if (!DEBUG_SCHED_ENABLED)
		KTEST_SKIP(t, "release build: assertions compiled out");
	before = debug_failures();
	expect_reports(2);
	flags = arch_irq_save();
	rq = this_rq();
	update_rq_clock(rq); /* rq->lock not held */
	arch_irq_restore(flags);
	lockdep_assert_irqs_disabled(); /* IRQs are on here */
	EXPECT_EQ(t, debug_failures() - before, 2);
}

KTEST_SUITE(debug, KTEST_CASE(debug_invariants_hold), KTEST_CASE(debug_invariants_catch_corruption),
	    KTEST_CASE(debug_lockdep_tracks_held), KTEST_CASE(debug_lock_order_reported),
	    KTEST_CASE(debug_assertions_reported));
