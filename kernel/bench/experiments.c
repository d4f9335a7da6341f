/* experiments.c - the published results (docs/experiments.md), each run
 * with its mechanism off and on in one boot and printed in the layout of the
 * original post. "experiment=N,short" runs a shortened version and prints
 * KTAP checks of the effect's direction (what `make test` judges).
 * Feature flags are restored afterwards. */
#include "bench.h"
#include "bench_internal.h"
#include "cpufreq.h"
#include "cpuidle.h"
#include "kernel.h"
#include "sched.h"
#include "timer.h"
#include "topology.h"

void ktap_check(int *n, bool ok, const char *name)
{
	++*n;
	printk("%sok %d %s\n", ok ? "" : "not ", *n, name);
}

int pct_change(u64 from, u64 to, char *buf, size_t size)
{
	long long d = from ? ((long long)to - (long long)from) * 1000 / (long long)from : 0;

	return ksnprintf(buf, size, "%s%lld.%lld %%", d < 0 ? "-" : "+", (d < 0 ? -d : d) / 10,
			 (d < 0 ? -d : d) % 10);
}

/* E1 stopped in half `on`: the halves done and the part of this one, marked
 * partial (no table, no RESULT line: nothing may take them for a whole run). */
static void e1_print_partial(const struct pipe_result *r, int on)
{
	printk("E1 partial result (interrupted in the %s half):\n",
	       on ? "ASYM_PREFER_PREV" : "NO_ASYM_PREFER_PREV");
	for (int h = 0; h <= on; h++) {
		const char *name = h ? "ASYM_PREFER_PREV" : "NO_ASYM_PREFER_PREV";

		if (h < on || r[h].partial)
			bench_pipe_print_partial(name, &r[h]);
		else
			printk("  %s: no round trip done\n", name);
	}
}

/* E1: perf bench sched pipe -T with ASYM_PREFER_PREV off and on, with the idle
 * states off unless idle_on (docs/experiments.md): the published runs had none
 * between round trips (149313 ops/s with a migration at every wakeup is 6.7 us a
 * round trip; the tester's runs say "no cpuidle"). Then the tester's matrix
 * (exp_e1_matrix.c): runs x mloops round trips pinned to the big cluster. */
static int experiment_e1(bool shortrun, u64 loops, bool idle_on, u64 runs, u64 mloops)
{
	struct pipe_result r[2];
	bool was = true, asym = cpu_topology.asym_cpucapacity, idle_was = cpuidle_enabled();
	u64 mig[2], ops[2];
	char chg[32];
	int n = 0;

	sched_feat_get("ASYM_PREFER_PREV", &was);
	cpuidle_set_enabled(idle_was && idle_on);
	for (int on = 0; on < 2; on++) {
		const char *feat = on ? "ASYM_PREFER_PREV" : "NO_ASYM_PREFER_PREV";
		int err;

		sched_feat_set(feat);
		experiment_half_begin(feat);
		err = bench_pipe(loops, &r[on]);
		experiment_half_end();
		if (err) { /* interrupted (shell Ctrl-C): what was done, no table */
			sched_feat_set(was ? "ASYM_PREFER_PREV" : "NO_ASYM_PREFER_PREV");
			cpuidle_set_enabled(idle_was);
			e1_print_partial(r, on);
			return -1;
		}
		bench_pipe_print(&r[on]);
		mig[on] = r[on].migrations[0] + r[on].migrations[1];
		ops[on] = r[on].loops * NSEC_PER_SEC / r[on].ns;
	}
	sched_feat_set(was ? "ASYM_PREFER_PREV" : "NO_ASYM_PREFER_PREV");
	cpuidle_set_enabled(idle_was);

	pct_change(ops[0], ops[1], chg, sizeof(chg));
	printk("\nE1: prefer prev cpu in the asymmetric wakeup path\n");
	printk("%u CPUs, %s capacities, governor %s, EAS %s, idle states %s; perf bench sched "
	       "pipe -T -l %llu\n",
	       num_online_cpus(), asym ? "asymmetric" : "symmetric",
	       cpufreq_nr_policies() ? cpufreq_governor_name(0) : "none",
	       sched_energy_enabled() ? "on" : "off", idle_was && idle_on ? "on" : "off", loops);
	printk("                 NO_ASYM_PREFER_PREV   ASYM_PREFER_PREV\n");
	printk("# migrations     %-21llu %llu\n", mig[0], mig[1]);
	printk("ops/sec          %-21llu %llu  %s\n", ops[0], ops[1], chg);
	printk("published: HiKey960 (-l 50000) migrations 999364 -> 0, ops/sec 149313 -> "
	       "182587 (+22 %%); symmetric 8x A53 47721 -> 47899 (+0.4 %%)\n");
	printk("RESULT e1 asym=%d loops=%llu migrations_off=%llu migrations_on=%llu "
	       "ops_per_sec_off=%llu ops_per_sec_on=%llu\n",
	       asym, loops, mig[0], mig[1], ops[0], ops[1]);
	if (experiment_e1_matrix(runs, mloops))
		return -1;
	if (!shortrun)
		return 0;
	printk("KTAP version 1\n1..2\n");
	if (asym) {
		/* Off: almost every wakeup moves; on: under 1 % of that. */
		ktap_check(&n, mig[0] * 2 > loops, "e1_off_migrates");
		ktap_check(&n, mig[1] * 100 < mig[0], "e1_on_under_1_percent");
	} else {
		/* The flag only acts in the asymmetric path: no difference. */
		u64 d = mig[0] > mig[1] ? mig[0] - mig[1] : mig[1] - mig[0];
		u64 dops = ops[0] > ops[1] ? ops[0] - ops[1] : ops[1] - ops[0];

		ktap_check(&n, d * 10 <= mig[0] + 10, "e1_sym_same_migrations");
		ktap_check(&n, dops * 100 <= ops[0] * 5, "e1_sym_same_ops_within_5_percent");
	}
	return 0;
}

