/* entry.S - exception vectors, the exception frame, and the context switch.
 * The kernel runs at EL1 on SP_EL1 only (no user space), so only the
 * "current EL with SP_ELx" vectors are expected; the others report and stop.
 * SP_EL0 holds the current task pointer (arch_current()). TPIDRRO_EL0 and
 * TPIDR_EL0 (EL0 registers, unused without user space) are the sync vector's
 * scratch while it decides whether the stack can take the frame. */
#include "asm_macros.h"
#include "ptregs.h"

/* Save x0-x30, sp, elr, spsr; build a frame record. Leaves x0 = regs. */
.macro kernel_entry
	sub	sp, sp, #S_FRAME_SIZE
	stp	x0, x1, [sp, #16 * 0]
	stp	x2, x3, [sp, #16 * 1]
	stp	x4, x5, [sp, #16 * 2]
	stp	x6, x7, [sp, #16 * 3]
	stp	x8, x9, [sp, #16 * 4]
	stp	x10, x11, [sp, #16 * 5]
	stp	x12, x13, [sp, #16 * 6]
	stp	x14, x15, [sp, #16 * 7]
	stp	x16, x17, [sp, #16 * 8]
	stp	x18, x19, [sp, #16 * 9]
	stp	x20, x21, [sp, #16 * 10]
	stp	x22, x23, [sp, #16 * 11]
	stp	x24, x25, [sp, #16 * 12]
	stp	x26, x27, [sp, #16 * 13]
	stp	x28, x29, [sp, #16 * 14]
	add	x21, sp, #S_FRAME_SIZE
	stp	x30, x21, [sp, #S_LR]
	mrs	x22, elr_el1
	mrs	x23, spsr_el1
	stp	x22, x23, [sp, #S_PC]
	stp	x29, x22, [sp, #S_STACKFRAME]
	add	x29, sp, #S_STACKFRAME
	mov	x0, sp
.endm

.macro kernel_exit
	ldp	x22, x23, [sp, #S_PC]
	msr	elr_el1, x22
	msr	spsr_el1, x23
	ldp	x0, x1, [sp, #16 * 0]
	ldp	x2, x3, [sp, #16 * 1]
	ldp	x4, x5, [sp, #16 * 2]
	ldp	x6, x7, [sp, #16 * 3]
	ldp	x8, x9, [sp, #16 * 4]
	ldp	x10, x11, [sp, #16 * 5]
	ldp	x12, x13, [sp, #16 * 6]
	ldp	x14, x15, [sp, #16 * 7]
	ldp	x16, x17, [sp, #16 * 8]
	ldp	x18, x19, [sp, #16 * 9]
	ldp	x20, x21, [sp, #16 * 10]
	ldp	x22, x23, [sp, #16 * 11]
	ldp	x24, x25, [sp, #16 * 12]
	ldp	x26, x27, [sp, #16 * 13]
	ldp	x28, x29, [sp, #16 * 14]
	ldr	x30, [sp, #S_LR]
	add	sp, sp, #S_FRAME_SIZE
	eret
.endm

.macro ventry label
	.balign	128
	b	\label
.endm

.macro bad_vector n
bad_\n:
	kernel_entry
	mov	x1, #\n
	bl	handle_bad
1:	wfe
	b	1b
.endm

	.section .text.vectors, "ax"
	.balign	2048
ENTRY(vectors)
	ventry	bad_0		/* current EL, SP_EL0: sync, irq, fiq, serror */
	ventry	bad_1
	ventry	bad_2
	ventry	bad_3
	ventry	el1_sync	/* current EL, SP_ELx */
	ventry	el1_irq
	ventry	bad_6
	ventry	bad_7
	ventry	bad_8		/* lower EL, AArch64 */
	ventry	bad_9
	ventry	bad_10
	ventry	bad_11
	ventry	bad_12		/* lower EL, AArch32 */
	ventry	bad_13
	ventry	bad_14
	ventry	bad_15
END(vectors)

	.text
/*
 * A synchronous exception may be the stack overflowing into its guard page:
 * pushing the frame there would fault again, forever. So first ask the MMU
 * (AT S1E1W, Arm ARM C5.5) whether the lowest byte of the frame-to-be is
 * writable; if not, switch to this CPU's overflow stack and report from
 * there (Linux: the VMAP_STACK check in kernel_ventry, by address
 * translation here instead of stack bounds, so it needs no per-thread data).
 * IRQs arrive on a sound stack: if their frame hits the guard, the store
 * faults and this path reports it.
 */
el1_sync:
	msr	tpidrro_el0, x0
	sub	x0, sp, #S_FRAME_SIZE
	at	s1e1w, x0
	isb
	mrs	x0, par_el1
	tbnz	x0, #0, el1_sync_overflow	/* PAR_EL1.F: the walk failed */
	mrs	x0, tpidrro_el0
	kernel_entry
	bl	handle_sync
	kernel_exit

/* sp is unusable: park it in TPIDR_EL0, use sp itself as the scratch that
 * loads this CPU's overflow stack top (overflow_stack_top[cpu], traps.c),
 * build the frame there with the real sp in it, and report; handle_sync
 * panics. */
el1_sync_overflow:
	mov	x0, sp
	msr	tpidr_el0, x0
	mrs	x0, tpidr_el1			/* logical CPU id (arch_cpu_id) */
	lsl	x0, x0, #3
	mov	sp, x0
	adr_l	x0, overflow_stack_top
	add	sp, sp, x0
	ldr	x0, [sp]
	mov	sp, x0
	mrs	x0, tpidrro_el0
	kernel_entry
	mrs	x21, tpidr_el0
	str	x21, [sp, #S_SP]
	bl	handle_sync
1:	wfe
	b	1b


el1_irq:
	kernel_entry
	bl	handle_irq
	kernel_exit

	bad_vector 0
	bad_vector 1
	bad_vector 2
	bad_vector 3
	bad_vector 6
	bad_vector 7
	bad_vector 8
	bad_vector 9
	bad_vector 10
	bad_vector 11
	bad_vector 12
	bad_vector 13
	bad_vector 14
	bad_vector 15

/*
 * arch_context_switch(x0 = prev task, x1 = prev ctx, x2 = next task, x3 = next ctx)
 * Saves x19-x30 and sp into prev ctx, loads them from next ctx, and makes
 * next the current task (SP_EL0). Called with IRQs off.
 * Preserves: nothing of prev's caller-saved state (it is a function call).
 */
ENTRY(arch_context_switch)
	stp	x19, x20, [x1, #16 * 0]
	stp	x21, x22, [x1, #16 * 1]
	stp	x23, x24, [x1, #16 * 2]
	stp	x25, x26, [x1, #16 * 3]
	stp	x27, x28, [x1, #16 * 4]
	stp	x29, x30, [x1, #16 * 5]
	mov	x9, sp
	str	x9, [x1, #16 * 6]
	ldp	x19, x20, [x3, #16 * 0]
	ldp	x21, x22, [x3, #16 * 1]
	ldp	x23, x24, [x3, #16 * 2]
	ldp	x25, x26, [x3, #16 * 3]
	ldp	x27, x28, [x3, #16 * 4]
	ldp	x29, x30, [x3, #16 * 5]
	ldr	x9, [x3, #16 * 6]
	mov	sp, x9
	msr	sp_el0, x2
	mov	x0, x0		/* x0 = prev, for ret_from_fork's schedule_tail */
	ret
END(arch_context_switch)

/* First instructions of a new thread: x19 = entry, x20 = arg (arch_context_init). */
ENTRY(ret_from_fork)
	bl	schedule_tail
	mov	x0, x20
	blr	x19
	bl	thread_exit_current
1:	b	1b
END(ret_from_fork)
