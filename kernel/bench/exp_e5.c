/* exp_e5.c - E5 of docs/experiments.md: schedutil with RT_UTIL_TRACKING off and
 * on, under the rt-app workload of the 2018 post (built-in e5.json: a CFS hog
 * and a periodic SCHED_FIFO thread on CPU 5), then with the hog replaced by
 * sysbench-cpu pinned to CPU 5 beside e5-sysbench.json's FIFO thread. Counts
 * the policy's frequency transitions and sysbench's events and latency.
 * Restores the governor and the feature flag afterwards. */
#include "cpufreq.h"
#include "bench_internal.h"
#include "kernel.h"
#include "mm.h"
#include "rtapp.h"
#include "sched.h"

#define E5_CPU	   5	   /* the post pinned both threads to CPU 5 */
#define E5_SHORT_S 2	   /* experiment=5,short: seconds per run */
#define E5_SB_WORK 1000000 /* a sysbench-cpu event: 1 ms of work at f_max */

struct e5_mode {
	u32 trans_rtapp, trans_sb;
	struct sysbench_result sb;
};

struct e5_bg {
	const struct rtapp_workload *w;
	struct rtapp_result r;
	int err;
};

static void e5_rtapp_thread(void *arg)
{
	struct e5_bg *bg = arg;

	bg->err = rtapp_run(bg->w, &bg->r);
}

/* One mode: the rt-app run alone, then the FIFO thread beside sysbench-cpu. */
static int e5_mode(int pol, bool on, struct rtapp_workload *hog, struct rtapp_workload *fifo,
		   struct e5_mode *m, struct e5_bg *bg)
{
	const char *feat = on ? "RT_UTIL_TRACKING" : "NO_RT_UTIL_TRACKING";
	struct cpufreq_stats s;
	struct task_struct *th;
	int err;

	sched_feat_set(feat);
	cpufreq_reset_stats(pol);
	experiment_half_begin(feat); /* experiment=5,...,trace: the rt-app half traced */
	err = rtapp_run(hog, &bg->r);
	experiment_half_end();
	if (err)
		return -1;
	cpufreq_get_stats(pol, &s);
	m->trans_rtapp = s.total_trans;
	rtapp_print(hog, &bg->r, on ? "e5 (RT_UTIL_TRACKING)" : "e5 (NO_RT_UTIL_TRACKING)");

	bg->w = fifo;
	cpufreq_reset_stats(pol);
	th = kthread_run(e5_rtapp_thread, bg, "e5-rtapp");
	if (!th)
		return -1;
	bench_sysbench_cpu_on(1, E5_SB_WORK, false, (u64)fifo->duration_s * 1000,
			      cpumask_of(E5_CPU), &m->sb);
	kthread_join(th);
	cpufreq_get_stats(pol, &s);
	m->trans_sb = s.total_trans;
	if (bg->err)
		return -1;
	rtapp_print(fifo, &bg->r,
		    on ? "e5-sysbench (RT_UTIL_TRACKING)" : "e5-sysbench (NO_RT_UTIL_TRACKING)");
	return 0;
}

static u64 lat_us(const struct sysbench_result *r)
{
	return r->events ? r->lat_sum_ns / r->events / 1000 : 0;
}

static void e5_print(const struct e5_mode m[2], s64 secs)
{
	long long d = m[0].sb.events ? ((long long)m[1].sb.events - (long long)m[0].sb.events) *
					       100 / (long long)m[0].sb.events
				     : 0;

	printk("\nE5: RT utilization tracking; schedutil, %u CPUs, both threads on CPU%d, %lld s\n",
	       num_online_cpus(), E5_CPU, secs);
	printk("                             NO_RT_UTIL_TRACKING  RT_UTIL_TRACKING   published\n");
	printk("total_trans (rt-app)         %-20u %-18u 1230 -> 14\n", m[0].trans_rtapp,
	       m[1].trans_rtapp);
	printk("sysbench-cpu events          %-20llu %-18llu 4903 -> 7694 (+56 %%); "
	       "here %s%lld %%\n",
	       m[0].sb.events, m[1].sb.events, d < 0 ? "" : "+", d);
	printk("sysbench-cpu avg latency ms  %llu.%02llu%-16s %llu.%02llu%-14s 3.06 -> 1.95\n",
	       lat_us(&m[0].sb) / 1000, lat_us(&m[0].sb) / 10 % 100, "", lat_us(&m[1].sb) / 1000,
	       lat_us(&m[1].sb) / 10 % 100, "");
	printk("total_trans (sysbench run)   %-20u %-18u\n", m[0].trans_sb, m[1].trans_sb);
	for (int on = 0; on < 2; on++)
		printk("RESULT e5 rt_util_tracking=%d seconds=%lld total_trans=%u "
		       "sysbench_events=%llu sysbench_avg_latency_us=%llu "
		       "sysbench_total_trans=%u\n",
		       on, secs, m[on].trans_rtapp, m[on].sb.events, lat_us(&m[on].sb),
		       m[on].trans_sb);
}

static void e5_ktap(const struct e5_mode m[2])
{
	bool ok1 = m[1].trans_rtapp * 10 < m[0].trans_rtapp, ok2 = m[1].sb.events > m[0].sb.events;

	printk("KTAP version 1\n1..2\n");
	printk("%sok 1 e5_transitions_on_under_a_tenth\n", ok1 ? "" : "not ");
	printk("%sok 2 e5_sysbench_events_higher_on\n", ok2 ? "" : "not ");
}

/* The machine needs CPU 5 with a cpufreq policy (qemu-sym8 is the post's
 * shape: 8 identical A53s, one frequency domain). */
int experiment_e5(bool shortrun)
{
	static struct e5_mode m[2];
	static struct e5_bg bg;
	struct rtapp_workload *hog = NULL, *fifo = NULL;
	int pol = E5_CPU < nr_cpu_ids && cpu_online(E5_CPU) ? cpufreq_policy_of(E5_CPU) : -1;
	const char *gov;
	bool was = true;
	int err = -1;

	if (pol < 0) {
		printk("E5: needs an online CPU%d with a cpufreq policy (make experiment E=5 "
		       "boots qemu-sym8)\n",
		       E5_CPU);
		return -1;
	}
	hog = rtapp_load("e5");
	fifo = rtapp_load("e5-sysbench");
	if (!hog || !fifo)
		goto out;
	if (shortrun)
		hog->duration_s = fifo->duration_s = E5_SHORT_S;
	gov = cpufreq_governor_name(pol);
	sched_feat_get("RT_UTIL_TRACKING", &was);
	if (cpufreq_set_governor(pol, "schedutil"))
		goto out;
	err = e5_mode(pol, false, hog, fifo, &m[0], &bg) ||
			      e5_mode(pol, true, hog, fifo, &m[1], &bg)
		      ? -1
		      : 0;
	sched_feat_set(was ? "RT_UTIL_TRACKING" : "NO_RT_UTIL_TRACKING");
	cpufreq_set_governor(pol, gov);
	if (!err) {
		e5_print(m, hog->duration_s);
		if (shortrun)
			e5_ktap(m);
	}
out:
	kfree(hog);
	kfree(fifo);
	return err;
}
