/* core.c - run queues, schedule(), wakeups, the tick, affinity.
 *
 * PLACEHOLDER POLICY: until the scheduler issue lands (CFS, RT, PELT,
 * capacity-aware placement), each CPU runs its runnable tasks round robin
 * from a FIFO, with a time slice of SLICE_NS, and a waking or new task goes
 * to its previous CPU if allowed, else to the least loaded allowed CPU.
 * The mechanics here (locking, wakeup races, migration) are meant to stay.
 *
 * Lock order: task->pi_lock, then rq->lock; two rq locks lowest CPU first.
 * The rq lock is held across the context switch and released by the task
 * switched to (finish_task_switch), as in Linux. */
#include "kernel.h"
#include "sched.h"
#include "smp.h"
#include "timer.h"

#define SLICE_NS (3 * TICK_NSEC)

struct rq {
	spinlock_t lock;
	struct list_head queue;	/* runnable, not running */
	unsigned int nr_running;	/* queued + running (idle excluded) */
	struct task_struct *curr, *idle;
	bool need_resched;
	u64 nr_switches;
} __attribute__((aligned(64)));

static struct rq runqueues[NR_CPUS];
#define cpu_rq(cpu) (&runqueues[cpu])
#define this_rq() cpu_rq(arch_cpu_id())

void sched_init_cpu(unsigned int cpu, struct task_struct *idle)
{
	struct rq *rq = cpu_rq(cpu);

	spin_lock_init(&rq->lock);
	INIT_LIST_HEAD(&rq->queue);
	rq->curr = rq->idle = idle;
	idle->cpu = (int)cpu;
	idle->on_cpu = 1;
	idle->is_idle = true;
	idle->state = TASK_RUNNING;
}

bool need_resched(void)
{
	return READ_ONCE(this_rq()->need_resched);
}

static void enqueue_task(struct rq *rq, struct task_struct *p)
{
	list_add_tail(&p->run_list, &rq->queue);
	p->on_rq = 1;
	rq->nr_running++;
}

static void dequeue_task(struct rq *rq, struct task_struct *p)
{
	if (rq->curr != p)
		list_del_init(&p->run_list);
	p->on_rq = 0;
	rq->nr_running--;
}

/* Make `cpu` reschedule soon: locally by flag, remotely by IPI. */
void resched_cpu(unsigned int cpu)
{
	WRITE_ONCE(cpu_rq(cpu)->need_resched, true);
	if (cpu != arch_cpu_id())
		arch_send_ipi(cpu, IPI_RESCHEDULE);
}

/* PLACEHOLDER placement: previous CPU if allowed and online, else the
 * online allowed CPU with the fewest runnable tasks. */
static int select_task_rq(struct task_struct *p)
{
	cpumask_t ok = p->cpus_allowed & cpu_online_mask;
	unsigned int cpu, best = NR_CPUS, best_nr = ~0u;

	if (!ok)
		ok = cpu_online_mask;	/* Linux: select_fallback_rq() */
	if (p->cpu >= 0 && (ok & cpumask_of(p->cpu)) && p->state != TASK_NEW)
		return p->cpu;
	for_each_cpu(cpu, ok) {
		unsigned int nr = READ_ONCE(cpu_rq(cpu)->nr_running);

		if (nr < best_nr) {
			best = cpu;
			best_nr = nr;
		}
	}
	return (int)best;
}

/* Queue a task that is on no run queue and on no CPU onto a chosen CPU. */
static void activate_task(struct task_struct *p)
{
	int cpu = select_task_rq(p);
	struct rq *rq = cpu_rq(cpu);

	spin_lock(&rq->lock);
	if (p->cpu != cpu && p->cpu >= 0 && p->state != TASK_NEW)
		p->nr_migrations++;
	p->cpu = cpu;
	p->state = TASK_RUNNING;
	enqueue_task(rq, p);
	if (rq->curr == rq->idle)
		resched_cpu(cpu);
	spin_unlock(&rq->lock);
}

