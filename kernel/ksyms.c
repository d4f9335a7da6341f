/* ksyms.c - function names for addresses in the kernel's text, from the
 * table tools/gen_ksyms.py builds into the image (second link, see the
 * Makefile). Offsets are link offsets (the image is linked at 0); the caller
 * subtracts the load address. Read-only data, no locks: safe in panic. */
#include "kernel.h"

extern const u64 ksym_count;
extern const u64 ksym_addr[];
extern const u32 ksym_size[];
extern const u32 ksym_name[];
extern const char ksym_strtab[];

/* Name of the function holding link offset `off`, its offset in it and its
 * size; NULL if no symbol covers `off`. Binary search: the table is sorted. */
const char *ksym_lookup(u64 off, u64 *symoff, u64 *size)
{
	u64 lo = 0, hi = ksym_count;

	while (lo < hi) { /* first entry above off */
		u64 mid = lo + (hi - lo) / 2;

		if (ksym_addr[mid] <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || off - ksym_addr[lo - 1] >= ksym_size[lo - 1])
		return NULL;
	*symoff = off - ksym_addr[lo - 1];
	*size = ksym_size[lo - 1];
	return &ksym_strtab[ksym_name[lo - 1]];
}
