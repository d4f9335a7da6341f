/* selftest_deadline.c - SCHED_DEADLINE in emulated time (suite "deadline"):
 * EDF meets every deadline of three 30 % tasks beside a CFS hog on one CPU and
 * admission refuses a fourth; an overrunning task is throttled to its
 * bandwidth; hotplug refuses to break admitted bandwidth; a task that does not
 * fit a LITTLE CPU runs on a big one; schedutil serves a 50 % DL task; a task
 * leaving DL keeps its bandwidth until its 0-lag time; a DL task waiting behind an
 * earlier deadline is pushed to a free CPU, and a CPU whose DL work ends pulls
 * one (both fail with NO_DL_PUSH_PULL). The
 * references are Linux 6.1's rules written here from their definitions. */
#include "cpu.h"
#include "cpufreq.h"
#include "kernel.h"
#include "ktest.h"
#include "sched.h"
#include "selftest.h"
#include "timer.h"

#define US	 1000ull
#define MS	 1000000ull
#define HOG_WORK (~0ull) /* a job that never ends: the task overruns */

struct dl_job {
	u64 runtime, deadline, period; /* the reservation, ns */
	u64 work;		       /* units per job (ns on the biggest CPU at f_max) */
	unsigned int jobs;
	u64 start;  /* first activation, emulated ns */
	int policy; /* >= 0: read this policy's frequency at each job's end */
	/* results */
	unsigned int done, missed, on_small;
	u32 min_khz;
	volatile bool stop;
	struct task_struct *task;
};

static void dl_job_fn(void *arg)
{
	struct dl_job *j = arg;
	u64 next = j->start;

	j->min_khz = ~0u;
	for (unsigned int i = 0; i < j->jobs && !j->stop; i++, next += j->period) {
		sleep_until_ns(next);
		if (j->work == HOG_WORK) {
			while (!j->stop)
				cpu_work(MS);
			break;
		}
		cpu_work(j->work);
		if (arch_clock_ns() > next + j->deadline)
			j->missed++;
		if (capacity_orig_of(arch_cpu_id()) < SCHED_CAPACITY_SCALE)
			j->on_small++;
		if (j->policy >= 0 && i >= 5) /* after a few periods of warm-up */
			j->min_khz = MIN(j->min_khz, cpufreq_cur_freq(j->policy));
		j->done++;
	}
}

/* Create, make SCHED_DEADLINE (Linux: sched_setattr()), start. 0 or the
 * refusal; nothing runs when refused. */
static int dl_start(struct dl_job *j, const char *name)
{
	struct sched_attr a = { .sched_policy = SCHED_DEADLINE,
				.sched_runtime = j->runtime,
				.sched_deadline = j->deadline,
				.sched_period = j->period };
	int err;

	j->task = kthread_create(dl_job_fn, j, name);
	if (!j->task)
		return -ENOMEM;
	err = sched_setattr(j->task, &a);
	if (err) {
		kthread_discard(j->task);
		j->task = NULL;
		return err;
	}
	wake_up_new_task(j->task);
	return 0;
}

static void dl_join(struct dl_job *j)
{
	if (!j->task)
		return;
	j->stop = j->work == HOG_WORK; /* the others end after their jobs */
	kthread_join(j->task);
	j->task = NULL;
}

/* Linux's admission rule, independently: sum(runtime / period) <= 95 % of
 * the root domain's capacity (sum of capacity_orig / 1024). Exact in integers:
 * sum(runtime_i / period_i) x 1024 x 100 <= 95 x capacity. */
static bool admissible(const struct dl_job *jobs, int n, unsigned long capacity)
{
	u64 lhs = 0; /* in 1/1000000 of a CPU, rounded up */

	for (int i = 0; i < n; i++)
		lhs += (jobs[i].runtime * 1000000 + jobs[i].period - 1) / jobs[i].period;
	return lhs * SCHED_CAPACITY_SCALE <= 950000ull * capacity;
}

struct hog {
	volatile bool stop;
	struct task_struct *task;
};

static void hog_fn(void *arg)
{
	struct hog *h = arg;

	while (!h->stop)
		cpu_work(MS);
}

