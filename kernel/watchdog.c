/* watchdog.c - lockup detectors, run from every CPU's tick (kernel/timer.c).
 * Soft lockup: a CPU whose tick keeps coming (IRQs on) but that has not
 * scheduled for 2 x watchdog_thresh while its task holds preemption off. On
 * this preemptible kernel that is the only way to stop scheduling with IRQs
 * on: a preemptible task yields as soon as another needs the CPU, and an
 * idle CPU is not stuck (Linux: the watchdog thread that cannot run).
 * Hard lockup: a CPU whose own tick has not run for watchdog_thresh, seen by
 * any other CPU's tick (Linux uses a perf NMI; we have no NMI, so the stuck
 * CPU's backtrace is not available, only what ran there at its last tick).
 * A CPU whose tick is stopped in NO_HZ idle is not watched (Linux's hard
 * detector counts cycles, which idle does not spend); it is watched again from
 * the instant its tick restarts.
 * Both report and panic (Linux's softlockup_panic / hardlockup_panic = 1):
 * a lockup is a bug, and an unattended run must end. Per-CPU state written
 * only by its own CPU's tick; `reported` is the one shared word. */
#include "bootargs.h"
#include "kernel.h"
#include "sched.h"
#include "smp.h"
#include "timer.h"

#define WATCHDOG_THRESH_MS_DEFAULT 2000 /* hard 2 s, soft 4 s of emulated time */

static struct watchdog_cpu {
	u64 last_tick_ns;  /* this CPU's last tick; 0 before its first */
	u64 last_sched_ns; /* last tick that saw it schedulable or scheduling */
	u64 switches;	   /* cpu_nr_switches() at that tick */
	int pid;	   /* what ran at the last tick, for a hard-lockup report */
	char comm[TASK_COMM_LEN];
} wd[NR_CPUS];
static u64 thresh_ns;
static int reported;

static u64 watchdog_thresh_ns(void)
{
	char v[16];
	u64 ms = WATCHDOG_THRESH_MS_DEFAULT;

	if (!thresh_ns) { /* every CPU computes the same: no ordering needed */
		if (bootarg_get("watchdog_thresh", v, sizeof(v))) {
			ms = 0;
			for (const char *p = v; *p >= '0' && *p <= '9' && ms < 1000000; p++)
				ms = ms * 10 + (u64)(*p - '0');
			if (!ms) {
				printk("watchdog: watchdog_thresh=\"%s\" is not a number of ms; "
				       "using %u\n",
				       v, WATCHDOG_THRESH_MS_DEFAULT);
				ms = WATCHDOG_THRESH_MS_DEFAULT;
			}
		}
		WRITE_ONCE(thresh_ns, ms * NSEC_PER_MSEC);
	}
	return READ_ONCE(thresh_ns);
}

static void check_soft(unsigned int cpu, struct watchdog_cpu *w, u64 now, u64 thresh)
{
	struct task_struct *t = current;
	u64 sw = cpu_nr_switches(cpu);

	if (sw != w->switches || t->is_idle || t->preempt_count == 0) {
		w->switches = sw;
		w->last_sched_ns = now;
		return;
	}
	if (now - w->last_sched_ns < 2 * thresh ||
	    __atomic_exchange_n(&reported, 1, __ATOMIC_ACQ_REL))
		return;
	printk("\nwatchdog: BUG: soft lockup - CPU#%u stuck for %llu ms! [%s:%d] "
	       "(not scheduled, preemption off, interrupts on)\n",
	       cpu, (now - w->last_sched_ns) / NSEC_PER_MSEC, t->comm, t->pid);
	arch_dump_stack(); /* crosses the IRQ frame into the stuck code */
	panic("softlockup: hung tasks");
}

static void check_hard(unsigned int self, u64 now, u64 thresh)
{
	unsigned int cpu;

	for_each_cpu(cpu, cpu_online_mask) {
		struct watchdog_cpu *w = &wd[cpu];
		u64 last = READ_ONCE(w->last_tick_ns);

		if (cpu == self || !last || now < last || now - last < thresh)
			continue;
		if (__atomic_exchange_n(&reported, 1, __ATOMIC_ACQ_REL))
			return;
		printk("\nwatchdog: hard LOCKUP on CPU#%u: no tick for %llu ms (interrupts off?); "
		       "at its last tick it ran %s (pid %d); seen by CPU#%u\n",
		       cpu, (now - last) / NSEC_PER_MSEC, w->comm, w->pid, self);
		panic("hard LOCKUP on CPU#%u", cpu);
	}
}

/* CPU hotplug: the dying CPU, its tick stopped for good, forgets its last
 * tick, so that no one sees a hard lockup while it is off nor in its first
 * tick period after it comes back (the first tick starts afresh). */
void watchdog_cpu_dead(unsigned int cpu)
{
	WRITE_ONCE(wd[cpu].last_tick_ns, 0);
}

/* NO_HZ idle (kernel/timer.c), on cpu itself, IRQs off: stopped, the CPU
 * drops out of the hard-lockup check; restarted, its last tick is now. */
void watchdog_tick_stopped(unsigned int cpu, bool stopped)
{
	u64 now = arch_clock_ns();

	if (!stopped) {
		wd[cpu].last_sched_ns = now;
		wd[cpu].switches = cpu_nr_switches(cpu);
	}
	WRITE_ONCE(wd[cpu].last_tick_ns, stopped ? 0 : now);
}

/* From the tick, IRQ context, on every CPU. */
void watchdog_tick(void)
{
	unsigned int cpu = arch_cpu_id();
	struct watchdog_cpu *w = &wd[cpu];
	u64 now = arch_clock_ns(), thresh = watchdog_thresh_ns();

	if (!w->last_tick_ns)
		w->last_sched_ns = now;
	w->pid = current->pid;
	strlcpy_k(w->comm, current->comm, sizeof(w->comm));
	WRITE_ONCE(w->last_tick_ns, now);
	if (READ_ONCE(reported))
		return;
	check_soft(cpu, w, now, thresh);
	check_hard(cpu, now, thresh);
}
