/* selftest_uclamp.c - self-tests of uclamp in emulated time, against Linux 6.1's
 * rules: a boosted (uclamp.min 1024) light task takes its LITTLE policy to f_max
 * and fits only the biggest CPUs; a capped (uclamp.max 300) hog holds its policy at
 * the OPP that util 300 selects (map_util_freq, worked here from the OPP table); RT
 * tasks are boosted by default (sched_util_clamp_min_rt_default) and placed on CPUs
 * that fit it. Every case leaves every policy on the default governor. */
#include "cpufreq.h"
#include "kernel.h"
#include "ktest.h"
#include "sched.h"
#include "selftest.h"
#include "timer.h"
#include "topology.h"

#define MS 1000000ull

/* A light periodic task: `work` units every `period`, `n` times; records the
 * policy's frequency and the CPU at the end of each activation. */
struct light {
	u64 work, period;
	int n, policy;
	u32 freq[64];
	int cpu[64];
};

static void light_fn(void *arg)
{
	struct light *l = arg;
	u64 next = arch_clock_ns();

	for (int i = 0; i < l->n && i < 64; i++) {
		cpu_work(l->work);
		l->cpu[i] = (int)arch_cpu_id();
		l->freq[i] = cpufreq_cur_freq(cpufreq_policy_of(arch_cpu_id()));
		next += l->period;
		if (next > arch_clock_ns())
			sleep_ns(next - arch_clock_ns());
	}
}

/* Run l on `cpus` (uclamp.min as asked, rt: SCHED_FIFO 10) until it ends, forked
 * from `from` (the caller moves there for the fork). */
static bool run_light(struct light *l, const cpumask_t *cpus, unsigned int umin, bool rt, int from)
{
	cpumask_t saved = current->cpus_allowed;
	struct task_struct *p = kthread_create(light_fn, l, "uc-light");

	if (!p)
		return false;
	set_cpus_allowed(current, cpumask_of((unsigned int)from));
	set_cpus_allowed(p, cpus);
	if (rt)
		sched_setscheduler(p, SCHED_FIFO, 10);
	if (umin)
		sched_set_uclamp(p, umin, 1024);
	wake_up_new_task(p);
	set_cpus_allowed(current, &saved);
	kthread_join(p);
	return true;
}

static int count_freq(const struct light *l, int from, u32 khz)
{
	int n = 0;

	for (int i = from; i < l->n; i++)
		n += l->freq[i] == khz;
	return n;
}

static bool setup(struct ktest *t, int *lc, int *lp)
{
	*lc = selftest_pick_cpu(true, true);
	if (*lc < 0 || capacity_orig_of((unsigned int)*lc) >= SCHED_CAPACITY_SCALE)
		return false;
	*lp = cpufreq_policy_of((unsigned int)*lc);
	return cpufreq_set_governor(*lp, "schedutil") == 0;
}

/* 2 ms of work every 40 ms (~10 % of an A53 at f_max) with uclamp.min 1024, pinned to
 * a LITTLE CPU: while it runs the rq's min clamp is 1024, so schedutil asks for
 * 1.25 x f_max (Linux: uclamp_rq_util_with() in effective_cpu_util()): every
 * activation after the first few ends at f_max. Unpinned, it wakes only on CPUs of
 * capacity 1024 (util_fits_cpu: uclamp.min above capacity_orig does not fit). */
static void uclamp_min_boosts_little(struct ktest *t)
{
	static struct light l;
	int lc, lp, hits;
	u32 fmax;

	if (!setup(t, &lc, &lp))
		KTEST_SKIP(t, "needs a LITTLE CPU with a cpufreq policy");
	fmax = cpufreq_max_freq(lp);
	l = (struct light){ .work = 2 * MS, .period = 40 * MS, .n = 20 };
	ASSERT_TRUE(t, run_light(&l, cpumask_of((unsigned int)lc), 1024, false, lc));
	hits = count_freq(&l, 5, fmax);
	EXPECT_EQ(t, hits, l.n - 5);
	ktest_diag(t, "pinned: %d of %d activations ended at f_max %u kHz (last %u)", hits, l.n - 5,
		   fmax, l.freq[l.n - 1]);
	l = (struct light){ .work = 2 * MS, .period = 40 * MS, .n = 10 };
	ASSERT_TRUE(t, run_light(&l, cpu_online_mask, 1024, false, lc));
	for (int i = 2; i < l.n; i++)
		EXPECT_EQ(t, capacity_orig_of((unsigned int)l.cpu[i]), SCHED_CAPACITY_SCALE);
	selftest_restore_governors();
}

