/* timer.c - per-CPU timers and the scheduler tick on one arch deadline per
 * CPU. Each CPU keeps its pending timers sorted by expiry and programs the
 * earlier of its next tick and its first timer. Ticks are phase-shifted by
 * cpu x TICK_NSEC / nr_cpus: QEMU handles same-instant deadlines one vCPU
 * after another (docs/design.md). NO_HZ idle (Linux: CONFIG_NO_HZ_IDLE, tick-sched.c):
 * an idle CPU stops its tick and restarts it when it leaves idle; `nohz=off`
 * keeps it. State per CPU under its timer_base lock. */
#include "bootargs.h"
#include "kernel.h"
#include "sched.h"
#include "speed.h"
#include "timer.h"

struct timer_base {
	spinlock_t lock;
	struct list_head pending; /* sorted by expires */
	u64 next_tick;
	u64 ticks;
	bool running;
	bool tick_stopped;	     /* NO_HZ idle: no tick until tick_nohz_idle_exit() */
	u64 nohz_wake;		     /* while stopped: the latest next interrupt */
	struct timer *running_timer; /* callback in progress, for timer_cancel */
} __attribute__((aligned(64)));

static struct timer_base bases[NR_CPUS];
static bool tick_nohz_enabled = true;

/* The longest a CPU with a stopped tick waits without any interrupt. Linux's
 * idle CPUs keep waking for the soft-lockup watchdog's hrtimer (every
 * 2 x watchdog_thresh / 5); QEMU's -icount sleep=off, with no deadline on any
 * vCPU, stops delivering device interrupts (the console's input). */
#define NOHZ_IDLE_MAX_NS (800 * NSEC_PER_MSEC)

static void reprogram(struct timer_base *b)
{
	u64 next = b->tick_stopped ? b->nohz_wake : b->next_tick;

	if (!list_empty(&b->pending))
		next = MIN(next, list_first_entry(&b->pending, struct timer, node)->expires);
	arch_timer_set_deadline(next);
}

void timer_init(struct timer *t, void (*fn)(struct timer *t))
{
	t->fn = fn;
	t->cpu = -1;
	INIT_LIST_HEAD(&t->node);
}

/* Dequeue t, and wait for its callback if it is running right now, so the
 * caller may free t on return (Linux: del_timer_sync()). Never call it from
 * t's own callback. */
bool timer_cancel(struct timer *t)
{
	for (;;) {
		/* Acquire: pairs with timer_interrupt()'s release of cpu = -1, so
		 * that once -1 is seen, running_timer already names t. */
		int cpu = __atomic_load_n(&t->cpu, __ATOMIC_ACQUIRE);
		struct timer_base *b;
		unsigned long flags;

		if (cpu < 0)
			break;
		b = &bases[cpu];
		flags = spin_lock_irqsave(&b->lock);
		if (t->cpu == cpu) {
			list_del_init(&t->node);
			t->cpu = -1;
			spin_unlock_irqrestore(&b->lock, flags);
			return true;
		}
		spin_unlock_irqrestore(&b->lock, flags);
	}
	for (int c = 0; c < NR_CPUS; c++)
		while (READ_ONCE(bases[c].running_timer) == t)
			arch_cpu_relax();
	return false;
}

void timer_add(struct timer *t, u64 expires)
{
	unsigned long flags;
	struct timer_base *b;
	struct list_head *pos;

	timer_cancel(t);
	flags = arch_irq_save();
	b = &bases[arch_cpu_id()];
	spin_lock(&b->lock);
	t->expires = expires;
	t->cpu = (int)arch_cpu_id();
	list_for_each(pos, &b->pending)
		if (list_entry(pos, struct timer, node)->expires > expires)
			break;
	list_add_tail(&t->node, pos); /* before the first later one */
	if (b->pending.next == &t->node)
		reprogram(b);
	spin_unlock(&b->lock);
	arch_irq_restore(flags);
}

