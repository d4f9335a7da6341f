/* pelt.c - Per-Entity Load Tracking maths: decayed sums and averages, the
 * invariant PELT clock, util_est. Pure: takes values (or the caller's
 * struct sched_avg) and returns values; no globals, no locks, no arch, integer
 * only, so the host tests run exactly the code the kernel runs. When and for
 * whom these run is fair.c's, rt.c's and core.c's business. */
#include "pelt.h"

/*
 * The signal. Time is cut into periods of 1024 units of 1024 ns (~1 ms). A
 * period that ended n periods ago weighs y^n, with y^32 = 1/2, so an entity's
 * history fades by half every 32 ms:
 *
 *   sum = u_0 + u_1*y + u_2*y^2 + ...     (u_i: units it ran in period i ago)
 *
 * A signal at 100 % forever sums 1024 * (1 + y + y^2 + ...) = 1024 / (1 - y),
 * which the kernel's integer arithmetic caps at LOAD_AVG_MAX = 47742; an
 * average is then a sum over that maximum, a fraction of 1024.
 */

/* Linux: mul_u64_u32_shr(a, mul, 32). (ah * 2^32 + al) * mul >> 32 splits
 * exactly into ah * mul + (al * mul >> 32): no 128-bit product needed, and
 * no overflow because mul < 2^32 keeps the result below a. */
static u64 mul_u64_u32_shr32(u64 a, u32 mul)
{
	u64 ah = a >> 32, al = a & 0xffffffffu;

	return ah * mul + ((al * mul) >> 32);
}

/*
 * val * y^n in constant time. y^n = (1/2)^(n/32) * y^(n%32): a shift for the
 * whole half-lives, then one multiply by the table's y^(n%32) as a 0.32
 * fraction. Past 63 half-lives even a u64 is shifted to nothing.
 */
u64 decay_load(u64 val, u64 n)
{
	unsigned int local_n;

	if (n > LOAD_AVG_PERIOD * 63)
		return 0;
	local_n = (unsigned int)n; /* bounded above */
	if (local_n >= LOAD_AVG_PERIOD) {
		val >>= local_n / LOAD_AVG_PERIOD;
		local_n %= LOAD_AVG_PERIOD;
	}
	return mul_u64_u32_shr32(val, runnable_avg_yN_inv[local_n]);
}

/*
 * What a 100 % signal earned over `periods` crossed boundaries, in three
 * segments (p = periods, the boundaries are '|', x the two updates):
 *
 *        last update                                         now
 *   |---------x-----|---------|---------| ... |---------|-----x----
 *             <-d1-> <----------- d2: p-1 full periods --> <d3>
 *   period:     p      p-1       p-2              1        0 (current)
 *
 *   c1 = d1 * y^p              the tail of the period we were in
 *   c2 = 1024 * sum(n=1..p-1) y^n
 *      = 1024 * (sum(n=0..inf) y^n - sum(n=p..inf) y^n - y^0)
 *      = LOAD_AVG_MAX - LOAD_AVG_MAX * y^p - 1024
 *   c3 = d3 * y^0              the current period so far
 *
 * c2 uses the series' closed form, so p periods cost one decay, not p.
 * Linux: __accumulate_pelt_segments().
 */
static u32 accumulate_pelt_segments(u64 periods, u32 d1, u32 d3)
{
	u32 c1 = (u32)decay_load(d1, periods);
	u32 c2 = LOAD_AVG_MAX - (u32)decay_load(LOAD_AVG_MAX, periods) - 1024;

	return c1 + c2 + d3;
}

/*
 * Add `delta` units spent in one state. First the old sums age by the
 * boundaries crossed; then the time (all of delta, or its three segments)
 * is added with the state's weights. load_sum counts units x load; the other
 * two are kept << SCHED_CAPACITY_SHIFT so that their averages land on the
 * 0..1024 scale directly. Returns the number of boundaries crossed.
 * Linux: accumulate_sum().
 */
