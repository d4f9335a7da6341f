/* exp_e1_matrix.c - E1's second table: the tester's `perf stat -n -r 20 perf bench
 * sched pipe -T -l 50000` pinned to the big cluster (`taskset 0xf0` on the HiKey960:
 * here the online CPUs of the highest capacity), without and with uclamp built in
 * (the UCLAMP feature), NO_ASYM_PREFER_PREV and ASYM_PREFER_PREV, printed as perf
 * stat prints elapsed time (mean, +- the standard error of the mean) beside the
 * published figures; cpuidle off, as the tester's board ran (idle-state exits
 * would otherwise dominate every migrated wakeup). The nested-cgroup rows run the
 * same from inside group A/B (`cgexec -g cpu:A/B`: the threads inherit it at fork),
 * made for the run if missing and removed after. */
#include "bench.h"
#include "bench_internal.h"
#include "cpuidle.h"
#include "kernel.h"
#include "sched.h"

struct e1_cell {
	u64 mean_ns, sem_ns; /* perf: avg_stats(), stddev_stats() */
};

static u64 isqrt(u64 x)
{
	u64 r = 0;

	for (u64 bit = 1ull << 62; bit; bit >>= 2) {
		if (x >= r + bit) {
			x -= r + bit;
			r = (r >> 1) + bit;
		} else {
			r >>= 1;
		}
	}
	return r;
}

/* perf stat -r: the mean, and sqrt(variance / n) with the sample variance. */
static int e1_cell_run(u64 runs, u64 loops, const cpumask_t *cpus, struct e1_cell *c)
{
	u64 sum = 0, sq = 0, mean;
	static u64 ns[64];

	runs = MIN(runs, ARRAY_SIZE(ns));
	for (u64 i = 0; i < runs; i++) {
		struct pipe_result r;

		if (bench_pipe_on(loops, cpus, &r))
			return -1;
		ns[i] = r.ns;
		sum += r.ns;
	}
	mean = sum / runs;
	for (u64 i = 0; i < runs; i++) {
		u64 d = ns[i] > mean ? ns[i] - mean : mean - ns[i];

		sq += d * d;
	}
	c->mean_ns = mean;
	c->sem_ns = runs > 1 ? isqrt(sq / (runs - 1) / runs) : 0;
	return 0;
}

/* "0.392850 +- 0.001234 s ( +- 0.31% )" */
static void e1_cell_fmt(const struct e1_cell *c, char *buf, size_t size)
{
	u64 pct = c->mean_ns ? c->sem_ns * 10000 / c->mean_ns : 0;

	ksnprintf(buf, size, "%llu.%06llu +- %llu.%06llu ( +- %llu.%02llu%% )",
		  c->mean_ns / NSEC_PER_SEC, c->mean_ns / 1000 % 1000000, c->sem_ns / NSEC_PER_SEC,
		  c->sem_ns / 1000 % 1000000, pct / 100, pct % 100);
}

/* The online CPUs of the highest capacity_orig (the HiKey960's 0xf0). */
static void biggest_cpus(cpumask_t *m)
{
	unsigned long best = 0;
	unsigned int c;

	cpumask_clear(m);
	for_each_cpu(c, cpu_online_mask) {
		if (capacity_orig_of(c) > best) {
			best = capacity_orig_of(c);
			cpumask_clear(m);
		}
		if (capacity_orig_of(c) == best)
			cpumask_set_cpu(c, m);
	}
}

/* Group A/B, made if missing; *made says which of A, A/B to remove after. */
static struct task_group *e1_group(struct task_group **made)
{
	struct task_group *a = sched_group_find("A"), *b;

	made[0] = made[1] = NULL;
	if (!a)
		a = made[0] = sched_group_create(NULL, "A");
	b = a ? sched_group_find("A/B") : NULL;
	if (a && !b)
		b = made[1] = sched_group_create(a, "B");
	return b;
}

/* One cell from inside tg (NULL: where we are), as cgexec runs a command. */
static int e1_cell_in(struct task_group *tg, u64 runs, u64 loops, const cpumask_t *cpus,
		      struct e1_cell *c)
{
	struct task_group *was = task_group(current);
	int err;

