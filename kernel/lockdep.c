/* lockdep.c - the debug build's lock checker ("lockdep-lite", include/lockdep.h)
 * and the one report format of every debug check (lock assertions, lock
 * order, the run-queue invariants of kernel/sched/stats.c). Each CPU keeps
 * the list of spinlocks it holds; only that CPU touches its list, with IRQs
 * off. Not the locks themselves (spinlock.h). The report counter is atomic. */
#include "kernel.h"
#include "sched.h"

#define MAX_REPORTS 20 /* printed in full; later ones are only counted */

static unsigned long nr_failures;

unsigned long debug_failures(void)
{
	return __atomic_load_n(&nr_failures, __ATOMIC_ACQUIRE);
}

#ifdef CONFIG_DEBUG_SCHED
/* sched_check_invariants() (kernel/sched/stats.c) holds every online rq->lock at
 * once: room for all of them and a few more (debug build only: 1.6 MiB at 256). */
#define MAX_HELD (NR_CPUS + 16)

struct held_lock {
	const spinlock_t *lock;
	const char *file;
	int line;
};

static struct {
	struct held_lock held[MAX_HELD];
	int nr;
	bool in_report; /* the report's own printk locks are not checked */
} cpu_locks[NR_CPUS];

static const char *const class_name[] = { "lock", "pi_lock", "rq->lock", "rq-inner lock" };

/* "rq->lock of cpu3 (0x...)" */
static const char *lock_name(char *buf, size_t size, const spinlock_t *l)
{
	if (l->lock_class == LOCK_CLASS_RQ)
		ksnprintf(buf, size, "rq->lock of cpu%u (%p)", l->subclass, l);
	else
		ksnprintf(buf, size, "%s %p",
			  class_name[l->lock_class < ARRAY_SIZE(class_name) ? l->lock_class : 0],
			  l);
	return buf;
}

static void print_held_locks(unsigned int cpu)
{
	for (int i = 0; i < cpu_locks[cpu].nr; i++) {
		const struct held_lock *h = &cpu_locks[cpu].held[i];
		char name[48];

		printk("  held: %s, taken at %s:%d\n", lock_name(name, sizeof(name), h->lock),
		       h->file, h->line);
	}
}
#endif

static void vreport(const char *what, const char *fmt, va_list ap)
{
	unsigned long n = __atomic_add_fetch(&nr_failures, 1, __ATOMIC_ACQ_REL);
	struct task_struct *t = current;
	char msg[320];

	if (n > MAX_REPORTS) {
		if (n == MAX_REPORTS + 1)
			printk("BUG: debug checks: more than %d reports, only counting now\n",
			       MAX_REPORTS);
		return;
	}
	kvsnprintf(msg, sizeof(msg), fmt, ap);
	printk("BUG: %s: %s\n", what, msg);
	printk("CPU %u, thread %s (pid %d)\n", arch_cpu_id(), t ? t->comm : "?", t ? t->pid : -1);
#ifdef CONFIG_DEBUG_SCHED
	if (arch_cpu_id() < NR_CPUS)
		print_held_locks(arch_cpu_id());
#endif
	arch_dump_stack();
}

void debug_report(const char *what, const char *fmt, ...)
{
	unsigned long flags = arch_irq_save();
	va_list ap;
#ifdef CONFIG_DEBUG_SCHED
	unsigned int cpu = arch_cpu_id();
	bool nested = cpu < NR_CPUS && cpu_locks[cpu].in_report;

	if (cpu < NR_CPUS)
		cpu_locks[cpu].in_report = true;
#endif
	va_start(ap, fmt);
	vreport(what, fmt, ap);
	va_end(ap);
#ifdef CONFIG_DEBUG_SCHED
	if (cpu < NR_CPUS)
		cpu_locks[cpu].in_report = nested;
#endif
	arch_irq_restore(flags);
}

