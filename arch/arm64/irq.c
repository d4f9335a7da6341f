/* irq.c - the C side of every IRQ exception (entry.S): the interrupt controller's dispatch
 * loop (drivers/gic.c), the IRQ time it took (avg_irq), then preemption on the way out.
 * Kept in the arch so that drivers never call the scheduler. Linux: el1_interrupt() ->
 * handle_arch_irq() (arch/arm64/kernel/entry-common.c, irq.c). */
#include "drivers.h"
#include "kernel.h"
#include "ptregs.h"
#include "sched.h"
#include "speed.h"

void handle_irq(struct pt_regs *regs)
{
	u64 start = arch_clock_ns();

	speed_irq_enter();
	gic_handle_irq();
	speed_irq_handled(); /* speed=exact: the handlers' own slowness is IRQ time */
	account_irq_time(arch_clock_ns() - start); /* IRQ time for avg_irq (E5) */
	/* After every end of interrupt (a stall can end) and outside the IRQ
	 * time: the stall is the interrupted task's slowness, not IRQ work. */
	speed_irq_exit();
	irq_exit_preempt();
}
