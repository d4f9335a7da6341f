/* early.c - the boot CPU's work with the MMU still off: check the DTB, find
 * a console for complaints, learn RAM from /memory, place the early
 * page-table pool and build the identity map (mmu.c). Runs before anything
 * is initialized: no locks (exclusives need the MMU), no printk, only byte
 * loads on the DTB. Everything it learns goes into boot_params. */
#include "boot.h"
#include "dtb.h"
#include "kernel.h"
#include "mm.h"

_Static_assert(offsetof(struct boot_params, mair) == BP_MAIR, "BP_MAIR");
_Static_assert(offsetof(struct boot_params, tcr) == BP_TCR, "BP_TCR");
_Static_assert(offsetof(struct boot_params, ttbr0) == BP_TTBR0, "BP_TTBR0");
_Static_assert(offsetof(struct boot_params, sctlr) == BP_SCTLR, "BP_SCTLR");
_Static_assert(offsetof(struct boot_params, nr_cpus) == BP_NR_CPUS, "BP_NR_CPUS");
_Static_assert(offsetof(struct boot_params, mpidr) == BP_MPIDR, "BP_MPIDR");
_Static_assert(offsetof(struct boot_params, stack) == BP_STACK, "BP_STACK");
_Static_assert(NR_CPUS == BP_NR_CPUS_MAX, "NR_CPUS");

struct boot_params boot_params;

/* PL011 registers used before the driver runs (PrimeCell UART TRM). */
#define UART_DR	     0x00
#define UART_FR	     0x18
#define UART_FR_TXFF (1u << 5)
static volatile u8 *early_uart;

void early_uart_init(u64 base)
{
	early_uart = (volatile u8 *)base;
}

void early_puts(const char *s)
{
	if (!early_uart)
		return;
	for (; *s; s++) {
		if (*s == '\n') {
			while (*(volatile u32 *)(early_uart + UART_FR) & UART_FR_TXFF)
				;
			*(volatile u32 *)(early_uart + UART_DR) = '\r';
		}
		while (*(volatile u32 *)(early_uart + UART_FR) & UART_FR_TXFF)
			;
		*(volatile u32 *)(early_uart + UART_DR) = (u8)*s;
	}
}

static void __attribute__((noreturn)) early_halt(const char *why)
{
	early_puts("littlebig: cannot boot: ");
	early_puts(why);
	early_puts("\n");
	for (;;)
		__asm__ volatile("wfe");
}

/* The console is whatever /chosen/stdout-path names, if it is a PL011. */
static void find_console(const struct dtb *dt)
{
	int chosen = dtb_path(dt, "/chosen"), node;
	const char *path;
	u64 base, size;

	if (chosen < 0 || !(path = dtb_prop_str(dt, chosen, "stdout-path")))
		return;
	node = dtb_path(dt, path);
	if (node < 0 || !dtb_is_compatible(dt, node, "arm,pl011"))
		return;
	if (dtb_reg(dt, node, 0, &base, &size) == 0)
		early_uart_init(base);
}

static void find_memory(const struct dtb *dt)
{
	struct boot_params *bp = &boot_params;
	int depth = 0;

	for (int node = dtb_next_node(dt, -1, &depth); node >= 0;
	     node = dtb_next_node(dt, node, &depth)) {
		const char *type = dtb_prop_str(dt, node, "device_type");
		u64 base, size;

		if (depth != 1 || !type || strcmp(type, "memory") || !dtb_node_enabled(dt, node))
			continue;
		for (int i = 0; bp->nr_mem < BOOT_MAX_MEM; i++) {
			if (dtb_reg(dt, node, i, &base, &size))
				break;
			if (size)
				bp->mem[bp->nr_mem++] = (struct mem_region){ base, size };
		}
	}
}

static bool overlaps(u64 a, u64 alen, u64 b, u64 blen)
{
	return a < b + blen && b < a + alen;
}

/* Memory the firmware keeps (boot_fw_rsv, from the EFI stub) is not RAM for
 * us: cut it out of the ranges, so that no page table, allocator bitmap or
 * page ever lands there. Should the pieces outnumber BOOT_MAX_MEM, the
 * smallest is given up (RAM lost, never firmware memory used). */
