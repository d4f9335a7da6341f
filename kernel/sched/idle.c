/* idle.c - the two edge classes. The idle class runs each CPU's idle task
 * when nothing else can run. The stop class (Linux: stop_task.c) runs each
 * CPU's "migration" thread above everything, for work that must run on one
 * CPU with nothing else running there: active load balancing uses it to
 * move a task that is running, and stop_machine() (CPU hotplug) uses every
 * CPU's. Stop work queue and the parked flag under stop_lock. */
#include "sched_internal.h"
#include "mutex.h"

/* ---- idle ------------------------------------------------------------------------- */

static void enqueue_task_idle(struct rq *rq, struct task_struct *p, int flags)
{
	WARN_ON_ONCE(1); /* the idle task is never queued */
}

static void noop_task(struct rq *rq, struct task_struct *p, int flags)
{
}

static void noop_preempt(struct rq *rq, struct task_struct *p, int flags)
{
	resched_curr(rq); /* anything beats idle */
}

static struct task_struct *pick_next_task_idle(struct rq *rq)
{
	return rq->idle;
}

static void noop_put(struct rq *rq, struct task_struct *p)
{
}

static void noop_set(struct rq *rq, struct task_struct *p, bool first)
{
}

static int select_task_rq_self(struct task_struct *p, int cpu, int wake_flags)
{
	return p->cpu;
}

static void noop_tick(struct rq *rq, struct task_struct *p)
{
}

const struct sched_class idle_sched_class = {
	.enqueue_task = enqueue_task_idle,
	.dequeue_task = noop_task,
	.check_preempt_curr = noop_preempt,
	.pick_next_task = pick_next_task_idle,
	.put_prev_task = noop_put,
	.set_next_task = noop_set,
	.select_task_rq = select_task_rq_self,
	.task_tick = noop_tick,
};

/* ---- stop ------------------------------------------------------------------------- */

#define STOP_QUEUE 8

struct stop_work {
	int (*fn)(void *);
	void *arg;
};

/* Per CPU: a small ring of pending work, under stop_lock. */
static struct {
	struct stop_work work[STOP_QUEUE];
	unsigned int head, tail;
	bool parked;		  /* its CPU is offline: no new work (Linux: !stopper->enabled) */
	struct multi_stop *multi; /* stop_machine()'s work: its own slot, first */
} stop_queue[NR_CPUS];
static spinlock_t stop_lock[NR_CPUS];
static struct wait_queue_head stop_wq[NR_CPUS];

static struct task_struct *pick_next_task_stop(struct rq *rq)
{
	struct task_struct *stop = rq->stop;

	if (!stop || !task_on_rq_queued(stop))
		return NULL;
	stop->se.exec_start = rq->clock_task;
	return stop;
}

static void check_preempt_stop(struct rq *rq, struct task_struct *p, int flags)
{
}

const struct sched_class stop_sched_class = {
	.enqueue_task = noop_task,
	.dequeue_task = noop_task,
	.check_preempt_curr = check_preempt_stop,
	.pick_next_task = pick_next_task_stop,
	.put_prev_task = noop_put,
	.set_next_task = noop_set,
	.select_task_rq = select_task_rq_self,
	.task_tick = noop_tick,
};

static bool stop_pending(unsigned int cpu)
{
	return READ_ONCE(stop_queue[cpu].head) != READ_ONCE(stop_queue[cpu].tail) ||
	       READ_ONCE(stop_queue[cpu].multi);
}

static int multi_cpu_stop(void *arg);

static void stopper_thread(void *arg)
{
	unsigned int cpu = (unsigned int)(uintptr_t)arg;

	for (;;) {
		struct stop_work w;
		unsigned long flags;

		wait_event(stop_wq[cpu], stop_pending(cpu));
		flags = spin_lock_irqsave(&stop_lock[cpu]);
		if (stop_queue[cpu].multi) {
			w = (struct stop_work){ multi_cpu_stop, stop_queue[cpu].multi };
			stop_queue[cpu].multi = NULL;
		} else {
			w = stop_queue[cpu].work[stop_queue[cpu].tail++ % STOP_QUEUE];
		}
		spin_unlock_irqrestore(&stop_lock[cpu], flags);
		w.fn(w.arg);
	}
}

/* Run fn(arg) on cpu above every other task, soon; -1 if the CPU has no
 * stop task or its queue is full (callers have a fallback). */
