/* test_cache.c - host tests of kernel/sched/cache.c: the refill a move costs, worked by
 * hand on a HiKey960-shaped machine (cpu0-3 A53: 32 KiB L1D, 512 KiB L2; cpu4-7 A73:
 * 64 KiB L1D, 2 MiB L2). The constants are restated here from docs/design.md ("Caches"):
 * A53 L2 8000 MB/s + 10 ns, DRAM 2000 MB/s + 150 ns; A73 L2 16000 MB/s + 10 ns, DRAM
 * 4000 MB/s + 120 ns. Expected values are the arithmetic in each comment, not the code's. */
#include "cache.h"
#include "ktest.h"
#include "topology.h"

#define KIB 1024u
#define MIB (1024u * 1024u)

static struct topology topo;
static struct cache_model m;

/* Nodes: a cpu's own offset for its L1, 1000 + cluster for the L2. */
static void hikey_model(bool on)
{
	topo = (struct topology){ .nr_cpus = 8 };
	for (int c = 0; c < 8; c++) {
		struct cpu_topology *ct = &topo.cpu[c];
		bool big = c >= 4;

		ct->node = c;
		ct->capacity_orig = big ? 1024 : 462;
		ct->nr_caches = 2;
		ct->cache[0] = (struct topology_cache){ c, 1, big ? 64 * KIB : 32 * KIB, false };
		ct->cache[1] =
			(struct topology_cache){ 1000 + big, 2, big ? 2 * MIB : 512 * KIB, true };
	}
	m.on = on;
	cache_model_init(&m, &topo);
}

static struct task_cache task(u32 ws_kib)
{
	return (struct task_cache){ .ws_kib = ws_kib, .cpu = -1 };
}

/* Run tc on cpu (switch in, then out): returns the refill charged at the switch in. */
static u64 run_on(struct task_cache *tc, int cpu)
{
	struct cache_refill r = cache_model_switch_in(&m, tc, cpu);

	cache_model_switch_out(&m, tc, cpu);
	return r.ns;
}

static void cache_init_shares(struct ktest *t)
{
	hikey_model(true);
	EXPECT_EQ(t, m.cpu[2].l2_id, 0);
	EXPECT_EQ(t, m.cpu[6].l2_id, 4);
	EXPECT_EQ(t, m.cpu[6].l1, 64 * KIB);
	EXPECT_EQ(t, m.cpu[1].l2, 512 * KIB);
	EXPECT_EQ(t, m.cpu[5].bw_dram, 4000u);
	EXPECT_EQ(t, m.cpu[0].bw_dram, 2000u);
}

/* 1 MiB on cpu4, then cpu5: the L2 holds all of it, the new L1 nothing: 64 KiB from the
 * L2 = 10 + 65536 x 1000 / 16000 = 4106 ns. The same CPU again at once: nothing. */
static void cache_same_cluster(struct ktest *t)
{
	struct task_cache a = task(1024);
	struct cache_refill r;

	hikey_model(true);
	EXPECT_EQ(t, run_on(&a, 4), 0ull); /* a new task: nothing to lose yet */
	r = cache_model_switch_in(&m, &a, 5);
	EXPECT_EQ(t, r.ns, 4106ull);
	EXPECT_EQ(t, r.l2_bytes, 64 * KIB);
	EXPECT_EQ(t, r.dram_bytes, 0u);
	cache_model_switch_out(&m, &a, 5);
	EXPECT_EQ(t, run_on(&a, 5), 0ull);
}

/* 1 MiB from cpu5 to cpu0 (an A53): its 512 KiB L2 refills from DRAM, which fills the
 * 32 KiB L1 on the way: 150 + 524288 x 1000 / 2000 = 262294 ns. Back to cpu5: the A73
 * L2 still holds it (nothing else ran), its L1 does too: 0. */
static void cache_cross_cluster(struct ktest *t)
{
	struct task_cache a = task(1024);
	struct cache_refill r;

	hikey_model(true);
	run_on(&a, 5);
	r = cache_model_switch_in(&m, &a, 0);
	EXPECT_EQ(t, r.ns, 262294ull);
	EXPECT_EQ(t, r.dram_bytes, 512 * KIB);
	EXPECT_EQ(t, r.l2_bytes, 0u);
	cache_model_switch_out(&m, &a, 0);
	/* Its warmth is only where it last ran: back in the big cluster, all of it again. */
	EXPECT_EQ(t, run_on(&a, 5), 120ull + 262144);
}

/* a (1 MiB) leaves cpu4; b (1.5 MiB) runs on cpu5 meanwhile and fills 1.5 MiB of the
 * shared 2 MiB L2. a back on cpu4: its L1 is intact (nothing ran on cpu4), the L2 kept
 * the newest 2 MiB: b's 1.5 and a's newest 0.5, so 512 KiB come from DRAM:
 * 120 + 524288 x 1000 / 4000 = 131192 ns. With b at 2 MiB nothing of a is left:
 * 120 + 1 MiB / 4000 MB/s = 262264 ns. */
static void cache_back_after_absence(struct ktest *t)
{
	struct task_cache a = task(1024), b = task(1536), c = task(2048);

	hikey_model(true);
	run_on(&a, 4);
	run_on(&b, 5);
	EXPECT_EQ(t, run_on(&a, 4), 131192ull);
	run_on(&c, 5);
	EXPECT_EQ(t, run_on(&a, 4), 262264ull);
	/* c then runs on cpu4: it evicts a's L1 (64 KiB back from the L2: 4106 ns), but the
	 * 1 MiB c refills into the L2 displaces c's own older lines, not a's newer ones. */
	run_on(&c, 4);
	EXPECT_EQ(t, run_on(&a, 4), 4106ull);
}

/* Two 16 KiB tasks share cpu6's 64 KiB L1: neither evicts the other. */
static void cache_small_sets_share(struct ktest *t)
{
	struct task_cache a = task(16), b = task(16);

	hikey_model(true);
	run_on(&a, 6);
	run_on(&b, 6);
	for (int i = 0; i < 4; i++) {
		EXPECT_EQ(t, run_on(&a, 6), 0ull);
		EXPECT_EQ(t, run_on(&b, 6), 0ull);
	}
}

static void cache_off_charges_nothing(struct ktest *t)
{
	struct task_cache a = task(1024);

	hikey_model(false);
	run_on(&a, 4);
	EXPECT_EQ(t, run_on(&a, 0), 0ull);
	EXPECT_EQ(t, run_on(&a, 5), 0ull);
}

static void cache_resident_rule(struct ktest *t)
{
	EXPECT_EQ(t, cache_resident(100, 0, 1000), 100ull);
	EXPECT_EQ(t, cache_resident(100, 900, 1000), 100ull); /* the older 900 go first */
	EXPECT_EQ(t, cache_resident(100, 950, 1000), 50ull);
	EXPECT_EQ(t, cache_resident(100, 5000, 1000), 0ull);
}

KTEST_SUITE(cache_model, KTEST_CASE(cache_init_shares), KTEST_CASE(cache_same_cluster),
	    KTEST_CASE(cache_cross_cluster), KTEST_CASE(cache_back_after_absence),
	    KTEST_CASE(cache_small_sets_share), KTEST_CASE(cache_off_charges_nothing),
	    KTEST_CASE(cache_resident_rule));