static void hog_start(struct hog *h, int nice)
{
	h->task = kthread_create(hog_fn, h, "dl-hog");
	if (!h->task)
		return;
	set_user_nice(h->task, nice);
	wake_up_new_task(h->task);
}

static void hog_stop(struct hog *h)
{
	if (!h->task)
		return;
	h->stop = true;
	kthread_join(h->task);
}

/* Everything but `keep` offline: a one-CPU root domain. */
static cpumask_t downed;

static int keep_only(unsigned int keep)
{
	cpumask_clear(&downed);
	for (unsigned int c = 0; c < nr_cpu_ids; c++) {
		if (c == keep || !cpu_online(c))
			continue;
		if (cpu_down(c))
			return -1;
		cpumask_set_cpu(c, &downed);
	}
	return 0;
}

static void bring_back(void)
{
	unsigned int c;

	for_each_cpu(c, &downed)
		cpu_up(c);
	cpumask_clear(&downed);
}

/* Three tasks of 6 ms every 20 ms (30 %) doing 5 ms of work, one big CPU,
 * beside a nice -10 CFS hog: EDF above CFS meets every deadline for 1 s;
 * a fourth 30 % task is refused (120 % > 95 %). */
static void dl_three_meet_fourth_refused(struct ktest *t)
{
	int big = selftest_pick_cpu(false, false);
	struct dl_job j[4];
	struct hog h = { 0 };
	int err;

	ASSERT_TRUE(t, big >= 0);
	ASSERT_EQ(t, keep_only((unsigned int)big), 0);
	hog_start(&h, -10);
	for (int i = 0; i < 4; i++)
		j[i] = (struct dl_job){ .runtime = 6 * MS,
					.deadline = 20 * MS,
					.period = 20 * MS,
					.work = 5 * MS,
					.jobs = 50,
					.policy = -1,
					.start = arch_clock_ns() + 10 * MS };
	for (int i = 0; i < 3; i++) {
		EXPECT_TRUE(t, admissible(j, i + 1, capacity_orig_of((unsigned int)big)));
		EXPECT_EQ(t, dl_start(&j[i], "dl-30"), 0);
	}
	EXPECT_FALSE(t, admissible(j, 4, capacity_orig_of((unsigned int)big)));
	err = dl_start(&j[3], "dl-fourth");
	EXPECT_EQ(t, err, -EBUSY);
	for (int i = 0; i < 3; i++) {
		dl_join(&j[i]);
		ktest_diag(t, "task %d: %u jobs, %u missed", i, j[i].done, j[i].missed);
		EXPECT_EQ(t, j[i].done, 50);
		EXPECT_EQ(t, j[i].missed, 0);
	}
	hog_stop(&h);
	bring_back();
}

/* Two well-behaved tasks (4 ms of work, 5 ms every 20 ms) and one that never
 * stops (5 ms every 20 ms) on one big CPU: the overrunner is throttled to
 * about its 25 % (plus at most a tick per period before the overrun is seen),
 * and the others still meet every deadline. */
static void dl_overrun_throttled(struct ktest *t)
{
	int big = selftest_pick_cpu(false, false);
	struct dl_job j[3];
	u64 t0, ran, elapsed;

	ASSERT_TRUE(t, big >= 0);
	ASSERT_EQ(t, keep_only((unsigned int)big), 0);
	for (int i = 0; i < 3; i++)
		j[i] = (struct dl_job){ .runtime = 5 * MS,
					.deadline = 20 * MS,
					.period = 20 * MS,
					.work = i == 2 ? HOG_WORK : 4 * MS,
					.jobs = 50,
					.policy = -1,
					.start = arch_clock_ns() + 10 * MS };
	t0 = j[0].start;
	EXPECT_EQ(t, dl_start(&j[0], "dl-good"), 0);
	EXPECT_EQ(t, dl_start(&j[1], "dl-good"), 0);
	EXPECT_EQ(t, dl_start(&j[2], "dl-overrun"), 0);
	dl_join(&j[0]);
	dl_join(&j[1]);
	elapsed = arch_clock_ns() - t0;
	ran = j[2].task ? j[2].task->se.sum_exec_runtime : 0;
	ktest_diag(t,
		   "overrunner ran %llu us of %llu us, throttled %llu times; others missed %u, %u",
		   ran / US, elapsed / US, j[2].task ? j[2].task->dl.nr_throttled : 0, j[0].missed,
		   j[1].missed);
	EXPECT_TRUE(t, j[2].task && j[2].task->dl.nr_throttled > 0);
	EXPECT_TRUE(t, ran * 100 <= elapsed * 35); /* 25 % + a tick's worth of overrun */
	EXPECT_EQ(t, j[0].missed, 0);
	EXPECT_EQ(t, j[1].missed, 0);
	dl_join(&j[2]);
	bring_back();
}

