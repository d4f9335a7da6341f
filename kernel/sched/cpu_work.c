/* cpu_work.c - the emulated work primitive cpu_work() (docs/design.md, "The emulated
 * machine"): running time is credited as work at capacity_orig/1024 x f_cur/f_max
 * (account_cpu_work(), from each class's update_curr), while the CPU waits in wfi until
 * the work is done. Not the speed of the rest of the code (speed.c) nor speed=native's
 * loop (native.c). A task's work_done is written under its rq->lock. Linux has no such
 * primitive: its tasks execute their work. */
#include "sched_internal.h"
#include "speed.h"

/* Running time becomes work at capacity_orig/1024 x f_cur/f_max: the same
 * scaling that invariance applies to PELT time. Called by update_curr. */
void account_cpu_work(struct rq *rq, struct task_struct *p, u64 delta_exec)
{
	int cpu = (int)rq->cpu;

	lockdep_assert_held(&rq->lock);
	p->work_done += delta_exec * arch_scale_cpu_capacity(cpu) / SCHED_CAPACITY_SCALE *
			arch_scale_freq_capacity(cpu) / SCHED_CAPACITY_SCALE;
}

static void update_curr_now(void)
{
	unsigned long flags = arch_irq_save();
	struct rq *rq = this_rq();

	spin_lock(&rq->lock);
	update_rq_clock(rq);
	if (current->sched_class->update_curr)
		current->sched_class->update_curr(rq);
	spin_unlock(&rq->lock);
	arch_irq_restore(flags);
}

/* The task stays running (busy for the scheduler and PELT); the CPU sleeps
 * in wfi until the computed completion time. Ticks, IPIs and preemption
 * interrupt it as they would a busy loop; after each, what is left is
 * recomputed from the work actually credited, so migration and OPP changes
 * in the middle keep the total exact. */
static void cpu_work_wakeup(struct timer *t)
{
	/* Nothing to do: the interrupt itself ends the wait in cpu_work(). */
}

void cpu_work(u64 units)
{
	struct task_struct *p = current;
	struct timer deadline;
	u64 target;

	if (speed_model == SPEED_NATIVE) { /* real instructions (native.c) */
		native_cpu_work(units);
		return;
	}
	timer_init(&deadline, cpu_work_wakeup);
	update_curr_now();
	target = p->work_done + units;
	for (;;) {
		u64 left, rate, owed, t0, paid;
		unsigned long flags;
		int cpu;

		update_curr_now();
		if (p->work_done >= target)
			break;
		left = target - p->work_done;
		flags = arch_irq_save();
		cpu = (int)arch_cpu_id();
		rate = arch_scale_cpu_capacity(cpu) * arch_scale_freq_capacity(cpu); /* x 2^20 */
		/* A refill still owed (cache_charge()) comes first and does no work: the
		 * wait is longer by it, and what of it passed is taken back from the work
		 * credited for the wait (update_curr credits all running time). */
		owed = p->cache.uncredited;
		paid = p->cache.stalled_ns;
		t0 = arch_clock_ns();
		timer_add(&deadline, t0 + owed + (rate ? (left << 20) / rate + 1 : left));
		/* Interrupts are taken inside arch_idle(), and a preemption there
		 * is a preemption of this task, as for a busy loop. */
		if (!READ_ONCE(this_rq()->need_resched)) {
			speed_busy_end(false); /* the wait is not execution */
			arch_idle();
			speed_busy_begin();
		}
		if (owed) { /* cumulative work_done: the loop's next update credits the wait */
			u64 done = MIN(owed, arch_clock_ns() - t0);

			/* Preempted in the wait, it paid what was owed as a stall on leaving
			 * (cache_pay()), and what it owes now is a new refill: take nothing
			 * back, and never more than is owed (it would wrap to 2^64 ns). */
			if (p->cache.stalled_ns != paid)
				done = 0;
			done = MIN(done, p->cache.uncredited);

			p->cache.uncredited -= done;
			p->work_done -= MIN(p->work_done, (done * rate) >> 20);
		}
		arch_irq_restore(flags);
		if (READ_ONCE(this_rq()->need_resched))
			__schedule(true);
	}
	timer_cancel(&deadline);
}
