/* selftest_boot.c - self-tests of the boot path and the machine as the kernel found
 * it: exception level, device tree, memory map and protections (suite boot),
 * every CPU online with the right MPIDR (suite smp), IPIs reaching every
 * CPU (suite ipi). Arch-aware on purpose: this is where the arch is tested. */
#include "cpuidle.h"
#include "boot.h"
#include "dtb.h"
#include "kernel.h"
#include "ktest.h"
#include "mm.h"
#include "sched.h"
#include "smp.h"
#include "sysreg.h"
#include "timer.h"
#include "topology.h"

int mmu_lookup(u64 va, u64 *attrs);
#define PTE_AP_RO (1ull << 7)
#define PTE_PXN	  (1ull << 53)

static void boot_el(struct ktest *t)
{
	EXPECT_EQ(t, read_sysreg(CurrentEL) >> 2, 1);
	EXPECT_TRUE(t, boot_params.entry_el == 1 || boot_params.entry_el == 2);
	ktest_diag(t, "entered at EL%d", boot_params.entry_el);
}

static void boot_dt(struct ktest *t)
{
	struct dtb dt;

	ASSERT_EQ(t, dtb_init(&dt, (const void *)boot_params.dtb_pa, boot_params.dtb_size), 0);
	EXPECT_GE(t, dtb_path(&dt, "/cpus"), 0);
	EXPECT_GE(t, dtb_path(&dt, "/chosen"), 0);
	EXPECT_GE(t, cpu_topology.nr_cpus, 1);
	EXPECT_GE(t, boot_params.nr_mem, 1);
}

static void boot_memory(struct ktest *t)
{
	u64 ram = 0;

	for (int i = 0; i < boot_params.nr_mem; i++)
		ram += boot_params.mem[i].size;
	/* Everything is accounted: the allocator manages all of RAM ... */
	EXPECT_EQ(t, page_alloc_total_count() * PAGE_SIZE, ram);
	/* ... and the kernel, DTB and page tables are not free. */
	EXPECT_LT(t, page_alloc_free_count() * PAGE_SIZE,
		  ram - ((u64)_end - boot_params.load_base) - boot_params.dtb_size);
	EXPECT_GT(t, page_alloc_free_count(), 0);
}

/* Text read-only and executable; rodata read-only; data never executable. */
static void boot_protections(struct ktest *t)
{
	static int data_var;
	u64 a;

	ASSERT_EQ(t, mmu_lookup((u64)boot_protections, &a), 0);
	EXPECT_TRUE(t, a & PTE_AP_RO);
	EXPECT_FALSE(t, a & PTE_PXN);
	ASSERT_EQ(t, mmu_lookup((u64)&data_var, &a), 0);
	EXPECT_FALSE(t, a & PTE_AP_RO);
	EXPECT_TRUE(t, a & PTE_PXN);
	ASSERT_EQ(t, mmu_lookup((u64) "rodata", &a), 0);
	EXPECT_TRUE(t, a & PTE_AP_RO);
	EXPECT_TRUE(t, a & PTE_PXN);
}

/* The page below a thread's stack is a guard: not mapped. */
static void boot_guard_page(struct ktest *t)
{
	struct task_struct *me = current;

	ASSERT_TRUE(t, me->stack != NULL);
	EXPECT_EQ(t, mmu_lookup((u64)me->stack, NULL), 0);
	EXPECT_EQ(t, mmu_lookup((u64)me->stack - 8, NULL), -1);
}

KTEST_SUITE(boot, KTEST_CASE(boot_el), KTEST_CASE(boot_dt), KTEST_CASE(boot_memory),
	    KTEST_CASE(boot_protections), KTEST_CASE(boot_guard_page));

static unsigned int expected_online(void)
{
	unsigned int n = 0;

	for (int i = 0; i < cpu_topology.nr_cpus; i++)
		n += cpu_topology.cpu[i].mpidr != MPIDR_INVALID;
	return n;
}

static void smp_all_online(struct ktest *t)
{
	EXPECT_EQ(t, num_online_cpus(), expected_online());
	for (unsigned int c = 0; c < nr_cpu_ids; c++)
		ktest_diag(t, "cpu%u online at %llu us", c, smp_boot_time_ns(c) / 1000);
}

