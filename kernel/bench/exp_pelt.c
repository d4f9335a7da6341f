/* exp_pelt.c - E3 of docs/experiments.md: the cost of PELT on the
 * scheduler's paths. hackbench (messaging --pipe --thread, 40 tasks per
 * group) for G = 1, 2, 4, 8, untimed for the durations, then again with each
 * CFS PELT update timed (sched_pelt_stats(), the arch clock under -icount);
 * the post's before/after was a code move with no expected change, so the
 * lesson is shown as its size: ns per update and the share of CPU time.
 * With ",trace" each untimed run is traced, labelled G=N. */
#include "bench.h"
#include "bench_internal.h"
#include "kernel.h"
#include "sched.h"
#include "smp.h"
#include "topology.h"

struct e3_row {
	u64 groups, ns;	      /* untimed run */
	u64 updates, busy_ns; /* untimed run: PELT updates, CPU time not idle */
	u64 t_updates, t_ns;  /* timed run: updates and their time */
};

static u64 idle_sum(void)
{
	u64 s = 0;
	unsigned int cpu;

	for_each_cpu(cpu, cpu_online_mask)
		s += cpu_idle_time_ns(cpu);
	return s;
}

/* What a timing pair costs by itself (one arch_clock_ns() read falls inside
 * each timed update): the mean of back-to-back reads. */
static u64 clock_read_ns(void)
{
	u64 sum = 0;

	for (int i = 0; i < 256; i++) {
		u64 t0 = arch_clock_ns();

		sum += arch_clock_ns() - t0;
	}
	return sum / 256;
}

static int e3_row_run(u64 groups, u64 loops, struct e3_row *r)
{
	struct hackbench_result hb;
	u64 u0, u1, n0, n1, idle0, t0, wall;
	char label[24];
	int err;

	r->groups = groups;
	ksnprintf(label, sizeof(label), "G=%llu", groups);
	experiment_half_begin(label);
	sched_pelt_stats(false, &u0, &n0);
	idle0 = idle_sum();
	t0 = arch_clock_ns();
	err = bench_hackbench(groups, loops, 0, &hb);
	wall = arch_clock_ns() - t0;
	experiment_half_end();
	if (err)
		return -1;
	sched_pelt_stats(false, &u1, &n1);
	r->ns = hb.ns;
	r->updates = u1 - u0;
	r->busy_ns = wall * (u64)num_online_cpus() - (idle_sum() - idle0);
	printk("RESULT hackbench groups=%llu loops=%llu seconds=%llu.%06llu pelt_updates=%llu%s\n",
	       groups, loops, hb.ns / NSEC_PER_SEC, hb.ns / 1000 % 1000000, r->updates,
	       bench_features());
	sched_pelt_stats(true, &u0, &n0); /* timing on from here */
	if (bench_hackbench(groups, loops, 0, &hb))
		return -1;
	sched_pelt_stats(false, &u1, &n1);
	r->t_updates = u1 - u0;
	r->t_ns = n1 - n0;
	return 0;
}

/* One wakeup and switch: half a round trip of the pipe ping-pong. */
static u64 wakeup_ns(u64 loops)
{
	struct pipe_result pr;

	if (bench_pipe(loops, &pr))
		return 0;
	return pr.ns / loops / 2;
}

static const char *const e3_published[] = { "3.906 -> 3.953", "8.569 -> 8.646", "16.384 -> 16.390",
					    "33.686 -> 33.992" };

static void e3_print(const struct e3_row *r, u64 loops, u64 per_update, u64 clk, u64 wake)
{
	printk("\nE3: the cost of PELT (load tracking) on the scheduler's paths\n");
	printk("%u CPUs, %s capacities; perf bench sched messaging --pipe --thread -l %llu "
	       "--group G (40 tasks per group)\n",
	       num_online_cpus(), cpu_topology.asym_cpucapacity ? "asymmetric" : "symmetric",
	       loops);
	printk("groups  duration (s)  x G=1  PELT updates  share of CPU time  published (s)\n");
	for (int i = 0; i < 4; i++) {
		u64 ratio = r[0].ns ? r[i].ns * 100 / r[0].ns : 0;
		u64 share = r[i].busy_ns ? r[i].updates * per_update * 10000 / r[i].busy_ns : 0;

		printk("%-7llu %llu.%06llu      %llu.%02llu   %-13llu %llu.%02llu %%%-11s %s\n",
		       r[i].groups, r[i].ns / NSEC_PER_SEC, r[i].ns / 1000 % 1000000, FIX2(ratio),
		       r[i].updates, FIX2(share), "", e3_published[i]);
	}
	printk("PELT update (update_load_avg: entity + cfs_rq): %llu ns each, timed over %llu "
	       "updates (%llu ns clock read subtracted)\n",
	       per_update, r[3].t_updates, clk);
	printk("a wakeup and switch (half a pipe round trip): %llu ns\n", wake);
	printk("published: i7-6700, -l 50000, before -> after moving PELT to its own file: "
	       "under 1.2 %% either way; time linear in G\n");
	printk("RESULT e3 loops=%llu ns_g1=%llu ns_g2=%llu ns_g4=%llu ns_g8=%llu "
	       "pelt_ns_per_update=%llu pelt_updates_g8=%llu wakeup_ns=%llu%s\n",
	       loops, r[0].ns, r[1].ns, r[2].ns, r[3].ns, per_update, r[3].updates, wake,
	       bench_features());
}

int experiment_e3(bool shortrun)
{
	u64 loops = shortrun ? 20 : 100, upd = 0, tns = 0, clk, per_update, wake;
	struct e3_row r[4];
	int n = 0;

	clk = clock_read_ns();
	for (int i = 0; i < 4; i++) {
		if (e3_row_run(1ull << i, loops, &r[i]))
			return -1;
		upd += r[i].t_updates;
		tns += r[i].t_ns;
	}
	per_update = upd ? tns / upd : 0;
	per_update = per_update > clk ? per_update - clk : 0;
	wake = wakeup_ns(shortrun ? 500 : 10000);
	e3_print(r, loops, per_update, clk, wake);
	if (!shortrun)
		return 0;
	printk("KTAP version 1\n1..3\n");
	/* Linear in G once the groups fill the machine: 8 groups take 1.6..2.5 times
	 * 4 (published 2.06), and time grows with G. One group of 40 tasks leaves
	 * CPUs idle between messages (G=2 took 1.31x G=1), so G=1 is no baseline. */
	ktap_check(&n,
		   r[3].ns * 10 >= r[2].ns * 16 && r[3].ns * 10 <= r[2].ns * 25 &&
			   r[0].ns < r[1].ns && r[1].ns < r[2].ns,
		   "e3_hackbench_linear_in_groups");
	ktap_check(&n, r[3].updates > r[0].updates && per_update > 0, "e3_pelt_updates_counted");
	/* Small next to what it serves: under a tenth of a wakeup. */
	ktap_check(&n, per_update * 10 < wake, "e3_pelt_update_under_tenth_of_wakeup");
	return 0;
}
