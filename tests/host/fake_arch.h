/* fake_arch.h - include/arch.h on the host (tests/host/fake_arch.c): up to NR_CPUS fake
 * CPUs driven one at a time by the test's host thread, a clock that moves only when the
 * test moves it, and interrupts (timer deadlines, IPIs) delivered as the arm64 IRQ path
 * would deliver them. The tests' tasks have no stacks: the code after
 * arch_context_switch() runs as the task switched to, so "running task X on CPU c" means
 * fake_arch_set_cpu(c) while arch_current() is X. Kthreads (kthread_create: the stop
 * class's stoppers) are coroutines that run their own code when switched to. The seed
 * of arch/sim (docs/design.md, "The arch contract"). */
#ifndef FAKE_ARCH_H
#define FAKE_ARCH_H

#include "arch.h"
#include "types.h"

struct fake_cpu {
	struct task_struct *curr; /* arch_current() there */
	bool irqs_off;
	bool in_irq;
	u64 deadline;		  /* arch_timer_set_deadline(); ~0 when none */
	unsigned int ipi_pending; /* 1 << enum ipi_type */
	u64 nr_ipis[NR_IPIS];	  /* sent to this CPU */
	u64 nr_irqs;		  /* interrupts taken */
	u64 nr_switches;	  /* arch_context_switch() calls */
	struct task_struct *last_prev, *last_next;
};

extern struct fake_cpu fake_cpus[NR_CPUS];
/* Broken arch.h obligations seen (a switch, deadline or idle with IRQs on, an IRQ
 * restore that does not match its save): every test expects 0. */
extern unsigned int fake_arch_violations;
extern unsigned int fake_arch_warnings; /* WARN_ON_ONCE reports (warn_slowpath) */

/* Clock 0, CPU 0, no current tasks, IRQs on, nothing pending or counted. */
void fake_arch_reset(void);
void fake_arch_set_cpu(unsigned int cpu); /* arch_cpu_id() from now on */
/* cpu's current task without a switch (its idle task at bring-up). */
void fake_arch_set_current(unsigned int cpu, struct task_struct *t);
u64 fake_arch_now(void);

/* Take one interrupt on cpu now, as drivers/gic.c handle_irq() does: pending IPIs
 * (IPI_RESCHEDULE as kernel/smp.c's ipi_handler), the timer if its deadline has
 * passed (kernel/timer.c timer_interrupt), then irq_exit_preempt(); an idle CPU then
 * runs one pass of its idle loop. Returns with arch_cpu_id() unchanged. */
void fake_arch_irq(unsigned int cpu);
/* Deliver every pending IPI (those sent by the interrupts themselves too). */
void fake_arch_deliver_ipis(void);
/* Advance the clock to `ns`, taking each CPU's timer interrupt at its deadline in
 * time order (lowest CPU first on ties), with IPIs delivered after each. Only CPUs
 * in cpu_online_mask take interrupts. */
void fake_arch_run_until(u64 ns);

#endif
