/* setup.c - arm64 from "MMU on" to the portable kernel_main(): exception
 * vectors, the console, RAM handed to the page allocator minus everything in
 * use, then (called back by kernel_main once the topology is known) the GIC,
 * PSCI and the timer; the start of each secondary CPU, and its end when it
 * goes offline (PSCI CPU_OFF, or parked when it cannot be turned off). */
#include "boot.h"
#include "drivers.h"
#include "initrd.h"
#include "kernel.h"
#include "mm.h"
#include "sched.h"
#include "smp.h"
#include "sysreg.h"
#include "timer.h"
#include "topology.h"

extern char vectors[];
void kernel_main(const struct dtb *dt) __attribute__((noreturn));
void mmu_allocator_ready(void);

struct task_struct init_task = { .comm = "swapper/0", .is_idle = true };
static struct dtb kernel_dtb;
static struct task_struct *secondary_idle[NR_CPUS];
/* A CPU that went offline but could not be turned off waits in park(). */
enum { CPU_RUNNING, CPU_PARKED, CPU_RELEASED };
static int park_state[NR_CPUS];

/* /reserved-memory children and /memreserve/ are not ours to allocate. */
static void reserve_firmware_memory(const struct dtb *dt)
{
	int rm = dtb_path(dt, "/reserved-memory");
	u64 a, s;

	for (int i = 0; dtb_mem_rsv(dt, i, &a, &s) == 0; i++)
		page_alloc_reserve(a, s);
	if (rm < 0)
		return;
	for (int n = dtb_first_child(dt, rm); n >= 0; n = dtb_next_sibling(dt, n))
		for (int i = 0; dtb_reg(dt, n, i, &a, &s) == 0; i++)
			page_alloc_reserve(a, s);
}

/* The initrd (QEMU -initrd, a boot loader's ramdisk) stays where it was put:
 * kept from the allocator if it is all inside one RAM range, ignored if not. */
static void reserve_initrd(const struct dtb *dt)
{
	struct boot_params *bp = &boot_params;
	u64 s, e;

	if (initrd_find(dt, &s, &e))
		return;
	for (int i = 0; i < bp->nr_mem; i++) {
		if (s >= bp->mem[i].base && e <= bp->mem[i].base + bp->mem[i].size) {
			page_alloc_reserve(s, e - s);
			initrd_set(s, e);
			return;
		}
	}
	printk("initrd: [%#llx-%#llx) is not in RAM: ignored\n", s, e);
}

static void mm_setup(const struct dtb *dt)
{
	struct boot_params *bp = &boot_params;

	for (int i = 0; i < bp->nr_mem; i++)
		page_alloc_add_range(bp->mem[i].base, bp->mem[i].size);
	if (page_alloc_init())
		panic("mm: no RAM range can hold the page bitmap");
	page_alloc_reserve(bp->load_base, (u64)_end - bp->load_base);
	page_alloc_reserve(bp->dtb_pa, bp->dtb_size);
	page_alloc_reserve(bp->pool_base, bp->pool_end - bp->pool_base);
	reserve_firmware_memory(dt);
	reserve_initrd(dt);
	mmu_allocator_ready();
	/* early.c already took these out of RAM; say so. */
	for (u32 i = 0; i < boot_fw_rsv.nr; i++)
		printk("efi: firmware keeps [%#llx-%#llx): not used\n", boot_fw_rsv.r[i].base,
		       boot_fw_rsv.r[i].base + boot_fw_rsv.r[i].size);
}

/* Boot CPU, MMU on, on the boot stack; x0 = DTB. */
/* The -fstack-protector canary, read by every protected function's prologue
 * and epilogue. Its value may only change while no protected function is on
 * the stack: start_kernel (unprotected, never returns) sets it between calls,
 * once the functions it called (dtb_init, early_setup and the EFI stub before
 * it) have returned. The mix: the counter at boot, where we were loaded and
 * where the DTB is, and the entropy firmware leaves in /chosen (rng-seed,
 * kaslr-seed: QEMU's own tree and bootloaders have them); the low byte zero,
 * so a string copy cannot forge it. Under -icount with a -dtb tree (no seed)
 * the counter repeats from boot to boot; on hardware it does not. */
u64 __stack_chk_guard = 0x5a17c0de5a17c000ull;

