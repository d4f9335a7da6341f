/* selftest_hotplug.c - self-tests of CPU hotplug (kernel/cpu.c): bad requests refused,
 * tasks leaving a dying CPU (the pinned one by the fallback), a whole
 * cluster off and back (asym flags, cpufreq policy), a pending timer firing
 * on time elsewhere, a half-done cpu_work() finished elsewhere, the last CPU refused, and
 * random CPUs cycling under a mixed workload with nothing lost, and a CPU that was off
 * owing no emulated stall and drawing no power for that time. Every case leaves all CPUs
 * online. */
#include "cpuidle.h"
#include "cpu.h"
#include "cpufreq.h"
#include "kernel.h"
#include "ktest.h"
#include "pipe.h"
#include "sched.h"
#include "selftest.h"
#include "speed.h"
#include "timer.h"
#include "topology.h"

#define US 1000ull
#define MS 1000000ull

static cpumask_t boot_online; /* the CPUs online before the first case */

static void all_online(void)
{
	unsigned int cpu;

	cpumask_t down;

	if (cpumask_empty(&boot_online))
		boot_online = *cpu_online_mask;
	cpumask_andnot(&down, &boot_online, cpu_online_mask);
	for_each_cpu(cpu, &down)
		cpu_up(cpu);
}

/* The victim of the one-CPU cases: the highest online CPU (a big one on the
 * big.LITTLE trees; CPUs that never came up at boot are not candidates). */
static unsigned int last_online(void)
{
	unsigned int cpu, last = 0;

	for_each_cpu(cpu, cpu_online_mask)
		last = cpu;
	return last;
}

static unsigned int offline_nr_running(void)
{
	unsigned int n = 0;

	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (!cpu_online(cpu))
			n += cpu_nr_running(cpu);
	return n;
}

/* A task whose mask (or whose CPU) is set before it first runs. */
static struct task_struct *start(void (*fn)(void *), void *arg, const char *name,
				 const cpumask_t *mask)
{
	struct task_struct *t = kthread_create(fn, arg, name);

	if (t) {
		set_cpus_allowed(t, mask);
		wake_up_new_task(t);
	}
	return t;
}

struct worker {
	volatile bool stop;
	volatile u64 progress;	/* loops done */
	u64 period_ns, work_ns; /* period 0: CPU-bound */
	struct pipe *in, *out;	/* ping-pong: read in, write out */
};

static void worker_fn(void *arg)
{
	struct worker *w = arg;
	char c = 'x';

	while (!w->stop) {
		if (w->in) {
			if (pipe_read(w->in, &c, 1) != 1)
				break; /* closed: the end */
			if (w->out && pipe_write(w->out, &c, 1) != 1)
				break;
		} else {
			cpu_work(w->work_ns);
			if (w->period_ns)
				sleep_ns(w->period_ns);
		}
		w->progress++;
	}
}

static void stop_join(struct worker *w, struct task_struct **t, int n)
{
	for (int i = 0; i < n; i++)
		w[i].stop = true;
	for (int i = 0; i < n; i++)
		if (t[i])
			kthread_join(t[i]);
}

/* ---- cases ------------------------------------------------------------------------ */

static void hotplug_bad_input(struct ktest *t)
{
	unsigned int last = last_online();

	all_online();
	EXPECT_EQ(t, cpu_down(nr_cpu_ids), -ENODEV);
	EXPECT_EQ(t, cpu_up(nr_cpu_ids + 7), -ENODEV);
	EXPECT_EQ(t, cpu_up(0), -EINVAL);		    /* already online */
	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++) /* never came up at boot */
		if (!cpumask_test_cpu(cpu, &boot_online))
			EXPECT_EQ(t, cpu_up(cpu), -ENODEV);
	if (num_online_cpus() < 2)
		KTEST_SKIP(t, "one CPU");
	ASSERT_EQ(t, cpu_down(last), 0);
	EXPECT_EQ(t, cpu_down(last), -EINVAL); /* already offline */
	EXPECT_EQ(t, smp_call_function_single(last, (void (*)(void *))0, NULL), -1);
	EXPECT_FALSE(t, cpu_active(last));
	EXPECT_EQ(t, set_cpus_allowed(current, cpumask_of(last)), -1); /* no active CPU */
	ASSERT_EQ(t, cpu_up(last), 0);
	EXPECT_TRUE(t, cpu_online(last) && cpu_active(last));
	EXPECT_EQ(t, sched_check_invariants(true), 0);
}

/* A pinned and an unpinned CPU-bound task on the CPU going down: both move
 * and keep running; the pinned one's mask is widened to every CPU. */
