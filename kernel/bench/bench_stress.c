/* bench_stress.c - the stress workload (suite stress, bench=stress): thousands of
 * short-lived threads doing random sleeps, yields, nice/affinity/policy
 * changes, mutex and pipe traffic and child threads on every CPU, made and
 * joined by one controller that keeps at most `alive` of them; optionally it
 * takes every free page for a while in the middle (creation must then fail
 * cleanly). Choices from a seeded PRNG. Shared state: atomics, the mutexes
 * and pipes; the controller's slots are its own. include/stress.h. */
#include "bench_internal.h"
#include "kernel.h"
#include "mm.h"
#include "mutex.h"
#include "pipe.h"
#include "sched.h"
#include "stress.h"
#include "timer.h"

#define MAX_ALIVE  STRESS_MAX_ALIVE
#define NR_MUTEXES 4
#define NR_PIPES   4
#define MSG	   8 /* bytes a worker writes, then reads back (<= PIPE_BUF: atomic) */

/* Shared by all workers; counters are atomics. */
static struct {
	struct mutex mutex[NR_MUTEXES];
	u64 protected_count[NR_MUTEXES]; /* incremented non-atomically under mutex */
	u64 mutex_ops;
	struct pipe pipe[NR_PIPES];
	unsigned long started, exited, children, child_fail, pipe_fail, pipe_ok, ops;
	unsigned long peak; /* most threads running at once */
} st;

static u64 rnd(u64 *s) /* xorshift64* */
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
}

/* A random subset of the online CPUs in *m (all of them if that is empty); one
 * rnd() value seeds every word, so the sequence is the one of 64-bit masks. */
static const cpumask_t *random_mask(u64 r, cpumask_t *m)
{
	for (int i = 0; i < CPUMASK_WORDS; i++)
		cpumask_bits(m)[i] = i ? (r << (13 * i)) | (r >> (64 - 13 * i)) : r;
	if (!cpumask_and(m, m, cpu_online_mask))
		*m = *cpu_online_mask;
	return m;
}

static void add(unsigned long *c)
{
	__atomic_add_fetch(c, 1, __ATOMIC_ACQ_REL);
}

static void op_policy(u64 *s)
{
	static const unsigned int policy[] = { SCHED_BATCH, SCHED_IDLE, SCHED_FIFO, SCHED_RR };
	unsigned int p = policy[rnd(s) % 4];

	sched_setscheduler(current, p, p == SCHED_FIFO || p == SCHED_RR ? 1 + rnd(s) % 10 : 0);
	cpu_work(10000 + rnd(s) % 40000); /* briefly: an RT hog would starve the rest */
	sched_setscheduler(current, SCHED_NORMAL, 0);
}

static void op_mutex(u64 *s)
{
	int i = (int)(rnd(s) % NR_MUTEXES);
	u64 v;

	mutex_lock(&st.mutex[i]);
	v = st.protected_count[i];
	if (rnd(s) & 1)
		yield(); /* another CPU would see a torn count without the mutex */
	st.protected_count[i] = v + 1;
	mutex_unlock(&st.mutex[i]);
	__atomic_add_fetch(&st.mutex_ops, 1, __ATOMIC_ACQ_REL);
}

/* A shared pipe: write MSG bytes, read MSG bytes (maybe others'); every
 * reader has written first, so the pipes always hold what readers wait for.
 * Then a private pipe, created and destroyed: that one may fail for memory. */
static void op_pipe(u64 *s)
{
	struct pipe *p = &st.pipe[rnd(s) % NR_PIPES], own;
	u8 buf[MSG] = { 1, 2, 3, 4, 5, 6, 7, 8 };

	pipe_write(p, buf, MSG);
	pipe_read_full(p, buf, MSG);
	if (pipe_init(&own, 0)) {
		add(&st.pipe_fail);
		return;
	}
	pipe_write(&own, buf, MSG);
	pipe_read_full(&own, buf, MSG);
	pipe_destroy(&own);
	add(&st.pipe_ok);
}

static void worker(void *arg);
static void note_peak(void);

static void op_child(u64 *s)
{
	cpumask_t m;
	struct task_struct *c =
		kthread_create(worker, (void *)(uintptr_t)(rnd(s) | 1), "stress-child");

	if (!c) {
		add(&st.child_fail);
		return;
	}
	add(&st.children);
	set_cpus_allowed(c, random_mask(rnd(s), &m));
	wake_up_new_task(c);
	kthread_join(c);
}