struct whoami {
	u64 hwid;
	unsigned int id;
};

static void read_ids(void *arg)
{
	struct whoami *w = arg;

	w->hwid = arch_cpu_hwid();
	w->id = arch_cpu_id();
}

/* Each logical CPU really is the core the topology names. */
static void smp_mpidr(struct ktest *t)
{
	unsigned int cpu;

	for_each_cpu(cpu, cpu_online_mask) {
		struct whoami w = { ~0ull, ~0u };

		ASSERT_EQ(t, smp_call_function_single(cpu, read_ids, &w), 0);
		EXPECT_EQ(t, w.id, cpu);
		EXPECT_EQ(t, w.hwid, cpu_topology.cpu[cpu].mpidr);
	}
}

KTEST_SUITE(smp, KTEST_CASE(smp_all_online), KTEST_CASE(smp_mpidr));

static int hits[NR_CPUS];

static void hit(void *arg)
{
	__atomic_fetch_add(&hits[arch_cpu_id()], 1, __ATOMIC_RELAXED);
}

static void ipi_call_every_cpu(struct ktest *t)
{
	unsigned int cpu;

	memset(hits, 0, sizeof(hits));
	for (int round = 0; round < 10; round++)
		for_each_cpu(cpu, cpu_online_mask)
			ASSERT_EQ(t, smp_call_function_single(cpu, hit, NULL), 0);
	for_each_cpu(cpu, cpu_online_mask)
		EXPECT_EQ(t, hits[cpu], 10);
}

/* From a thread on each CPU, call every other CPU: all-to-all IPIs. */
static void call_all(void *arg)
{
	unsigned int cpu;

	for_each_cpu(cpu, cpu_online_mask)
		smp_call_function_single(cpu, hit, NULL);
}

static void ipi_all_to_all(struct ktest *t)
{
	struct task_struct *th[NR_CPUS];
	unsigned int cpu, n = num_online_cpus();

	memset(hits, 0, sizeof(hits));
	for_each_cpu(cpu, cpu_online_mask) {
		th[cpu] = kthread_create(call_all, NULL, "ipi-test");
		ASSERT_TRUE(t, th[cpu] != NULL);
		set_cpus_allowed(th[cpu], cpumask_of(cpu));
		wake_up_new_task(th[cpu]);
	}
	for_each_cpu(cpu, cpu_online_mask)
		kthread_join(th[cpu]);
	for_each_cpu(cpu, cpu_online_mask)
		EXPECT_EQ(t, hits[cpu], (int)n);
}

/* A reschedule IPI wakes an idle CPU: a task woken for it runs promptly. */
struct wake_probe {
	u64 woken_at, ran_at;
};

static void record_run(void *arg)
{
	struct wake_probe *p = arg;

	p->ran_at = arch_clock_ns();
}

static void ipi_wakes_idle_cpu(struct ktest *t)
{
	unsigned int cpu;
	u64 worst = 0;

	for_each_cpu(cpu, cpu_online_mask) {
		struct wake_probe p = { 0, 0 };
		struct task_struct *th;

		if (cpu == arch_cpu_id())
			continue;
		th = kthread_create(record_run, &p, "wake-probe");
		ASSERT_TRUE(t, th != NULL);
		set_cpus_allowed(th, cpumask_of(cpu));
		msleep(1); /* let the target go idle */
		p.woken_at = arch_clock_ns();
		wake_up_new_task(th);
		kthread_join(th);
		EXPECT_GT(t, p.ran_at, p.woken_at);
		/* less what its idle state's exit may cost (cpuidle, issue 14) */
		worst = MAX(worst, p.ran_at - p.woken_at -
					   MIN(p.ran_at - p.woken_at, cpuidle_wakeup_cost_ns(cpu)));
	}
	/* Far below a tick: the IPI, not the next tick, woke the CPU. */
	EXPECT_LT(t, worst, TICK_NSEC / 2);
	ktest_diag(t, "worst wakeup-to-run latency %llu ns", worst);
}

KTEST_SUITE(ipi, KTEST_CASE(ipi_call_every_cpu), KTEST_CASE(ipi_all_to_all),
	    KTEST_CASE(ipi_wakes_idle_cpu));
