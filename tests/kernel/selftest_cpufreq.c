/* selftest_cpufreq.c - self-tests of cpufreq in emulated time: the speed model (the
 * same cpu_work on a LITTLE and a big CPU, at the top and the lowest OPP),
 * schedutil ramping a busy cluster up and letting an idle one fall back,
 * the E5 scenario with RT_UTIL_TRACKING off and on, bad governor names.
 * Every case leaves every policy on the default governor. */
#include "cpuidle.h"
#include "cpufreq.h"
#include "kernel.h"
#include "ktest.h"
#include "selftest.h"
#include "speed.h"
#include "sched.h"
#include "timer.h"
#include "topology.h"

#define US 1000ull
#define MS 1000000ull

int selftest_pick_cpu(bool little, bool with_policy)
{
	int best = -1;

	for (unsigned int c = 0; c < nr_cpu_ids; c++) {
		if (!cpu_online(c) || (with_policy && cpufreq_policy_of(c) < 0))
			continue;
		if (best < 0 ||
		    (little ? capacity_orig_of(c) <= capacity_orig_of((unsigned int)best)
			    : capacity_orig_of(c) >= capacity_orig_of((unsigned int)best)))
			best = (int)c;
	}
	return best;
}

static int pick_cpu(bool little)
{
	return selftest_pick_cpu(little, true);
}

void selftest_restore_governors(void)
{
	for (int p = 0; p < cpufreq_nr_policies(); p++)
		cpufreq_set_governor(p, "performance");
}

/* Poll (1 ms) until the policy runs at khz; the time it took, or ~0 on timeout. */
static u64 wait_freq(int policy, u32 khz, u64 timeout)
{
	u64 t0 = arch_clock_ns();

	while (cpufreq_cur_freq(policy) != khz) {
		if (arch_clock_ns() - t0 > timeout)
			return ~0ull;
		msleep(1);
	}
	return arch_clock_ns() - t0;
}

struct worker {
	u64 units, elapsed, start;
	volatile bool stop;
};

static void timed_work_fn(void *arg)
{
	struct worker *w = arg;
	u64 t0 = arch_clock_ns();

	w->start = t0;
	cpu_work(w->units);
	w->elapsed = arch_clock_ns() - t0;
}

static u64 timed_work(int cpu, u64 units)
{
	struct worker w = { .units = units };
	struct task_struct *th = kthread_create(timed_work_fn, &w, "cf-work");

	if (!th)
		return 0;
	set_cpus_allowed(th, cpumask_of(cpu));
	wake_up_new_task(th);
	kthread_join(th);
	return w.elapsed;
}

static bool set_speed(int policy, u32 khz)
{
	return !cpufreq_set_governor(policy, "userspace") && !cpufreq_set_speed(policy, khz) &&
	       wait_freq(policy, khz, 50 * MS) != ~0ull;
}

/* docs/design.md's model: work runs at capacity_orig/1024 x f/f_max. The same
 * 10 ms of work takes 1024/462 as long on a HiKey960 A53 at its top OPP as
 * on an A73 at its top, and f_max/f_min as long again at the lowest OPP. */
static void cpufreq_speed_model(struct ktest *t)
{
	int lc = pick_cpu(true), bc = pick_cpu(false), lp, bp;
	u64 big, little, big_slow, little_slow, cl, cb;

	if (speed_model == SPEED_NATIVE)
		KTEST_SKIP(t, "speed=native: cpu_work() is real work (selftest=validate)");
	if (lc < 0 || capacity_orig_of((unsigned int)lc) == capacity_orig_of((unsigned int)bc))
		KTEST_SKIP(t, "needs policies on two CPU capacities");
	lp = cpufreq_policy_of((unsigned int)lc);
	bp = cpufreq_policy_of((unsigned int)bc);
	cl = capacity_orig_of((unsigned int)lc);
	cb = capacity_orig_of((unsigned int)bc);
	ASSERT_TRUE(t, set_speed(lp, cpufreq_max_freq(lp)) && set_speed(bp, cpufreq_max_freq(bp)));
	big = timed_work(bc, 10 * MS);
	little = timed_work(lc, 10 * MS);
	ASSERT_TRUE(t, set_speed(lp, cpufreq_min_freq(lp)) && set_speed(bp, cpufreq_min_freq(bp)));
	big_slow = timed_work(bc, 10 * MS);
	little_slow = timed_work(lc, 10 * MS);
	selftest_restore_governors();
	ASSERT_GT(t, big, 0);
	/* within 1 %: little / big = cb / cl */
	EXPECT_NEAR(t, little * cl, big * cb, big * cb / 100);
	/* within 1 %: slow / fast = f_max / f_min, on both */
	EXPECT_NEAR(t, big_slow * cpufreq_min_freq(bp), big * cpufreq_max_freq(bp),
		    big * cpufreq_max_freq(bp) / 100);
	EXPECT_NEAR(t, little_slow * cpufreq_min_freq(lp), little * cpufreq_max_freq(lp),
		    little * cpufreq_max_freq(lp) / 100);
	ktest_diag(t,
		   "10 ms of work: big %llu us, little %llu us (x%llu/1000); at f_min big "
		   "%llu us, little %llu us",
		   big / US, little / US, little * 1000 / big, big_slow / US, little_slow / US);
}