void timer_cpu_init(unsigned int cpu, unsigned int nr_cpus)
{
	struct timer_base *b = &bases[cpu];
	unsigned long flags = arch_irq_save();

	spin_lock_init(&b->lock);
	INIT_LIST_HEAD(&b->pending);
	char v[8];

	/* Linux's boot option: nohz=off keeps every tick (all CPUs read the same). */
	tick_nohz_enabled = !(bootarg_get("nohz", v, sizeof(v)) && !strcmp(v, "off"));
	b->next_tick = arch_clock_ns() + TICK_NSEC + cpu * TICK_NSEC / (nr_cpus ? nr_cpus : 1);
	b->tick_stopped = false;
	b->running = true;
	reprogram(b);
	arch_irq_restore(flags);
}

/* IRQ context: run the tick if due, then every expired timer. */
void timer_interrupt(void)
{
	unsigned int cpu = arch_cpu_id();
	struct timer_base *b = &bases[cpu];
	u64 now = arch_clock_ns();
	bool tick = false;

	spin_lock(&b->lock);
	if (b->tick_stopped && now >= b->nohz_wake)
		b->nohz_wake = now + NOHZ_IDLE_MAX_NS; /* no tick: only a wakeup */
	if (!b->tick_stopped && now >= b->next_tick) {
		/* Skip missed ticks rather than replaying them. */
		while (b->next_tick <= now)
			b->next_tick += TICK_NSEC;
		b->ticks++;
		tick = true;
	}
	while (!list_empty(&b->pending)) {
		struct timer *t = list_first_entry(&b->pending, struct timer, node);

		if (t->expires > now)
			break;
		void (*fn)(struct timer *) = t->fn;

		/* Invariant: t->cpu == -1 means "neither queued nor touched by a
		 * base any more, or its callback is in flight and running_timer
		 * says so". timer_cancel() reads t->cpu without our lock, so -1
		 * is published last, after every write to t and after
		 * running_timer names it. The old order (-1 first) let a cancel
		 * on another CPU return in between: the owner freed or reused t
		 * (cpu_work()'s stack timer, then a sleeper at the same stack
		 * slot) and list_del_init() here then wrote over the new
		 * sleeper's task pointer, and its wakeup hit a freed task. */
		list_del_init(&t->node);
		WRITE_ONCE(b->running_timer, t);
		__atomic_store_n(&t->cpu, -1, __ATOMIC_RELEASE);
		spin_unlock(&b->lock);
		fn(t);
		spin_lock(&b->lock);
		WRITE_ONCE(b->running_timer, NULL);
	}
	reprogram(b);
	spin_unlock(&b->lock);
	if (tick) {
		speed_pay(); /* the work of the tick period is done by now */
		scheduler_tick();
		watchdog_tick(); /* lockup detectors (kernel/watchdog.c) */
	}
}

/* Linux: timers_dead_cpu(). On a live CPU once `dead` is off: its pending
 * timers join this CPU's list in expiry order (t->cpu changes under both
 * locks, so timer_cancel() finds them), and this CPU's deadline is
 * reprogrammed: one already due fires at once, the others on time.
 * Returns how many moved. */
unsigned int timers_dead_cpu(unsigned int dead)
{
	unsigned long flags = arch_irq_save();
	struct timer_base *old = &bases[dead], *new = &bases[arch_cpu_id()];
	unsigned int moved = 0;

	BUG_ON(old == new);
	spin_lock(&old->lock); /* two bases: the dead one first, it takes no other */
	spin_lock(&new->lock);
	old->running = false;
	while (!list_empty(&old->pending)) {
		struct timer *t = list_first_entry(&old->pending, struct timer, node);
		struct list_head *pos;

		list_del_init(&t->node);
		list_for_each(pos, &new->pending)
			if (list_entry(pos, struct timer, node)->expires > t->expires)
				break;
		list_add_tail(&t->node, pos);
		WRITE_ONCE(t->cpu, (int)arch_cpu_id());
		moved++;
	}
	reprogram(new);
	spin_unlock(&new->lock);
	spin_unlock(&old->lock);
	arch_irq_restore(flags);
	return moved;
}

/* Linux: tick_nohz_idle_stop_tick(). From the idle loop, IRQs off, nothing
 * to run: stop the tick unless a timer is due within one tick period (then
 * the tick costs nothing more). The first stop tells the balancer. */
