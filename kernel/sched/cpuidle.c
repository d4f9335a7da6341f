/* cpuidle.c - the cpuidle core and the menu and teo governors (Linux 6.1:
 * drivers/cpuidle/cpuidle.c, governors/{menu,teo}.c; cpuidle_governor=teo
 * picks teo, menu is the default), states from the device tree
 * (topology.c) entered through PSCI CPU_SUSPEND, cluster states by the last-man
 * rule, on an emulated machine the exit latency paid as a stall before the woken
 * CPU runs anything, and the statistics. Per-CPU
 * state is touched only by its CPU with IRQs off; a cluster's under its lock. */
#include "bootargs.h"
#include "cpuidle.h"
#include "kernel.h"
#include "sched_internal.h"
#include "smp.h"
#include "speed.h"
#include "timer.h"
#include "trace.h"

/* Linux: menu.c's constants. */
#define BUCKETS		 12
#define INTERVAL_SHIFT	 3
#define INTERVALS	 (1 << INTERVAL_SHIFT)
#define RESOLUTION	 1024
#define DECAY		 8
#define MAX_INTERESTING	 (50000 * NSEC_PER_USEC)
#define LATENCY_REQ_NONE (~0ull) /* no PM QoS request (Linux: 2000 s) */

struct menu_device {
	bool needs_update, tick_wakeup;
	u64 next_timer_ns;
	unsigned int bucket;
	unsigned int correction_factor[BUCKETS];
	unsigned int intervals[INTERVALS]; /* us */
	int interval_ptr;
};

/* Linux: teo.c's constants and struct teo_bin / teo_cpu. */
#define TEO_PULSE	1024
#define TEO_DECAY_SHIFT 3
#define TEO_NR_RECENT	9

struct teo_bin {
	unsigned int intercepts, hits, recent;
};

struct teo_cpu {
	u64 time_span_ns, sleep_length_ns;
	struct teo_bin state_bins[TOPOLOGY_MAX_IDLE_STATES];
	unsigned int total;
	int next_recent_idx;
	int recent_idx[TEO_NR_RECENT];
};

struct cpuidle_device {
	int nr_states;
	const struct topology_idle_state *states;
	struct cpuidle_state_usage usage[TOPOLOGY_MAX_IDLE_STATES];
	int last_state_idx;
	u64 last_residency_ns;
	int idle_idx;			    /* Linux: rq->idle_state; -1 */
	u64 entered_at;			    /* when it entered idle_idx */
	u8 enter[TOPOLOGY_MAX_IDLE_STATES]; /* ENTER_PSCI or ENTER_WFI, per state */
	u64 cluster_gen; /* the cluster's power-down count when it asked for one */
	struct menu_device menu;
	struct teo_cpu teo;
} __attribute__((aligned(64)));

/* A cluster's power-down: when every online CPU of it asks for a cluster
 * state (PSCI platform-coordinated mode: the firmware powers it off with
 * the last CPU, Linux counts nothing of it; OS-initiated: genpd's last man). */
struct cluster_pm {
	spinlock_t lock;
	cpumask_t cpus, requesting;
	bool down;
	u64 gen, down_since;
	struct cpuidle_cluster_stats st;
} __attribute__((aligned(64)));

/* How a state is entered: the firmware's CPU_SUSPEND with its arm,psci-suspend-param,
 * or plain wfi (state 0; "cpuidle_psci=off"; a state the firmware refused). */
enum { ENTER_WFI, ENTER_PSCI };
/* Arm DEN0022 5.4.2.1 (original power_state format): StateType, 1 = power-down. */
#define PSCI_POWER_STATE_TYPE_POWERDOWN (1u << 16)

static struct cpuidle_device devices[NR_CPUS];
static bool refused_said[TOPOLOGY_MAX_CLUSTERS][TOPOLOGY_MAX_IDLE_STATES];
static struct cluster_pm clusters[TOPOLOGY_MAX_CLUSTERS];
static bool enabled, gov_teo;

/* ---- the menu governor (Linux 6.1 governors/menu.c) ------------------------------- */

static unsigned int which_bucket(u64 duration_ns)
{
	if (duration_ns < 10 * NSEC_PER_USEC)
		return 0;
	if (duration_ns < 100 * NSEC_PER_USEC)
		return 1;
	if (duration_ns < 1000 * NSEC_PER_USEC)
		return 2;
	if (duration_ns < 10000 * NSEC_PER_USEC)
		return 3;
	return duration_ns < 100000 * NSEC_PER_USEC ? 4 : 5; /* no iowait buckets */
}

/* Linux: get_typical_interval(): the average of the recent intervals when
 * their spread is small, dropping the largest outliers down to 3/4 of them. */
static unsigned int get_typical_interval(const struct menu_device *data)
{
	unsigned int thresh = ~0u;

	for (;;) {
		unsigned int min = ~0u, max = 0, avg, divisor = 0;
		u64 sum = 0, variance = 0;

		for (int i = 0; i < INTERVALS; i++) {
			unsigned int v = data->intervals[i];

			if (v <= thresh) {
				sum += v;
				divisor++;
				max = MAX(max, v);
				min = MIN(min, v);
			}
		}
		if (!max)
			return ~0u;
		avg = (unsigned int)(sum / divisor);
		for (int i = 0; i < INTERVALS; i++) {
			s64 diff = (s64)data->intervals[i] - avg;

			if (data->intervals[i] <= thresh)
				variance += (u64)(diff * diff);
		}
		variance /= divisor;
		if (((u64)avg * avg > variance * 36 && divisor * 4 >= INTERVALS * 3) ||
		    variance <= 400)
			return avg;
		if (divisor * 4 <= INTERVALS * 3)
			return ~0u;
		thresh = max - 1;
	}
}

static u64 target_residency_ns(const struct cpuidle_device *dev, int i)
{
	return dev->states[i].min_residency_us * NSEC_PER_USEC;
}

static u64 state_exit_latency_ns(const struct cpuidle_device *dev, int i)
{
	return (u64)(dev->states[i].entry_latency_us + dev->states[i].exit_latency_us) *
	       NSEC_PER_USEC;
}

/* Linux: menu_select() with no PM QoS limit and no I/O waiters. *stop_tick:
 * whether the idle loop may stop the tick (a prediction shorter than a tick
 * keeps it, unless it is stopped already). */
static int menu_select(struct cpuidle_device *dev, bool tick_stopped, bool *stop_tick)
{
	struct menu_device *data = &dev->menu;
	u64 latency_req = LATENCY_REQ_NONE, delta_tick, predicted_ns, timer_us;
	int idx = -1;

	data->next_timer_ns = tick_nohz_get_sleep_length(&delta_tick);
	data->bucket = which_bucket(data->next_timer_ns);
	*stop_tick = true; /* no polling state here */
	if (dev->nr_states <= 1 || data->next_timer_ns < target_residency_ns(dev, 1))
		return 0;
	timer_us = ((u64)RESOLUTION * DECAY * NSEC_PER_USEC / 2 +
		    data->next_timer_ns * data->correction_factor[data->bucket]) /
		   ((u64)RESOLUTION * DECAY * NSEC_PER_USEC);
	predicted_ns = MIN(timer_us, (u64)get_typical_interval(data)) * NSEC_PER_USEC;
	if (tick_stopped) {
		if (predicted_ns < TICK_NSEC)
			predicted_ns = data->next_timer_ns;
	} else if (latency_req > predicted_ns) {
		latency_req = predicted_ns; /* performance_multiplier() is 1 */
	}
	for (int i = 0; i < dev->nr_states; i++) {
		if (idx == -1)
			idx = i;
		if (target_residency_ns(dev, i) > predicted_ns) {
			if (predicted_ns < TICK_NSEC)
				break;
			if (!tick_stopped) {
				predicted_ns = target_residency_ns(dev, idx);
				break;
			}
			if (target_residency_ns(dev, idx) < TICK_NSEC &&
			    target_residency_ns(dev, i) <= delta_tick)
				idx = i;
			return idx;
		}
		if (state_exit_latency_ns(dev, i) > latency_req)
			break;
		idx = i;
	}
	if (idx == -1)
		idx = 0;
	if (predicted_ns < TICK_NSEC && !tick_stopped) {
		*stop_tick = false;
		if (idx > 0 && target_residency_ns(dev, idx) > delta_tick) {
			for (int i = idx - 1; i >= 0; i--) {
				idx = i;
				if (target_residency_ns(dev, i) <= delta_tick)
					break;
			}
		}
	}
	return idx;
}

