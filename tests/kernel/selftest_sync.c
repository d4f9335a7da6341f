/* selftest_sync.c - self-tests of spinlocks and the allocators under contention:
 * one thread pinned to each online CPU, all hammering the same lock or the
 * same allocator (suites spinlock, alloc). */
#include "kernel.h"
#include "ktest.h"
#include "mm.h"
#include "sched.h"

/* Run fn(arg) on a thread pinned to each online CPU and join them all. */
static int run_on_each_cpu(void (*fn)(void *), void *arg)
{
	struct task_struct *th[NR_CPUS];
	unsigned int cpu;
	int started = 0;

	for_each_cpu(cpu, cpu_online_mask) {
		th[cpu] = kthread_create(fn, arg, "contend");
		if (!th[cpu])
			continue;
		set_cpus_allowed(th[cpu], cpumask_of(cpu));
		wake_up_new_task(th[cpu]);
		started++;
	}
	for_each_cpu(cpu, cpu_online_mask)
		if (th[cpu])
			kthread_join(th[cpu]);
	return started;
}

#define LOCK_ROUNDS 2000

static spinlock_t test_lock;
static volatile u64 shared_counter;
static int inside;

static void lock_hammer(void *arg)
{
	bool *overlap = arg;

	for (int i = 0; i < LOCK_ROUNDS; i++) {
		unsigned long flags = spin_lock_irqsave(&test_lock);

		if (__atomic_fetch_add(&inside, 1, __ATOMIC_RELAXED))
			*overlap = true;
		shared_counter = shared_counter + 1; /* not atomic: the lock protects it */
		__atomic_fetch_sub(&inside, 1, __ATOMIC_RELAXED);
		spin_unlock_irqrestore(&test_lock, flags);
	}
}

static void spinlock_contention(struct ktest *t)
{
	bool overlap = false;
	int n;

	spin_lock_init(&test_lock);
	shared_counter = 0;
	n = run_on_each_cpu(lock_hammer, &overlap);
	EXPECT_EQ(t, n, (int)num_online_cpus());
	EXPECT_EQ(t, shared_counter, (u64)n * LOCK_ROUNDS);
	EXPECT_FALSE(t, overlap);
}

static void spinlock_trylock(struct ktest *t)
{
	spinlock_t l = SPINLOCK_INIT;
	unsigned long flags = arch_irq_save();

	EXPECT_TRUE(t, spin_trylock(&l));
	EXPECT_TRUE(t, spin_is_held(&l));
	EXPECT_FALSE(t, spin_trylock(&l));
	spin_unlock(&l);
	EXPECT_FALSE(t, spin_is_held(&l));
	EXPECT_TRUE(t, spin_trylock(&l));
	spin_unlock(&l);
	arch_irq_restore(flags);
}

KTEST_SUITE(spinlock, KTEST_CASE(spinlock_contention), KTEST_CASE(spinlock_trylock));

#define ALLOC_ROUNDS 300
#define SLOTS	     16

/* Each thread keeps SLOTS live blocks of pseudo-random sizes, each filled
 * with its own pattern; any overlap between blocks breaks a pattern. */
static void alloc_hammer(void *arg)
{
	bool *bad = arg;
	u8 *blk[SLOTS] = { 0 };
	size_t len[SLOTS] = { 0 };
	u32 seed = 12345u * (arch_cpu_id() + 1);

	for (int i = 0; i < ALLOC_ROUNDS; i++) {
		int s = i % SLOTS;

		if (blk[s]) {
			for (size_t k = 0; k < len[s]; k++)
				if (blk[s][k] != (u8)(s ^ (uintptr_t)blk[s]))
					*bad = true;
			kfree(blk[s]);
		}
		seed = seed * 1103515245u + 12345u;
		len[s] = 1 + (seed >> 8) % (i % 7 == 0 ? 9000 : 600);
		blk[s] = kmalloc(len[s]);
		if (!blk[s]) {
			*bad = true;
			continue;
		}
		memset(blk[s], (u8)(s ^ (uintptr_t)blk[s]), len[s]);
	}
	for (int s = 0; s < SLOTS; s++)
		kfree(blk[s]);
}

static void alloc_contention(struct ktest *t)
{
	size_t before = kmalloc_in_use();
	bool bad = false;

	run_on_each_cpu(alloc_hammer, &bad);
	EXPECT_FALSE(t, bad);
	EXPECT_EQ(t, kmalloc_in_use(), before);
}

/* Pages run out cleanly (NULL, no crash) and all come back, whatever the RAM
 * size: each 1 MiB chunk holds the address of the one taken before it, so the
 * chain has no cap (a fixed page of pointers stopped at 512 MiB, and on a
 * bigger machine the kmalloc() below then succeeded and its 257 pages were
 * never freed). Then the last single pages go too: no free page is left. */
static void alloc_exhaustion(struct ktest *t)
{
	const unsigned long chunk = 256; /* 1 MiB */
	unsigned long before = page_alloc_free_count(), n = 0, singles = 0;
	void **chain = NULL, **p, *k;

	while ((p = alloc_pages(chunk)) != NULL) {
		*p = chain;
		chain = p;
		n++;
	}
	EXPECT_GT(t, n, 0);
	k = kmalloc(chunk * PAGE_SIZE); /* 257 pages in one piece: none is left */
	EXPECT_TRUE(t, k == NULL);
	kfree(k);
	while ((p = alloc_pages(1)) != NULL) {
		*p = chain;
		chain = p;
		singles++;
	}
	EXPECT_EQ(t, page_alloc_free_count(), 0);
	EXPECT_TRUE(t, alloc_pages(1) == NULL);
	while (chain) {
		p = *chain;
		free_pages(chain, singles ? 1 : chunk);
		if (singles)
			singles--;
		chain = p;
	}
	EXPECT_EQ(t, page_alloc_free_count(), before);
	EXPECT_TRUE(t, alloc_pages(1000000000ul) == NULL);
}

KTEST_SUITE(alloc, KTEST_CASE(alloc_contention), KTEST_CASE(alloc_exhaustion));
