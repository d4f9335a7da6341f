/* exp_eas.c - E6 of docs/experiments.md: EAS off and on under schedutil, on rt-app workloads
 * shaped as ARM's LISA EAS behaviour tests (built-in eas-*.json), judged as LISA judges
 * them: (a) placement energy - the EM power of the actual placement, sampled every 10 ms
 * with each task's expected util, within 5 % of the brute-force optimal placement's
 * (test_task_placement); (b) slack - at most 15 % of activations missed their period
 * (test_slack). Energy from the meter. Restores the governors and the EAS flag. */
#include "bench_internal.h"
#include "cpufreq.h"
#include "eas_model.h"
#include "kernel.h"
#include "mm.h"
#include "rtapp.h"
#include "sched.h"
#include "arch_topology.h"
#include "cpuidle.h"
#include "timer.h"

#define E6_SAMPLE_MS 10

static const struct {
	const char *name, *file;
	bool in_short;
} e6_workloads[] = {
	{ "OneSmallTask", "eas-one-small", true },
	{ "ThreeSmallTasks", "eas-three-small", false },
	{ "TwoBigTasks", "eas-two-big", true },
	{ "TwoBigThreeSmall", "eas-two-big-three-small", false },
	{ "RampUp", "eas-ramp-up", false },
	{ "RampDown", "eas-ramp-down", false },
	{ "EnergyModelWakeMigration", "eas-em-wake-migration", false },
};

struct e6_run {
	const struct rtapp_workload *w;
	struct rtapp_result r;
	volatile bool done;
	int err;
	u64 start_ns;
	/* sampling */
	int nr;					 /* threads seen in this sample */
	int cpu[EAS_MODEL_MAX_TASKS];		 /* each thread's CPU */
	unsigned long util[EAS_MODEL_MAX_TASKS]; /* its expected util now */
	unsigned long memo_util[EAS_MODEL_MAX_TASKS];
	int memo_nr;
	u64 memo_opt;
	u64 est, opt; /* summed over samples */
	u64 samples, little_samples, task_samples;
	/* results */
	u64 energy_uj[2]; /* LITTLE, big cluster (by capacity) */
	u64 activations, missed, migrations;
};

static void e6_thread(void *arg)
{
	struct e6_run *run = arg;

	run->err = rtapp_run(run->w, &run->r);
	run->done = true;
}

/* The expected util of rt-app task i, `us` into the run: its phase's run / period. */
static unsigned long e6_expected_util(const struct rtapp_workload *w, u32 i, u64 us)
{
	const struct rtapp_task *task = &w->tasks[i];
	u64 cycle = 0, len[RTAPP_MAX_PHASES], run[RTAPP_MAX_PHASES], period[RTAPP_MAX_PHASES];

	for (u32 ph = 0; ph < task->nr_phases; ph++) {
		const struct rtapp_phase *p = &w->phases[task->first_phase + ph];

		run[ph] = period[ph] = 0;
		for (u32 e = 0; e < p->nr_events; e++) {
			const struct rtapp_event *ev = &w->events[p->first_event + e];

			if (ev->type == RTAPP_RUN)
				run[ph] += ev->usec;
			else if (ev->type == RTAPP_TIMER)
				period[ph] = ev->usec;
		}
		len[ph] = period[ph] * (u64)p->loop;
		cycle += len[ph];
	}
	if (!cycle)
		return 0;
	us %= cycle;
	for (u32 ph = 0; ph < task->nr_phases; ph++) {
		if (us < len[ph])
			return (unsigned long)(run[ph] * SCHED_CAPACITY_SCALE / period[ph]);
		us -= len[ph];
	}
	return 0;
}

/* for_each_task(): a thread of the workload ("name" or "name-N"), alive. */
static void e6_sample_task(struct task_struct *p, void *arg)
{
	struct e6_run *run = arg;

	if (p->state == TASK_DEAD || p->state == TASK_NEW || run->nr >= EAS_MODEL_MAX_TASKS)
		return;
	for (u32 i = 0; i < run->w->nr_tasks; i++) {
		size_t n = strlen(run->w->tasks[i].name);

		if (strncmp(p->comm, run->w->tasks[i].name, n) || (p->comm[n] && p->comm[n] != '-'))
			continue;
		run->cpu[run->nr] = p->cpu;
		run->util[run->nr] =
			e6_expected_util(run->w, i, (arch_clock_ns() - run->start_ns) / 1000);
		run->nr++;
		return;
	}
}

static bool e6_is_little(int cpu)
{
	return arch_scale_cpu_capacity(cpu) < SCHED_CAPACITY_SCALE;
}

static void e6_sample(struct e6_run *run)
{
	run->nr = 0;
	for_each_task(e6_sample_task, run);
	if (!run->nr)
		return;
	if (run->nr != run->memo_nr ||
	    memcmp(run->util, run->memo_util, sizeof(run->util[0]) * (size_t)run->nr)) {
		run->memo_nr = run->nr;
		memcpy(run->memo_util, run->util, sizeof(run->util[0]) * (size_t)run->nr);
		run->memo_opt =
			eas_optimal_power(&cpu_topology, cpu_online_mask, run->util, run->nr, NULL);
	}
	run->est +=
		eas_placement_power(&cpu_topology, cpu_online_mask, run->util, run->cpu, run->nr);
	run->opt += run->memo_opt;
	run->samples++;
	for (int t = 0; t < run->nr; t++) {
		run->task_samples++;
		run->little_samples += e6_is_little(run->cpu[t]);
	}
}