/* Linux: menu_update(), at the next selection: learn from the last idle. */
static void menu_update(struct cpuidle_device *dev)
{
	struct menu_device *data = &dev->menu;
	u64 measured_ns, exit_ns = state_exit_latency_ns(dev, dev->last_state_idx);
	unsigned int new_factor;

	if (data->tick_wakeup && data->next_timer_ns > TICK_NSEC) {
		measured_ns = 9 * MAX_INTERESTING / 10;
	} else {
		measured_ns = dev->last_residency_ns;
		if (measured_ns > 2 * exit_ns)
			measured_ns -= exit_ns;
		else
			measured_ns /= 2;
	}
	if (measured_ns > data->next_timer_ns)
		measured_ns = data->next_timer_ns;
	new_factor = data->correction_factor[data->bucket];
	new_factor -= new_factor / DECAY;
	if (data->next_timer_ns > 0 && measured_ns < MAX_INTERESTING)
		new_factor += (unsigned int)(RESOLUTION * measured_ns / data->next_timer_ns);
	else
		new_factor += RESOLUTION;
	data->correction_factor[data->bucket] = new_factor;
	data->intervals[data->interval_ptr++] = (unsigned int)(measured_ns / NSEC_PER_USEC);
	if (data->interval_ptr >= INTERVALS)
		data->interval_ptr = 0;
}

/* ---- the teo governor (Linux 6.1 governors/teo.c) ---------------------------------- */

/* Linux: teo_update(): was the last idle a "hit" (ended in the bin of the
 * sleep length: the timer woke it) or an "intercept" (something earlier)? */
static void teo_update(struct cpuidle_device *dev)
{
	struct teo_cpu *cd = &dev->teo;
	int idx_timer = 0, idx_duration = 0, i;
	u64 measured_ns;

	if (cd->time_span_ns >= cd->sleep_length_ns) {
		measured_ns = ~0ull; /* the tick or the timer itself woke it */
	} else {
		u64 lat_ns = state_exit_latency_ns(dev, dev->last_state_idx);

		/* half the exit latency: a rough average of the real wakeup delay */
		measured_ns = dev->last_residency_ns;
		measured_ns = measured_ns >= lat_ns ? measured_ns - lat_ns / 2 : measured_ns / 2;
	}
	cd->total = 0;
	for (i = 0; i < dev->nr_states; i++) {
		struct teo_bin *bin = &cd->state_bins[i];

		bin->hits -= bin->hits >> TEO_DECAY_SHIFT;
		bin->intercepts -= bin->intercepts >> TEO_DECAY_SHIFT;
		cd->total += bin->hits + bin->intercepts;
		if (target_residency_ns(dev, i) <= cd->sleep_length_ns) {
			idx_timer = i;
			if (target_residency_ns(dev, i) <= measured_ns)
				idx_duration = i;
		}
	}
	i = cd->next_recent_idx++;
	if (cd->next_recent_idx >= TEO_NR_RECENT)
		cd->next_recent_idx = 0;
	if (cd->recent_idx[i] >= 0)
		cd->state_bins[cd->recent_idx[i]].recent--;
	if (idx_timer == idx_duration) {
		cd->state_bins[idx_timer].hits += TEO_PULSE;
		cd->recent_idx[i] = -1;
	} else {
		cd->state_bins[idx_duration].intercepts += TEO_PULSE;
		cd->state_bins[idx_duration].recent++;
		cd->recent_idx[i] = idx_duration;
	}
	cd->total += TEO_PULSE;
}

static bool teo_time_ok(bool tick_stopped, u64 interval_ns)
{
	return !tick_stopped || interval_ns >= TICK_NSEC;
}

static u64 teo_middle_of_bin(const struct cpuidle_device *dev, int idx)
{
	return (target_residency_ns(dev, idx) + target_residency_ns(dev, idx + 1)) / 2;
}

/* Sums over the states shallower than the candidate (Linux: teo_select()'s
 * idx_intercept_sum, idx_hit_sum, idx_recent_sum). */
struct teo_sums {
	unsigned int intercepts, hits, recent;
};

/* The deepest state whose target residency fits the sleep length (no PM QoS
 * limit here, so constraint_idx is that state). */
static int teo_candidate(const struct cpuidle_device *dev, u64 duration_ns, struct teo_sums *at)
{
	struct teo_sums sum = { 0, 0, 0 };
	int idx = 0;

	*at = sum;
	for (int i = 1; i < dev->nr_states; i++) {
		const struct teo_bin *prev = &dev->teo.state_bins[i - 1];

		sum.intercepts += prev->intercepts;
		sum.hits += prev->hits;
		sum.recent += prev->recent;
		if (target_residency_ns(dev, i) > duration_ns)
			break;
		idx = i;
		*at = sum;
	}
	return idx;
}

