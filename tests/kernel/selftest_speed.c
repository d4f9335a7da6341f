/* selftest_speed.c - self-tests of the speed model of all code (speed=all, issue 14
 * section 1; kernel/sched/speed.c): a pure-instruction loop takes
 * 1024/capacity_orig x f_max/f_cur as long, with its CPU alone busy and with
 * every CPU busy; hackbench pinned to the slowest vs the fastest CPUs; the
 * fastest CPU at f_max pays no stall. The reference is the device tree's
 * capacities and OPPs, not our own timings. */
#include "../../kernel/bench/bench_internal.h"
#include "cpufreq.h"
#include "kernel.h"
#include "ktest.h"
#include "selftest.h"
#include "sched.h"
#include "speed.h"
#include "mutex.h"
#include "timer.h"

#define MS	    1000000ull
#define LOOP_ITERS  4000000ull /* ~10 ms of instructions at 1 ns each */
#define CHUNK_ITERS 2000ull    /* ~6000 instructions: fine-grained even at qemu-bl64's R */
#define HB_LOOPS    40	       /* hackbench's loops: 16000 messages, ~35 ms on 4 big CPUs */

/* Pure instructions: no memory, no cpu_work(); the compiler keeps every add. */
static u64 spin_loop(u64 n, u64 x)
{
	for (u64 i = 0; i < n; i++)
		__asm__ volatile("add %0, %0, #1" : "+r"(x));
	return x;
}

/* Every policy at its top OPP (userspace), so s_c is capacity alone. */
static bool all_at_fmax(void)
{
	for (int p = 0; p < cpufreq_nr_policies(); p++) {
		if (cpufreq_set_governor(p, "userspace") ||
		    cpufreq_set_speed(p, cpufreq_max_freq(p)))
			return false;
	}
	msleep(20); /* the OPP change is applied by the policy's next update */
	for (int p = 0; p < cpufreq_nr_policies(); p++)
		if (cpufreq_cur_freq(p) != cpufreq_max_freq(p))
			return false;
	return true;
}

/* The online CPU of the lowest (little) or highest capacity, policy or not. */
static int pick_cpu(bool little)
{
	return selftest_pick_cpu(little, false);
}

static void loop_fn(void *arg)
{
	u64 *sink = arg;

	*sink = spin_loop(LOOP_ITERS, *sink);
}

/* The emulated time from release to join of one loop pinned to cpu: the
 * worker's exit wakes us, so its stall is paid before we see it. */
static u64 timed_loop(unsigned int cpu)
{
	u64 sink = cpu, t0;
	struct task_struct *th = kthread_create(loop_fn, &sink, "speed-loop");

	if (!th)
		return 0;
	set_cpus_allowed(th, cpumask_of(cpu));
	t0 = arch_clock_ns();
	wake_up_new_task(th);
	kthread_join(th);
	return arch_clock_ns() - t0;
}

/* Run in every model: with speed=work (the older model) the ratio cases fail,
 * as they do on the code before speed=all. speed=exact is speed=all made exact. */
static bool need_speed_all(struct ktest *t)
{
	if (!speed_stalls())
		ktest_diag(t, "speed=%s: the model under test is off", speed_model_name());
	return true;
}

/* One CPU busy at a time: every capacity level against the biggest CPU,
 * time x capacity_orig equal within 5 %. */
static void speed_loop_alone(struct ktest *t)
{
	int bc = pick_cpu(false);
	u64 tb, cb;

	if (!need_speed_all(t))
		KTEST_SKIP(t, "speed model is not all");
	ASSERT_TRUE(t, all_at_fmax());
	tb = timed_loop((unsigned int)bc);
	cb = capacity_orig_of((unsigned int)bc);
	ASSERT_GT(t, tb, 0);
	for (unsigned int c = 0; c < nr_cpu_ids; c++) {
		u64 tc, cc = capacity_orig_of(c);

		if (!cpu_online(c) || (c != 0 && capacity_orig_of(c - 1) == cc))
			continue; /* the first CPU of each capacity level */
		tc = timed_loop(c);
		ktest_diag(t,
			   "cpu%u (cap %llu): %llu us; cpu%d (cap %llu): %llu us; ratio "
			   "x%llu/1000, model x%llu/1000",
			   c, cc, tc / 1000, bc, cb, tb / 1000, tc * 1000 / tb, cb * 1000 / cc);
		EXPECT_NEAR(t, tc * cc, tb * cb, tb * cb * 5 / 100);
	}
	selftest_restore_governors();
}

