/* energy.c - the energy meter: each CPU's power integrated over emulated
 * time, busy at its OPP's energy-model power (topology.c: C x V^2 x f, as
 * Linux's EM), idle at its idle state's power (documented defaults, cpuidle.h:
 * Linux's EM has no idle power). A cluster's energy is its CPUs' sum: the
 * trees give no cluster power. Each CPU updates its own counters, IRQs off. */
#include "cpuidle.h"
#include "kernel.h"
#include "sched_internal.h"
#include "smp.h"

#define STATE_BUSY (-1)

struct energy_cpu {
	int state;   /* STATE_BUSY or an idle state index */
	u32 khz;     /* the OPP while busy */
	u64 busy_uw; /* its power: looked up at each OPP change, not at each charge */
	u64 last;    /* ns: charged up to here */
	u64 pj;	     /* picojoules since reset */
} __attribute__((aligned(64)));

static struct energy_cpu meter[NR_CPUS];
static u64 reset_at;
static bool ready;

static const struct topology_freq_domain *domain_of(unsigned int cpu)
{
	return &cpu_topology.freq_domain[cpu_topology.cpu[cpu].freq_domain];
}

/* The EM's power at the lowest perf state at or above khz; 0 without an EM. */
u64 energy_busy_power_uw(unsigned int cpu, u32 khz)
{
	const struct topology_freq_domain *fd = domain_of(cpu);

	for (int i = 0; i < fd->nr_perf_states; i++)
		if (fd->em[i].frequency >= khz || i == fd->nr_perf_states - 1)
			return fd->em[i].power;
	return 0;
}

u64 energy_idle_power_uw(unsigned int cpu, int idx)
{
	const struct topology_freq_domain *fd = domain_of(cpu);
	const struct topology_idle_state *s = cpuidle_state(cpu, idx);
	u64 lowest = fd->nr_perf_states ? fd->em[0].power : 0;
	u32 permille = idx == 0	  ? ENERGY_WFI_PERMILLE
		       : s->level ? ENERGY_CLUSTER_OFF_PERMILLE
				  : ENERGY_CPU_OFF_PERMILLE;

	return lowest * permille / 1000;
}

static u64 power_now(unsigned int cpu, const struct energy_cpu *m)
{
	if (m->state == ENERGY_STATE_OFF)
		return 0;
	return m->state == STATE_BUSY ? m->busy_uw : energy_idle_power_uw(cpu, m->state);
}

static void charge(unsigned int cpu, struct energy_cpu *m)
{
	u64 now = arch_clock_ns();

	if (now > m->last)
		m->pj += power_now(cpu, m) * (now - m->last) / 1000; /* uW x ns = fJ */
	m->last = now;
}

void energy_cpu_state(unsigned int cpu, int idx)
{
	if (!ready)
		return;
	charge(cpu, &meter[cpu]);
	meter[cpu].state = idx < 0 && idx != ENERGY_STATE_OFF ? STATE_BUSY : idx;
}

void energy_cpu_correct(unsigned int cpu, int idx)
{
	if (ready && meter[cpu].state >= 0)
		meter[cpu].state = idx;
}

void energy_cpu_freq(unsigned int cpu, u32 khz)
{
	if (!ready)
		return;
	charge(cpu, &meter[cpu]);
	meter[cpu].khz = khz;
	meter[cpu].busy_uw = energy_busy_power_uw(cpu, khz);
}

void energy_init(void)
{
	u64 now = arch_clock_ns();

	for (int cpu = 0; cpu < cpu_topology.nr_cpus; cpu++) {
		meter[cpu].khz = cpu_topology.cpu[cpu].fmax; /* the caller sets the OPP */
		meter[cpu].busy_uw = energy_busy_power_uw((unsigned int)cpu, meter[cpu].khz);
		meter[cpu].last = now;
		meter[cpu].state = STATE_BUSY;
	}
	reset_at = now;
	WRITE_ONCE(ready, true);
}

/* Read from any CPU: the owner may be charging at the same time, so the
 * ongoing stretch is added from a snapshot (off by at most one stretch). */
u64 energy_cpu_uj(unsigned int cpu)
{
	struct energy_cpu m = meter[cpu];
	u64 now = arch_clock_ns();

	if (now > m.last)
		m.pj += power_now(cpu, &m) * (now - m.last) / 1000;
	return m.pj / 1000000;
}

u64 energy_since_ns(void)
{
	return arch_clock_ns() - reset_at;
}

/* From any CPU: each counter restarts at now (a CPU charging meanwhile may
 * keep a few us of the old stretch). */
void energy_reset(void)
{
	u64 now = arch_clock_ns();

	for (int cpu = 0; cpu < cpu_topology.nr_cpus; cpu++) {
		unsigned long flags = arch_irq_save();

		WRITE_ONCE(meter[cpu].pj, 0);
		WRITE_ONCE(meter[cpu].last, MAX(READ_ONCE(meter[cpu].last), now));
		arch_irq_restore(flags);
	}
	reset_at = now;
}

static void print_line(const char *prefix, const char *tag, const char *what, int id, u64 uj,
		       u64 ns)
{
	u64 uw = ns ? uj * 1000000000ull / ns : 0; /* uJ / s = uW */

	printk("%senergy%s %s=%d joules=%llu.%06llu avg_watts=%llu.%06llu\n", prefix, tag, what, id,
	       (unsigned long long)(uj / 1000000), (unsigned long long)(uj % 1000000),
	       (unsigned long long)(uw / 1000000), (unsigned long long)(uw % 1000000));
}

void energy_print(const char *prefix, const char *tag)
{
	u64 ns = energy_since_ns(), total = 0;

	printk("%senergy%s since_ms=%llu idle_power=lowest_opp_power x (wfi %u, cpu_off %u, "
	       "cluster_off %u) / 1000\n",
	       prefix, tag, (unsigned long long)(ns / NSEC_PER_MSEC), ENERGY_WFI_PERMILLE,
	       ENERGY_CPU_OFF_PERMILLE, ENERGY_CLUSTER_OFF_PERMILLE);
	for (int cpu = 0; cpu < cpu_topology.nr_cpus; cpu++)
		print_line(prefix, tag, "cpu", cpu, energy_cpu_uj((unsigned int)cpu), ns);
	for (int c = 0; c < cpu_topology.nr_clusters; c++) {
		u64 uj = 0;

		for (int cpu = 0; cpu < cpu_topology.nr_cpus; cpu++)
			if (cpumask_test_cpu((unsigned int)cpu, &cpu_topology.cluster_cpus[c]))
				uj += energy_cpu_uj((unsigned int)cpu);
		print_line(prefix, tag, "cluster", c, uj, ns);
		total += uj;
	}
	printk("%senergy%s total joules=%llu.%06llu\n", prefix, tag,
	       (unsigned long long)(total / 1000000), (unsigned long long)(total % 1000000));
}
