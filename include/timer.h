/* timer.h - per-CPU one-shot timers and the scheduler tick, multiplexed on
 * each CPU's single arch deadline (kernel/timer.c). Callbacks run in IRQ
 * context on the CPU the timer was armed on (or, armed by timer_start() while
 * its callback ran, on the CPU running that callback). */
#ifndef TIMER_H
#define TIMER_H

#include "list.h"
#include "types.h"

#define HZ	  250
#define TICK_NSEC (1000000000ull / HZ)

struct timer {
	u64 expires; /* absolute, ns (arch_clock_ns) */
	void (*fn)(struct timer *t);
	struct list_head node; /* empty when not queued */
	/* Its base: the CPU it is queued on, or whose interrupt ran its callback
	 * last; -1 never armed, -2 moving between bases. Changed only under that
	 * base's lock while it runs no callback of this timer (kernel/timer.c). */
	int cpu;
};

void timer_init(struct timer *t, void (*fn)(struct timer *t));
/* Wait for a callback in flight, then arm on the calling CPU (replacing a
 * pending arming). Never from t's own callback. */
void timer_add(struct timer *t, u64 expires);
/* Linux: del_timer_sync(), hrtimer_cancel(): true if it was pending. On return
 * t is neither queued nor running its callback on any CPU (the caller may free
 * it). Never from t's own callback. O(1) in the number of CPUs. */
bool timer_cancel(struct timer *t);
/* Linux: hrtimer_start(): arm on the calling CPU without waiting for a
 * callback in flight (it may be spinning on a lock the caller holds); while
 * that callback runs, t is queued on the CPU running it instead, as Linux's
 * switch_hrtimer_base() keeps it. */
void timer_start(struct timer *t, u64 expires);
/* Linux: hrtimer_try_to_cancel(): 1 dequeued, 0 not queued, -1 callback
 * running (t stays queued if it was re-armed meanwhile). */
int timer_try_cancel(struct timer *t);

/* Sleep the current task for ns of (emulated) time. */
void sleep_ns(u64 ns);
/* Sleep until arch_clock_ns() >= deadline; returns at once if it has passed. */
void sleep_until_ns(u64 deadline);
static inline void msleep(u64 ms)
{
	sleep_ns(ms * 1000000ull);
}

void timer_cpu_init(unsigned int cpu, unsigned int nr_cpus); /* starts the tick */
void timer_interrupt(void);				     /* from the arch timer IRQ */
u64 tick_count(unsigned int cpu);
/* NO_HZ idle, from the idle loop (IRQs off): stop this CPU's tick while it
 * idles; restart it when it leaves idle. Off with the boot option nohz=off. */
void tick_nohz_idle_stop_tick(void);
void tick_nohz_idle_exit(void);
bool tick_nohz_tick_stopped_cpu(unsigned int cpu);
bool tick_nohz_active(void);			 /* not turned off by nohz=off */
u64 tick_nohz_get_sleep_length(u64 *delta_tick); /* ns to the next timer event; IRQs off */
/* CPU hotplug: move the pending timers of offline CPU `dead` to the calling
 * CPU (Linux: timers_dead_cpu()); returns how many moved. */
unsigned int timers_dead_cpu(unsigned int dead);

#endif