/* A worker counts its chunks; asked for a mark, it first pays what its CPU owes
 * (speed_pay()), then notes its count and the time. Under speed=exact a CPU executes
 * in bursts and pays for each burst after it: read at an arbitrary instant its count is
 * up to a burst ahead of its model (a slow CPU alone in QEMU's round-robin until its
 * 200 us check: ~20 ms of model time at speed 133 on qemu-bl16, 5 % of the window),
 * so progress is read at the worker's own payment points. */
struct chunk_worker {
	volatile u64 chunks;
	volatile bool stop;
	volatile unsigned int mark_req;
	unsigned int mark_ack;
	u64 mark_chunks, mark_ns;
};

static void chunk_fn(void *arg)
{
	struct chunk_worker *w = arg;
	u64 x = 0;

	while (!READ_ONCE(w->stop)) {
		x = spin_loop(CHUNK_ITERS, x);
		WRITE_ONCE(w->chunks, w->chunks + 1);
		if (READ_ONCE(w->mark_req) != w->mark_ack) {
			speed_pay();
			w->mark_chunks = w->chunks;
			w->mark_ns = arch_clock_ns();
			/* release: the mark is seen before its ack */
			__atomic_store_n(&w->mark_ack, w->mark_req, __ATOMIC_RELEASE);
		}
	}
}

/* Ask every worker for mark `n` and wait (at most 1 s) until all have taken it. */
static bool chunk_marks(struct chunk_worker *w, struct task_struct *const *th, unsigned int n)
{
	for (unsigned int c = 0; c < nr_cpu_ids; c++)
		if (th[c])
			WRITE_ONCE(w[c].mark_req, n);
	for (int i = 0; i < 1000; i++) {
		bool all = true;

		for (unsigned int c = 0; c < nr_cpu_ids; c++)
			all &= !th[c] || __atomic_load_n(&w[c].mark_ack, __ATOMIC_ACQUIRE) == n;
		if (all)
			return true;
		msleep(1);
	}
	return false;
}

/* The mean progress of the workers on CPUs of speed sp (capacity x f_cur / f_max). */
static u64 speed_mean(const u64 *chunks, struct task_struct *const *th, const u64 *speed, u64 sp)
{
	u64 sum = 0, n = 0;

	for (unsigned int c = 0; c < nr_cpu_ids; c++)
		if (th[c] && speed[c] == sp) {
			sum += chunks[c];
			n++;
		}
	return n ? sum / n : 0;
}

/* Every online CPU runs the loop at once, the policy of CPU `low` (if >= 0) at its
 * lowest OPP: over a window in which all are busy, each CPU's progress follows its
 * speed capacity_orig x f_cur / f_max: each speed level's mean within 3 % of the
 * fastest level's scaled, and identical CPUs within 3 % of their level's mean. Each
 * CPU's progress is its chunks per ns between two of its own marks (chunk_fn()), scaled
 * to the 400 ms window. */
