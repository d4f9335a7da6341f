/* head.S - the Image header and the first instructions of every CPU.
 *
 * Boot contract (Linux arm64 boot protocol, Documentation/arch/arm64/booting.rst):
 *   x0 = physical address of the DTB, x1-x3 = 0; entered at EL2 or EL1 with
 *   the MMU and D-cache off, IRQs masked; the Image may sit at any 2 MiB-aligned
 *   address. We are linked at 0 and relocate ourselves (linker.ld), then map
 *   memory 1:1 (VA == PA) and turn the MMU on (arch/arm64/mmu.c).
 *
 * Register use on the boot CPU until C owns the stack:
 *   x19  DTB physical address      (from x0)
 *   x20  load address of _head     (relocation offset: we are linked at 0)
 *   x21  exception level at entry
 */
#include "asm_macros.h"
#include "boot.h"

#define R_AARCH64_RELATIVE	1027
#define SCTLR_EL1_RES1		0x30d00800	/* bits 29,28,23,22,20,11 (ARMv8.0) */
#define HCR_EL2_RW		(1 << 31)	/* EL1 is AArch64 (Arm ARM D13.2.47) */
#define SPSR_EL1H_DAIF		0x3c5		/* EL1h, D/A/I/F masked */

	.section .head.text, "ax"
	b	primary_entry			/* code0 */
	.long	0				/* code1 */
	.quad	0				/* text_offset: load at a 2 MiB boundary */
	.quad	_kernel_size			/* image_size, including bss */
	.quad	0xa				/* flags: LE, 4K pages, anywhere in RAM */
	.quad	0, 0, 0				/* res2-4 */
	.ascii	"ARM\x64"			/* magic */
	.long	0				/* res5 (PE header offset, none yet) */

primary_entry:
	mov	x19, x0
	adr	x20, _head
	mrs	x21, CurrentEL
	lsr	x21, x21, #2
	cmp	x21, #2
	b.ne	1f
	bl	el2_to_el1
1:	msr	daifset, #0xf

	/* bss is not in the Image file: clear it (MMU off, so straight to RAM). */
	adr_l	x0, __bss_start
	adr_l	x1, __bss_end
2:	cmp	x0, x1
	b.hs	3f
	stp	xzr, xzr, [x0], #16
	b	2b
3:	adr_l	x0, boot_stack_top
	mov	sp, x0
	mov	x29, xzr

	/* Apply R_AARCH64_RELATIVE relocations: *(base + off) = base + addend. */
	adr_l	x0, __rela_start
	ldr	x1, =__rela_size
	add	x1, x1, x0
4:	cmp	x0, x1
	b.hs	5f
	ldp	x3, x4, [x0], #16		/* r_offset, r_info */
	ldr	x5, [x0], #8			/* r_addend */
	cmp	w4, #R_AARCH64_RELATIVE
	b.ne	4b
	add	x5, x5, x20
	str	x5, [x3, x20]
	b	4b

5:	mov	x0, x19
	mov	x1, x20
	mov	x2, x21
	bl	early_setup			/* MMU off: check DTB, build page tables */
	adr_l	x0, boot_params
	bl	mmu_enable
	mov	x0, x19
	bl	start_kernel			/* arch/arm64/setup.c, never returns */
6:	wfe
	b	6b

/*
 * Secondary CPUs enter here through PSCI CPU_ON (x0 = logical id) or a
 * spin-table release (registers undefined), so the id is looked up by MPIDR
 * in boot_params, which the boot CPU cleaned to the point of coherency.
 */
ENTRY(secondary_entry)
	mrs	x21, CurrentEL
	lsr	x21, x21, #2
	cmp	x21, #2
	b.ne	1f
	bl	el2_to_el1