/* Linux: try_to_wake_up(). Returns 1 if the task was woken. */
int wake_up_process(struct task_struct *p)
{
	unsigned long flags = spin_lock_irqsave(&p->pi_lock);
	struct rq *rq;

	if (p->state != TASK_INTERRUPTIBLE) {
		spin_unlock_irqrestore(&p->pi_lock, flags);
		return 0;
	}
	p->nr_wakeups++;
	/* Still queued: it has not switched out yet; schedule() will see it
	 * runnable and keep it. */
	rq = cpu_rq(p->cpu);
	spin_lock(&rq->lock);
	if (p->on_rq) {
		p->state = TASK_RUNNING;
		spin_unlock(&rq->lock);
		spin_unlock_irqrestore(&p->pi_lock, flags);
		return 1;
	}
	spin_unlock(&rq->lock);
	/* Dequeued, maybe still switching out on its CPU: wait until its
	 * registers are saved before it can run elsewhere. */
	while (__atomic_load_n(&p->on_cpu, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	activate_task(p);
	spin_unlock_irqrestore(&p->pi_lock, flags);
	return 1;
}

void wake_up_new_task(struct task_struct *p)
{
	unsigned long flags = spin_lock_irqsave(&p->pi_lock);

	activate_task(p);
	spin_unlock_irqrestore(&p->pi_lock, flags);
}

static void account_switch(struct rq *rq, struct task_struct *prev, struct task_struct *next,
			   u64 now)
{
	prev->sum_exec_runtime += now - prev->exec_start;
	next->exec_start = now;
	next->slice_start = now;
	next->nr_switches++;
	rq->nr_switches++;
}

/* Runs on the new task's side of a switch, rq lock held, IRQs off. */
static void finish_task_switch(struct task_struct *prev, bool *migrate)
{
	__atomic_store_n(&prev->on_cpu, 0, __ATOMIC_RELEASE);
	*migrate = prev->state == TASK_RUNNING && !prev->is_idle && !prev->on_rq;
}

static void finish_migration(struct task_struct *prev)
{
	unsigned long flags = spin_lock_irqsave(&prev->pi_lock);

	activate_task(prev);
	spin_unlock_irqrestore(&prev->pi_lock, flags);
}

void schedule_tail(struct task_struct *prev)
{
	struct rq *rq = this_rq();
	bool migrate;

	finish_task_switch(prev, &migrate);
	spin_unlock(&rq->lock);
	if (migrate)
		finish_migration(prev);
	if (prev->state == TASK_DEAD)
		put_task_struct(prev);
	arch_irq_enable();
}

/* preempt: called from the IRQ return path. A task preempted between
 * marking itself sleeping and calling schedule() must stay queued, or the
 * wakeup it is about to wait for could be lost (Linux: SM_PREEMPT). */
static void __schedule(bool preempt)
{
	unsigned long flags = arch_irq_save();
	struct rq *rq = this_rq();
	struct task_struct *prev = rq->curr, *next;
	bool migrate = false;
	u64 now = arch_clock_ns();

	spin_lock(&rq->lock);
	rq->need_resched = false;
	if (!prev->is_idle) {
		if (prev->state != TASK_RUNNING && !preempt) {
			dequeue_task(rq, prev);
		} else if (prev->state == TASK_RUNNING &&
			   !(prev->cpus_allowed & cpumask_of(arch_cpu_id()))) {
			dequeue_task(rq, prev);	/* moved after the switch */
		} else {
			list_add_tail(&prev->run_list, &rq->queue);
		}
	}
	if (list_empty(&rq->queue)) {
		next = rq->idle;
	} else {
		next = list_first_entry(&rq->queue, struct task_struct, run_list);
		list_del_init(&next->run_list);
	}
	if (next != prev) {
		rq->curr = next;
		next->on_cpu = 1;
		next->cpu = (int)arch_cpu_id();
		account_switch(rq, prev, next, now);
		prev = arch_context_switch(prev, &prev->ctx, next, &next->ctx);
		/* Back in our task, maybe on another CPU; `prev` is now the task
		 * that ran there before us. */
		rq = this_rq();
		finish_task_switch(prev, &migrate);
	}
	spin_unlock(&rq->lock);
	if (migrate)
		finish_migration(prev);
	if (prev->state == TASK_DEAD && prev != current)
		put_task_struct(prev);
	arch_irq_restore(flags);
}

void schedule(void)
{
	__schedule(false);
}

void yield(void)
{
	__schedule(true);
}

/* Called from the IRQ return path with IRQs off. */
void irq_exit_preempt(void)
{
	struct task_struct *t = current;

	if (READ_ONCE(this_rq()->need_resched) && t->preempt_count == 0 && !t->is_idle)
		__schedule(true);
}

/* PLACEHOLDER tick: round robin once the slice is used up. */
void scheduler_tick(void)
{
	struct rq *rq = this_rq();
	struct task_struct *curr;

	spin_lock(&rq->lock);
	curr = rq->curr;
	if (!curr->is_idle && !list_empty(&rq->queue) &&
	    arch_clock_ns() - curr->slice_start >= SLICE_NS)
		rq->need_resched = true;
	spin_unlock(&rq->lock);
}

/* Each CPU's idle task. IRQs are masked around the check and the wait, so a
 * wakeup IPI between them still ends the wait (DESIGN.md: mask/wfi/unmask). */
void cpu_idle_loop(void)
{
	for (;;) {
		arch_irq_disable();
		if (!READ_ONCE(this_rq()->need_resched))
			arch_idle();
		arch_irq_enable();
		if (READ_ONCE(this_rq()->need_resched))
			schedule();
	}
}

/* Change affinity; a task queued or running outside the new mask moves.
 * An empty mask (or one with only offline CPUs) is refused. */
int set_cpus_allowed(struct task_struct *p, cpumask_t mask)
{
	unsigned long flags;
	struct rq *rq;
	bool moved = false;

	if (!(mask & cpu_online_mask))
		return -1;
	flags = spin_lock_irqsave(&p->pi_lock);
	p->cpus_allowed = mask;
	if (p->state == TASK_NEW) {	/* not queued anywhere yet */
		spin_unlock_irqrestore(&p->pi_lock, flags);
		return 0;
	}
	rq = cpu_rq(p->cpu);
	spin_lock(&rq->lock);
	if (p->on_rq && rq->curr != p && !(mask & cpumask_of(p->cpu))) {
		dequeue_task(rq, p);
		moved = true;
	} else if (rq->curr == p && !(mask & cpumask_of(p->cpu))) {
		resched_cpu(p->cpu);	/* schedule() moves it */
	}
	spin_unlock(&rq->lock);
	if (moved)
		activate_task(p);
	spin_unlock_irqrestore(&p->pi_lock, flags);
	if (p == current && !(mask & cpumask_of(arch_cpu_id())))
		schedule();
	return 0;
}

u64 cpu_nr_switches(unsigned int cpu)
{
	return READ_ONCE(cpu_rq(cpu)->nr_switches);
}

unsigned int cpu_nr_running(unsigned int cpu)
{
	return READ_ONCE(cpu_rq(cpu)->nr_running);
}
