/* asm_macros.h - helpers for arm64 assembly: PC-relative addressing (the
 * kernel is position independent) and symbol annotations. */
#ifndef ASM_MACROS_H
#define ASM_MACROS_H

/* Assembler syntax, which clang-format would read as C. */
/* clang-format off */

/* adr_l reg, sym: address of sym, +-4 GiB, position independent. */
.macro adr_l, reg, sym
	adrp	\reg, \sym
	add	\reg, \reg, :lo12:\sym
.endm

.macro ldr_l, reg, sym
	adrp	\reg, \sym
	ldr	\reg, [\reg, :lo12:\sym]
.endm

#define ENTRY(name) .globl name; .type name, %function; name:
#define END(name) .size name, . - name

#endif