1:	msr	daifset, #0xf
	mrs	x0, mpidr_el1
	and	x0, x0, #0xffffff		/* Aff2.Aff1.Aff0 */
	mrs	x1, mpidr_el1
	and	x1, x1, #0xff00000000		/* Aff3 */
	orr	x0, x0, x1
	adr_l	x2, boot_params
	ldr	w3, [x2, #BP_NR_CPUS]
	add	x4, x2, #BP_MPIDR
	mov	x19, #0
2:	cmp	x19, x3
	b.hs	9f				/* not ours: park */
	ldr	x5, [x4, x19, lsl #3]
	cmp	x5, x0
	b.eq	3f
	add	x19, x19, #1
	b	2b
3:	add	x4, x2, #BP_STACK
	ldr	x5, [x4, x19, lsl #3]
	cbz	x5, 9f
	mov	sp, x5
	mov	x29, xzr
	mov	x0, x2
	bl	mmu_enable
	mov	x0, x19
	bl	secondary_start_kernel		/* never returns */
9:	wfe
	b	9b
END(secondary_entry)

/*
 * el2_to_el1: leave EL2 for EL1 with everything EL1 needs untrapped.
 * HCR_EL2 may be in any state (a hypervisor-less firmware leaves it as reset),
 * so every register EL1 depends on is written, not modified.
 * Preserves: x19-x21. Corrupts: x0, x1. Returns at EL1 (to lr).
 */
el2_to_el1:
	mov	x0, #HCR_EL2_RW
	msr	hcr_el2, x0
	mrs	x0, cnthctl_el2
	orr	x0, x0, #3			/* EL1PCTEN | EL1PCEN: counters at EL1 */
	msr	cnthctl_el2, x0
	msr	cntvoff_el2, xzr		/* virtual count == physical count */
	mov	x0, #0x33ff			/* CPTR_EL2: RES1 bits, no FP/SIMD trap */
	msr	cptr_el2, x0
	msr	hstr_el2, xzr
	msr	vttbr_el2, xzr
	/* MPIDR_EL1/MIDR_EL1 read at EL1 return VMPIDR_EL2/VPIDR_EL2, whose
	 * reset values are UNKNOWN: give EL1 the real ones. */
	mrs	x0, mpidr_el1
	msr	vmpidr_el2, x0
	mrs	x0, midr_el1
	msr	vpidr_el2, x0
	/* GICv3 CPU interface by system registers from EL1 (ICC_SRE_EL2.SRE|Enable),
	 * only if the CPU implements them (ID_AA64PFR0_EL1.GIC). */
	mrs	x0, id_aa64pfr0_el1
	ubfx	x0, x0, #24, #4
	cbz	x0, 1f
	mrs	x0, S3_4_C12_C9_5		/* ICC_SRE_EL2 */
	mov	x1, #0x9
	orr	x0, x0, x1
	msr	S3_4_C12_C9_5, x0
	isb
	msr	S3_4_C12_C11_0, xzr		/* ICH_HCR_EL2: no virtual interrupts */
1:	ldr	x0, =SCTLR_EL1_RES1		/* EL1 MMU and caches off */
	msr	sctlr_el1, x0
	mov	x0, #SPSR_EL1H_DAIF
	msr	spsr_el2, x0
	msr	elr_el2, lr
	isb
	eret

/*
 * mmu_enable(x0 = &boot_params): load MAIR/TCR/TTBR0 and turn on the MMU and
 * caches. Identity map, so execution continues at the next instruction.
 * Corrupts: x1-x4.
 */
ENTRY(mmu_enable)
	ldr	x1, [x0, #BP_MAIR]
	ldr	x2, [x0, #BP_TCR]
	ldr	x3, [x0, #BP_TTBR0]
	ldr	x4, [x0, #BP_SCTLR]
	msr	mair_el1, x1
	msr	tcr_el1, x2
	msr	ttbr0_el1, x3
	isb
	tlbi	vmalle1
	dsb	nsh
	isb
	msr	sctlr_el1, x4
	isb
	ic	iallu
	dsb	nsh
	isb
	ret
END(mmu_enable)

/* dcache_inval_poc(start, end): invalidate D-cache lines to PoC.
 * Corrupts: x0-x3. */
ENTRY(dcache_inval_poc)
	mrs	x3, ctr_el0
	ubfx	x3, x3, #16, #4			/* DminLine: log2(words) */
	mov	x2, #4
	lsl	x2, x2, x3
	sub	x3, x2, #1
	bic	x0, x0, x3
1:	dc	ivac, x0
	add	x0, x0, x2
	cmp	x0, x1
	b.lo	1b
	dsb	sy
	ret
END(dcache_inval_poc)

/* dcache_clean_poc(start, end): clean D-cache lines to PoC (for CPUs that
 * still run with the MMU off). Corrupts: x0-x3. */
ENTRY(dcache_clean_poc)
	mrs	x3, ctr_el0
	ubfx	x3, x3, #16, #4
	mov	x2, #4
	lsl	x2, x2, x3
	sub	x3, x2, #1
	bic	x0, x0, x3
1:	dc	civac, x0
	add	x0, x0, x2
	cmp	x0, x1
	b.lo	1b
	dsb	sy
	ret
END(dcache_clean_poc)

	.section .bss
	.balign 16
boot_stack:
	.space	16384
	.globl	boot_stack_top
boot_stack_top:
