/* selftest_primitives.c - self-tests of the sleeping primitives the workloads use:
 * mutex (ownership, FIFO hand-over, contention), semaphore, completion,
 * barrier, pipes (integrity, atomic small writes, EOF) and absolute /
 * periodic sleeps (suites mutex, pipe, hrsleep). */
#include "hrsleep.h"
#include "kernel.h"
#include "ktest.h"
#include "mm.h"
#include "mutex.h"
#include "pipe.h"
#include "sched.h"
#include "timer.h"

#define NWAITERS 4

struct order_ctx {
	struct mutex m;
	int order[NWAITERS], next;
};

struct order_arg {
	struct order_ctx *c;
	int id;
};

static void order_waiter(void *arg)
{
	struct order_arg *a = arg;

	mutex_lock(&a->c->m);
	a->c->order[a->c->next++] = a->id;
	mutex_unlock(&a->c->m);
}

/* Waiters queued one after another get the mutex in that order. */
static void mutex_fifo_handover(struct ktest *t)
{
	struct order_ctx c = { .next = 0 };
	struct order_arg a[NWAITERS];
	struct task_struct *th[NWAITERS];

	mutex_init(&c.m);
	mutex_lock(&c.m);
	EXPECT_TRUE(t, mutex_owner(&c.m) == current);
	EXPECT_FALSE(t, mutex_trylock(&c.m) && (mutex_unlock(&c.m), true));
	for (int i = 0; i < NWAITERS; i++) {
		a[i] = (struct order_arg){ &c, i };
		th[i] = kthread_run(order_waiter, &a[i], "mtx-wait");
		ASSERT_TRUE(t, th[i] != NULL);
		while (READ_ONCE(c.m.contended) < (u64)i + 1) /* queued: next one */
			msleep(1);
	}
	mutex_unlock(&c.m);
	for (int i = 0; i < NWAITERS; i++)
		kthread_join(th[i]);
	for (int i = 0; i < NWAITERS; i++)
		EXPECT_EQ(t, c.order[i], i);
	EXPECT_FALSE(t, mutex_is_locked(&c.m));
	EXPECT_TRUE(t, mutex_trylock(&c.m));
	mutex_unlock(&c.m);
}

#define CONTEND_THREADS 8
#define CONTEND_ROUNDS	50

struct contend_ctx {
	struct mutex m;
	u64 counter;
	int inside;
	bool overlap;
};

static void contend_fn(void *arg)
{
	struct contend_ctx *c = arg;

	for (int i = 0; i < CONTEND_ROUNDS; i++) {
		mutex_lock(&c->m);
		if (c->inside++)
			c->overlap = true;
		u64 v = c->counter;
		cpu_work(2000); /* 2 us inside: the others queue up */
		yield();
		c->counter = v + 1;
		c->inside--;
		mutex_unlock(&c->m);
	}
}

static void mutex_contention(struct ktest *t)
{
	struct contend_ctx c = { .counter = 0 };
	struct task_struct *th[CONTEND_THREADS];

	mutex_init(&c.m);
	for (int i = 0; i < CONTEND_THREADS; i++)
		th[i] = kthread_run(contend_fn, &c, "mtx-hammer");
	for (int i = 0; i < CONTEND_THREADS; i++)
		if (th[i])
			kthread_join(th[i]);
	EXPECT_EQ(t, c.counter, (u64)CONTEND_THREADS * CONTEND_ROUNDS);
	EXPECT_FALSE(t, c.overlap);
	ktest_diag(t, "%llu of %d lock calls slept", c.m.contended,
		   CONTEND_THREADS * CONTEND_ROUNDS);
}

struct sem_ctx {
	struct semaphore s;
	int inside, max_inside;
	spinlock_t lock;
};

