/* exp_e5.c - E5 of docs/experiments.md: schedutil with RT_UTIL_TRACKING off and
 * on, under the rt-app workload of the 2018 post (built-in e5.json: a CFS hog
 * and a periodic SCHED_FIFO thread on CPU 5), then with the hog replaced by
 * sysbench-cpu pinned to CPU 5 beside e5-sysbench.json's FIFO thread. Then the
 * same two halves with the FIFO thread replaced by a SCHED_DEADLINE one
 * (e5-dl*.json) and by a periodic interrupt source on CPU 5 (e5-irq.json and
 * the source below). NO_RT_UTIL_TRACKING: schedutil sees CFS only. Counts the
 * policy's frequency transitions and sysbench's events and latency. Restores
 * the governor and the feature flag afterwards. */
#include "cpufreq.h"
#include "bench_internal.h"
#include "kernel.h"
#include "mm.h"
#include "rtapp.h"
#include "sched.h"
#include "timer.h"

#define E5_CPU	   5	   /* the post pinned both threads to CPU 5 */
#define E5_SHORT_S 2	   /* experiment=5,short: seconds per run */
#define E5_SB_WORK 1000000 /* a sysbench-cpu event: 1 ms of work at f_max */

/* The IRQ variant's device: an interrupt every 1.7777 ms whose handler costs
 * 250 us (14 % of the CPU: a spinning handler is QEMU's most expensive
 * instruction stream), in the FIFO thread's pattern: from 177.77 ms on,
 * 50 x 17.777 ms busy, 377.777 ms quiet. */
#define E5_IRQ_PERIOD_NS 1777700ull
#define E5_IRQ_COST_NS	 250000ull
#define E5_IRQ_DELAY_NS	 177770000ull
#define E5_IRQ_BUSY_NS	 (50 * 17777000ull)
#define E5_IRQ_CYCLE_NS	 (E5_IRQ_BUSY_NS + 377777000ull)

enum { E5_RT, E5_DL, E5_IRQ, E5_NR };

static const struct e5_variant {
	const char *name, *hog, *alone, *title;
} e5_variants[E5_NR] = {
	{ "rt", "e5", "e5-sysbench", "RT utilization tracking" },
	{ "dl", "e5-dl", "e5-dl-sysbench",
	  "DL: the FIFO thread as SCHED_DEADLINE 9 ms / 17.777 ms" },
	{ "irq", "e5-irq", NULL,
	  "IRQ: a 250 us handler every 1.7777 ms instead of the FIFO thread" },
};

struct e5_mode {
	u32 trans_rtapp, trans_sb;
	struct sysbench_result sb;
};

struct e5_bg {
	const struct rtapp_workload *w;
	struct rtapp_result r;
	int err;
};

static struct {
	struct timer t;
	u64 first, next;
	volatile bool stop;
} e5_irq;

/* IRQ context on E5_CPU: the handler's work, then the next interrupt. */
static void e5_irq_fn(struct timer *t)
{
	u64 now = arch_clock_ns();

	if (READ_ONCE(e5_irq.stop))
		return;
	if (now >= e5_irq.first && (now - e5_irq.first) % E5_IRQ_CYCLE_NS < E5_IRQ_BUSY_NS)
		/* Spinning, not arch_stall_until(): inside the handler the timer's
		 * interrupt is active and could not end a wfi. */
		while (arch_clock_ns() < now + E5_IRQ_COST_NS)
			arch_cpu_relax();
	e5_irq.next += E5_IRQ_PERIOD_NS;
	if (e5_irq.next <= arch_clock_ns())
		e5_irq.next = arch_clock_ns() + E5_IRQ_PERIOD_NS;
	timer_start(t, e5_irq.next); /* from its own callback: never waits */
}

static void e5_irq_arm(void *arg)
{
	u64 now = arch_clock_ns();

	e5_irq.first = now + E5_IRQ_DELAY_NS;
	e5_irq.next = e5_irq.first;
	timer_start(&e5_irq.t, e5_irq.next); /* on this CPU, E5_CPU */
}

