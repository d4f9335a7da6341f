/* shell_cpus.c - the console's CPU and scheduler commands: cpus (and its IDLE% over
 * the last second), topology, cpu (hotplug), domains, sched, features, eas, sysctl,
 * cpuidle, energy, cpufreq. What they show or change is kernel/sched/'s, cpufreq's and
 * cpu.c's. Runs in the init thread only (the shell), so no lock. */
#include "cpu.h"
#include "cpufreq.h"
#include "cpuidle.h"
#include "kernel.h"
#include "sched.h"
#include "shell_internal.h"
#include "shell_parse.h"
#include "smp.h"
#include "speed.h"
#include "topology.h"

/* IDLE%: what a CPU does now, as the other columns, so over the last second; or since
 * the previous cpus (or top screen) if that was less than a second ago, exactly from
 * the samples it kept (the second ago: kernel/sched/stats.c's history). */
static u64 last_idle[NR_CPUS], last_sample[NR_CPUS], last_cpus;

static u64 idle_percent(unsigned int cpu)
{
	u64 now = arch_clock_ns(), idle = cpu_idle_time_ns(cpu), from, di, dt;

	if (last_sample[cpu] && now - last_sample[cpu] < NSEC_PER_SEC) {
		di = idle - last_idle[cpu];
		dt = now - last_sample[cpu];
	} else {
		from = now > NSEC_PER_SEC ? now - NSEC_PER_SEC : 0;
		di = cpu_idle_time_since(cpu, from, &dt);
		dt -= from;
	}
	last_sample[cpu] = now;
	last_idle[cpu] = idle;
	return dt ? MIN(di * 100 / dt, 100ull) : 0;
}

void print_cpus(void)
{
	u64 now = arch_clock_ns();
	bool recent = last_cpus && now - last_cpus < NSEC_PER_SEC;
	u64 window = recent ? now - last_cpus : MIN(now, NSEC_PER_SEC);
	unsigned int cpu;

	last_cpus = now;
	printk("speed model: %s (boot option speed=)\n", speed_model_name());
	printk("CPU CLUSTER CAP_ORIG CAPACITY   OPP_KHZ UTIL RT_UTIL IRQ_UTIL NR_RUNNING IDLE%% "
	       "(over the last %llu ms%s)\n",
	       window / NSEC_PER_MSEC, recent ? ", since the previous cpus" : "");
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		int pol = cpufreq_policy_of(cpu);

		if (!cpu_online(cpu)) {
			last_sample[cpu] = 0; /* back online: from the history */
			printk("%3u %7d %8lu %s\n", cpu, cpu_topology.cpu[cpu].cluster_id,
			       capacity_orig_of(cpu), cpuhp_state_name(cpu));
			continue;
		}
		printk("%3u %7d %8lu %8lu %9u %4lu %7lu %8lu %10u %4llu\n", cpu,
		       cpu_topology.cpu[cpu].cluster_id, capacity_orig_of(cpu), capacity_of(cpu),
		       pol >= 0 ? cpufreq_cur_freq(pol) : 0, cpu_util_cfs(cpu), cpu_util_rt(cpu),
		       cpu_util_irq(cpu), cpu_nr_running(cpu), idle_percent(cpu));
	}
}

/* topology: every fact read from the device tree (the boot log's block). */
int cmd_topology(int argc, char **argv)
{
	if (argc != 1)
		return -1;
	topology_print(&cpu_topology);
	return 0;
}

/* cpu: list the states; cpu offline|online N (kernel/cpu.c says why it refuses). */
int cmd_cpu(int argc, char **argv)
{
	bool up;
	long n;

	if (argc == 1) {
		for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++)
			printk("cpu%u %s%s\n", cpu, cpuhp_state_name(cpu),
			       cpu_online(cpu) && !cpu_active(cpu) ? " (inactive)" : "");
		return 0;
	}
	if (argc != 3)
		return -1;
	up = !strcmp(argv[1], "online");
	if (!up && strcmp(argv[1], "offline")) {
		printk("cpu: '%s' is neither offline nor online\n", argv[1]);
		return -1;
	}
	if (!parse_long("cpu", argv[2], 0, NR_CPUS - 1, &n))
		return -1;
	if (up ? cpu_up((unsigned int)n) : cpu_down((unsigned int)n))
		printk("cpu: CPU%ld: %s, nothing changed\n", n, cpuhp_state_name((unsigned int)n));
	return 0;
}

int cmd_cpus(int argc, char **argv)
{
	if (argc != 1)
		return -1;
	print_cpus();
	return 0;
}
/* ---- scheduler: domains, features -------------------------------------------------- */

int cmd_domains(int argc, char **argv)
{
	if (argc != 1)
		return -1;
	sched_print_domains();
	return 0;
}

/* sched [cfs|eevdf]: the fair class's policy (boot option sched=), switched on every CPU
 * at once (kernel/sched/fair_eevdf.c). */
int cmd_sched(int argc, char **argv)
{
	if (argc > 2)
		return -1;
	if (argc == 2 && sched_policy_set(argv[1])) {
		printk("sched: '%s' not switched (cfs|eevdf)\n", argv[1]);
		return -1;
	}
	printk("sched: %s\n", sched_policy_name());
	return 0;
}

int cmd_features(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (sched_feat_set(argv[i])) {
			printk("unknown feature '%s'\n", argv[i]);
			sched_feat_print();
			return -1;
		}
	}
	sched_feat_print();
	if (argc == 1)
		sched_feat_describe();
	return 0;
}

