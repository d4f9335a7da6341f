/* cpufreq.c - CPU frequency policies, one per frequency domain with an OPP
 * table; the emulated driver (an OPP request takes effect clock-latency-ns
 * later, then sets arch_set_freq_scale() for the policy's CPUs, which is
 * what makes cpu_work() run faster or slower); governor selection; the
 * statistics. Not the schedutil governor (cpufreq_schedutil.c) nor the maths
 * (cpufreq_math.c). Policy state under policy->lock (cpufreq_policy.h). */
#include "bootargs.h"
#include "cpufreq_policy.h"
#include "cpuidle.h"
#include "mm.h"
#include "trace.h"

/* One per frequency domain with OPPs, allocated by cpufreq_init (a static
 * [NR_CPUS] array was 1.2 MiB at NR_CPUS 256). */
static struct cpufreq_policy *policies[NR_CPUS];
static int nr_policies;
static int cpu_policy[NR_CPUS];			  /* policy index, -1: no OPP table */
static struct call_single_data freq_csd[NR_CPUS]; /* freq_apply_local(its policy) */

static const char *const governor_names[CPUFREQ_NR_GOVERNORS] = {
	[CPUFREQ_GOV_PERFORMANCE] = "performance",
	[CPUFREQ_GOV_POWERSAVE] = "powersave",
	[CPUFREQ_GOV_USERSPACE] = "userspace",
	[CPUFREQ_GOV_SCHEDUTIL] = "schedutil",
};

static struct cpufreq_policy *policy_get(int id)
{
	return id >= 0 && id < nr_policies ? policies[id] : NULL;
}

static int freq_index(const struct cpufreq_policy *policy, u32 khz)
{
	return cpufreq_resolve_index(policy->freq, policy->nr_opps, khz);
}

/* ---- the emulated driver ---------------------------------------------------------- */

/* On each CPU of the policy (IPI, or directly on the caller's CPU): credit
 * the running task's work so far at the old speed, then switch the speed.
 * A cpu_work() waiting on this CPU recomputes its deadline after this IRQ. */
static void freq_apply_local(void *arg)
{
	struct cpufreq_policy *policy = arg;
	struct rq *rq = this_rq();
	unsigned long flags = arch_irq_save();
	u32 fmax = policy->freq[policy->nr_opps - 1];

	spin_lock(&rq->lock);
	update_rq_clock(rq);
	if (rq->curr->sched_class->update_curr)
		rq->curr->sched_class->update_curr(rq);
	energy_cpu_freq(rq->cpu, READ_ONCE(policy->cur));
	arch_set_freq_scale(cpumask_of(rq->cpu),
			    (unsigned long)READ_ONCE(policy->cur) * SCHED_CAPACITY_SCALE / fmax);
	spin_unlock(&rq->lock);
	trace_cpu_frequency(READ_ONCE(policy->cur), rq->cpu);
	arch_irq_restore(flags);
}

/* Timer callback (IRQ context): the requested OPP takes effect now. Takes
 * no rq lock here: hooks holding an rq lock may wait for this callback in
 * timer_add(); the CPUs switch themselves in freq_apply_local(). */
static void transition_fn(struct timer *t)
{
	struct cpufreq_policy *policy = container_of(t, struct cpufreq_policy, transition);
	unsigned long flags = spin_lock_irqsave(&policy->lock);
	u32 f = policy->target;
	bool changed = f != policy->cur;
	unsigned int cpu;
	cpumask_t cpus;

	policy->transition_pending = false;
	if (changed) {
		cpufreq_stats_transition(&policy->stats, freq_index(policy, f), arch_clock_ns());
		WRITE_ONCE(policy->cur, f);
	}
	spin_unlock_irqrestore(&policy->lock, flags);
	if (!changed)
		return;
	/* -EBUSY: the CPU has yet to run the previous switch, which reads
	 * policy->cur when it runs and so applies f as well. */
	cpumask_and(&cpus, &policy->cpus, cpu_online_mask);
	for_each_cpu(cpu, &cpus)
		smp_call_function_single_async(cpu, &freq_csd[cpu]);
}

/* Ask for an OPP. A request while a transition is in flight replaces its
 * target (the timer applies the latest); otherwise the caller arms it. */
bool cpufreq_request_locked(struct cpufreq_policy *policy, u32 khz)
{
	policy->target = policy->freq[freq_index(policy, khz)];
	if (policy->transition_pending || policy->target == policy->cur)
		return false;
	policy->transition_pending = true;
	return true;
}