static void all_busy(struct ktest *t, int low)
{
	static struct chunk_worker w[NR_CPUS];
	static u64 c0[NR_CPUS], c1[NR_CPUS], s0[NR_CPUS], s1[NR_CPUS], sp[NR_CPUS], t0[NR_CPUS];
	struct task_struct *th[NR_CPUS] = { 0 };
	int lp = low >= 0 ? cpufreq_policy_of((unsigned int)low) : -1;
	u64 top = 0;

	ASSERT_TRUE(t, all_at_fmax());
	if (lp >= 0) {
		ASSERT_EQ(t, cpufreq_set_speed(lp, (u32)cpufreq_min_freq(lp)), 0);
		msleep(20);
		ASSERT_EQ(t, cpufreq_cur_freq(lp), cpufreq_min_freq(lp));
	}
	for (unsigned int c = 0; c < nr_cpu_ids; c++) {
		int p = cpufreq_policy_of(c);

		sp[c] = capacity_orig_of(c) * 1000;
		if (p >= 0)
			sp[c] = sp[c] * cpufreq_cur_freq(p) / cpufreq_max_freq(p);
		w[c] = (struct chunk_worker){ 0 };
		if (!cpu_online(c) || !(th[c] = kthread_create(chunk_fn, &w[c], "speed-all")))
			continue;
		top = MAX(top, sp[c]);
		set_cpus_allowed(th[c], cpumask_of(c));
		wake_up_new_task(th[c]);
	}
	msleep(40); /* all running, debts being paid */
	bool marked = chunk_marks(w, th, 1);

	for (unsigned int c = 0; c < nr_cpu_ids; c++) {
		c0[c] = w[c].mark_chunks;
		t0[c] = w[c].mark_ns;
		s0[c] = speed_stalled_ns(c);
	}
	msleep(400);
	marked = marked && chunk_marks(w, th, 2);
	for (unsigned int c = 0; c < nr_cpu_ids; c++) {
		u64 dt = w[c].mark_ns - t0[c];

		c1[c] = dt ? (w[c].mark_chunks - c0[c]) * 400000000ull / dt : 0;
		s1[c] = speed_stalled_ns(c) - s0[c];
		WRITE_ONCE(w[c].stop, true);
	}
	for (unsigned int c = 0; c < nr_cpu_ids; c++)
		if (th[c])
			kthread_join(th[c]);
	selftest_restore_governors();
	ASSERT_TRUE(t, marked);
	for (unsigned int c = 0; c < nr_cpu_ids; c++)
		if (th[c])
			ktest_diag(
				t,
				"cpu%u (speed %llu/1024): %llu chunks per 400 ms, stalled %llu us",
				c, sp[c] / 1000, c1[c], s1[c] / 1000);
	u64 mb = speed_mean(c1, th, sp, top);

	ASSERT_GT(t, mb, 10);
	for (unsigned int c = 0; c < nr_cpu_ids; c++) {
		u64 mc = speed_mean(c1, th, sp, sp[c]);
		bool first = true;

		for (unsigned int d = 0; d < c; d++)
			first &= !(th[d] && sp[d] == sp[c]);
		if (!th[c] || !first)
			continue;
		ktest_diag(t, "speed %llu: x%llu/1000 of speed %llu's progress; model x%llu/1000",
			   sp[c] / 1000, mc * 1000 / mb, top / 1000, sp[c] * 1000 / top);
		EXPECT_NEAR(t, mc * top, mb * sp[c], mb * sp[c] * 3 / 100);
	}
	for (unsigned int c = 0; c < nr_cpu_ids; c++)
		if (th[c])
			EXPECT_NEAR(t, c1[c], speed_mean(c1, th, sp, sp[c]),
				    speed_mean(c1, th, sp, sp[c]) * 3 / 100);
}

static void speed_loop_all_busy(struct ktest *t)
{
	if (!need_speed_all(t))
		KTEST_SKIP(t, "speed model is not all");
	all_busy(t, -1);
}

/* The same with the slowest CPU's policy at its lowest OPP. */
static void speed_loop_all_busy_opp(struct ktest *t)
{
	int lc = pick_cpu(true);

	if (!need_speed_all(t))
		KTEST_SKIP(t, "speed model is not all");
	if (lc < 0 || cpufreq_policy_of((unsigned int)lc) < 0)
		KTEST_SKIP(t, "needs cpufreq policies");
	all_busy(t, lc);
}

/* At a lower OPP (userspace governor) the loop takes f_max/f_cur as long. */
static void speed_loop_opp(struct ktest *t)
{
	if (!need_speed_all(t))
		KTEST_SKIP(t, "speed model is not all");
	for (int little = 1; little >= 0; little--) {
		int cpu = pick_cpu(little),
		    p = cpu >= 0 ? cpufreq_policy_of((unsigned int)cpu) : -1;
		u64 fast, slow, fmax, fmin;

		if (p < 0)
			KTEST_SKIP(t, "needs cpufreq policies");
		ASSERT_TRUE(t, all_at_fmax());
		fmax = cpufreq_max_freq(p);
		fmin = cpufreq_min_freq(p);
		fast = timed_loop((unsigned int)cpu);
		ASSERT_EQ(t, cpufreq_set_speed(p, (u32)fmin), 0);
		msleep(20);
		ASSERT_EQ(t, cpufreq_cur_freq(p), fmin);
		slow = timed_loop((unsigned int)cpu);
		selftest_restore_governors();
		ktest_diag(t,
			   "cpu%d: %llu us at %llu kHz, %llu us at %llu kHz (x%llu/1000, model "
			   "x%llu/1000)",
			   cpu, fast / 1000, fmax, slow / 1000, fmin, slow * 1000 / fast,
			   fmax * 1000 / fmin);
		EXPECT_NEAR(t, slow * fmin, fast * fmax, fast * fmax * 5 / 100);
	}
}