/* EAS (kernel/sched/fair_energy.c): state, and estimates for a task of util U. */
int cmd_eas(int argc, char **argv)
{
	long util = -1;

	if (argc > 2 || (argc == 2 && !parse_long("util", argv[1], 0, 1024, &util)))
		return -1;
	sched_energy_print(util);
	return 0;
}

/* Linux's sysctls of the scheduler that exist here: kernel.sched_rt_runtime_us and
 * kernel.sched_rt_period_us (RT throttling, kernel/sched/rt.c). NAME=VALUE sets one. */
int cmd_sysctl(int argc, char **argv)
{
	long runtime, period, v;

	sched_rt_bandwidth_get(&runtime, &period);
	for (int i = 1; i < argc; i++) {
		char *name = argv[i], *eq = name;
		bool is_runtime;
		int err;

		while (*eq && *eq != '=')
			eq++;
		eq = *eq ? eq : NULL;
		if (!strncmp(name, "kernel.", 7))
			name += 7;
		if (eq)
			*eq = '\0';
		is_runtime = !strcmp(name, "sched_rt_runtime_us");
		if (!is_runtime && strcmp(name, "sched_rt_period_us")) {
			printk("sysctl: unknown name '%s' (sched_rt_runtime_us, "
			       "sched_rt_period_us)\n",
			       name);
			return -1;
		}
		if (!eq)
			continue;
		if (!parse_long(name, eq + 1, is_runtime ? -1 : 1, 0x7fffffff, &v))
			return -1;
		err = sched_rt_bandwidth_set(is_runtime ? v : runtime, is_runtime ? period : v);
		if (err == -EINVAL) {
			printk("sysctl: sched_rt_runtime_us (%ld) must be -1 or at most "
			       "sched_rt_period_us (%ld)\n",
			       is_runtime ? v : runtime, is_runtime ? period : v);
			return -1;
		}
		if (err) {
			printk("sysctl: the admitted SCHED_DEADLINE bandwidth would not fit: "
			       "unchanged\n");
			return -1;
		}
		sched_rt_bandwidth_get(&runtime, &period);
	}
	printk("kernel.sched_rt_period_us = %ld\nkernel.sched_rt_runtime_us = %ld\n", period,
	       runtime);
	return 0;
}

/* ---- cpuidle and energy ----------------------------------------------------------- */

int cmd_cpuidle(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "reset"))
		cpuidle_reset_stats();
	else if (argc != 1) {
		printk("usage: cpuidle [reset]\n");
		return -1;
	}
	cpuidle_print("", "");
	return 0;
}

int cmd_energy(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "reset"))
		energy_reset();
	else if (argc != 1) {
		printk("usage: energy [reset]\n");
		return -1;
	}
	energy_print("", "");
	return 0;
}

/* ---- cpufreq ------------------------------------------------------------------------- */

static void print_policies(void)
{
	for (int p = 0; p < cpufreq_nr_policies(); p++) {
		cpumask_t m = { { 0 } };
		unsigned int cpu;
		char buf[64];

		for_each_cpu(cpu, cpu_online_mask)
			if (cpufreq_policy_of(cpu) == p)
				__cpumask_set_cpu(cpu, &m);
		topology_format_mask(buf, sizeof(buf), &m);
		if (cpumask_empty(&m)) /* every CPU of it offline */
			strlcpy_k(buf, "none(inactive)", sizeof(buf));
		printk("policy%d cpus=%s governor=%s cur=%u target=%u min=%u max=%u "
		       "rate_limit_us=%u\n",
		       p, buf, cpufreq_governor_name(p), cpufreq_cur_freq(p),
		       cpufreq_target_freq(p), cpufreq_min_freq(p), cpufreq_max_freq(p),
		       cpufreq_rate_limit_us(p));
	}
}

int cmd_cpufreq(int argc, char **argv)
{
	int lo = 0, hi = cpufreq_nr_policies();
	long khz;

	if (!cpufreq_nr_policies()) {
		printk("cpufreq: no policies (no OPP tables in the device tree)\n");
		return 0;
	}
	if (argc == 1) {
		print_policies();
		return 0;
	}
	if ((!strcmp(argv[1], "stats") || !strcmp(argv[1], "reset")) && argc <= 3) {
		if (argc == 3 && !parse_policies(argv[2], cpufreq_nr_policies(), &lo, &hi))
			return -1;
		for (int p = lo; p < hi; p++) {
			if (argv[1][0] == 'r')
				cpufreq_reset_stats(p);
			cpufreq_print_stats(p);
		}
		return 0;
	}
	if (!strcmp(argv[1], "governor") && argc == 4) {
		if (!parse_policies(argv[2], cpufreq_nr_policies(), &lo, &hi))
			return -1;
		for (int p = lo; p < hi; p++)
			if (cpufreq_set_governor(p, argv[3]))
				return -1; /* cpufreq says why */
		print_policies();
		return 0;
	}
	if (!strcmp(argv[1], "speed") && argc == 4) {
		if (!parse_policies(argv[2], cpufreq_nr_policies(), &lo, &hi) ||
		    !parse_long("khz", argv[3], 1, 100000000, &khz))
			return -1;
		for (int p = lo; p < hi; p++) {
			if (cpufreq_set_speed(p, (u32)khz)) {
				printk("policy%d: speed needs the userspace governor\n", p);
				return -1;
			}
		}
		print_policies();
		return 0;
	}
	printk("bad cpufreq arguments\n");
	return -1;
}
