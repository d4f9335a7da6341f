/* smp.h - CPUs: which are online, bring-up, IPIs and cross-CPU calls
 * (kernel/smp.c). Logical CPU ids come from the device tree order
 * (kernel/sched/topology.c); the MPIDR of each is in the topology. */
#ifndef SMP_H
#define SMP_H

#include "arch.h"
#include "types.h"

#include "cpumask.h" /* cpumask_t and its operations: the API is listed there */

#include "arch_topology.h" /* cpu_topology: the machine, parsed once at boot */
/* Linux: the cpu_*_mask pointers over __cpu_*_mask. Written only through
 * set_cpu_online()/set_cpu_active() (atomic bit operations, kernel/smp.c);
 * read by any CPU at any time. */
extern cpumask_t __cpu_online_mask, __cpu_active_mask, __cpu_possible_mask;
#define cpu_online_mask	  ((const cpumask_t *)&__cpu_online_mask)
/* Linux: cpu_active_mask. Online CPUs the scheduler may place tasks on and
 * balance to; a CPU going offline leaves it first (kernel/cpu.c), and only
 * its per-CPU kthreads (idle, stop task) may still run there. */
#define cpu_active_mask	  ((const cpumask_t *)&__cpu_active_mask)
/* CPUs 0..nr_cpu_ids-1 (Linux: cpu_possible_mask, set with nr_cpu_ids). */
#define cpu_possible_mask ((const cpumask_t *)&__cpu_possible_mask)
extern unsigned int nr_cpu_ids; /* possible CPUs (from the DT) */
void set_cpu_online(unsigned int cpu, bool online);
void set_cpu_active(unsigned int cpu, bool active);
void set_nr_cpu_ids(unsigned int nr); /* nr_cpu_ids and cpu_possible_mask */
static inline bool cpu_online(unsigned int cpu)
{
	return cpu < NR_CPUS &&
	       (__atomic_load_n(&__cpu_online_mask.bits[cpu / 64], __ATOMIC_ACQUIRE) >>
		(cpu % 64)) &
		       1;
}
static inline bool cpu_active(unsigned int cpu)
{
	return cpu < NR_CPUS &&
	       (__atomic_load_n(&__cpu_active_mask.bits[cpu / 64], __ATOMIC_ACQUIRE) >>
		(cpu % 64)) &
		       1;
}
static inline unsigned int num_online_cpus(void)
{
	return cpumask_weight(cpu_online_mask);
}
static inline unsigned int smp_processor_id(void)
{
	return arch_cpu_id();
}

void smp_init(void); /* boot CPU: start all secondaries */
void secondary_cpu_main(unsigned int cpu) __attribute__((noreturn)); /* from arch */
void ipi_handler(enum ipi_type type);				     /* from the IRQ driver */
/* Run fn(arg) on `cpu` (in IRQ context there) and return after it ran. Call
 * with IRQs on. Returns -1 if cpu is offline. */
int smp_call_function_single(unsigned int cpu, void (*fn)(void *), void *arg);
/* A cross-CPU call whose memory the caller owns (Linux: call_single_data_t). */
struct call_single_data {
	void (*fn)(void *);
	void *arg;
	bool queued; /* on a CPU's list, fn not yet started */
	bool done;   /* fn returned (smp_call_function_single waits for it) */
	struct call_single_data *next;
};
/* Queue csd->fn(csd->arg) on `cpu` and return without waiting (runs it
 * directly on the caller's CPU). -EBUSY: csd is still queued, and its fn is
 * yet to run; -1: cpu is offline. */
int smp_call_function_single_async(unsigned int cpu, struct call_single_data *csd);
void smp_send_stop(void); /* panic: halt every other CPU */
/* Hotplug (kernel/cpu.c): the dying CPU, IRQs off, marks itself offline and
 * runs the cross-CPU calls still queued to it (Linux: smpcfd_dying_cpu). */
void smp_cpu_dying(unsigned int cpu);
u64 smp_boot_time_ns(unsigned int cpu); /* when the CPU came online */

#endif