static void remove_firmware_memory(void)
{
	struct boot_params *bp = &boot_params;

	for (u32 r = 0; r < boot_fw_rsv.nr; r++) {
		u64 rb = boot_fw_rsv.r[r].base, re = rb + boot_fw_rsv.r[r].size;

		for (int i = 0; i < bp->nr_mem; i++) {
			struct mem_region m = bp->mem[i];
			u64 me = m.base + m.size;

			if (!overlaps(m.base, m.size, rb, re - rb))
				continue;
			bp->mem[i] = (struct mem_region){ m.base, rb > m.base ? rb - m.base : 0 };
			if (re < me) {
				int j = bp->nr_mem < BOOT_MAX_MEM ? bp->nr_mem++ : -1;

				for (int k = 0; j < 0 && k < bp->nr_mem; k++)
					if (bp->mem[k].size < me - re &&
					    (j < 0 || bp->mem[k].size < bp->mem[j].size))
						j = k;
				if (j >= 0)
					bp->mem[j] = (struct mem_region){ re, me - re };
			}
		}
	}
	for (int i = 0; i < bp->nr_mem;) /* drop emptied ranges */
		if (!bp->mem[i].size)
			bp->mem[i] = bp->mem[--bp->nr_mem];
		else
			i++;
}

/* Worst case: one L3 table per 2 MiB and one L2 per 1 GiB of each range,
 * plus room for device mappings made before the page allocator runs. */
static u64 pool_bytes(void)
{
	u64 pages = 1 + 64;

	for (int i = 0; i < boot_params.nr_mem; i++)
		pages += boot_params.mem[i].size / (2 << 20) + 2 +
			 boot_params.mem[i].size / (1ull << 30) + 2;
	return pages * PAGE_SIZE;
}

/* Put the pool after the kernel, stepping over the DTB and /memreserve/. */
static void place_pool(const struct dtb *dt)
{
	struct boot_params *bp = &boot_params;
	u64 need = pool_bytes(), base = ALIGN_UP((u64)_end, PAGE_SIZE);
	bool moved = true;

	while (moved) {
		u64 a, s;

		moved = false;
		if (overlaps(base, need, bp->dtb_pa, bp->dtb_size)) {
			base = ALIGN_UP(bp->dtb_pa + bp->dtb_size, PAGE_SIZE);
			moved = true;
		}
		for (int i = 0; dtb_mem_rsv(dt, i, &a, &s) == 0; i++) {
			if (overlaps(base, need, a, s)) {
				base = ALIGN_UP(a + s, PAGE_SIZE);
				moved = true;
			}
		}
	}
	for (int i = 0; i < bp->nr_mem; i++) {
		if (base >= bp->mem[i].base && base + need <= bp->mem[i].base + bp->mem[i].size) {
			bp->pool_base = bp->pool_next = base;
			bp->pool_end = base + need;
			return;
		}
	}
	early_halt("no room for page tables after the kernel");
}

void early_setup(u64 dtb_pa, u64 load_base, u64 el)
{
	struct boot_params *bp = &boot_params;
	struct dtb dt;
	u32 size = dtb_pa && !(dtb_pa & 7) ? dtb_header_totalsize((const void *)dtb_pa) : 0;
	bool kernel_in_ram = false;

	/* Without a valid DTB there is no console to complain on: just stop. */
	if (!size || dtb_init(&dt, (const void *)dtb_pa, size))
		early_halt("no valid device tree in x0");
	find_console(&dt);
	if (el != 1 && el != 2)
		early_halt(el == 3 ? "entered at EL3; the boot protocol requires EL2 or EL1"
				   : "entered at an unknown exception level");
	bp->entry_el = (int)el;
	bp->dtb_pa = dtb_pa;
	bp->dtb_size = size;
	bp->load_base = load_base;
	bp->kernel_end = (u64)_end;
	find_memory(&dt);
	remove_firmware_memory();
	if (!bp->nr_mem)
		early_halt("the device tree has no /memory node");
	for (int i = 0; i < bp->nr_mem; i++)
		kernel_in_ram |= overlaps(load_base, 1, bp->mem[i].base, bp->mem[i].size);
	if (!kernel_in_ram)
		early_halt("the kernel was loaded outside the RAM that /memory describes");
	place_pool(&dt);
	mmu_init_tables();
	if (early_uart)
		mmu_map((u64)early_uart, PAGE_SIZE, mmu_attrs(MT_DEVICE));
	/* Lines cached before we started (by a bootloader) must not shadow
	 * what we wrote to RAM with the MMU off. */
	dcache_inval_poc((u64)_head, (u64)_end);
	dcache_inval_poc(bp->pool_base, bp->pool_end);
}