static int chosen_seed_bytes; /* how many went into the canary, for the boot log */

/* /chosen's rng-seed and kaslr-seed bytes folded into 64 bits (FNV-1a). */
static u64 chosen_seed(const struct dtb *dt)
{
	static const char *const names[] = { "rng-seed", "kaslr-seed" };
	int chosen = dtb_path(dt, "/chosen");
	u64 seed = 0xcbf29ce484222325ull;

	for (unsigned int n = 0; chosen >= 0 && n < ARRAY_SIZE(names); n++) {
		int len = 0;
		const u8 *p = dtb_prop(dt, chosen, names[n], &len);

		for (int i = 0; p && i < len; i++)
			seed = (seed ^ p[i]) * 0x100000001b3ull;
		chosen_seed_bytes += p ? len : 0;
	}
	return seed;
}

static __attribute__((always_inline)) inline void boot_init_stack_canary(u64 dtb_pa, u64 seed)
{
	u64 c = read_sysreg(cntvct_el0) ^ seed;

	c = (c ^ (c << 29) ^ (dtb_pa << 17) ^ boot_params.load_base) * 0x9e3779b97f4a7c15ull;
	__stack_chk_guard ^= (c ^ (c >> 31)) & ~0xffull;
}

__attribute__((no_stack_protector)) void start_kernel(u64 dtb_pa)
{
	write_sysreg(vbar_el1, (u64)vectors);
	write_sysreg(tpidr_el1, 0);
	write_sysreg(sp_el0, (u64)&init_task);
	isb();
	arm_timer_clock_init();
	/* early_setup validated the blob with the MMU off; again, for our copy. */
	if (dtb_init(&kernel_dtb, (const void *)dtb_pa, boot_params.dtb_size))
		panic("device tree changed under us");
	boot_init_stack_canary(dtb_pa, chosen_seed(&kernel_dtb)); /* no protected frame below */
	if (pl011_init(&kernel_dtb))
		early_puts("littlebig: stdout-path names no PL011; continuing without console\n");
	printk("stack protector: canary from the boot counter%s (%d seed bytes from /chosen)\n",
	       chosen_seed_bytes ? " and firmware entropy" : " only", chosen_seed_bytes);
	mm_setup(&kernel_dtb);
	kernel_main(&kernel_dtb);
}

int arch_platform_init(const struct dtb *dt)
{
	if (gic_init(dt))
		return -1;
	if (psci_init(dt))
		printk("psci: unavailable: secondary CPUs need spin-table, no poweroff\n");
	if (arm_timer_init(dt))
		return -1;
	/* Before smp_init(): the plugin must know the page before a CPU says hello. */
	arch_insn_counter_attach(arch_cpu_id());
	hi3660_stub_clk_init(dt); /* a cpufreq driver, before cpufreq_init() */
	return 0;
}

void arch_cpu_init_local(unsigned int cpu)
{
	if (overflow_stack_alloc(cpu)) /* the boot CPU's; secondaries have theirs */
		panic("no memory for CPU%u's overflow stack", cpu);
	gic_cpu_init(cpu);
	arm_timer_cpu_init();
	pl011_enable_rx_irq();
}

/* The boot CPU's idle task (init_task) runs on head.S's boot stack. */
static u64 idle_stack_top(const struct task_struct *idle)
{
	extern char boot_stack_top[];

	return idle == &init_task ? (u64)boot_stack_top : (u64)idle->stack + idle->stack_size;
}

