/* speed.h - the emulated speed of all code (kernel/sched/speed.c): the boot
 * option speed=all|work|native and the hooks where a slow CPU pays its stall. */
#ifndef SPEED_H
#define SPEED_H

#include "types.h"

enum speed_model {
	SPEED_ALL,    /* every instruction at capacity x f_cur / f_max (QEMU default) */
	SPEED_WORK,   /* only cpu_work() is scaled (the older model) */
	SPEED_NATIVE, /* no emulation (real boards) */
};
extern enum speed_model speed_model;

struct dtb;
void speed_init(const struct dtb *dt); /* from bootargs and the tree, once */
const char *speed_model_name(void);
/* The hooks cost a load and a compare unless speed=all. */
void __speed_pay(void);
void __speed_busy_end(bool pay);
void __speed_busy_begin(void);
void __speed_irq_enter(void);
void __speed_irq_exit(void);

static inline void speed_pay(void) /* before effects reach other CPUs */
{
	if (speed_model == SPEED_ALL)
		__speed_pay();
}

static inline void speed_busy_end(bool pay) /* IRQs off: idle (pay), cpu_work's wait */
{
	if (speed_model == SPEED_ALL)
		__speed_busy_end(pay);
}

static inline void speed_busy_begin(void) /* IRQs off: executing again */
{
	if (speed_model == SPEED_ALL)
		__speed_busy_begin();
}
u64 speed_stalled_ns(unsigned int cpu); /* stalled so far */
/* IRQs off: the arch's IRQ entry, around its handlers (after the last end of
 * interrupt comes the exit, which pays what the handlers owed). */
static inline void speed_irq_enter(void)
{
	if (speed_model == SPEED_ALL)
		__speed_irq_enter();
}

static inline void speed_irq_exit(void)
{
	if (speed_model == SPEED_ALL)
		__speed_irq_exit();
}
void speed_set_model(enum speed_model m); /* at run time (self-tests) */

/* speed=native (kernel/sched/native.c): cpu_work() runs native_loop() for real, its
 * iterations per work unit (ns on the biggest CPU at its top OPP) calibrated once. */
u64 native_loop(u64 iters, u64 seed);
void native_calibrate(void);	     /* task context; on the biggest CPU */
u64 native_iters_per_unit_q16(void); /* x 2^16; calibrates on first use */
void native_cpu_work(u64 units);
bool speed_emulated_machine(void); /* the tree is QEMU's or one of ours, not a board */

#endif