/* Linux: teo_select()'s search for a shallower state when the shallower
 * states' intercepts dominate (overall or among the recent ones): the
 * deepest state whose target residency was not exceeded by the idle
 * duration in over half of those cases. */
static int teo_alternative(const struct cpuidle_device *dev, int idx, const struct teo_sums *at,
			   bool tick_stopped, u64 *duration_ns)
{
	const struct teo_cpu *cd = &dev->teo;
	bool alt_intercepts = 2 * at->intercepts > cd->total - at->hits;
	bool alt_recent = at->recent > TEO_NR_RECENT / 2;
	unsigned int intercept_sum = 0, recent_sum = 0;
	u64 first_span_ns = *duration_ns;
	int first_idx = idx;

	if (!alt_recent && !alt_intercepts)
		return idx;
	for (int i = idx - 1; i >= 0; i--) {
		u64 span_ns = teo_middle_of_bin(dev, i);

		intercept_sum += cd->state_bins[i].intercepts;
		recent_sum += cd->state_bins[i].recent;
		if ((!alt_recent || 2 * recent_sum > at->recent) &&
		    (!alt_intercepts || 2 * intercept_sum > at->intercepts)) {
			if (teo_time_ok(tick_stopped, span_ns)) {
				*duration_ns = span_ns;
				return i;
			}
			*duration_ns = first_span_ns;
			return first_idx;
		}
		if (!teo_time_ok(tick_stopped, span_ns)) {
			if (first_idx != idx)
				continue;
			break;
		}
		first_span_ns = span_ns;
		first_idx = i;
	}
	return idx;
}

/* Linux: teo_select() with no PM QoS limit and no polling state. */
static int teo_select(struct cpuidle_device *dev, bool tick_stopped, bool *stop_tick)
{
	struct teo_cpu *cd = &dev->teo;
	struct teo_sums at;
	u64 delta_tick, duration_ns;
	int idx = 0;

	if (dev->last_state_idx >= 0) {
		teo_update(dev);
		dev->last_state_idx = -1;
	}
	cd->time_span_ns = arch_clock_ns();
	duration_ns = tick_nohz_get_sleep_length(&delta_tick);
	cd->sleep_length_ns = duration_ns;
	*stop_tick = true;
	if (dev->nr_states >= 2 && target_residency_ns(dev, 1) <= duration_ns) {
		idx = teo_candidate(dev, duration_ns, &at);
		if (idx > 0) /* Linux: idx != idx0 (WFI) */
			idx = teo_alternative(dev, idx, &at, tick_stopped, &duration_ns);
	}
	if (duration_ns < TICK_NSEC && !tick_stopped) {
		*stop_tick = false;
		/* Linux: teo_find_shallower_state() within the time to the tick */
		while (idx > 0 && target_residency_ns(dev, idx) > delta_tick)
			idx--;
	}
	return idx;
}

/* Linux: teo_reflect(): a wakeup by the tick (a safety net) counts as an
 * idle of the whole sleep length. */
static void teo_reflect(struct cpuidle_device *dev, int state, bool got_tick)
{
	struct teo_cpu *cd = &dev->teo;

	dev->last_state_idx = state;
	if (got_tick && cd->sleep_length_ns > TICK_NSEC)
		cd->time_span_ns = cd->sleep_length_ns;
	else
		cd->time_span_ns = arch_clock_ns() - cd->time_span_ns;
}

/* ---- the last man of a cluster ------------------------------------------------------ */

static struct cluster_pm *cluster_of(unsigned int cpu)
{
	return &clusters[cpu_topology.cpu[cpu].cluster_id];
}

/* A CPU that has been sent a wakeup (a task queued on it, a reschedule) is
 * leaving idle, even while QEMU has not yet run its vCPU: on the board its
 * interrupt is pending and the power controller does not power the cluster
 * off (PSCI: a pending wakeup abandons the last man's cluster power-down).
 * The last man itself counts: a wakeup sent to it after its idle loop looked
 * at need_resched (IRQs are masked from there to the wait) is pending too. */
