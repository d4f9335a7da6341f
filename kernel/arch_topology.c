/* arch_topology.c - the machine's CPUs as parsed from the device tree (cpu_topology), each
 * CPU's capacity and its frequency scale. The scheduler reads them through
 * arch_scale_cpu_capacity() and arch_scale_freq_capacity(); cpufreq writes the scale with
 * arch_set_freq_scale(). Linux: drivers/base/arch_topology.c (portable code there too). */
#include "arch_topology.h"
#include "kernel.h"
#include "pelt.h"
#include "topology.h"

struct topology cpu_topology;

/* Linux: per-CPU freq_scale (arch_topology.c), f_cur x 1024 / f_max; 0 until set. */
static unsigned long freq_scale[NR_CPUS];

unsigned long arch_scale_cpu_capacity(int cpu)
{
	unsigned long c = cpu < cpu_topology.nr_cpus ? cpu_topology.cpu[cpu].capacity_orig : 0;

	return c ? c : SCHED_CAPACITY_SCALE;
}

/* f_cur x 1024 / f_max of the CPU's policy; 1024 until cpufreq says otherwise. */
unsigned long arch_scale_freq_capacity(int cpu)
{
	unsigned long s = READ_ONCE(freq_scale[cpu]);

	return s ? s : SCHED_CAPACITY_SCALE;
}

void arch_set_freq_scale(const cpumask_t *cpus, unsigned long scale)
{
	unsigned int cpu;

	for_each_cpu(cpu, cpus)
		WRITE_ONCE(freq_scale[cpu], scale);
}