static u64 accumulate_sum(u64 delta, struct sched_avg *sa, unsigned long load,
			  unsigned long runnable, int running)
{
	u32 contrib = (u32)delta; /* no boundary crossed: delta < 1024 */
	u64 periods;

	delta += sa->period_contrib;
	periods = delta / 1024;
	if (periods) {
		sa->load_sum = decay_load(sa->load_sum, periods);
		sa->runnable_sum = decay_load(sa->runnable_sum, periods);
		sa->util_sum = (u32)decay_load(sa->util_sum, periods);
		delta %= 1024;
		/* load == 0 implies runnable == running == 0 (see the caller):
		 * then contrib is never used and not worth computing. */
		if (load)
			contrib = accumulate_pelt_segments(periods, 1024 - sa->period_contrib,
							   (u32)delta);
	}
	sa->period_contrib = (u32)delta;

	if (load)
		sa->load_sum += load * contrib;
	if (runnable)
		sa->runnable_sum += runnable * contrib << SCHED_CAPACITY_SHIFT;
	if (running)
		sa->util_sum += contrib << SCHED_CAPACITY_SHIFT;
	return periods;
}

/*
 * Step 1 of an update: accrue [last_update_time, now) in the given state.
 * Time is counted in 1024-ns units (a cheap ~1 us); the ns remainder stays in
 * the future by advancing last_update_time only by whole units. A clock that
 * went backwards resyncs without accruing anything.
 * Linux: ___update_load_sum().
 */
int pelt_update_load_sum(struct sched_avg *sa, u64 now, unsigned long load, unsigned long runnable,
			 int running)
{
	u64 delta = now - sa->last_update_time;

	if ((s64)delta < 0) {
		sa->last_update_time = now;
		return 0;
	}
	delta >>= 10;
	if (!delta)
		return 0;
	sa->last_update_time += delta << 10;

	/* running implies runnable implies load; but an entity that was just
	 * dequeued can still be cfs_rq->curr: it counts as neither. */
	if (!load)
		runnable = 0, running = 0;

	return accumulate_sum(delta, sa, load, runnable, running) ? 1 : 0;
}

/*
 * Step 2: the averages, each sum over the sum a 100 % signal would have now
 * (get_pelt_divider()). Only worth doing when step 1 crossed a boundary: in
 * between, sum and divider grow together. load_avg is weighted here, by the
 * entity's current weight, so that a reniced task's history counts at its new
 * weight. Linux: ___update_load_avg().
 */
void pelt_update_load_avg(struct sched_avg *sa, unsigned long load)
{
	u32 divider = get_pelt_divider(sa);

	sa->load_avg = load * sa->load_sum / divider;
	sa->runnable_avg = sa->runnable_sum / divider;
	sa->util_avg = sa->util_sum / divider;
}

/*
 * A scheduling entity, queued or not, `now` being its rq's PELT clock. Load
 * counts while queued, weighted by `weight` (scale_load_down(se->load.weight),
 * 1024 at nice 0); util while it is the running one; runnable is 1/0 for a task,
 * its h_nr_running for a group entity (Linux: se_runnable()). A moved util_avg re-arms
 * util_est (Linux: cfs_se_util_change()). Linux: __update_load_avg_se().
 */
int pelt_update_se(struct sched_avg *sa, u64 now, bool on_rq, unsigned long runnable, bool running,
		   unsigned long weight)
{
	if (!pelt_update_load_sum(sa, now, on_rq, runnable, running))
		return 0;
	pelt_update_load_avg(sa, weight);
	sa->util_est.enqueued &= ~UTIL_AVG_UNCHANGED;
	return 1;
}

/* A sleeping entity aged from outside its rq's updates (wakeup migration,
 * removal): decay only, and util_est stays as it is.
 * Linux: __update_load_avg_blocked_se(). */
int pelt_update_blocked_se(struct sched_avg *sa, u64 now, unsigned long weight)
{
	if (!pelt_update_load_sum(sa, now, 0, 0, 0))
		return 0;
	pelt_update_load_avg(sa, weight);
	return 1;
}

/* A cfs_rq: load is its queued weight, runnable its task count, running
 * whether it has a current entity. Its load_avg is not reweighted (the
 * weights are already in load_sum). Linux: __update_load_avg_cfs_rq(). */