#ifdef CONFIG_DEBUG_SCHED
void lockdep_assert_failed(const char *what, const char *expr, const char *func, const char *file,
			   int line)
{
	debug_report("lockdep", "%s: %s() expects %s (%s:%d)", what, func, expr, file, line);
}

/* May a CPU holding h take l? Classes nest in increasing order; rq locks
 * among themselves by increasing CPU (kernel/sched/core.c states the order). */
static bool order_ok(const spinlock_t *h, const spinlock_t *l)
{
	if (!h->lock_class || !l->lock_class)
		return true;
	if (h->lock_class != l->lock_class)
		return h->lock_class < l->lock_class;
	return l->lock_class == LOCK_CLASS_RQ && h->subclass < l->subclass;
}

static void check_order(unsigned int cpu, const spinlock_t *l, const char *file, int line)
{
	for (int i = 0; i < cpu_locks[cpu].nr; i++) {
		const struct held_lock *h = &cpu_locks[cpu].held[i];

		if (h->lock == l) {
			debug_report("lockdep",
				     "recursive locking of %p at %s:%d (already taken "
				     "at %s:%d): this CPU would wait for itself",
				     l, file, line, h->file, h->line);
			return;
		}
		if (!order_ok(h->lock, l)) {
			char a[48], b[48];

			debug_report("lockdep",
				     "lock order violation: taking %s at %s:%d while "
				     "holding %s (taken at %s:%d); the order is pi_lock, then "
				     "rq->lock (lower CPU first), then rq-inner locks",
				     lock_name(a, sizeof(a), l), file, line,
				     lock_name(b, sizeof(b), h->lock), h->file, h->line);
			return;
		}
	}
}

void lockdep_acquire(const void *lock, int cls, unsigned int subclass, bool acquired,
		     const char *file, int line)
{
	unsigned int cpu = arch_cpu_id();
	unsigned long flags;

	if (cpu >= NR_CPUS || cpu_locks[cpu].in_report)
		return;
	flags = arch_irq_save();
	if (!acquired) {
		check_order(cpu, lock, file, line);
	} else if (cpu_locks[cpu].nr == MAX_HELD) {
		debug_report("lockdep", "more than %d spinlocks held at %s:%d", MAX_HELD, file,
			     line);
	} else {
		struct held_lock *h = &cpu_locks[cpu].held[cpu_locks[cpu].nr++];

		h->lock = lock;
		h->file = file;
		h->line = line;
	}
	arch_irq_restore(flags);
}

void lockdep_release(const void *lock)
{
	unsigned int cpu = arch_cpu_id();
	unsigned long flags;
	int i;

	if (cpu >= NR_CPUS || cpu_locks[cpu].in_report)
		return;
	flags = arch_irq_save();
	for (i = cpu_locks[cpu].nr - 1; i >= 0 && cpu_locks[cpu].held[i].lock != lock; i--)
		;
	if (i < 0) {
		debug_report("lockdep", "unlock of %p, which this CPU does not hold", lock);
	} else {
		for (; i + 1 < cpu_locks[cpu].nr; i++)
			cpu_locks[cpu].held[i] = cpu_locks[cpu].held[i + 1];
		cpu_locks[cpu].nr--;
	}
	arch_irq_restore(flags);
}

bool lockdep_held_by_me(const void *lock)
{
	unsigned int cpu = arch_cpu_id();
	unsigned long flags = arch_irq_save();
	bool found = false;

	if (cpu < NR_CPUS)
		for (int i = 0; i < cpu_locks[cpu].nr && !found; i++)
			found = cpu_locks[cpu].held[i].lock == lock;
	arch_irq_restore(flags);
	return found || cpu >= NR_CPUS;
}

int lockdep_nr_held(void)
{
	unsigned int cpu = arch_cpu_id();

	return cpu < NR_CPUS ? READ_ONCE(cpu_locks[cpu].nr) : 0;
}
#endif