/* expect, plus the exit latency of one of cpu's idle states (or none):
 * whichever is nearest to elapsed. */
static u64 near_exit(u64 elapsed, u64 expect, unsigned int cpu)
{
	u64 best = expect;

	for (int i = 1; cpuidle_enabled() && i < cpuidle_nr_states(cpu); i++) {
		u64 e = expect + cpuidle_state(cpu, i)->exit_latency_us * US;

		if ((e > elapsed ? e - elapsed : elapsed - e) <
		    (best > elapsed ? best - elapsed : elapsed - best))
			best = e;
	}
	return best;
}

/* Moved from a big to a LITTLE CPU halfway, the work left runs at the
 * LITTLE CPU's speed: elapsed = m + (W - m) x 1024/462 (both at f_max),
 * where m is the work done (= time spent) on the big CPU before the move. */
static void cpufreq_speed_migration(struct ktest *t)
{
	int lc = pick_cpu(true), bc = pick_cpu(false), lp, bp;
	struct worker w = { .units = 10 * MS };
	struct task_struct *th;
	u64 m, expect;

	if (speed_model == SPEED_NATIVE)
		KTEST_SKIP(t, "speed=native: cpu_work() is real work (selftest=validate)");
	if (lc < 0 || capacity_orig_of((unsigned int)lc) == capacity_orig_of((unsigned int)bc))
		KTEST_SKIP(t, "needs policies on two CPU capacities");
	lp = cpufreq_policy_of((unsigned int)lc);
	bp = cpufreq_policy_of((unsigned int)bc);
	ASSERT_TRUE(t, set_speed(lp, cpufreq_max_freq(lp)) && set_speed(bp, cpufreq_max_freq(bp)));
	th = kthread_create(timed_work_fn, &w, "cf-move");
	ASSERT_TRUE(t, th != NULL);
	set_cpus_allowed(th, cpumask_of(bc));
	wake_up_new_task(th);
	msleep(5);
	set_cpus_allowed(th, cpumask_of(lc));
	m = arch_clock_ns() - w.start;
	kthread_join(th);
	selftest_restore_governors();
	expect = m + (10 * MS - m) * capacity_orig_of((unsigned int)bc) /
			     capacity_orig_of((unsigned int)lc);
	/* The LITTLE CPU was idle: the task waits for it to leave its idle state,
	 * one of the exit latencies of the tree (none in WFI; cpuidle, issue 14). */
	expect = near_exit(w.elapsed, expect, (unsigned int)lc);
	EXPECT_NEAR(t, w.elapsed, expect, expect / 100);
	ktest_diag(t, "moved after %llu us: took %llu us, model %llu us", m / US, w.elapsed / US,
		   expect / US);
}

static void hog_fn(void *arg)
{
	struct worker *w = arg;

	while (!w->stop)
		cpu_work(w->units);
}

static struct task_struct *start_pinned(void (*fn)(void *), void *arg, const char *name, int cpu)
{
	struct task_struct *th = kthread_create(fn, arg, name);

	if (th) {
		set_cpus_allowed(th, cpumask_of(cpu));
		wake_up_new_task(th);
	}
	return th;
}

/* schedutil: a CPU-bound thread takes its cluster from f_min to f_max in
 * about 100 ms; once it is gone the idle cluster falls back to f_min. */
static void cpufreq_schedutil_ramp(struct ktest *t)
{
	int bc = pick_cpu(false), bp;
	struct worker w = { .units = 1 * MS };
	struct task_struct *hog;
	u64 up, down;

	if (bc < 0)
		KTEST_SKIP(t, "no cpufreq policy");
	bp = cpufreq_policy_of((unsigned int)bc);
	ASSERT_EQ(t, cpufreq_set_governor(bp, "powersave"), 0);
	ASSERT_NE(t, wait_freq(bp, cpufreq_min_freq(bp), 50 * MS), ~0ull);
	ASSERT_EQ(t, cpufreq_set_governor(bp, "schedutil"), 0);
	msleep(20);
	EXPECT_EQ(t, cpufreq_cur_freq(bp), cpufreq_min_freq(bp)); /* idle stays low */
	hog = start_pinned(hog_fn, &w, "cf-hog", bc);
	ASSERT_TRUE(t, hog);
	up = wait_freq(bp, cpufreq_max_freq(bp), 300 * MS);
	w.stop = true;
	kthread_join(hog);
	down = wait_freq(bp, cpufreq_min_freq(bp), 500 * MS);
	selftest_restore_governors();
	EXPECT_LE(t, up, 120 * MS);
	EXPECT_LE(t, down, 300 * MS);
	ktest_diag(t, "ramp-up f_min -> f_max: %llu ms; idle fall-back to f_min: %llu ms", up / MS,
		   down / MS);
	printk("RESULT cpufreq_ramp cpu=%d rampup_ms=%llu falloff_ms=%llu\n", bc, up / MS,
	       down / MS);
}