/* Without policy->lock (timer_add may wait for a running callback). */
void cpufreq_arm_transition(struct cpufreq_policy *policy)
{
	timer_add(&policy->transition, arch_clock_ns() + policy->latency_ns);
}

static void request(struct cpufreq_policy *policy, u32 khz)
{
	unsigned long flags = spin_lock_irqsave(&policy->lock);
	bool arm = cpufreq_request_locked(policy, khz);

	spin_unlock_irqrestore(&policy->lock, flags);
	if (arm)
		cpufreq_arm_transition(policy);
}

/* ---- governors ---------------------------------------------------------------------- */

static int governor_lookup(const char *name)
{
	for (int g = 0; g < CPUFREQ_NR_GOVERNORS; g++)
		if (!strcmp(name, governor_names[g]))
			return g;
	return -1;
}

static void governor_start(struct cpufreq_policy *policy, enum cpufreq_governor gov)
{
	unsigned long flags;

	if (policy->governor == CPUFREQ_GOV_SCHEDUTIL)
		sugov_stop(policy);
	flags = spin_lock_irqsave(&policy->lock);
	policy->governor = gov;
	spin_unlock_irqrestore(&policy->lock, flags);
	switch (gov) {
	case CPUFREQ_GOV_PERFORMANCE:
		request(policy, policy->freq[policy->nr_opps - 1]);
		break;
	case CPUFREQ_GOV_POWERSAVE:
		request(policy, policy->freq[0]);
		break;
	case CPUFREQ_GOV_USERSPACE: /* stays where it is until cpufreq_set_speed() */
		break;
	case CPUFREQ_GOV_SCHEDUTIL:
		sugov_start(policy);
		break;
	default:
		break;
	}
}

int cpufreq_set_governor(int id, const char *name)
{
	struct cpufreq_policy *policy = policy_get(id);
	int g = name ? governor_lookup(name) : -1;

	if (!policy)
		return -1;
	if (g < 0) {
		printk("cpufreq: unknown governor \"%s\" refused; policy%d keeps %s\n",
		       name ? name : "(null)", id, governor_names[policy->governor]);
		return -1;
	}
	governor_start(policy, (enum cpufreq_governor)g);
	sched_energy_update(); /* Linux: sched_cpufreq_governor_change() */
	return 0;
}

int cpufreq_set_speed(int id, u32 khz)
{
	struct cpufreq_policy *policy = policy_get(id);

	if (!policy || policy->governor != CPUFREQ_GOV_USERSPACE)
		return -1;
	request(policy, khz);
	return 0;
}

/* bootargs "cpufreq=GOV" or "cpufreq=GOV0,GOV1,...": one name for all
 * policies, or one per policy in order (missing ones get the default). */
static void governors_from_bootargs(void)
{
	char buf[BOOTARGS_MAX], *names[NR_CPUS];
	int n = 0;

	if (!bootarg_get("cpufreq", buf, sizeof(buf)))
		buf[0] = 0;
	for (char *p = buf; *p && n < NR_CPUS;) {
		names[n++] = p;
		while (*p && *p != ',')
			p++;
		if (*p)
			*p++ = 0;
	}
	for (int i = 0; i < nr_policies; i++) {
		const char *name = n == 1 ? names[0] : i < n ? names[i] : NULL;
		int g = name ? governor_lookup(name) : CPUFREQ_DEFAULT_GOVERNOR;

		if (g < 0) {
			printk("cpufreq: unknown governor \"%s\" in bootargs; policy%d uses %s\n",
			       name, i, governor_names[CPUFREQ_DEFAULT_GOVERNOR]);
			g = CPUFREQ_DEFAULT_GOVERNOR;
		}
		governor_start(policies[i], (enum cpufreq_governor)g);
	}
}

/* ---- init ------------------------------------------------------------------------------ */

