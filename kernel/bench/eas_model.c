/* eas_model.c - E6's judge of task placement, as LISA's EAS behaviour tests judge it
 * (test_task_placement): the power a placement of tasks of known utilization costs under
 * the device tree's energy model (each performance domain at the lowest OPP whose capacity
 * holds its busiest CPU's summed util, cost x util / capacity per CPU), and the brute-force
 * optimal placement. Pure: values in, values out (tests/host/test_energy.c runs it). */
#include "eas_model.h"

/* The power (EM cost units) of cpu_util[] (summed task utils per CPU, 1024 = the biggest
 * CPU at f_max) on the domains of topo; CPUs outside `online` must be 0. */
static u64 eas_power_of(const struct topology *topo, const unsigned long *cpu_util,
			const cpumask_t *online)
{
	u64 power = 0;

	for (int d = 0; d < topo->nr_freq_domains; d++) {
		const struct topology_freq_domain *pd = &topo->freq_domain[d];
		unsigned long max_u = 0, sum_u = 0, scale;
		u32 fmax;
		int cpu, i, first = -1;

		if (!pd->nr_perf_states)
			continue;
		for_each_cpu(cpu, &pd->cpus) {
			if (!cpumask_test_cpu(cpu, online))
				continue;
			if (first < 0)
				first = cpu;
			scale = topo->cpu[cpu].capacity_orig;
			max_u = MAX(max_u, cpu_util[cpu]);
			sum_u += MIN(cpu_util[cpu], scale);
		}
		if (first < 0 || !sum_u)
			continue;
		scale = topo->cpu[first].capacity_orig;
		fmax = pd->em[pd->nr_perf_states - 1].frequency;
		for (i = 0; i < pd->nr_perf_states - 1; i++) /* the lowest OPP that holds max_u */
			if ((u64)scale * pd->em[i].frequency >= (u64)max_u * fmax)
				break;
		power += pd->em[i].cost * sum_u / scale;
	}
	return power;
}

u64 eas_placement_power(const struct topology *topo, const cpumask_t *online,
			const unsigned long *task_util, const int *task_cpu, int n)
{
	unsigned long cpu_util[NR_CPUS] = { 0 };

	for (int t = 0; t < n; t++)
		if (task_cpu[t] >= 0 && task_cpu[t] < topo->nr_cpus)
			cpu_util[task_cpu[t]] += task_util[t];
	return eas_power_of(topo, cpu_util, online);
}

/* Every placement of the n tasks on the online CPUs (|online|^n of them): the cheapest of
 * those where no CPU is given more than its capacity, or of all if none is. */
u64 eas_optimal_power(const struct topology *topo, const cpumask_t *online,
		      const unsigned long *task_util, int n, int *best_cpu)
{
	int cpus[NR_CPUS], m = 0, idx[EAS_MODEL_MAX_TASKS] = { 0 };
	u64 best = ~0ull, best_any = ~0ull;
	int cpu;

	for_each_cpu(cpu, online)
		if (cpu < topo->nr_cpus)
			cpus[m++] = cpu;
	if (!m || n > EAS_MODEL_MAX_TASKS)
		return 0;
	for (;;) {
		unsigned long cpu_util[NR_CPUS] = { 0 };
		bool fits = true;
		u64 p;
		int k;

		for (int t = 0; t < n; t++)
			cpu_util[cpus[idx[t]]] += task_util[t];
		for (int i = 0; i < m; i++)
			fits = fits && cpu_util[cpus[i]] <= topo->cpu[cpus[i]].capacity_orig;
		p = eas_power_of(topo, cpu_util, online);
		best_any = MIN(best_any, p);
		if (fits && p < best) {
			best = p;
			for (int t = 0; best_cpu && t < n; t++)
				best_cpu[t] = cpus[idx[t]];
		}
		for (k = 0; k < n && ++idx[k] == m; k++) /* the next placement, base m */
			idx[k] = 0;
		if (k == n)
			break;
	}
	return best != ~0ull ? best : best_any;
}
