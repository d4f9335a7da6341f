/* mmu.c - the kernel's one address space: an identity map (VA == PA) of RAM
 * and of the MMIO ranges drivers ask for, 4 KiB pages throughout so text can
 * be read-only+executable, everything else non-executable, and any page can
 * become a guard page. 39-bit VA, 4 KiB granule, walks start at level 1.
 * Tables come from the early pool (boot CPU, MMU off) and later from the page
 * allocator. Mapping changes are serialized by mmu_lock. */
#include "boot.h"
#include "kernel.h"
#include "mm.h"
#include "spinlock.h"

/* Descriptor bits, Arm ARM D8.3 (VMSAv8-64 translation table format). */
#define PTE_VALID      (1ull << 0)
#define PTE_TABLE      (1ull << 1) /* table at L1/L2, page at L3 */
#define PTE_ATTRIDX(n) ((u64)(n) << 2)
#define PTE_AP_RO      (1ull << 7) /* AP[2]: read-only at EL1 */
#define PTE_SH_INNER   (3ull << 8)
#define PTE_AF	       (1ull << 10)
#define PTE_PXN	       (1ull << 53)
#define PTE_UXN	       (1ull << 54)
#define PTE_ADDR_MASK  0x0000fffffffff000ull

/* MAIR_EL1 slots (D17.2.97): 0 Device-nGnRnE, 1 Device-nGnRE, 2 Normal WB. */
#define MAIR_VALUE  0x0000000000ff0400ull
#define ATTR_DEVICE 1
#define ATTR_NORMAL 2

#define VA_BITS	       39
#define TCR_T0SZ       (64 - VA_BITS)
#define TCR_IRGN0_WBWA (1ull << 8)
#define TCR_ORGN0_WBWA (1ull << 10)
#define TCR_SH0_INNER  (3ull << 12)
#define TCR_EPD1       (1ull << 23) /* no TTBR1 walks: there is no upper half */
#define SCTLR_EL1_RES1 0x30d00800ull
#define SCTLR_M	       (1ull << 0)
#define SCTLR_C	       (1ull << 2)
#define SCTLR_SA       (1ull << 3)
#define SCTLR_I	       (1ull << 12)

static u64 *l1_table;
static spinlock_t mmu_lock;
static bool allocator_ready;

u64 mmu_attrs(int type)
{
	u64 normal = PTE_ATTRIDX(ATTR_NORMAL) | PTE_SH_INNER | PTE_AF;

	switch (type) {
	case MT_NORMAL_RO_EXEC:
		return normal | PTE_AP_RO | PTE_UXN;
	case MT_NORMAL_RO:
		return normal | PTE_AP_RO | PTE_PXN | PTE_UXN;
	case MT_DEVICE:
		return PTE_ATTRIDX(ATTR_DEVICE) | PTE_AF | PTE_PXN | PTE_UXN;
	default:
		return normal | PTE_PXN | PTE_UXN;
	}
}

/* A zeroed page for a table: the early pool until the page allocator runs. */
static u64 *pt_alloc(void)
{
	struct boot_params *bp = &boot_params;
	u64 *t;

	if (bp->pool_next + PAGE_SIZE <= bp->pool_end) {
		t = (u64 *)bp->pool_next;
		bp->pool_next += PAGE_SIZE;
	} else if (allocator_ready) {
		t = alloc_pages(1);
		if (!t)
			return NULL;
	} else {
		return NULL;
	}
	memset(t, 0, PAGE_SIZE);
	return t;
}

static u64 *next_level(u64 *table, unsigned int idx)
{
	u64 e = table[idx];

	if (!(e & PTE_VALID)) {
		u64 *t = pt_alloc();

		if (!t)
			return NULL;
		/* Make the zeroed table visible to the walker before linking it. */
		__asm__ volatile("dsb ishst" ::: "memory");
		table[idx] = (u64)t | PTE_TABLE | PTE_VALID;
		return t;
	}
	return (u64 *)(e & PTE_ADDR_MASK);
}

