/* test_cpudl.c - host tests of cpudl (kernel/sched/cpudl.c): the max-heap of each CPU's
 * earliest DL deadline, worked by hand (each step's array drawn from the heap rules:
 * parent(i) = (i - 1) / 2, the latest deadline at the root, a removed entry's hole filled
 * by the last one), cpudl_find()'s answers as Linux 6.1's (free CPUs first, on asymmetric
 * capacities those that fit runtime within deadline, else the biggest free one; else the
 * root if the task's deadline is earlier), and cpudl kept by the DL class's enqueue and
 * dequeue. On the harness's HiKey960: CPUs 0-3 capacity 462, 4-7 1024. */
#include "../../kernel/sched/sched_internal.h"
#include "fake_arch.h"
#include "sched_harness.h"

struct heap_entry {
	int cpu;
	u64 dl;
};

/* The heap must be exactly want[0..n) in array order. */
static void expect_heap(struct ktest *t, const struct heap_entry *want, int n, int line)
{
	int cpus[NR_CPUS];
	u64 dls[NR_CPUS];
	int size = cpudl_snapshot(cpus, dls, NR_CPUS);

	if (size != n) {
		ktest_fail(t, __FILE__, line, "heap size %d, expected %d", size, n);
		return;
	}
	for (int i = 0; i < n; i++)
		if (cpus[i] != want[i].cpu || dls[i] != want[i].dl)
			ktest_fail(t, __FILE__, line, "heap[%d] = cpu%d:%llu, expected cpu%d:%llu",
				   i, cpus[i], (unsigned long long)dls[i], want[i].cpu,
				   (unsigned long long)want[i].dl);
}

#define HEAP(t, ...)                                                                               \
	do {                                                                                       \
		const struct heap_entry w_[] = { __VA_ARGS__ };                                    \
		expect_heap(t, w_, (int)ARRAY_SIZE(w_), __LINE__);                                 \
	} while (0)
#define HEAP_EMPTY(t) expect_heap(t, NULL, 0, __LINE__)

/* Every CPU free, the heap empty: the state a new machine starts from. */
static void cpudl_reset(void)
{
	for (unsigned int cpu = 0; cpu < NR_HIKEY_CPUS; cpu++)
		cpudl_clear(cpu, true);
}

/* Inserts sift up, updates move either way, removals fill the hole with the last entry. */
static void cpudl_heap_by_hand(struct ktest *t)
{
	if (!machine_up(t))
		return;
	HEAP_EMPTY(t);
	cpudl_set(0, 100); /* [0:100] */
	HEAP(t, { 0, 100 });
	EXPECT_FALSE(t, cpudl_is_free(0));
	cpudl_set(1, 300); /* at 1, later than its parent 0:100: swapped */
	HEAP(t, { 1, 300 }, { 0, 100 });
	cpudl_set(2, 200); /* at 2, earlier than its parent 1:300: stays */
	HEAP(t, { 1, 300 }, { 0, 100 }, { 2, 200 });
	cpudl_set(3, 50); /* at 3, under 0:100: stays */
	HEAP(t, { 1, 300 }, { 0, 100 }, { 2, 200 }, { 3, 50 });
	cpudl_set(4, 400); /* at 4, under 0:100 (up), then under 1:300 (up): the root */
	HEAP(t, { 4, 400 }, { 1, 300 }, { 2, 200 }, { 3, 50 }, { 0, 100 });
	cpudl_clear(1, true); /* 1 at index 1: the last, 0:100, fills it; 3:50 below stays */
	HEAP(t, { 4, 400 }, { 0, 100 }, { 2, 200 }, { 3, 50 });
	EXPECT_TRUE(t, cpudl_is_free(1));
	cpudl_set(4, 10); /* the root gets earlier: it sinks below the later child 2:200 */
	HEAP(t, { 2, 200 }, { 0, 100 }, { 4, 10 }, { 3, 50 });
	cpudl_set(3, 500); /* a leaf gets later: it rises past 0:100 and 2:200 */
	HEAP(t, { 3, 500 }, { 2, 200 }, { 4, 10 }, { 0, 100 });
	cpudl_clear(3, true); /* the root goes: 0:100 fills it and sinks below 2:200 */
	HEAP(t, { 2, 200 }, { 0, 100 }, { 4, 10 });
	cpudl_clear(4, false); /* the last entry goes; offline: not free either */
	HEAP(t, { 2, 200 }, { 0, 100 });
	EXPECT_FALSE(t, cpudl_is_free(4));
	cpudl_clear(5, true); /* not in the heap: only the mask changes */
	HEAP(t, { 2, 200 }, { 0, 100 });
	EXPECT_TRUE(t, cpudl_is_free(5));
	cpudl_set(0, 700); /* found at index 1 through its position, rises to the root */
	HEAP(t, { 0, 700 }, { 2, 200 });
	cpudl_reset();
	HEAP_EMPTY(t);
	machine_ok(t);
}

/* Deadlines compare wrap-safe (dl_time_before()): 5 is later than 2^64 - 10. */
static void cpudl_heap_wraps(struct ktest *t)
{
	if (!machine_up(t))
		return;
	cpudl_set(6, ~0ull - 9);
	cpudl_set(7, 5);
	HEAP(t, { 7, 5 }, { 6, ~0ull - 9 });
	cpudl_reset();
	machine_ok(t);
}

/* A task of 10 ms every 20 ms (deadline 20 ms): runtime within deadline needs capacity
 * 512 (10 x 1024 / 20), so only the big CPUs 4-7 fit it. */
static struct task_struct *dl_probe(int cpu, u64 deadline)
{
	struct task_struct *p = task_alloc("probe");

	p->cpu = cpu;
	p->nr_cpus_allowed = NR_HIKEY_CPUS;
	cpumask_copy(&p->cpus_allowed, ALL_CPUS);
	p->dl.dl_runtime = 10 * MS;
	p->dl.dl_deadline = 20 * MS;
	p->dl.deadline = deadline;
	return p;
}

static void cpudl_find_free_then_latest(struct ktest *t)
{
	struct task_struct *p;
	cpumask_t m;

	if (!machine_up(t))
		return;
	p = dl_probe(2, 1000);
	/* all free: the ones that fit (asymmetric), or all of them (symmetric) */
	EXPECT_EQ(t, cpudl_find(p, &m, true), 1);
	EXPECT_TRUE(t, cpumask_equal(&m, CPUS(0xf0)));
	EXPECT_EQ(t, cpudl_find(p, &m, false), 1);
	EXPECT_TRUE(t, cpumask_equal(&m, ALL_CPUS));
	/* the bigs busy: no free CPU fits; the biggest free one, prev among equals */
	for (unsigned int cpu = 4; cpu < 8; cpu++)
		cpudl_set(cpu, 2000 + cpu);
	EXPECT_EQ(t, cpudl_find(p, &m, true), 1);
	EXPECT_TRUE(t, cpumask_equal(&m, CPUS(1u << 2)));
	p->cpu = 6; /* prev is not free: the first of the biggest */
	EXPECT_EQ(t, cpudl_find(p, &m, true), 1);
	EXPECT_TRUE(t, cpumask_equal(&m, CPUS(1u << 0)));
	/* p may not use the free CPUs: the latest deadline, CPU 7 (2007), if p's is earlier */
	cpumask_copy(&p->cpus_allowed, CPUS(0xf0));
	EXPECT_EQ(t, cpudl_find(p, &m, true), 1);
	EXPECT_TRUE(t, cpumask_equal(&m, CPUS(1u << 7)));
	EXPECT_EQ(t, cpudl_find(p, NULL, true), 1);
	p->dl.deadline = 2007; /* not earlier: nowhere */
	EXPECT_EQ(t, cpudl_find(p, &m, true), 0);
	p->dl.deadline = 1000;
	cpumask_copy(&p->cpus_allowed, CPUS(0x70)); /* the root is not allowed: nowhere */
	EXPECT_EQ(t, cpudl_find(p, &m, true), 0);
	cpudl_reset();
	machine_ok(t);
}

/* The class keeps cpudl: a DL task queued on CPU 5 puts CPU 5 in the heap with its
 * deadline (Linux: inc_dl_deadline()), its blocking takes it out and frees the CPU
 * (dec_dl_deadline()). */
static void cpudl_kept_by_enqueue_dequeue(struct ktest *t)
{
	struct sched_attr a = { .sched_policy = SCHED_DEADLINE,
				.sched_runtime = 2 * MS,
				.sched_deadline = 10 * MS,
				.sched_period = 10 * MS };
	struct task_struct *p;
	int cpus[NR_CPUS];
	u64 dls[NR_CPUS];

	if (!machine_up(t))
		return;
	p = task_new("dl", ALL_CPUS, 0);
	ASSERT_EQ(t, sched_setattr(p, &a), 0);
	task_start(p, 5);
	ASSERT_EQ(t, p->cpu, 5);
	EXPECT_EQ(t, cpudl_snapshot(cpus, dls, NR_CPUS), 1);
	EXPECT_EQ(t, cpus[0], 5);
	EXPECT_EQ(t, dls[0], p->dl.deadline);
	EXPECT_FALSE(t, cpudl_is_free(5));
	EXPECT_TRUE(t, cpudl_is_free(4));
	ASSERT_TRUE(t, task_sleep(t, p));
	HEAP_EMPTY(t);
	EXPECT_TRUE(t, cpudl_is_free(5));
	machine_ok(t);
}

KTEST_SUITE(sched_cpudl, KTEST_CASE(cpudl_heap_by_hand), KTEST_CASE(cpudl_heap_wraps),
	    KTEST_CASE(cpudl_find_free_then_latest), KTEST_CASE(cpudl_kept_by_enqueue_dequeue));