struct hog {
	volatile bool stop;
};

static void hog_fn(void *arg)
{
	struct hog *h = arg;

	while (!h->stop)
		cpu_work(1 * MS);
}

/* Linux 6.1.192's map_util_perf(), map_util_freq() and CPUFREQ_RELATION_L, worked
 * from the policy's table: the lowest OPP at or above f_max x (util + util / 4) / cap. */
static u32 opp_for_util(int policy, unsigned long util, unsigned long cap)
{
	static struct cpufreq_stats s;
	u64 want;

	cpufreq_get_stats(policy, &s);
	want = (u64)s.freq[s.nr - 1] * (util + (util >> 2)) / cap;
	for (int i = 0; i < s.nr; i++)
		if (s.freq[i] >= want)
			return s.freq[i];
	return s.freq[s.nr - 1];
}

/* A CPU hog with uclamp.max 300 on a LITTLE CPU: its util climbs past 300 at any
 * OPP from that for 300 up, so the rq's max clamp holds the policy at the OPP for
 * util 300 (1709 MHz on the HiKey960's A53s, not f_max) for as long as it runs. */
static void uclamp_max_caps_hog(struct ktest *t)
{
	struct hog h = { 0 };
	struct task_struct *p;
	int lc, lp, off = 0;
	u32 want;
	u64 t0;

	if (!setup(t, &lc, &lp))
		KTEST_SKIP(t, "needs a LITTLE CPU with a cpufreq policy");
	want = opp_for_util(lp, 300, capacity_orig_of((unsigned int)lc));
	p = kthread_create(hog_fn, &h, "uc-hog");
	ASSERT_TRUE(t, p);
	set_cpus_allowed(p, cpumask_of((unsigned int)lc));
	sched_set_uclamp(p, 0, 300);
	wake_up_new_task(p);
	msleep(300); /* util settles (PELT's ~32 ms half-life) */
	t0 = arch_clock_ns();
	while (arch_clock_ns() - t0 < 200 * MS) {
		off += cpufreq_cur_freq(lp) != want;
		msleep(2);
	}
	EXPECT_EQ(t, cpufreq_cur_freq(lp), want);
	EXPECT_EQ(t, off, 0);
	ktest_diag(t,
		   "uclamp.max 300 hog: policy at %u kHz, want %u kHz (f_max %u); %d samples off",
		   cpufreq_cur_freq(lp), want, cpufreq_max_freq(lp), off);
	h.stop = true;
	kthread_join(p);
	selftest_restore_governors();
}

/* RT tasks get uclamp.min 1024 by default (Linux: sched_util_clamp_min_rt_default):
 * forked from a LITTLE CPU, a FIFO task runs on a CPU of capacity 1024
 * (select_task_rq_rt with rt_task_fits_capacity). With the default lowered to 0 the
 * tasks follow it, and a light pinned FIFO task no longer drives its LITTLE
 * policy to f_max (effective_cpu_util: only the clamp boosted it once uclamp is used). */