/* One big and one LITTLE CPU online, 120 % admitted: taking the LITTLE CPU
 * offline would leave 95 % of one CPU for it, so hotplug refuses. */
static void dl_hotplug_refused(struct ktest *t)
{
	int big = selftest_pick_cpu(false, false), little = selftest_pick_cpu(true, false);
	unsigned long cap2;
	struct dl_job j[4];
	int err;

	ASSERT_TRUE(t, big >= 0 && little >= 0);
	if (capacity_orig_of((unsigned int)little) == capacity_orig_of((unsigned int)big))
		KTEST_SKIP(t, "symmetric");
	ASSERT_EQ(t, keep_only((unsigned int)big), 0);
	ASSERT_EQ(t, cpu_up((unsigned int)little), 0);
	cpumask_clear_cpu((unsigned int)little, &downed);
	cap2 = capacity_orig_of((unsigned int)big) + capacity_orig_of((unsigned int)little);
	for (int i = 0; i < 4; i++)
		j[i] = (struct dl_job){ .runtime = 3 * MS,
					.deadline = 10 * MS,
					.period = 10 * MS,
					.work = 1 * MS,
					.jobs = 10,
					.policy = -1,
					.start = arch_clock_ns() + 5 * MS };
	ASSERT_TRUE(t, admissible(j, 4, cap2));
	ASSERT_FALSE(t, admissible(j, 4, capacity_orig_of((unsigned int)big)));
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(t, dl_start(&j[i], "dl-hp"), 0);
	err = cpu_down((unsigned int)little);
	EXPECT_EQ(t, err, -EBUSY);
	if (!err)
		cpumask_set_cpu((unsigned int)little, &downed);
	for (int i = 0; i < 4; i++)
		dl_join(&j[i]);
	bring_back();
}

/* 6 ms every 10 ms: cap_scale(10 ms, LITTLE) < 6 ms on qemu-bl44 (462), so
 * the task does not fit a LITTLE CPU (Linux: dl_task_fits_capacity()). Woken
 * first from a LITTLE CPU, with the LITTLE CPUs idle and a CFS hog on each
 * big one, every job still runs on a big CPU (EDF is above CFS there; a CFS
 * task of this size would take an idle LITTLE CPU). */
struct placer {
	struct dl_job *j;
	int err;
};

static void place_from_little(void *arg)
{
	struct placer *pl = arg;

	pl->err = dl_start(pl->j, "dl-60");
}

static void dl_placed_on_big(struct ktest *t)
{
	int little = selftest_pick_cpu(true, false);
	struct dl_job j = { .runtime = 6 * MS,
			    .deadline = 10 * MS,
			    .period = 10 * MS,
			    .work = 2 * MS,
			    .jobs = 30,
			    .policy = -1 };
	struct placer pl = { &j, -1 };
	struct hog hogs[NR_CPUS / 8];
	struct task_struct *th;
	unsigned int nr_hogs = 0;

	ASSERT_TRUE(t, little >= 0);
	if (j.runtime * SCHED_CAPACITY_SCALE <= j.deadline * capacity_orig_of((unsigned int)little))
		KTEST_SKIP(t, "the task fits the smallest CPU");
	for (unsigned int c = 0; c < nr_cpu_ids && nr_hogs < ARRAY_SIZE(hogs); c++) {
		if (!cpu_online(c) || capacity_orig_of(c) < SCHED_CAPACITY_SCALE)
			continue;
		hogs[nr_hogs] = (struct hog){ 0 };
		hogs[nr_hogs].task = kthread_create(hog_fn, &hogs[nr_hogs], "dl-hog");
		if (!hogs[nr_hogs].task)
			break;
		set_cpus_allowed(hogs[nr_hogs].task, cpumask_of(c));
		wake_up_new_task(hogs[nr_hogs++].task);
	}
	msleep(20);
	j.start = arch_clock_ns() + 5 * MS;
	th = kthread_create(place_from_little, &pl, "dl-placer");
	ASSERT_TRUE(t, th != NULL);
	set_cpus_allowed(th, cpumask_of((unsigned int)little));
	wake_up_new_task(th);
	kthread_join(th);
	ASSERT_EQ(t, pl.err, 0);
	dl_join(&j);
	for (unsigned int i = 0; i < nr_hogs; i++)
		hog_stop(&hogs[i]);
	ktest_diag(t, "%u jobs, %u on a smaller CPU", j.done, j.on_small);
	EXPECT_EQ(t, j.done, 30);
	EXPECT_EQ(t, j.on_small, 0);
	EXPECT_EQ(t, j.missed, 0);
}

