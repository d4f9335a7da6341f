/* page_alloc.c - physical page allocator: one bitmap over the span of RAM
 * that the device tree describes (holes and reservations marked used),
 * first-fit search for n contiguous pages from a rotating hint.
 * Deliberately simple: a few hundred MiB is a few KiB of bitmap.
 * Not kmalloc (kmalloc.c). All state under page_lock. */
#include "kernel.h"
#include "mm.h"
#include "spinlock.h"

#define MAX_RANGES 16

static struct {
	u64 base, size;
} ranges[MAX_RANGES];
static int nr_ranges;
static u64 span_base, nr_pages, *bitmap; /* bit set = page in use */
static unsigned long nr_free, nr_total, hint;
static spinlock_t page_lock;

static inline bool test_bit(u64 i)
{
	return bitmap[i / 64] >> (i % 64) & 1;
}
static inline void set_bit(u64 i)
{
	bitmap[i / 64] |= 1ull << (i % 64);
}
static inline void clear_bit(u64 i)
{
	bitmap[i / 64] &= ~(1ull << (i % 64));
}

void page_alloc_add_range(u64 base, u64 size)
{
	u64 end = ALIGN_DOWN(base + size, PAGE_SIZE);

	base = ALIGN_UP(base, PAGE_SIZE);
	if (end <= base)
		return;
	if (nr_ranges == MAX_RANGES) {
		printk("mm: more than %d memory ranges, ignoring %#llx\n", MAX_RANGES, base);
		return;
	}
	ranges[nr_ranges].base = base;
	ranges[nr_ranges].size = end - base;
	nr_ranges++;
}

/* Mark [base, base+size) used; pages outside RAM are ignored. */
void page_alloc_reserve(u64 base, u64 size)
{
	u64 first = ALIGN_DOWN(base, PAGE_SIZE), end = ALIGN_UP(base + size, PAGE_SIZE);
	unsigned long flags = spin_lock_irqsave(&page_lock);

	for (u64 a = first; a < end; a += PAGE_SIZE) {
		u64 i = (a - span_base) / PAGE_SIZE;

		if (a < span_base || i >= nr_pages || test_bit(i))
			continue;
		set_bit(i);
		nr_free--;
	}
	spin_unlock_irqrestore(&page_lock, flags);
}

/* The bitmap lives in the first RAM range big enough for it; the caller
 * reserves the kernel and friends afterwards, so place it at that range's
 * end, away from the kernel image at its start. */
int page_alloc_init(void)
{
	u64 end = 0, bytes;
	int i;

	if (!nr_ranges)
		return -1;
	span_base = ~0ull;
	for (i = 0; i < nr_ranges; i++) {
		span_base = MIN(span_base, ranges[i].base);
		end = MAX(end, ranges[i].base + ranges[i].size);
	}
	nr_pages = (end - span_base) / PAGE_SIZE;
	bytes = ALIGN_UP(ALIGN_UP(nr_pages, 64) / 8, PAGE_SIZE);
	for (i = 0; i < nr_ranges && ranges[i].size < bytes + PAGE_SIZE; i++)
		;
	if (i == nr_ranges)
		return -1;
	bitmap = (u64 *)(ranges[i].base + ranges[i].size - bytes);
	memset(bitmap, 0xff, bytes);
	for (i = 0; i < nr_ranges; i++) {
		u64 first = (ranges[i].base - span_base) / PAGE_SIZE;

		for (u64 p = 0; p < ranges[i].size / PAGE_SIZE; p++)
			clear_bit(first + p);
		nr_free += ranges[i].size / PAGE_SIZE;
	}
	nr_total = nr_free;
	page_alloc_reserve((u64)bitmap, bytes);
	return 0;
}

void *alloc_pages(unsigned long n)
{
	unsigned long flags;
	u64 start, run = 0, i, tries;

	if (!n || !bitmap)
		return NULL;
	flags = spin_lock_irqsave(&page_lock);
	if (n > nr_free)
		goto fail;
	/* First fit from the hint, wrapping once. */
	for (tries = 0, i = hint, start = hint; tries < nr_pages + n; tries++, i++) {
		if (i == nr_pages) {
			i = 0;
			run = 0;
		}
		if (!(i % 64) && bitmap[i / 64] == ~0ull && i + 64 <= nr_pages) {
			i += 63;
			tries += 63;
			run = 0;
			continue;
		}
		if (test_bit(i)) {
			run = 0;
			continue;
		}
		if (!run++)
			start = i;
		if (run == n) {
			for (u64 p = start; p < start + n; p++)
				set_bit(p);
			nr_free -= n;
			hint = start + n;
			spin_unlock_irqrestore(&page_lock, flags);
			return (void *)(span_base + start * PAGE_SIZE);
		}
	}
fail:
	spin_unlock_irqrestore(&page_lock, flags);
	return NULL;
}

void free_pages(void *p, unsigned long n)
{
	u64 first = ((u64)p - span_base) / PAGE_SIZE;
	unsigned long flags;

	if (!p)
		return;
	flags = spin_lock_irqsave(&page_lock);
	for (u64 i = first; i < first + n && i < nr_pages; i++) {
		if (WARN_ON_ONCE(!test_bit(i))) /* double free */
			continue;
		clear_bit(i);
		nr_free++;
	}
	spin_unlock_irqrestore(&page_lock, flags);
}

unsigned long page_alloc_free_count(void)
{
	return READ_ONCE(nr_free);
}

unsigned long page_alloc_total_count(void)
{
	return nr_total;
}
