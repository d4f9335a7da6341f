/* smp.c - bringing the secondary CPUs online, IPIs, cross-CPU function
 * calls, and stopping everything on panic. The CPU list and MPIDRs come
 * from the topology (one place, kernel/sched/topology.c); how a CPU is
 * started is the arch's business. Call queues under each CPU's call_lock. */
#include "kernel.h"
#include "mm.h"
#include "cpuidle.h"
#include "sched.h"
#include "smp.h"
#include "speed.h"
#include "timer.h"
#include "topology.h"

#define CPU_START_TIMEOUT_NS (1000 * NSEC_PER_MSEC) /* emulated time */

cpumask_t __cpu_online_mask;
cpumask_t __cpu_active_mask;
cpumask_t __cpu_possible_mask = { { 1 } };
unsigned int nr_cpu_ids = 1;

static struct {
	spinlock_t lock;
	struct call_single_data *head;
	u64 online_ns;
} percpu[NR_CPUS];

void set_cpu_online(unsigned int cpu, bool online)
{
	if (!online) {
		cpumask_clear_cpu(cpu, &__cpu_online_mask);
		return;
	}
	percpu[cpu].online_ns = arch_clock_ns();
	cpumask_set_cpu(cpu, &__cpu_online_mask);
}

void set_nr_cpu_ids(unsigned int nr)
{
	nr_cpu_ids = nr;
	cpumask_clear(&__cpu_possible_mask);
	for (unsigned int cpu = 0; cpu < nr; cpu++)
		__cpumask_set_cpu(cpu, &__cpu_possible_mask);
}

u64 smp_boot_time_ns(unsigned int cpu)
{
	return percpu[cpu].online_ns;
}

void set_cpu_active(unsigned int cpu, bool active)
{
	if (active)
		cpumask_set_cpu(cpu, &__cpu_active_mask);
	else
		cpumask_clear_cpu(cpu, &__cpu_active_mask);
}

/* Boot CPU, after the scheduler and timers are up. Every CPU that comes
 * online here is active at once: no task runs yet (kernel/cpu.c activates
 * the ones brought up later). */
void smp_init(void)
{
	unsigned int self = arch_cpu_id();

	set_nr_cpu_ids((unsigned int)cpu_topology.nr_cpus);
	set_cpu_online(self, true);
	set_cpu_active(self, true);
	for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++) {
		struct task_struct *idle;
		u64 deadline;
		int err;

		if (cpu == self)
			continue;
		if (cpu_topology.cpu[cpu].mpidr == MPIDR_INVALID) {
			printk("smp: CPU%u has no valid MPIDR in the device tree, left out\n", cpu);
			continue;
		}
		idle = idle_task_create(cpu);
		if (!idle) {
			printk("smp: CPU%u: out of memory for its idle task, left out\n", cpu);
			continue;
		}
		sched_init_cpu(cpu, idle);
		err = arch_cpu_start(cpu, idle);
		deadline = arch_clock_ns() + CPU_START_TIMEOUT_NS;
		while (!err && !cpu_online(cpu) && arch_clock_ns() < deadline)
			arch_cpu_relax();
		if (!cpu_online(cpu)) {
			printk("smp: CPU%u (MPIDR %#llx) failed to come online (%s), left out\n",
			       cpu, cpu_topology.cpu[cpu].mpidr,
			       err == -ENODEV	? "the interrupt controller cannot reach it"
			       : err == -ENOMEM ? "no memory for it"
			       : err		? "the firmware refused to start it"
						: "timed out");
			continue;
		}
		set_cpu_active(cpu, true);
	}
	printk("smp: %u of %u CPUs online at %llu us\n", num_online_cpus(), nr_cpu_ids,
	       arch_clock_ns() / NSEC_PER_USEC);
}

/* A secondary CPU, MMU and IRQ controller set up by the arch, IRQs off: at
 * boot, and each time kernel/cpu.c brings it back (on its idle task's stack
 * from the top: whatever the idle task was doing when the CPU died is gone). */
void secondary_cpu_main(unsigned int cpu)
{
	timer_cpu_init(cpu, nr_cpu_ids);
	/* Executing from here: a CPU hotplugged back owes nothing for the time
	 * it was off (kernel/cpu.c settled its last stretch as it died). */
	speed_busy_begin();
	energy_cpu_state(cpu, -1);
	set_cpu_online(cpu, true);
	arch_irq_enable();
	cpu_idle_loop();
}

