/* exp_debounce.c - E2 of docs/experiments.md: wakeup debounce (the 2017
 * RFC), SIS_DEBOUNCE off and on. A 2-client tbench over pipes (bench_tbench.c),
 * alone and beside the "video playing" background, three runs each,
 * counting the client and server threads' migrations and the throughput
 * (with `why`: each thread's placements at the end of each run).
 * No state beyond the feature word, restored at the end. */
#include "bench.h"
#include "bench_internal.h"
#include "kernel.h"
#include "sched.h"
#include "smp.h"
#include "topology.h"

#define E2_RUNS 3
#define E2_BG	8 /* background tasks of the video case (bench_tbench.c's table) */

struct e2_case {
	u64 mig[E2_RUNS], kbs[E2_RUNS], trips[E2_RUNS]; /* kbs: thousandths of MB/s */
	u64 bounced[E2_RUNS]; /* moves within the tick of the last placement */
};

static int e2_case_run(const char *feat, u64 runs, u64 ms, u64 bg, bool why, struct e2_case *c)
{
	for (u64 i = 0; i < runs; i++) {
		struct tbench_result r;
		char label[48];
		int err;

		ksnprintf(label, sizeof(label), "%s %s run%llu", feat, bg ? "video" : "idle",
			  i + 1);
		experiment_half_begin(label);
		err = bench_tbench(2, ms, bg, why, &r);
		experiment_half_end();
		if (err)
			return -1;
		bench_tbench_print(&r);
		c->mig[i] = r.migrations;
		c->bounced[i] = r.bounced;
		c->trips[i] = r.trips;
		c->kbs[i] = r.ns ? r.bytes * NSEC_PER_SEC / r.ns / 1000 : 0;
	}
	return 0;
}

static u64 e2_mean(const u64 *v, u64 runs)
{
	u64 s = 0;

	for (u64 i = 0; i < runs; i++)
		s += v[i];
	return s / runs;
}

/* One row: each run's migrations (or bounces) off -> on. */
static void e2_line(const char *name, const struct e2_case c[2], bool bounced, u64 runs,
		    const char *pub)
{
	char cols[2][48];

	for (int on = 0; on < 2; on++) {
		size_t n = 0;

		for (u64 i = 0; i < runs; i++)
			n += (size_t)ksnprintf(cols[on] + n, sizeof(cols[on]) - n, "%s%llu",
					       i ? " / " : "",
					       bounced ? c[on].bounced[i] : c[on].mig[i]);
	}
	printk("%-16s %-22s -> %-18s %s\n", name, cols[0], cols[1], pub);
}

static void e2_print(const struct e2_case idle[2], const struct e2_case video[2], u64 runs,
		     u64 ms_idle, u64 ms)
{
	u64 t[2] = { e2_mean(idle[0].kbs, runs), e2_mean(idle[1].kbs, runs) };
	u64 v[2] = { e2_mean(video[0].kbs, runs), e2_mean(video[1].kbs, runs) };
	char ct[32], cv[32];

	pct_change(t[0], t[1], ct, sizeof(ct));
	pct_change(v[0], v[1], cv, sizeof(cv));
	printk("\nE2: wakeup debounce (SIS_DEBOUNCE)\n");
	printk("%u CPUs, %s capacities; tbench 2 over pipes (2 clients + 2 servers), %llu runs "
	       "of %llu ms (idle) and %llu ms (video); video = %d periodic tasks\n",
	       num_online_cpus(), cpu_topology.asym_cpucapacity ? "asymmetric" : "symmetric", runs,
	       ms_idle, ms, E2_BG);
	printk("migrations       NO_SIS_DEBOUNCE           SIS_DEBOUNCE       published (10 s)\n");
	e2_line("idle", idle, false, runs, "261 / 208 / 199 -> 8 / 6 / 0");
	e2_line("video playing", video, false, runs, "10906 / 10094 / 10774 -> 34 / 34 / 34");
	printk("moved again within the tick of their last placement (what the debounce "
	       "forbids):\n");
	e2_line("  idle", idle, true, runs, "");
	e2_line("  video playing", video, true, runs, "");
	printk("throughput idle  %llu.%03llu -> %llu.%03llu MB/sec  %s   published tbench 2: "
	       "1129.63 -> 1462.53 MB/sec (+29 %%)\n",
	       t[0] / 1000, t[0] % 1000, t[1] / 1000, t[1] % 1000, ct);
	printk("throughput video %llu.%03llu -> %llu.%03llu MB/sec  %s\n", v[0] / 1000, v[0] % 1000,
	       v[1] / 1000, v[1] % 1000, cv);
	printk("RESULT e2 runs=%llu ms_idle=%llu ms=%llu idle_migrations_off=%llu "
	       "idle_migrations_on=%llu "
	       "video_migrations_off=%llu video_migrations_on=%llu video_bounced_off=%llu "
	       "video_bounced_on=%llu idle_round_trips_off=%llu "
	       "idle_round_trips_on=%llu video_round_trips_off=%llu video_round_trips_on=%llu\n",
	       runs, ms_idle, ms, e2_mean(idle[0].mig, runs), e2_mean(idle[1].mig, runs),
	       e2_mean(video[0].mig, runs), e2_mean(video[1].mig, runs),
	       e2_mean(video[0].bounced, runs), e2_mean(video[1].bounced, runs),
	       e2_mean(idle[0].trips, runs), e2_mean(idle[1].trips, runs),
	       e2_mean(video[0].trips, runs), e2_mean(video[1].trips, runs));
}

int experiment_e2(bool shortrun, bool why)
{
	/* Short: the idle case briefly (it hardly migrates), the video case
	 * long enough for some moves within a tick without the debounce. */
	u64 runs = shortrun ? 1 : E2_RUNS, ms = shortrun ? 1000 : 10000,
	    ms_idle = shortrun ? 200 : ms;
	struct e2_case idle[2] = { 0 }, video[2] = { 0 };
	bool was = false;
	int n = 0, ret = 0;

	sched_feat_get("SIS_DEBOUNCE", &was);
	for (int on = 0; on < 2 && !ret; on++) {
		const char *feat = on ? "SIS_DEBOUNCE" : "NO_SIS_DEBOUNCE";

		sched_feat_set(feat);
		ret = e2_case_run(feat, runs, ms_idle, 0, why, &idle[on]);
		if (!ret)
			ret = e2_case_run(feat, runs, ms, E2_BG, why, &video[on]);
	}
	sched_feat_set(was ? "SIS_DEBOUNCE" : "NO_SIS_DEBOUNCE");
	if (ret)
		return ret;
	e2_print(idle, video, runs, ms_idle, ms);
	if (!shortrun)
		return 0;
	printk("KTAP version 1\n1..3\n");
	/* The video case is where wakeups find prev busy and move the wakee,
	 * often twice within one tick: the debounce forbids exactly those
	 * second moves. The post's drop in all migrations does not reproduce
	 * here and is not asserted (docs/experiments.md says why). */
	ktap_check(&n, video[0].bounced[0] > 0, "e2_off_moves_twice_in_a_tick");
	ktap_check(&n, video[1].bounced[0] == 0, "e2_on_never_moves_twice_in_a_tick");
	/* Fewer moves must not cost throughput: within 5 %. A short run's
	 * round trips move by about 2 % from one build to the next with the
	 * memory layout alone (an unused 8 KiB array in main.c did it), so a
	 * tighter bound would judge the binary, not the mechanism. */
	ktap_check(&n, video[1].trips[0] * 100 >= video[0].trips[0] * 95,
		   "e2_video_throughput_kept");
	return 0;
}