static void hotplug_tasks_move(struct ktest *t)
{
	static struct worker w[2];
	struct task_struct *tk[2];
	unsigned int victim = last_online(), other = 0;
	struct cpuhp_stats st;
	unsigned int on_victim;
	int pol = cpufreq_policy_of(victim);
	cpumask_t pol_cpus, two, now;
	u64 before[2];

	all_online();
	if (num_online_cpus() < 2)
		KTEST_SKIP(t, "one CPU");
	pol_cpus = cpufreq_policy_cpus(pol);
	for (int i = 0; i < 2; i++)
		w[i] = (struct worker){ .work_ns = 200 * US };
	tk[0] = start(worker_fn, &w[0], "hp-pinned", cpumask_of(victim));
	tk[1] = start(worker_fn, &w[1], "hp-free", cpumask_of(victim));
	ASSERT_TRUE(t, tk[0] && tk[1]);
	msleep(5);
	EXPECT_EQ(t, tk[0]->cpu, (int)victim);
	EXPECT_EQ(t, tk[1]->cpu, (int)victim);
	/* Free it just before: the balancer has no time to move it first. */
	cpumask_or(&two, cpumask_of(victim), cpumask_of(other));
	set_cpus_allowed(tk[1], &two);
	on_victim = tk[1]->cpu == (int)victim;
	ASSERT_EQ(t, cpu_down(victim), 0);
	cpuhp_get_stats(&st);
	EXPECT_GE(t, st.last_migrated, 1 + on_victim);
	EXPECT_TRUE(t, cpumask_equal(&tk[0]->cpus_allowed, cpu_possible_mask)); /* fallback */
	EXPECT_EQ(t, tk[0]->nr_cpus_allowed, (int)nr_cpu_ids);
	EXPECT_TRUE(t, cpumask_equal(&tk[1]->cpus_allowed, &two));
	EXPECT_EQ(t, tk[1]->cpu, (int)other);
	now = cpufreq_policy_cpus(pol);
	if (pol >= 0 && !cpumask_subset(&now, cpumask_of(victim))) {
		cpumask_andnot(&pol_cpus, &pol_cpus, cpumask_of(victim));
		EXPECT_TRUE(t, cpumask_equal(&now, &pol_cpus));
		EXPECT_TRUE(t, cpufreq_policy_active(pol)); /* others left in it */
	}
	EXPECT_EQ(t, offline_nr_running(), 0);
	EXPECT_EQ(t, sched_check_invariants(true), 0);
	before[0] = w[0].progress;
	before[1] = w[1].progress;
	msleep(40); /* CFS slices reach latency/2 (9-12 ms): both get turns */
	EXPECT_GT(t, w[0].progress, before[0]);
	EXPECT_GT(t, w[1].progress, before[1]);
	EXPECT_NE(t, tk[0]->cpu, (int)victim);
	ktest_diag(t, "cpu_down(%u): %llu us, %u migrated", victim, st.last_down_ns / US,
		   st.last_migrated);
	ASSERT_EQ(t, cpu_up(victim), 0);
	cpuhp_get_stats(&st);
	ktest_diag(t, "cpu_up(%u): %llu us", victim, st.last_up_ns / US);
	stop_join(w, tk, 2);
	EXPECT_EQ(t, sched_check_invariants(true), 0);
}

static bool any_asym_flag(void)
{
	for (int c = 0; c < cpu_topology.nr_cpus; c++)
		for (int l = 0; l < SD_NR_LEVELS; l++)
			if (cpu_topology.cpu[c].sd[l].flags & SD_ASYM_CPUCAPACITY)
				return true;
	return false;
}

/* The cluster of the last CPU (the big one on big.LITTLE trees) off and
 * back: the rest is symmetric in between (if one capacity is left), its
 * policy keeps only its CPUs of other clusters (none: inactive). */
