/* pipe.h - pipes between kernel threads (kernel/pipe.c): a bounded byte
 * buffer with blocking read and write, as a Linux pipe between threads.
 * Writes of at most PIPE_BUF bytes are atomic (never interleaved with
 * another writer's). Wakeups carry the sync hint (wake_up_sync), as Linux's
 * pipe_read/pipe_write do: the waker is about to block. */
#ifndef PIPE_H
#define PIPE_H

#include "spinlock.h"
#include "types.h"
#include "wait.h"

#define PIPE_BUF	  4096
#define PIPE_DEFAULT_SIZE 16384

struct pipe {
	spinlock_t lock; /* head, tail, closed and the bytes */
	u8 *buf;
	size_t size;
	volatile u64 head, tail; /* bytes ever written / read; used = head - tail */
	volatile bool closed;	 /* no more writes: readers see EOF once empty */
	struct wait_queue_head rd_wq, wr_wq;
};

/* size 0 = PIPE_DEFAULT_SIZE; returns -1 if out of memory. */
int pipe_init(struct pipe *p, size_t size); /* 0, or -ENOMEM */
void pipe_destroy(struct pipe *p);
/* Blocks until at least one byte is there (or EOF); returns bytes read, 0 at EOF. */
size_t pipe_read(struct pipe *p, void *buf, size_t n);
/* Reads exactly n bytes unless EOF comes first; returns bytes read. */
size_t pipe_read_full(struct pipe *p, void *buf, size_t n);
/* Blocks until all n bytes are written; returns n, or fewer if closed. */
size_t pipe_write(struct pipe *p, const void *buf, size_t n);
void pipe_close(struct pipe *p); /* the write end */
size_t pipe_used(const struct pipe *p);

#endif
