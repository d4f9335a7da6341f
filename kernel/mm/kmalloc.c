/* kmalloc.c - small allocations in power-of-two size classes (16 B .. 2 KiB)
 * carved from pages, larger ones as whole pages. Each block carries a 16-byte
 * header naming its class, so kfree needs no size. Not the page allocator
 * (page_alloc.c). Free lists under kmalloc_lock. */
#include "kernel.h"
#include "mm.h"
#include "spinlock.h"

#define MIN_SHIFT  4
#define MAX_SHIFT  11
#define NR_CLASSES (MAX_SHIFT - MIN_SHIFT + 1)
#define HDR	   16
#define MAGIC	   0x6b6d616cu /* "kmal" */

struct header {
	u32 magic;
	u32 class; /* size class, or NR_CLASSES for page blocks */
	u64 pages; /* page blocks: number of pages */
};

struct free_block {
	struct free_block *next;
};

static struct free_block *free_list[NR_CLASSES];
static spinlock_t kmalloc_lock;
static size_t in_use;
static unsigned long slab_pages; /* pages carved into size classes (kept, never returned) */

static int refill(unsigned int c)
{
	size_t sz = 1ul << (c + MIN_SHIFT);
	u8 *page = alloc_pages(1);

	if (!page)
		return -1;
	slab_pages++;
	for (size_t off = 0; off + sz <= PAGE_SIZE; off += sz) {
		struct free_block *b = (void *)(page + off);

		b->next = free_list[c];
		free_list[c] = b;
	}
	return 0;
}

void *kmalloc(size_t size)
{
	size_t total = size + HDR;
	struct header *h;
	unsigned long flags;
	unsigned int c = 0;

	if (total > (1ul << MAX_SHIFT)) {
		u64 pages = ALIGN_UP(total, PAGE_SIZE) / PAGE_SIZE;

		h = alloc_pages(pages);
		if (!h)
			return NULL;
		h->class = NR_CLASSES;
		h->pages = pages;
		h->magic = MAGIC;
		flags = spin_lock_irqsave(&kmalloc_lock);
		in_use += pages * PAGE_SIZE;
		spin_unlock_irqrestore(&kmalloc_lock, flags);
		return (u8 *)h + HDR;
	}
	while ((1ul << (c + MIN_SHIFT)) < total)
		c++;
	flags = spin_lock_irqsave(&kmalloc_lock);
	if (!free_list[c] && refill(c)) {
		spin_unlock_irqrestore(&kmalloc_lock, flags);
		return NULL;
	}
	h = (struct header *)free_list[c];
	free_list[c] = free_list[c]->next;
	in_use += 1ul << (c + MIN_SHIFT);
	spin_unlock_irqrestore(&kmalloc_lock, flags);
	h->magic = MAGIC;
	h->class = c;
	h->pages = 0;
	return (u8 *)h + HDR;
}

void *kzalloc(size_t size)
{
	void *p = kmalloc(size);

	if (p)
		memset(p, 0, size);
	return p;
}

void kfree(void *p)
{
	struct header *h;
	unsigned long flags;

	if (!p)
		return;
	h = (struct header *)((u8 *)p - HDR);
	if (WARN_ON_ONCE(h->magic != MAGIC || h->class > NR_CLASSES))
		return; /* not ours or corrupted: leak rather than corrupt more */
	h->magic = 0;
	flags = spin_lock_irqsave(&kmalloc_lock);
	if (h->class == NR_CLASSES) {
		in_use -= h->pages * PAGE_SIZE;
		spin_unlock_irqrestore(&kmalloc_lock, flags);
		free_pages(h, h->pages);
		return;
	}
	in_use -= 1ul << (h->class + MIN_SHIFT);
	((struct free_block *)h)->next = free_list[h->class];
	free_list[h->class] = (struct free_block *)h;
	spin_unlock_irqrestore(&kmalloc_lock, flags);
}

size_t kmalloc_in_use(void)
{
	return READ_ONCE(in_use);
}

unsigned long kmalloc_slab_pages(void)
{
	return READ_ONCE(slab_pages);
}