static void hotplug_cluster(struct ktest *t)
{
	const struct topology *topo = &cpu_topology;
	unsigned int last = last_online(), cpu;
	int k = topo->cpu[last].cluster_id, pol = cpufreq_policy_of(last);
	bool asym_before = topo->asym_cpucapacity, uniform = true;
	cpumask_t cl, stay, pol_cpus, now;
	int err = 0;

	all_online();
	pol_cpus = cpufreq_policy_cpus(pol);
	cpumask_and(&cl, &topo->cluster_cpus[k], cpu_online_mask);
	if (topo->nr_clusters < 2 || cpumask_equal(&cl, cpu_online_mask))
		KTEST_SKIP(t, "one cluster");
	cpumask_andnot(&stay, cpu_online_mask, &cl);
	for_each_cpu(cpu, &stay) /* what stays: one capacity? */
		uniform &= topo->cpu[cpu].capacity_orig == topo->cpu[0].capacity_orig;
	EXPECT_EQ(t, any_asym_flag(), asym_before);
	for_each_cpu(cpu, &cl)
		err |= cpu_down(cpu);
	ASSERT_EQ(t, err, 0);
	for (int c = 0; c < topo->nr_cpus; c++)
		EXPECT_FALSE(t, cpumask_intersects(&topo->cpu[c].sd[SD_LEVEL_DIE].span, &cl));
	if (uniform) { /* one capacity left: symmetric */
		EXPECT_FALSE(t, topo->asym_cpucapacity);
		EXPECT_FALSE(t, any_asym_flag());
	}
	if (pol >= 0) { /* a policy spanning clusters keeps its other CPUs */
		bool left = cpumask_andnot(&stay, &pol_cpus, &cl);

		EXPECT_EQ(t, cpufreq_policy_active(pol), left);
		now = cpufreq_policy_cpus(pol);
		EXPECT_TRUE(t, cpumask_equal(&now, &stay));
	}
	EXPECT_EQ(t, offline_nr_running(), 0);
	EXPECT_EQ(t, sched_check_invariants(true), 0);
	msleep(2);
	for_each_cpu(cpu, &cl)
		err |= cpu_up(cpu);
	ASSERT_EQ(t, err, 0);
	EXPECT_EQ(t, topo->asym_cpucapacity, asym_before);
	EXPECT_EQ(t, any_asym_flag(), asym_before);
	if (pol >= 0) {
		EXPECT_TRUE(t, cpufreq_policy_active(pol));
		now = cpufreq_policy_cpus(pol);
		EXPECT_TRUE(t, cpumask_equal(&now, &pol_cpus));
	}
	EXPECT_EQ(t, sched_check_invariants(true), 0);
}

struct shot {
	struct timer timer;
	u64 expires, fired_at;
	int armed_on, fired_on;
};

static void shot_fn(struct timer *tm)
{
	struct shot *s = container_of(tm, struct shot, timer);

	s->fired_on = (int)arch_cpu_id();
	__atomic_store_n(&s->fired_at, arch_clock_ns(), __ATOMIC_RELEASE);
}

static void arm_here(void *arg)
{
	struct shot *s = arg;

	s->armed_on = (int)arch_cpu_id();
	s->expires = arch_clock_ns() + 20 * MS;
	timer_add(&s->timer, s->expires);
}

/* A timer armed on the dying CPU fires at its time, on a live CPU. */
static void hotplug_timer_moves(struct ktest *t)
{
	static struct shot s;
	unsigned int victim = last_online();
	struct task_struct *tk;
	struct cpuhp_stats st;

	all_online();
	if (num_online_cpus() < 2)
		KTEST_SKIP(t, "one CPU");
	s = (struct shot){ .armed_on = -1, .fired_on = -1 };
	timer_init(&s.timer, shot_fn);
	tk = start(arm_here, &s, "hp-arm", cpumask_of(victim));
	ASSERT_TRUE(t, tk != NULL);
	kthread_join(tk);
	ASSERT_EQ(t, s.armed_on, (int)victim);
	ASSERT_EQ(t, cpu_down(victim), 0);
	cpuhp_get_stats(&st);
	EXPECT_GE(t, st.last_timers, 1);
	EXPECT_EQ(t, s.fired_at, 0); /* not yet: 20 ms */
	msleep(30);
	EXPECT_GE(t, s.fired_at, s.expires);
	/* its new CPU may first leave an idle state (cpuidle, issue 14) */
	EXPECT_LE(t, s.fired_at, s.expires + 100 * US + cpuidle_wakeup_cost_max_ns());
	EXPECT_NE(t, s.fired_on, (int)victim);
	ktest_diag(t, "armed on CPU%d, fired on CPU%d %llu ns after its expiry", s.armed_on,
		   s.fired_on, s.fired_at - s.expires);
	timer_cancel(&s.timer);
	EXPECT_EQ(t, cpu_up(victim), 0);
}

struct long_work {
	u64 units, done, start_ns, end_ns;
	int first_cpu, last_cpu;
};

static void long_work_fn(void *arg)
{
	struct long_work *lw = arg;
	u64 w0 = current->work_done;

	lw->first_cpu = (int)arch_cpu_id();
	lw->start_ns = arch_clock_ns();
	cpu_work(lw->units);
	lw->end_ns = arch_clock_ns();
	lw->last_cpu = (int)arch_cpu_id();
	lw->done = current->work_done - w0;
}

