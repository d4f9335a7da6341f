/* selftest_rtapp.c - self-tests of the rt-app engine (kernel/bench/bench_rtapp.c) on small
 * workloads whose outcome the file implies: a periodic task's activations
 * and the sign of its slack, a timer shared by two tasks (one grid for
 * both), a lock/unlock pair that serializes two tasks, `runtime` (wall time)
 * against `run` (work) on the smallest CPU, a CPU list naming a CPU the
 * machine lacks, and an initrd kept from the page allocator (suite rtapp).
 * Governor: the default (performance). */
#include "cpuidle.h"
#include "initrd.h"
#include "kernel.h"
#include "ktest.h"
#include "mm.h"
#include "rtapp.h"
#include "sched.h"

#define MS 1000000ull

static struct rtapp_workload *wl;
static struct rtapp_result res;

/* The i-th online CPU by capacity, highest first (rank 0) or lowest. */
static unsigned int cpu_by_capacity(unsigned int rank, bool highest)
{
	unsigned int best = 0;
	cpumask_t used = { { 0 } };

	for (unsigned int r = 0; r <= rank; r++) {
		bool any = false;

		for (unsigned int c = 0; c < nr_cpu_ids; c++) {
			if (!cpu_online(c) || cpumask_test_cpu(c, &used))
				continue;
			if (!any || (highest ? capacity_orig_of(c) > capacity_orig_of(best)
					     : capacity_orig_of(c) < capacity_orig_of(best)))
				best = c;
			any = true;
		}
		__cpumask_set_cpu(best, &used);
	}
	return best;
}

/* Parse and run a workload object (a format with CPU numbers); 0 or -1. */
static int __attribute__((format(printf, 2, 3))) run(struct ktest *t, const char *fmt, ...)
{
	static char text[1024];
	va_list ap;
	int n;

	/* "run" in microseconds of the biggest CPU's work (rt-app's calibration
	 * CPU), whatever CPU0 is; the rest of the object after the "{". */
	n = ksnprintf(text, sizeof(text), "{\"global\": {\"calibration\": \"CPU%u\"}, ",
		      cpu_by_capacity(0, true));
	va_start(ap, fmt);
	kvsnprintf(text + n, sizeof(text) - (size_t)n, fmt + 1, ap);
	va_end(ap);
	if (rtapp_parse(text, strlen(text), wl)) {
		ktest_diag(t, "parse: %s", wl->error);
		return -1;
	}
	if (rtapp_run(wl, &res))
		return -1;
	rtapp_print(wl, &res, t->name);
	return 0;
}

static void rtapp_setup(struct ktest *t)
{
	if (!wl)
		wl = kzalloc(sizeof(*wl));
}

/* 2 ms of work every 10 ms, 20 times, on the biggest CPU at f_max: 20
 * activations, slack about 8 ms, 200 ms in all. Then 12 ms every 10 ms:
 * every period missed, slack negative, by 2 ms each time in relative mode
 * and by more and more in absolute mode. */
static void rtapp_periodic(struct ktest *t)
{
	unsigned int big = cpu_by_capacity(0, true);

	rtapp_setup(t);
	ASSERT_TRUE(t, wl);
	ASSERT_EQ(t,
		  run(t,
		      "{\"tasks\": {\"p\": {\"loop\": 20, \"cpus\": [%u], \"run\": 2000, "
		      "\"timer\": {\"ref\": \"unique\", \"period\": 10000}}}}",
		      big),
		  0);
	EXPECT_EQ(t, res.task[0].activations, 20);
	EXPECT_EQ(t, res.task[0].missed, 0);
	/* Each activation may first leave an idle state, and so may the start and
	 * the end of the run (cpuidle's exit latencies, issue 14). */
	EXPECT_GT(t, res.task[0].slack_min_ns + cpuidle_wakeup_cost_ns(big), 7 * MS);
	EXPECT_LE(t, res.task[0].slack_sum_ns / 20, 8 * MS);
	EXPECT_GE(t, res.ns, 200 * MS);
	EXPECT_LT(t, res.ns, 203 * MS + 2 * cpuidle_wakeup_cost_max_ns());
	EXPECT_EQ(t, res.task[0].wu_lat_n, 20);

	ASSERT_EQ(t,
		  run(t,
		      "{\"tasks\": {\"p\": {\"loop\": 5, \"cpus\": [%u], \"run\": 12000, "
		      "\"timer\": {\"ref\": \"unique\", \"period\": 10000}}}}",
		      big),
		  0);
	EXPECT_EQ(t, res.task[0].activations, 5);
	EXPECT_EQ(t, res.task[0].missed, 5);
	EXPECT_LT(t, res.task[0].slack_min_ns, -1 * (s64)MS);
	/* Relative mode restarts the grid at each miss: every period 2 ms late. */
	EXPECT_GT(t, res.task[0].slack_min_ns, -3 * (s64)MS);
	EXPECT_GE(t, res.ns, 60 * MS);

	/* Absolute mode keeps the grid: 2, 4, ... 10 ms late. */
	ASSERT_EQ(t,
		  run(t,
		      "{\"tasks\": {\"p\": {\"loop\": 5, \"cpus\": [%u], \"run\": 12000, "
		      "\"timer\": {\"ref\": \"unique\", \"period\": 10000, "
		      "\"mode\": \"absolute\"}}}}",
		      big),
		  0);
	EXPECT_EQ(t, res.task[0].missed, 5);
	EXPECT_LT(t, res.task[0].slack_min_ns, -9 * (s64)MS);
}

/* Two tasks on one timer "t": each use moves the one grid a period on, so
 * they take turns: 2 x 10 activations need 20 periods (200 ms), where two
 * "unique" timers would need 10. */
static void rtapp_shared_timer(struct ktest *t)
{
	unsigned int a = cpu_by_capacity(0, true), b = cpu_by_capacity(1, true);

	rtapp_setup(t);
	ASSERT_TRUE(t, wl);
	ASSERT_EQ(t,
		  run(t,
		      "{\"tasks\": {"
		      "\"a\": {\"loop\": 10, \"cpus\": [%u], \"run\": 1000, "
		      "\"timer\": {\"ref\": \"t\", \"period\": 10000}},"
		      "\"b\": {\"loop\": 10, \"cpus\": [%u], \"run\": 1000, "
		      "\"timer\": {\"ref\": \"t\", \"period\": 10000}}}}",
		      a, b),
		  0);
	EXPECT_EQ(t, res.task[0].activations, 10);
	EXPECT_EQ(t, res.task[1].activations, 10);
	EXPECT_GE(t, res.ns, 190 * MS);
	EXPECT_LT(t, res.ns, 212 * MS);
}

/* Two tasks on two CPUs each run 5 x 5 ms: in parallel without the mutex
 * (about 25 ms), one after the other with it (at least 50 ms). */
static void rtapp_lock_unlock(struct ktest *t)
{
	unsigned int a = cpu_by_capacity(0, true), b = cpu_by_capacity(1, true);
	u64 free_ns;

	rtapp_setup(t);
	ASSERT_TRUE(t, wl);
	ASSERT_EQ(t,
		  run(t,
		      "{\"tasks\": {\"a\": {\"loop\": 5, \"cpus\": [%u], \"run\": 5000}, "
		      "\"b\": {\"loop\": 5, \"cpus\": [%u], \"run\": 5000}}}",
		      a, b),
		  0);
	free_ns = res.ns;
	ASSERT_EQ(t,
		  run(t,
		      "{\"tasks\": {"
		      "\"a\": {\"loop\": 5, \"cpus\": [%u], \"lock\": \"m\", \"run\": 5000, "
		      "\"unlock\": \"m\"},"
		      "\"b\": {\"loop\": 5, \"cpus\": [%u], \"lock\": \"m\", \"run\": 5000, "
		      "\"unlock\": \"m\"}}}",
		      a, b),
		  0);
	ktest_diag(t, "without the mutex %llu us, with it %llu us", free_ns / 1000, res.ns / 1000);
	if (a != b)
		EXPECT_LT(t, free_ns, 40 * MS);
	EXPECT_GE(t, res.ns, 50 * MS);
}

/* On the smallest CPU: runtime 20000 takes 20 ms of wall time whatever the
 * CPU; run 20000 is work, which takes 1024 / capacity times longer there. */
static void rtapp_runtime_vs_run(struct ktest *t)
{
	unsigned int small = cpu_by_capacity(0, false);
	unsigned long cap = capacity_orig_of(small);

	rtapp_setup(t);
	ASSERT_TRUE(t, wl);
	ASSERT_EQ(t,
		  run(t,
		      "{\"tasks\": {\"w\": {\"loop\": 3, \"cpus\": [%u], "
		      "\"runtime\": 20000}}}",
		      small),
		  0);
	EXPECT_GE(t, res.ns, 60 * MS);
	EXPECT_LT(t, res.ns, 62 * MS + 2 * cpuidle_wakeup_cost_max_ns()); /* start, end */
	ASSERT_EQ(t,
		  run(t,
		      "{\"tasks\": {\"w\": {\"loop\": 3, \"cpus\": [%u], "
		      "\"run\": 20000}}}",
		      small),
		  0);
	EXPECT_GE(t, res.ns, 60 * MS * 1024 / cap);
	EXPECT_LT(t, res.ns, 62 * MS * 1024 / cap + 2 * cpuidle_wakeup_cost_max_ns());
}

/* Phase settings over what earlier phases left: a priority meant for FIFO
 * reaching a thread a phase made SCHED_OTHER is clamped to nice 19, a
 * util_min above the task's util_max to it; the run goes on. (These settings
 * once shifted timing so that run uboot-bootefi-hikey-mpidr-el2 hit a
 * timer_cancel() race in sched's random case: kernel/timer.c.) */
static void rtapp_phase_sched(struct ktest *t)
{
	rtapp_setup(t);
	ASSERT_TRUE(t, wl);
	ASSERT_EQ(t,
		  run(t, "{\"tasks\": {\"p\": {\"loop\": 2, \"policy\": \"SCHED_FIFO\", "
			 "\"priority\": 20, \"util_max\": 512, \"phases\": {"
			 "\"a\": {\"policy\": \"SCHED_OTHER\", \"run\": 100},"
			 "\"b\": {\"priority\": 50, \"util_min\": 900, \"run\": 100}}}}}"),
		  0);
	EXPECT_EQ(t, res.task[0].loops, 4);
}

/* A CPU the machine does not have: refused before any thread starts. */
static void rtapp_impossible_cpus(struct ktest *t)
{
	unsigned long before = nr_tasks_alive();

	rtapp_setup(t);
	ASSERT_TRUE(t, wl);
	EXPECT_EQ(t,
		  run(t,
		      "{\"tasks\": {\"w\": {\"loop\": 1, \"cpus\": [0, %u], "
		      "\"run\": 10}}}",
		      nr_cpu_ids),
		  -1);
	EXPECT_EQ(t, nr_tasks_alive(), before);
}

/* The initrd's pages are never handed out: take every free page (each
 * linked to the next through its first word, so a wrongly handed-out initrd
 * page would be written), check none is inside the initrd and that its bytes
 * are unchanged, give them all back. */
static void rtapp_initrd_reserved(struct ktest *t)
{
	size_t len;
	const u8 *rd = initrd_get(&len);
	unsigned long before = page_alloc_free_count(), n = 0, inside = 0;
	u64 sum0 = 0, sum1 = 0;
	void *head = NULL, *p;

	if (!rd)
		KTEST_SKIP(t, "no initrd (boot with -initrd FILE)");
	for (size_t i = 0; i < len; i++)
		sum0 = sum0 * 31 + rd[i];
	while ((p = alloc_pages(1)) != NULL) {
		inside += (u64)p + PAGE_SIZE > (u64)rd && (u64)p < (u64)rd + len;
		*(void **)p = head;
		head = p;
		n++;
	}
	for (size_t i = 0; i < len; i++)
		sum1 = sum1 * 31 + rd[i];
	while (head) {
		p = head;
		head = *(void **)p;
		free_pages(p, 1);
	}
	ktest_diag(t, "%lu pages taken, %zu-byte initrd at %p untouched", n, len, rd);
	EXPECT_EQ(t, inside, 0);
	EXPECT_EQ(t, sum1, sum0);
	EXPECT_EQ(t, page_alloc_free_count(), before);
}

/* rt-app's "taskgroup": the path is made like mkdir -p under an existing parent
 * and the task runs in it; once it has ended the groups can be removed. */
static void rtapp_taskgroup(struct ktest *t)
{
	struct task_group *top, *in;

	rtapp_setup(t);
	ASSERT_TRUE(t, wl);
	top = sched_group_create(NULL, "rtapp-top");
	ASSERT_TRUE(t, top);
	ASSERT_EQ(t,
		  run(t, "{\"tasks\": {\"g\": {\"loop\": 2, \"run\": 1000, \"sleep\": 1000, "
			 "\"taskgroup\": \"/rtapp-top/ui\"}}}"),
		  0);
	in = sched_group_find("rtapp-top/ui");
	ASSERT_TRUE(t, in);
	EXPECT_GE(t, res.ns, 3 * MS);		  /* 2 x (1 ms of work + 1 ms of sleep) ran */
	EXPECT_EQ(t, sched_group_destroy(in), 0); /* its task has ended */
	EXPECT_EQ(t, sched_group_destroy(top), 0);
}

KTEST_SUITE(rtapp, KTEST_CASE(rtapp_periodic), KTEST_CASE(rtapp_shared_timer),
	    KTEST_CASE(rtapp_lock_unlock), KTEST_CASE(rtapp_runtime_vs_run),
	    KTEST_CASE(rtapp_phase_sched), KTEST_CASE(rtapp_impossible_cpus),
	    KTEST_CASE(rtapp_initrd_reserved), KTEST_CASE(rtapp_taskgroup));
