/* spinlock.h - ticket spinlocks on the compiler's atomics (LL/SC on ARMv8.0:
 * the Makefile passes -mno-outline-atomics). Waiters spin with
 * arch_cpu_relax(), which lets QEMU run the vCPU that holds the lock.
 * The irqsave forms are the normal ones: a lock taken from an interrupt
 * handler must never be held with IRQs on. */
#ifndef SPINLOCK_H
#define SPINLOCK_H

#include "arch.h"
#include "types.h"

typedef struct {
	u32 next;
	u32 owner;
	int holder;	/* cpu + 1 of the holder, 0 when free: for assertions */
} spinlock_t;

#define SPINLOCK_INIT { 0, 0, 0 }

static inline void spin_lock_init(spinlock_t *l)
{
	l->next = l->owner = 0;
	l->holder = 0;
}

static inline void spin_lock(spinlock_t *l)
{
	u32 ticket = __atomic_fetch_add(&l->next, 1, __ATOMIC_RELAXED);

	while (__atomic_load_n(&l->owner, __ATOMIC_ACQUIRE) != ticket)
		arch_cpu_relax();
	l->holder = (int)arch_cpu_id() + 1;
}

static inline bool spin_trylock(spinlock_t *l)
{
	u32 owner = __atomic_load_n(&l->owner, __ATOMIC_RELAXED);
	u32 expect = owner;

	if (!__atomic_compare_exchange_n(&l->next, &expect, owner + 1, false, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return false;
	l->holder = (int)arch_cpu_id() + 1;
	return true;
}

static inline void spin_unlock(spinlock_t *l)
{
	l->holder = 0;
	__atomic_store_n(&l->owner, l->owner + 1, __ATOMIC_RELEASE);
}

/* Held by the calling CPU? (Meaningful with IRQs off.) */
static inline bool spin_is_held(const spinlock_t *l)
{
	return l->holder == (int)arch_cpu_id() + 1;
}

static inline unsigned long spin_lock_irqsave(spinlock_t *l)
{
	unsigned long flags = arch_irq_save();

	spin_lock(l);
	return flags;
}

static inline void spin_unlock_irqrestore(spinlock_t *l, unsigned long flags)
{
	spin_unlock(l);
	arch_irq_restore(flags);
}

#endif
