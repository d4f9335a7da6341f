/* main.c - the portable kernel's table of contents: what happens, in order,
 * once the arch has the MMU, a console and the page allocator up. Ends with
 * the boot CPU becoming its idle task while the init thread runs the
 * self-tests (bootargs "selftest") or the console. */
#include "bench.h"
#include "bootargs.h"
#include "cache.h"
#include "console.h"
#include "cpufreq.h"
#include "cpuidle.h"
#include "dtb.h"
#include "initrd.h"
#include "speed.h"
#include "kernel.h"
#include "ktest.h"
#include "lockdep.h"
#include "mm.h"
#include "sched.h"
#include "smp.h"
#include "timer.h"
#include "topology.h"

extern struct task_struct init_task;
extern bool panic_poweroff;
u64 boot_first_line_ns;

/* Which logical CPU are we? The one whose MPIDR matches ours. */
static unsigned int boot_cpu_id(void)
{
	u64 hwid = arch_cpu_hwid();

	for (int i = 0; i < cpu_topology.nr_cpus; i++)
		if (cpu_topology.cpu[i].mpidr == hwid)
			return (unsigned int)i;
	printk("smp: boot CPU (MPIDR %#llx) is not in /cpus; calling it CPU0\n", hwid);
	return 0;
}

static void init_thread(void *unused)
{
	char filter[BOOTARGS_MAX];

	if (speed_model == SPEED_NATIVE)
		native_calibrate(); /* cpu_work()'s loop, once, on the biggest CPU */
	if (bootarg_get("crashtest", filter, sizeof(filter)))
		crashtest_run(filter); /* tests/kernel/crashtest.c: fail on purpose */
	if (bootarg_get("selftest", filter, sizeof(filter))) {
		int failed = ktest_run(filter);

		printk("selftest: %d failed case(s), %lu unexpected debug report(s) at %llu ms of "
		       "emulated time; powering off\n",
		       failed, debug_unexpected_reports(), arch_clock_ns() / NSEC_PER_MSEC);
		arch_poweroff();
	}
	if (bootarg_get("bench", filter, sizeof(filter)) ||
	    bootarg_get("experiment", filter, sizeof(filter))) {
		int err = bootarg_has("bench") ? bench_run(filter) : experiment_run(filter);

		printk("%s: %s; powering off\n", bootarg_has("bench") ? "bench" : "experiment",
		       err ? "refused" : "done");
		arch_poweroff();
	}
	if (bootarg_has("script")) { /* the shell's lines from the initrd (make labs) */
		size_t len;
		const char *text = initrd_get(&len);

		if (text)
			console_set_script(text, len);
		else
			printk("script: no initrd to read the lines from\n");
	}
	console_loop();
}

void kernel_main(const struct dtb *dt)
{
	int chosen = dtb_path(dt, "/chosen");
	char v[32];
	unsigned int cpu;

	boot_first_line_ns = arch_clock_ns();
	printk("\nlittlebig: booting (first console line at %llu us of emulated time)\n",
	       boot_first_line_ns / NSEC_PER_USEC);
	bootargs_init(chosen >= 0 ? dtb_prop_str(dt, chosen, "bootargs") : NULL);
	printk("bootargs: \"%s\"\n", bootargs_string());
	speed_init(dt); /* speed=: the emulated CPU speed model */
	panic_poweroff = bootarg_get("panic", v, sizeof(v)) && !strcmp(v, "poweroff");
	printk("mm: %lu KiB free of %lu KiB\n", page_alloc_free_count() * 4,
	       page_alloc_total_count() * 4);

	topology_parse(dt, &cpu_topology); /* CPUs, capacities, OPPs, domains */
	cache_init(&cpu_topology);	   /* cache=: the cost of a migration */
	cpu = boot_cpu_id();
	arch_set_cpu_id(cpu);
	if (arch_platform_init(dt)) /* IRQ controller, firmware, timer */
		panic("no interrupt controller or timer: cannot run");
	sched_init();			 /* features, tunables */
	sched_init_cpu(cpu, &init_task); /* we become CPU's idle task */
	init_task.cpu = (int)cpu;
	task_register_boot_idle(&init_task); /* ps lists it: swapper/0, pid 0 */
	arch_cpu_init_local(cpu);	     /* this CPU's IRQs, timer, console input */
	timer_cpu_init(cpu, (unsigned int)cpu_topology.nr_cpus);
	arch_irq_enable();
	smp_init();	     /* every other CPU in the DT */
	sched_init_smp();    /* sched domains, migration threads */
	cpufreq_init();	     /* policies, OPPs, governors */
	cpuidle_init();	     /* idle states, "cpuidle=off" */
	speed_exact_start(); /* speed=exact: R from the capacities, the QEMU plugin's counts */
	/* The other CPUs idle in plain wfi since they started, which counts as
	 * busy for their cluster: make them choose a state. */
	for (cpu = 0; cpuidle_enabled() && cpu < (unsigned int)cpu_topology.nr_cpus; cpu++)
		if (cpu != arch_cpu_id() && cpu_online(cpu))
			arch_send_ipi(cpu, IPI_RESCHEDULE);
	energy_init();
	for (int c = 0; c < cpu_topology.nr_cpus; c++)
		if (cpufreq_policy_of((unsigned int)c) >= 0)
			energy_cpu_freq((unsigned int)c,
					cpufreq_cur_freq(cpufreq_policy_of((unsigned int)c)));
	/* The whole block where a tool reads the log (self-tests, benchmarks, boot
	 * option "topology"); the console's first screen gets a summary, and its
	 * `topology` command or a trace dump prints the block. */
	if (bootarg_has("topology") || bootarg_has("selftest") || bootarg_has("bench") ||
	    bootarg_has("experiment") || bootarg_has("crashtest"))
		topology_print(&cpu_topology);
	else
		topology_print_summary(&cpu_topology);

	if (!kthread_run(init_thread, NULL, "init"))
		panic("cannot create the init thread");
	cpu_idle_loop();
}