/* arg: this thread's seed; a child (odd seed from op_child) spawns no more. */
static void worker(void *arg)
{
	u64 s = (u64)(uintptr_t)arg, n;
	bool child = s & 1;
	cpumask_t m;

	add(&st.started);
	note_peak();
	/* A staggered start (0-30 ms asleep): threads overlap, hundreds alive at once. */
	sleep_ns(rnd(&s) % (30 * NSEC_PER_MSEC));
	n = 1 + rnd(&s) % 16;
	for (u64 i = 0; i < n; i++) {
		switch (rnd(&s) % 9) {
		case 0:
			sleep_ns(rnd(&s) % (2 * NSEC_PER_MSEC));
			break;
		case 1:
			yield();
			break;
		case 2:
			set_user_nice(current, (int)(rnd(&s) % 16) - 5);
			break;
		case 3:
			set_cpus_allowed(current, random_mask(rnd(&s), &m));
			break;
		case 4:
			op_policy(&s);
			break;
		case 5:
			op_mutex(&s);
			break;
		case 6:
			op_pipe(&s);
			break;
		case 7:
			if (!child)
				op_child(&s);
			break;
		default:
			cpu_work(rnd(&s) % 200000);
			break;
		}
		add(&st.ops);
	}
	add(&st.exited);
}

/* ---- memory held by the run: every free page, in runs as long as possible ---------- */

struct hog {
	struct hog *next;
	unsigned long pages;
};

/* Adds every free page to list (threads that exit give pages back: taken again). */
static struct hog *hog_all_memory(struct hog *list, unsigned long *held)
{
	unsigned long run = 1024;

	while (run) {
		struct hog *h = alloc_pages(run);

		if (!h) {
			run /= 2;
			continue;
		}
		h->next = list;
		h->pages = run;
		list = h;
		*held += run;
	}
	return list;
}

static void hog_free(struct hog *list)
{
	while (list) {
		struct hog *next = list->next;

		free_pages(list, list->pages);
		list = next;
	}
}

/* ---- the controller ---------------------------------------------------------------- */

static void reap(struct task_struct **slot, unsigned int *alive, unsigned long *joined)
{
	for (unsigned int i = 0; i < MAX_ALIVE; i++) {
		if (slot[i] && __atomic_load_n(&slot[i]->exited, __ATOMIC_ACQUIRE)) {
			kthread_join(slot[i]);
			slot[i] = NULL;
			(*alive)--;
			(*joined)++;
		}
	}
}

static bool start_one(struct task_struct **slot, unsigned int *alive, u64 *s)
{
	struct task_struct *t =
		kthread_create(worker, (void *)(uintptr_t)(rnd(s) & ~1ull), "stress");
	unsigned int i = 0;
	cpumask_t m;

	if (!t)
		return false;
	while (slot[i])
		i++;
	slot[i] = t;
	(*alive)++;
	if (rnd(s) % 4 == 0)
		set_cpus_allowed(t, random_mask(rnd(s), &m));
	wake_up_new_task(t);
	return true;
}

/* The hold, in the middle of the run once half the threads are alive:
 * direct creations must fail with NULL / -ENOMEM; for HOLD_MS the workers
 * keep running into it (their failures are counted) and so does the controller. */
#define HOLD_MS 20

struct hold {
	struct hog *hog;
	u64 until;
	unsigned long ops, fails; /* the workers' at its start */
};

static unsigned long live(void)
{
	return __atomic_load_n(&st.started, __ATOMIC_ACQUIRE) -
	       __atomic_load_n(&st.exited, __ATOMIC_ACQUIRE);
}

static void note_peak(void)
{
	unsigned long n = live(), peak = __atomic_load_n(&st.peak, __ATOMIC_RELAXED);

	while (n > peak && !__atomic_compare_exchange_n(&st.peak, &peak, n, false, __ATOMIC_ACQ_REL,
							__ATOMIC_RELAXED))
		;
}

static void hold_start(struct hold *h, struct stress_result *r)
{
	struct task_struct *t;
	struct pipe p;

	/* Workers exiting on other CPUs give pages back at any moment, so a
	 * creation may find some: it is discarded and the memory taken again, a
	 * few times, until one meets none (seed 14 on qemu-bl44 met some once). */
	h->hog = hog_all_memory(NULL, &r->held_pages);
	for (int i = 0; i < 8 && (t = kthread_create(worker, (void *)2, "stress-oom")); i++) {
		kthread_discard(t);
		h->hog = hog_all_memory(h->hog, &r->held_pages);
	}
	r->fail_while_held += !t;
	/* A failed creation gives back what it had taken before failing (its task
	 * struct, say), and so may a worker exiting meanwhile: take it again, or the
	 * pipe may fit in it. */
	h->hog = hog_all_memory(h->hog, &r->held_pages);
	if (pipe_init(&p, 0) == -ENOMEM)
		r->fail_while_held++;
	else
		pipe_destroy(&p); /* counted as not failing; nothing leaks */
	h->until = arch_clock_ns() + HOLD_MS * NSEC_PER_MSEC;
	h->ops = st.ops;
	r->live_at_hold = live();
	h->fails = st.child_fail + st.pipe_fail;
}

