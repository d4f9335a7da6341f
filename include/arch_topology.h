/* arch_topology.h - the machine's CPUs (cpu_topology, parsed once at boot), each CPU's
 * capacity and frequency scale: kernel/arch_topology.c. Linux: include/linux/arch_topology.h. */
#ifndef ARCH_TOPOLOGY_H
#define ARCH_TOPOLOGY_H

#include "smp.h"

struct topology;
extern struct topology cpu_topology; /* the machine, parsed once at boot */

/* Linux: arch_scale_cpu_capacity(), arch_scale_freq_capacity(), arch_set_freq_scale() */
unsigned long arch_scale_cpu_capacity(int cpu);
unsigned long arch_scale_freq_capacity(int cpu);
void arch_set_freq_scale(const cpumask_t *cpus, unsigned long scale);

#endif