	if (tg)
		sched_move_task(current, tg);
	err = e1_cell_run(runs, loops, cpus, c);
	if (tg)
		sched_move_task(current, was);
	return err;
}

static void e1_row(const char *name, struct e1_cell *c, const char *published, int uc, int g,
		   u64 runs, u64 loops)
{
	char a[64], b[64];

	e1_cell_fmt(&c[0], a, sizeof(a));
	e1_cell_fmt(&c[1], b, sizeof(b));
	printk("%-24s %-40s %-40s %s\n", name, a, b, published);
	printk("RESULT e1_matrix uclamp=%d group=%s runs=%llu loops=%llu "
	       "mean_ns_off=%llu sem_ns_off=%llu mean_ns_on=%llu sem_ns_on=%llu\n",
	       uc, g ? "A/B" : "none", runs, loops, c[0].mean_ns, c[0].sem_ns, c[1].mean_ns,
	       c[1].sem_ns);
}

int experiment_e1_matrix(u64 runs, u64 loops)
{
	static const char *const published[2][2] = {
		{ "0.392850 -> 0.330786", "0.414644 -> 0.353113" },
		{ "0.393781 -> 0.342726", "0.416645 -> 0.358098" },
	};
	static const char *const names[2][2] = { { "taskset big", "cgexec A/B taskset big" },
						 { "UCLAMP taskset big", "UCLAMP cgexec A/B" } };
	bool was_asym = true, was_uclamp = true, was_idle = cpuidle_enabled();
	struct task_group *made[2], *ab;
	struct e1_cell cell[2][2][2];
	cpumask_t big;
	int err = 0;

	if (!runs || !loops) /* r=0: the first table only */
		return 0;
	biggest_cpus(&big);
	ab = e1_group(made);
	if (!ab)
		return -1;
	sched_feat_get("ASYM_PREFER_PREV", &was_asym);
	sched_feat_get("UCLAMP", &was_uclamp);
	cpuidle_set_enabled(false);
	for (int uc = 0; uc < 2 && !err; uc++) {
		sched_feat_set(uc ? "UCLAMP" : "NO_UCLAMP");
		for (int g = 0; g < 2 && !err; g++) {
			for (int on = 0; on < 2 && !err; on++) {
				sched_feat_set(on ? "ASYM_PREFER_PREV" : "NO_ASYM_PREFER_PREV");
				experiment_half_begin(uc ? (g ? "UCLAMP/A/B" : "UCLAMP/big")
							 : (g ? "NO_UCLAMP/A/B" : "NO_UCLAMP/big"));
				err = e1_cell_in(g ? ab : NULL, runs, loops, &big,
						 &cell[uc][g][on]);
				experiment_half_end();
			}
		}
	}
	sched_feat_set(was_asym ? "ASYM_PREFER_PREV" : "NO_ASYM_PREFER_PREV");
	sched_feat_set(was_uclamp ? "UCLAMP" : "NO_UCLAMP");
	cpuidle_set_enabled(was_idle);
	if (made[1])
		sched_group_destroy(made[1]);
	if (made[0])
		sched_group_destroy(made[0]);
	if (err)
		return -1;
	printk("\nE1, the tester's matrix: perf stat -n -r %llu perf bench sched pipe -T -l %llu, "
	       "under taskset 0x%llx (the biggest CPUs), cpuidle off; elapsed s, mean +- its "
	       "standard error\n",
	       runs, loops, (unsigned long long)cpumask_bits(&big)[0]);
	printk("%-24s %-40s %-40s %s\n", "", "NO_ASYM_PREFER_PREV", "ASYM_PREFER_PREV",
	       "published (HiKey960, -r 20 -l 50000)");
	for (int uc = 0; uc < 2; uc++)
		for (int g = 0; g < 2; g++)
			e1_row(names[uc][g], cell[uc][g], published[uc][g], uc, g, runs, loops);
	return 0;
}
