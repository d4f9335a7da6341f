/* cpufreq_policy.h - the policy structure shared by cpufreq.c (driver,
 * governors, statistics) and cpufreq_schedutil.c (the schedutil governor).
 * Lock order: rq->lock, then policy->lock; the transition timer's callback
 * takes policy->lock alone and never an rq lock of another CPU. */
#ifndef KERNEL_SCHED_CPUFREQ_POLICY_H
#define KERNEL_SCHED_CPUFREQ_POLICY_H

#include "cpufreq.h"
#include "sched_internal.h"

struct cpufreq_policy;
struct sugov_cpu {
	struct update_util_data update_util; /* what cpufreq_update_util() calls */
	struct cpufreq_policy *policy;
	unsigned long bw_dl; /* cpu_bw_dl() at its last reading (ignore_dl_rate_limit) */
};

/* The struct sugov_cpu of each CPU is per CPU (cpufreq_schedutil.c), as in Linux. */
struct sugov_policy {
	u64 last_freq_update_time; /* ns */
	u32 next_freq;		   /* kHz, the last request */
	bool limits_changed;	   /* re-evaluate at once (start, limit change) */
	/* Scratch of the hook, off the stack: one entry per CPU of related_cpus,
	 * allocated by cpufreq_init (NULL: no memory, the governor stays off). */
	struct sugov_cpu_util *util;
};

struct cpufreq_policy {
	spinlock_t lock;
	int id;
	cpumask_t related_cpus; /* the frequency domain */
	cpumask_t cpus;		/* its online CPUs; none: the policy is inactive */
	int nr_opps;
	u32 freq[TOPOLOGY_MAX_OPPS]; /* kHz, ascending */
	u32 latency_ns;		     /* clock-latency-ns: request to effect */
	u32 rate_limit_us;	     /* schedutil */
	enum cpufreq_governor governor;
	u32 cur;		 /* kHz, applied: sets the CPUs' speed */
	u32 cur_hw;		 /* kHz, as the driver reports it (may be off the table) */
	u32 target;		 /* kHz, requested (cur once applied) */
	bool transition_pending; /* the timer will apply target */
	struct timer transition;
	struct cpufreq_stats stats;
	struct sugov_policy sg;
};

/* cpufreq.c: request an OPP (policy->lock held); returns true when the
 * caller must arm the transition timer, after dropping policy->lock. */
bool cpufreq_request_locked(struct cpufreq_policy *policy, u32 khz);
void cpufreq_arm_transition(struct cpufreq_policy *policy);

/* cpufreq_schedutil.c */
void sugov_start(struct cpufreq_policy *policy);
void sugov_stop(struct cpufreq_policy *policy);

#endif
