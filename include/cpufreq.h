/* cpufreq.h - CPU frequency: one policy per frequency domain of the device
 * tree, an emulated driver whose OPP really sets the CPUs' speed (docs/design.md,
 * "The emulated machine"), the governors (schedutil, performance, powersave,
 * userspace) and Linux-style statistics (kernel/sched/cpufreq.c,
 * kernel/sched/cpufreq_schedutil.c). The pure maths at the end
 * (kernel/sched/cpufreq_math.c) takes values and returns values: the host
 * tests (tests/host/test_cpufreq.c) run exactly what the kernel runs. */
#ifndef CPUFREQ_H
#define CPUFREQ_H

#include "topology.h"
#include "types.h"

enum cpufreq_governor {
	CPUFREQ_GOV_PERFORMANCE, /* f_max */
	CPUFREQ_GOV_POWERSAVE,	 /* f_min */
	CPUFREQ_GOV_USERSPACE,	 /* a fixed frequency set through cpufreq_set_speed() */
	CPUFREQ_GOV_SCHEDUTIL,	 /* follows utilization (Linux 6.1.192 schedutil) */
	CPUFREQ_NR_GOVERNORS,
};
#define CPUFREQ_DEFAULT_GOVERNOR CPUFREQ_GOV_PERFORMANCE

/* Linux: cpufreq_stats (time_in_state, total_trans, trans_table). Times in ns. */
struct cpufreq_stats {
	int nr;			     /* OPPs */
	u32 freq[TOPOLOGY_MAX_OPPS]; /* kHz, ascending */
	u64 time_in_state[TOPOLOGY_MAX_OPPS];
	u64 last_time;	/* time_in_state counted up to here */
	int last_index; /* the OPP being counted */
	u32 total_trans;
	u32 trans_table[TOPOLOGY_MAX_OPPS][TOPOLOGY_MAX_OPPS]; /* [from][to] */
};

/* ---- drivers (Linux: struct cpufreq_driver) ----------------------------------------- */
/* What sets a frequency domain's clock. The core (cpufreq.c) owns the policies,
 * governors and statistics; a driver only changes and reports the hardware. Without a
 * registered driver the core uses its emulated one (no hardware: an OPP takes effect
 * clock-latency-ns after the request). Calls come from the core's transition timer
 * (IRQ context, no lock held) with `cpu` the first CPU of the domain. */
struct cpufreq_driver {
	const char *name;
	/* Linux: ->target_index(): ask for khz (an OPP of the domain's table); 0, or a
	 * negative error (the core then keeps what ->get() reports). May poll the
	 * hardware for a bounded time. */
	int (*target)(unsigned int cpu, u32 khz);
	/* Linux: ->get(): the domain's frequency as the hardware reports it, kHz (0:
	 * unknown); it may differ from the OPP asked (firmware rounding, refusal). */
	u32 (*get)(unsigned int cpu);
	/* true: the core waits the tree's clock-latency-ns before ->target() (the
	 * emulated driver: that wait is the transition); false: it calls it at once. */
	bool emulate_latency;
};
/* Before cpufreq_init() (arch_platform_init): the one driver; -1 if one is already set. */
int cpufreq_register_driver(const struct cpufreq_driver *drv);
const char *cpufreq_driver_name(void);
/* Self-tests: another driver at run time, with no transition in flight (every policy
 * userspace, settled); returns the one it replaced. */
const struct cpufreq_driver *cpufreq_swap_driver(const struct cpufreq_driver *drv);
u32 cpufreq_hw_freq(int policy); /* kHz as the driver last reported it (else the OPP) */

/* ---- the kernel API (kernel/sched/cpufreq.c) ------------------------------------ */
/* Policies from cpu_topology's frequency domains with an OPP table; governor
 * from bootargs "cpufreq=GOV" (all policies) or "cpufreq=GOV0,GOV1,..." (one
 * per policy, in order). Unknown names: a message and the default. */
void cpufreq_init(void);
int cpufreq_nr_policies(void);
int cpufreq_policy_of(unsigned int cpu); /* policy index, -1 if none */
/* Run-time governor change; an unknown name is reported and refused (-1). */
int cpufreq_set_governor(int policy, const char *name);
const char *cpufreq_governor_name(int policy);
/* userspace governor: pick the lowest OPP at or above khz (-1 if not userspace). */
int cpufreq_set_speed(int policy, u32 khz);
/* CPU hotplug (kernel/cpu.c): the policy's online CPUs shrink and grow; with
 * none it is inactive (governor stopped) until one comes back. */