static bool cluster_waking(const struct cluster_pm *cl)
{
	unsigned int c;

	for_each_cpu(c, &cl->requesting) {
		if (!idle_cpu((int)c) || READ_ONCE(cpu_rq(c)->need_resched))
			return true;
	}
	return false;
}

static void cluster_enter(struct cluster_pm *cl, unsigned int cpu, u64 *gen, u64 now)
{
	cpumask_t awake;

	spin_lock(&cl->lock);
	__cpumask_set_cpu(cpu, &cl->requesting);
	*gen = cl->gen;
	/* the last man: every online CPU of the cluster asks for a cluster state */
	cpumask_and(&awake, &cl->cpus, cpu_online_mask);
	cpumask_andnot(&awake, &awake, &cl->requesting);
	if (!cl->down && cpumask_empty(&awake) && !cluster_waking(cl)) {
		cl->down = true;
		cl->gen++;
		cl->down_since = now;
		cl->st.count++;
	}
	spin_unlock(&cl->lock);
}

/* True if this CPU powers the cluster up (pays its exit latency); *was_down:
 * the cluster was off during some of this CPU's idle. */
static bool cluster_exit(struct cluster_pm *cl, unsigned int cpu, u64 gen, u64 now, bool *was_down)
{
	bool up = false;

	spin_lock(&cl->lock);
	__cpumask_clear_cpu(cpu, &cl->requesting);
	*was_down = cl->down || cl->gen != gen;
	if (cl->down) {
		cl->down = false;
		cl->st.time_ns += now - cl->down_since;
		up = true;
	}
	spin_unlock(&cl->lock);
	return up;
}

/* A cluster state whose cluster never went off was the CPU's deepest own state. */
static int demote(const struct cpuidle_device *dev, int idx)
{
	while (idx > 0 && dev->states[idx].level)
		idx--;
	return idx;
}

/* ---- the core ------------------------------------------------------------------------ */

/* When the statistics were last reset: a residency is counted from then on only, so one
 * that began before a benchmark's reset is not credited whole to the benchmark. */
static u64 stats_since;

/* Linux: cpuidle_enter_state()'s accounting: above when it woke before the
 * target residency and a shallower state exists, below when a deeper one's
 * residency was reached (after the exit latency). The governors learn from the
 * whole residency, the statistics count its part since the reset. */
static void account(struct cpuidle_device *dev, int entered, u64 t0, u64 t_end)
{
	struct cpuidle_state_usage *u = &dev->usage[entered];
	u64 delay = state_exit_latency_ns(dev, entered), diff = t_end - t0;
	u64 from = MAX(t0, READ_ONCE(stats_since));

	dev->last_residency_ns = diff;
	u->time_ns += t_end > from ? t_end - from : 0;
	u->usage++;
	if (entered > 0 && diff < target_residency_ns(dev, entered))
		u->above++;
	else if (entered + 1 < dev->nr_states && diff > delay &&
		 diff - delay >= target_residency_ns(dev, entered + 1))
		u->below++;
}

/* Linux: psci_enter_idle_state() -> psci_cpu_suspend_enter(). A refusal (QEMU's
 * PSCI takes no power level above the CPU: -2 for a cluster state) is said once per
 * cluster and state; this CPU then waits in wfi in it, the emulated state otherwise unchanged. */
static void idle_wait(struct cpuidle_device *dev, unsigned int cpu, int idx)
{
	bool *said = &refused_said[cpu_topology.cpu[cpu].cluster_id][idx];
	int err;

	if (!idx || dev->enter[idx] != ENTER_PSCI) {
		arch_wfi();
		return;
	}
	err = arch_cpu_suspend(dev->states[idx].psci_param);
	if (!err)
		return;
	dev->enter[idx] = ENTER_WFI;
	if (!READ_ONCE(*said)) {
		WRITE_ONCE(*said, true);
		printk("cpuidle: %s: CPU_SUSPEND(%#x) refused (%d): wfi in it from now on\n",
		       dev->states[idx].name, dev->states[idx].psci_param, err);
	}
	arch_wfi();
}

/* Wait in state idx; returns the state entered (a cluster state is entered
 * only if the cluster went off). Leaving costs the exit latency of what is
 * powered up: the cluster's (exit-latency-us of the cluster state) for the
 * CPU that wakes it, else the CPU state's; WFI costs nothing more. */