/* The biggest CPU at f_max pays nothing: its loop takes what it takes with
 * speed=work (the same boot, the model switched), within 1 %, and no stall. */
static void speed_big_no_stall(struct ktest *t)
{
	int bc = pick_cpu(false);
	enum speed_model was = speed_model;
	u64 work, all, stalled;

	if (!need_speed_all(t))
		KTEST_SKIP(t, "speed model is not all");
	if (speed_model == SPEED_EXACT) /* R < 1: every CPU stalls (kernel/sched/speed.c) */
		KTEST_SKIP(t, "speed=exact: the biggest CPU runs at R, not at -icount's pace");
	ASSERT_TRUE(t, all_at_fmax());
	speed_set_model(SPEED_WORK);
	work = timed_loop((unsigned int)bc);
	speed_set_model(SPEED_ALL);
	stalled = speed_stalled_ns((unsigned int)bc);
	all = timed_loop((unsigned int)bc);
	stalled = speed_stalled_ns((unsigned int)bc) - stalled;
	speed_set_model(was);
	selftest_restore_governors();
	ktest_diag(t, "cpu%d: %llu us with speed=work, %llu us with speed=all, stalled %llu ns", bc,
		   work / 1000, all / 1000, stalled);
	EXPECT_EQ(t, stalled, 0);
	EXPECT_NEAR(t, all, work, work / 100);
}

/* The sum of f(cpu) over the CPUs of m: their instructions, their idle time. */
static u64 mask_sum(const cpumask_t *m, u64 (*f)(unsigned int))
{
	u64 n = 0;

	for (unsigned int c = 0; c < nr_cpu_ids; c++)
		if (cpumask_test_cpu(c, m))
			n += f(c);
	return n;
}

/* One hackbench on mask m: its time, and the instructions and idle time of m's CPUs. */
struct hb_side {
	u64 ns, insns, idle;
};

static int hb_side_run(const cpumask_t *m, struct hb_side *s)
{
	struct hackbench_result r;
	u64 i0 = mask_sum(m, arch_insn_count_cpu), d0 = mask_sum(m, cpu_idle_time_ns);
	int err = bench_hackbench_on(1, HB_LOOPS, 0, m, &r);

	s->ns += r.ns;
	s->insns += mask_sum(m, arch_insn_count_cpu) - i0;
	s->idle += mask_sum(m, cpu_idle_time_ns) - d0;
	return err;
}

/* hackbench (no work units: only the kernel's own code) pinned to the slowest CPUs vs
 * the fastest takes capacity_big/capacity_little as long, within 5 % (issue 26). One
 * run is not a figure: a few % of timing moves a run by +-20 % (docs/experiments.md),
 * so HB_PAIRS runs alternate and their sums are compared. */
#define HB_PAIRS 3