/* "experiment=smoke": every benchmark briefly, and its refusals of bad
 * arguments, as KTAP (make test). Numbers are printed, not judged. */
static int bench_smoke(void)
{
	static const char *const good[] = { "pipe,n=200",
					    "hackbench,g=2,l=2",
					    "sysbench-threads,t=4,y=10,d=20",
					    "tbench,c=2,d=20,bg=3,why",
					    "sysbench-cpu,t=2,d=20",
					    "sysbench-cpu,real,d=20",
					    "spin,t=2,ms=20" };
	static const char *const bad[] = { "pipe,n=0",		"hackbench,g=0",
					   "hackbench,g=99",	"sysbench-threads,t=0",
					   "sysbench-cpu,t=65", "tbench,c=5",
					   "spin,t=0",		"spin,t=65",
					   "nosuchbench" };
	int n = 0;

	printk("KTAP version 1\n1..%zu\n", ARRAY_SIZE(good) + ARRAY_SIZE(bad));
	for (unsigned int i = 0; i < ARRAY_SIZE(good); i++) {
		char name[48];

		ksnprintf(name, sizeof(name), "runs %s", good[i]);
		ktap_check(&n, bench_run(good[i]) == 0, name);
	}
	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		char name[48];

		ksnprintf(name, sizeof(name), "refuses %s", bad[i]);
		ktap_check(&n, bench_run(bad[i]) == -1, name);
	}
	return 0;
}

/* "experiment=cost": what a machine's size costs (docs/machines.md, "More CPUs"): when
 * the last CPU came online, one full wakeup scan and one load-balance pass's
 * statistics, in emulated ns, measured on this (the boot) CPU with the others
 * idle. Printed, not judged. */
static int experiment_cost(void)
{
	u64 online = 0;
	unsigned int cpu;

	for_each_cpu(cpu, cpu_online_mask)
		online = MAX(online, smp_boot_time_ns(cpu));
	msleep(100); /* the others settle into idle */
	printk("cost: cpus=%u all_online_us=%llu wakeup_scan_ns=%llu lb_pass_ns=%llu\n",
	       num_online_cpus(), online / NSEC_PER_USEC, sched_wakeup_scan_cost_ns(1000),
	       sched_lb_pass_cost_ns(1000));
	return 0;
}

/* E1-E5 reproduce results published without EAS: they run with it off (NO_EAS),
 * whatever the governors, and restore the flag. */
static int experiment_seed(const char *spec, bool shortrun)
{
	bool eas = true;
	int ret = -2;

	sched_feat_get("EAS", &eas);
	sched_feat_set("NO_EAS");
	if (spec[0] == '1')
		ret = experiment_e1(shortrun, bench_arg(spec, "n", shortrun ? 1000 : 50000),
				    bench_flag(spec, "idle"),
				    bench_arg(spec, "r", shortrun ? 3 : 20),
				    bench_arg(spec, "l", shortrun ? 200 : 2500));
	else if (spec[0] == '2')
		ret = experiment_e2(shortrun, bench_flag(spec, "why"));
	else if (spec[0] == '3')
		ret = experiment_e3(shortrun);
	else if (spec[0] == '4')
		ret = experiment_e4(shortrun);
	else if (spec[0] == '5')
		ret = experiment_e5(shortrun);
	sched_feat_set(eas ? "EAS" : "NO_EAS");
	return ret;
}

int experiment_run(const char *spec)
{
	bool shortrun = bench_flag(spec, "short");

	bench_progress(spec, 0, 0);
	experiment_trace_setup(spec);
	if (!strcmp(spec, "smoke"))
		return bench_smoke();
	if (!strcmp(spec, "cost"))
		return experiment_cost();
	if (!strcmp(spec, "overheads"))
		return experiment_overheads();
	if (!strncmp(spec, "placement", 9) && (spec[9] == ',' || !spec[9]))
		return experiment_placement(bench_flag(spec, "skip_up"));
	if (spec[0] >= '1' && spec[0] <= '5' && (spec[1] == ',' || !spec[1]))
		return experiment_seed(spec, shortrun);
	if (spec[0] == '6' && (spec[1] == ',' || !spec[1]))
		return experiment_e6(shortrun);
	printk("experiment: \"%s\" is not available (implemented: 1-6, smoke, placement, cost, "
	       "overheads)\n",
	       spec);
	return -1;
}
