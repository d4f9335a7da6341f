/* cpu.c - CPU hotplug: cpu_down() takes a CPU out of the scheduler and turns
 * it off, cpu_up() starts it again through the boot path (Linux: kernel/cpu.c
 * with sched_cpu_deactivate/_dying/_activate, takedown_cpu, timers_dead_cpu).
 * Not the moves themselves: tasks (kernel/sched/core.c), timers (timer.c),
 * cross-CPU calls (smp.c), cpufreq (kernel/sched/cpufreq.c), the firmware
 * (arch). One operation at a time under cpu_hotplug_lock; cpu_active_mask and
 * cpu_online_mask change inside stop_machine() (online on the way up: the
 * CPU itself, in secondary_cpu_main). */
#include "cpu.h"
#include "cpufreq.h"
#include "cpuidle.h"
#include "kernel.h"
#include "mutex.h"
#include "sched.h"
#include "smp.h"
#include "speed.h"
#include "timer.h"
#include "topology.h"

#define CPUHP_TIMEOUT_NS (1000 * NSEC_PER_MSEC) /* emulated; as smp_init's */
#define CPUHP_POLL_NS	 (10 * NSEC_PER_USEC)

static struct mutex cpu_hotplug_lock = {
	SPINLOCK_INIT,
	NULL,
	LIST_HEAD_INIT(cpu_hotplug_lock.waiters),
	0,
};
static struct cpuhp_stats stats; /* under cpu_hotplug_lock */
static int cpu_dead[NR_CPUS];	 /* set by the dying CPU's idle task */

struct takedown {
	unsigned int cpu;
	unsigned int migrated, irqs;
};

static unsigned int first_active(void)
{
	return cpumask_first(cpu_active_mask);
}

/* Linux: sched_cpu_deactivate() + take_cpu_down() + sched_cpu_dying(), in
 * one stop_machine() pass on the dying CPU, its stop task running and every
 * other CPU waiting with IRQs off: no wakeup, balance pass or domain walk is
 * half-way anywhere while the masks and domains change. In order: no new
 * task may choose it; the domains (and asym flags) are rebuilt without it;
 * its stop task parks; its queued tasks leave; it goes offline and runs the
 * cross-CPU calls still queued to it; its device interrupts move. */
static int take_cpu_down(void *arg)
{
	struct takedown *td = arg;
	unsigned int cpu = td->cpu;

	set_cpu_active(cpu, false);
	sched_domains_init();
	stop_machine_park(cpu);
	td->migrated = sched_migrate_tasks(cpu);
	smp_cpu_dying(cpu);
	td->irqs = arch_cpu_disable(cpu, first_active());
	return 0;
}

/* Linux: cpuhp_report_idle_dead() + arch_cpu_idle_dead(). The dying CPU's
 * idle task, once its run queue is empty (only idle may run on it now). */
void cpuhp_report_idle_dead(void)
{
	unsigned int cpu = arch_cpu_id();

	arch_irq_disable();
	/* Its last stretch is paid and metered here: a CPU coming back starts
	 * from secondary_cpu_main(), not from the idle call it left by. */
	speed_busy_end(true);
	energy_cpu_state(cpu, ENERGY_STATE_OFF);
	watchdog_cpu_dead(cpu);
	__atomic_store_n(&cpu_dead[cpu], 1, __ATOMIC_RELEASE);
	arch_cpu_die(cpu);
}

/* Linux: sched_cpu_activate(). On the new CPU, inside stop_machine. */
static int sched_cpu_activate(void *arg)
{
	unsigned int cpu = *(unsigned int *)arg;

	set_cpu_active(cpu, true);
	sched_domains_init();
	return 0;
}

/* Sleep-poll (emulated time) until *flag or cpu_online(cpu) says so. */
static bool wait_for(const int *flag, unsigned int cpu, u64 timeout_ns)
{
	u64 deadline = arch_clock_ns() + timeout_ns;

	while (flag ? !__atomic_load_n(flag, __ATOMIC_ACQUIRE) : !cpu_online(cpu)) {
		if (arch_clock_ns() > deadline)
			return false;
		sleep_ns(CPUHP_POLL_NS);
	}
	return true;
}

static int check_cpu(unsigned int cpu, bool up)
{
	if (cpu >= nr_cpu_ids) {
		printk("cpu: there is no CPU%u (possible CPUs: 0-%u)\n", cpu, nr_cpu_ids - 1);
		return -ENODEV;
	}
	if (cpu_topology.cpu[cpu].mpidr == MPIDR_INVALID || !sched_cpu_has_stopper(cpu)) {
		printk("cpu: CPU%u never came online at boot: it cannot be hotplugged\n", cpu);
		return -ENODEV;
	}
	if (up && cpu_online(cpu)) {
		printk("cpu: CPU%u is already online\n", cpu);
		return -EINVAL;
	}
	if (!up && !cpu_online(cpu)) {
		printk("cpu: CPU%u is already offline\n", cpu);
		return -EINVAL;
	}
	if (!up && num_online_cpus() == 1) {
		printk("cpu: CPU%u is the last online CPU: refusing to take it offline\n", cpu);
		return -EBUSY;
	}
	if (!up &&
	    sched_dl_cpu_busy(cpu)) { /* Linux: sched_cpu_deactivate() -> dl_bw_check_overflow() */
		printk("cpu: CPU%u: the admitted SCHED_DEADLINE bandwidth needs it\n", cpu);
		return -EBUSY;
	}
	return 0;
}