static void sem_fn(void *arg)
{
	struct sem_ctx *c = arg;

	for (int i = 0; i < 20; i++) {
		down(&c->s);
		unsigned long f = spin_lock_irqsave(&c->lock);
		if (++c->inside > c->max_inside)
			c->max_inside = c->inside;
		spin_unlock_irqrestore(&c->lock, f);
		cpu_work(20000); /* 20 us of work while holding a unit */
		f = spin_lock_irqsave(&c->lock);
		c->inside--;
		spin_unlock_irqrestore(&c->lock, f);
		up(&c->s);
	}
}

static void semaphore_counts(struct ktest *t)
{
	struct sem_ctx c = { .inside = 0, .max_inside = 0 };
	struct task_struct *th[6];

	sema_init(&c.s, 2);
	spin_lock_init(&c.lock);
	for (int i = 0; i < 6; i++)
		th[i] = kthread_run(sem_fn, &c, "sem");
	for (int i = 0; i < 6; i++)
		if (th[i])
			kthread_join(th[i]);
	EXPECT_LE(t, c.max_inside, 2);
	EXPECT_GE(t, c.max_inside, 1);
	EXPECT_EQ(t, c.inside, 0);
	EXPECT_TRUE(t, down_trylock(&c.s));
	EXPECT_TRUE(t, down_trylock(&c.s));
	EXPECT_FALSE(t, down_trylock(&c.s));
	up(&c.s);
	up(&c.s);
}

struct comp_ctx {
	struct completion c;
	int woken;
};

static void comp_waiter(void *arg)
{
	struct comp_ctx *x = arg;

	wait_for_completion(&x->c);
	__atomic_fetch_add(&x->woken, 1, __ATOMIC_RELAXED);
}

static void completion_one_and_all(struct ktest *t)
{
	struct comp_ctx x = { .woken = 0 };
	struct task_struct *th[3];

	init_completion(&x.c);
	complete(&x.c); /* a completion before the wait is kept */
	wait_for_completion(&x.c);
	EXPECT_FALSE(t, completion_done(&x.c));
	for (int i = 0; i < 3; i++)
		th[i] = kthread_run(comp_waiter, &x, "comp");
	msleep(2);
	EXPECT_EQ(t, READ_ONCE(x.woken), 0);
	complete(&x.c); /* exactly one waiter */
	/* Its CPU may wake from a cluster idle state (exit latency up to a
	 * few ms on the HiKey960 trees): wait for the one, then give a
	 * second waiter the same time to show up wrongly. */
	for (int ms = 0; ms < 50 && !READ_ONCE(x.woken); ms++)
		msleep(1);
	msleep(10);
	EXPECT_EQ(t, READ_ONCE(x.woken), 1);
	complete_all(&x.c);
	for (int i = 0; i < 3; i++)
		if (th[i])
			kthread_join(th[i]);
	EXPECT_EQ(t, x.woken, 3);
	wait_for_completion(&x.c); /* stays done after complete_all */
	reinit_completion(&x.c);
	EXPECT_FALSE(t, completion_done(&x.c));
}

#define BAR_THREADS 5
#define BAR_ROUNDS  6

struct bar_ctx {
	struct barrier b;
	int round[BAR_THREADS];
	int serial, behind;
};

struct bar_arg {
	struct bar_ctx *c;
	int id;
};

static void bar_fn(void *arg)
{
	struct bar_arg *a = arg;
	struct bar_ctx *c = a->c;

	for (int r = 1; r <= BAR_ROUNDS; r++) {
		cpu_work((u64)(a->id + 1) * 10000); /* arrive at different times */
		WRITE_ONCE(c->round[a->id], r);
		if (barrier_wait(&c->b))
			__atomic_fetch_add(&c->serial, 1, __ATOMIC_RELAXED);
		for (int i = 0; i < BAR_THREADS; i++) /* nobody left behind */
			if (READ_ONCE(c->round[i]) < r)
				__atomic_fetch_add(&c->behind, 1, __ATOMIC_RELAXED);
	}
}

static void barrier_rounds(struct ktest *t)
{
	struct bar_ctx c = { .serial = 0, .behind = 0 };
	struct bar_arg a[BAR_THREADS];
	struct task_struct *th[BAR_THREADS];

	barrier_init(&c.b, BAR_THREADS);
	for (int i = 0; i < BAR_THREADS; i++) {
		a[i] = (struct bar_arg){ &c, i };
		c.round[i] = 0;
		th[i] = kthread_run(bar_fn, &a[i], "barrier");
	}
	for (int i = 0; i < BAR_THREADS; i++)
		if (th[i])
			kthread_join(th[i]);
	EXPECT_EQ(t, c.serial, BAR_ROUNDS);
	EXPECT_EQ(t, c.behind, 0);
}

KTEST_SUITE(mutex, KTEST_CASE(mutex_fifo_handover), KTEST_CASE(mutex_contention),
	    KTEST_CASE(semaphore_counts), KTEST_CASE(completion_one_and_all),
	    KTEST_CASE(barrier_rounds));

/* ---- pipes ------------------------------------------------------------------------- */

#define STREAM_BYTES 20000

static void stream_writer(void *arg)
{
	struct pipe *p = arg;
	u8 chunk[333];
	u32 off = 0;

	while (off < STREAM_BYTES) {
		size_t n = 1 + (off * 7) % sizeof(chunk); /* odd sizes, wrapping the ring */

		if (n > STREAM_BYTES - off)
			n = STREAM_BYTES - off;
		for (size_t i = 0; i < n; i++)
			chunk[i] = (u8)((off + i) * 13);
		pipe_write(p, chunk, n);
		off += (u32)n;
	}
	pipe_close(p);
}

static void pipe_stream_integrity(struct ktest *t)
{
	struct pipe p;
	struct task_struct *w;
	u8 buf[257];
	u32 off = 0;
	int bad = 0;
	size_t n;

	ASSERT_EQ(t, pipe_init(&p, 1024), 0);
	w = kthread_run(stream_writer, &p, "pipe-w");
	ASSERT_TRUE(t, w != NULL);
	while ((n = pipe_read(&p, buf, sizeof(buf))) > 0) {
		for (size_t i = 0; i < n; i++)
			bad += buf[i] != (u8)((off + i) * 13);
		off += (u32)n;
	}
	kthread_join(w);
	EXPECT_EQ(t, off, STREAM_BYTES);
	EXPECT_EQ(t, bad, 0);
	EXPECT_EQ(t, pipe_read(&p, buf, 1), 0); /* EOF stays */
	pipe_destroy(&p);
}

#define MSG	    100
#define MSG_WRITERS 4
#define MSGS_EACH   50

struct msg_arg {
	struct pipe *p;
	u8 id;
};

static void msg_writer(void *arg)
{
	struct msg_arg *a = arg;
	u8 m[MSG];

	for (int i = 0; i < MSG; i++)
		m[i] = a->id;
	for (int i = 0; i < MSGS_EACH; i++)
		pipe_write(a->p, m, MSG);
}

/* Writes of 100 bytes from several writers never interleave. */
static void pipe_small_writes_atomic(struct ktest *t)
{
	struct pipe p;
	struct msg_arg a[MSG_WRITERS];
	struct task_struct *th[MSG_WRITERS];
	int count[MSG_WRITERS] = { 0 }, mixed = 0;
	u8 m[MSG];

	ASSERT_EQ(t, pipe_init(&p, 512), 0); /* 5 messages fit, not a multiple */
	for (int i = 0; i < MSG_WRITERS; i++) {
		a[i] = (struct msg_arg){ &p, (u8)i };
		th[i] = kthread_run(msg_writer, &a[i], "pipe-msg");
	}
	for (int k = 0; k < MSG_WRITERS * MSGS_EACH; k++) {
		ASSERT_EQ(t, pipe_read_full(&p, m, MSG), MSG);
		for (int i = 1; i < MSG; i++)
			mixed += m[i] != m[0];
		if (m[0] < MSG_WRITERS)
			count[m[0]]++;
	}
	for (int i = 0; i < MSG_WRITERS; i++) {
		if (th[i])
			kthread_join(th[i]);
		EXPECT_EQ(t, count[i], MSGS_EACH);
	}
	EXPECT_EQ(t, mixed, 0);
	EXPECT_EQ(t, pipe_used(&p), 0);
	pipe_destroy(&p);
}

