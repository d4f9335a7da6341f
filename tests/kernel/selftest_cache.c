/* selftest_cache.c - the cost of a migration (issue 27; kernel/sched/cache.c): a task
 * with a 1 MiB working set bounced between two big CPUs of one cluster takes longer, in
 * emulated time, than one that stays, by what the model charges per move: its L1D
 * refilled from the shared L2, L1D size / 16000 MB/s + 10 ns (the A73 row of
 * docs/design.md "Caches", restated here; the L1D size is the tree's), and that much of
 * its running time does no work. With cache=off both progress alike while they run (the
 * moves' own kernel work, ~23 us each here, is in both halves and cancels in the first
 * check). Run by `cache-qemu-bl44`. */
#include "arch_topology.h"
#include "cache.h"
#include "cpuidle.h"
#include "kernel.h"
#include "ktest.h"
#include "sched.h"
#include "selftest.h"

#define CHUNK_NS 200000ull /* cpu_work() between two moves: 200 us */
#define MOVES	 40
#define WS_KIB	 1024

struct bouncer {
	int cpu[2]; /* bounce: cpu[0], cpu[1], cpu[0], ...; stay: cpu[0] throughout */
	bool bounce;
	u64 elapsed; /* emulated ns from the first chunk to the last */
	u64 nr;	     /* refills charged to it */
	u64 stalled; /* ns of them paid as stalls */
	s64 lost;    /* running time that did no work, ns (work is ns at the top OPP) */
};

static void pin(int cpu)
{
	cpumask_t m = { { 0 } };

	__cpumask_set_cpu((unsigned int)cpu, &m);
	set_cpus_allowed(current, &m);
}

/* Each round: a chunk of work, then a move (or the same call that moves nothing). */
static void bouncer_fn(void *arg)
{
	struct bouncer *b = arg;
	u64 start, nr0, run0, work0;

	pin(b->cpu[0]); /* from the CPU it was forked on: maybe a refill, not counted */
	cpu_work(CHUNK_NS);
	start = arch_clock_ns();
	nr0 = current->cache.nr;
	yield(); /* the counters below are brought up to date at a switch */
	run0 = current->se.sum_exec_runtime;
	work0 = current->work_done;
	for (int i = 1; i <= MOVES; i++) {
		pin(b->bounce ? b->cpu[i % 2] : b->cpu[0]);
		cpu_work(CHUNK_NS);
	}
	b->elapsed = arch_clock_ns() - start;
	b->nr = current->cache.nr - nr0;
	b->stalled = current->cache.stalled_ns;
	yield();
	b->lost = (s64)(current->se.sum_exec_runtime - run0) - (s64)(current->work_done - work0);
}

static u64 run_bouncer(struct ktest *t, int c0, int c1, bool bounce, bool cache_on, u64 *nr,
		       s64 *lost)
{
	struct bouncer b = { .cpu = { c0, c1 }, .bounce = bounce };
	struct task_struct *p;

	cache_set_on(cache_on);
	p = kthread_create(bouncer_fn, &b, "bouncer");
	if (!p) {
		ktest_fail(t, __FILE__, __LINE__, "out of memory");
		return 0;
	}
	p->cache.ws_kib = WS_KIB;
	wake_up_new_task(p);
	kthread_join(p);
	*nr = b.nr;
	ktest_diag(t, "%s, cache %s: %llu ns for %d chunks, %llu refills (%llu ns as stalls)",
		   bounce ? "bounced" : "stays", cache_on ? "on" : "off",
		   (unsigned long long)b.elapsed, MOVES, (unsigned long long)*nr,
		   (unsigned long long)b.stalled);
	ktest_diag(t, "  running time that did no work: %lld ns", (long long)b.lost);
	*lost = b.lost;
	return b.elapsed;
}

/* Two CPUs of the biggest capacity that share their L2 (the tree's caches). */
static bool two_big_cpus(int *c0, int *c1)
{
	*c0 = selftest_pick_cpu(false, false);
	for (int c = 0; *c0 >= 0 && c < cpu_topology.nr_cpus; c++) {
		const struct topology_cache *a = topology_cache_at(&cpu_topology, *c0, 2);
		const struct topology_cache *b = topology_cache_at(&cpu_topology, c, 2);

		if (c != *c0 && cpu_online((unsigned int)c) && a && b && a->node == b->node &&
		    cpu_topology.cpu[c].capacity_orig == cpu_topology.cpu[*c0].capacity_orig) {
			*c1 = c;
			return true;
		}
	}
	return false;
}

static void cache_bounce_big(struct ktest *t)
{
	bool was_on = cache_model.on;
	u64 stay_on, bounce_on, stay_off, bounce_off, nr_on, nr_off, nr;
	s64 lost[4];
	int c0, c1;

	if (!two_big_cpus(&c0, &c1))
		KTEST_SKIP(t, "no two big CPUs sharing an L2");
	const struct topology_cache *l1 = topology_cache_at(&cpu_topology, c0, 1);
	ASSERT_TRUE(t, l1 && l1->size);
	/* per move: the L1D from the L2, 10 ns + size x 1000 / 16000 MB/s */
	u64 per_move = 10 + (u64)MIN(l1->size, WS_KIB * 1024u) * 1000 / 16000;
	u64 modelled = MOVES * per_move;

	cpuidle_set_enabled(false); /* an idle CPU's exit latency is not the cost under test */
	stay_on = run_bouncer(t, c0, c1, false, true, &nr, &lost[0]);
	EXPECT_EQ(t, nr, 0ull);
	bounce_on = run_bouncer(t, c0, c1, true, true, &nr_on, &lost[1]);
	stay_off = run_bouncer(t, c0, c1, false, false, &nr, &lost[2]);
	bounce_off = run_bouncer(t, c0, c1, true, false, &nr_off, &lost[3]);
	cpuidle_set_enabled(true);
	cache_set_on(was_on);

	EXPECT_EQ(t, nr_on, (u64)MOVES);
	EXPECT_EQ(t, nr_off, 0ull);
	/* on: the bounced task is later by the moves' kernel work and by the refills */
	s64 extra_on = (s64)bounce_on - (s64)stay_on, extra_off = (s64)bounce_off - (s64)stay_off;
	s64 refill = extra_on - extra_off, err = refill - (s64)modelled;

	ktest_diag(t, "modelled %llu ns (%d moves x %llu), measured %lld ns (moves alone: %lld)",
		   (unsigned long long)modelled, MOVES, (unsigned long long)per_move,
		   (long long)refill, (long long)extra_off);
	EXPECT_LE(t, err < 0 ? -err : err, (s64)modelled / 20);
	/* Progress per running time: the bounced task's refills are running time that does
	 * no work, the modelled amount of it; the task that stays loses none, and with
	 * cache=off neither does (they progress equally while they run). */
	s64 d = lost[1] - (s64)modelled;

	EXPECT_LE(t, d < 0 ? -d : d, (s64)modelled / 20);
	EXPECT_LE(t, lost[0] < 0 ? -lost[0] : lost[0], (s64)modelled / 100);
	EXPECT_LE(t, lost[2] < 0 ? -lost[2] : lost[2], (s64)modelled / 100);
	EXPECT_LE(t, lost[3] < 0 ? -lost[3] : lost[3], (s64)modelled / 100);
}

KTEST_SUITE_BY_NAME(cache, KTEST_CASE(cache_bounce_big));