static const char *kill_result(int kill)
{
	return kill > 0	   ? "powered off (PSCI CPU_OFF)"
	       : kill == 0 ? "parked in wfi (this CPU cannot be powered off)"
			   : "the firmware still reports it on";
}

/* Linux: _cpu_down() -> cpuhp teardown down to CPUHP_OFFLINE. */
static int cpu_down_locked(unsigned int cpu)
{
	struct takedown td = { .cpu = cpu };
	u64 t0 = arch_clock_ns();
	unsigned int timers;
	int kill;

	cpufreq_cpu_offline(cpu); /* Linux: CPUHP_AP_ONLINE_DYN, before deactivate */
	__atomic_store_n(&cpu_dead[cpu], 0, __ATOMIC_RELEASE);
	if (stop_machine(take_cpu_down, &td, cpu)) {
		printk("cpu: CPU%u: a stop task is missing: it stays online\n", cpu);
		cpufreq_cpu_online(cpu);
		return -EIO;
	}
	/* Linux: takedown_cpu() waits for the AP's idle task, then __cpu_die(). */
	if (!wait_for(&cpu_dead[cpu], cpu, CPUHP_TIMEOUT_NS)) {
		printk("cpu: CPU%u is offline but its idle task never reported dead\n", cpu);
		return -EIO;
	}
	kill = arch_cpu_kill(cpu);
	timers = timers_dead_cpu(cpu); /* Linux: CPUHP_TIMERS_PREPARE teardown */
	stats.nr_down++;
	stats.last_down_ns = arch_clock_ns() - t0;
	stats.last_migrated = td.migrated;
	stats.last_timers = timers;
	stats.last_irqs = td.irqs;
	stats.last_parked = kill == 0;
	printk("cpu: CPU%u offline in %llu us: %u task(s) migrated, %u timer(s) and %u IRQ(s) "
	       "moved; %s\n",
	       cpu, stats.last_down_ns / NSEC_PER_USEC, td.migrated, timers, td.irqs,
	       kill_result(kill));
	return 0;
}

/* stop_machine() on this CPU, serialized with hotplug (the scheduler's policy switch). */
int stop_machine_cpus_locked(int (*fn)(void *), void *arg)
{
	int err;

	mutex_lock(&cpu_hotplug_lock);
	err = stop_machine(fn, arg, smp_processor_id());
	mutex_unlock(&cpu_hotplug_lock);
	return err;
}

int cpu_down(unsigned int cpu)
{
	int err;

	mutex_lock(&cpu_hotplug_lock);
	err = check_cpu(cpu, false);
	if (!err)
		err = cpu_down_locked(cpu);
	mutex_unlock(&cpu_hotplug_lock);
	return err;
}

/* Linux: _cpu_up(): bringup through the same entry as boot (PSCI CPU_ON to
 * secondary_entry, or the park release), then sched_cpu_activate() and
 * cpufreq_online(). */
static int cpu_up_locked(unsigned int cpu)
{
	u64 t0 = arch_clock_ns();
	int err;

	sched_cpu_starting(cpu);
	stop_machine_unpark(cpu);
	err = arch_cpu_start(cpu, idle_task(cpu));
	if (err || !wait_for(NULL, cpu, CPUHP_TIMEOUT_NS)) {
		stop_machine_park(cpu);
		printk("cpu: CPU%u did not come online (%s)\n", cpu,
		       err ? "the firmware refused to start it" : "timed out");
		return -EIO;
	}
	stop_machine(sched_cpu_activate, &cpu, cpu);
	cpufreq_cpu_online(cpu);
	stats.nr_up++;
	stats.last_up_ns = arch_clock_ns() - t0;
	printk("cpu: CPU%u online in %llu us\n", cpu, stats.last_up_ns / NSEC_PER_USEC);
	return 0;
}

int cpu_up(unsigned int cpu)
{
	int err;

	mutex_lock(&cpu_hotplug_lock);
	err = check_cpu(cpu, true);
	if (!err)
		err = cpu_up_locked(cpu);
	mutex_unlock(&cpu_hotplug_lock);
	return err;
}

void cpuhp_get_stats(struct cpuhp_stats *out)
{
	mutex_lock(&cpu_hotplug_lock);
	*out = stats;
	mutex_unlock(&cpu_hotplug_lock);
}

const char *cpuhp_state_name(unsigned int cpu)
{
	if (cpu >= nr_cpu_ids || cpu_topology.cpu[cpu].mpidr == MPIDR_INVALID)
		return "absent";
	return cpu_online(cpu) ? "online" : "offline";
}
