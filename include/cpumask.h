/* cpumask.h - sets of logical CPUs (Linux: include/linux/cpumask.h): a bitmap
 * of NR_CPUS bits, with Linux's names and Linux's pointer arguments.
 *
 * The API (every mask argument is a pointer, as in Linux):
 *   cpumask_of(cpu)                 const cpumask_t * with only `cpu` set (a table)
 *   cpumask_test_cpu(cpu, m)        is cpu in m
 *   cpumask_set_cpu/clear_cpu(c, m) ATOMIC (Linux: set_bit): for shared masks
 *   __cpumask_set_cpu/clear_cpu     plain stores: for masks one CPU owns
 *   cpumask_clear(m), cpumask_setall(m), cpumask_copy(d, s) (or plain `d = s`)
 *   cpumask_and(d, a, b), cpumask_andnot(d, a, b)   d = a & b, a & ~b; true: d not empty
 *   cpumask_or(d, a, b)             d = a | b
 *   cpumask_empty, cpumask_weight, cpumask_equal, cpumask_subset(a, b) (a <= b),
 *   cpumask_intersects, cpumask_first (NR_CPUS: none), cpumask_next(n, m)
 *   for_each_cpu(cpu, m)            ascending; m is re-read each step
 *   for_each_cpu_wrap(cpu, m, start) start..NR_CPUS-1, then 0..start-1
 *   cpumask_bits(m)[0]              the first 64 CPUs as a u64 (printing, tests)
 * Converting old u64 code: `m & cpumask_of(c)` -> cpumask_test_cpu(c, &m);
 * `m |= cpumask_of(c)` -> __cpumask_set_cpu(c, &m); `a & b` -> cpumask_and(&d, &a, &b)
 * (or cpumask_intersects when only tested); `a & ~b` -> cpumask_andnot; `m = 0` ->
 * cpumask_clear(&m); `!m` -> cpumask_empty(&m); `__builtin_ctzll(m)` -> cpumask_first(&m).
 * 256 CPUs make a mask 32 bytes: too big to pass by value everywhere (AAPCS64
 * copies it to the stack anyway), so pointers, as Linux; assignment copies. */
#ifndef CPUMASK_H
#define CPUMASK_H

#include "types.h"

#define CPUMASK_WORDS ((NR_CPUS + 63) / 64)

typedef struct cpumask {
	u64 bits[CPUMASK_WORDS];
} cpumask_t;

#define cpumask_bits(m) ((m)->bits)

/* Tests and printing: the first 64 CPUs as a u64, and back (u64 arithmetic in
 * tests that run on machines of at most 64 CPUs). */
static inline u64 cpumask_u64(const struct cpumask *m)
{
	return m->bits[0];
}
static inline struct cpumask cpumask_from_u64(u64 bits)
{
	struct cpumask m = { { bits } };

	return m;
}

/* Linux: cpu_bit_bitmap. One mask per CPU, lib/cpumask.c. */
extern const cpumask_t cpu_bit_masks[NR_CPUS];
#define cpumask_of(cpu) (&cpu_bit_masks[(cpu)])

