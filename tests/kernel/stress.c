/* stress.c - suite stress: thousands of short-lived threads doing random
 * sleeps, yields, nice/affinity/policy changes, mutex and pipe traffic and
 * child threads on every CPU, under the run-queue invariant checker; at the
 * end every thread is accounted for and every page is back. stress_oom does
 * the same while it holds (almost) all memory for a while: creating threads
 * and pipes must fail cleanly, then work again. Repeatable choices: a PRNG
 * seeded from bootargs stress_seed=N (default 1). State: atomics, and the
 * controller's own slots (one thread). */
#include "bootargs.h"
#include "kernel.h"
#include "ktest.h"
#include "mm.h"
#include "mutex.h"
#include "pipe.h"
#include "sched.h"
#include "timer.h"

#define MAX_ALIVE 256
#define NR_MUTEXES 4
#define NR_PIPES 4
#define MSG 8	/* bytes a worker writes, then reads back (<= PIPE_BUF: atomic) */

struct stress_cfg {
	unsigned int total;	/* threads the controller creates */
	unsigned int alive;	/* at most this many at once (<= MAX_ALIVE) */
	unsigned int ops;	/* random operations per thread, at most */
	bool exhaust;		/* hold all memory for a while in the middle */
};

/* Shared by all workers; counters are atomics. */
static struct {
	u64 seed;
	struct mutex mutex[NR_MUTEXES];
	u64 protected_count[NR_MUTEXES];	/* incremented non-atomically under mutex */
	u64 mutex_ops;
	struct pipe pipe[NR_PIPES];
	unsigned long started, exited, children, child_fail, pipe_fail, pipe_ok, ops;
	volatile bool starving;	/* memory is held: failures are expected */
} st;

static u64 rnd(u64 *s)	/* xorshift64* */
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dull;
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
	cpu_work(10000 + rnd(s) % 40000);	/* briefly: an RT hog would starve the rest */
	sched_setscheduler(current, SCHED_NORMAL, 0);
}

static void op_mutex(u64 *s)
{
	int i = (int)(rnd(s) % NR_MUTEXES);
	u64 v;

	mutex_lock(&st.mutex[i]);
	v = st.protected_count[i];
	if (rnd(s) & 1)
		yield();	/* another CPU would see a torn count without the mutex */
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

static void op_child(u64 *s)
{
	struct task_struct *c = kthread_create(worker, (void *)(uintptr_t)(rnd(s) | 1), "stress-child");

	if (!c) {
		add(&st.child_fail);
		return;
	}
	add(&st.children);
	set_cpus_allowed(c, (rnd(s) & cpu_online_mask) ?: cpu_online_mask);
	wake_up_new_task(c);
	kthread_join(c);
}

/* arg: this thread's seed; a child (odd seed from op_child) spawns no more. */
static void worker(void *arg)
{
	u64 s = (u64)(uintptr_t)arg, n;
	bool child = s & 1;

	add(&st.started);
	n = 1 + rnd(&s) % 16;
	for (u64 i = 0; i < n; i++) {
		switch (rnd(&s) % 9) {
		case 0: sleep_ns(rnd(&s) % (2 * NSEC_PER_MSEC)); break;
		case 1: yield(); break;
		case 2: set_user_nice(current, (int)(rnd(&s) % 16) - 5); break;
		case 3: set_cpus_allowed(current, (rnd(&s) & cpu_online_mask) ?: cpu_online_mask);
			break;
		case 4: op_policy(&s); break;
		case 5: op_mutex(&s); break;
		case 6: op_pipe(&s); break;
		case 7: if (!child) op_child(&s); break;
		default: cpu_work(rnd(&s) % 200000); break;
		}
		add(&st.ops);
	}
	add(&st.exited);
}

/* ---- memory held by the test: every free page, in runs as long as possible ---------- */

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

struct stress_result {
	unsigned long created, create_fail, joined, held_pages, fail_while_held;
	unsigned long create_fail_held, ops_during, worker_fails;	/* while memory was held */
	bool recovered;	/* a thread and a pipe could be made again after the hold */
};

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
	struct task_struct *t = kthread_create(worker, (void *)(uintptr_t)(rnd(s) & ~1ull), "stress");
	unsigned int i = 0;

	if (!t)
		return false;
	while (slot[i])
		i++;
	slot[i] = t;
	(*alive)++;
	if (rnd(s) % 4 == 0)
		set_cpus_allowed(t, (rnd(s) & cpu_online_mask) ?: cpu_online_mask);
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
	unsigned long ops, fails;	/* the workers' at its start */
};

