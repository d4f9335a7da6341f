/* cache.c - the cost of a migration on a board (docs/design.md, "Caches"): a task's
 * working set, what of it the L1 and L2 it can reach still hold, and the stall to refill
 * the rest at its core type's bandwidths. Pure: state lives in the caller's struct
 * cache_model (the kernel's is speed.c's, written under the switching CPU's rq lock;
 * the L2 counters shared by a cluster are added atomically). Not the stall itself
 * (speed.c) nor the cache topology (cacheinfo.c). */
#include "cache.h"
#include "topology.h"

/* Refill constants per core type, chosen before any experiment and never tuned
 * (docs/design.md, "Caches", has the sources): bandwidth of a refill from the cluster's
 * L2 and from DRAM, and the latency of the first line from each. A CPU below the
 * biggest capacity is the LITTLE (Cortex-A53) row, the biggest the big (Cortex-A73) row. */
static const struct cache_cpu refill_little = {
	.bw_l2 = 8000, .lat_l2_ns = 10, .bw_dram = 2000, .lat_dram_ns = 150
};
static const struct cache_cpu refill_big = {
	.bw_l2 = 16000, .lat_l2_ns = 10, .bw_dram = 4000, .lat_dram_ns = 120
};

void cache_model_init(struct cache_model *m, const struct topology *topo)
{
	*m = (struct cache_model){ .on = m->on, .nr_cpus = topo->nr_cpus };
	for (int c = 0; c < topo->nr_cpus; c++) {
		const struct topology_cache *l1 = topology_cache_at(topo, c, 1);
		const struct topology_cache *l2 = topology_cache_at(topo, c, 2);
		struct cache_cpu *cc = &m->cpu[c];

		*cc = topo->cpu[c].capacity_orig < SCHED_CAPACITY_SCALE ? refill_little
									: refill_big;
		cc->l1 = l1 ? l1->size : 0;
		cc->l2 = l2 ? l2->size : 0;
		cc->l2_id = c; /* the lowest CPU that reaches the same L2 node */
		for (int o = 0; l2 && o < c; o++) {
			const struct topology_cache *ol2 = topology_cache_at(topo, o, 2);

			if (ol2 && ol2->node == l2->node) {
				cc->l2_id = o;
				break;
			}
		}
	}
}

u64 cache_resident(u64 r, u64 filled, u64 size)
{
	u64 room = size > r ? size - r : 0, evicted = filled > room ? filled - room : 0;

	return r > evicted ? r - evicted : 0;
}

static u64 refill_ns(u64 bytes, u32 mbps, u32 lat_ns)
{
	return bytes && mbps ? lat_ns + bytes * 1000 / mbps : 0;
}

/*
 * On `cpu` the task needs min(ws, L1) in its L1 and min(ws, L2) in its L2. What they
 * still hold (only if it last ran on this CPU / under this L2, less what others filled
 * since) is free; the L2's missing part comes from DRAM (filling the L1 on the way),
 * the rest of the L1's from the L2:
 *
 *	dram = min(ws, L2) - resident_L2	l2 = max(0, min(ws, L1) - resident_L1 - dram)
 *	ns   = lat_dram + dram / bw_dram + lat_l2 + l2 / bw_l2	(a latency only if bytes move)
 */
struct cache_refill cache_model_switch_in(struct cache_model *m, struct task_cache *tc, int cpu)
{
	const struct cache_cpu *cc = &m->cpu[cpu];
	u64 ws = (u64)tc->ws_kib * 1024, need1 = ws < cc->l1 ? ws : cc->l1;
	u64 need2 = ws < cc->l2 ? ws : cc->l2, res1 = 0, res2 = 0, dram, l2;
	struct cache_refill r = { 0 };

	if (tc->cpu == cpu)
		res1 = cache_resident(need1, m->fill_l1[cpu] - tc->l1_mark, cc->l1);
	if (tc->cpu >= 0 && m->cpu[tc->cpu].l2_id == cc->l2_id && cc->l2)
		res2 = cache_resident(need2,
				      __atomic_load_n(&m->fill_l2[cc->l2_id], __ATOMIC_RELAXED) -
					      tc->l2_mark,
				      cc->l2);
	dram = cc->l2 ? need2 - res2 : need1 - res1; /* no L2: the L1 refills from DRAM */
	l2 = need1 - res1 > dram ? need1 - res1 - dram : 0;
	m->fill_l1[cpu] += need1 - res1;
	__atomic_add_fetch(&m->fill_l2[cc->l2_id], cc->l2 ? dram : 0, __ATOMIC_RELAXED);
	if (!m->on || tc->cpu < 0) /* off, or a new task: nothing to lose yet */
		return r;
	r.l2_bytes = (u32)l2;
	r.dram_bytes = (u32)dram;
	r.ns = refill_ns(dram, cc->bw_dram, cc->lat_dram_ns) +
	       refill_ns(l2, cc->bw_l2, cc->lat_l2_ns);
	return r;
}

void cache_model_switch_out(struct cache_model *m, struct task_cache *tc, int cpu)
{
	tc->cpu = cpu;
	tc->l1_mark = m->fill_l1[cpu];
	tc->l2_mark = __atomic_load_n(&m->fill_l2[m->cpu[cpu].l2_id], __ATOMIC_RELAXED);
}
