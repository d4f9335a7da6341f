/* pelt.h - Per-Entity Load Tracking: the signals (struct sched_avg), the
 * invariant PELT clock (struct pelt_clock) and util_est, as pure maths.
 * Not who calls it when (fair.c, rt.c, core.c) nor capacities (topology.c).
 * No state of its own, hence no lock: callers hold the lock of what they pass.
 * Linux (6.1): kernel/sched/pelt.c, pelt.h, the util_est part of fair.c. */
#ifndef SCHED_PELT_H
#define SCHED_PELT_H

#include "types.h"
#include "pelt_table.h" /* generated: runnable_avg_yN_inv[], LOAD_AVG_* */

#ifndef SCHED_CAPACITY_SHIFT /* also in topology.h, with the same value */
#define SCHED_CAPACITY_SHIFT 10
#define SCHED_CAPACITY_SCALE (1u << SCHED_CAPACITY_SHIFT)
#endif

/* The smallest divider: a sum that has just crossed a period boundary.
 * See get_pelt_divider(). */
#define PELT_MIN_DIVIDER (LOAD_AVG_MAX - 1024)

/* Linux: cap_scale(). Scale v by s/1024 (s a capacity or a frequency ratio). */
#define cap_scale(v, s) ((v) * (s) >> SCHED_CAPACITY_SHIFT)

/* Linux: struct util_est. The estimated utilization of a task: its util_avg
 * at its last dequeue (enqueued) and a moving average of those (ewma). For a
 * cfs_rq only `enqueued` is used: the sum of its runnable tasks' estimates. */
struct util_est {
	unsigned int enqueued;
	unsigned int ewma;
} __attribute__((aligned(8)));

#define UTIL_EST_WEIGHT_SHIFT 2 /* a new sample weighs 1/4 in the ewma */
/* Set in a task's `enqueued` when its estimate is refreshed at dequeue and
 * cleared by the next PELT update that changes util_avg: while set, util_avg
 * has not moved since, and there is nothing new to learn. */
#define UTIL_AVG_UNCHANGED    0x80000000u
/* Changes under ~1% of the capacity scale are not worth an ewma update. */
#define UTIL_EST_MARGIN	      (SCHED_CAPACITY_SCALE / 100)

/* Linux: struct sched_avg. Time in ns of the clock the caller uses (a task's
 * and its cfs_rq's: the rq's PELT clock; IRQ: the rq clock).
 *   *_sum: decayed sums of 1024-ns units, weighted by load (load_sum),
 *          by runnable count << 10 (runnable_sum) or by 1 << 10 (util_sum);
 *   *_avg: *_sum / divider, i.e. in [0, weight] and [0, 1024].
 * Zero-fill to start; set last_update_time to "now" before the first update. */
struct sched_avg {
	u64 last_update_time; /* ns, always advanced in whole 1024-ns units */
	u64 load_sum;
	u64 runnable_sum;
	u32 util_sum;
	u32 period_contrib; /* units of the current, unfinished period: 0..1023 */
	unsigned long load_avg;
	unsigned long runnable_avg;
	unsigned long util_avg;
	struct util_est util_est;
};

/* Linux: get_pelt_divider(). *_avg = *_sum / divider, where the divider is the
 * sum a signal at 100 % would have now: LOAD_AVG_MAX for the completed periods
 * (less the 1024 that the current period has not earned yet) plus what the
 * current period has earned so far. */
static inline u32 get_pelt_divider(const struct sched_avg *sa)
{
	return PELT_MIN_DIVIDER + sa->period_contrib;
}

/* val * y^n, n in periods; 0 once n > LOAD_AVG_PERIOD * 63. */
u64 decay_load(u64 val, u64 n);

/* The two steps of every update. The first accrues [last_update_time, now)
 * with the given state and returns 1 if a period boundary was crossed, which
 * is when the second, that recomputes the averages, has something to do. */
int pelt_update_load_sum(struct sched_avg *sa, u64 now, unsigned long load, unsigned long runnable,
			 int running); /* Linux: ___update_load_sum() */
/* Linux: ___update_load_avg() */
void pelt_update_load_avg(struct sched_avg *sa, unsigned long load);

/* The updates of Linux's pelt.c, by the signal they serve (each "Linux:" in pelt.c). */
int pelt_update_se(struct sched_avg *sa, u64 now, bool on_rq, unsigned long runnable, bool running,
		   unsigned long weight);
int pelt_update_blocked_se(struct sched_avg *sa, u64 now, unsigned long weight);
int pelt_update_cfs_rq(struct sched_avg *sa, u64 now, unsigned long load, unsigned int h_nr_running,
		       bool curr_running);
int pelt_update_rt(struct sched_avg *sa, u64 now, bool running);
int pelt_update_irq(struct sched_avg *sa, u64 clock, u64 running, unsigned long cpu_scale,
		    unsigned long freq_scale);

/* The PELT clock of one rq (Linux: rq->clock_task, rq->clock_pelt,
 * rq->lost_idle_time). clock_pelt runs slower than clock_task by the CPU's
 * capacity and frequency ratios while the rq is busy and catches up with it
 * when the rq goes idle. The signals of the rq's entities age by
 * pelt_clock_now(). All ns. */
struct pelt_clock {
	u64 clock_task;
	u64 clock_pelt;
	u64 lost_idle_time;
};

struct pelt_clock pelt_clock_update(struct pelt_clock c, u64 delta, bool rq_idle,
				    unsigned long cpu_scale, unsigned long freq_scale);
struct pelt_clock pelt_clock_enter_idle(struct pelt_clock c, u32 util_sum);

/* Linux: rq_clock_pelt(). */
static inline u64 pelt_clock_now(struct pelt_clock c)
{
	return c.clock_pelt - c.lost_idle_time;
}

/* util_est. The caller holds the feature flag (sched_feat(UTIL_EST)). */
unsigned long util_est_of(struct util_est ue); /* Linux: _task_util_est() */
unsigned long task_util_est(unsigned long util_avg, struct util_est ue);
unsigned int util_est_enqueue(unsigned int rq_enqueued, struct util_est task);
unsigned int util_est_dequeue(unsigned int rq_enqueued, struct util_est task);
struct util_est util_est_update(struct util_est ue, unsigned long util_avg,
				unsigned long capacity_orig, bool fastup);
unsigned long pelt_cpu_util_cfs(unsigned long util_avg, unsigned int util_est_enqueued,
				unsigned long capacity_orig);

#endif