/* The firmware leaves every CPU at f_max (the scale is 1024 until now). */
void cpufreq_init(void)
{
	const struct topology *topo = &cpu_topology;

	for (int c = 0; c < NR_CPUS; c++)
		cpu_policy[c] = -1;
	for (int d = 0; d < topo->nr_freq_domains; d++) {
		const struct topology_freq_domain *fd = &topo->freq_domain[d];
		const struct topology_opp_table *tab;
		struct cpufreq_policy *policy;
		unsigned int cpu;

		if (fd->opp_table < 0 || topo->opp_table[fd->opp_table].nr_opps < 1)
			continue;
		tab = &topo->opp_table[fd->opp_table];
		policy = kzalloc(sizeof(*policy));
		if (!policy) {
			printk("cpufreq: no memory for a policy of CPUs %u...: no DVFS there\n",
			       cpumask_first(&fd->cpus));
			continue;
		}
		policies[nr_policies] = policy;
		spin_lock_init_class(&policy->lock, LOCK_CLASS_RQ_INNER, 0);
		policy->id = nr_policies;
		policy->related_cpus = fd->cpus;
		policy->sg.util = kzalloc(cpumask_weight(&fd->cpus) * sizeof(*policy->sg.util));
		if (!policy->sg.util)
			printk("cpufreq: policy%d: no memory for schedutil\n", nr_policies);
		cpumask_and(&policy->cpus, &fd->cpus, cpu_online_mask);
		policy->nr_opps = tab->nr_opps;
		for (int i = 0; i < tab->nr_opps; i++)
			policy->freq[i] = tab->opp[i].freq_khz;
		policy->latency_ns = tab->clock_latency_ns;
		policy->rate_limit_us = cpufreq_transition_delay_us(tab->clock_latency_ns);
		policy->cur = policy->target = policy->freq[policy->nr_opps - 1];
		policy->governor = CPUFREQ_GOV_PERFORMANCE;
		timer_init(&policy->transition, transition_fn);
		cpufreq_stats_init(&policy->stats, policy->freq, policy->nr_opps,
				   policy->nr_opps - 1, arch_clock_ns());
		for_each_cpu(cpu, &fd->cpus) {
			cpu_policy[cpu] = nr_policies;
			freq_csd[cpu] =
				(struct call_single_data){ .fn = freq_apply_local, .arg = policy };
		}
		nr_policies++;
	}
	governors_from_bootargs();
	sched_energy_update(); /* EAS needs schedutil on every policy */
	for (int i = 0; i < nr_policies; i++) {
		char span[64];

		topology_format_mask(span, sizeof(span), &policies[i]->related_cpus);
		printk("cpufreq: policy%d cpus=%s opps=%d %u-%u kHz latency=%u ns "
		       "rate_limit_us=%u governor=%s\n",
		       i, span, policies[i]->nr_opps, policies[i]->freq[0],
		       policies[i]->freq[policies[i]->nr_opps - 1], policies[i]->latency_ns,
		       policies[i]->rate_limit_us, governor_names[policies[i]->governor]);
	}
}

/* ---- CPU hotplug ------------------------------------------------------------------ */

/* Linux: cpufreq_offline(), before the CPU leaves the scheduler. The policy
 * keeps its other CPUs (schedutil restarts over them, so the hook of the
 * leaving CPU is gone); the last one makes it inactive: governor stopped,
 * no transition pending. Hotplug serializes calls; task context. */
void cpufreq_cpu_offline(unsigned int cpu)
{
	struct cpufreq_policy *policy = policy_get(cpufreq_policy_of(cpu));
	unsigned long flags;

	if (!policy || !cpumask_test_cpu(cpu, &policy->cpus))
		return;
	if (policy->governor == CPUFREQ_GOV_SCHEDUTIL)
		sugov_stop(policy);
	flags = spin_lock_irqsave(&policy->lock);
	__cpumask_clear_cpu(cpu, &policy->cpus);
	spin_unlock_irqrestore(&policy->lock, flags);
	if (!cpumask_empty(&policy->cpus)) {
		if (policy->governor == CPUFREQ_GOV_SCHEDUTIL)
			sugov_start(policy);
		return;
	}
	timer_cancel(&policy->transition);
	flags = spin_lock_irqsave(&policy->lock);
	policy->transition_pending = false;
	policy->target = policy->cur;
	spin_unlock_irqrestore(&policy->lock, flags);
	printk("cpufreq: policy%d inactive: its last CPU (%u) went offline\n", policy->id, cpu);
}

/* Linux: cpufreq_online(), once the CPU is active again: it runs at the
 * policy's current OPP; an inactive policy comes back with its governor. */
void cpufreq_cpu_online(unsigned int cpu)
{
	struct cpufreq_policy *policy = policy_get(cpufreq_policy_of(cpu));
	unsigned long flags;
	bool was_inactive;

	if (!policy || cpumask_test_cpu(cpu, &policy->cpus))
		return;
	arch_set_freq_scale(cpumask_of(cpu), (unsigned long)READ_ONCE(policy->cur) *
						     SCHED_CAPACITY_SCALE /
						     policy->freq[policy->nr_opps - 1]);
	flags = spin_lock_irqsave(&policy->lock);
	was_inactive = cpumask_empty(&policy->cpus);
	__cpumask_set_cpu(cpu, &policy->cpus);
	spin_unlock_irqrestore(&policy->lock, flags);
	if (was_inactive)
		printk("cpufreq: policy%d active again with CPU%u\n", policy->id, cpu);
	governor_start(policy, policy->governor); /* schedutil: hooks for the new set */
}