static void run_calls(unsigned int cpu)
{
	struct call_single_data *e;

	spin_lock(&percpu[cpu].lock);
	e = percpu[cpu].head;
	percpu[cpu].head = NULL;
	spin_unlock(&percpu[cpu].lock);
	while (e) {
		struct call_single_data *next = e->next;

		/* Unqueue before the call: a request made while fn runs queues
		 * it again, so fn always sees the newest state at least once. */
		__atomic_store_n(&e->queued, false, __ATOMIC_RELEASE);
		e->fn(e->arg);
		__atomic_store_n(&e->done, true, __ATOMIC_RELEASE); /* e may vanish now */
		e = next;
	}
}

/* Queue csd on cpu's list and kick it; false if cpu is (or went) offline. */
static bool call_queue(unsigned int cpu, struct call_single_data *csd)
{
	unsigned long flags = spin_lock_irqsave(&percpu[cpu].lock);

	if (!cpu_online(cpu)) { /* went offline since: smp_cpu_dying() flushed */
		spin_unlock_irqrestore(&percpu[cpu].lock, flags);
		return false;
	}
	csd->next = percpu[cpu].head;
	percpu[cpu].head = csd;
	spin_unlock_irqrestore(&percpu[cpu].lock, flags);
	arch_send_ipi(cpu, IPI_CALL_FUNC);
	return true;
}

int smp_call_function_single(unsigned int cpu, void (*fn)(void *), void *arg)
{
	struct call_single_data local = { .fn = fn, .arg = arg };
	unsigned long flags;

	if (cpu >= NR_CPUS || !cpu_online(cpu))
		return -1;
	if (cpu == arch_cpu_id()) {
		flags = arch_irq_save();
		fn(arg);
		arch_irq_restore(flags);
		return 0;
	}
	if (!call_queue(cpu, &local))
		return -1;
	speed_spin_begin();
	while (!__atomic_load_n(&local.done, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	speed_spin_end();
	return 0;
}

/* No allocation and no wait: the caller owns csd (Linux: the csd of
 * smp_call_function_single_async()), so a hot path such as a frequency
 * switch cannot fail for want of memory. One csd is queued once at a time. */
int smp_call_function_single_async(unsigned int cpu, struct call_single_data *csd)
{
	unsigned long flags;

	if (cpu >= NR_CPUS || !cpu_online(cpu))
		return -1;
	if (cpu == arch_cpu_id()) {
		flags = arch_irq_save();
		csd->fn(csd->arg);
		arch_irq_restore(flags);
		return 0;
	}
	if (__atomic_exchange_n(&csd->queued, true, __ATOMIC_ACQ_REL))
		return -EBUSY;
	if (!call_queue(cpu, csd)) {
		__atomic_store_n(&csd->queued, false, __ATOMIC_RELEASE);
		return -1;
	}
	return 0;
}

/* On the dying CPU, IRQs off (kernel/cpu.c, inside stop_machine): offline
 * under the call lock, so a call is either queued before (and runs now,
 * here, as Linux's smpcfd_dying_cpu does) or refused after. */
void smp_cpu_dying(unsigned int cpu)
{
	spin_lock(&percpu[cpu].lock);
	set_cpu_online(cpu, false);
	spin_unlock(&percpu[cpu].lock);
	run_calls(cpu);
}

static void stop_this_cpu(void)
{
	set_cpu_online(arch_cpu_id(), false);
	arch_irq_disable();
	for (;;)
		arch_idle();
}

void smp_send_stop(void)
{
	unsigned int cpu, self = arch_cpu_id(), sent = 0;
	u64 deadline = arch_clock_ns() + 100 * NSEC_PER_MSEC;
	cpumask_t others;

	cpumask_andnot(&others, cpu_online_mask, cpumask_of(self));
	for_each_cpu(cpu, &others) {
		arch_send_ipi(cpu, IPI_STOP);
		sent++;
	}
	while (cpumask_andnot(&others, cpu_online_mask, cpumask_of(self)) &&
	       arch_clock_ns() < deadline)
		arch_cpu_relax();
	printk("panic: stopped %u other CPUs%s\n", sent - num_online_cpus() + 1,
	       num_online_cpus() > 1 ? " (some did not answer)" : "");
}

/* IRQ context. */
void ipi_handler(enum ipi_type type)
{
	switch (type) {
	case IPI_RESCHEDULE:
		resched_cpu(arch_cpu_id()); /* need_resched; acted on at IRQ exit */
		break;
	case IPI_CALL_FUNC:
		run_calls(arch_cpu_id());
		break;
	case IPI_STOP:
		stop_this_cpu();
		break;
	default:
		WARN_ON_ONCE(1);
	}
}