static void hold_start(struct hold *h, struct stress_result *r)
{
	struct task_struct *t;
	struct pipe p;

	h->hog = hog_all_memory(NULL, &r->held_pages);
	t = kthread_create(worker, (void *)2, "stress-oom");
	if (t)
		kthread_discard(t);
	r->fail_while_held += !t;
	r->fail_while_held += pipe_init(&p, 0) == -ENOMEM;
	h->until = arch_clock_ns() + HOLD_MS * NSEC_PER_MSEC;
	h->ops = st.ops;
	h->fails = st.child_fail + st.pipe_fail;
}

static void hold_end(struct hold *h, struct stress_result *r)
{
	r->ops_during = st.ops - h->ops;
	r->worker_fails = st.child_fail + st.pipe_fail - h->fails;
	hog_free(h->hog);
	h->hog = NULL;
}

static void stress_run(const struct stress_cfg *cfg, struct stress_result *r)
{
	static struct task_struct *slot[MAX_ALIVE];
	unsigned int alive = 0, loops = 0;
	struct hold hold = { 0 };
	u64 s = st.seed;

	memset(slot, 0, sizeof(slot));
	while (r->created < cfg->total || alive || hold.hog) {
		reap(slot, &alive, &r->joined);
		if (hold.hog)	/* what the reaped threads gave back */
			hold.hog = hog_all_memory(hold.hog, &r->held_pages);
		if (cfg->exhaust && !r->held_pages && r->created >= cfg->total / 3 &&
		    alive >= cfg->alive / 2)
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

/* ---- the cases ------------------------------------------------------------------------ */

struct baseline {
	unsigned long free_pages, slab_pages, tasks, running;
	size_t kmalloc;
};

static unsigned long nr_running_all(void)
{
	unsigned long n = 0;
	unsigned int cpu;

	for_each_cpu(cpu, cpu_online_mask)
		n += cpu_nr_running(cpu);
	return n;
}

static void take_baseline(struct baseline *b)
{
	b->free_pages = page_alloc_free_count();
	b->slab_pages = kmalloc_slab_pages();
	b->kmalloc = kmalloc_in_use();
	b->tasks = nr_tasks_alive();
	b->running = nr_running_all();
}

static int stress_setup(void)
{
	char v[24];

	memset(&st, 0, sizeof(st));
	st.seed = 1;
	if (bootarg_get("stress_seed", v, sizeof(v)) && v[0]) {
		st.seed = 0;
		for (const char *c = v; *c >= '0' && *c <= '9'; c++)
			st.seed = st.seed * 10 + (u64)(*c - '0');
	}
	st.seed = st.seed * 0x9e3779b97f4a7c15ull | 2;	/* never 0 for xorshift */
	for (int i = 0; i < NR_MUTEXES; i++)
		mutex_init(&st.mutex[i]);
	for (int i = 0; i < NR_PIPES; i++)
		if (pipe_init(&st.pipe[i], 0))
			return -ENOMEM;
	return 0;
}

static void stress_teardown(struct ktest *t)
{
	u64 counted = 0;

	for (int i = 0; i < NR_PIPES; i++) {
		EXPECT_EQ(t, pipe_used(&st.pipe[i]), 0);
		pipe_destroy(&st.pipe[i]);
	}
	for (int i = 0; i < NR_MUTEXES; i++)
		counted += st.protected_count[i];
	EXPECT_EQ(t, counted, st.mutex_ops);	/* mutual exclusion held */
}

/* Every thread accounted for, nothing left queued, every page back. */
static void expect_all_back(struct ktest *t, const struct baseline *b, unsigned long threads)
{
	struct baseline a;

	take_baseline(&a);
	EXPECT_EQ(t, st.started, threads);
	EXPECT_EQ(t, st.exited, threads);
	EXPECT_EQ(t, a.tasks, b->tasks);
	EXPECT_EQ(t, a.running, b->running);
	EXPECT_EQ(t, sched_check_invariants(true), 0);
	EXPECT_EQ(t, a.kmalloc, b->kmalloc);
	/* kmalloc keeps the pages it carved into size classes: count them as used. */
	EXPECT_EQ(t, a.free_pages + (a.slab_pages - b->slab_pages), b->free_pages);
}

static void stress_threads(struct ktest *t)
{
	struct stress_cfg cfg = { .total = 2000, .alive = 200 };
	struct stress_result r = { 0 };
	struct baseline b;
	u64 t0;

	take_baseline(&b);
	ASSERT_EQ(t, stress_setup(), 0);
	t0 = arch_clock_ns();
	stress_run(&cfg, &r);
	stress_teardown(t);
	ktest_diag(t, "%lu threads (+%lu children), %lu ops, %llu mutex ops, %lu private pipes, "
		   "%llu ms emulated", r.created, st.children, st.ops, st.mutex_ops, st.pipe_ok,
		   (arch_clock_ns() - t0) / NSEC_PER_MSEC);
	EXPECT_EQ(t, r.created, cfg.total);
	EXPECT_EQ(t, r.joined, cfg.total);
	EXPECT_EQ(t, r.create_fail + st.child_fail + st.pipe_fail, 0);
	EXPECT_LT(t, arch_clock_ns() - t0, 20 * NSEC_PER_SEC);
	expect_all_back(t, &b, cfg.total + st.children);
}

/* A third of the way in, the test takes every free page for 20 ms. */
static void stress_oom(struct ktest *t)
{
	struct stress_cfg cfg = { .total = 600, .alive = 100, .exhaust = true };
	struct stress_result r = { 0 };
	struct task_struct *again;
	struct pipe p;
	struct baseline b;

	take_baseline(&b);
	ASSERT_EQ(t, stress_setup(), 0);
	stress_run(&cfg, &r);
	stress_teardown(t);
	ktest_diag(t, "held %lu pages for %d ms: %lu of 2 direct creations failed, the "
		   "controller's %lu, the workers' %lu in %lu ops; %lu threads, %lu children",
		   r.held_pages, HOLD_MS, r.fail_while_held, r.create_fail_held, r.worker_fails,
		   r.ops_during, r.created, st.children);
	EXPECT_GT(t, r.held_pages, b.free_pages / 2);
	EXPECT_EQ(t, r.fail_while_held, 2);
	EXPECT_GT(t, r.worker_fails + r.create_fail_held, 0);	/* mid-stress, not only here */
	EXPECT_EQ(t, r.create_fail, 0);	/* and nothing failed outside the hold */
	EXPECT_EQ(t, r.created, cfg.total);
	EXPECT_EQ(t, r.joined, cfg.total);
	/* Recovered: creation works again once the memory is back. */
	again = kthread_create(worker, (void *)2, "stress-again");
	EXPECT_TRUE(t, again != NULL);
	kthread_discard(again);
	EXPECT_EQ(t, pipe_init(&p, 0), 0);
	pipe_destroy(&p);
	expect_all_back(t, &b, cfg.total + st.children);
}

KTEST_SUITE(stress, KTEST_CASE(stress_threads), KTEST_CASE(stress_oom));
