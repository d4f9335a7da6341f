/* selftest_balance.c - self-tests of the load balancer's rules for pinned tasks (Linux
 * 6.1's load_balance() and can_migrate_task(): LBF_SOME_PINNED, LBF_DST_PINNED and the
 * retry on another CPU of the local group, group_imbalanced on the parent level), in
 * emulated time. CPU-bound work is cpu_work(), never spinning. */
#include "kernel.h"
#include "ktest.h"
#include "sched.h"
#include "timer.h"
#include "topology.h"

#define US 1000ull
#define MS 1000000ull

struct pinned_hog {
	volatile bool stop;
	int watch_cpu;		  /* note when it first runs here (-1: none) */
	volatile u64 on_watch_ns; /* when it first ran on watch_cpu */
};

static void pinned_hog_fn(void *arg)
{
	struct pinned_hog *h = arg;

	while (!h->stop) {
		if (!h->on_watch_ns && (int)arch_cpu_id() == h->watch_cpu)
			h->on_watch_ns = arch_clock_ns();
		cpu_work(200 * US);
	}
}

static struct task_struct *start_on(struct pinned_hog *h, const char *name, const cpumask_t *mask)
{
	struct task_struct *t = kthread_create(pinned_hog_fn, h, name);

	if (t) {
		set_cpus_allowed(t, mask);
		wake_up_new_task(t);
	}
	return t;
}

#define MAX_LITTLE 4

/*
 * Linux 6.1: the balancer moves load around a pinned task to the group's other CPU.
 * The LITTLE cluster is overloaded: one hog pinned to each LITTLE CPU, and on the last
 * one, l, also X, allowed only l and the big cluster's last CPU, b. The bigs are idle.
 * At the top level only the first idle big (not b) balances for the big group
 * (should_we_balance()); it finds the LITTLE group overloaded and l the busiest CPU, but
 * X may not run on it: can_migrate_task() marks LBF_SOME_PINNED and, as b is in the
 * local group and in X's mask, LBF_DST_PINNED with new_dst_cpu = b; the imbalance is
 * left, so load_balance() goes again from l with b as the destination and X moves there.
 * Without the retry nothing ever moves X (every other task is pinned, and b itself is
 * never the group's balancing CPU while an earlier big is idle).
 */
static void balance_around_pinned_task(struct ktest *t)
{
	static struct pinned_hog h[MAX_LITTLE + 1];
	struct task_struct *th[MAX_LITTLE + 1];
	unsigned long min_cap = ~0ul, max_cap = 0;
	int little[NR_CPUS], nl = 0, l, b = -1, nb = 0, n;
	unsigned int home;
	cpumask_t mask, saved;
	u64 t0, waited;

	for (unsigned int c = 0; c < nr_cpu_ids; c++) {
		if (!cpu_online(c))
			continue;
		min_cap = MIN(min_cap, capacity_orig_of(c));
		max_cap = MAX(max_cap, capacity_orig_of(c));
	}
	for (unsigned int c = 0; c < nr_cpu_ids; c++) {
		if (!cpu_online(c))
			continue;
		if (capacity_orig_of(c) == min_cap)
			little[nl++] = (int)c;
		else if (capacity_orig_of(c) == max_cap)
			b = (int)c, nb++;
	}
	if (min_cap == max_cap || nb < 2)
		KTEST_SKIP(t, "needs a LITTLE and a big cluster of 2+ CPUs");
	if (nl > MAX_LITTLE)
		KTEST_SKIP(t, "more than 4 LITTLE CPUs to fill");
	l = little[nl - 1];
	/* this thread waits on little[0]: run on b, its sleeps would make b pull
	 * (newidle), a path that needs no retry */
	saved = current->cpus_allowed;
	home = arch_cpu_id();
	set_cpus_allowed(current, cpumask_of((unsigned int)little[0]));
	for (n = 0; n < nl; n++) {
		h[n] = (struct pinned_hog){ .watch_cpu = -1 };
		th[n] = start_on(&h[n], "lb-pinned", cpumask_of((unsigned int)little[n]));
		ASSERT_TRUE(t, th[n] != NULL);
	}
	h[n] = (struct pinned_hog){ .watch_cpu = b };
	th[n] = start_on(&h[n], "lb-x", cpumask_of((unsigned int)l));
	ASSERT_TRUE(t, th[n] != NULL);
	msleep(20); /* X shares l with its pinned hog */
	cpumask_copy(&mask, cpumask_of((unsigned int)l));
	cpumask_set_cpu((unsigned int)b, &mask);
	set_cpus_allowed(th[n], &mask);
	t0 = arch_clock_ns();
	for (waited = 0; waited < 300 * MS && !h[n].on_watch_ns; waited += 5 * MS)
		msleep(5);
	ktest_diag(t, "X (CPU %d or %d) %s CPU %d %lld ms after it was allowed there", l, b,
		   h[n].on_watch_ns ? "reached" : "never reached", b,
		   h[n].on_watch_ns ? (long long)((h[n].on_watch_ns - t0) / MS) : -1);
	ktest_diag(t, "its last move: CPU %d -> %d, level %u, idle type %u, migration type %u%s",
		   th[n]->why.move.src, th[n]->why.move.dst, th[n]->why.move.level,
		   th[n]->why.move.idle, th[n]->why.move.type,
		   th[n]->why.move.active ? ", active" : "");
	EXPECT_TRUE(t, h[n].on_watch_ns != 0);
	EXPECT_TRUE(t, h[n].on_watch_ns && h[n].on_watch_ns - t0 < 200 * MS);
	for (int i = 0; i <= n; i++)
		h[i].stop = true;
	for (int i = 0; i <= n; i++)
		kthread_join(th[i]);
	/* the next suites as without this one: this thread back where it was, a
	 * quiet machine (the LITTLE CPUs' balance clears the group_imbalanced mark,
	 * the idle CPUs' governors see long idles again) */
	set_cpus_allowed(current, cpumask_of(home));
	set_cpus_allowed(current, &saved);
	msleep(200);
}

KTEST_SUITE(balance, KTEST_CASE(balance_around_pinned_task));
