/* cpufreq_schedutil.c - the schedutil governor (Linux 6.1.192 semantics): the
 * scheduler's cpufreq_update_util() hook computes the next frequency from
 * the utilization of the policy's CPUs and requests it, at most once per
 * rate_limit_us. Not the driver nor the statistics (cpufreq.c); the maths is
 * in cpufreq_math.c. Runs under the caller's rq->lock with IRQs off: takes
 * policy->lock, never sleeps, never takes another rq's lock. */
#include "cpufreq_policy.h"

static struct sugov_cpu sugov_cpus[NR_CPUS]; /* Linux: DEFINE_PER_CPU(sugov_cpu) */

/* What one CPU contributes, read without its rq lock as Linux does
 * (sugov_get_util()): each signal is one word, a slightly stale value only
 * delays the decision to the next update. */
static void sugov_get_util(unsigned int cpu, struct sugov_cpu_util *u)
{
	struct rq *rq = cpu_rq(cpu);

	sugov_cpus[cpu].bw_dl = u->bw_dl = cpu_bw_dl(rq);
	u->dl = READ_ONCE(rq->avg_dl.util_avg);
	u->cap = arch_scale_cpu_capacity((int)cpu);
	u->cfs = cpu_util((int)cpu);
	u->rt = READ_ONCE(rq->avg_rt.util_avg);
	u->irq = READ_ONCE(rq->avg_irq.util_avg);
	u->rt_runnable = READ_ONCE(rq->rt.rt_nr_running) > 0;
	u->uclamp_used = uclamp_is_used();
	u->uclamp_min = READ_ONCE(rq->uclamp[UCLAMP_MIN].value);
	u->uclamp_max = READ_ONCE(rq->uclamp[UCLAMP_MAX].value);
}

/* Linux: sugov_update_shared() with fast switching. The request goes to the
 * emulated driver, which applies it clock-latency-ns later. */
static void sugov_update_shared(struct update_util_data *d, u64 time, unsigned int flags)
{
	struct sugov_cpu *sg_cpu = container_of(d, struct sugov_cpu, update_util);
	struct cpufreq_policy *policy = sg_cpu->policy;
	struct sugov_policy *sg = &policy->sg;
	struct sugov_cpu_util *u = sg->util;
	unsigned int cpu;
	cpumask_t cpus;
	bool arm = false;
	int n = 0;
	u32 next;

	spin_lock(&policy->lock);
	if (policy->governor != CPUFREQ_GOV_SCHEDUTIL || !u) /* stopping: a late call */
		goto out;
	/* Linux: ignore_dl_rate_limit(): more DL bandwidth is served at once. */
	if (cpu_bw_dl(cpu_rq((unsigned int)(sg_cpu - sugov_cpus))) > sg_cpu->bw_dl)
		sg->limits_changed = true;
	if (!sugov_should_update(time, sg->last_freq_update_time,
				 (u64)policy->rate_limit_us * NSEC_PER_USEC, sg->limits_changed))
		goto out;
	cpumask_and(&cpus, &policy->cpus, cpu_online_mask);
	for_each_cpu(cpu, &cpus)
		sugov_get_util(cpu, &u[n++]);
	if (!n)
		goto out;
	next = sugov_next_freq_shared(u, n, sched_feat(RT_UTIL_TRACKING), policy->freq,
				      policy->nr_opps);
	/* Linux 6.1.192: sugov_update_next_freq() - the rate limit runs from the last
	 * change; a forced evaluation (limits changed, more DL bandwidth) that resolves
	 * to the same OPP changes nothing, not even the rate limit's time stamp. */
	sg->limits_changed = false;
	if (next == sg->next_freq)
		goto out;
	sg->next_freq = next;
	sg->last_freq_update_time = time;
	arm = cpufreq_request_locked(policy, next);
out:
	spin_unlock(&policy->lock);
	if (arm)
		cpufreq_arm_transition(policy);
}

/* Called with IRQs on, policy->governor about to become schedutil. */
void sugov_start(struct cpufreq_policy *policy)
{
	struct sugov_policy *sg = &policy->sg;
	unsigned long flags = spin_lock_irqsave(&policy->lock);
	unsigned int cpu;

	sg->limits_changed = true;
	sg->next_freq = 0; /* Linux: sugov_start(): the first evaluation always requests */
	sg->last_freq_update_time = 0;
	spin_unlock_irqrestore(&policy->lock, flags);
	for_each_cpu(cpu, &policy->cpus) {
		sugov_cpus[cpu].policy = policy;
		sugov_cpus[cpu].update_util.func = sugov_update_shared;
		WRITE_ONCE(cpufreq_update_util_data[cpu], &sugov_cpus[cpu].update_util);
	}
}

/* A call already past the pointer read still sees policy->governor change
 * under policy->lock and does nothing; the structures are never freed. */
void sugov_stop(struct cpufreq_policy *policy)
{
	unsigned int cpu;

	for_each_cpu(cpu, &policy->cpus)
		WRITE_ONCE(cpufreq_update_util_data[cpu], NULL);
}