/* A cpu_work() half done when its CPU goes: the rest is done elsewhere (its
 * deadline timer is re-armed there), and the total is what was asked. */
static void hotplug_cpu_work_moves(struct ktest *t)
{
	static struct long_work lw;
	unsigned int victim = last_online();
	struct task_struct *tk;

	SELFTEST_SKIP_NATIVE_QEMU(t); /* the work credited follows the tree */
	all_online();
	if (num_online_cpus() < 2)
		KTEST_SKIP(t, "one CPU");
	lw = (struct long_work){ .units = 20 * MS, .first_cpu = -1, .last_cpu = -1 };
	tk = start(long_work_fn, &lw, "hp-work", cpumask_of(victim));
	ASSERT_TRUE(t, tk != NULL);
	msleep(5);
	ASSERT_EQ(t, cpu_down(victim), 0);
	kthread_join(tk);
	EXPECT_EQ(t, lw.first_cpu, (int)victim);
	EXPECT_NE(t, lw.last_cpu, (int)victim);
	EXPECT_GE(t, lw.done, lw.units);
	EXPECT_LE(t, lw.done, lw.units + 10 * US);
	ktest_diag(t, "%llu us of work from CPU%d to CPU%d in %llu us", lw.done / US, lw.first_cpu,
		   lw.last_cpu, (lw.end_ns - lw.start_ns) / US);
	EXPECT_EQ(t, cpu_up(victim), 0);
}

/* Every CPU but one goes; the last one refuses. */
static void hotplug_last_cpu(struct ktest *t)
{
	unsigned int self, cpu;
	int err = 0;

	all_online();
	self = arch_cpu_id();
	cpumask_t others;

	cpumask_andnot(&others, cpu_online_mask, cpumask_of(self));
	for_each_cpu(cpu, &others)
		err |= cpu_down(cpu);
	ASSERT_EQ(t, err, 0);
	ASSERT_EQ(t, num_online_cpus(), 1);
	EXPECT_EQ(t, (int)arch_cpu_id(), (int)self);
	EXPECT_EQ(t, cpu_down(self), -EBUSY);
	EXPECT_TRUE(t, cpu_online(self));
	EXPECT_EQ(t, sched_check_invariants(true), 0);
	all_online();
	EXPECT_TRUE(t, cpumask_equal(cpu_online_mask, &boot_online));
	EXPECT_TRUE(t, cpumask_equal(cpu_active_mask, &boot_online));
}

/* A CPU off for 50 ms draws no power for it, and back online owes no stall for
 * it: with speed=all a LITTLE CPU once came back owing (1/s - 1) x its time off
 * (its idle task had died "executing"), so the stop_machine() that activates
 * it waited seconds (the shell's "cpu online" seemed to hang). */
static void hotplug_off_costs_nothing(struct ktest *t)
{
	int cpu = selftest_pick_cpu(true, false);
	u64 stalled, uj;

	all_online();
	/* this thread's own CPU: another of the same capacity (where the balancer left
	 * this thread is no reason to skip) */
	for (unsigned int c = 0; cpu >= 0 && (unsigned int)cpu == arch_cpu_id() && c < nr_cpu_ids;
	     c++)
		if (cpu_online(c) && c != arch_cpu_id() &&
		    capacity_orig_of(c) == capacity_orig_of((unsigned int)cpu))
			cpu = (int)c;
	if (cpu < 0 || (unsigned int)cpu == arch_cpu_id() || num_online_cpus() < 2)
		KTEST_SKIP(t, "no other CPU to take offline");
	ASSERT_EQ(t, cpu_down((unsigned int)cpu), 0);
	stalled = speed_stalled_ns((unsigned int)cpu);
	uj = energy_cpu_uj((unsigned int)cpu);
	msleep(50);
	EXPECT_EQ(t, energy_cpu_uj((unsigned int)cpu), uj);
	ASSERT_EQ(t, cpu_up((unsigned int)cpu), 0);
	msleep(5);
	stalled = speed_stalled_ns((unsigned int)cpu) - stalled;
	EXPECT_LT(t, stalled, 10 * MS);
	ktest_diag(t, "CPU%d (speed=%s): %llu us stalled in its first 5 ms back", cpu,
		   speed_model_name(), stalled / US);
}

/* ---- random cycling under a mixed workload ------------------------------------------ */

#define NR_HOGS	    3
#define NR_SLEEPERS 3
#define NR_W	    (NR_HOGS + NR_SLEEPERS + 3) /* + ping, pong, rt */
#define NR_OPS	    24