bool cpufreq_policy_active(int id)
{
	struct cpufreq_policy *policy = policy_get(id);

	return policy && !cpumask_empty(&policy->cpus);
}

cpumask_t cpufreq_policy_cpus(int id)
{
	struct cpufreq_policy *policy = policy_get(id);
	cpumask_t m = { { 0 } };

	for (int i = 0; policy && i < CPUMASK_WORDS; i++)
		cpumask_bits(&m)[i] = READ_ONCE(cpumask_bits(&policy->cpus)[i]);
	return m;
}

/* ---- accessors and statistics ------------------------------------------------------ */

int cpufreq_nr_policies(void)
{
	return nr_policies;
}

int cpufreq_policy_of(unsigned int cpu)
{
	return cpu < NR_CPUS && nr_policies ? cpu_policy[cpu] : -1;
}

const char *cpufreq_governor_name(int id)
{
	struct cpufreq_policy *policy = policy_get(id);

	return policy ? governor_names[policy->governor] : "none";
}

#define POLICY_FIELD(id, field) (policy_get(id) ? READ_ONCE(policy_get(id)->field) : 0)
u32 cpufreq_cur_freq(int id)
{
	return POLICY_FIELD(id, cur);
}
u32 cpufreq_target_freq(int id)
{
	return POLICY_FIELD(id, target);
}
u32 cpufreq_min_freq(int id)
{
	return POLICY_FIELD(id, freq[0]);
}
u32 cpufreq_rate_limit_us(int id)
{
	return POLICY_FIELD(id, rate_limit_us);
}

u32 cpufreq_max_freq(int id)
{
	struct cpufreq_policy *policy = policy_get(id);

	return policy ? policy->freq[policy->nr_opps - 1] : 0;
}

void cpufreq_set_rate_limit_us(int id, u32 us)
{
	struct cpufreq_policy *policy = policy_get(id);

	if (policy)
		WRITE_ONCE(policy->rate_limit_us, us);
}

void cpufreq_get_stats(int id, struct cpufreq_stats *out)
{
	struct cpufreq_policy *policy = policy_get(id);
	unsigned long flags;

	if (!policy) {
		memset(out, 0, sizeof(*out));
		return;
	}
	flags = spin_lock_irqsave(&policy->lock);
	cpufreq_stats_update(&policy->stats, arch_clock_ns());
	*out = policy->stats;
	spin_unlock_irqrestore(&policy->lock, flags);
}

void cpufreq_reset_stats(int id)
{
	struct cpufreq_policy *policy = policy_get(id);
	unsigned long flags;

	if (!policy)
		return;
	flags = spin_lock_irqsave(&policy->lock);
	cpufreq_stats_reset(&policy->stats, arch_clock_ns());
	spin_unlock_irqrestore(&policy->lock, flags);
}

/* As Linux's sysfs shows them: time_in_state (here in us), total_trans, trans_table. */
void cpufreq_print_stats(int id)
{
	static struct cpufreq_stats s; /* 4 KiB: not on a kernel stack; callers serialize */
	char line[256];
	int n;

	if (!policy_get(id))
		return;
	cpufreq_get_stats(id, &s);
	printk("cpufreq: policy%d governor=%s cur=%u target=%u total_trans=%u\n", id,
	       cpufreq_governor_name(id), cpufreq_cur_freq(id), cpufreq_target_freq(id),
	       s.total_trans);
	/* Linux's trans_table layout (rows: from, columns: to), time_in_state added. */
	n = ksnprintf(line, sizeof(line), "   From  :    To (kHz; transitions)");
	printk("%s\n", line);
	n = ksnprintf(line, sizeof(line), "         :");
	for (int j = 0; j < s.nr && n < (int)sizeof(line); j++)
		n += ksnprintf(line + n, sizeof(line) - (size_t)n, " %8u", s.freq[j]);
	printk("%s  time_in_state_ms\n", line);
	for (int i = 0; i < s.nr; i++) {
		n = ksnprintf(line, sizeof(line), "%9u:", s.freq[i]);
		for (int j = 0; j < s.nr && n < (int)sizeof(line); j++)
			n += ksnprintf(line + n, sizeof(line) - (size_t)n, " %8u",
				       s.trans_table[i][j]);
		printk("%s  %llu\n", line, s.time_in_state[i] / NSEC_PER_MSEC);
	}
}
