/* arch.c - arm64's side of include/arch.h for the running kernel: CPU id
 * (TPIDR_EL1), current task (SP_EL0), IRQ masking (DAIF.I), clock and
 * deadlines (generic timer), IPIs (GIC SGIs), idle, power. */
#include "boot.h"
#include "drivers.h"
#include "kernel.h"
#include "sched.h"
#include "sysreg.h"

extern void ret_from_fork(void);

unsigned int arch_cpu_id(void)
{
	return (unsigned int)read_sysreg(tpidr_el1);
}

void arch_set_cpu_id(unsigned int cpu)
{
	write_sysreg(tpidr_el1, cpu);
}

u64 arch_cpu_hwid(void)
{
	return read_sysreg(mpidr_el1) & 0xff00ffffffull;
}

struct task_struct *arch_current(void)
{
	return (struct task_struct *)read_sysreg(sp_el0);
}

unsigned long arch_irq_save(void)
{
	unsigned long flags = read_sysreg(daif);

	__asm__ volatile("msr daifset, #2" ::: "memory");
	return flags;
}

void arch_irq_restore(unsigned long flags)
{
	__asm__ volatile("msr daif, %0" ::"r"(flags) : "memory");
}

void arch_irq_enable(void)
{
	__asm__ volatile("msr daifclr, #2" ::: "memory");
}

void arch_irq_disable(void)
{
	__asm__ volatile("msr daifset, #2" ::: "memory");
}

bool arch_irqs_disabled(void)
{
	return read_sysreg(daif) & (1 << 7);
}

u64 arch_clock_ns(void)
{
	return arm_timer_read_ns();
}

void arch_clock_dilate(unsigned int d)
{
	arm_timer_dilate(d);
}

void arch_timer_set_deadline(u64 ns)
{
	arm_timer_set_deadline_ns(ns);
}

void arch_wfi(void)
{
	__asm__ volatile("dsb sy; wfi" ::: "memory");
}

int arch_cpu_suspend(u32 psci_param)
{
	__asm__ volatile("dsb sy" ::: "memory");
	return psci_available() ? psci_cpu_suspend(psci_param, 0, 0) : -1;
}

void arch_send_ipi(unsigned int cpu, enum ipi_type type)
{
	gic_send_sgi(cpu, type);
}

/* wfi with IRQs masked still wakes on a pending IRQ; unmasking then takes it. */
void arch_idle(void)
{
	__asm__ volatile("dsb sy; wfi; msr daifclr, #2; isb; msr daifset, #2" ::: "memory");
}

void arch_stall_until(u64 deadline_ns)
{
	arm_timer_stall_until(deadline_ns);
}

void arch_cpu_relax(void)
{
	__asm__ volatile("yield" ::: "memory");
}

void arch_context_init(struct arch_context *ctx, void *stack_top, void (*entry)(void *), void *arg)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->regs[0] = (u64)entry;	    /* x19 */
	ctx->regs[1] = (u64)arg;	    /* x20 */
	ctx->regs[11] = (u64)ret_from_fork; /* x30 */
	ctx->regs[12] = (u64)stack_top;	    /* sp */
}

void arch_poweroff(void)
{
	arch_irq_disable();
	psci_system_off();
	printk("poweroff: PSCI SYSTEM_OFF unavailable; halting\n");
	for (;;)
		__asm__ volatile("wfi");
}

void arch_reboot(void)
{
	arch_irq_disable();
	psci_system_reset();
	printk("reboot: PSCI SYSTEM_RESET unavailable; halting\n");
	for (;;)
		__asm__ volatile("wfi");
}