static int e5_irq_start(void)
{
	struct task_struct *th = kthread_create(e5_irq_arm, NULL, "e5-irq");

	if (!th)
		return -1;
	if (!e5_irq.t.fn)
		timer_init(&e5_irq.t, e5_irq_fn);
	WRITE_ONCE(e5_irq.stop, false);
	set_cpus_allowed(th, cpumask_of(E5_CPU));
	wake_up_new_task(th);
	kthread_join(th);
	return 0;
}

/* A callback in flight when stop is set may re-arm once: the second cancel
 * takes that one (any later callback sees stop). */
static void e5_irq_stop(void)
{
	WRITE_ONCE(e5_irq.stop, true);
	timer_cancel(&e5_irq.t);
	timer_cancel(&e5_irq.t);
}

static void e5_rtapp_thread(void *arg)
{
	struct e5_bg *bg = arg;

	bg->err = rtapp_run(bg->w, &bg->r);
}

/* "e5 (RT_UTIL_TRACKING)", "e5-dl (NO_RT_UTIL_TRACKING)", ... */
static const char *e5_label(const char *file, bool on)
{
	static char buf[64];

	ksnprintf(buf, sizeof(buf), "%s (%s)", file,
		  on ? "RT_UTIL_TRACKING" : "NO_RT_UTIL_TRACKING");
	return buf;
}

/* One mode: the rt-app run alone, then the FIFO/DL thread or the interrupt
 * source beside sysbench-cpu. */
static int e5_mode(int pol, bool on, const struct e5_variant *v, struct rtapp_workload *hog,
		   struct rtapp_workload *alone, struct e5_mode *m, struct e5_bg *bg)
{
	const char *feat = on ? "RT_UTIL_TRACKING" : "NO_RT_UTIL_TRACKING";
	bool rt = v == &e5_variants[E5_RT];
	struct cpufreq_stats s;
	struct task_struct *th = NULL;
	int err;

	sched_feat_set(feat);
	cpufreq_reset_stats(pol);
	if (rt) /* experiment=5,...,trace: the RT variant's rt-app halves traced */
		experiment_half_begin(feat);
	err = !alone && e5_irq_start();
	if (!err)
		err = rtapp_run(hog, &bg->r);
	if (!alone)
		e5_irq_stop();
	if (rt)
		experiment_half_end();
	if (err)
		return -1;
	cpufreq_get_stats(pol, &s);
	m->trans_rtapp = s.total_trans;
	rtapp_print(hog, &bg->r, e5_label(v->hog, on));

	cpufreq_reset_stats(pol);
	if (alone) {
		bg->w = alone;
		th = kthread_run(e5_rtapp_thread, bg, "e5-rtapp");
	}
	if (alone ? !th : e5_irq_start())
		return -1;
	bench_sysbench_cpu_on(1, E5_SB_WORK, false, (u64)hog->duration_s * 1000, cpumask_of(E5_CPU),
			      &m->sb);
	if (th)
		kthread_join(th);
	else
		e5_irq_stop();
	cpufreq_get_stats(pol, &s);
	m->trans_sb = s.total_trans;
	if (alone && bg->err)
		return -1;
	if (alone)
		rtapp_print(alone, &bg->r, e5_label(v->alone ? v->alone : "", on));
	return 0;
}

static u64 lat_us(const struct sysbench_result *r)
{
	return r->events ? r->lat_sum_ns / r->events / 1000 : 0;
}

static long long e5_delta_pct(const struct e5_mode m[2])
{
	return m[0].sb.events ? ((long long)m[1].sb.events - (long long)m[0].sb.events) * 100 /
					(long long)m[0].sb.events
			      : 0;
}

