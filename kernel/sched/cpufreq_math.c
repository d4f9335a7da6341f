/* cpufreq_math.c - the pure part of cpufreq and schedutil: OPP resolution,
 * the next-frequency formula, utilization aggregation with and without
 * RT_UTIL_TRACKING, the rate limit and the statistics bookkeeping.
 * Values in, values out: no globals, no locks (callers hold the policy
 * lock), so tests/host/test_cpufreq.c runs the code the kernel runs. */
#include "cpufreq.h"

int cpufreq_resolve_index(const u32 *freq, int n, u32 khz)
{
	for (int i = 0; i < n; i++)
		if (freq[i] >= khz)
			return i;
	return n - 1;
}

/* Linux 6.1.192 (include/linux/sched/cpufreq.h): map_util_perf() adds the 25 %
 * headroom to the utilization, map_util_freq() scales f_max by it:
 *
 *	f = f_max x (util + util / 4) / cap	(each step truncated)
 *
 * so at util = 0.8 x cap the CPU asks for f_max, and a CPU busy at the current OPP
 * (util ~ cap x f / f_max under frequency invariance) asks for 1.25 x f, the next
 * OPP up. The headroom is taken on util, not on f_max (the pre-5.14
 * (f_max + f_max >> 2) x util / cap rounds up at OPP edges: big util 493 asked
 * 1805 MHz where this asks 1421), and it is the same rounding em_cpu_energy()
 * predicts with (fair_energy.c), so EAS and schedutil agree on the OPP. */
unsigned long map_util_perf(unsigned long util)
{
	return util + (util >> 2);
}

u32 map_util_freq(unsigned long util, u32 freq, unsigned long cap)
{
	if (!cap)
		return freq;
	return (u32)((u64)freq * util / cap);
}

/* Linux 6.1.192: get_next_freq() under frequency invariance (freq = cpuinfo.max_freq),
 * then cpufreq_driver_resolve_freq(CPUFREQ_RELATION_L). Linux also returns the last
 * next_freq when the raw frequency equals cached_raw_freq: the same OPP, since both
 * resolve the same value. */
u32 get_next_freq(unsigned long util, unsigned long max, const u32 *freq, int nr_opps)
{
	u32 f = map_util_freq(map_util_perf(util), freq[nr_opps - 1], max);

	return freq[cpufreq_resolve_index(freq, nr_opps, f)];
}

u32 cpufreq_transition_delay_us(u32 latency_ns)
{
	u32 lat_us = latency_ns / 1000;

	if (!lat_us)
		return 1000; /* Linux: LATENCY_MULTIPLIER */
	return lat_us >= 10 ? 10000 : lat_us * 1000;
}

bool sugov_should_update(u64 now, u64 last_update, u64 rate_limit_ns, bool limits_changed)
{
	if (limits_changed)
		return true;
	/* Signed: the caller's rq clock may trail the CPU that last updated. */
	return (s64)(now - last_update) >= (s64)rate_limit_ns;
}

/* Linux: uclamp_rq_util_with(rq, util, NULL) on the rq's clamps read out:
 * max-aggregated clamps of different tasks may cross; then min wins. */
static unsigned long sugov_uclamp_util(const struct sugov_cpu_util *u, unsigned long util)
{
	if (!u->uclamp_used)
		return util;
	if (u->uclamp_min >= u->uclamp_max)
		return u->uclamp_min;
	return util < u->uclamp_min ? u->uclamp_min : util > u->uclamp_max ? u->uclamp_max : util;
}

/* Linux 6.1.192 effective_cpu_util(cpu, util_cfs, FREQUENCY_UTIL, NULL). Unless
 * uclamp is used, a runnable RT task asks for the maximum; with it, the RT
 * tasks' default uclamp.min (1024) does the same through the rq clamp.
 * util_dl only decides saturation; DL asks for its admitted running
 * bandwidth instead (cpu_bw_dl(), the floor that meets its deadlines). IRQ
 * time steals from the task time it scales:
 *
 *	util = uclamp(cfs + rt) x (cap - irq) / cap + irq + bw_dl
 */
unsigned long sugov_effective_util(const struct sugov_cpu_util *u, bool rt_tracking)
{
	unsigned long util, cap = u->cap;

	if (u->rt_runnable && (!u->uclamp_used || !rt_tracking))
		return cap;
	if (!rt_tracking) /* before 4.19: only CFS was tracked */
		return u->cfs < cap ? u->cfs : cap;
	if (u->irq >= cap)
		return cap;
	util = sugov_uclamp_util(u, u->cfs + u->rt);
	if (util + u->dl >= cap)
		return cap;
	util = util * (cap - u->irq) / cap + u->irq;
	util += u->bw_dl;
	return util < cap ? util : cap;
}

u32 sugov_next_freq_shared(const struct sugov_cpu_util *cpus, int n, bool rt_tracking,
			   const u32 *freq, int nr_opps)
{
	unsigned long util = 0, max = 1;

	for (int i = 0; i < n; i++) {
		unsigned long j_util = sugov_effective_util(&cpus[i], rt_tracking);
		unsigned long j_max = cpus[i].cap;

		if (j_util * max > j_max * util) { /* j_util / j_max > util / max */
			util = j_util;
			max = j_max;
		}
	}
	return get_next_freq(util, max, freq, nr_opps);
}

/* ---- statistics (Linux: drivers/cpufreq/cpufreq_stats.c) ------------------------- */

void cpufreq_stats_init(struct cpufreq_stats *s, const u32 *freq, int n, int index, u64 now)
{
	s->nr = n;
	for (int i = 0; i < n; i++)
		s->freq[i] = freq[i];
	s->last_index = index;
	cpufreq_stats_reset(s, now);
}

void cpufreq_stats_update(struct cpufreq_stats *s, u64 now)
{
	if (now > s->last_time)
		s->time_in_state[s->last_index] += now - s->last_time;
	s->last_time = now;
}

/* A transition counts only when the OPP really changes (as in Linux). */
void cpufreq_stats_transition(struct cpufreq_stats *s, int to, u64 now)
{
	cpufreq_stats_update(s, now);
	if (to == s->last_index)
		return;
	s->trans_table[s->last_index][to]++;
	s->total_trans++;
	s->last_index = to;
}

void cpufreq_stats_reset(struct cpufreq_stats *s, u64 now)
{
	for (int i = 0; i < TOPOLOGY_MAX_OPPS; i++) {
		s->time_in_state[i] = 0;
		for (int j = 0; j < TOPOLOGY_MAX_OPPS; j++)
			s->trans_table[i][j] = 0;
	}
	s->total_trans = 0;
	s->last_time = now;
}
