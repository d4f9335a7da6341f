/* shim.S - a pre-boot shim for `make test`: what a careless firmware might do
 * between QEMU and the kernel. Not part of the kernel (nothing of it is
 * linked into the Image); built by the Makefile into build/fw/.
 *
 * QEMU boots the shim as its -kernel (it carries an arm64 Image header, so
 * QEMU enters it at EL2 with -M virt,virtualization=on, x0 = the DTB it
 * loaded and patched, the other CPUs off, PSCI over smc). The real Image is
 * loaded by `-device loader,file=build/Image,addr=KERNEL_ADDR,force-raw=on`.
 * On each CPU it enters, the shim leaves the EL2 (and EL1) system registers
 * in a junk state no reset gives -- HCR_EL2 with E2H, TGE, RW=0 and most trap
 * bits set, CNTHCTL_EL2 trapping the counters, SCTLR_EL1/EL2 with unusual
 * bits, CPTR_EL2/MDCR_EL2/HSTR_EL2 trapping, junk VTTBR/CNTVOFF/VMPIDR/VPIDR --
 * and enters the kernel as the boot protocol says: x0 = DTB, x1-x3 = 0.
 * E2H only sticks on a CPU with VHE (ARMv8.1): run it with -cpu cortex-a76.
 *
 * Built twice:
 *   el2-junk.bin     the boot CPU only; the kernel starts the others by PSCI
 *                    (they come up in QEMU's reset state).
 *   spin-table.bin   (-DSPIN_TABLE) also starts every other CPU (PSCI CPU_ON,
 *                    MPIDR Aff0 1..7) into a holding pen: it waits (wfe) until
 *                    the kernel writes an entry address to its cpu-release-addr,
 *                    shim base + RELEASE_OFF + 8 x Aff0, then dirties its own
 *                    registers the same way and jumps there. The tree
 *                    (tests/dts/qemu-spin-table.dts) says enable-method =
 *                    "spin-table" with those addresses and /memreserve/s the
 *                    shim; QEMU loads the shim at RAM + 2 MiB (its Image rule for
 *                    text_offset 0), so the release addresses are fixed.
 */

#ifndef KERNEL_ADDR
#define KERNEL_ADDR	0x40400000	/* where the runs of tools/runtests.py load the Image */
#endif
#define UART_BASE	0x09000000	/* QEMU virt's PL011 */
#define RELEASE_OFF	0x800		/* cpu-release-addr slots: 8 bytes per Aff0 */
#define PEN_CPUS	8		/* Aff0 values 1..PEN_CPUS-1 are started */
#define PSCI_CPU_ON_64	0xc4000003

/* HCR_EL2 (Arm ARM D13.2.47): E2H, TGE, TRVM, TDZ, TVM, TTLB, TPU, TPCP, TSW,
 * TACR, TSC, TID3, TWE, TWI, DC, BSU=3, FB, AMO, IMO, FMO, PTW, SWIO, VM; RW=0
 * (EL1 would be AArch32). No VI/VF/VSE: a pending virtual exception is a state
 * of the hypervisor, not of a reset. */
#define HCR_JUNK	((1 << 34) | (1 << 30) | (1 << 28) | (1 << 27) | (1 << 26) | \
			 (1 << 25) | (1 << 24) | (1 << 23) | (1 << 22) | (1 << 21) | \
			 (1 << 19) | (1 << 18) | (1 << 14) | (1 << 13) | (1 << 12) | \
			 (3 << 10) | (1 << 9) | (1 << 5) | (1 << 4) | (1 << 3) | \
			 (1 << 2) | (1 << 1) | (1 << 0))
/* SCTLR_EL1: RES1 bits plus M, A, C, SA, SA0, I, WXN, EE, E0E (the kernel must
 * write all of it before it drops to EL1). */
#define SCTLR_EL1_JUNK	(0x30d00800 | (1 << 0) | (1 << 1) | (1 << 2) | (1 << 3) | \
			 (1 << 4) | (1 << 12) | (1 << 19) | (1 << 24) | (1 << 25))
/* SCTLR_EL2: RES1 bits plus I (instruction cache on) and WXN; MMU, data
 * cache and endianness left as the boot protocol requires. */
#define SCTLR_EL2_JUNK	(0x30c50830 | (1 << 12) | (1 << 19))
/* CPTR_EL2 (E2H=0 layout): RES1 plus TCPAC, TTA, TFP. */
#define CPTR_JUNK	((1 << 31) | (1 << 20) | 0x33ff | (1 << 10))
/* MDCR_EL2: TDRA, TDOSA, TDA, TDE, HPME, TPM, TPMCR, HPMN = 0. */
#define MDCR_JUNK	((1 << 11) | (1 << 10) | (1 << 9) | (1 << 8) | (1 << 7) | \
			 (1 << 6) | (1 << 5))

	.text
	.globl	_start
