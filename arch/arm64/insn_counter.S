/* insn_counter.S - what the QEMU plugin tools/qemu/vcpu_insns.c looks for in the
 * instruction stream (speed=exact, kernel/sched/speed.c): a marker that tells it where
 * the counter page is, and a sled of nops by which each CPU says which logical id it is.
 * The plugin reads guest memory through the host address of the marker's instructions
 * (qemu_plugin_insn_haddr); guest RAM is one host mapping, so the PC-relative offsets
 * below hold on the host too. Without the plugin both are a few nops. */
#include "asm_macros.h"

#define NR_CPUS 256	/* include/types.h; checked in insn_counter.c */

	.text
/* insn_counter_marker(): called once by the boot CPU before any other CPU starts.
 * The two writes to xzr are the signature (ASCII "LB" "IC": movz/movk xzr do
 * nothing); the plugin then reads three words at marker + 16:
 *   +16  the counter page, relative to this word
 *   +24  the hello sled, relative to this word
 *   +32  the sled's length in instructions (one per logical CPU id)
 * Preserves: all but x16. */
	.balign	16
ENTRY(insn_counter_marker)
	movz	xzr, #0x4c42
	movk	xzr, #0x4943, lsl #16
	b	1f
	nop
	.quad	insn_counter_page - .
	.quad	insn_counter_sled - .
	.quad	NR_CPUS
1:	ret
END(insn_counter_marker)

/* insn_counter_hello(cpu): each CPU once it runs, x0 = its logical id (< NR_CPUS).
 * It enters the sled at nop number x0, so the translation block the plugin sees
 * starts at sled + 4 x cpu: that start address is the id, the vCPU executing it
 * is the one to map, and no memory is shared between CPUs saying hello at once.
 * Preserves: all but x16. */
ENTRY(insn_counter_hello)
	adr	x16, insn_counter_sled
	add	x16, x16, x0, lsl #2
	br	x16
END(insn_counter_hello)
	.balign	2048	/* 257 instructions within one page: fewer blocks to cross */
insn_counter_sled:
	.rept	NR_CPUS
	nop
	.endr
	ret
