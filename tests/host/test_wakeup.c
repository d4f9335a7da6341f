/* test_wakeup.c - scenarios for the wakeup and fork paths of fair.c and fair_select.c
 * against Linux 6.1's rules, written here from Linux's source and not from ours: the next
 * buddy a wakeup preemption sets (check_preempt_wakeup), wake_affine_weight's effective
 * loads, a forked child's vruntime (task_fork_fair) and util (post_init_entity_util_avg),
 * and the fork CPU of find_idlest_cpu on the asymmetric HiKey960. The machine is
 * test_sched.c's. */
#include "../../kernel/sched/sched_internal.h"
#include "cpuidle.h"
#include "fake_arch.h"
#include "sched_harness.h"

#define SCALE_LOAD(w)	    ((unsigned long)(w) << 10) /* 64-bit Linux: scale_load() */
#define LINUX_IMBALANCE_PCT 117			       /* Linux 6.1 sd_init() */

static s64 vdiff(const struct task_struct *a, const struct task_struct *b)
{
	return (s64)(a->se.vruntime - b->se.vruntime);
}

/* Time moves in quarter ticks until cond(arg) holds or `limit` passes; true if it held. */
static bool run_until(bool (*cond)(void *), void *arg, u64 limit)
{
	u64 end = fake_arch_now() + limit;

	while (!cond(arg)) {
		if (fake_arch_now() >= end)
			return false;
		fake_arch_run_until(fake_arch_now() + TICK_NSEC / 4);
	}
	return true;
}

/* ---- 5: the next buddy of a wakeup preemption --------------------------------------- */

struct three {
	struct task_struct *a, *b, *c;
	unsigned int cpu;
};

/* Linux 6.1 wakeup_gran() of a nice-0 wakee: its virtual time is real time. */
#define GRAN ((s64)sysctl_sched_wakeup_granularity)

/* a or b runs, ahead of the other (the leftmost) by more than a granularity. */
static bool lead_of_gran(void *arg)
{
	struct three *s = arg;
	struct task_struct *run = cpu_curr(s->cpu), *wait = run == s->a ? s->b : s->a;

	return (run == s->a || run == s->b) && vdiff(run, wait) > GRAN + (s64)(100 * NSEC_PER_USEC);
}

/* Linux 6.1 check_preempt_wakeup() + pick_next_entity(). a and b share CPU 5; c slept
 * there with a vruntime after the waiting (leftmost) one and more than a granularity
 * behind the running one. Woken, c preempts the running one and is
 * the next buddy; the pick takes it over the leftmost (within a granularity of it).
 * The old rule (no next buddy, the preempted one as last buddy) ran the leftmost. */
static void wakeup_preemption_next_buddy(struct ktest *t)
{
	struct three s = { .cpu = 5 };
	struct task_struct *run, *left;

	if (!machine_up(t))
		return;
	s.a = task_new("a", cpumask_of(s.cpu), 0);
	s.b = task_new("b", cpumask_of(s.cpu), 0);
	s.c = task_new("c", cpumask_of(s.cpu), 0);
	task_start(s.a, s.cpu);
	task_start(s.b, s.cpu);
	task_start(s.c, s.cpu);
	run_for(100 * MS);
	while (cpu_curr(s.cpu) != s.c)
		run_for(TICK_NSEC / 4);
	ASSERT_TRUE(t, task_sleep(t, s.c));
	ASSERT_TRUE(t, run_until(lead_of_gran, &s, 200 * MS));
	run = cpu_curr(s.cpu);
	left = run == s.a ? s.b : s.a;
	/* halfway between the leftmost and a granularity behind the running one */
	s.c->se.vruntime = left->se.vruntime + (u64)MIN((vdiff(run, left) - GRAN) / 2, GRAN / 2);
	ktest_diag(t, "c wakes %lld us behind the running %s, %lld us after the leftmost %s",
		   vdiff(run, s.c) / 1000, run->comm, vdiff(s.c, left) / 1000, left->comm);
	fake_arch_set_cpu(0);
	EXPECT_EQ(t, wake_up_process(s.c), 1);
	settle();
	EXPECT_TRUE(t, cpu_curr(s.cpu) == s.c);
	/* 3 < sched_nr_latency (8) tasks: no last buddy (the preempted one). */
	EXPECT_TRUE(t, cpu_rq(s.cpu)->cfs.last == NULL);
	machine_ok(t);
}

/* With sched_nr_latency (8) tasks queued (Linux: scale), the task a wakeup preempts is
 * the last buddy: 7 hogs and a task that slept long enough to be placed at min_vruntime
 * minus half a latency, so it preempts whichever hog runs. */
static void wakeup_preemption_last_buddy_at_scale(struct ktest *t)
{
	struct task_struct *c, *preempted;

	if (!machine_up(t))
		return;
	c = task_new("c", cpumask_of(6), 0);
	task_start(c, 6);
	run_for(MS);
	ASSERT_TRUE(t, task_sleep(t, c));
	for (int i = 0; i < 7; i++)
		hog(6);
	run_for(200 * MS);
	preempted = cpu_curr(6);
	fake_arch_set_cpu(0);
	EXPECT_EQ(t, wake_up_process(c), 1);
	EXPECT_EQ(t, cpu_rq(6)->cfs.nr_running, 8);
	settle();
	EXPECT_TRUE(t, cpu_curr(6) == c);
	EXPECT_TRUE(t, cpu_rq(6)->cfs.last == &preempted->se);
	machine_ok(t);
}

/* ---- 7: wake_affine_weight ------------------------------------------------------------- */

/* Linux 6.1 wake_affine_weight(): this_cpu if its load with the wakee (and, sync, without
 * the waker's), times prev's capacity, is below prev's load without the wakee, times this
 * capacity, biased by half the imbalance_pct (WA_BIAS); else prev. */
static int linux_wake_affine_weight(unsigned long this_load, unsigned long prev_load,
				    unsigned long task_load, unsigned long this_cap,
				    unsigned long prev_cap, int this_cpu, int prev_cpu,
				    long waker_load)
{
	s64 this_eff = (s64)this_load, prev_eff;

	if (waker_load >= 0) { /* sync */
		if (waker_load > this_eff)
			return this_cpu;
		this_eff -= waker_load;
	}
	this_eff = (this_eff + (s64)task_load) * 100 * (s64)prev_cap;
	prev_eff = ((s64)prev_load - (s64)task_load) * (100 + (LINUX_IMBALANCE_PCT - 100) / 2) *
		   (s64)this_cap;
	if (waker_load >= 0)
		prev_eff++;
	return this_eff < prev_eff ? this_cpu : prev_cpu;
}

/* CPU 1 runs one nice-0 task; CPU 2 one nice-0 task and a nice -5 one (weight 3121) that
 * just went to sleep. Woken from CPU 1, the wakee may run on CPUs 1 and 2, both busy:
 * the raw loads say CPU 1 (less load), Linux's rule says CPU 2 (the wakee's own load
 * is most of CPU 2's). */
static void wake_affine_moves_wakee_load(struct ktest *t)
{
	struct task_struct *waker, *w;
	unsigned long this_load, prev_load, task_load;
	int want, old;

	if (!machine_up(t))
		return;
	waker = hog(1);
	hog(2);
	w = task_new("wakee", cpumask_of(2), -5);
	task_start(w, 2);
	run_for(300 * MS);
	while (cpu_curr(2) != w)
		run_for(TICK_NSEC / 4);
	ASSERT_TRUE(t, task_sleep(t, w));
	ASSERT_EQ(t, set_cpus_allowed(w, CPUS(0x6)), 0);
	run_for(MS);
	ASSERT_TRUE(t, cpu_curr(1) == waker);
	this_load = cpu_load(cpu_rq(1));
	prev_load = cpu_load(cpu_rq(2));
	task_load = w->se.avg.load_avg;
	want = linux_wake_affine_weight(this_load, prev_load, task_load, capacity_of(1),
					capacity_of(2), 1, 2, -1);
	old = this_load < prev_load ? 1 : 2;
	ktest_diag(t, "loads: CPU1 %lu, CPU2 %lu, wakee %lu: Linux CPU%d, raw loads CPU%d",
		   this_load, prev_load, task_load, want, old);
	EXPECT_NE(t, want, old); /* the scenario tells the two rules apart */
	fake_arch_set_cpu(1);
	EXPECT_EQ(t, wake_up_process(w), 1);
	settle();
	EXPECT_EQ(t, w->cpu, want);
	machine_ok(t);
}

/* A sync wakeup: the waker's load leaves this_cpu. CPU 1 runs the waker (nice -5, weight
 * 3121) and a nice-0 hog; CPU 2 three nice-0 hogs and the wakee's blocked load. The raw
 * loads say CPU 2; without the waker, CPU 1 is the lighter (Linux's rule). */