int arch_cpu_start(unsigned int cpu, struct task_struct *idle)
{
	const struct cpu_topology *ct = &cpu_topology.cpu[cpu];
	struct boot_params *bp = &boot_params;
	u64 entry = (u64)secondary_entry;

	if (!gic_serves_cpu(cpu))
		return -ENODEV; /* gic*_probe said why */
	if (overflow_stack_alloc(cpu))
		return -ENOMEM;
	secondary_idle[cpu] = idle;
	bp->mpidr[cpu] = ct->mpidr;
	bp->stack[cpu] = idle_stack_top(idle);
	if (bp->nr_cpus < cpu + 1)
		bp->nr_cpus = cpu + 1;
	/* The new CPU reads these with its MMU off. */
	dcache_clean_poc((u64)bp, (u64)(bp + 1));
	dcache_clean_poc((u64)&secondary_idle[cpu], (u64)&secondary_idle[cpu + 1]);

	if (__atomic_load_n(&park_state[cpu], __ATOMIC_ACQUIRE) == CPU_PARKED) {
		__atomic_store_n(&park_state[cpu], CPU_RELEASED, __ATOMIC_RELEASE);
		arch_send_ipi(cpu, IPI_RESCHEDULE); /* ends its wfi */
		return 0;
	}
	if (ct->enable_method && !strcmp(ct->enable_method, "spin-table")) {
		volatile u64 *rel = (volatile u64 *)ct->cpu_release_addr;

		if (!rel)
			return -1;
		*rel = entry;
		dcache_clean_poc((u64)rel, (u64)rel + 8);
		__asm__ volatile("dsb sy; sev" ::: "memory");
		return 0;
	}
	return psci_cpu_on(ct->mpidr, entry, cpu);
}

/* A secondary CPU, MMU on, on its idle task's stack. */
void secondary_start_kernel(unsigned int cpu)
{
	write_sysreg(vbar_el1, (u64)vectors);
	write_sysreg(tpidr_el1, cpu);
	write_sysreg(sp_el0, (u64)secondary_idle[cpu]);
	isb();
	gic_cpu_init(cpu);
	arm_timer_cpu_init();
	arch_insn_counter_cpu_init(cpu); /* tools/qemu/vcpu_insns.c maps its vCPU */
	secondary_cpu_main(cpu);
}

static bool is_spin_table(unsigned int cpu)
{
	const char *m = cpu_topology.cpu[cpu].enable_method;

	return m && !strcmp(m, "spin-table");
}

/* IRQs masked and the timer off, so wfi only ends for an IPI; a stray one
 * is taken and handled (arch_idle unmasks for a moment). Released, the CPU
 * starts over on its idle task's stack, as from secondary_entry. */
static void __attribute__((noreturn)) park(unsigned int cpu)
{
	u64 top;

	__atomic_store_n(&park_state[cpu], CPU_PARKED, __ATOMIC_RELEASE);
	while (__atomic_load_n(&park_state[cpu], __ATOMIC_ACQUIRE) != CPU_RELEASED)
		arch_idle();
	__atomic_store_n(&park_state[cpu], CPU_RUNNING, __ATOMIC_RELAXED);
	top = idle_stack_top(secondary_idle[cpu]);
	__asm__ volatile("mov sp, %0\n\tmov x0, %1\n\tb secondary_start_kernel"
			 :
			 : "r"(top), "r"((u64)cpu)
			 : "memory");
	__builtin_unreachable();
}

/* Linux: __cpu_disable(): the dying CPU's device interrupts go elsewhere. */
unsigned int arch_cpu_disable(unsigned int cpu, unsigned int to)
{
	return gic_migrate_irqs(cpu, to);
}

/* Linux: cpu_die() -> cpu_ops->cpu_die(): psci_cpu_die(). Spin-table has no
 * way back to the firmware (Linux refuses to offline such CPUs; we park). */
void arch_cpu_die(unsigned int cpu)
{
	arm_timer_cpu_stop();
	if (!is_spin_table(cpu) && psci_available()) {
		int err = psci_cpu_off(); /* returns only if refused */

		printk("psci: CPU_OFF refused on CPU%u (%d): parking it instead\n", cpu, err);
	}
	park(cpu);
}

/* Linux: cpu_psci_cpu_kill(): poll AFFINITY_INFO until the CPU is OFF. */
int arch_cpu_kill(unsigned int cpu)
{
	u64 deadline = arch_clock_ns() + 100 * NSEC_PER_MSEC;

	for (;;) {
		if (__atomic_load_n(&park_state[cpu], __ATOMIC_ACQUIRE) == CPU_PARKED)
			return 0;
		if (!is_spin_table(cpu) && psci_available()) {
			int state = psci_affinity_info(cpu_topology.cpu[cpu].mpidr);

			if (state == 1 || state < 0) /* OFF, or no way to ask */
				return 1;
		}
		if (arch_clock_ns() > deadline)
			return -1;
		sleep_ns(10 * NSEC_PER_USEC);
	}
}
