/* bench_pipe.c - `perf bench sched pipe -T`: two threads pass a 4-byte token
 * through two pipes, loops round trips; reports usecs/op, ops/sec and each
 * thread's migrations (the E1 workload). Times are emulated ns. */
#include "bench.h"
#include "bench_internal.h"
#include "kernel.h"
#include "mm.h"
#include "mutex.h"
#include "pipe.h"
#include "sched.h"

struct pp_ctx {
	struct pipe pipe[2]; /* 0: A -> B, 1: B -> A */
	struct barrier start;
	struct completion a_started; /* thread A is on its way to the start */
	u64 loops, t0, t1, done;     /* done: A's round trips (all of loops unless stopped) */
	u64 migrations[2];
	int cpu_first[2], cpu_last[2];
};

struct pp_arg {
	struct pp_ctx *c;
	int me;
};

static void pp_thread(void *arg)
{
	struct pp_arg *a = arg;
	struct pp_ctx *c = a->c;
	u64 m0;
	u32 token = 0;

	if (a->me == 0)
		complete(&c->a_started);
	barrier_wait(&c->start);
	m0 = current->se.nr_migrations;
	c->cpu_first[a->me] = (int)arch_cpu_id();
	if (a->me == 0)
		c->t0 = arch_clock_ns();
	for (u64 i = 0; i < c->loops; i++) {
		if (a->me == 0) { /* perf's worker_thread: write, then read */
			/* Only A looks at an interruption: closing A -> B ends B's read. */
			if (bench_interrupted()) {
				pipe_close(&c->pipe[0]);
				break;
			}
			if (!(i & 1023))
				bench_progress(NULL, i, c->loops);
			pipe_write(&c->pipe[0], &token, sizeof(token));
			pipe_read_full(&c->pipe[1], &token, sizeof(token));
			c->done = i + 1;
		} else {
			if (pipe_read_full(&c->pipe[0], &token, sizeof(token)) < sizeof(token))
				break;
			pipe_write(&c->pipe[1], &token, sizeof(token));
		}
	}
	if (a->me == 0)
		c->t1 = arch_clock_ns();
	c->migrations[a->me] = current->se.nr_migrations - m0;
	c->cpu_last[a->me] = (int)arch_cpu_id();
}

int bench_pipe(u64 loops, struct pipe_result *r)
{
	return bench_pipe_on(loops, NULL, r);
}

/* The same with both threads pinned to cpus (NULL: anywhere): `taskset`. */
int bench_pipe_on(u64 loops, const cpumask_t *cpus, struct pipe_result *r)
{
	struct pp_ctx *c = kzalloc(sizeof(*c));
	struct pp_arg a[2];
	struct task_struct *t[2];
	int ret = -1;

	if (!c || !loops) {
		printk("bench pipe: %s\n", c ? "n must be at least 1" : "out of memory");
		kfree(c);
		return -1;
	}
	c->loops = loops;
	r->partial = false;
	barrier_init(&c->start, 2);
	init_completion(&c->a_started);
	if (pipe_init(&c->pipe[0], 0) || pipe_init(&c->pipe[1], 0))
		goto nomem;
	for (int i = 0; i < 2; i++) {
		a[i] = (struct pp_arg){ c, i };
		t[i] = kthread_create(pp_thread, &a[i], i ? "pipe-1" : "pipe-0");
	}
	if (!t[0] || !t[1]) { /* out of memory: a refusal, not a panic */
		kthread_discard(t[0]);
		kthread_discard(t[1]);
		goto nomem;
	}
	for (int i = 0; i < 2 && cpus; i++)
		set_cpus_allowed(t[i], cpus);
	/* B is placed once A has run, as the Linux side's second pthread_create() comes after
	 * its first thread has started (clone and the new stack's mmap take longer than the
	 * thread's first steps): woken back to back, B's fork balancing saw A still queued
	 * on its CPU and took the other cluster, and A moved at its first wakeup (issue 32;
	 * docs/compare.md). */
	wake_up_new_task(t[0]);
	wait_for_completion(&c->a_started);
	wake_up_new_task(t[1]);
	kthread_join(t[0]);
	kthread_join(t[1]);
	r->loops = c->done;
	r->target = loops;
	r->ns = c->t1 - c->t0;
	r->migrations[0] = c->migrations[0];
	r->migrations[1] = c->migrations[1];
	for (int i = 0; i < 2; i++) {
		r->cpu_first[i] = c->cpu_first[i];
		r->cpu_last[i] = c->cpu_last[i];
	}
	if (bench_interrupted()) { /* what was done, for the caller to show as partial */
		r->partial = c->done > 0;
		goto out;
	}
	ret = 0;
	goto out;
nomem:
	printk("bench pipe: out of memory\n");
out:
	pipe_destroy(&c->pipe[0]);
	pipe_destroy(&c->pipe[1]);
	kfree(c);
	return ret;
}

void bench_pipe_print_partial(const char *label, const struct pipe_result *r)
{
	u64 us = r->ns / 1000;

	printk("  %s: %llu of %llu round trips in %llu.%03llu s: %llu ops/sec, migrations %llu "
	       "+ %llu\n",
	       label, r->loops, r->target, us / 1000000, us / 1000 % 1000,
	       r->ns ? r->loops * NSEC_PER_SEC / r->ns : 0, r->migrations[0], r->migrations[1]);
}

void bench_pipe_print(const struct pipe_result *r)
{
	u64 ns_op100 = r->ns * 100 / r->loops; /* hundredths of ns per op */
	u64 ops = r->ns ? r->loops * NSEC_PER_SEC / r->ns : 0;
	u64 us = r->ns / 1000;

	printk("# Running 'sched/pipe' benchmark:\n# Executed %llu pipe operations between "
	       "two threads\n\n     Total time: %llu.%03llu [sec]\n\n",
	       r->loops, us / 1000000, us / 1000 % 1000);
	printk("     %llu.%03llu usecs/op\n     %llu ops/sec\n     migrations: %llu + %llu\n",
	       ns_op100 / 100000, ns_op100 / 100 % 1000, ops, r->migrations[0], r->migrations[1]);
	/* Where the two threads ran (tools/compare/linux_pipe.c prints the same line). */
	printk("# pingpong threads' CPUs, loop start -> end: %d -> %d, %d -> %d\n", r->cpu_first[0],
	       r->cpu_last[0], r->cpu_first[1], r->cpu_last[1]);
	printk("RESULT pingpong loops=%llu usec_per_op=%llu.%03llu ops_per_sec=%llu "
	       "migrations=%llu migrations_0=%llu migrations_1=%llu%s\n",
	       r->loops, ns_op100 / 100000, ns_op100 / 100 % 1000, ops,
	       r->migrations[0] + r->migrations[1], r->migrations[0], r->migrations[1],
	       bench_features());
}