static int enter_state(struct cpuidle_device *dev, unsigned int cpu, int idx)
{
	const struct topology_idle_state *s = &dev->states[idx];
	struct cluster_pm *cl = cluster_of(cpu);
	bool powers_up = false, was_down = false;
	int entered = idx;
	u64 t0, t1, exit_ns;

	t0 = arch_clock_ns();
	if (s->level)
		cluster_enter(cl, cpu, &dev->cluster_gen, t0);
	WRITE_ONCE(dev->entered_at, t0);
	idle_set_state_idx(cpu, idx);
	energy_cpu_state(cpu, idx);
	trace_cpu_idle((u32)idx, cpu);
	idle_wait(dev, cpu, idx);
	t1 = arch_clock_ns();
	if (s->level) {
		powers_up = cluster_exit(cl, cpu, dev->cluster_gen, t1, &was_down);
		if (!was_down)
			entered = demote(dev, idx);
	}
	energy_cpu_correct(cpu, entered);
	energy_cpu_state(cpu, -1);
	exit_ns = entered ? dev->states[powers_up ? idx : demote(dev, entered)].exit_latency_us *
				    NSEC_PER_USEC
			  : 0;
	if (exit_ns && speed_emulated_machine()) /* a board pays its own */
		arch_stall_until(t1 + exit_ns);
	idle_set_state_idx(cpu, -1);
	trace_cpu_idle(PWR_EVENT_EXIT, cpu);
	account(dev, entered, t0, arch_clock_ns());
	return entered;
}

void cpuidle_idle_call(void)
{
	unsigned int cpu = arch_cpu_id();
	struct cpuidle_device *dev = &devices[cpu];
	bool stopped, stop_tick;
	u64 ticks;
	int idx;

	/* Linux 6.1 cpuidle_idle_call(): a wakeup that came since the idle loop's
	 * check (here also during speed_busy_end()'s stall, IRQs masked) ends it. */
	if (READ_ONCE(cpu_rq(cpu)->need_resched))
		return;
	if (!enabled || dev->nr_states <= 1) {
		tick_nohz_idle_stop_tick(); /* NO_HZ idle: no tick while idle */
		energy_cpu_state(cpu, 0);   /* WFI's power, not the OPP's */
		trace_cpu_idle(0, cpu);
		arch_idle();
		trace_cpu_idle(PWR_EVENT_EXIT, cpu);
		energy_cpu_state(cpu, -1);
		return;
	}
	stopped = tick_nohz_tick_stopped_cpu(cpu);
	if (gov_teo) {
		idx = teo_select(dev, stopped, &stop_tick);
	} else {
		if (dev->menu.needs_update) {
			menu_update(dev);
			dev->menu.needs_update = false;
		}
		idx = menu_select(dev, stopped, &stop_tick);
	}
	if (stop_tick || stopped) /* Linux: else tick_nohz_idle_retain_tick() */
		tick_nohz_idle_stop_tick();
	ticks = sched_tick_count();
	/* Linux: last_state_idx is what the driver's enter() returned, the state
	 * asked for (PSCI cannot tell whether the cluster went off); menu_update()
	 * subtracts that state's exit latency. The statistics count the state reached. */
	enter_state(dev, cpu, idx);
	arch_irq_enable(); /* the interrupt that woke us, now */
	arch_irq_disable();
	/* Linux: tick_nohz_idle_got_tick(): the tick handler ran for this idle period, so
	 * the tick, not a real event, ended it (the governors then count a long idle). */
	if (gov_teo) {
		teo_reflect(dev, idx, sched_tick_count() != ticks);
		return;
	}
	dev->last_state_idx = idx;
	dev->menu.needs_update = true; /* Linux: menu_reflect() */
	dev->menu.tick_wakeup = sched_tick_count() != ticks;
}

/* Which states can be used, and how. On a board (not speed_emulated_machine()) a
 * local-timer-stop state needs a broadcast timer, which we do not have, and a
 * power-down state a resume path (context restore, MMU on), which we do not have:
 * such a state and the deeper ones are kept off, with a message (Linux: cpuidle
 * skips CPUIDLE_FLAG_TIMER_STOP states when tick_broadcast_enter() fails). On QEMU
 * every state stays: its timer never stops and its CPU_SUSPEND never loses context. */
