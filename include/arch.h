/* arch.h - the one interface through which the portable core (kernel/,
 * kernel/sched/, lib/) reaches the machine (docs/design.md, "The arch contract").
 * arm64 implements it in arch/arm64/; host tests provide a fake.
 * Obligations are stated per function: which CPU, which IRQ state. */
#ifndef ARCH_H
#define ARCH_H

#include "types.h"

struct task_struct;

/* Callee-saved state of a switched-out thread; layout owned by the arch. */
struct arch_context {
	u64 regs[14];
};

/* Logical id of the calling CPU. Stable only while preemption or IRQs are off. */
unsigned int arch_cpu_id(void);
/* The running task: per-thread register, valid in any context. */
struct task_struct *arch_current(void);

/* Local IRQ mask. save returns the previous state for restore. */
unsigned long arch_irq_save(void);
void arch_irq_restore(unsigned long flags);
void arch_irq_enable(void);
void arch_irq_disable(void);
bool arch_irqs_disabled(void);

/* Monotonic time in ns since the counter started (emulated time under -icount). */
u64 arch_clock_ns(void);
void arch_clock_dilate(unsigned int d); /* the clock d times slower (speed_dilate=) */
/* Program this CPU's one-shot timer for absolute time `ns` (replaces the
 * previous deadline); ~0: none. Called with IRQs off. */
void arch_timer_set_deadline(u64 ns);

/* Inter-processor interrupts. */
enum ipi_type { IPI_RESCHEDULE, IPI_CALL_FUNC, IPI_STOP, NR_IPIS };
void arch_send_ipi(unsigned int cpu, enum ipi_type type);

/* Wait for an interrupt. Called with IRQs disabled; returns with IRQs
 * disabled after an interrupt was taken (mask / wfi / unmask, docs/design.md). */
void arch_idle(void);
/* wfi alone: IRQs disabled, returns once an interrupt is pending (or at
 * once if one is), without taking it: the caller unmasks when it is ready. */
void arch_wfi(void);
/* An idle state through the firmware: PSCI CPU_SUSPEND with the tree's
 * arm,psci-suspend-param. IRQs disabled; returns as arch_wfi() does, once an
 * interrupt is pending. Only for states that keep the CPU's context (standby
 * states; under QEMU any state it accepts: its PSCI always waits in WFI). 0, or a
 * negative PSCI error when the firmware refused (the caller then uses arch_wfi()). */
int arch_cpu_suspend(u32 psci_param);
/* This CPU does nothing until emulated time deadline_ns: wfi with its timer set
 * for the deadline, every other interrupt held off below the core (GIC priority
 * mask: ICC_PMR_EL1 / GICC_PMR, the stall's own timer interrupt given a higher
 * priority) so that wfi sleeps and the CPU takes no instructions from the
 * shared -icount budget; returns with interrupts in the state they had, and
 * pending interrupts are then taken. Call with IRQs disabled. (The speed
 * model's stall, kernel/sched/speed.c; an idle state's exit latency.) Boot
 * option speed_stall=spin (arm64): spin on the clock instead, IRQs still off. */
void arch_stall_until(u64 deadline_ns);
/* This CPU's own executed-instruction count since boot, as a QEMU TCG plugin
 * (tools/qemu/vcpu_insns.c) writes it into guest memory; present() says whether one
 * does (else the count stays 0: a board, or QEMU without -plugin). Under -icount the
 * clock is every vCPU's instructions together: only this count is the CPU's own
 * (speed=exact, kernel/sched/speed.c). IRQs off. */
bool arch_insn_counter_present(void);
u64 arch_insn_count(void);
u64 arch_insn_count_cpu(unsigned int cpu); /* another CPU's, as last written */
/* Inside spin loops: lets other (v)CPUs run. */
void arch_cpu_relax(void);

/* Switch from prev to next (IRQs off): saves prev's callee-saved registers,
 * loads next's, and makes `next` the arch_current(). Returns when prev runs
 * again, with the task that was switched out to resume it (Linux: `last`). */
struct task_struct *arch_context_switch(struct task_struct *prev, struct arch_context *prev_ctx,
					struct task_struct *next, struct arch_context *next_ctx);
/* Prepare ctx so that switching to it calls entry(arg) on stack_top. */
void arch_context_init(struct arch_context *ctx, void *stack_top, void (*entry)(void *), void *arg);

/* Start logical CPU `cpu` (as cpu_topology describes it: MPIDR, enable
 * method) running `idle` on idle's stack; 0, or a negative error if the
 * firmware refused (-ENODEV: the interrupt controller cannot reach the CPU,
 * -ENOMEM: no memory for it). The CPU then calls secondary_cpu_main(cpu). */
int arch_cpu_start(unsigned int cpu, struct task_struct *idle);
/* CPU hotplug. arch_cpu_die(): on the dying CPU's idle task, IRQs off, once
 * it is offline and has said so: stop its timer and turn it off (PSCI
 * CPU_OFF). A CPU that cannot be turned off (spin-table, or the firmware
 * refused) waits in wfi, IRQs masked, until arch_cpu_start() releases it;
 * either way it comes back through secondary_cpu_main(). Never returns.
 * arch_cpu_kill(): on another CPU, task context (may sleep): confirm the CPU
 * is off. 1: off (the firmware says so, or cannot tell); 0: parked, not
 * off; -1: still on after 100 ms (Linux: op_cpu_kill()). */
void arch_cpu_die(unsigned int cpu) __attribute__((noreturn));
/* On the dying CPU, IRQs off, inside stop_machine once it is offline:
 * route the device interrupts that target it to CPU `to` (Linux:
 * __cpu_disable -> irq_migrate_all_off_this_cpu). */
unsigned int arch_cpu_disable(unsigned int cpu, unsigned int to); /* how many moved */
int arch_cpu_kill(unsigned int cpu);
/* This CPU's hardware id (MPIDR affinity on arm64), and telling the arch
 * which logical id it has (boot CPU, once the topology is known). */
u64 arch_cpu_hwid(void);
void arch_set_cpu_id(unsigned int cpu);
/* Interrupt controller, timer, firmware: after the topology is parsed. */
struct dtb;
int arch_platform_init(const struct dtb *dt);
/* Per-CPU parts of the above, on the calling (boot) CPU. */
void arch_cpu_init_local(unsigned int cpu);
/* Mark a page of the linear map not present (guard pages) or present again. */
void arch_page_set_present(void *page, bool present);

void arch_poweroff(void) __attribute__((noreturn));
void arch_reboot(void) __attribute__((noreturn));
/* Print a backtrace of the calling context (panic, WARN). */
void arch_dump_stack(void);

#endif
