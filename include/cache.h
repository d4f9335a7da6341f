/* cache.h - what a migration costs (kernel/sched/cache.c): each task's working set, the
 * part of it the caches it can reach still hold, and the refill stall the speed model
 * charges on its first run after a move (docs/design.md, "Caches"). The maths and state
 * are pure (host-tested); kernel/sched/speed.c owns the kernel's instance and the stall. */
#ifndef CACHE_H
#define CACHE_H

#include "types.h"

struct topology;

/* Kernel threads and benchmarks that name none: a thread's stack (16 KiB on Linux arm64),
 * its task_struct and one 4 KiB pipe page, rounded up. Fixed before any experiment. */
#define CACHE_WS_DEFAULT_KIB 32

/* Per task, written by its CPU's switch under that rq's lock. */
struct task_cache {
	u32 ws_kib;	      /* working set, KiB (spawn ws=, rt-app's mem_buffer_size) */
	int cpu;	      /* the CPU it last ran on; -1: never ran */
	u64 l1_mark, l2_mark; /* that CPU's L1 and L2 fill counters when it left */
	u64 uncredited;	      /* ns of refill owed (cpu_work() waits it out, or a stall) */
	/* the last refill charged, for `why` and RESULT lines */
	u64 last_at, last_ns, total_ns, nr;
	u64 stalled_ns; /* of total_ns, paid as a stall (not waited out in cpu_work()) */
	u32 last_l2_kib, last_dram_kib;
	s16 last_from, last_to;
};

/* One CPU's view: its L1D, its L2 (shared by the CPUs with the same l2_id) and the refill
 * constants of its core type (cache.c's table). Sizes in bytes, bandwidths in MB/s. */
struct cache_cpu {
	u32 l1, l2;
	int l2_id;
	u32 bw_l2, bw_dram, lat_l2_ns, lat_dram_ns;
};

struct cache_model {
	bool on;
	int nr_cpus;
	struct cache_cpu cpu[NR_CPUS];
	u64 fill_l1[NR_CPUS]; /* bytes filled into each CPU's L1 since boot */
	u64 fill_l2[NR_CPUS]; /* ... into each L2, indexed by l2_id */
};

/* What one switch-in refilled: from the L2 and from DRAM, and the stall it costs. */
struct cache_refill {
	u64 ns;
	u32 l2_bytes, dram_bytes;
};

void cache_model_init(struct cache_model *m, const struct topology *topo);
/* p (its task_cache) starts running on cpu: what it must refill; the fill counters grow. */
struct cache_refill cache_model_switch_in(struct cache_model *m, struct task_cache *tc, int cpu);
/* p stops running on cpu: the marks its warmth decays from. */
void cache_model_switch_out(struct cache_model *m, struct task_cache *tc, int cpu);
/* What remains of r resident bytes in a cache of `size` after `filled` bytes of others
 * came in (LRU, fully associative: the older size - r bytes go first). */
u64 cache_resident(u64 r, u64 filled, u64 size);

/* kernel/sched/speed.c: the kernel's model (boot option cache=on|off). */
extern struct cache_model cache_model;
void cache_init(const struct topology *topo);
void cache_set_on(bool on); /* self-tests compare both in one boot */

#endif
