/* mm.h - physical pages and kmalloc. Memory is identity mapped, so a page's
 * physical address is its pointer. Exhaustion returns NULL: the caller reports. */
#ifndef MM_H
#define MM_H

#include "types.h"

#define PAGE_SIZE  4096ull
#define PAGE_SHIFT 12

/* Boot: hand the allocator its RAM, then carve out what is in use. */
void page_alloc_add_range(u64 base, u64 size);
void page_alloc_reserve(u64 base, u64 size);
int page_alloc_init(void); /* after all add_range calls, before reserve */

/* n physically contiguous pages, page aligned, not zeroed. */
void *alloc_pages(unsigned long n);
void free_pages(void *p, unsigned long n);
unsigned long page_alloc_free_count(void);
unsigned long page_alloc_total_count(void);

void *kmalloc(size_t size);
void *kzalloc(size_t size);
void kfree(void *p);
/* Bytes currently handed out by kmalloc (leak checks in self-tests). */
size_t kmalloc_in_use(void);
/* Pages kmalloc took from the page allocator for its size classes: it keeps
 * them, so a leak check compares free pages + these before and after. */
unsigned long kmalloc_slab_pages(void);

#endif