static void speed_hackbench_pinned(struct ktest *t)
{
	int lc = pick_cpu(true), bc = pick_cpu(false);
	cpumask_t lm, bm;
	struct hb_side l = { 0 }, b = { 0 };
	u64 cl = capacity_orig_of((unsigned int)lc), cb = capacity_orig_of((unsigned int)bc);

	if (!need_speed_all(t))
		KTEST_SKIP(t, "speed model is not all");
	if (cl == cb)
		KTEST_SKIP(t, "needs two CPU capacities");
	cpumask_clear(&lm);
	cpumask_clear(&bm);
	for (unsigned int c = 0; c < nr_cpu_ids; c++) {
		if (cpu_online(c) && capacity_orig_of(c) == cl)
			__cpumask_set_cpu(c, &lm);
		if (cpu_online(c) && capacity_orig_of(c) == cb)
			__cpumask_set_cpu(c, &bm);
	}
	ASSERT_TRUE(t, all_at_fmax());
	for (int k = 0; k < HB_PAIRS; k++) {
		u64 bns = b.ns, lns = l.ns;

		ASSERT_EQ(t, hb_side_run(&bm, &b), 0);
		ASSERT_EQ(t, hb_side_run(&lm, &l), 0);
		ktest_diag(t, "run %d: big %llu us, little %llu us (x%llu/1000)", k + 1,
			   (b.ns - bns) / 1000, (l.ns - lns) / 1000,
			   (l.ns - lns) * 1000 / (b.ns - bns));
	}
	selftest_restore_governors();
	/* Where the time went: the CPUs' instructions (spins included) and idle time. */
	ktest_diag(t, "instructions: big %llu, little %llu (x%llu/1000)", b.insns, l.insns,
		   l.insns * 1000 / b.insns);
	ktest_diag(t, "idle: big %llu of %llu CPU-us, little %llu of %llu", b.idle / 1000,
		   b.ns * cpumask_weight(&bm) / 1000, l.idle / 1000,
		   l.ns * cpumask_weight(&lm) / 1000);
	ktest_diag(t,
		   "hackbench g=1 l=%d x%d: big %llu us, little %llu us (x%llu/1000, model "
		   "x%llu/1000)",
		   HB_LOOPS, HB_PAIRS, b.ns / 1000, l.ns / 1000, l.ns * 1000 / b.ns,
		   cb * 1000 / cl);
	EXPECT_NEAR(t, l.ns * cl, b.ns * cb, b.ns * cb * 5 / 100);
}

/* A task that sleeps 1 us between short bursts of kernel code (lock, unlock, yield):
 * its own runtime, and so its PELT running time, holds its slowness. */
#define BURST_LOOPS 3000

struct burst {
	struct mutex m;
	u64 runtime, util, elapsed;
	u64 tail_runtime, tail_elapsed; /* over the second half, which util_avg reflects */
	u64 insns;			/* its CPU's, during the run (speed=exact's plugin) */
	u64 own;			/* its own, as speed=exact charged them */
};

static void burst_fn(void *arg)
{
	struct burst *b = arg;
	u64 t0 = arch_clock_ns(), th = 0, rh = 0, qh = 0, i0 = arch_insn_count_cpu(arch_cpu_id());
	u64 own0 = current->stats.exact_insns;

	for (int i = 0; i < BURST_LOOPS; i++) {
		if (i == BURST_LOOPS / 2) {
			th = arch_clock_ns();
			rh = current->se.sum_exec_runtime;
			qh = cpu_irq_time_ns(arch_cpu_id());
		}
		mutex_lock(&b->m);
		mutex_unlock(&b->m);
		yield();
		sleep_ns(1000);
	}
	b->own = current->stats.exact_insns - own0;
	b->runtime = current->se.sum_exec_runtime;
	b->util = current->se.avg.util_avg;
	b->elapsed = arch_clock_ns() - t0;
	b->insns = arch_insn_count_cpu(arch_cpu_id()) - i0;
	b->tail_runtime = b->runtime - rh;
	/* PELT's clock (clock_task) does not see IRQ time: neither running nor sleeping. */
	b->tail_elapsed = arch_clock_ns() - th - (cpu_irq_time_ns(arch_cpu_id()) - qh);
}

static struct burst burst_on(unsigned int cpu)
{
	struct burst b = { .runtime = 0 };
	struct task_struct *th;

	mutex_init(&b.m);
	th = kthread_create(burst_fn, &b, "speed-burst");
	if (!th)
		return b;
	set_cpus_allowed(th, cpumask_of(cpu));
	wake_up_new_task(th);
	kthread_join(th);
	return b;
}

/* The task's runtime holds its slowness: runtime per instruction of its own (as speed=exact
 * charged them) x capacity equal within 3 % on the slowest and the fastest CPU. The plain
 * runtime ratio (issue 26: within 5 % of the capacity ratio) is shown: it also carries
 * the ratio of the two runs' own instructions, which moves by a few % with the code's
 * layout (the path through sleep, wakeup and idle depends on timing; docs/experiments.md).
 * util_avg is shown beside the share of time running x capacity over the runs' second
 * halves (its expectation; open, not asserted: on qemu-bl44 LITTLE's util is ~15 % above
 * it, on qemu-bl16 it matches; not understood, see docs/experiments.md). */
