/* cpumask.c - the constant one-CPU masks cpumask_of() points into (Linux:
 * cpu_bit_bitmap). NR_CPUS x 32 bytes of rodata, built by the compiler. */
#include "cpumask.h"

#define M1(c)  [(c)] = { .bits = { [(c) / 64] = 1ull << ((c) % 64) } }
#define M4(c)  M1(c), M1((c) + 1), M1((c) + 2), M1((c) + 3)
#define M16(c) M4(c), M4((c) + 4), M4((c) + 8), M4((c) + 12)
#define M64(c) M16(c), M16((c) + 16), M16((c) + 32), M16((c) + 48)

_Static_assert(NR_CPUS == 64 || NR_CPUS == 256, "extend the table below");
const cpumask_t cpu_bit_masks[NR_CPUS] = {
	M64(0),
#if NR_CPUS > 64
	M64(64),
	M64(128),
	M64(192),
#endif
};
