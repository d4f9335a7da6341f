/* bench_hackbench.c - `perf bench sched messaging --pipe --thread`: G groups of
 * 20 senders and 20 receivers; each receiver owns a pipe, each sender
 * writes L messages of 100 bytes to every receiver of its group. All
 * threads are created first and released together; the time is from the
 * release to the last receiver done (emulated ns). With w, each message
 * also costs its writer and its reader w units of emulated work (the
 * syscall and copy on a real CPU, scaled by capacity; QEMU runs our own
 * code at one speed on every CPU). */
#include "bench.h"
#include "bench_internal.h"
#include "kernel.h"
#include "mm.h"
#include "mutex.h"
#include "pipe.h"
#include "sched.h"

#define HB_FDS	      20 /* perf's default num_fds: senders = receivers = 20 */
#define HB_MSG	      100
#define HB_MAX_GROUPS 16

struct hb_group {
	struct pipe pipe[HB_FDS]; /* one per receiver */
	int senders_left;	  /* the last sender out closes every pipe: receivers see EOF */
};

struct hb_ctx {
	struct completion go;
	struct hb_group *groups;
	u64 loops, work;
};

struct hb_arg {
	struct hb_ctx *c;
	struct hb_group *g;
	int idx;
	u64 done; /* a receiver's messages read, written once at its end */
};

static void hb_sender(void *arg)
{
	struct hb_arg *a = arg;
	u8 msg[HB_MSG];

	memset(msg, a->idx, sizeof(msg));
	wait_for_completion(&a->c->go);
	for (u64 i = 0; i < a->c->loops && !bench_interrupted(); i++) {
		if (a->g == a->c->groups && !a->idx && !(i & 63)) /* one sender reports */
			bench_progress(NULL, i, a->c->loops);
		for (int j = 0; j < HB_FDS; j++) {
			if (a->c->work)
				cpu_work(a->c->work);
			pipe_write(&a->g->pipe[j], msg, HB_MSG);
		}
	}
	/* Written data stays readable after the close: a full run is unchanged,
	 * an interrupted one ends the receivers' reads. */
	if (!__atomic_sub_fetch(&a->g->senders_left, 1, __ATOMIC_ACQ_REL))
		for (int j = 0; j < HB_FDS; j++)
			pipe_close(&a->g->pipe[j]);
}

static void hb_receiver(void *arg)
{
	struct hb_arg *a = arg;
	u8 msg[HB_MSG];

	wait_for_completion(&a->c->go);
	u64 i;

	for (i = 0; i < a->c->loops * HB_FDS; i++) {
		if (pipe_read_full(&a->g->pipe[a->idx], msg, HB_MSG) < HB_MSG)
			break; /* EOF: the senders were interrupted */
		if (a->c->work)
			cpu_work(a->c->work);
	}
	a->done = i;
}

int bench_hackbench(u64 groups, u64 loops, u64 work, struct hackbench_result *r)
{
	return bench_hackbench_on(groups, loops, work, NULL, r);
}

/* Every thread allowed only `cpus` (taskset -c of the whole run; NULL: any CPU). */
int bench_hackbench_on(u64 groups, u64 loops, u64 work, const cpumask_t *cpus,
		       struct hackbench_result *r)
{
	size_t nt = (size_t)groups * 2 * HB_FDS;
	struct hb_ctx c;
	struct hb_arg *args;
	struct task_struct **th;
	u64 t0;
	int ret = -1;

	if (!groups || groups > HB_MAX_GROUPS || !loops) {
		printk("bench hackbench: g must be 1..%d and l at least 1\n", HB_MAX_GROUPS);
		return -1;
	}
	init_completion(&c.go);
	c.loops = loops;
	c.work = work;
	c.groups = kzalloc(sizeof(*c.groups) * groups);
	args = kzalloc(sizeof(*args) * nt);
	th = kzalloc(sizeof(*th) * nt);
	if (!c.groups || !args || !th)
		goto out;
	for (u64 g = 0; g < groups; g++) {
		c.groups[g].senders_left = HB_FDS;
		for (int j = 0; j < HB_FDS; j++)
			if (pipe_init(&c.groups[g].pipe[j], 0))
				goto out;
	}
	for (size_t i = 0; i < nt; i++) {
		struct hb_group *g = &c.groups[i / (2 * HB_FDS)];
		bool sender = (i % (2 * HB_FDS)) >= HB_FDS;

		args[i] = (struct hb_arg){ &c, g, (int)(i % HB_FDS), 0 };
		th[i] = kthread_create(sender ? hb_sender : hb_receiver, &args[i],
				       sender ? "hb-send" : "hb-recv");
		if (!th[i]) { /* none started yet: undo and refuse */
			while (i--)
				kthread_discard(th[i]);
			goto out;
		}
	}
	for (size_t i = 0; i < nt; i++) {
		if (cpus)
			set_cpus_allowed(th[i], cpus);
		wake_up_new_task(th[i]);
	}
	t0 = arch_clock_ns();
	complete_all(&c.go);
	for (size_t i = 0; i < nt; i++)
		kthread_join(th[i]);
	r->ns = arch_clock_ns() - t0;
	r->groups = groups;
	r->loops = loops;
	r->delivered = 0;
	for (size_t i = 0; i < nt; i++) /* the receivers' counts (senders keep 0) */
		r->delivered += args[i].done;
	ret = bench_interrupted() ? -1 : 0;
	goto out_free;
out:
	printk("bench hackbench: out of memory\n");
out_free:
	for (u64 g = 0; c.groups && g < groups; g++)
		for (int j = 0; j < HB_FDS; j++)
			if (c.groups[g].pipe[j].buf)
				pipe_destroy(&c.groups[g].pipe[j]);
	kfree(c.groups);
	kfree(args);
	kfree(th);
	return ret;
}
