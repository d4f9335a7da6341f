/* head.S - the Image header (with the PE/COFF header that makes the same file
 * an EFI application) and the first instructions of every CPU.
 *
 * Boot contract (Linux arm64 boot protocol, Documentation/arch/arm64/booting.rst):
 *   x0 = physical address of the DTB, x1-x3 = 0; entered at EL2 or EL1, IRQs
 *   masked; the Image may sit at any 4 KiB-aligned address (the header asks
 *   for 2 MiB). We are linked at 0 and relocate ourselves (linker.ld), then
 *   map memory 1:1 (VA == PA) and turn the MMU on (arch/arm64/mmu.c).
 *   Beyond the protocol, the MMU and caches may be on at entry provided the
 *   mapping is 1:1 (as UEFI leaves it): entry_mmu_off cleans the Image and the
 *   DTB to the point of coherency and turns them off first.
 *   Under UEFI the firmware enters efi_pe_entry instead (efi.c), which ends here.
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
#define SCTLR_M			(1 << 0)	/* MMU enable (Arm ARM D13.2.118) */
#define SCTLR_C			(1 << 2)	/* data caches enable */
#define HCR_EL2_RW		(1 << 31)	/* EL1 is AArch64 (Arm ARM D13.2.47) */
#define SPSR_EL1H_DAIF		0x3c5		/* EL1h, D/A/I/F masked */
#define FDT_MAGIC_LE		0xedfe0dd0	/* 0xd00dfeed read little-endian */

/*
 * The header. Offsets 0x00-0x3f are the arm64 Image header; the first
 * instruction doubles as the "MZ" of an MS-DOS stub, and 0x3c (res5) holds the
 * offset of the PE signature, so UEFI loads this same file as a PE32+ EFI
 * application (field layout: Microsoft PE/COFF specification, "Optional Header
 * (Image Only)"; UEFI spec 2.10 section 2.1.1 for subsystem 10). One section,
 * read/write/execute, spans everything after the 4 KiB of headers, bss
 * included (the loader zero-fills past SizeOfRawData); no base relocations:
 * the code relocates itself.
 */
#define PE_HDR_SIZE		0x1000		/* headers; the section starts here */
	.section .head.text, "ax"
.Lhead:
	.inst	0xfa405a4d			/* code0: "MZ"; ccmp x18, #0, #0xd, pl: no effect */
	b	primary_entry			/* code1 */
	.quad	0				/* text_offset: load at a 2 MiB boundary */
	.quad	_kernel_size			/* image_size, including bss */
	.quad	0xa				/* flags: LE, 4K pages, anywhere in RAM */
	.quad	0, 0, 0				/* res2-4 */
	.ascii	"ARM\x64"			/* magic */
	.long	.Lpe_header - .Lhead		/* res5 at 0x3c: PE header offset */

.Lpe_header:
	.ascii	"PE\0\0"
	.short	0xaa64				/* Machine: IMAGE_FILE_MACHINE_ARM64 */
	.short	1				/* NumberOfSections */
	.long	0				/* TimeDateStamp */
	.long	0, 0				/* PointerToSymbolTable, NumberOfSymbols */
	.short	.Lsection_table - .Loptional_header	/* SizeOfOptionalHeader */
	.short	0x206				/* EXECUTABLE_IMAGE | LINE_NUMS_STRIPPED |
						   DEBUG_STRIPPED */
.Loptional_header:
	.short	0x20b				/* Magic: PE32+ */
	.byte	0, 0				/* linker version */
	.long	_pe_raw_size			/* SizeOfCode */
	.long	0				/* SizeOfInitializedData */
	.long	0				/* SizeOfUninitializedData */
	.long	_pe_entry_rva			/* AddressOfEntryPoint: efi_pe_entry */
	.long	PE_HDR_SIZE			/* BaseOfCode */
	.quad	0				/* ImageBase: we relocate ourselves */
	.long	0x1000				/* SectionAlignment */
	.long	0x200				/* FileAlignment */
	.short	0, 0				/* OperatingSystemVersion */
	.short	0, 0				/* ImageVersion */
	.short	0, 0				/* SubsystemVersion */
	.long	0				/* Win32VersionValue */
	.long	_kernel_size			/* SizeOfImage */
	.long	PE_HDR_SIZE			/* SizeOfHeaders */
	.long	0				/* CheckSum */
	.short	10				/* Subsystem: EFI application */
	.short	0				/* DllCharacteristics */
	.quad	0, 0, 0, 0			/* stack/heap reserve/commit: unused */
	.long	0				/* LoaderFlags */
	.long	6				/* NumberOfRvaAndSizes */
	.quad	0, 0, 0, 0, 0, 0		/* export .. base relocation: none */

.Lsection_table:
	.ascii	".text\0\0\0"
	.long	_pe_virt_size			/* VirtualSize: up to _end (bss) */
	.long	PE_HDR_SIZE			/* VirtualAddress */
	.long	_pe_raw_size			/* SizeOfRawData: the rest of the file */
	.long	PE_HDR_SIZE			/* PointerToRawData */
	.long	0, 0				/* relocations, line numbers */
	.short	0, 0
	.long	0xe0000020			/* CNT_CODE | MEM_EXECUTE | MEM_READ | MEM_WRITE */
	.balign	PE_HDR_SIZE			/* linker.ld checks: code starts here */

	.text
ENTRY(primary_entry)
	msr	daifset, #0xf
	mov	x19, x0
	adr_l	x20, _head
	mrs	x21, CurrentEL
	lsr	x21, x21, #2
	bl	entry_mmu_off
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
END(primary_entry)

/*
 * entry_mmu_off: if the MMU or the data cache is on at the entry EL (a UEFI
 * entry, or a loader that did not turn them off), clean and invalidate the
 * Image and the DTB to PoC so that what the loader wrote is in RAM and no
 * stale line can shadow what we write with the MMU off, then turn both off.
 * The mapping must be 1:1: the next instruction is fetched with the MMU off.
 * In: x19 = DTB, x21 = EL. Preserves: x19-x21. Corrupts: x0-x4, x22.
 */
entry_mmu_off:
	cmp	x21, #2
	b.eq	1f
	mrs	x4, sctlr_el1
	b	2f
1:	mrs	x4, sctlr_el2
2:	mov	x0, #(SCTLR_M | SCTLR_C)
	tst	x4, x0
	b.eq	9f
	mov	x22, lr
	adr_l	x0, _head
	adr_l	x1, _end
	bl	dcache_clean_poc
	cbz	x19, 3f
	ldr	w0, [x19]			/* a DTB? (its header says how big) */
	ldr	w1, =FDT_MAGIC_LE
	cmp	w0, w1
	b.ne	3f
	ldr	w1, [x19, #4]			/* totalsize, big-endian */
	rev	w1, w1
	mov	x0, x19
	add	x1, x0, x1
	bl	dcache_clean_poc
3:	mov	lr, x22
	bic	x4, x4, #SCTLR_M
	bic	x4, x4, #SCTLR_C
	cmp	x21, #2
	b.eq	4f
	msr	sctlr_el1, x4
	b	5f
4:	msr	sctlr_el2, x4
5:	isb
	ic	iallu				/* lines fetched through the old mapping */
	dsb	nsh
	isb
9:	ret

/*
 * efi_pe_entry: the PE/COFF entry point (AddressOfEntryPoint). UEFI calls it
 * as a C function efi_main(image_handle, system_table), MMU and caches on,
 * 1:1 mapped, before our relocations are applied (efi.c copes).
 * In: x0 = image handle, x1 = EFI system table. Returns what efi_main returns.
 */
ENTRY(efi_pe_entry)
	adr_l	x2, _head
	b	efi_main
END(efi_pe_entry)

/*
 * efi_enter_kernel(entry, dtb): leave the EFI stub for primary_entry (of the
 * copy at `entry`) with x0 = DTB, x1-x3 = 0 and interrupts masked. The
 * caller cleaned the copy to PoC; the I-cache may hold the old location.
 */
ENTRY(efi_enter_kernel)
	msr	daifset, #0xf
	ic	iallu
	dsb	sy
	isb
	mov	x4, x0
	mov	x0, x1
	mov	x1, xzr
	mov	x2, xzr
	mov	x3, xzr
	br	x4
END(efi_enter_kernel)

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
	isb					/* E2H=0 before the EL2 names below */
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