_start:
	b	shim_entry			/* code0 */
	.long	0				/* code1 */
	.quad	0				/* text_offset */
	.quad	shim_end - _start		/* image_size */
	.quad	0xa				/* flags: LE, 4K pages, anywhere */
	.quad	0, 0, 0
	.ascii	"ARM\x64"
	.long	0

shim_entry:
	msr	daifset, #0xf
	mov	x19, x0				/* the DTB, from QEMU */
#ifdef SPIN_TABLE
	mov	x20, #1
1:	ldr	x0, =PSCI_CPU_ON_64
	mov	x1, x20				/* target MPIDR: Aff0 = x20 */
	adr	x2, pen
	mov	x3, xzr
	smc	#0				/* an absent CPU just fails */
	add	x20, x20, #1
	cmp	x20, #PEN_CPUS
	b.lo	1b
#endif
	bl	dirty_el2
	adr	x0, msg_hcr			/* say what the kernel gets (make test checks it) */
	bl	puts
	mrs	x0, hcr_el2
	bl	puthex
	adr	x0, msg_enter
	bl	puts
	mov	x0, x19
	b	enter_kernel

#ifdef SPIN_TABLE
/* The holding pen: check the release slot first (the kernel may have written
 * it already), then wait for its sev. Runs with the MMU off: the kernel
 * cleans the slot to the point of coherency before the sev. */
pen:
	msr	daifset, #0xf
	mrs	x19, mpidr_el1
	and	x19, x19, #0xff
	adr	x20, _start
	add	x20, x20, #RELEASE_OFF
	add	x20, x20, x19, lsl #3
1:	ldr	x21, [x20]
	cbnz	x21, 2f
	wfe
	b	1b
2:	bl	dirty_el2
	mov	x0, xzr				/* registers are not part of a release */
	mov	x1, xzr
	mov	x2, xzr
	mov	x3, xzr
	br	x21
#endif

/* Leave junk in every EL2 register the kernel depends on. EL1 registers are
 * written first: once E2H is set, the _EL1 names reach the EL2 registers.
 * Only at EL2 (anything else: no change). Corrupts x0, x1. */
dirty_el2:
	mrs	x0, CurrentEL
	cmp	x0, #(2 << 2)
	b.ne	9f
	ldr	x0, =SCTLR_EL1_JUNK
	msr	sctlr_el1, x0
	ldr	x0, =0x5a5a5a5a5a5a5a5a
	msr	ttbr0_el1, x0
	msr	ttbr1_el1, x0
	msr	tcr_el1, x0
	msr	mair_el1, x0
	msr	vbar_el1, x0
	ldr	x0, =0x0123456789abcdef
	msr	cntvoff_el2, x0
	msr	vttbr_el2, x0
	msr	vmpidr_el2, x0
	msr	vpidr_el2, xzr
	msr	cnthctl_el2, xzr		/* EL1 counter and timer accesses trap */
	ldr	x0, =CPTR_JUNK
	msr	cptr_el2, x0
	mov	x0, #MDCR_JUNK
	msr	mdcr_el2, x0
	mov	x0, #0xbeef			/* HSTR_EL2: traps of AArch32 CP15 */
	msr	hstr_el2, x0
	ldr	x0, =SCTLR_EL2_JUNK
	msr	sctlr_el2, x0
	ldr	x0, =HCR_JUNK
	msr	hcr_el2, x0
	isb
9:	ret

/* puts(x0 = string), puthex(x0): polled writes to QEMU virt's PL011 (it
 * needs no set-up there). Corrupt x0-x4. */
puts:
	ldr	x1, =UART_BASE
1:	ldrb	w2, [x0], #1
	cbz	w2, 9f
2:	ldr	w3, [x1, #0x18]			/* UARTFR */
	tbnz	w3, #5, 2b			/* TXFF */
	str	w2, [x1]			/* UARTDR */
	b	1b
9:	ret

puthex:
	ldr	x1, =UART_BASE
	mov	x2, #60
1:	lsr	x3, x0, x2
	and	x3, x3, #0xf
	cmp	x3, #10
	b.lo	2f
	add	x3, x3, #('a' - '0' - 10)
2:	add	x3, x3, #'0'
3:	ldr	w4, [x1, #0x18]
	tbnz	w4, #5, 3b
	str	w3, [x1]
	subs	x2, x2, #4
	b.ge	1b
	ret

msg_hcr:
#ifdef SPIN_TABLE
	.asciz	"bootshim: the other CPUs wait in the spin-table pen; HCR_EL2=0x"
#else
	.asciz	"bootshim: HCR_EL2=0x"
#endif
msg_enter:
	.asciz	", entering the Image with junk EL2 state\r\n"
	.balign	4

enter_kernel:
	mov	x1, xzr
	mov	x2, xzr
	mov	x3, xzr
	ldr	x4, =KERNEL_ADDR
	br	x4

	.ltorg
#ifdef SPIN_TABLE
	.org	RELEASE_OFF
release_slots:
	.fill	PEN_CPUS, 8, 0
#endif
	.balign	16
shim_end:
