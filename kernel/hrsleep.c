/* hrsleep.c - absolute and periodic sleeps (include/hrsleep.h). One timer per
 * sleeper, armed on the sleeping CPU; the callback marks it done and wakes
 * the task. Not the timer wheel itself (kernel/timer.c). No shared state. */
#include "hrsleep.h"
#include "kernel.h"
#include "sched.h"
#include "timer.h"

struct hr_sleeper {
	struct timer timer;
	struct task_struct *task;
	volatile bool done;
};

static void hr_wake(struct timer *t)
{
	struct hr_sleeper *s = container_of(t, struct hr_sleeper, timer);
	struct task_struct *task = s->task;	/* s may vanish once done is seen */

	__atomic_store_n(&s->done, true, __ATOMIC_RELEASE);
	wake_up_process(task);
}

void sleep_until_ns(u64 deadline)
{
	struct hr_sleeper s = { .task = current, .done = false };

	if (arch_clock_ns() >= deadline)
		return;
	timer_init(&s.timer, hr_wake);
	arch_irq_disable();
	current->state = TASK_INTERRUPTIBLE;	/* before arming: no lost wakeup */
	timer_add(&s.timer, deadline);
	while (!__atomic_load_n(&s.done, __ATOMIC_ACQUIRE)) {
		schedule();
		arch_irq_disable();
		if (!s.done)
			current->state = TASK_INTERRUPTIBLE;
	}
	current->state = TASK_RUNNING;
	arch_irq_enable();
	timer_cancel(&s.timer);
}

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
