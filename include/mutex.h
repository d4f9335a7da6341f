/* mutex.h - sleeping locks and one-shot events for kernel threads
 * (kernel/mutex.c): mutex (owner, waiters served in arrival order by direct
 * hand-over), counting semaphore, completion, barrier. All may sleep: never
 * from IRQ context, never under a spinlock. Each guards its own state with
 * its own spinlock, taken with IRQs off; no other lock is held inside. */
#ifndef MUTEX_H
#define MUTEX_H

#include "list.h"
#include "spinlock.h"
#include "types.h"
#include "wait.h"

struct task_struct;

/* A task queued on a mutex, semaphore or completion, on its own stack. */
struct fifo_waiter {
	struct list_head node;
	struct task_struct *task;
	volatile bool granted; /* set by the releaser, under the lock */
};

struct mutex {
	spinlock_t lock;
	struct task_struct *owner; /* NULL: free */
	struct list_head waiters;  /* fifo_waiter, oldest first */
	u64 contended;		   /* lock() calls that had to sleep */
};

void mutex_init(struct mutex *m);
void mutex_lock(struct mutex *m);
bool mutex_trylock(struct mutex *m);
/* Only the owner unlocks; ownership passes to the oldest waiter. */
void mutex_unlock(struct mutex *m);
bool mutex_is_locked(struct mutex *m);
struct task_struct *mutex_owner(struct mutex *m);

struct semaphore {
	spinlock_t lock;
	unsigned int count;
	struct list_head waiters;
};

void sema_init(struct semaphore *s, unsigned int count);
void down(struct semaphore *s);
bool down_trylock(struct semaphore *s); /* true if taken (unlike Linux's 0) */
void up(struct semaphore *s);

/* Linux: struct completion. complete() releases one waiter (or one future
 * wait), complete_all() every present and future one. */
struct completion {
	spinlock_t lock;
	unsigned int done; /* UINT_MAX after complete_all() */
	struct list_head waiters;
};

void init_completion(struct completion *c);
void reinit_completion(struct completion *c);
void wait_for_completion(struct completion *c);
void complete(struct completion *c);
void complete_all(struct completion *c);
bool completion_done(struct completion *c);

/* N threads meet: each barrier_wait() sleeps until the N-th arrives; then
 * the barrier is ready for the next round. Returns true in exactly one
 * thread per round (the last to arrive), like PTHREAD_BARRIER_SERIAL_THREAD. */
struct barrier {
	spinlock_t lock;
	unsigned int n, arrived;
	volatile unsigned int generation;
	struct wait_queue_head wq;
};

void barrier_init(struct barrier *b, unsigned int n);
bool barrier_wait(struct barrier *b);

#endif