static void wake_affine_sync_drops_waker_load(struct ktest *t)
{
	struct task_struct *waker, *w;
	unsigned long this_load, prev_load, task_load, waker_load;
	int want, old;

	if (!machine_up(t))
		return;
	waker = task_new("waker", cpumask_of(1), -5);
	task_start(waker, 1);
	hog(1);
	for (int i = 0; i < 3; i++)
		hog(2);
	w = task_new("wakee", cpumask_of(2), 0);
	task_start(w, 2);
	run_for(300 * MS);
	while (cpu_curr(2) != w)
		run_for(TICK_NSEC / 4);
	ASSERT_TRUE(t, task_sleep(t, w));
	ASSERT_EQ(t, set_cpus_allowed(w, CPUS(0x6)), 0);
	run_for(20 * MS);
	while (cpu_curr(1) != waker)
		run_for(TICK_NSEC / 4);
	this_load = cpu_load(cpu_rq(1));
	prev_load = cpu_load(cpu_rq(2));
	task_load = w->se.avg.load_avg;
	waker_load = waker->se.avg.load_avg;
	want = linux_wake_affine_weight(this_load, prev_load, task_load, capacity_of(1),
					capacity_of(2), 1, 2, (long)waker_load);
	old = this_load < prev_load ? 1 : 2;
	ktest_diag(t, "loads: CPU1 %lu (waker %lu), CPU2 %lu, wakee %lu: Linux CPU%d, raw CPU%d",
		   this_load, waker_load, prev_load, task_load, want, old);
	EXPECT_NE(t, want, old);
	fake_arch_set_cpu(1);
	EXPECT_EQ(t, wake_up_process_flags(w, WF_SYNC), 1);
	settle();
	EXPECT_EQ(t, w->cpu, want);
	machine_ok(t);
}

/* ---- 8: fork ------------------------------------------------------------------------- */

struct pair {
	struct task_struct *p, *q;
	u64 lead;
};

/* The running one of the two leads the other by more than s->lead: it is s->p then. */
static bool running_ahead(void *arg)
{
	struct pair *s = arg;
	struct task_struct *run = cpu_curr(s->p->cpu), *other = run == s->p ? s->q : s->p;

	if ((run != s->p && run != s->q) || vdiff(run, other) <= (s64)s->lead)
		return false;
	s->q = other;
	s->p = run;
	return true;
}

/* Linux 6.1 sched_slice() + calc_delta_fair() of a nice-0 entity joining a cfs_rq of
 * nr_running entities and load weight `load` (both counting the running one). */
static u64 linux_new_vslice(unsigned int nr_running, unsigned long load)
{
	u64 period = nr_running + 1 > 8 ? (nr_running + 1) * (u64)sysctl_sched_min_granularity
					: sysctl_sched_latency;
	u64 slice = period * NICE_0_LOAD / (load + NICE_0_LOAD);

	return slice > sysctl_sched_min_granularity ? slice : sysctl_sched_min_granularity;
}

/* Linux 6.1 task_fork_fair(): the child starts at the parent's vruntime, or a slice after
 * min_vruntime (START_DEBIT), whichever is later. Two tasks share CPU 3; the running one
 * forks when it is ahead of the other (min_vruntime) by more than that slice: the child
 * starts where its parent is. */
static void fork_child_vruntime_from_parent(struct ktest *t)
{
	struct pair s;
	struct task_struct *child;
	struct cfs_rq *cfs = &cpu_rq(3)->cfs;
	u64 vslice, min_v, want;

	if (!machine_up(t))
		return;
	s.p = hog(3);
	s.q = hog(3);
	vslice = linux_new_vslice(2, 2 * NICE_0_LOAD);
	s.lead = vslice;
	run_for(100 * MS);
	ASSERT_TRUE(t, run_until(running_ahead, &s, 500 * MS));
	child = task_new("child", cpumask_of(3), 0);
	fake_arch_set_cpu(3);
	min_v = cfs->min_vruntime;
	wake_up_new_task(child);
	want = (s64)(s.p->se.vruntime - (min_v + vslice)) > 0 ? s.p->se.vruntime : min_v + vslice;
	ktest_diag(t, "parent %lld us ahead of min_vruntime, vslice %llu us: child at %lld us",
		   (s64)(s.p->se.vruntime - min_v) / 1000, vslice / 1000,
		   (s64)(child->se.vruntime - min_v) / 1000);
	EXPECT_EQ(t, child->se.vruntime, want);
	EXPECT_EQ(t, child->se.vruntime, s.p->se.vruntime);
	settle();
	machine_ok(t);
}

/* Linux 6.1 post_init_entity_util_avg() on 64-bit: util = cfs util x scale_load(weight)
 * / (cfs load + 1), capped at half the spare capacity; the scaled weight makes the cap
 * win. CPU 6 runs a nice -10 task (its load 9.3x its util) for 10 ms. */
static void fork_child_util_is_half_spare(struct ktest *t)
{
	struct task_struct *child;
	struct cfs_rq *cfs = &cpu_rq(6)->cfs;
	unsigned long u, l, est, cap, want, unscaled;

	if (!machine_up(t))
		return;
	task_start(task_new("heavy", cpumask_of(6), -10), 6);
	run_for(10 * MS);
	child = task_new("child", cpumask_of(6), 0);
	u = cfs->avg.util_avg;
	l = cfs->avg.load_avg;
	cap = (capacity_orig_of(6) - u) / 2;
	est = u * SCALE_LOAD(NICE_0_LOAD) / (l + 1);
	want = u ? (est < cap ? est : cap) : cap;
	unscaled = u * NICE_0_LOAD / (l + 1);
	ktest_diag(t, "CPU6 util %lu load %lu: cap %lu, Linux %lu, unscaled weight %lu", u, l, cap,
		   want, unscaled < cap ? unscaled : cap);
	ASSERT_TRUE(t, u > 0 && u < capacity_orig_of(6));
	EXPECT_LT(t, unscaled, cap); /* the scenario tells the two apart */
	fake_arch_set_cpu(0);
	wake_up_new_task(child);
	EXPECT_EQ(t, child->se.avg.util_avg, want);
	EXPECT_EQ(t, child->se.avg.runnable_avg, want);
	settle();
	machine_ok(t);
}

/* A task pinned to cpu runs for 2 ms and blocks: cpu is the one idle the latest. */
static void idle_last(struct ktest *t, unsigned int cpu)
{
	struct task_struct *p = task_new("brief", cpumask_of(cpu), 0);

	task_start(p, cpu);
	run_for(2 * MS);
	task_sleep(t, p);
}

/* Linux 6.1 find_idlest_cpu() -> find_idlest_group(): every group has spare capacity,
 * so the group with the most idle CPUs wins, the local one on a tie; then
 * find_idlest_group_cpu() (no cpuidle states): the idle CPU with the latest idle_stamp.
 * A parent on an A53 forks with every other CPU idle: the A73s have 4 idle CPUs to the
 * A53s' 3, and CPU 6 went idle the latest. A parent on an A73 with two more A73s busy:
 * the A53s (4 idle to 1), of which CPU 2 went idle the latest. */
static void fork_cpu_find_idlest_group(struct ktest *t)
{
	struct task_struct *parent, *child;

	if (!machine_up(t))
		return;
	idle_last(t, 5);
	idle_last(t, 6);
	parent = task_new("parent", ALL_CPUS, 0);
	task_start(parent, 0);
	ASSERT_TRUE(t, cpu_curr(0) == parent);
	child = task_new("child", ALL_CPUS, 0);
	task_start(child, 0);
	EXPECT_EQ(t, child->cpu, 6); /* the old rule: CPU 1, first idle that fits */

	if (!machine_up(t))
		return;
	hog(5);
	hog(6);
	idle_last(t, 3);
	idle_last(t, 2);
	parent = task_new("parent", cpumask_of(4), 0);
	task_start(parent, 4);
	ASSERT_TRUE(t, cpu_curr(4) == parent);
	child = task_new("child", ALL_CPUS, 0);
	task_start(child, 4);
	EXPECT_EQ(t, child->cpu, 2); /* the old rule: CPU 7 */
	machine_ok(t);
}

/* Linux 6.1 find_idlest_group_cpu() with cpuidle states: the idle CPU whose state
 * (idle_get_state()) has the smallest exit_latency wins whatever its idle_stamp.
 * As the first case of fork_cpu_find_idlest_group (the A73s win, CPU 6 went idle
 * the latest), but CPU 6 sits in CLUSTER_SLEEP, 4 and 7 in CPU_SLEEP, 5 in WFI. */
static void fork_cpu_find_idlest_shallowest_state(struct ktest *t)
{
	static const int state[4] = { 1, 0, 2, 1 }; /* CPUs 4-7 */
	struct task_struct *parent, *child;

	if (!machine_up(t))
		return;
	idle_last(t, 5);
	idle_last(t, 6);
	cpuidle_init();
	if (cpuidle_nr_states(6) < 3) {
		cpuidle_set_enabled(false);
		KTEST_SKIP(t, "the tree gives CPU 6 no cluster state");
	}
	for (unsigned int c = 4; c < 8; c++)
		idle_set_state_idx(c, state[c - 4]);
	parent = task_new("parent", ALL_CPUS, 0);
	task_start(parent, 0);
	child = task_new("child", ALL_CPUS, 0);
	task_start(child, 0);
	EXPECT_EQ(t, child->cpu, 5); /* the idle_stamp rule alone: CPU 6 */
	for (unsigned int c = 4; c < 8; c++)
		idle_set_state_idx(c, -1);
	cpuidle_set_enabled(false);
	machine_ok(t);
}

/* The shell's `why` (kernel/sched/why.c): the rule select_task_rq_fair() took, by Linux
 * 6.1's select_idle_sibling() on the HiKey960 with everything else idle. A small task
 * woken on its own idle CPU 1: target (= prev) is idle and it fits - taken. A task too
 * big for a LITTLE CPU but not for a big one: target does not fit, prev is target, no
 * recent CPU, so select_idle_capacity() from CPU 1 - CPUs 2 and 3 do not fit, 4 is the
 * first that does. */
static const struct why_wakeup *last_wakeup(const struct task_struct *p)
{
	return &p->why.wakeup[(p->why.nr - 1) % WHY_NR_WAKEUPS];
}

static void why_records_the_rule(struct ktest *t)
{
	struct task_struct *w;
	const struct why_wakeup *r;

	if (!machine_up(t))
		return;
	w = task_new("small", CPUS(0x2), 0);
	task_start(w, 1);
	run_for(MS);
	ASSERT_TRUE(t, task_sleep(t, w));
	run_for(100 * MS); /* its util decays to almost nothing */
	ASSERT_EQ(t, set_cpus_allowed(w, ALL_CPUS), 0);
	w->recent_used_cpu = -1;
	fake_arch_set_cpu(1);
	EXPECT_EQ(t, wake_up_process(w), 1);
	settle();
	ASSERT_NE(t, w->why.nr, 0);
	r = last_wakeup(w);
	EXPECT_EQ(t, r->prev, 1);
	EXPECT_EQ(t, r->target, 1);
	EXPECT_EQ(t, r->chosen, 1);
	EXPECT_EQ(t, r->rule, WHY_TARGET_IDLE);
	EXPECT_EQ(t, w->cpu, 1);

	if (!machine_up(t))
		return;
	w = task_new("big", CPUS(0x2), 0);
	task_start(w, 1);
	run_for(60 * MS); /* util between the LITTLE and the big thresholds */
	while (cpu_curr(1) != w)
		run_for(TICK_NSEC / 4);
	ASSERT_TRUE(t, task_sleep(t, w));
	ASSERT_EQ(t, set_cpus_allowed(w, ALL_CPUS), 0);
	w->recent_used_cpu = -1;
	ktest_diag(t, "util_est %lu, LITTLE capacity %lu", task_util_est_of(w), capacity_of(1));
	ASSERT_FALSE(t, fits_capacity(task_util_est_of(w), capacity_of(1)));
	ASSERT_TRUE(t, fits_capacity(task_util_est_of(w), capacity_of(4)));
	fake_arch_set_cpu(1);
	EXPECT_EQ(t, wake_up_process(w), 1);
	settle();
	r = last_wakeup(w);
	EXPECT_EQ(t, r->prev, 1);
	EXPECT_EQ(t, r->target, 1);
	EXPECT_EQ(t, r->chosen, 4);
	EXPECT_EQ(t, r->rule, WHY_IDLE_CAPACITY);
	EXPECT_TRUE(t, r->fits);
	EXPECT_EQ(t, w->cpu, 4);
	machine_ok(t);
}

KTEST_SUITE(sched_wakeup, KTEST_CASE(wakeup_preemption_next_buddy),
	    KTEST_CASE(wakeup_preemption_last_buddy_at_scale),
	    KTEST_CASE(wake_affine_moves_wakee_load), KTEST_CASE(wake_affine_sync_drops_waker_load),
	    KTEST_CASE(fork_child_vruntime_from_parent), KTEST_CASE(fork_child_util_is_half_spare),
	    KTEST_CASE(fork_cpu_find_idlest_group),
	    KTEST_CASE(fork_cpu_find_idlest_shallowest_state), KTEST_CASE(why_records_the_rule));
