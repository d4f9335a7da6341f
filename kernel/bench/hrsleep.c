/* hrsleep.c - periodic sleeps on a fixed grid (include/hrsleep.h), built on
 * kernel/timer.c's absolute sleep_until_ns(). No shared state. */
#include "hrsleep.h"
#include "kernel.h"
#include "sched.h"
#include "timer.h"

void periodic_start(struct periodic *p, u64 period_ns)
{
	p->period = period_ns ? period_ns : 1;
	p->next = arch_clock_ns() + p->period;
	p->missed = 0;
}

s64 periodic_wait(struct periodic *p)
{
	s64 slack = (s64)(p->next - arch_clock_ns());

	if (slack < 0)
		p->missed++;
	else
		sleep_until_ns(p->next);
	p->next += p->period;
	return slack;
}
