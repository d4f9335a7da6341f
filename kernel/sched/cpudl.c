/* cpudl.c - each CPU's earliest DL deadline, kept as it changes, so that
 * find_later_rq() (deadline_push.c) finds a CPU with no DL task, or the one
 * whose earliest deadline is the latest, without visiting every run queue.
 * One map (one root domain here). Not the EDF queues themselves (deadline.c).
 * Written under the CPU's rq->lock and cpudl.lock (a leaf inside it); read
 * without locks (a hint, as Linux's: a push or pull re-checks under the
 * target's lock). Linux: kernel/sched/cpudeadline.c. */
#include "sched_internal.h"

/*
 * A max-heap on deadline (the latest deadline at the root) of the CPUs that
 * have DL tasks queued, plus the mask of those that have none:
 *
 *             heap[0]  = the CPU whose earliest deadline is latest
 *            /       \
 *       heap[1]     heap[2]      parent(i) = (i - 1) / 2
 *       /    \       /   \       children(i) = 2i + 1, 2i + 2
 *
 * pos[cpu] is the CPU's index in the heap plus one (0: not in it, as the
 * zeroed array starts), kept with every move, so that a CPU's entry is found
 * at once when its deadline changes.
 * Deadlines compare as dl_time_before() (wrap-safe), as Linux's.
 */
static struct {
	spinlock_t lock;
	int size;
	struct {
		u64 dl;
		int cpu;
	} heap[NR_CPUS];
	int pos[NR_CPUS];
	cpumask_t free_cpus; /* active CPUs with no DL task (Linux: only rq->online ones) */
} cp = { .lock = SPINLOCK_INIT };

static void heap_put(int idx, u64 dl, int cpu)
{
	cp.heap[idx].dl = dl;
	cp.heap[idx].cpu = cpu;
	cp.pos[cpu] = idx + 1;
}

/* The entry at idx moves towards the leaves while a child is later. */
static void heapify_down(int idx)
{
	u64 dl = cp.heap[idx].dl;
	int cpu = cp.heap[idx].cpu;

	for (;;) {
		int l = 2 * idx + 1, r = l + 1, largest = idx;
		u64 largest_dl = dl;

		if (l < cp.size && dl_time_before(largest_dl, cp.heap[l].dl))
			largest = l, largest_dl = cp.heap[l].dl;
		if (r < cp.size && dl_time_before(largest_dl, cp.heap[r].dl))
			largest = r;
		if (largest == idx)
			break;
		heap_put(idx, cp.heap[largest].dl, cp.heap[largest].cpu);
		idx = largest;
	}
	heap_put(idx, dl, cpu);
}

/* The entry at idx moves towards the root while it is later than its parent. */
static void heapify_up(int idx)
{
	u64 dl = cp.heap[idx].dl;
	int cpu = cp.heap[idx].cpu;

	while (idx > 0) {
		int parent = (idx - 1) / 2;

		if (dl_time_before(dl, cp.heap[parent].dl))
			break;
		heap_put(idx, cp.heap[parent].dl, cp.heap[parent].cpu);
		idx = parent;
	}
	heap_put(idx, dl, cpu);
}

static void heapify(int idx)
{
	if (idx > 0 && dl_time_before(cp.heap[(idx - 1) / 2].dl, cp.heap[idx].dl))
		heapify_up(idx);
	else
		heapify_down(idx);
}

/* Linux: cpudl_set(): cpu's earliest deadline is now dl (it has DL tasks). */
void cpudl_set(unsigned int cpu, u64 dl)
{
	int idx;

	spin_lock(&cp.lock);
	idx = cp.pos[cpu] - 1;
	if (idx < 0) {
		idx = cp.size++;
		heap_put(idx, dl, (int)cpu);
		heapify_up(idx);
		cpumask_clear_cpu(cpu, &cp.free_cpus);
	} else {
		cp.heap[idx].dl = dl;
		heapify(idx);
	}
	spin_unlock(&cp.lock);
}

/* Linux: cpudl_clear(): cpu has no DL task left; it is free if online (an
 * offline CPU is in neither the heap nor the mask). The last entry fills its
 * hole and moves whichever way it must. */
