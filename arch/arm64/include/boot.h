/* boot.h - what the boot CPU hands over to head.S, mmu_enable and the
 * secondaries, which read it with the MMU off (so it is cleaned to PoC).
 * Offsets are used by assembly: checked by _Static_assert in early.c. */
#ifndef ARM64_BOOT_H
#define ARM64_BOOT_H

#define BP_MAIR	       0
#define BP_TCR	       8
#define BP_TTBR0       16
#define BP_SCTLR       24
#define BP_NR_CPUS     32
#define BP_MPIDR       40
#define BP_NR_CPUS_MAX 256 /* == NR_CPUS */
#define BP_STACK       (BP_MPIDR + 8 * BP_NR_CPUS_MAX)

#ifndef __ASSEMBLY__
#include "types.h"

#define BOOT_MAX_MEM 16

struct mem_region {
	u64 base, size;
};

struct boot_params {
	u64 mair, tcr, ttbr0, sctlr;
	u32 nr_cpus, pad;
	u64 mpidr[NR_CPUS]; /* logical id -> MPIDR (Aff3..Aff0) */
	u64 stack[NR_CPUS]; /* initial SP of each secondary */
	/* Below: not read by assembly. */
	u64 load_base, kernel_end;
	u64 dtb_pa, dtb_size;
	u64 pool_base, pool_end, pool_next; /* early page-table pool */
	int nr_mem;
	struct mem_region mem[BOOT_MAX_MEM];
	int entry_el;
};

extern struct boot_params boot_params;

/* Memory the EFI stub found in use by the firmware after ExitBootServices
 * (runtime services, ACPI, reserved, ...), sorted, merged. It lives in .data,
 * not .bss: the stub fills it before primary_entry clears bss. early.c takes
 * it out of the RAM ranges, so nothing of ours is ever placed there. */
#define BOOT_MAX_FW_RSV 8
struct boot_fw_rsv {
	u32 nr;
	u32 from_efi; /* 1: we came through the EFI stub */
	struct mem_region r[BOOT_MAX_FW_RSV];
};
extern struct boot_fw_rsv boot_fw_rsv;

void dcache_inval_poc(u64 start, u64 end);
void dcache_clean_poc(u64 start, u64 end);
/* traps.c: CPU `cpu`'s overflow stack (entry.S), allocated once; 0 or -1. */
int overflow_stack_alloc(unsigned int cpu);
void secondary_entry(void);
/* insn_counter.c: the QEMU plugin's page (boot CPU, before smp_init), each CPU's hello. */
bool arch_insn_counter_attach(unsigned int boot_cpu);
void arch_insn_counter_cpu_init(unsigned int cpu);

/* mmu.c */
int mmu_map(u64 pa, u64 size, u64 attrs);
void mmu_init_tables(void);
#define MT_NORMAL	  0
#define MT_NORMAL_RO	  1
#define MT_NORMAL_RO_EXEC 2
#define MT_DEVICE	  3
u64 mmu_attrs(int type);
void *ioremap(u64 pa, u64 size);

/* early console (MMU on or off) */
void early_uart_init(u64 base);
void early_puts(const char *s);

extern char _head[], _text[], _etext[], _erodata[], _end[], __bss_start[], __bss_end[];
#endif

#endif
