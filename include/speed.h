/* speed.h - the emulated speed of all code (kernel/sched/speed.c): the boot
 * option speed=all|exact|work|native and the hooks where a slow CPU pays its stall. */
#ifndef SPEED_H
#define SPEED_H

#include "types.h"

enum speed_model {
	SPEED_ALL,    /* every instruction at capacity x f_cur / f_max (QEMU default) */
	SPEED_WORK,   /* only cpu_work() is scaled (the older model) */
	SPEED_NATIVE, /* no emulation (real boards) */
	SPEED_EXACT,  /* each CPU's own instructions (QEMU plugin) at R x its speed */
};
extern enum speed_model speed_model;

/* The models that stall a CPU for its own code. */
static inline bool speed_stalls(void)
{
	return speed_model == SPEED_ALL || speed_model == SPEED_EXACT;
}

struct dtb;
void speed_init(const struct dtb *dt); /* from bootargs and the tree, once */
void speed_exact_start(void);	       /* speed=exact, once capacities and OPPs are known */
const char *speed_model_name(void);
unsigned int speed_clock_dilation(void); /* speed_dilate=D: the clock D times slower */
/* The hooks cost a load and a compare unless speed=all or exact. */
void __speed_pay(void);
void __speed_busy_end(bool pay);
void __speed_busy_begin(void);
void __speed_irq_enter(void);
void __speed_irq_handled(void);
void __speed_irq_exit(void);
void __speed_spin_begin(void);
void __speed_spin_end(void);

static inline void speed_pay(void) /* before effects reach other CPUs */
{
	if (speed_stalls())
		__speed_pay();
}

static inline void speed_busy_end(bool pay) /* IRQs off: idle (pay), cpu_work's wait */
{
	if (speed_stalls())
		__speed_busy_end(pay);
}

static inline void speed_busy_begin(void) /* IRQs off: executing again */
{
	if (speed_stalls())
		__speed_busy_begin();
}
u64 speed_stalled_ns(unsigned int cpu); /* stalled so far */
/* IRQs off: stall ns, not counted as this CPU's execution (a cache refill). */
bool speed_stall_plain(u64 ns);
struct task_struct;
/* finish_task_switch(): the migration cost (kernel/sched/cache.c) of next on cpu. */
u64 cache_switch(struct task_struct *prev, struct task_struct *next, int cpu);
/* IRQs off: the arch's IRQ entry, around its handlers (after the last end of
 * interrupt comes the exit, which pays what the handlers owed). */
static inline void speed_irq_enter(void)
{
	if (speed_stalls())
		__speed_irq_enter();
}

/* IRQs off: the handlers are done (every end of interrupt sent), their IRQ time
 * still running: speed=exact stalls for the handlers' own instructions here. */
static inline void speed_irq_handled(void)
{
	if (speed_model == SPEED_EXACT)
		__speed_irq_handled();
}

/* IRQs off, __schedule() before it switches: speed=exact stalls for the outgoing
 * task's instructions while it is still current, so its runtime and PELT running
 * time hold its slowness, not the next task's or idle's. */
static inline void speed_switch(void)
{
	if (speed_model == SPEED_EXACT)
		__speed_pay();
}

/* Around a spin-wait (a contended lock, a flag another CPU sets): speed=exact charges
 * the waiter its time, not its spinning instructions. */
static inline void speed_spin_begin(void)
{
	if (speed_model == SPEED_EXACT)
		__speed_spin_begin();
}

static inline void speed_spin_end(void)
{
	if (speed_model == SPEED_EXACT)
		__speed_spin_end();
}

static inline void speed_irq_exit(void)
{
	if (speed_stalls())
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