void tick_nohz_idle_stop_tick(void)
{
	unsigned int cpu = arch_cpu_id();
	struct timer_base *b = &bases[cpu];
	u64 now = arch_clock_ns();
	bool stopped = false;

	lockdep_assert_irqs_disabled();
	if (!tick_nohz_enabled || !cpu_online(cpu) || need_resched())
		return;
	spin_lock(&b->lock);
	if (!b->tick_stopped && b->running &&
	    (list_empty(&b->pending) ||
	     list_first_entry(&b->pending, struct timer, node)->expires > now + TICK_NSEC)) {
		b->tick_stopped = stopped = true;
		b->nohz_wake = now + NOHZ_IDLE_MAX_NS;
		watchdog_tick_stopped(cpu, true);
		reprogram(b);
	}
	spin_unlock(&b->lock);
	if (stopped)
		nohz_balance_enter_idle(cpu);
}

/* Linux: tick_nohz_idle_exit(): leaving idle, the tick resumes at its next
 * period boundary (missed ticks are not replayed). IRQs on or off. */
void tick_nohz_idle_exit(void)
{
	unsigned long flags = arch_irq_save();
	struct timer_base *b = &bases[arch_cpu_id()];
	u64 now = arch_clock_ns();

	spin_lock(&b->lock);
	if (b->tick_stopped) {
		/* The same phase, the first period boundary after now: O(1), however
		 * long it idled (under -icount sleep=off, idle time races ahead). */
		if (b->next_tick <= now)
			b->next_tick += ((now - b->next_tick) / TICK_NSEC + 1) * TICK_NSEC;
		watchdog_tick_stopped(arch_cpu_id(), false);
		b->tick_stopped = false;
		reprogram(b);
	}
	spin_unlock(&b->lock);
	arch_irq_restore(flags);
}

/* Linux: tick_nohz_get_sleep_length(), for the cpuidle governor (IRQs off):
 * ns from now to this CPU's next timer event were the tick stopped (its
 * first timer, or the NO_HZ idle wakeup), and in *delta_tick to the next
 * tick, or that same time when the tick is stopped. */
u64 tick_nohz_get_sleep_length(u64 *delta_tick)
{
	struct timer_base *b = &bases[arch_cpu_id()];
	u64 now = arch_clock_ns(), next, tick;

	spin_lock(&b->lock);
	next = b->tick_stopped ? b->nohz_wake : now + NOHZ_IDLE_MAX_NS;
	if (!list_empty(&b->pending))
		next = MIN(next, list_first_entry(&b->pending, struct timer, node)->expires);
	tick = b->tick_stopped ? next : MIN(next, b->next_tick);
	spin_unlock(&b->lock);
	*delta_tick = tick > now ? tick - now : 0;
	return next > now ? next - now : 0;
}

bool tick_nohz_active(void)
{
	return tick_nohz_enabled;
}

bool tick_nohz_tick_stopped_cpu(unsigned int cpu)
{
	return READ_ONCE(bases[cpu].tick_stopped);
}

u64 tick_count(unsigned int cpu)
{
	return READ_ONCE(bases[cpu].ticks);
}

struct sleeper {
	struct timer timer;
	struct task_struct *task;
	bool done;
};

static void sleeper_fn(struct timer *t)
{
	struct sleeper *s = container_of(t, struct sleeper, timer);
	struct task_struct *task = s->task; /* s may vanish once done is seen */

	__atomic_store_n(&s->done, true, __ATOMIC_RELEASE);
	wake_up_process(task);
}

/* Sleep the current task until absolute time `deadline` (arch_clock_ns). */
static void sleep_until(u64 deadline)
{
	struct sleeper s = { .task = current, .done = false };

	timer_init(&s.timer, sleeper_fn);
	arch_irq_disable();
	current->state = TASK_INTERRUPTIBLE; /* before arming: no lost wakeup */
	timer_add(&s.timer, deadline);
	while (!READ_ONCE(s.done)) {
		schedule();
		arch_irq_disable();
		if (!READ_ONCE(s.done))
			current->state = TASK_INTERRUPTIBLE;
	}
	current->state = TASK_RUNNING;
	arch_irq_enable();
	timer_cancel(&s.timer);
}

void sleep_ns(u64 ns)
{
	sleep_until(arch_clock_ns() + ns);
}

void sleep_until_ns(u64 deadline)
{
	if (arch_clock_ns() < deadline)
		sleep_until(deadline);
}