static void setup_states(struct cpuidle_device *dev, unsigned int cpu, bool psci)
{
	const cpumask_t *cl = &cpu_topology.cluster_cpus[cpu_topology.cpu[cpu].cluster_id];

	for (int i = 1; i < dev->nr_states; i++) {
		const struct topology_idle_state *s = &dev->states[i];
		const char *why = NULL;

		dev->enter[i] = psci ? ENTER_PSCI : ENTER_WFI;
		if (speed_emulated_machine())
			continue;
		if (s->local_timer_stop)
			why = "local-timer-stop, and no broadcast timer";
		else if (s->psci_param & PSCI_POWER_STATE_TYPE_POWERDOWN)
			why = "a power-down state, and no resume path";
		if (!why)
			continue;
		if (cpumask_first(cl) == cpu)
			printk("cpuidle: cpu%u: %s and deeper kept off: %s\n", cpu, s->name, why);
		dev->nr_states = i;
		break;
	}
}

void cpuidle_init(void)
{
	char buf[8], pbuf[8];
	const char *v = bootarg_get("cpuidle", buf, sizeof(buf));
	bool psci = !(bootarg_get("cpuidle_psci", pbuf, sizeof(pbuf)) && !strcmp(pbuf, "off"));

	enabled = !(v && !strcmp(v, "off"));
	v = bootarg_get("cpuidle_governor", buf, sizeof(buf));
	gov_teo = v && !strcmp(v, "teo"); /* Linux: cpuidle.governor=teo */
	if (v && !gov_teo && strcmp(v, "menu"))
		printk("cpuidle: no governor \"%s\", menu kept\n", v);
	for (int c = 0; c < cpu_topology.nr_clusters; c++) {
		spin_lock_init(&clusters[c].lock);
		clusters[c].cpus = cpu_topology.cluster_cpus[c];
	}
	for (int cpu = 0; cpu < cpu_topology.nr_cpus; cpu++) {
		struct cpuidle_device *dev = &devices[cpu];

		dev->states = cpu_topology.cpu[cpu].idle;
		dev->nr_states = cpu_topology.cpu[cpu].nr_idle_states;
		dev->idle_idx = -1;
		setup_states(dev, (unsigned int)cpu, psci);
		for (int b = 0; b < BUCKETS; b++) /* Linux: menu_enable_device() */
			dev->menu.correction_factor[b] = RESOLUTION * DECAY;
		dev->last_state_idx = -1;
		for (int i = 0; i < TEO_NR_RECENT; i++) /* Linux: teo_enable_device() */
			dev->teo.recent_idx[i] = -1;
	}
	printk("cpuidle: %s, governor %s, cpu0 has %d states, entered by %s\n",
	       enabled ? "on" : "off", cpuidle_governor_name(), devices[0].nr_states,
	       psci ? "PSCI CPU_SUSPEND" : "wfi (cpuidle_psci=off)");
}

const char *cpuidle_governor_name(void)
{
	return gov_teo ? "teo" : "menu";
}

void cpuidle_set_enabled(bool on)
{
	WRITE_ONCE(enabled, on);
}

void idle_set_state_idx(unsigned int cpu, int idx)
{
	WRITE_ONCE(devices[cpu].idle_idx, idx);
}

bool cpuidle_enabled(void)
{
	return enabled;
}

int cpuidle_nr_states(unsigned int cpu)
{
	return devices[cpu].nr_states;
}

const struct topology_idle_state *cpuidle_state(unsigned int cpu, int idx)
{
	return &devices[cpu].states[idx];
}

int idle_get_state_idx(unsigned int cpu)
{
	return enabled ? READ_ONCE(devices[cpu].idle_idx) : -1;
}

u64 cpuidle_exit_latency_ns(unsigned int cpu, int idx)
{
	return state_exit_latency_ns(&devices[cpu], idx);
}

u64 cpuidle_wakeup_cost_ns(unsigned int cpu)
{
	u64 worst = 0;

	for (int i = 1; enabled && i < devices[cpu].nr_states; i++)
		worst = MAX(worst, devices[cpu].states[i].exit_latency_us * NSEC_PER_USEC);
	return worst;
}

u64 cpuidle_wakeup_cost_max_ns(void)
{
	u64 worst = 0;

	for (int cpu = 0; cpu < cpu_topology.nr_cpus; cpu++)
		worst = MAX(worst, cpuidle_wakeup_cost_ns((unsigned int)cpu));
	return worst;
}

void cpuidle_get_usage(unsigned int cpu, int idx, struct cpuidle_state_usage *out)
{
	*out = devices[cpu].usage[idx];
}

