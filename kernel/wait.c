/* wait.c - wait queues (include/wait.h). A woken task is simply made
 * runnable; it re-tests its condition, so spurious wakeups are harmless. */
#include "kernel.h"
#include "sched.h"

void init_waitqueue_head(struct wait_queue_head *wq)
{
	spin_lock_init(&wq->lock);
	INIT_LIST_HEAD(&wq->head);
}

void prepare_to_wait(struct wait_queue_head *wq, struct wait_queue_entry *w)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);

	/* Queued once; after a wakeup it stays queued for the next test. */
	if (!w->entry.next) {
		w->task = current;
		INIT_LIST_HEAD(&w->entry);
		list_add_tail(&w->entry, &wq->head);
	}
	current->state = TASK_INTERRUPTIBLE;
	spin_unlock_irqrestore(&wq->lock, flags);
}

void finish_wait(struct wait_queue_head *wq, struct wait_queue_entry *w)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);

	current->state = TASK_RUNNING;
	if (w->entry.next && !list_empty(&w->entry))
		list_del_init(&w->entry);
	spin_unlock_irqrestore(&wq->lock, flags);
}

static int __wake_up(struct wait_queue_head *wq, int wake_flags)
{
	unsigned long flags = spin_lock_irqsave(&wq->lock);
	struct list_head *pos;
	int n = 0;

	list_for_each(pos, &wq->head)
		n += wake_up_process_flags(list_entry(pos, struct wait_queue_entry, entry)->task,
					   wake_flags);
	spin_unlock_irqrestore(&wq->lock, flags);
	return n;
}

int wake_up(struct wait_queue_head *wq)
{
	return __wake_up(wq, 0);
}

int wake_up_sync(struct wait_queue_head *wq)
{
	return __wake_up(wq, WF_SYNC);
}
