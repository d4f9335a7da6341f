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
	struct timer *running_timer; /* callback in progress (Linux: base->running_timer) */
} __attribute__((aligned(64)));

/* The invariant every function here keeps (Linux: timer->flags' CPU with
 * base->running_timer, and hrtimer's timer->base with hrtimer_callback_running()):
 * t->cpu names the one base that can hold t at all, queued on its list or
 * running its callback, and it changes only under that base's lock, and only
 * while that base is not running t's callback. So timer_cancel() looks at one
 * base, whatever NR_CPUS is: under t's base lock, "not queued and not its
 * running_timer" means no CPU touches t until it is armed again. (It read
 * every base's running_timer: NR_CPUS of them, 1984 instructions a call.) */
#define TIMER_NO_BASE	(-1) /* never armed since timer_init() */
#define TIMER_MIGRATING (-2) /* between two bases' locks in timer_start(): wait */

static struct timer_base bases[NR_CPUS];
static bool tick_nohz_enabled = true;

/* The longest a CPU with a stopped tick waits without any interrupt. Linux's
 * idle CPUs keep waking for the soft-lockup watchdog's hrtimer (every
 * 2 x watchdog_thresh / 5); QEMU's -icount sleep=off, with no deadline on any
 * vCPU, stops delivering device interrupts (the console's input). */
#define NOHZ_IDLE_MAX_NS (800 * NSEC_PER_MSEC)

/* Only for this CPU's base: the deadline programmed is this CPU's. */
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
	t->cpu = TIMER_NO_BASE;
	INIT_LIST_HEAD(&t->node);
}

/* Linux: lock_timer_base(). IRQs off. t's base, locked, or NULL if t was never
 * armed. t->cpu is read without a lock and checked again under it: it changes
 * only under the lock of the base it names. */
static struct timer_base *timer_lock_base(struct timer *t)
{
	for (;;) {
		int cpu = READ_ONCE(t->cpu);
		struct timer_base *b;

		if (cpu == TIMER_NO_BASE)
			return NULL;
		if (cpu == TIMER_MIGRATING) {
			arch_cpu_relax();
			continue;
		}
		b = &bases[cpu];
		spin_lock(&b->lock);
		if (READ_ONCE(t->cpu) == cpu)
			return b;
		spin_unlock(&b->lock);
	}
}

/* Linux: hrtimer_try_to_cancel(), try_to_del_timer_sync(): -1 while t's
 * callback runs (t stays queued if it was re-armed meanwhile), else 1 if it
 * was dequeued, 0 if it was not queued. */
int timer_try_cancel(struct timer *t)
{
	unsigned long flags = arch_irq_save();
	struct timer_base *b = timer_lock_base(t);
	int ret = 0;

	if (b) {
		if (b->running_timer == t) {
			ret = -1;
		} else if (!list_empty(&t->node)) {
			list_del_init(&t->node);
			ret = 1;
		}
		spin_unlock(&b->lock);
	}
	arch_irq_restore(flags);
	return ret;
}

/* Dequeue t, and wait for its callback if it is running right now, so the
 * caller may free t on return (Linux: del_timer_sync(), hrtimer_cancel()).
 * Never call it from t's own callback. */
bool timer_cancel(struct timer *t)
{
	for (;;) {
		int ret = timer_try_cancel(t);

		if (ret >= 0)
			return ret;
		arch_cpu_relax();
	}
}

/* Insert t into b's list in expiry order; b locked. */
static void timer_queue(struct timer_base *b, struct timer *t, u64 expires)
{
	struct list_head *pos;

	t->expires = expires;
	list_for_each(pos, &b->pending)
		if (list_entry(pos, struct timer, node)->expires > expires)
			break;
	list_add_tail(&t->node, pos); /* before the first later one */
	/* Another CPU's base is one running t's callback: its timer_interrupt()
	 * looks at its list again when the callback returns. */
	if (b->pending.next == &t->node && b == &bases[arch_cpu_id()])
		reprogram(b);
}

/* Linux: hrtimer_start() with switch_hrtimer_base(), __mod_timer(): dequeue t
 * and queue it on this CPU, or on its own base while that base runs its
 * callback (a timer never changes base under a running callback, so that
 * callback stays the only one, on the base t->cpu names). */
void timer_start(struct timer *t, u64 expires)
{
	unsigned long flags = arch_irq_save();
	int cpu = (int)arch_cpu_id();
	struct timer_base *b = timer_lock_base(t);

	if (b) {
		list_del_init(&t->node);
		if (b != &bases[cpu] && b->running_timer != t) {
			/* Linux: TIMER_MIGRATING: lockers of t wait for the new base. */
			WRITE_ONCE(t->cpu, TIMER_MIGRATING);
			spin_unlock(&b->lock);
			b = NULL;
		}
	}
	if (!b) {
		b = &bases[cpu];
		spin_lock(&b->lock);
		__atomic_store_n(&t->cpu, cpu, __ATOMIC_RELEASE);
	}
	timer_queue(b, t, expires);
	spin_unlock(&b->lock);
	arch_irq_restore(flags);
}

/* Wait for a callback in flight, then arm on this CPU (Linux: del_timer_sync()
 * then add_timer()). */
void timer_add(struct timer *t, u64 expires)
{
	timer_cancel(t);
	timer_start(t, expires);
}

void timer_cpu_init(unsigned int cpu, unsigned int nr_cpus)
{
	struct timer_base *b = &bases[cpu];
	unsigned long flags = arch_irq_save();
	char v[8];

	/* The lock is never re-initialised (zero is unlocked): a CPU coming back
	 * online may find another CPU holding it, cancelling a timer whose base
	 * is still this one (its callback last ran here). Its list is empty:
	 * timers_dead_cpu() moved the timers, and no timer moves to a dead base. */
	spin_lock(&b->lock);
	INIT_LIST_HEAD(&b->pending);
	b->running_timer = NULL;

	/* Linux's boot option: nohz=off keeps every tick (all CPUs read the same). */
	tick_nohz_enabled = !(bootarg_get("nohz", v, sizeof(v)) && !strcmp(v, "off"));
	b->next_tick = arch_clock_ns() + TICK_NSEC + cpu * TICK_NSEC / (nr_cpus ? nr_cpus : 1);
	b->tick_stopped = false;
	b->running = true;
	reprogram(b);
	spin_unlock(&b->lock);
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

		/* t->cpu stays this CPU: t's callback runs on t's base, where
		 * timer_cancel() looks (the invariant above). Once running_timer
		 * is cleared under the lock below, this base touches t no more. */
		list_del_init(&t->node);
		WRITE_ONCE(b->running_timer, t);
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
		idle_history_tick(); /* the shell's IDLE% over the last second */
		watchdog_tick();     /* lockup detectors (kernel/watchdog.c) */
	}
}

/* Linux: timers_dead_cpu(). On a live CPU once `dead` is off: its pending
 * timers join this CPU's list in expiry order (t->cpu changes under both
 * locks, so timer_cancel() finds them; a dead base runs no callback), and
 * this CPU's deadline is reprogrammed: one already due fires at once, the
 * others on time. Returns how many moved. */
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