void cpuidle_get_cluster(int cluster, struct cpuidle_cluster_stats *out)
{
	struct cluster_pm *cl = &clusters[cluster];
	unsigned long flags = arch_irq_save();

	spin_lock(&cl->lock);
	*out = cl->st;
	if (cl->down)
		out->time_ns += arch_clock_ns() - cl->down_since;
	spin_unlock(&cl->lock);
	arch_irq_restore(flags);
}

/* Counters are only approximately zeroed while CPUs idle (each CPU writes
 * its own without a lock); the shell and experiments reset between runs. */
void cpuidle_reset_stats(void)
{
	WRITE_ONCE(stats_since, arch_clock_ns());
	for (int cpu = 0; cpu < cpu_topology.nr_cpus; cpu++)
		memset(devices[cpu].usage, 0, sizeof(devices[cpu].usage));
	for (int c = 0; c < cpu_topology.nr_clusters; c++) {
		unsigned long flags = arch_irq_save();

		spin_lock(&clusters[c].lock);
		clusters[c].st = (struct cpuidle_cluster_stats){ 0 };
		clusters[c].down_since = arch_clock_ns();
		spin_unlock(&clusters[c].lock);
		arch_irq_restore(flags);
	}
}

/* The state cpu is idle in now, as the statistics will count it (a cluster state only
 * while its cluster is off), and since when in the window; -1 if none. Read from any CPU
 * without a lock: a hint, off by at most the stretch being entered or left. */
static int ongoing(unsigned int cpu, u64 *since)
{
	const struct cpuidle_device *dev = &devices[cpu];
	int idx = READ_ONCE(dev->idle_idx);

	if (idx < 0 || !enabled)
		return -1;
	*since = MAX(READ_ONCE(dev->entered_at), READ_ONCE(stats_since));
	if (dev->states[idx].level && !READ_ONCE(cluster_of(cpu)->down))
		idx = demote(dev, idx);
	return idx;
}

/* Time in state idx since the reset, the stretch going on now included. */
static u64 time_in_state_ns(unsigned int cpu, int idx, u64 now)
{
	u64 t = devices[cpu].usage[idx].time_ns, since;

	if (ongoing(cpu, &since) == idx && now > since)
		t += now - since;
	return t;
}

void cpuidle_time_by_kind(u64 ns[3])
{
	u64 now = arch_clock_ns();

	ns[0] = ns[1] = ns[2] = 0;
	for (unsigned int cpu = 0; cpu < (unsigned int)cpu_topology.nr_cpus; cpu++) {
		const struct cpuidle_device *dev = &devices[cpu];

		for (int i = 0; cpu_online(cpu) && i < dev->nr_states; i++)
			ns[!i ? 0 : dev->states[i].level ? 2 : 1] += time_in_state_ns(cpu, i, now);
	}
}

void cpuidle_print(const char *prefix, const char *tag)
{
	u64 now = arch_clock_ns();

	printk("%scpuidle%s enabled=%d governor=%s\n", prefix, tag, enabled,
	       cpuidle_governor_name());
	for (int cpu = 0; cpu < cpu_topology.nr_cpus; cpu++) {
		const struct cpuidle_device *dev = &devices[cpu];

		for (int i = 0; i < dev->nr_states; i++)
			printk("%scpuidle%s cpu=%d state=%d name=%s latency_us=%u "
			       "residency_us=%u usage=%llu time_us=%llu above=%llu below=%llu\n",
			       prefix, tag, cpu, i, dev->states[i].name,
			       dev->states[i].entry_latency_us + dev->states[i].exit_latency_us,
			       dev->states[i].min_residency_us,
			       (unsigned long long)dev->usage[i].usage,
			       (unsigned long long)(time_in_state_ns((unsigned int)cpu, i, now) /
						    NSEC_PER_USEC),
			       (unsigned long long)dev->usage[i].above,
			       (unsigned long long)dev->usage[i].below);
	}
	for (int c = 0; c < cpu_topology.nr_clusters; c++) {
		struct cpuidle_cluster_stats st;

		cpuidle_get_cluster(c, &st);
		printk("%scpuidle%s cluster=%d off_count=%llu off_us=%llu\n", prefix, tag, c,
		       (unsigned long long)st.count,
		       (unsigned long long)(st.time_ns / NSEC_PER_USEC));
	}
}