static u32 next_rand(u32 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

static int start_workload(struct worker *w, struct task_struct **tk, struct pipe *p)
{
	char name[TASK_COMM_LEN];
	int n = 0;

	for (int i = 0; i < NR_HOGS; i++, n++) {
		w[n] = (struct worker){ .work_ns = 300 * US };
		ksnprintf(name, sizeof(name), "hp-hog%d", i);
		tk[n] = start(worker_fn, &w[n], name, cpu_possible_mask);
	}
	for (int i = 0; i < NR_SLEEPERS; i++, n++) {
		w[n] = (struct worker){ .work_ns = 200 * US, .period_ns = (2 + i) * MS };
		ksnprintf(name, sizeof(name), "hp-sleep%d", i);
		tk[n] = start(worker_fn, &w[n], name, cpu_possible_mask);
	}
	w[n] = (struct worker){ .in = &p[0], .out = &p[1] }; /* pong: echoes */
	tk[n] = start(worker_fn, &w[n], "hp-pong", cpu_possible_mask);
	n++;
	w[n] = (struct worker){ .work_ns = 100 * US, .period_ns = 3 * MS };
	tk[n] = kthread_create(worker_fn, &w[n], "hp-rt");
	if (tk[n]) {
		sched_setscheduler(tk[n], SCHED_FIFO, 10);
		wake_up_new_task(tk[n]);
	}
	n++;
	w[n] = (struct worker){ .in = &p[1], .out = &p[0] }; /* ping: starts the ball */
	tk[n] = start(worker_fn, &w[n], "hp-ping", cpu_possible_mask);
	n++;
	pipe_write(&p[0], "b", 1);
	return n;
}

static void hotplug_cycle_random(struct ktest *t)
{
	static struct worker w[NR_W];
	static struct pipe p[2];
	struct task_struct *tk[NR_W];
	u64 mid[NR_W], t0 = arch_clock_ns();
	unsigned long alive;
	unsigned int downs = 0, ups = 0, refused = 0, bad = 0;
	u32 seed = 0x2545f491;
	int n;

	all_online();
	if (num_online_cpus() < 2)
		KTEST_SKIP(t, "one CPU");
	ASSERT_EQ(t, pipe_init(&p[0], 64), 0);
	ASSERT_EQ(t, pipe_init(&p[1], 64), 0);
	alive = nr_tasks_alive();
	n = start_workload(w, tk, p);
	for (int i = 0; i < n; i++)
		ASSERT_TRUE(t, tk[i] != NULL);
	for (int op = 0; op < NR_OPS; op++) {
		unsigned int cpu;
		int err;

		do /* among the CPUs that came up at boot */
			cpu = next_rand(&seed) % nr_cpu_ids;
		while (!cpumask_test_cpu(cpu, &boot_online));
		err = cpu_online(cpu) ? cpu_down(cpu) : cpu_up(cpu);

		if (!err)
			(cpu_online(cpu) ? ups++ : downs++);
		else if (err == -EBUSY)
			refused++;
		else
			bad++;
		if (offline_nr_running() || sched_check_invariants(true))
			bad++;
		if (op == NR_OPS / 2)
			for (int i = 0; i < n; i++)
				mid[i] = w[i].progress;
		sleep_ns((2 + next_rand(&seed) % 4) * MS);
	}
	all_online();
	msleep(30);
	for (int i = 0; i < n; i++) {
		EXPECT_GT(t, w[i].progress, mid[i]); /* still progressing late in the run */
		if (w[i].progress <= mid[i])
			ktest_diag(t, "%s made no progress in the second half", tk[i]->comm);
	}
	EXPECT_EQ(t, bad, 0);
	EXPECT_EQ(t, sched_check_invariants(true), 0);
	EXPECT_EQ(t, nr_tasks_alive(), alive + (unsigned long)n);
	pipe_close(&p[0]);
	pipe_close(&p[1]);
	stop_join(w, tk, n);
	EXPECT_EQ(t, nr_tasks_alive(), alive);
	ktest_diag(t, "%u downs, %u ups, %u refused in %llu ms of emulated time", downs, ups,
		   refused, (arch_clock_ns() - t0) / MS);
	pipe_destroy(&p[0]);
	pipe_destroy(&p[1]);
}

KTEST_SUITE(hotplug, KTEST_CASE(hotplug_bad_input), KTEST_CASE(hotplug_tasks_move),
	    KTEST_CASE(hotplug_cluster), KTEST_CASE(hotplug_timer_moves),
	    KTEST_CASE(hotplug_cpu_work_moves), KTEST_CASE(hotplug_last_cpu),
	    KTEST_CASE(hotplug_off_costs_nothing), KTEST_CASE(hotplug_cycle_random));
