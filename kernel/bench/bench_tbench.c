/* bench_tbench.c - tbench's request/response shape over pipes (the kernel has no
 * network): C clients, each with its own server; a client writes a request,
 * the server works on it and writes a response, the client reads it and
 * works on it; for D ms of emulated time. Optionally beside a background of
 * periodic tasks (the "video playing" case of E2). Reports round trips, MB/s
 * and the client and server threads' migrations; with `why`, each thread's
 * placements at the end (the shell's `why`). State: one tb_ctx per run,
 * owned by the caller's thread; the threads only write their own slots. */
#include "bench_internal.h"
#include "cache.h"
#include "hrsleep.h"
#include "kernel.h"
#include "mm.h"
#include "mutex.h"
#include "pipe.h"
#include "sched.h"

#define TB_MAX_CLIENTS 4
#define TB_MAX_BG      8
#define TB_REQ	       256   /* bytes: an SMB request header and arguments */
#define TB_RESP	       4096  /* bytes: a reply with one page of data */
#define TB_CLIENT_WORK 10000 /* emulated ns per reply handled by the client */
#define TB_SERVER_WORK 20000 /* emulated ns per request handled by the server */
#define TB_QUIT	       0xff  /* first request byte: the client is done */

struct tb_ctx {
	struct pipe req[TB_MAX_CLIENTS], resp[TB_MAX_CLIENTS];
	struct barrier start, done; /* done: with why, clients wait while it is printed */
	u64 end_ns, bg_stop;
	u64 trips[TB_MAX_CLIENTS], mig[2 * TB_MAX_CLIENTS], bounced[2 * TB_MAX_CLIENTS];
	volatile bool bg_done;
	bool why;
};

struct tb_arg {
	struct tb_ctx *c;
	int id;
};

static void tb_client(void *arg)
{
	struct tb_arg *a = arg;
	struct tb_ctx *c = a->c;
	u8 req[TB_REQ] = { 0 }, resp[TB_RESP];
	u64 m0, b0;

	barrier_wait(&c->start);
	m0 = current->se.nr_migrations;
	b0 = current->stats.nr_wakeups_bounced;
	while (arch_clock_ns() < c->end_ns) {
		pipe_write(&c->req[a->id], req, TB_REQ);
		pipe_read_full(&c->resp[a->id], resp, TB_RESP);
		cpu_work(TB_CLIENT_WORK);
		c->trips[a->id]++;
	}
	c->mig[a->id] = current->se.nr_migrations - m0;
	c->bounced[a->id] = current->stats.nr_wakeups_bounced - b0;
	if (c->why) { /* alive, with the server blocked, while the caller prints */
		barrier_wait(&c->done);
		barrier_wait(&c->done);
	}
	req[0] = TB_QUIT;
	pipe_write(&c->req[a->id], req, TB_REQ);
}

static void tb_server(void *arg)
{
	struct tb_arg *a = arg;
	struct tb_ctx *c = a->c;
	u8 req[TB_REQ], resp[TB_RESP] = { 0 };
	u64 m0, b0;

	barrier_wait(&c->start);
	m0 = current->se.nr_migrations;
	b0 = current->stats.nr_wakeups_bounced;
	for (;;) {
		pipe_read_full(&c->req[a->id], req, TB_REQ);
		if (req[0] == TB_QUIT)
			break;
		cpu_work(TB_SERVER_WORK);
		pipe_write(&c->resp[a->id], resp, TB_RESP);
	}
	c->mig[TB_MAX_CLIENTS + a->id] = current->se.nr_migrations - m0;
	c->bounced[TB_MAX_CLIENTS + a->id] = current->stats.nr_wakeups_bounced - b0;
}

/* The "video playing" background, as a desktop runs it: decoder threads
 * with a frame's work every 1/60 s, the compositor on the same beat, audio
 * every 5 ms, and short input/X-server bursts every 2 ms. bg=N takes the
 * first N. {period, work} in emulated ns. */
static const u64 tb_video[TB_MAX_BG][2] = {
	{ 16666667, 6000000 }, { 16666667, 6000000 }, { 5000000, 300000 },   { 16666667, 1000000 },
	{ 2000000, 100000 },   { 16666667, 6000000 }, { 16666667, 6000000 }, { 2000000, 100000 },
};

static void tb_background(void *arg)
{
	struct tb_arg *a = arg;
	struct tb_ctx *c = a->c;
	struct periodic per;

	/* Staggered phases, as independent threads would be. */
	sleep_ns(tb_video[a->id][0] * (u64)a->id / TB_MAX_BG);
	periodic_start(&per, tb_video[a->id][0]);
	while (!READ_ONCE(c->bg_done)) {
		cpu_work(tb_video[a->id][1]);
		periodic_wait(&per);
	}
}

/* One thread's run in a line (its counts are the run's: each thread is new),
 * then its last placements (kernel/sched/why.c). */
static void tb_why(struct task_struct *p)
{
	printk("why-sum %d (%s): on CPU %d, switched in %llu, wakeups %llu (%llu moved), "
	       "migrations %llu, refills %llu (%llu us), owed %llu ns; last rule: %s\n",
	       p->pid, p->comm, p->cpu, p->stats.nr_switches, p->stats.nr_wakeups,
	       p->stats.nr_wakeups_migrate, p->se.nr_migrations, p->cache.nr,
	       p->cache.total_ns / 1000, p->cache.uncredited, sched_why_last_rule(p));
	sched_why_print(p);
}

