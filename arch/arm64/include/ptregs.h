/* ptregs.h - the register frame every exception pushes (entry.S), and the
 * saved-context layout of arch_context_switch. Offsets are used by assembly. */
#ifndef ARM64_PTREGS_H
#define ARM64_PTREGS_H

#define S_X0	     0
#define S_LR	     240 /* x30 */
#define S_SP	     248
#define S_PC	     256 /* ELR_EL1 */
#define S_PSTATE     264 /* SPSR_EL1 */
#define S_STACKFRAME 272 /* {x29, pc}: a frame record, so backtraces cross exceptions */
#define S_FRAME_SIZE 288

/* Per-CPU stack for reporting a fault whose own stack is gone (entry.S). */
#define OVERFLOW_STACK_SHIFT 14

#ifndef __ASSEMBLY__
#include "types.h"
struct pt_regs {
	u64 regs[31];
	u64 sp, pc, pstate;
	u64 stackframe[2];
};
_Static_assert(sizeof(struct pt_regs) == S_FRAME_SIZE, "pt_regs size");

void handle_irq(struct pt_regs *regs);
void handle_sync(struct pt_regs *regs);
void handle_bad(struct pt_regs *regs, int vector);
void show_regs(const struct pt_regs *regs);
void dump_backtrace(u64 fp, u64 pc);
#endif
#endif
