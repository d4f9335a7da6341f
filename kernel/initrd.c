/* initrd.c - where the boot loader's initrd is (include/initrd.h). The arch's
 * memory setup finds it before anything is allocated, checks it lies in RAM
 * and keeps the page allocator off it; afterwards it is read-only data.
 * Written once at boot on the boot CPU, read by anyone after. */
#include "initrd.h"
#include "kernel.h"

static u64 initrd_start, initrd_end;

int initrd_find(const struct dtb *dt, u64 *start, u64 *end)
{
	int chosen = dtb_path(dt, "/chosen");

	if (chosen < 0 || dtb_prop_u64(dt, chosen, "linux,initrd-start", start))
		return -1;
	if (dtb_prop_u64(dt, chosen, "linux,initrd-end", end) || *end <= *start) {
		printk("initrd: /chosen has linux,initrd-start but no valid linux,initrd-end: "
		       "ignored\n");
		return -1;
	}
	return 0;
}

void initrd_set(u64 start, u64 end)
{
	initrd_start = start;
	initrd_end = end;
	printk("initrd: %llu bytes at %#llx\n", end - start, start);
}

const void *initrd_get(size_t *len)
{
	*len = (size_t)(initrd_end - initrd_start);
	return initrd_end ? (const void *)initrd_start : NULL;
}