static u64 *pte_of(u64 va, bool create)
{
	u64 *l2, *l3;

	if (va >> VA_BITS)
		return NULL;
	l2 = create ? next_level(l1_table, (va >> 30) & 511)
		    : (l1_table[(va >> 30) & 511] & PTE_VALID
			       ? (u64 *)(l1_table[(va >> 30) & 511] & PTE_ADDR_MASK)
			       : NULL);
	if (!l2)
		return NULL;
	if (create) {
		l3 = next_level(l2, (va >> 21) & 511);
	} else {
		u64 e = l2[(va >> 21) & 511];

		l3 = (e & PTE_VALID) ? (u64 *)(e & PTE_ADDR_MASK) : NULL;
	}
	return l3 ? &l3[(va >> 12) & 511] : NULL;
}

static void tlb_flush_all(void)
{
	__asm__ volatile("dsb ishst; tlbi vmalle1is; dsb ish; isb" ::: "memory");
}

/* Identity-map [pa, pa + size) with `attrs`, replacing what was there.
 * Only used on ranges nobody is accessing with other attributes. */
int mmu_map(u64 pa, u64 size, u64 attrs)
{
	u64 va = ALIGN_DOWN(pa, PAGE_SIZE), end = ALIGN_UP(pa + size, PAGE_SIZE);
	unsigned long flags = 0;
	int ret = 0;

	if (allocator_ready)
		flags = spin_lock_irqsave(&mmu_lock);
	for (; va < end; va += PAGE_SIZE) {
		u64 *pte = pte_of(va, true);

		if (!pte) {
			ret = -1;
			break;
		}
		*pte = va | attrs | PTE_TABLE | PTE_VALID;
	}
	if (allocator_ready) {
		tlb_flush_all();
		spin_unlock_irqrestore(&mmu_lock, flags);
	}
	return ret;
}

/* Called by early_setup with the MMU off, once the pool is placed. */
void mmu_init_tables(void)
{
	struct boot_params *bp = &boot_params;
	u64 parange, ips;

	l1_table = pt_alloc();
	for (int i = 0; i < bp->nr_mem; i++)
		mmu_map(bp->mem[i].base, bp->mem[i].size, mmu_attrs(MT_NORMAL));
	mmu_map((u64)_head, (u64)_etext - (u64)_head, mmu_attrs(MT_NORMAL_RO_EXEC));
	mmu_map((u64)_etext, (u64)_erodata - (u64)_etext, mmu_attrs(MT_NORMAL_RO));

	__asm__ volatile("mrs %0, id_aa64mmfr0_el1" : "=r"(parange));
	ips = MIN(parange & 7, 5ull); /* PARange, capped at 48 bits */
	bp->mair = MAIR_VALUE;
	bp->tcr =
		TCR_T0SZ | TCR_IRGN0_WBWA | TCR_ORGN0_WBWA | TCR_SH0_INNER | TCR_EPD1 | (ips << 32);
	bp->ttbr0 = (u64)l1_table;
	bp->sctlr = SCTLR_EL1_RES1 | SCTLR_M | SCTLR_C | SCTLR_SA | SCTLR_I;
}

/* From here on, table pages come from the page allocator. */
void mmu_allocator_ready(void)
{
	allocator_ready = true;
}

void *ioremap(u64 pa, u64 size)
{
	if (mmu_map(pa, size, mmu_attrs(MT_DEVICE)))
		return NULL;
	return (void *)pa;
}

void arch_page_set_present(void *page, bool present)
{
	unsigned long flags = spin_lock_irqsave(&mmu_lock);
	u64 va = (u64)page, *pte = pte_of(va, false);

	if (pte) {
		*pte = present ? (*pte | PTE_VALID) : (*pte & ~PTE_VALID);
		__asm__ volatile("dsb ishst; tlbi vaae1is, %0; dsb ish; isb" ::"r"(va >> 12)
				 : "memory");
	}
	spin_unlock_irqrestore(&mmu_lock, flags);
}

/* For fault reports: is va mapped, and how? -1 if not mapped. */
int mmu_lookup(u64 va, u64 *attrs)
{
	u64 *pte = pte_of(va, false);

	if (!pte || !(*pte & PTE_VALID))
		return -1;
	if (attrs)
		*attrs = *pte;
	return 0;
}
