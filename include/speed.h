/* speed.h - the emulated speed of all code (kernel/sched/speed.c): the boot
 * option speed=all|work|native and the hooks where a slow CPU pays its stall. */
#ifndef SPEED_H
#define SPEED_H

#include "types.h"

enum speed_model {
	SPEED_ALL,	/* every instruction at capacity x f_cur / f_max (QEMU default) */
	SPEED_WORK,	/* only cpu_work() is scaled (the older model) */
	SPEED_NATIVE,	/* no emulation (real boards) */
};
extern enum speed_model speed_model;

struct dtb;
void speed_init(const struct dtb *dt);	/* from bootargs and the tree, once */
const char *speed_model_name(void);
void speed_pay(void);			/* before effects reach other CPUs */
void speed_busy_end(bool pay);		/* IRQs off: idle (pay) or cpu_work's wait */
void speed_busy_begin(void);		/* IRQs off: executing again */
u64 speed_stalled_ns(unsigned int cpu);	/* stalled so far */
/* IRQs off: the arch's IRQ entry, around its handlers (after the last end of
 * interrupt comes the exit, which pays what the handlers owed). */
void speed_irq_enter(void);
void speed_irq_exit(void);
void speed_set_model(enum speed_model m);	/* at run time (self-tests) */

#endif
