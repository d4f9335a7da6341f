/* hrsleep.h - high-resolution sleeps on the per-CPU one-shot timers
 * (kernel/bench/hrsleep.c): relative, absolute (arch_clock_ns time) and periodic,
 * the three kinds rt-app's sleep and timer events need. Relative and absolute
 * sleeps are sleep_ns()/sleep_until_ns() of include/timer.h. */
#ifndef HRSLEEP_H
#define HRSLEEP_H

#include "timer.h" /* sleep_ns(), sleep_until_ns() */
#include "types.h"

/* A periodic activation: each periodic_wait() sleeps until the next period
 * boundary. Boundaries stay on the grid start + k * period even when one is
 * missed (rt-app's absolute timer mode). */
struct periodic {
	u64 next; /* the next boundary */
	u64 period;
	u64 missed; /* boundaries already past when waited for */
};

void periodic_start(struct periodic *p, u64 period_ns); /* first boundary: now + period */
/* Sleeps to the next boundary; returns the slack (boundary - now at the call,
 * negative when late) and advances to the following one. */
s64 periodic_wait(struct periodic *p);

#endif
