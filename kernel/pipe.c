/* pipe.c - bounded byte pipes between kernel threads (include/pipe.h).
 * head and tail only grow; the ring index is the count modulo size, taken once per
 * transfer, whose bytes move in at most two memcpy (before and after the ring's end). Waiters
 * test their condition locklessly inside wait_event (the counters are
 * written under p->lock before the wake-up), then take the lock to copy and
 * re-check, since another reader or writer may have been first.
 * Not a file: no descriptors, no poll. State under p->lock. */
#include "kernel.h"
#include "mm.h"
#include "pipe.h"
#include "sched.h"

int pipe_init(struct pipe *p, size_t size)
{
	p->size = size ? size : PIPE_DEFAULT_SIZE;
	p->buf = kmalloc(p->size);
	if (!p->buf)
		return -ENOMEM;
	spin_lock_init(&p->lock);
	p->head = p->tail = 0;
	p->closed = false;
	init_waitqueue_head(&p->rd_wq);
	init_waitqueue_head(&p->wr_wq);
	return 0;
}

void pipe_destroy(struct pipe *p)
{
	kfree(p->buf);
	p->buf = NULL;
}

size_t pipe_used(const struct pipe *p)
{
	return (size_t)(p->head - p->tail);
}

/* The waiters' lockless tests read head and tail apart, while readers and
 * writers move both. Read in the wrong order, a reader may see the pipe empty
 * when it never was: head read, then another reader takes 8 bytes and a
 * writer adds 8 to the non-empty pipe (so it wakes no one), then tail read
 * shows head == tail, and the reader sleeps by the bytes (found under
 * selftest=stress stress_seed=7: a worker asleep by a pipe holding 8). So a
 * reader reads tail (acquire) before head, and can only over-estimate the
 * bytes; a writer reads head before tail, and can only over-estimate the room.
 * A false "ready" is re-checked under the lock. (Linux reads head then tail in
 * pipe_readable(), and a reader that leaves bytes behind wakes the next one.) */
static size_t pipe_used_for_reader(const struct pipe *p)
{
	u64 tail = __atomic_load_n(&p->tail, __ATOMIC_ACQUIRE);

	return (size_t)(__atomic_load_n(&p->head, __ATOMIC_RELAXED) - tail);
}

static size_t pipe_used_for_writer(const struct pipe *p)
{
	u64 head = __atomic_load_n(&p->head, __ATOMIC_ACQUIRE);

	return (size_t)(head - __atomic_load_n(&p->tail, __ATOMIC_RELAXED));
}

/* The ring's n bytes from byte count pos into dst: up to its end, then from its start. */
static void ring_copy_out(const struct pipe *p, u64 pos, u8 *dst, size_t n)
{
	size_t off = pos % p->size, first = n < p->size - off ? n : p->size - off;

	memcpy(dst, p->buf + off, first);
	if (n > first)
		memcpy(dst + first, p->buf, n - first);
}

/* src's n bytes into the ring at byte count pos (the same two pieces). */
static void ring_copy_in(struct pipe *p, u64 pos, const u8 *src, size_t n)
{
	size_t off = pos % p->size, first = n < p->size - off ? n : p->size - off;

	memcpy(p->buf + off, src, first);
	if (n > first)
		memcpy(p->buf, src + first, n - first);
}

/* The most room a waiting writer can need (pipe_room_for): a whole small write. */
static size_t pipe_max_need(const struct pipe *p)
{
	return p->size < PIPE_BUF ? p->size : PIPE_BUF;
}

/* Linux pipe_read: writers are woken only if the pipe was full, here: if it had less
 * room than a writer may wait for (with more, no writer can be asleep on it). */
size_t pipe_read(struct pipe *p, void *buf, size_t n)
{
	unsigned long flags;
	size_t got = 0;
	bool was_full;

	if (!n)
		return 0;
	for (;;) {
		wait_event(p->rd_wq, pipe_used_for_reader(p) || READ_ONCE(p->closed));
		flags = spin_lock_irqsave(&p->lock);
		got = pipe_used(p) < n ? pipe_used(p) : n;
		if (got || p->closed)
			break;
		spin_unlock_irqrestore(&p->lock, flags); /* another reader won */
	}
	was_full = p->size - pipe_used(p) < pipe_max_need(p);
	ring_copy_out(p, p->tail, buf, got);
	p->tail += got;
	spin_unlock_irqrestore(&p->lock, flags);
	if (got && was_full)
		wake_up_sync(&p->wr_wq); /* Linux pipe_read: sync wake of writers */
	return got;
}

size_t pipe_read_full(struct pipe *p, void *buf, size_t n)
{
	size_t done = 0, got;

	while (done < n && (got = pipe_read(p, (u8 *)buf + done, n - done)))
		done += got;
	return done;
}

/* Room the next piece needs: all of a small write (atomicity), else one byte. */
static bool pipe_room_for(struct pipe *p, size_t left, bool locked)
{
	size_t room = p->size - (locked ? pipe_used(p) : pipe_used_for_writer(p));

	return READ_ONCE(p->closed) || room >= (left <= PIPE_BUF && left <= p->size ? left : 1);
}

/* Linux pipe_write: readers are woken only if the pipe was empty (with bytes in it, no
 * reader is asleep on it: every reader is woken, and one that finds it empty sleeps). */
size_t pipe_write(struct pipe *p, const void *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		unsigned long flags;
		size_t room, k;
		bool was_empty;

		wait_event(p->wr_wq, pipe_room_for(p, n - done, false));
		flags = spin_lock_irqsave(&p->lock);
		if (p->closed) {
			spin_unlock_irqrestore(&p->lock, flags);
			break;
		}
		if (!pipe_room_for(p, n - done, true)) { /* another writer was first */
			spin_unlock_irqrestore(&p->lock, flags);
			continue;
		}
		room = p->size - pipe_used(p);
		was_empty = !pipe_used(p);
		k = n - done < room ? n - done : room;
		ring_copy_in(p, p->head, (const u8 *)buf + done, k);
		p->head += k;
		done += k;
		spin_unlock_irqrestore(&p->lock, flags);
		if (was_empty)
			wake_up_sync(&p->rd_wq); /* Linux pipe_write: sync wake of readers */
	}
	return done;
}

void pipe_close(struct pipe *p)
{
	unsigned long flags = spin_lock_irqsave(&p->lock);

	p->closed = true;
	spin_unlock_irqrestore(&p->lock, flags);
	wake_up(&p->rd_wq);
	wake_up(&p->wr_wq);
}