static void uclamp_rt_default_boost(struct ktest *t)
{
	static struct light l;
	unsigned int umin, umax, rt_def;
	struct task_struct *p;
	int lc, lp, hits;
	u32 fmax;

	if (!setup(t, &lc, &lp))
		KTEST_SKIP(t, "needs a LITTLE CPU with a cpufreq policy");
	fmax = cpufreq_max_freq(lp);
	sched_uclamp_sysctl_get(&umin, &umax, &rt_def);
	EXPECT_EQ(t, rt_def, 1024);
	l = (struct light){ .work = 1 * MS, .period = 20 * MS, .n = 5 };
	ASSERT_TRUE(t, run_light(&l, cpu_online_mask, 0, true, lc));
	for (int i = 0; i < l.n; i++)
		EXPECT_EQ(t, capacity_orig_of((unsigned int)l.cpu[i]), SCHED_CAPACITY_SCALE);
	/* an existing RT task follows a new default unless it set its own */
	p = kthread_create(light_fn, &l, "uc-rt");
	ASSERT_TRUE(t, p);
	sched_setscheduler(p, SCHED_FIFO, 10);
	EXPECT_EQ(t, uclamp_eff_value(p, UCLAMP_MIN), 1024);
	ASSERT_EQ(t, sched_uclamp_sysctl(umin, umax, 0), 0);
	EXPECT_EQ(t, uclamp_eff_value(p, UCLAMP_MIN), 0);
	l.n = 0;
	wake_up_new_task(p);
	kthread_join(p);
	l = (struct light){ .work = 1 * MS, .period = 20 * MS, .n = 20 };
	ASSERT_TRUE(t, run_light(&l, cpumask_of((unsigned int)lc), 0, true, lc));
	sched_uclamp_sysctl(umin, umax, rt_def);
	hits = count_freq(&l, 5, fmax);
	EXPECT_EQ(t, hits, 0);
	ktest_diag(t, "rt default 0: %d of %d activations at f_max (last %u kHz)", hits, l.n - 5,
		   l.freq[l.n - 1]);
	l = (struct light){ .work = 1 * MS, .period = 20 * MS, .n = 20 };
	ASSERT_TRUE(t, run_light(&l, cpumask_of((unsigned int)lc), 0, true, lc));
	hits = count_freq(&l, 5, fmax);
	EXPECT_EQ(t, hits, l.n - 5);
	ktest_diag(t, "rt default 1024: %d of %d activations at f_max", hits, l.n - 5);
	selftest_restore_governors();
}

/* A group's cpu.uclamp.max restricts its tasks' requests (Linux: uclamp_tg_restrict):
 * a hog that asks for nothing, moved into a group capped at 300, holds its LITTLE
 * policy at the OPP for util 300 as if it had asked itself; the group cannot be
 * removed while the hog is in it, and can once it has left. */
static void uclamp_group_clamp(struct ktest *t)
{
	struct task_group *g, *n;
	struct hog h = { 0 };
	struct task_struct *p;
	int lc, lp;
	u32 want;

	if (!setup(t, &lc, &lp))
		KTEST_SKIP(t, "needs a LITTLE CPU with a cpufreq policy");
	want = opp_for_util(lp, 300, capacity_orig_of((unsigned int)lc));
	g = sched_group_create(NULL, "uc-bg");
	ASSERT_TRUE(t, g);
	n = sched_group_create(g, "inner");
	ASSERT_TRUE(t, n);
	EXPECT_EQ(t, sched_group_set_uclamp(g, 0, 300), 0);
	p = kthread_create(hog_fn, &h, "uc-ghog");
	ASSERT_TRUE(t, p);
	set_cpus_allowed(p, cpumask_of((unsigned int)lc));
	wake_up_new_task(p);
	msleep(100);
	EXPECT_EQ(t, sched_move_task(p, sched_group_find("uc-bg/inner")), 0);
	msleep(300);
	EXPECT_EQ(t, cpufreq_cur_freq(lp), want);
	EXPECT_EQ(t, sched_group_destroy(n), -1);
	sched_group_print();
	ktest_diag(t, "hog in uc-bg/inner (max 300): policy at %u kHz, want %u",
		   cpufreq_cur_freq(lp), want);
	h.stop = true;
	kthread_join(p);
	EXPECT_EQ(t, sched_group_destroy(n), 0);
	EXPECT_EQ(t, sched_group_destroy(g), 0);
	selftest_restore_governors();
}

KTEST_SUITE(uclamp, KTEST_CASE(uclamp_min_boosts_little), KTEST_CASE(uclamp_max_caps_hog),
	    KTEST_CASE(uclamp_rt_default_boost), KTEST_CASE(uclamp_group_clamp));