void cpufreq_cpu_offline(unsigned int cpu);
void cpufreq_cpu_online(unsigned int cpu);
bool cpufreq_policy_active(int policy);
cpumask_t cpufreq_policy_cpus(int policy); /* its online CPUs */
u32 cpufreq_cur_freq(int policy);	   /* kHz, the applied OPP */
u32 cpufreq_target_freq(int policy);	   /* kHz, the last requested OPP */
u32 cpufreq_min_freq(int policy);
u32 cpufreq_max_freq(int policy);
u32 cpufreq_rate_limit_us(int policy);
void cpufreq_set_rate_limit_us(int policy, u32 us);
/* A copy of the statistics, time_in_state counted up to now. */
void cpufreq_get_stats(int policy, struct cpufreq_stats *out);
void cpufreq_reset_stats(int policy);
void cpufreq_print_stats(int policy); /* "cpufreq: policyN ..." lines */

/* ---- pure maths (kernel/sched/cpufreq_math.c) ------------------------------------ */
/* Linux: cpufreq_driver_resolve_freq(CPUFREQ_RELATION_L): the lowest OPP at or
 * above khz, the highest if none is. Returns the index. freq ascending, n >= 1. */
int cpufreq_resolve_index(const u32 *freq, int n, u32 khz);
/* Linux 6.1.192: map_util_perf(): util + util / 4 (the 25 % headroom). */
unsigned long map_util_perf(unsigned long util);
/* Linux 6.1.192: map_util_freq(): freq x util / cap. */
u32 map_util_freq(unsigned long util, u32 freq, unsigned long cap);
/* Linux 6.1.192: get_next_freq(): the OPP for f_max x map_util_perf(util) / max. */
u32 get_next_freq(unsigned long util, unsigned long max, const u32 *freq, int nr_opps);
/* Linux: cpufreq_policy_transition_delay_us(): latency_us x 1000, at most
 * 10 ms; 1 ms when the table gives no latency. */
u32 cpufreq_transition_delay_us(u32 latency_ns);
/* Linux: sugov_should_update_freq(): not more often than the rate limit. */
bool sugov_should_update(u64 now, u64 last_update, u64 rate_limit_ns, bool limits_changed);

/* What one CPU contributes (Linux: effective_cpu_util(FREQUENCY_UTIL) inputs). */
struct sugov_cpu_util {
	unsigned long cfs;		      /* cpu_util_cfs: CFS util_avg with util_est, <= cap */
	unsigned long rt;		      /* avg_rt.util_avg */
	unsigned long irq;		      /* avg_irq.util_avg */
	unsigned long dl;		      /* avg_dl.util_avg */
	unsigned long bw_dl;		      /* cpu_bw_dl(): running_bw as a capacity */
	unsigned long cap;		      /* capacity_orig */
	bool rt_runnable;		      /* an RT task is queued or running */
	bool uclamp_used;		      /* Linux: uclamp_is_used() */
	unsigned long uclamp_min, uclamp_max; /* the rq's aggregated clamps */
};
/* RT_UTIL_TRACKING on (Linux >= 4.19, 6.1.192 effective_cpu_util(FREQUENCY_UTIL)):
 * cap if an RT task is runnable and uclamp unused, or if irq or cfs + rt + dl
 * reach cap; else clamp(cfs + rt) x (cap - irq) / cap + irq + bw_dl, at most
 * cap, where clamp() is uclamp_rq_util_with() of the rq's clamps (min wins an
 * inversion). Off (before 4.19): cap if an RT task is runnable, else cfs alone. */
unsigned long sugov_effective_util(const struct sugov_cpu_util *u, bool rt_tracking);
/* Linux: sugov_next_freq_shared(): the CPU with the highest util / cap ratio
 * sets the policy's frequency. Returns the OPP in kHz. */
u32 sugov_next_freq_shared(const struct sugov_cpu_util *cpus, int n, bool rt_tracking,
			   const u32 *freq, int nr_opps);

void cpufreq_stats_init(struct cpufreq_stats *s, const u32 *freq, int n, int index, u64 now);
void cpufreq_stats_update(struct cpufreq_stats *s, u64 now); /* count time up to now */
void cpufreq_stats_transition(struct cpufreq_stats *s, int to, u64 now);
void cpufreq_stats_reset(struct cpufreq_stats *s, u64 now);

#endif