/* A 50 % reservation (5 ms every 10 ms) doing 2 ms of work, alone on a big
 * CPU under schedutil: cpu_bw_dl() = 512 asks for 1.25 x f_max x 512 / 1024,
 * so the applied OPP is at least the lowest one covering 50 % of capacity. */
static void dl_schedutil_floor(struct ktest *t)
{
	int big = selftest_pick_cpu(false, true), pol;
	struct dl_job j = { .runtime = 5 * MS,
			    .deadline = 10 * MS,
			    .period = 10 * MS,
			    .work = 2 * MS,
			    .jobs = 40 };
	u32 want;

	ASSERT_TRUE(t, big >= 0);
	pol = cpufreq_policy_of((unsigned int)big);
	ASSERT_EQ(t, cpufreq_set_governor(pol, "schedutil"), 0);
	/* an OPP at or above f_max / 2 is one that covers 50 % of capacity */
	want = (cpufreq_max_freq(pol) + 1) / 2;
	j.policy = pol;
	j.start = arch_clock_ns() + 5 * MS;
	EXPECT_EQ(t, dl_start(&j, "dl-50"), 0);
	dl_join(&j);
	ktest_diag(t, "%u jobs, lowest OPP at a job's end %u kHz, f_max / 2 = %u kHz", j.done,
		   j.min_khz, want);
	EXPECT_EQ(t, j.done, 40);
	EXPECT_TRUE(t, j.min_khz >= want);
	EXPECT_EQ(t, j.on_small, 0);
	selftest_restore_governors();
}

/* A DL task that works, then blocks until told to go on (as a CFS task by then). */
struct dl_sleeper {
	struct wait_queue_head wq;
	volatile bool slept, go;
	u64 slept_ns;
	u64 work;
};

static void dl_sleeper_fn(void *arg)
{
	struct dl_sleeper *s = arg;

	cpu_work(s->work);
	s->slept_ns = arch_clock_ns();
	s->slept = true;
	wait_event(s->wq, s->go);
}

/* Linux 6.1: a task leaving SCHED_DEADLINE keeps its admitted bandwidth until
 * its 0-lag time (switched_from_dl(), inactive_task_timer()): on one big CPU
 * (95 % admissible) a 50 % task (50 ms every 100 ms) runs 40 ms of its runtime
 * and sleeps; its 0-lag time is deadline - 10 ms left x 100 / 50 = its
 * activation + 80 ms. Made SCHED_NORMAL while asleep, its 50 % still counts:
 * a new 50 % task is refused until then and admitted after. */
static void dl_bandwidth_kept_to_zero_lag(struct ktest *t)
{
	int big = selftest_pick_cpu(false, false);
	struct dl_sleeper s = { .work = 40 * MS };
	struct sched_attr a = { .sched_policy = SCHED_DEADLINE,
				.sched_runtime = 50 * MS,
				.sched_deadline = 100 * MS,
				.sched_period = 100 * MS };
	struct dl_job b = { .runtime = 50 * MS,
			    .deadline = 100 * MS,
			    .period = 100 * MS,
			    .work = 1 * MS,
			    .jobs = 1,
			    .policy = -1 };
	struct task_struct *ts;
	u64 t0, zerolag;
	int early, late;

	ASSERT_TRUE(t, big >= 0);
	ASSERT_EQ(t, keep_only((unsigned int)big), 0);
	init_waitqueue_head(&s.wq);
	ts = kthread_create(dl_sleeper_fn, &s, "dl-sleeper");
	ASSERT_TRUE(t, ts != NULL);
	ASSERT_EQ(t, sched_setattr(ts, &a), 0);
	t0 = arch_clock_ns();
	wake_up_new_task(ts);
	while (!s.slept)
		msleep(1);
	zerolag = t0 + 80 * MS;
	EXPECT_EQ(t, sched_setscheduler(ts, SCHED_NORMAL, 0), 0);
	b.start = arch_clock_ns() + 200 * MS;
	early = dl_start(&b, "dl-early");
	ktest_diag(t, "slept at +%llu ms, 0-lag at +80 ms: a second 50 %% task at +%llu ms: %d",
		   (s.slept_ns - t0) / MS, (arch_clock_ns() - t0) / MS, early);
	EXPECT_TRUE(t, arch_clock_ns() < zerolag);
	EXPECT_EQ(t, early, -EBUSY);
	if (!early)
		dl_join(&b);
	sleep_until_ns(zerolag + 1 * MS);
	b.start = arch_clock_ns() + 5 * MS;
	late = dl_start(&b, "dl-late");
	ktest_diag(t, "at +%llu ms: %d", (arch_clock_ns() - t0) / MS, late);
	EXPECT_EQ(t, late, 0);
	if (!late)
		dl_join(&b);
	s.go = true;
	wake_up(&s.wq);
	kthread_join(ts);
	bring_back();
}

/* A DL task that notes the first CPU other than its first one it runs on. */
struct dl_mover {
	u64 runtime, deadline, period, work, start;
	struct dl_mover *spawn; /* started from this task, on its CPU, when it begins */
	int cpu0, moved_to;
	u64 began_ns, moved_ns, end_ns;
	volatile bool done;
	struct task_struct *task;
};

static int dl_mover_start(struct dl_mover *m, const char *name);

static void dl_mover_fn(void *arg)
{
	struct dl_mover *m = arg;
	u64 done = 0;

	sleep_until_ns(m->start);
	m->cpu0 = (int)arch_cpu_id();
	m->began_ns = arch_clock_ns();
	if (m->spawn)
		dl_mover_start(m->spawn, "dl-early");
	while (done < m->work) {
		if (m->moved_to < 0 && (int)arch_cpu_id() != m->cpu0) {
			m->moved_to = (int)arch_cpu_id();
			m->moved_ns = arch_clock_ns();
		}
		cpu_work(100 * US);
		done += 100 * US;
	}
	m->end_ns = arch_clock_ns();
	m->done = true;
}

static int dl_mover_start(struct dl_mover *m, const char *name)
{
	struct sched_attr a = { .sched_policy = SCHED_DEADLINE,
				.sched_runtime = m->runtime,
				.sched_deadline = m->deadline,
				.sched_period = m->period };

	m->moved_to = -1;
	m->task = kthread_create(dl_mover_fn, m, name);
	if (!m->task)
		return -ENOMEM;
	if (sched_setattr(m->task, &a)) {
		kthread_discard(m->task);
		m->task = NULL;
		return -EBUSY;
	}
	wake_up_new_task(m->task);
	return 0;
}

/* Linux 6.1 push_dl_task(): a DL task (20 ms every 100 ms, deadline 50 ms) runs on
 * its CPU, the others idle; it starts a DL task of earlier deadline (8 ms in 20 ms)
 * there, which preempts it (EDF). Waiting behind an earlier deadline, it is pushed
 * to a free CPU after the switch, not left waiting the 8 ms. Both start on a CPU of
 * the largest capacity: 10 ms in 20 ms does not fit a LITTLE one (9 ms at 462), and
 * select_task_rq_dl() would place the earlier task elsewhere (nothing to push). */
static void dl_push_to_free_cpu(struct ktest *t)
{
	cpumask_t saved = current->cpus_allowed;
	int big = selftest_pick_cpu(false, false);
	struct dl_mover early = {
		.runtime = 10 * MS, .deadline = 20 * MS, .period = 100 * MS, .work = 8 * MS
	};
	struct dl_mover late = { .runtime = 20 * MS,
				 .deadline = 50 * MS,
				 .period = 100 * MS,
				 .work = 15 * MS,
				 .spawn = &early };

	if (num_online_cpus() < 2)
		KTEST_SKIP(t, "one CPU");
	ASSERT_TRUE(t, big >= 0);
	/* late is forked here and wakes where it was forked (its CPU is free) */
	set_cpus_allowed(current, cpumask_of((unsigned int)big));
	late.start = arch_clock_ns() + 5 * MS;
	ASSERT_EQ(t, dl_mover_start(&late, "dl-late"), 0);
	set_cpus_allowed(current, &saved);
	while (!late.done)
		msleep(1);
	while (early.task && !early.done)
		msleep(1);
	ktest_diag(t,
		   "the later-deadline task moved CPU %d -> %d %lld us after the earlier "
		   "one started (which ran %llu us)",
		   late.cpu0, late.moved_to,
		   late.moved_to >= 0 ? (long long)(late.moved_ns - early.began_ns) / 1000 : -1,
		   (early.end_ns - early.began_ns) / US);
	EXPECT_EQ(t, early.cpu0, late.cpu0);
	EXPECT_TRUE(t, late.moved_to >= 0 && late.moved_to != late.cpu0);
	EXPECT_TRUE(t, late.moved_to >= 0 && late.moved_ns < early.end_ns);
	/* one push, plus the idle exit of the free CPU (a cluster power-up: 2.9 ms) */
	EXPECT_TRUE(t, late.moved_to >= 0 && late.moved_ns - early.began_ns < 5 * MS);
	if (early.task)
		kthread_join(early.task);
	kthread_join(late.task);
}

/* Start m from a helper thread on cpu (a DL task starts where it is woken). */
static void start_from(void *arg)
{
	struct dl_mover *m = arg;

	dl_mover_start(m, "dl-pulled");
}

/* Linux 6.1 pull_dl_task(): two big CPUs online, a and b. b runs K (20 ms of
 * work, deadline 40 ms), a runs H (40 ms, deadline 50 ms), and W (deadline 90 ms)
 * wakes on a: no CPU is free or later, so it waits behind H. When K's job ends
 * (it exits), b's DL queue is empty and b pulls W at once, while H still runs on
 * a. (Implicit deadlines: a constrained one would be woken with the revised
 * runtime of update_dl_revised_wakeup() and throttled early.) */
static void dl_pull_when_cpu_frees(struct ktest *t)
{
	int a = selftest_pick_cpu(false, false), b = -1;
	struct dl_mover k = {
		.runtime = 30 * MS, .deadline = 40 * MS, .period = 40 * MS, .work = 20 * MS
	};
	struct dl_mover h = {
		.runtime = 45 * MS, .deadline = 50 * MS, .period = 50 * MS, .work = 40 * MS
	};
	struct dl_mover w = {
		.runtime = 10 * MS, .deadline = 90 * MS, .period = 90 * MS, .work = 5 * MS
	};
	struct task_struct *th[3];
	struct dl_mover *m[3] = { &k, &h, &w };
	u64 t0;

	ASSERT_TRUE(t, a >= 0);
	for (unsigned int c = 0; c < nr_cpu_ids; c++)
		if (cpu_online(c) && (int)c != a &&
		    capacity_orig_of(c) == capacity_orig_of((unsigned int)a))
			b = (int)c;
	if (b < 0)
		KTEST_SKIP(t, "one CPU of the largest capacity");
	ASSERT_EQ(t, keep_only((unsigned int)a), 0);
	ASSERT_EQ(t, cpu_up((unsigned int)b), 0);
	cpumask_clear_cpu((unsigned int)b, &downed);
	t0 = arch_clock_ns();
	k.start = h.start = t0 + 20 * MS;
	w.start = t0 + 22 * MS;
	for (int i = 0; i < 3; i++) {
		th[i] = kthread_create(start_from, m[i], "dl-starter");
		ASSERT_TRUE(t, th[i] != NULL);
		set_cpus_allowed(th[i], cpumask_of((unsigned int)(i == 0 ? b : a)));
		wake_up_new_task(th[i]);
		kthread_join(th[i]);
	}
	for (int i = 0; i < 3; i++)
		while (m[i]->task && !m[i]->done)
			msleep(1);
	ktest_diag(t,
		   "K ended on CPU %d at +%llu ms; W began on CPU %d at +%llu ms; H ended on "
		   "CPU %d at +%llu ms",
		   k.cpu0, (k.end_ns - t0) / MS, w.cpu0, (w.began_ns - t0) / MS, h.cpu0,
		   (h.end_ns - t0) / MS);
	/* W began on b directly (pulled before it ever ran on a) or moved there */
	EXPECT_TRUE(t, (w.cpu0 == b && w.began_ns < h.end_ns) || w.moved_to == b);
	EXPECT_TRUE(t, (w.cpu0 == b ? w.began_ns : w.moved_ns) < k.end_ns + 1 * MS);
	for (int i = 0; i < 3; i++)
		if (m[i]->task)
			kthread_join(m[i]->task);
	bring_back();
}

