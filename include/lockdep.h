/* lockdep.h - lock assertions of the debug build (CONFIG_DEBUG_SCHED, `make
 * DEBUG=1`): every spinlock records its holder CPU, each CPU keeps the list
 * of locks it holds, and classed locks (task->pi_lock, rq->lock, the locks
 * nested inside rq->lock) are checked against the order stated at the top of
 * kernel/sched/core.c. A violation prints a report (BUG: ... with the CPU,
 * thread and backtrace), counts it (lockdep_failures(), which the self-tests
 * turn into a KTAP failure) and goes on, as Linux's lockdep does. In the
 * release build every assertion compiles to nothing. kernel/lockdep.c. */
#ifndef LOCKDEP_H
#define LOCKDEP_H

#include "types.h"

/* Lock classes in the order they nest: a CPU takes a class only while it
 * holds locks of lower classes (rq locks: also lower CPU ids first). */
enum lock_class {
	LOCK_CLASS_NONE = 0, /* not order-checked (still counted as held) */
	LOCK_CLASS_PI,	     /* task->pi_lock */
	LOCK_CLASS_RQ,	     /* rq->lock; subclass = its CPU */
	LOCK_CLASS_RQ_INNER, /* leaves taken under rq->lock: cfs_rq removed, cpufreq policy */
};

/* Reports counted since boot: a self-test case fails if it grows. */
unsigned long debug_failures(void);
/* Reports not provoked on purpose by the debug suite (tests/kernel/selftest_debug.c). */
unsigned long debug_unexpected_reports(void);
/* Print a report "BUG: <what>: <detail>" with CPU, thread and backtrace, count it. */
void debug_report(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#ifdef CONFIG_DEBUG_SCHED
#define DEBUG_SCHED_ENABLED 1
/* From spin_lock: before spinning (acquired = false: the order check) and
 * once the lock is ours (acquired = true: it joins this CPU's held list). */
void lockdep_acquire(const void *lock, int cls, unsigned int subclass, bool acquired,
		     const char *file, int line);
void lockdep_release(const void *lock);
bool lockdep_held_by_me(const void *lock); /* in this CPU's held list */
int lockdep_nr_held(void);		   /* spinlocks this CPU holds */
void lockdep_assert_failed(const char *what, const char *expr, const char *func, const char *file,
			   int line);

#define lockdep_assert_held(l)                                                                     \
	do {                                                                                       \
		if (!lockdep_held_by_me(l))                                                        \
			lockdep_assert_failed("lock not held", #l " held", __func__, __FILE__,     \
					      __LINE__);                                           \
	} while (0)
#define lockdep_assert_not_held(l)                                                                 \
	do {                                                                                       \
		if (lockdep_held_by_me(l))                                                         \
			lockdep_assert_failed("lock held", #l " not held", __func__, __FILE__,     \
					      __LINE__);                                           \
	} while (0)
#define lockdep_assert_irqs_disabled()                                                             \
	do {                                                                                       \
		if (!arch_irqs_disabled())                                                         \
			lockdep_assert_failed("IRQs enabled", "IRQs disabled", __func__, __FILE__, \
					      __LINE__);                                           \
	} while (0)
/* Linux: "scheduling while atomic": no spinlock may be held across a sleep. */
#define lockdep_assert_no_locks_held()                                                             \
	do {                                                                                       \
		if (lockdep_nr_held())                                                             \
			lockdep_assert_failed("sleeping with a spinlock held", "no spinlock held", \
					      __func__, __FILE__, __LINE__);                       \
	} while (0)
#else
#define DEBUG_SCHED_ENABLED	       0
#define lockdep_assert_held(l)	       ((void)sizeof(l))
#define lockdep_assert_not_held(l)     ((void)sizeof(l))
#define lockdep_assert_irqs_disabled() ((void)0)
#define lockdep_assert_no_locks_held() ((void)0)
#endif

#endif
