/* cpuidle.h - idle states at run time (kernel/sched/cpuidle.c): the cpuidle
 * core, Linux 6.1's menu and teo governors, cluster states by the last-man rule, the
 * exit latency paid as a stall, per-state statistics; and the energy meter
 * (kernel/sched/energy.c). The states themselves come from the device tree
 * (topology.h: struct topology_idle_state). */
#ifndef CPUIDLE_H
#define CPUIDLE_H

#include "topology.h"
#include "types.h"

/* Linux: struct cpuidle_state_usage (sysfs: usage, time, above, below). */
struct cpuidle_state_usage {
	u64 usage;
	u64 time_ns;
	u64 above; /* woke before the state's target residency */
	u64 below; /* slept long enough for a deeper state */
};

/* A cluster's power-down (last-man): how often, how long. */
struct cpuidle_cluster_stats {
	u64 count;
	u64 time_ns;
};

/* From the parsed topology; "cpuidle=off" on the command line keeps plain wfi. */
void cpuidle_init(void);
bool cpuidle_enabled(void);
void cpuidle_set_enabled(bool on); /* host tests */
/* "menu" (default), or "teo" with cpuidle_governor=teo on the command line. */
const char *cpuidle_governor_name(void);
/* The idle task's wait (cpu_idle_once()): IRQs off on entry and on return;
 * choose a state, stop the tick unless the governor keeps it (Linux:
 * do_idle's stop_tick), wait in the state, pay its exit latency, then take
 * the interrupt that woke the CPU. With cpuidle off: tick stopped, arch_idle(). */
void cpuidle_idle_call(void);
int cpuidle_nr_states(unsigned int cpu);
const struct topology_idle_state *cpuidle_state(unsigned int cpu, int idx);
/* Linux: idle_get_state(): the state CPU cpu is idle in (its index), -1 if
 * it is not in one (running, or cpuidle off). */
int idle_get_state_idx(unsigned int cpu);
void idle_set_state_idx(unsigned int cpu, int idx); /* Linux: idle_set_state() */
/* Linux: cpuidle_state::exit_latency_ns = (entry + exit latency) x 1000. */
u64 cpuidle_exit_latency_ns(unsigned int cpu, int idx);
/* The most a wakeup of cpu can be delayed by its idle state (its largest
 * exit-latency-us; 0 with cpuidle off): tests that time wakeups add it. */
u64 cpuidle_wakeup_cost_ns(unsigned int cpu);
u64 cpuidle_wakeup_cost_max_ns(void); /* over all CPUs */
void cpuidle_get_usage(unsigned int cpu, int idx, struct cpuidle_state_usage *out);
void cpuidle_get_cluster(int cluster, struct cpuidle_cluster_stats *out);
/* From now on, residencies count only their part after now (cpuidle_get_usage() keeps
 * the completed ones; the printed time includes the stretch going on). */
void cpuidle_reset_stats(void);
/* Since the reset, over the online CPUs: ns[0] in WFI (state 0), ns[1] in the CPUs' own
 * power-downs, ns[2] with the cluster off too; the stretches going on included. */
void cpuidle_time_by_kind(u64 ns[3]);
/* One line per CPU and state: "<prefix>cpuidle<tag> cpu=N state=K ...". */
void cpuidle_print(const char *prefix, const char *tag);

/* ---- the energy meter (kernel/sched/energy.c) ---------------------------------- */
/* Idle power when the tree gives none (Linux's EM has none): per mille of
 * the CPU's lowest OPP's EM power, by state kind. */
#define ENERGY_WFI_PERMILLE	    100 /* state 0, clock-gated: 10 % */
#define ENERGY_CPU_OFF_PERMILLE	    20	/* a CPU power-down (level 0): 2 % */
#define ENERGY_CLUSTER_OFF_PERMILLE 0	/* a cluster power-down (level 1): 0 */

/* The CPU's state changes now (IRQs off, on that CPU): busy at its OPP (state
 * -1), idle in state idx, or powered off by hotplug (ENERGY_STATE_OFF: no
 * power). Charges the time since its last change. */
#define ENERGY_STATE_OFF (-2)
void energy_cpu_state(unsigned int cpu, int idx);
/* The CPU's OPP changes (on that CPU, IRQs off): charge at the old one first. */
void energy_cpu_freq(unsigned int cpu, u32 khz);
/* The idle state being left was idx, not the one announced (a cluster state
 * whose cluster never went off). */
void energy_cpu_correct(unsigned int cpu, int idx);
void energy_init(void);		     /* then energy_cpu_freq() for each CPU's current OPP */
u64 energy_cpu_uj(unsigned int cpu); /* microjoules since reset, up to now */
u64 energy_idle_power_uw(unsigned int cpu, int idx);
u64 energy_busy_power_uw(unsigned int cpu, u32 khz);
u64 energy_since_ns(void); /* emulated ns since the last reset */
void energy_reset(void);
/* Per CPU and cluster: J and average W; lines "<prefix>energy<tag> cpu=N ...". */
void energy_print(const char *prefix, const char *tag);

#endif