static int e6_one(const struct rtapp_workload *w, bool eas, struct e6_run *run)
{
	struct task_struct *th;
	unsigned int cpu;

	memset(run, 0, sizeof(*run));
	run->w = w;
	sched_feat_set(eas ? "EAS" : "NO_EAS");
	msleep(50); /* the previous run's util decays a little */
	energy_reset();
	run->start_ns = arch_clock_ns();
	experiment_half_begin(eas ? "EAS" : "NO_EAS");
	th = kthread_run(e6_thread, run, "e6-rtapp");
	if (!th)
		return -1;
	while (!run->done) {
		msleep(E6_SAMPLE_MS);
		e6_sample(run);
	}
	kthread_join(th);
	experiment_half_end();
	for_each_cpu(cpu, cpu_online_mask)
		run->energy_uj[e6_is_little((int)cpu) ? 0 : 1] += energy_cpu_uj(cpu);
	for (u32 i = 0; i < run->r.nr_tasks; i++) {
		run->activations += run->r.task[i].activations;
		run->missed += run->r.task[i].missed;
		run->migrations += run->r.task[i].migrations;
	}
	return run->err;
}

/* (a) and (b) of one run. */
static bool e6_placement_ok(const struct e6_run *r)
{
	return r->est * 100 <= r->opt * 105;
}

static bool e6_slack_ok(const struct e6_run *r)
{
	return r->missed * 100 <= r->activations * 15;
}

static void e6_print_row(const char *name, bool eas, const struct e6_run *r)
{
	u64 ratio = r->opt ? r->est * 100 / r->opt : 0;

	printk("%-25s %-4s %7llu %7llu %7llu %5llu %6llu %%  %5llu/%-5llu %2llu.%02llu  %s  %s\n",
	       name, eas ? "on" : "off", r->energy_uj[0] / 1000, r->energy_uj[1] / 1000,
	       (r->energy_uj[0] + r->energy_uj[1]) / 1000, r->migrations,
	       r->task_samples ? r->little_samples * 100 / r->task_samples : 0, r->missed,
	       r->activations, FIX2(ratio), e6_placement_ok(r) ? "PASS" : "FAIL",
	       e6_slack_ok(r) ? "PASS" : "FAIL");
	printk("RESULT e6 workload=%s eas=%d energy_little_uj=%llu energy_big_uj=%llu "
	       "migrations=%llu little_pct=%llu activations=%llu missed=%llu est=%llu opt=%llu "
	       "placement=%s slack=%s\n",
	       name, eas, r->energy_uj[0], r->energy_uj[1], r->migrations,
	       r->task_samples ? r->little_samples * 100 / r->task_samples : 0, r->activations,
	       r->missed, r->est, r->opt, e6_placement_ok(r) ? "PASS" : "FAIL",
	       e6_slack_ok(r) ? "PASS" : "FAIL");
}

int experiment_e6(bool shortrun)
{
	static struct e6_run runs[ARRAY_SIZE(e6_workloads)][2];
	bool was = true, done[ARRAY_SIZE(e6_workloads)] = { false };
	int err = 0, n = 0;

	sched_feat_get("EAS", &was);
	for (int p = 0; p < cpufreq_nr_policies(); p++)
		cpufreq_set_governor(p, "schedutil");
	for (unsigned int i = 0; i < ARRAY_SIZE(e6_workloads) && !err; i++) {
		struct rtapp_workload *w;

		if (shortrun && !e6_workloads[i].in_short)
			continue;
		if (!(w = rtapp_load(e6_workloads[i].file)))
			return -1;
		for (int eas = 0; eas < 2 && !err; eas++)
			err = e6_one(w, eas, &runs[i][eas]);
		kfree(w);
		done[i] = !err;
	}
	sched_feat_set(was ? "EAS" : "NO_EAS");
	for (int p = 0; p < cpufreq_nr_policies(); p++)
		cpufreq_set_governor(p, "performance");
	if (err)
		return -1;
	printk("\nE6: EAS off vs on, schedutil, %u CPUs; rt-app workloads of LISA's EAS tests\n",
	       num_online_cpus());
	printk("%-25s %-4s %7s %7s %7s %5s %8s  %11s %5s  %-4s  %-4s\n", "workload", "EAS",
	       "mJ LIT", "mJ big", "mJ all", "migr", "LITTLE", "missed/act", "est/opt", "(a)",
	       "(b)");
	for (unsigned int i = 0; i < ARRAY_SIZE(e6_workloads); i++)
		for (int eas = 0; eas < 2 && done[i]; eas++)
			e6_print_row(e6_workloads[i].name, eas, &runs[i][eas]);
	if (!shortrun)
		return 0;
	printk("KTAP version 1\n1..4\n");
	ktap_check(&n, e6_placement_ok(&runs[0][1]), "e6_one_small_placement_energy");
	ktap_check(&n, e6_slack_ok(&runs[0][1]), "e6_one_small_slack");
	ktap_check(&n, e6_placement_ok(&runs[2][1]), "e6_two_big_placement_energy");
	ktap_check(&n, e6_slack_ok(&runs[2][1]), "e6_two_big_slack");
	return 0;
}