static void hold_end(struct hold *h, struct stress_result *r)
{
	r->ops_during = st.ops - h->ops;
	r->worker_fails = st.child_fail + st.pipe_fail - h->fails;
	hog_free(h->hog);
	h->hog = NULL;
}

static void controller(const struct stress_cfg *cfg, struct stress_result *r)
{
	static struct task_struct *slot[MAX_ALIVE];
	unsigned int alive = 0, loops = 0;
	struct hold hold = { 0 };
	u64 s = cfg->seed * 0x9e3779b97f4a7c15ull | 2; /* even and never 0 (xorshift) */

	memset(slot, 0, sizeof(slot));
	while (r->created < cfg->total || alive || hold.hog) {
		reap(slot, &alive, &r->joined);
		if (hold.hog) /* what the reaped threads gave back */
			hold.hog = hog_all_memory(hold.hog, &r->held_pages);
		/* Once a quarter of `alive` threads are running (not merely unreaped),
		 * or at two thirds of the run whatever the count. */
		if (cfg->exhaust && !r->held_pages && r->created >= cfg->total / 3 &&
		    (live() >= cfg->alive / 4 || r->created >= cfg->total * 2 / 3))
			hold_start(&hold, r);
		if (hold.hog && arch_clock_ns() >= hold.until)
			hold_end(&hold, r);
		if (r->created < cfg->total && alive < cfg->alive) {
			if (start_one(slot, &alive, &s)) {
				r->created++;
				continue;
			}
			if (hold.hog)
				r->create_fail_held++;
			else
				r->create_fail++;
		}
		if (++loops % 64 == 0)
			sched_check_invariants(true);
		msleep(1);
	}
}

/* The shared mutexes and pipes, then the controller, then what the workers
 * counted; the run is over when every thread it made has been joined. */
int stress_run(const struct stress_cfg *cfg, struct stress_result *r)
{
	u64 t0 = arch_clock_ns();
	int err = 0;

	memset(r, 0, sizeof(*r));
	if (!cfg->total || !cfg->alive || cfg->alive > MAX_ALIVE) {
		printk("stress: threads must be at least 1 and alive 1..%d\n", MAX_ALIVE);
		return -EINVAL;
	}
	memset(&st, 0, sizeof(st));
	for (int i = 0; i < NR_MUTEXES; i++)
		mutex_init(&st.mutex[i]);
	for (int i = 0; i < NR_PIPES && !err; i++)
		err = pipe_init(&st.pipe[i], 0);
	if (!err)
		controller(cfg, r);
	for (int i = 0; i < NR_PIPES; i++) {
		r->pipe_left += st.pipe[i].buf ? pipe_used(&st.pipe[i]) : 0;
		if (st.pipe[i].buf)
			pipe_destroy(&st.pipe[i]);
	}
	for (int i = 0; i < NR_MUTEXES; i++)
		r->mutex_counted += st.protected_count[i];
	r->mutex_ops = st.mutex_ops;
	r->started = st.started;
	r->exited = st.exited;
	r->children = st.children;
	r->child_fail = st.child_fail;
	r->pipe_fail = st.pipe_fail;
	r->pipe_ok = st.pipe_ok;
	r->ops = st.ops;
	r->peak_live = st.peak;
	r->ns = arch_clock_ns() - t0;
	if (err)
		printk("stress: out of memory for the shared pipes\n");
	return err;
}

/* bench=stress,n=20000,a=200,s=1[,oom]: the long run. It checks what the
 * self-test checks of the threads (RESULT ... ok=1) and prints the rate. */
int bench_stress(const char *spec)
{
	struct stress_cfg cfg = { .total = (unsigned int)bench_arg(spec, "n", 20000),
				  .alive = (unsigned int)bench_arg(spec, "a", 200),
				  .seed = bench_arg(spec, "s", 1),
				  .exhaust = bench_flag(spec, "oom") };
	unsigned long tasks = nr_tasks_alive();
	struct stress_result r;
	bool ok;

	if (stress_run(&cfg, &r))
		return -1;
	ok = r.started == r.exited && r.joined == r.created && r.mutex_counted == r.mutex_ops &&
	     !r.pipe_left && nr_tasks_alive() == tasks && !sched_check_invariants(true);
	printk("RESULT stress threads=%lu children=%lu ops=%lu mutex_ops=%llu ms=%llu "
	       "threads_per_s=%llu create_fail=%lu held_pages=%lu ok=%d%s\n",
	       r.created, r.children, r.ops, r.mutex_ops, r.ns / NSEC_PER_MSEC,
	       r.ns ? (u64)(r.created + r.children) * NSEC_PER_SEC / r.ns : 0,
	       r.create_fail + r.create_fail_held, r.held_pages, ok, bench_features());
	return ok ? 0 : -1;
}