static void speed_bursty_runtime(struct ktest *t)
{
	int lc = pick_cpu(true), bc = pick_cpu(false);
	u64 cl = capacity_orig_of((unsigned int)lc), cb = capacity_orig_of((unsigned int)bc);
	struct burst l, b;

	if (!need_speed_all(t))
		KTEST_SKIP(t, "speed model is not all");
	if (cl == cb)
		KTEST_SKIP(t, "needs two CPU capacities");
	ASSERT_TRUE(t, all_at_fmax());
	b = burst_on((unsigned int)bc);
	l = burst_on((unsigned int)lc);
	selftest_restore_governors();
	ASSERT_GT(t, b.runtime, 0);
	ASSERT_GT(t, l.tail_elapsed, 0);
	ASSERT_GT(t, b.tail_runtime, 0);
	/* Expected util_l / util_b, x 1000, from the runs' own duty cycles. */
	u64 want = l.tail_runtime * cl * b.tail_elapsed / l.tail_elapsed * 1000 /
		   (b.tail_runtime * cb);

	ktest_diag(t,
		   "%d loops: runtime cpu%d %llu us of %llu, cpu%d %llu us of %llu (x%llu/1000, "
		   "model x%llu/1000); util %llu / %llu (x%llu/1000, duty x capacity x%llu/1000)",
		   BURST_LOOPS, lc, l.runtime / 1000, l.elapsed / 1000, bc, b.runtime / 1000,
		   b.elapsed / 1000, l.runtime * 1000 / b.runtime, cb * 1000 / cl, l.util, b.util,
		   b.util ? l.util * 1000 / b.util : 0, want);
	ASSERT_GT(t, l.own, 0);
	ASSERT_GT(t, b.own, 0);
	ktest_diag(t,
		   "own instructions: cpu%d %llu, cpu%d %llu (x%llu/1000); runtime per own "
		   "instruction x%llu/1000; its CPU's instructions x%llu/1000",
		   lc, l.own, bc, b.own, l.own * 1000 / b.own,
		   (l.runtime * 1000 / l.own) * 1000 / (b.runtime * 1000 / b.own),
		   b.insns ? l.insns * 1000 / b.insns : 0);
	/* runtime/own x capacity: l.runtime * b.own * cl against b.runtime * l.own * cb (both
	 * well below 2^64: runtimes < 2^38 ns, instruction counts < 2^27, capacities < 2^11). */
	EXPECT_NEAR(t, l.runtime / 1000 * b.own / 1000 * cl, b.runtime / 1000 * l.own / 1000 * cb,
		    b.runtime / 1000 * l.own / 1000 * cb * 3 / 100);
}

/* By name only, in boots with cpuidle=off (tests/runs.py speed-*): these measure the
 * speed model alone, and an idle state's exit latency (up to 2.9 ms for a cluster on
 * qemu-bl44, paid by the CPU a loop is woken on or by a policy's CPUs at an OPP
 * change) would add to a loop's time. The idle states are tested by suite cpuidle. */
KTEST_SUITE_BY_NAME(speed, KTEST_CASE(speed_loop_alone), KTEST_CASE(speed_loop_opp),
		    KTEST_CASE(speed_big_no_stall));
/* speed=exact (tests/runs.py speed-exact-*, with the QEMU plugin): every CPU busy, and the
 * slowness of a bursty task in its own runtime. */
KTEST_SUITE_BY_NAME(speed_shared, KTEST_CASE(speed_loop_all_busy),
		    KTEST_CASE(speed_loop_all_busy_opp), KTEST_CASE(speed_bursty_runtime));
/* Open (docs/experiments.md, speed=exact): hackbench pinned to the slowest vs the fastest
 * CPUs is x2.56 under speed=exact, not within 5 % of the capacity ratio: its time per
 * instruction holds, but it executes x1.28 more instructions on the slow CPUs (the
 * kernel's work per emulated ms, in a run that lasts longer). By name only. */
KTEST_SUITE_BY_NAME(speed_hackbench, KTEST_CASE(speed_hackbench_pinned));
