/* initrd.h - the initial RAM disk a boot loader leaves in memory and names in
 * the device tree (/chosen linux,initrd-start and linux,initrd-end, one or two
 * cells each), kernel/initrd.c. The kernel does not unpack it: its bytes are
 * one file (an rt-app workload for kernel/bench/bench_rtapp.c). */
#ifndef INITRD_H
#define INITRD_H

#include "dtb.h"
#include "types.h"

/* The range /chosen names: 0, or -1 (with a message if it is malformed). */
int initrd_find(const struct dtb *dt, u64 *start, u64 *end);
/* The arch has checked [start, end) is RAM and reserved it: record it. */
void initrd_set(u64 start, u64 end);
/* The initrd's bytes, or NULL if there is none. */
const void *initrd_get(size_t *len);

#endif
