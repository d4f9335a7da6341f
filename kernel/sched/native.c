/* native.c - speed=native's cpu_work(): real instructions instead of a timed wait. A
 * fixed integer loop (native_loop()) runs for a number of iterations per work unit
 * calibrated once, on the biggest CPU at its top OPP, so one unit is the same work on
 * every CPU and a slower CPU really takes longer. Not the emulated models (speed.c,
 * cpu_work() in cpu_work.c). The calibration is written once, before its first reader. */
#include "sched_internal.h"
#include "smp.h"
#include "speed.h"

/* Iterations timed by the calibration: ~1 ms on QEMU under -icount shift=0 (one
 * instruction per ns, ~6 per iteration), ~0.1 ms on a 2.4 GHz Cortex-A73. */
#define NATIVE_CALIB_ITERS 160000ull

static u64 ipns_q16; /* loop iterations per ns-unit, x 2^16; 0: not calibrated */

/* The loop: two independent xorshift64 chains (x ^= x<<13, x>>7, x<<17), so a core
 * that issues two ALU operations per cycle can overlap them and one that cannot does
 * not: 6 shift-xor operations, an add and the loop branch per iteration, all in
 * registers (no loads or stores: nothing beyond L1, not even L1 data). The empty asm
 * keeps the compiler from merging or vectorising iterations, so the instruction
 * stream is the same whatever the optimisation level; noinline, so the calibration,
 * cpu_work() and selftest=validate run the very same instructions. Returns a + b. */
__attribute__((noinline)) u64 native_loop(u64 iters, u64 seed)
{
	u64 a = seed | 1, b = ~seed | 2;

	for (u64 i = 0; i < iters; i++) {
		a ^= a << 13;
		b ^= b << 13;
		a ^= a >> 7;
		b ^= b >> 7;
		a ^= a << 17;
		b ^= b << 17;
		__asm__ volatile("" : "+r"(a), "+r"(b));
	}
	return a + b;
}

struct calib {
	u64 ns;
	u64 sink;
};

/* On the reference CPU, IRQs off (a cross-CPU call): nothing interrupts the timing. */
static void calib_fn(void *arg)
{
	struct calib *c = arg;
	u64 t0 = arch_clock_ns();

	c->sink = native_loop(NATIVE_CALIB_ITERS, t0);
	c->ns = arch_clock_ns() - t0;
}

/* The biggest online CPU (the last of the highest capacity, in DT order). */
static int reference_cpu(void)
{
	int best = -1;

	for (unsigned int c = 0; c < nr_cpu_ids; c++)
		if (cpu_online(c) && (best < 0 || capacity_orig_of(c) >= capacity_orig_of(best)))
			best = (int)c;
	return best;
}

/* Linux has no counterpart (it runs work, it does not make it). Task context. If the
 * reference CPU's policy is not at its top OPP, the rate is scaled by f_max / f_cur
 * (the loop is L1-bound, so it scales with the clock) and the message says so. */
void native_calibrate(void)
{
	int cpu = reference_cpu();
	struct calib c = { 0 };
	unsigned long fs = cpu >= 0 ? arch_scale_freq_capacity(cpu) : SCHED_CAPACITY_SCALE;
	u64 q;

	if (cpu < 0 || smp_call_function_single((unsigned int)cpu, calib_fn, &c) || !c.ns)
		c.ns = NATIVE_CALIB_ITERS; /* cannot time it: one iteration per ns */
	q = (NATIVE_CALIB_ITERS << 16) / c.ns;
	if (fs && fs < SCHED_CAPACITY_SCALE)
		q = q * SCHED_CAPACITY_SCALE / fs;
	WRITE_ONCE(ipns_q16, q ? q : 1);
	printk("native: cpu_work loop calibrated on cpu%d: %llu iterations in %llu ns, "
	       "%llu.%03llu iterations per unit%s\n",
	       cpu, NATIVE_CALIB_ITERS, c.ns, q >> 16, ((q & 0xffff) * 1000) >> 16,
	       fs < SCHED_CAPACITY_SCALE ? " (scaled from f_cur to f_max)" : "");
}

u64 native_iters_per_unit_q16(void)
{
	if (!READ_ONCE(ipns_q16))
		native_calibrate();
	return READ_ONCE(ipns_q16);
}

/* speed=native's cpu_work(units): the loop, for units x the calibrated rate. It is
 * ordinary code: ticks, IPIs and preemption interrupt it (preemption at IRQ exit),
 * and a migration in the middle just continues the loop elsewhere. */
void native_cpu_work(u64 units)
{
	u64 iters = (units * native_iters_per_unit_q16()) >> 16;

	native_loop(iters, units);
}