int pelt_update_cfs_rq(struct sched_avg *sa, u64 now, unsigned long load, unsigned int h_nr_running,
		       bool curr_running)
{
	if (!pelt_update_load_sum(sa, now, load, h_nr_running, curr_running))
		return 0;
	pelt_update_load_avg(sa, 1);
	return 1;
}

/* The RT (or DL) class of an rq: one bit, "an RT task ran", in all three
 * sums; util_avg is the signal schedutil adds. Linux: update_rt_rq_load_avg(). */
int pelt_update_rt(struct sched_avg *sa, u64 now, bool running)
{
	if (!pelt_update_load_sum(sa, now, running, running, running))
		return 0;
	pelt_update_load_avg(sa, 1);
	return 1;
}

/*
 * IRQ time. It is not in clock_task, hence not in clock_pelt, so `clock` is
 * the rq clock and `running` (the ns spent in interrupts since the last
 * update) is made invariant here instead. When in the interval the interrupts
 * happened is unknown: assume just before `clock` (they most likely woke
 * something, which is why we are updating), so decay as idle up to
 * clock - running, then accrue running. Linux: update_irq_load_avg().
 */
int pelt_update_irq(struct sched_avg *sa, u64 clock, u64 running, unsigned long cpu_scale,
		    unsigned long freq_scale)
{
	int ret;

	running = cap_scale(running, freq_scale);
	running = cap_scale(running, cpu_scale);
	ret = pelt_update_load_sum(sa, clock - running, 0, 0, 0);
	ret += pelt_update_load_sum(sa, clock, 1, 1, 1);
	if (ret)
		pelt_update_load_avg(sa, 1);
	return ret;
}

/*
 * Invariance. A CPU of capacity 462 at half its top frequency does in 1 ms
 * what the biggest CPU at its top frequency does in 462/1024 * 1/2 ms. So
 * while the rq runs something its PELT clock advances by the scaled delta,
 * and a task's util_avg measures work, not time, on any CPU:
 *
 *   clock_task  |----run----|----run----|...idle...|----run
 *   clock_pelt  |-run-|                 |          |-run-
 *                      \___ stolen ___/ ^ resync: clock_pelt = clock_task
 *
 * The slower CPU ran longer than the big one would have and so "stole" idle
 * time; the resync at idle gives it back (the signals decay over it), because
 * the big CPU would have been idle for that long too.
 * Linux: update_rq_clock_pelt(), with `delta` the clock_task increment.
 */
struct pelt_clock pelt_clock_update(struct pelt_clock c, u64 delta, bool rq_idle,
				    unsigned long cpu_scale, unsigned long freq_scale)
{
	c.clock_task += delta;
	if (rq_idle) {
		c.clock_pelt = c.clock_task;
		return c;
	}
	delta = cap_scale(delta, cpu_scale);
	delta = cap_scale(delta, freq_scale);
	c.clock_pelt += delta;
	return c;
}

/*
 * The rq is about to go idle. Giving back stolen idle time only makes sense
 * if the rq would have idled at full capacity. If it was saturated (the sum of
 * the cfs, rt and dl util_sum at its maximum) it would not have: the gap
 * between the clocks is then lost idle time, kept so that pelt_clock_now()
 * does not jump when clock_pelt resyncs. "At its maximum" is a sum of at
 * least PELT_MIN_DIVIDER << 10, the lowest bound a 100 % signal has at any
 * point of a period, less LOAD_AVG_MAX of slack for the floors of the
 * integer decay. Linux: update_idle_rq_clock_pelt().
 */
struct pelt_clock pelt_clock_enter_idle(struct pelt_clock c, u32 util_sum)
{
	u32 divider = ((u32)PELT_MIN_DIVIDER << SCHED_CAPACITY_SHIFT) - LOAD_AVG_MAX;

	if (util_sum >= divider)
		c.lost_idle_time += c.clock_task - c.clock_pelt;
	c.clock_pelt = c.clock_task;
	return c;
}

