/* wait.h - wait queues: a task sleeps until a condition holds, and whoever
 * makes it hold calls wake_up(). Lock order: wq->lock, then the task's
 * pi_lock, then a run-queue lock (kernel/sched/core.c). */
#ifndef WAIT_H
#define WAIT_H

#include "list.h"
#include "spinlock.h"

struct task_struct;

struct wait_queue_head {
	spinlock_t lock;
	struct list_head head;
};

struct wait_queue_entry {
	struct task_struct *task;
	struct list_head entry;
};

void init_waitqueue_head(struct wait_queue_head *wq);
/* Queue `w` for the current task and mark it sleeping; then test the condition. */
void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *w);
void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *w);
/* Wake every waiter; returns how many were woken. */
int wake_up(struct wait_queue_head *wq);
/* The same, hinting that the waker is about to sleep (Linux's sync wakeup
 * of pipes): the scheduler may then place the wakee on the waker's CPU. */
int wake_up_sync(struct wait_queue_head *wq);
void schedule(void);

/* Sleep until cond is true. cond is evaluated after the task is queued and
 * marked sleeping, so a wake_up() between the test and schedule() is not lost. */
#define wait_event(wq, cond)                                                                       \
	do {                                                                                       \
		struct wait_queue_entry __w = { 0 };                                               \
		for (;;) {                                                                         \
			prepare_to_wait(&(wq), &__w);                                              \
			if (cond)                                                                  \
				break;                                                             \
			schedule();                                                                \
		}                                                                                  \
		finish_wait(&(wq), &__w);                                                          \
	} while (0)

#endif