/* The RT table keeps the post's numbers beside ours. */
static void e5_print_rt(const struct e5_mode m[2], s64 secs)
{
	long long d = e5_delta_pct(m);

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

/* The DL and IRQ halves: no published numbers. */
static void e5_print_other(const struct e5_variant *v, const struct e5_mode m[2], s64 secs)
{
	long long d = e5_delta_pct(m);

	printk("\nE5-%s: %s; schedutil, CPU%d, %lld s\n", v->name, v->title, E5_CPU, secs);
	printk("                             NO_RT_UTIL_TRACKING  RT_UTIL_TRACKING\n");
	printk("total_trans (rt-app)         %-20u %-18u\n", m[0].trans_rtapp, m[1].trans_rtapp);
	printk("sysbench-cpu events          %-20llu %-18llu %s%lld %%\n", m[0].sb.events,
	       m[1].sb.events, d < 0 ? "" : "+", d);
	printk("sysbench-cpu avg latency ms  %llu.%02llu%-16s %llu.%02llu\n",
	       lat_us(&m[0].sb) / 1000, lat_us(&m[0].sb) / 10 % 100, "", lat_us(&m[1].sb) / 1000,
	       lat_us(&m[1].sb) / 10 % 100);
	printk("total_trans (sysbench run)   %-20u %-18u\n", m[0].trans_sb, m[1].trans_sb);
	for (int on = 0; on < 2; on++)
		printk("RESULT e5_%s rt_util_tracking=%d seconds=%lld total_trans=%u "
		       "sysbench_events=%llu sysbench_avg_latency_us=%llu "
		       "sysbench_total_trans=%u\n",
		       v->name, on, secs, m[on].trans_rtapp, m[on].sb.events, lat_us(&m[on].sb),
		       m[on].trans_sb);
}

/* After every variant (the runner stops reading at the last KTAP line). */
static void e5_ktap(struct e5_mode m[E5_NR][2])
{
	bool ok1 = m[E5_RT][1].trans_rtapp * 10 < m[E5_RT][0].trans_rtapp;
	bool ok2 = m[E5_RT][1].sb.events > m[E5_RT][0].sb.events;
	bool ok3 = m[E5_DL][1].sb.events > m[E5_DL][0].sb.events;

	printk("KTAP version 1\n1..3\n");
	printk("%sok 1 e5_transitions_on_under_a_tenth\n", ok1 ? "" : "not ");
	printk("%sok 2 e5_sysbench_events_higher_on\n", ok2 ? "" : "not ");
	printk("%sok 3 e5_dl_sysbench_events_higher_on\n", ok3 ? "" : "not ");
}

/* One variant, both modes; its table. */
static int e5_variant(int pol, const struct e5_variant *v, bool shortrun, struct e5_mode m[2])
{
	static struct e5_bg bg;
	struct rtapp_workload *hog = rtapp_load(v->hog);
	struct rtapp_workload *alone = v->alone ? rtapp_load(v->alone) : NULL;
	int err = -1;

	if (!hog || (v->alone && !alone))
		goto out;
	if (shortrun) {
		hog->duration_s = E5_SHORT_S;
		if (alone)
			alone->duration_s = E5_SHORT_S;
	}
	memset(m, 0, 2 * sizeof(*m));
	err = e5_mode(pol, false, v, hog, alone, &m[0], &bg) ||
			      e5_mode(pol, true, v, hog, alone, &m[1], &bg)
		      ? -1
		      : 0;
	if (!err && v == &e5_variants[E5_RT])
		e5_print_rt(m, hog->duration_s);
	else if (!err)
		e5_print_other(v, m, hog->duration_s);
out:
	kfree(hog);
	kfree(alone);
	return err;
}

/* The machine needs CPU 5 with a cpufreq policy (qemu-sym8 is the post's
 * shape: 8 identical A53s, one frequency domain). */
int experiment_e5(bool shortrun)
{
	static struct e5_mode m[E5_NR][2];
	int pol = E5_CPU < nr_cpu_ids && cpu_online(E5_CPU) ? cpufreq_policy_of(E5_CPU) : -1;
	const char *gov;
	bool was = true;
	int err = 0;

	if (pol < 0) {
		printk("E5: needs an online CPU%d with a cpufreq policy (make experiment E=5 "
		       "boots qemu-sym8)\n",
		       E5_CPU);
		return -1;
	}
	gov = cpufreq_governor_name(pol);
	sched_feat_get("RT_UTIL_TRACKING", &was);
	if (cpufreq_set_governor(pol, "schedutil"))
		return -1;
	for (int v = 0; v < E5_NR && !err; v++)
		err = e5_variant(pol, &e5_variants[v], shortrun, m[v]);
	if (!err && shortrun)
		e5_ktap(m);
	sched_feat_set(was ? "RT_UTIL_TRACKING" : "NO_RT_UTIL_TRACKING");
	cpufreq_set_governor(pol, gov);
	return err;
}