/* ---- E5 (docs/experiments.md), shortened-------------------------------------------- */

struct periodic {
	u64 period, work, until;
	unsigned int activations;
};

/* SCHED_FIFO: 9 ms of work every 17.777 ms, after each 50 an idle 377.777
 * ms (rt-app's E5 phases), until `until`. */
static void periodic_fn(void *arg)
{
	struct periodic *p = arg;
	u64 next = arch_clock_ns();

	while (next < p->until) {
		cpu_work(p->work);
		p->activations++;
		next += p->period;
		if (p->activations % 50 == 0)
			next += 377777 * US;
		while (next < arch_clock_ns()) /* overran: skip to the next period */
			next += p->period;
		sleep_ns(next - arch_clock_ns());
	}
}

static void e5_run(int cpu, int policy, bool tracking, struct cpufreq_stats *s, u64 len)
{
	struct worker w = { .units = 27700 * US }; /* rt-app: 27.7 ms of work in a loop */
	struct periodic p = { .period = 17777 * US, .work = 9 * MS };
	struct task_struct *hog, *rt;

	sched_feat_set(tracking ? "RT_UTIL_TRACKING" : "NO_RT_UTIL_TRACKING");
	hog = start_pinned(hog_fn, &w, "e5-cfs", cpu);
	msleep(100); /* the hog alone: the cluster at f_max */
	rt = kthread_create(periodic_fn, &p, "e5-fifo");
	if (!hog || !rt || sched_setscheduler(rt, SCHED_FIFO, 50)) {
		w.stop = true;
		return;
	}
	set_cpus_allowed(rt, cpumask_of(cpu));
	cpufreq_reset_stats(policy);
	p.until = arch_clock_ns() + len;
	wake_up_new_task(rt);
	kthread_join(rt);
	cpufreq_get_stats(policy, s);
	w.stop = true;
	kthread_join(hog);
}

static void print_e5(int policy, bool tracking, const struct cpufreq_stats *s)
{
	char line[200];
	int n = ksnprintf(line, sizeof(line),
			  "RESULT cpufreq_e5 rt_util_tracking=%d "
			  "total_trans=%u time_in_state_ms=",
			  tracking, s->total_trans);

	for (int i = 0; i < s->nr && n < (int)sizeof(line); i++)
		n += ksnprintf(line + n, sizeof(line) - (size_t)n, "%s%u:%llu", i ? "," : "",
			       s->freq[i] / 1000, s->time_in_state[i] / MS);
	printk("%s\n", line);
}

/* 500 ms per mode keeps make test short; docs/experiments.md's run is 15000. */
#ifndef CPUFREQ_E5_MS
#define CPUFREQ_E5_MS 500
#endif

/* One CFS hog and one periodic FIFO thread on a big CPU, schedutil. Without
 * RT tracking the frequency drops whenever the FIFO thread sleeps and
 * jumps to f_max when it wakes; with it, the policy stays high. */
static void cpufreq_e5_rt_util_tracking(struct ktest *t)
{
	static struct cpufreq_stats off, on;
	int bc = pick_cpu(false), bp;
	u64 len = CPUFREQ_E5_MS * MS;
	bool was;

	if (bc < 0)
		KTEST_SKIP(t, "no cpufreq policy");
	bp = cpufreq_policy_of((unsigned int)bc);
	sched_feat_get("RT_UTIL_TRACKING", &was);
	ASSERT_EQ(t, cpufreq_set_governor(bp, "schedutil"), 0);
	e5_run(bc, bp, false, &off, len);
	e5_run(bc, bp, true, &on, len);
	sched_feat_set(was ? "RT_UTIL_TRACKING" : "NO_RT_UTIL_TRACKING");
	selftest_restore_governors();
	print_e5(bp, false, &off);
	print_e5(bp, true, &on);
	EXPECT_GE(t, off.total_trans, 10);
	EXPECT_GT(t, off.total_trans, 10 * on.total_trans);
	ktest_diag(t, "%llu ms: total_trans %u with NO_RT_UTIL_TRACKING, %u with it", len / MS,
		   off.total_trans, on.total_trans);
}

/* External input never panics: an unknown name is refused with a message. */
static void cpufreq_bad_governor(struct ktest *t)
{
	if (cpufreq_nr_policies() < 1)
		KTEST_SKIP(t, "no cpufreq policy");
	EXPECT_EQ(t, cpufreq_set_governor(0, "turbo"), -1);
	EXPECT_STREQ(t, cpufreq_governor_name(0), "performance");
	EXPECT_EQ(t, cpufreq_set_speed(0, 1), -1); /* not userspace */
	EXPECT_EQ(t, cpufreq_set_governor(cpufreq_nr_policies(), "performance"), -1);
	cpufreq_print_stats(0);
}

KTEST_SUITE(cpufreq, KTEST_CASE(cpufreq_speed_model), KTEST_CASE(cpufreq_speed_migration),
	    KTEST_CASE(cpufreq_schedutil_ramp), KTEST_CASE(cpufreq_e5_rt_util_tracking),
	    KTEST_CASE(cpufreq_bad_governor));