/*
 * util_est. util_avg forgets a task's size while it sleeps and relearns it
 * over ~100 ms when it wakes; util_est remembers the size it had at its last
 * dequeue (enqueued) and a moving average of those sizes (ewma), and the
 * larger of the two stands for the task on its rq while it is queued.
 */

/* Linux: _task_util_est(). */
unsigned long util_est_of(struct util_est ue)
{
	return MAX(ue.ewma, ue.enqueued & ~UTIL_AVG_UNCHANGED);
}

/* Linux: task_util_est(): what placement and frequency selection use. */
unsigned long task_util_est(unsigned long util_avg, struct util_est ue)
{
	return MAX(util_avg, util_est_of(ue));
}

/* An rq's util_est.enqueued: the sum over its queued tasks. Linux:
 * util_est_enqueue() / util_est_dequeue(); dequeue saturates at 0 because
 * estimates may have changed while the task was queued. */
unsigned int util_est_enqueue(unsigned int rq_enqueued, struct util_est task)
{
	return rq_enqueued + (unsigned int)util_est_of(task);
}

unsigned int util_est_dequeue(unsigned int rq_enqueued, struct util_est task)
{
	return rq_enqueued - MIN(rq_enqueued, (unsigned int)util_est_of(task));
}

/* |value| < margin. Linux: within_margin(). */
static bool within_margin(long value, long margin)
{
	return value > -margin && value < margin;
}

/*
 * A task completed an activation (it is dequeued to sleep: the caller checks
 * that, and sched_feat(UTIL_EST)): take util_avg as a new sample.
 *   - util_avg unchanged since the last sample (flag still set): nothing new.
 *   - fast-up (sched_feat(UTIL_EST_FASTUP), on by default): a sample above
 *     the ewma replaces it; the average only smooths decreases.
 *   - ewma and the previous sample both within 1 % of the new one: no change
 *     at all; ewma alone within 1 %: keep the ewma, record the sample.
 *   - util_avg above the CPU's capacity_orig: the task had no idle time to
 *     show its real size, so this sample is not trusted; no change.
 *   - else ewma += (sample - ewma) / 4, i.e. ewma = 3/4 ewma + 1/4 sample,
 *     computed as (4 * ewma + diff) / 4 to keep the shift exact.
 * Linux: util_est_update() (6.1), on values.
 */
struct util_est util_est_update(struct util_est ue, unsigned long util_avg,
				unsigned long capacity_orig, bool fastup)
{
	struct util_est old = ue;
	long last_ewma_diff, last_enqueued_diff;

	if (ue.enqueued & UTIL_AVG_UNCHANGED)
		return old;

	ue.enqueued = (unsigned int)util_avg;
	if (fastup && ue.ewma < ue.enqueued) {
		ue.ewma = ue.enqueued;
		goto done;
	}

	last_ewma_diff = (long)ue.enqueued - (long)ue.ewma;
	last_enqueued_diff = (long)old.enqueued - (long)ue.enqueued;
	if (within_margin(last_ewma_diff, UTIL_EST_MARGIN)) {
		if (!within_margin(last_enqueued_diff, UTIL_EST_MARGIN))
			goto done;
		return old;
	}

	if (util_avg > capacity_orig)
		return old;

	ue.ewma = (unsigned int)((((long)ue.ewma << UTIL_EST_WEIGHT_SHIFT) + last_ewma_diff) >>
				 UTIL_EST_WEIGHT_SHIFT);
done:
	ue.enqueued |= UTIL_AVG_UNCHANGED;
	return ue;
}

/* The utilization of an rq's CFS tasks as schedutil and placement see it:
 * the larger of util_avg and the estimates of its queued tasks (pass 0 with
 * NO_UTIL_EST), never more than the CPU can do. Linux: cpu_util_cfs(). */
unsigned long pelt_cpu_util_cfs(unsigned long util_avg, unsigned int util_est_enqueued,
				unsigned long capacity_orig)
{
	return MIN(MAX(util_avg, (unsigned long)util_est_enqueued), capacity_orig);
}
