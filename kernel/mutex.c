/* mutex.c - sleeping mutex, semaphore, completion and barrier
 * (include/mutex.h). Mutex, semaphore and completion share one discipline:
 * a releaser hands the resource straight to the oldest waiter (sets its
 * `granted` under the object's lock and wakes it), so waiters are served in
 * arrival order and a newcomer cannot barge in between. Not wait queues
 * themselves (kernel/wait.c); the barrier is built on one.
 * State of each object under its own spinlock, IRQs off. */
#include "kernel.h"
#include "mutex.h"
#include "sched.h"

/* Queue current on `waiters` and sleep until granted. Called with *lock held
 * (IRQs off, flags saved by the caller); returns with it held. The state is
 * set before the lock is dropped, so a grant between the unlock and
 * schedule() turns into a no-op schedule(), not a lost wakeup. */
static void fifo_sleep(spinlock_t *lock, struct list_head *waiters)
{
	struct fifo_waiter w = { .task = current, .granted = false };

	list_add_tail(&w.node, waiters);
	for (;;) {
		current->state = TASK_INTERRUPTIBLE;
		spin_unlock(lock);
		schedule();
		arch_irq_disable(); /* schedule() may return with IRQs on */
		spin_lock(lock);
		if (w.granted)
			break;
	}
	current->state = TASK_RUNNING;
}

/* Grant the oldest waiter; false if there is none. *lock held. */
static bool fifo_grant_one(struct list_head *waiters)
{
	struct fifo_waiter *w;

	if (list_empty(waiters))
		return false;
	w = list_first_entry(waiters, struct fifo_waiter, node);
	list_del_init(&w->node);
	w->granted = true;
	wake_up_process(w->task);
	return true;
}

/* ---- mutex ------------------------------------------------------------------------ */

void mutex_init(struct mutex *m)
{
	spin_lock_init(&m->lock);
	m->owner = NULL;
	INIT_LIST_HEAD(&m->waiters);
	m->contended = 0;
}

void mutex_lock(struct mutex *m)
{
	unsigned long flags = spin_lock_irqsave(&m->lock);

	BUG_ON(m->owner == current); /* recursive locking deadlocks */
	if (!m->owner) {
		m->owner = current;
	} else {
		m->contended++;
		fifo_sleep(&m->lock, &m->waiters); /* owner set by the hand-over */
	}
	spin_unlock_irqrestore(&m->lock, flags);
}

bool mutex_trylock(struct mutex *m)
{
	unsigned long flags = spin_lock_irqsave(&m->lock);
	bool ok = !m->owner;

	if (ok)
		m->owner = current;
	spin_unlock_irqrestore(&m->lock, flags);
	return ok;
}

void mutex_unlock(struct mutex *m)
{
	unsigned long flags = spin_lock_irqsave(&m->lock);

	WARN_ON_ONCE(m->owner != current);
	if (!list_empty(&m->waiters))
		m->owner = list_first_entry(&m->waiters, struct fifo_waiter, node)->task;
	else
		m->owner = NULL;
	fifo_grant_one(&m->waiters);
	spin_unlock_irqrestore(&m->lock, flags);
}

bool mutex_is_locked(struct mutex *m)
{
	return READ_ONCE(m->owner) != NULL;
}

struct task_struct *mutex_owner(struct mutex *m)
{
	return READ_ONCE(m->owner);
}

/* ---- semaphore -------------------------------------------------------------------- */

void sema_init(struct semaphore *s, unsigned int count)
{
	spin_lock_init(&s->lock);
	s->count = count;
	INIT_LIST_HEAD(&s->waiters);
}

void down(struct semaphore *s)
{
	unsigned long flags = spin_lock_irqsave(&s->lock);

	if (s->count)
		s->count--;
	else
		fifo_sleep(&s->lock, &s->waiters); /* the unit is handed over */
	spin_unlock_irqrestore(&s->lock, flags);
}

bool down_trylock(struct semaphore *s)
{
	unsigned long flags = spin_lock_irqsave(&s->lock);
	bool ok = s->count > 0;

	if (ok)
		s->count--;
	spin_unlock_irqrestore(&s->lock, flags);
	return ok;
}

void up(struct semaphore *s)
{
	unsigned long flags = spin_lock_irqsave(&s->lock);

	if (!fifo_grant_one(&s->waiters))
		s->count++;
	spin_unlock_irqrestore(&s->lock, flags);
}

/* ---- completion ------------------------------------------------------------------- */

#define COMPLETION_ALL 0xffffffffu

void init_completion(struct completion *c)
{
	spin_lock_init(&c->lock);
	c->done = 0;
	INIT_LIST_HEAD(&c->waiters);
}

void reinit_completion(struct completion *c)
{
	WRITE_ONCE(c->done, 0);
}

void wait_for_completion(struct completion *c)
{
	unsigned long flags = spin_lock_irqsave(&c->lock);

	if (c->done) {
		if (c->done != COMPLETION_ALL)
			c->done--;
	} else {
		fifo_sleep(&c->lock, &c->waiters);
	}
	spin_unlock_irqrestore(&c->lock, flags);
}

void complete(struct completion *c)
{
	unsigned long flags = spin_lock_irqsave(&c->lock);

	if (!fifo_grant_one(&c->waiters) && c->done != COMPLETION_ALL)
		c->done++;
	spin_unlock_irqrestore(&c->lock, flags);
}

void complete_all(struct completion *c)
{
	unsigned long flags = spin_lock_irqsave(&c->lock);

	c->done = COMPLETION_ALL;
	while (fifo_grant_one(&c->waiters))
		;
	spin_unlock_irqrestore(&c->lock, flags);
}

bool completion_done(struct completion *c)
{
	return READ_ONCE(c->done) != 0;
}

/* ---- barrier ---------------------------------------------------------------------- */

void barrier_init(struct barrier *b, unsigned int n)
{
	spin_lock_init(&b->lock);
	b->n = n ? n : 1;
	b->arrived = 0;
	b->generation = 0;
	init_waitqueue_head(&b->wq);
}

bool barrier_wait(struct barrier *b)
{
	unsigned long flags = spin_lock_irqsave(&b->lock);
	unsigned int gen = b->generation;

	if (++b->arrived == b->n) {
		b->arrived = 0;
		b->generation = gen + 1;
		spin_unlock_irqrestore(&b->lock, flags);
		wake_up(&b->wq);
		return true;
	}
	spin_unlock_irqrestore(&b->lock, flags);
	wait_event(b->wq, b->generation != gen);
	return false;
}