/* Each thread writes a message, then reads one back (maybe another's), on one
 * pipe: the pipe always holds one message per thread between its write and its
 * read, so no reader may sleep. One did, by a pipe holding 8 bytes, when a
 * waiter read head before tail locklessly (kernel/pipe.c). A thread still
 * waiting after 1 s is reported and released by closing the pipe. */
#define TRADERS	    16
#define TRADES_EACH 400
static unsigned long trades_done;

static void trader(void *arg)
{
	struct pipe *p = arg;
	u8 m[MSG] = { 0 };

	for (int i = 0; i < TRADES_EACH; i++) {
		pipe_write(p, m, MSG);
		if (pipe_read_full(p, m, MSG) != MSG)
			return; /* closed: released by the test */
		if (i % 16 == 15)
			yield();
	}
	__atomic_add_fetch(&trades_done, 1, __ATOMIC_ACQ_REL);
}

static void pipe_traders_never_strand(struct ktest *t)
{
	struct task_struct *th[TRADERS];
	u64 deadline = arch_clock_ns() + NSEC_PER_SEC;
	unsigned long done;
	struct pipe p;

	ASSERT_EQ(t, pipe_init(&p, 0), 0);
	trades_done = 0;
	for (int i = 0; i < TRADERS; i++)
		th[i] = kthread_run(trader, &p, "pipe-trade");
	while ((done = __atomic_load_n(&trades_done, __ATOMIC_ACQUIRE)) < TRADERS &&
	       arch_clock_ns() < deadline)
		msleep(1);
	if (done < TRADERS) {
		ktest_diag(t, "%lu of %d traders still waiting after 1 s, %zu bytes in the pipe",
			   TRADERS - done, TRADERS, pipe_used(&p));
		pipe_close(&p);
	}
	for (int i = 0; i < TRADERS; i++)
		if (th[i])
			kthread_join(th[i]);
	EXPECT_EQ(t, done, TRADERS);
	pipe_destroy(&p);
}

KTEST_SUITE(pipe, KTEST_CASE(pipe_stream_integrity), KTEST_CASE(pipe_small_writes_atomic),
	    KTEST_CASE(pipe_traders_never_strand));

/* ---- sleeps ------------------------------------------------------------------------ */

static void hrsleep_absolute(struct ktest *t)
{
	u64 deadline = arch_clock_ns() + 3 * NSEC_PER_MSEC;

	sleep_until_ns(deadline);
	EXPECT_GE(t, arch_clock_ns(), deadline);
	u64 before = arch_clock_ns();
	sleep_until_ns(before - 1); /* past: returns at once */
	EXPECT_LT(t, arch_clock_ns() - before, NSEC_PER_MSEC);
}

static void hrsleep_periodic(struct ktest *t)
{
	struct periodic p;
	u64 start = arch_clock_ns();
	s64 slack;
	int late = 0;

	periodic_start(&p, 2 * NSEC_PER_MSEC);
	for (int i = 0; i < 5; i++) {
		slack = periodic_wait(&p);
		late += slack < 0;
		EXPECT_GE(t, arch_clock_ns(), start + (u64)(i + 1) * 2 * NSEC_PER_MSEC);
	}
	EXPECT_EQ(t, late, 0);
	/* Work longer than the period: the boundary has passed, slack < 0. */
	cpu_work(3 * NSEC_PER_MSEC);
	slack = periodic_wait(&p);
	EXPECT_LT(t, slack, 0);
	EXPECT_EQ(t, p.missed, 1);
	ktest_diag(t, "slack after 3 ms of work on a 2 ms period: %lld us",
		   (long long)slack / 1000);
}

KTEST_SUITE(hrsleep, KTEST_CASE(hrsleep_absolute), KTEST_CASE(hrsleep_periodic));