int stop_one_cpu_nowait(unsigned int cpu, int (*fn)(void *), void *arg)
{
	unsigned long flags;
	int ret = 0;

	if (!cpu_rq(cpu)->stop)
		return -1;
	flags = spin_lock_irqsave(&stop_lock[cpu]);
	if (stop_queue[cpu].parked || stop_queue[cpu].head - stop_queue[cpu].tail == STOP_QUEUE)
		ret = -1;
	else
		stop_queue[cpu].work[stop_queue[cpu].head++ % STOP_QUEUE] =
			(struct stop_work){ fn, arg };
	spin_unlock_irqrestore(&stop_lock[cpu], flags);
	if (!ret)
		wake_up(&stop_wq[cpu]);
	return ret;
}

/* One migration/N thread per online CPU, in the stop class. */
void sched_stoppers_init(void)
{
	unsigned int cpu;

	for_each_cpu(cpu, cpu_online_mask) {
		char name[TASK_COMM_LEN];
		struct task_struct *t;

		init_waitqueue_head(&stop_wq[cpu]);
		spin_lock_init(&stop_lock[cpu]);
		ksnprintf(name, sizeof(name), "migration/%u", cpu);
		t = kthread_create(stopper_thread, (void *)(uintptr_t)cpu, name);
		if (!t) {
			printk("sched: no memory for %s: no active balancing on CPU%u\n", name,
			       cpu);
			continue;
		}
		t->per_cpu_kthread = true;
		set_cpus_allowed(t, cpumask_of(cpu));
		t->sched_class = &stop_sched_class;
		t->prio = -1;
		cpu_rq(cpu)->stop = t;
		wake_up_new_task(t);
	}
}

/* The dying CPU's stop task parks itself (it is running the last work it
 * will take); a CPU coming online unparks its own before anything is queued. */
void stop_machine_park(unsigned int cpu)
{
	unsigned long flags = spin_lock_irqsave(&stop_lock[cpu]);

	stop_queue[cpu].parked = true;
	spin_unlock_irqrestore(&stop_lock[cpu], flags);
}

void stop_machine_unpark(unsigned int cpu)
{
	unsigned long flags = spin_lock_irqsave(&stop_lock[cpu]);

	stop_queue[cpu].parked = false;
	spin_unlock_irqrestore(&stop_lock[cpu], flags);
}

/* ---- stop_machine ------------------------------------------------------------------ */

/* Linux: multi_cpu_stop(), reduced to two rendezvous: all CPUs arrive with
 * IRQs off, the chosen one runs fn, all leave. Nothing that runs with IRQs
 * on (a wakeup, a balance pass, a domain walk) can be half-way anywhere. */
struct multi_stop {
	int (*fn)(void *);
	void *arg;
	unsigned int cpu; /* where fn runs */
	unsigned int nr;  /* CPUs taking part */
	unsigned int arrived, left;
	int ran, ret;
	struct completion done;
};

static int multi_cpu_stop(void *arg)
{
	struct multi_stop *ms = arg;
	unsigned long flags = arch_irq_save();

	__atomic_add_fetch(&ms->arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&ms->arrived, __ATOMIC_ACQUIRE) < ms->nr)
		arch_cpu_relax();
	if (arch_cpu_id() == ms->cpu) {
		ms->ret = ms->fn(ms->arg);
		__atomic_store_n(&ms->ran, 1, __ATOMIC_RELEASE);
	} else {
		while (!__atomic_load_n(&ms->ran, __ATOMIC_ACQUIRE))
			arch_cpu_relax();
	}
	arch_irq_restore(flags);
	if (__atomic_add_fetch(&ms->left, 1, __ATOMIC_ACQ_REL) == ms->nr)
		complete(&ms->done); /* ms lives on the caller's stack until then */
	return 0;
}

/* Callers serialize (cpu_hotplug_lock): one stop_machine at a time, in each
 * stop task's own slot. Queued with preemption off, as Linux does: once one
 * CPU's stop task waits at the rendezvous, a caller preempted on that CPU
 * could never queue the others. */
int stop_machine(int (*fn)(void *), void *arg, unsigned int cpu)
{
	struct multi_stop ms = { .fn = fn, .arg = arg, .cpu = cpu };
	cpumask_t cpus = *cpu_online_mask;
	unsigned int c;

	if (!cpumask_test_cpu(cpu, &cpus))
		return -1;
	for_each_cpu(c, &cpus)
		if (!cpu_rq(c)->stop || READ_ONCE(stop_queue[c].parked))
			return -1;
	init_completion(&ms.done);
	ms.nr = cpumask_weight(&cpus);
	preempt_disable();
	for_each_cpu(c, &cpus) {
		unsigned long flags = spin_lock_irqsave(&stop_lock[c]);

		BUG_ON(stop_queue[c].multi);
		stop_queue[c].multi = &ms;
		spin_unlock_irqrestore(&stop_lock[c], flags);
		wake_up(&stop_wq[c]);
	}
	preempt_enable();
	wait_for_completion(&ms.done);
	return ms.ret;
}