void cpudl_clear(unsigned int cpu, bool online)
{
	int idx;

	spin_lock(&cp.lock);
	idx = cp.pos[cpu] - 1;
	if (idx >= 0) {
		int last = --cp.size;

		cp.pos[cpu] = 0;
		if (idx != last) {
			heap_put(idx, cp.heap[last].dl, cp.heap[last].cpu);
			heapify(idx);
		}
	}
	if (online)
		cpumask_set_cpu(cpu, &cp.free_cpus);
	else
		cpumask_clear_cpu(cpu, &cp.free_cpus);
	spin_unlock(&cp.lock);
}

/* Linux: dl_task_fits_capacity(): the CPU does runtime within the deadline. */
bool dl_task_fits_capacity(const struct task_struct *p, int cpu)
{
	return cap_scale(p->dl.dl_deadline, arch_scale_cpu_capacity(cpu)) >= p->dl.dl_runtime;
}

/*
 * Linux: cpudl_find(). The free CPUs p may use, if any: on asymmetric
 * capacities only those that fit p's bandwidth, or else the biggest of them
 * (prev among equals). Else the heap's root if p may use it and p's deadline
 * is earlier than its. 1 with later_mask filled (may be NULL: is there one?).
 */
int cpudl_find(const struct task_struct *p, cpumask_t *later_mask, bool asym)
{
	cpumask_t tmp, *mask = later_mask ? later_mask : &tmp;
	int best;

	if (cpumask_and(mask, &cp.free_cpus, &p->cpus_allowed) &&
	    cpumask_and(mask, mask, cpu_active_mask)) {
		unsigned long cap, max_cap = 0;
		int max_cpu = -1;
		unsigned int c;

		if (!asym)
			return 1;
		for_each_cpu(c, mask) {
			if (dl_task_fits_capacity(p, (int)c))
				continue;
			cpumask_clear_cpu(c, mask);
			cap = arch_scale_cpu_capacity((int)c);
			if (cap > max_cap || ((int)c == p->cpu && cap == max_cap))
				max_cap = cap, max_cpu = (int)c;
		}
		if (cpumask_empty(mask))
			cpumask_set_cpu((unsigned int)max_cpu, mask);
		return 1;
	}
	/* unlocked, as Linux: size and root may be a moment old */
	if (!READ_ONCE(cp.size))
		return 0;
	best = READ_ONCE(cp.heap[0].cpu);
	if (best >= 0 && cpumask_test_cpu((unsigned int)best, &p->cpus_allowed) &&
	    dl_time_before(p->dl.deadline, READ_ONCE(cp.heap[0].dl))) {
		if (later_mask) {
			cpumask_clear(later_mask);
			cpumask_set_cpu((unsigned int)best, later_mask);
		}
		return 1;
	}
	return 0;
}

/* For the host tests and the invariant checker: the heap in array order.
 * Returns its size; fills at most max entries. */
int cpudl_snapshot(int *cpus, u64 *dls, int max)
{
	int n;

	unsigned long flags = spin_lock_irqsave(&cp.lock);

	n = cp.size;
	for (int i = 0; i < n && i < max; i++) {
		cpus[i] = cp.heap[i].cpu;
		dls[i] = cp.heap[i].dl;
	}
	spin_unlock_irqrestore(&cp.lock, flags);
	return n;
}

/* The invariant checker (stats.c), under cpu's rq->lock, which every write of
 * cpu's entry holds: cpu is in the heap exactly when it has DL tasks, with
 * its earliest deadline. */
bool cpudl_holds(unsigned int cpu, bool has_dl, u64 dl)
{
	unsigned long flags = spin_lock_irqsave(&cp.lock);
	int idx = cp.pos[cpu] - 1;
	bool ok = has_dl ? idx >= 0 && idx < cp.size && cp.heap[idx].cpu == (int)cpu &&
				   cp.heap[idx].dl == dl
			 : idx < 0;

	spin_unlock_irqrestore(&cp.lock, flags);
	return ok;
}

bool cpudl_is_free(unsigned int cpu)
{
	return cpumask_test_cpu(cpu, &cp.free_cpus);
}
