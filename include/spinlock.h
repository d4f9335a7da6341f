/* spinlock.h - ticket spinlocks on the compiler's atomics (LL/SC on ARMv8.0:
 * the Makefile passes -mno-outline-atomics). Waiters spin with
 * arch_cpu_relax(), which lets QEMU run the vCPU that holds the lock.
 * The irqsave forms are the normal ones: a lock taken from an interrupt
 * handler must never be held with IRQs on. The debug build (lockdep.h)
 * checks lock order and records which locks each CPU holds. */
#ifndef SPINLOCK_H
#define SPINLOCK_H

#include "arch.h"
#include "lockdep.h"
#include "speed.h"
#include "types.h"

typedef struct {
	u32 next;
	u32 owner;
	int holder;    /* cpu + 1 of the holder, 0 when free: for assertions */
	u8 lock_class; /* enum lock_class (lockdep.h): order checks of the debug build */
	u8 subclass;   /* rq locks: the CPU */
} spinlock_t;

/* clang-format off */
#define SPINLOCK_INIT { 0, 0, 0, 0, 0 }
/* clang-format on */

static inline void spin_lock_init(spinlock_t *l)
{
	l->next = l->owner = 0;
	l->holder = 0;
	l->lock_class = l->subclass = 0;
}

/* A lock that takes part in the order checks (lockdep.h). */
static inline void spin_lock_init_class(spinlock_t *l, int cls, unsigned int subclass)
{
	spin_lock_init(l);
	l->lock_class = (u8)cls;
	l->subclass = (u8)subclass;
}

/* The call site travels along for the debug build's reports; the release
 * build inlines it away. */
#define spin_lock(l)	     __spin_lock((l), __FILE__, __LINE__)
#define spin_trylock(l)	     __spin_trylock((l), __FILE__, __LINE__)
#define spin_lock_irqsave(l) __spin_lock_irqsave((l), __FILE__, __LINE__)

/* Debug build: the order is checked before spinning (a wrong order is
 * reported before it can deadlock), the lock recorded once it is ours. */
static inline void __spin_lock(spinlock_t *l, const char *file, int line)
{
	u32 ticket;

#ifdef CONFIG_DEBUG_SCHED
	lockdep_acquire(l, l->lock_class, l->subclass, false, file, line);
#endif
	ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);
	if (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != ticket) {
		speed_spin_begin(); /* a wait, not work (kernel/sched/speed.c) */
		while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != ticket)
			arch_cpu_relax();
		speed_spin_end();
	}
	l->holder = (int)arch_cpu_id() + 1;
#ifdef CONFIG_DEBUG_SCHED
	lockdep_acquire(l, l->lock_class, l->subclass, true, file, line);
#endif
}

/* Never waits, so it cannot deadlock: recorded, not order-checked. */
static inline bool __spin_trylock(spinlock_t *l, const char *file, int line)
{
	u32 owner = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
	u32 expect = owner;

	if (!__atomic_compare_exchange_n(&l->next, &expect, owner + 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return false;
	l->holder = (int)arch_cpu_id() + 1;
#ifdef CONFIG_DEBUG_SCHED
	lockdep_acquire(l, l->lock_class, l->subclass, true, file, line);
#endif
	return true;
}

static inline void spin_unlock(spinlock_t *l)
{
#ifdef CONFIG_DEBUG_SCHED
	lockdep_release(l);
#endif
	l->holder = 0;
	__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
}

/* Held by the calling CPU? (Meaningful with IRQs off.) */
static inline bool spin_is_held(const spinlock_t *l)
{
	return l->holder == (int)arch_cpu_id() + 1;
}

static inline unsigned long __spin_lock_irqsave(spinlock_t *l, const char *file, int line)
{
	unsigned long flags = arch_irq_save();

	__spin_lock(l, file, line);
	return flags;
}

static inline void spin_unlock_irqrestore(spinlock_t *l, unsigned long flags)
{
	spin_unlock(l);
	arch_irq_restore(flags);
}

#endif