/* Every thread is created before any starts: out of memory for one of them
 * discards the others (none has run) and refuses, rather than panicking. */
static bool tb_spawn(struct task_struct **t, void (*fn)(void *), struct tb_arg *a, const char *name,
		     struct task_struct **made, int *nr)
{
	*t = kthread_create(fn, a, name);
	if (!*t) {
		printk("bench tbench: out of memory for %s\n", name);
		while (*nr)
			kthread_discard(made[--*nr]);
		return false;
	}
	made[(*nr)++] = *t;
	return true;
}

int bench_tbench(u64 clients, u64 ms, u64 bg_tasks, bool why, struct tbench_result *r)
{
	struct task_struct *th[2 * TB_MAX_CLIENTS], *bg[TB_MAX_BG];
	struct task_struct *made[2 * TB_MAX_CLIENTS + TB_MAX_BG];
	struct tb_arg args[2 * TB_MAX_CLIENTS], bgargs[TB_MAX_BG];
	struct tb_ctx *c;
	int ret = -1, nr = 0;
	u64 t0;

	if (!clients || clients > TB_MAX_CLIENTS || !ms || bg_tasks > TB_MAX_BG) {
		printk("bench tbench: c must be 1..%d, d at least 1, bg 0..%d\n", TB_MAX_CLIENTS,
		       TB_MAX_BG);
		return -1;
	}
	c = kzalloc(sizeof(*c));
	if (!c)
		return -1;
	for (u64 i = 0; i < clients; i++)
		if (pipe_init(&c->req[i], 0) || pipe_init(&c->resp[i], 0))
			goto out;
	for (u64 i = 0; i < bg_tasks; i++) {
		bgargs[i] = (struct tb_arg){ c, (int)i };
		if (!tb_spawn(&bg[i], tb_background, &bgargs[i], "tb-video", made, &nr))
			goto out;
	}
	barrier_init(&c->start, (unsigned int)(2 * clients + 1));
	barrier_init(&c->done, (unsigned int)(clients + 1));
	c->why = why;
	for (u64 i = 0; i < clients; i++) {
		args[i] = (struct tb_arg){ c, (int)i };
		if (!tb_spawn(&th[i], tb_client, &args[i], "tb-client", made, &nr) ||
		    !tb_spawn(&th[clients + i], tb_server, &args[i], "tb-server", made, &nr))
			goto out;
	}
	for (int i = 0; i < nr; i++)
		wake_up_new_task(made[i]);
	c->end_ns = arch_clock_ns() + ms * NSEC_PER_MSEC;
	t0 = arch_clock_ns();
	barrier_wait(&c->start);
	*r = (struct tbench_result){ .clients = clients, .bg_tasks = bg_tasks };
	if (why) {
		barrier_wait(&c->done);
		r->ns = arch_clock_ns() - t0;
		for (u64 i = 0; i < 2 * clients; i++)
			tb_why(th[i]);
		for (u64 i = 0; i < bg_tasks; i++)
			tb_why(bg[i]);
		barrier_wait(&c->done);
	}
	for (u64 i = 0; i < 2 * clients; i++)
		kthread_join(th[i]);
	if (!why)
		r->ns = arch_clock_ns() - t0;
	WRITE_ONCE(c->bg_done, true);
	for (u64 i = 0; i < bg_tasks; i++)
		kthread_join(bg[i]);
	for (u64 i = 0; i < clients; i++) {
		r->trips += c->trips[i];
		r->migrations += c->mig[i] + c->mig[TB_MAX_CLIENTS + i];
		r->bounced += c->bounced[i] + c->bounced[TB_MAX_CLIENTS + i];
	}
	r->bytes = r->trips * (TB_REQ + TB_RESP);
	ret = 0;
out:
	for (u64 i = 0; i < clients; i++) {
		if (c->req[i].buf)
			pipe_destroy(&c->req[i]);
		if (c->resp[i].buf)
			pipe_destroy(&c->resp[i]);
	}
	kfree(c);
	return ret;
}

void bench_tbench_print(const struct tbench_result *r)
{
	u64 ms = r->ns / NSEC_PER_MSEC, mbs = ms ? r->bytes * 1000 / ms / 1000 : 0;

	printk("tbench: %llu clients, %llu background tasks, %llu ms\n", r->clients, r->bg_tasks,
	       ms);
	printk("    round trips:  %llu\n    throughput:   %llu.%03llu MB/sec\n"
	       "    migrations:   %llu (%llu moved again within the tick of their last "
	       "placement)\n",
	       r->trips, mbs / 1000, mbs % 1000, r->migrations, r->bounced);
	printk("RESULT tbench clients=%llu bg_tasks=%llu ms=%llu round_trips=%llu "
	       "mb_per_sec=%llu.%03llu migrations=%llu bounced=%llu%s\n",
	       r->clients, r->bg_tasks, ms, r->trips, mbs / 1000, mbs % 1000, r->migrations,
	       r->bounced, bench_features());
}
