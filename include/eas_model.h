/* eas_model.h - E6's placement judge (kernel/bench/eas_model.c): the energy-model power of a
 * placement of tasks of known utilization, and the cheapest placement by brute force, as
 * LISA's EAS behaviour tests compute them. Pure: the host tests run the same code. */
#ifndef EAS_MODEL_H
#define EAS_MODEL_H

#include "topology.h"

#define EAS_MODEL_MAX_TASKS 8

/* Power in EM cost units: per performance domain, the lowest OPP whose capacity holds its
 * busiest CPU's util, cost x sum(util) / capacity. task_cpu[t] < 0: not placed. */
u64 eas_placement_power(const struct topology *topo, const cpumask_t *online,
			const unsigned long *task_util, const int *task_cpu, int n);
/* The least such power over all placements (none overloading a CPU, if any such exists);
 * best_cpu (may be NULL) gets one placement that costs it. n <= EAS_MODEL_MAX_TASKS. */
u64 eas_optimal_power(const struct topology *topo, const cpumask_t *online,
		      const unsigned long *task_util, int n, int *best_cpu);

#endif
