/* cpu.h - CPU hotplug at run time (kernel/cpu.c): take a CPU offline and
 * bring it back, as Linux's cpu_down()/cpu_up() do (semantics in
 * docs/hotplug.md). Task context only; one operation at a time. */
#ifndef CPU_H
#define CPU_H

#include "kernel.h" /* the errno values */

/* 0, or -EINVAL (already in that state), -ENODEV (no such CPU, or one that
 * cannot be started), -EBUSY (the last online CPU), -EIO (the CPU did not
 * die / come up in time). Each refusal prints why. */
int cpu_down(unsigned int cpu);
int cpu_up(unsigned int cpu);

/* What the last operations did, for tests and the shell. */
struct cpuhp_stats {
	u64 nr_down, nr_up;
	u64 last_down_ns, last_up_ns; /* emulated time of the last call */
	unsigned int last_migrated;   /* tasks moved off the last CPU taken down */
	unsigned int last_timers;     /* pending timers moved from it */
	unsigned int last_irqs;	      /* device interrupts moved from it */
	bool last_parked;	      /* it could not be turned off: parked */
};
void cpuhp_get_stats(struct cpuhp_stats *out);
/* "online", "offline" (possible but down), or "absent" (no valid MPIDR). */
const char *cpuhp_state_name(unsigned int cpu);

#endif