static inline bool cpumask_test_cpu(unsigned int cpu, const cpumask_t *m)
{
	/* A relaxed load: one ldr, never torn or cached across a loop. */
	return cpu < NR_CPUS &&
	       (__atomic_load_n(&m->bits[cpu / 64], __ATOMIC_RELAXED) >> (cpu % 64)) & 1;
}
static inline void __cpumask_set_cpu(unsigned int cpu, cpumask_t *m)
{
	m->bits[cpu / 64] |= 1ull << (cpu % 64);
}
static inline void __cpumask_clear_cpu(unsigned int cpu, cpumask_t *m)
{
	m->bits[cpu / 64] &= ~(1ull << (cpu % 64));
}
static inline void cpumask_set_cpu(unsigned int cpu, cpumask_t *m)
{
	__atomic_fetch_or(&m->bits[cpu / 64], 1ull << (cpu % 64), __ATOMIC_SEQ_CST);
}
static inline void cpumask_clear_cpu(unsigned int cpu, cpumask_t *m)
{
	__atomic_fetch_and(&m->bits[cpu / 64], ~(1ull << (cpu % 64)), __ATOMIC_SEQ_CST);
}
static inline void cpumask_clear(cpumask_t *m)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		m->bits[i] = 0;
}
static inline void cpumask_setall(cpumask_t *m)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		m->bits[i] = ~0ull;
}
static inline void cpumask_copy(cpumask_t *d, const cpumask_t *s)
{
	*d = *s;
}
static inline bool cpumask_and(cpumask_t *d, const cpumask_t *a, const cpumask_t *b)
{
	u64 any = 0;

	for (int i = 0; i < CPUMASK_WORDS; i++)
		any |= (d->bits[i] = a->bits[i] & b->bits[i]);
	return any != 0;
}
static inline bool cpumask_andnot(cpumask_t *d, const cpumask_t *a, const cpumask_t *b)
{
	u64 any = 0;

	for (int i = 0; i < CPUMASK_WORDS; i++)
		any |= (d->bits[i] = a->bits[i] & ~b->bits[i]);
	return any != 0;
}
static inline void cpumask_or(cpumask_t *d, const cpumask_t *a, const cpumask_t *b)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		d->bits[i] = a->bits[i] | b->bits[i];
}
static inline bool cpumask_empty(const cpumask_t *m)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		if (m->bits[i])
			return false;
	return true;
}
static inline bool cpumask_equal(const cpumask_t *a, const cpumask_t *b)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		if (a->bits[i] != b->bits[i])
			return false;
	return true;
}
static inline bool cpumask_subset(const cpumask_t *a, const cpumask_t *b)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		if (a->bits[i] & ~b->bits[i])
			return false;
	return true;
}
static inline bool cpumask_intersects(const cpumask_t *a, const cpumask_t *b)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		if (a->bits[i] & b->bits[i])
			return true;
	return false;
}
static inline unsigned int cpumask_weight(const cpumask_t *m)
{
	unsigned int n = 0;

	for (int i = 0; i < CPUMASK_WORDS; i++)
		for (u64 w = m->bits[i]; w; w &= w - 1) /* no libgcc (__popcountdi2) */
			n++;
	return n;
}
/* The first set bit at or after `start`, NR_CPUS if none (Linux: find_next_bit). */
static inline unsigned int cpumask_find_from(const cpumask_t *m, unsigned int start)
{
	for (unsigned int i = start / 64; start < NR_CPUS && i < CPUMASK_WORDS; i++) {
		/* relaxed (READ_ONCE): shared masks change under the walk; with
		 * plain loads a 64-CPU boot ran differently (docs/machines.md, "More CPUs") */
		u64 w = __atomic_load_n(&m->bits[i], __ATOMIC_RELAXED);

		if (i == start / 64)
			w &= ~0ull << (start % 64);
		if (w)
			return i * 64 + (unsigned int)__builtin_ctzll(w);
	}
	return NR_CPUS;
}
static inline unsigned int cpumask_first(const cpumask_t *m)
{
	return cpumask_find_from(m, 0);
}
static inline unsigned int cpumask_next(int n, const cpumask_t *m)
{
	return cpumask_find_from(m, (unsigned int)(n + 1));
}
/* Linux: cpumask_next_wrap(). After n, going round from `start`; NR_CPUS: done. */
static inline unsigned int cpumask_next_wrap(int n, const cpumask_t *m, unsigned int start)
{
	unsigned int next;

	if ((unsigned int)n >= start) {
		next = cpumask_find_from(m, (unsigned int)(n + 1));
		if (next < NR_CPUS)
			return next;
		next = cpumask_first(m);
	} else {
		next = cpumask_find_from(m, (unsigned int)(n + 1));
	}
	return next < start ? next : NR_CPUS;
}
static inline unsigned int cpumask_first_wrap(const cpumask_t *m, unsigned int start)
{
	unsigned int f = cpumask_find_from(m, start);

	if (f < NR_CPUS)
		return f;
	f = cpumask_first(m);
	return f < start ? f : NR_CPUS;
}

#define for_each_cpu(cpu, mask)                                                                    \
	for ((cpu) = cpumask_first(mask); (cpu) < NR_CPUS; (cpu) = cpumask_next((int)(cpu), (mask)))
#define for_each_cpu_wrap(cpu, mask, start)                                                        \
	for ((cpu) = cpumask_first_wrap((mask), (start)); (cpu) < NR_CPUS;                         \
	     (cpu) = cpumask_next_wrap((int)(cpu), (mask), (start)))

#endif