/* Linux 6.1 dl_task_offline_migration(): a DL task throttled on a CPU that goes
 * offline is not moved by the hotplug (only tasks in the EDF tree are); its
 * replenishment timer, run on a live CPU, moves it to an active one, where it runs
 * on. M: 2 ms of runtime every 100 ms, 6 ms of work, started on the victim. */
static void dl_throttled_task_moves_from_timer(struct ktest *t)
{
	unsigned int victim = 0, home;
	struct dl_mover m = {
		.runtime = 2 * MS, .deadline = 100 * MS, .period = 100 * MS, .work = 6 * MS
	};
	cpumask_t saved = current->cpus_allowed;
	struct task_struct *th;
	bool down = false;
	int i;

	if (num_online_cpus() < 2)
		KTEST_SKIP(t, "one CPU");
	/* this thread stays where it is (the next cases start their tasks from it) */
	home = arch_cpu_id();
	set_cpus_allowed(current, cpumask_of(home));
	for (unsigned int c = 0; c < nr_cpu_ids; c++)
		if (cpu_online(c) && c != home)
			victim = c;
	m.start = arch_clock_ns() + 2 * MS;
	th = kthread_create(start_from, &m, "dl-starter");
	EXPECT_TRUE(t, th != NULL);
	if (!th)
		goto out;
	set_cpus_allowed(th, cpumask_of(victim));
	wake_up_new_task(th);
	kthread_join(th);
	EXPECT_TRUE(t, m.task != NULL);
	if (!m.task)
		goto out;
	for (i = 0; i < 80 && !(m.cpu0 >= 0 && m.task->dl.dl_throttled); i++)
		msleep(1);
	EXPECT_TRUE(t, m.task->dl.dl_throttled);
	EXPECT_EQ(t, m.cpu0, (int)victim);
	down = m.task->dl.dl_throttled && m.cpu0 == (int)victim && cpu_down(victim) == 0;
	EXPECT_TRUE(t, down);
	if (down) {
		/* still queued on the offline CPU, throttled: the timer moves it */
		EXPECT_EQ(t, m.task->cpu, (int)victim);
		EXPECT_TRUE(t, m.task->dl.dl_throttled);
	}
	while (!m.done)
		msleep(1);
	ktest_diag(t, "throttled on CPU %u, ran on at CPU %d", victim, m.moved_to);
	if (down) {
		EXPECT_TRUE(t, m.moved_to >= 0 && m.moved_to != (int)victim);
		EXPECT_TRUE(t, m.moved_to >= 0 && cpu_online((unsigned int)m.moved_to));
	}
	kthread_join(m.task);
	if (down)
		EXPECT_EQ(t, cpu_up(victim), 0);
out:
	set_cpus_allowed(current, &saved);
}

KTEST_SUITE_BY_NAME(deadline, KTEST_CASE(dl_three_meet_fourth_refused),
		    KTEST_CASE(dl_overrun_throttled), KTEST_CASE(dl_hotplug_refused),
		    KTEST_CASE(dl_throttled_task_moves_from_timer), KTEST_CASE(dl_placed_on_big),
		    KTEST_CASE(dl_schedutil_floor), KTEST_CASE(dl_bandwidth_kept_to_zero_lag),
		    KTEST_CASE(dl_push_to_free_cpu), KTEST_CASE(dl_pull_when_cpu_frees));
