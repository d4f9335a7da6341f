/* shell_help.c - what `help CMD` prints after a command's usage line: its
 * columns, state letters, flags and units, one entry per command in a table
 * (a command without an entry shows its usage and one-line help only). The
 * commands themselves are kernel/shell/; `help selftest` and `help run` add
 * the suites (ktest.c) and the benchmarks' keys (kernel/bench/bench_spec.c). */
#include "kernel.h"
#include "shell_help.h"

struct cmd_help {
	const char *name, *text;
};

static const struct cmd_help helps[] = {
	{ "ps", "  PID        task id; every CPU's idle task is pid 0, swapper/N (as in Linux)\n"
		"  NAME       the task's name (comm)\n"
		"  CPU        the CPU it runs on, is queued on, or last ran on\n"
		"  S          R running now, r runnable (queued, waiting for its CPU),\n"
		"             S sleeping, I a CPU's idle task (runs when nothing else can),\n"
		"             N new (not yet woken), X exited (not yet joined)\n"
		"  POLICY     normal, batch, idle (SCHED_IDLE), fifo, rr; stop = the CPU's\n"
		"             stopper (migration/N), idle = its idle task\n"
		"  PRIO       kernel priority, lower runs first: 0-98 RT (99 - rtprio),\n"
		"             100-139 CFS (120 + nice), as ftrace's prio=; - for the\n"
		"             scheduler's own tasks (idle, stop)\n"
		"  NICE       -20..19 for CFS tasks (weight 1024 at 0, x1.25 per step); - for RT\n"
		"  UTIL_AVG   PELT utilization, 0..1024 capacity units: the share of time it\n"
		"             runs, scaled by CPU capacity and frequency (half-life 32 ms)\n"
		"  UTIL_EST   util_est: the util it had when it last slept (ewma and enqueued)\n"
		"  VRUNTIME   CFS virtual runtime minus its cfs_rq's min_vruntime (its group's\n"
		"             on its CPU), in us\n"
		"             (0 = next in line; the most negative runs first); - if not CFS\n"
		"  MIGR       migrations between CPUs so far\n"
		"  RUNTIME_MS CPU time used, in ms of emulated time\n"
		"  GROUP      its task group (cgcreate, cgclassify; / is the root group)\n" },
	{ "top", "  cpus and ps every MS ms (default 1000) until a key; -n COUNT stops after\n"
		 "  COUNT screens. -c: compact - user tasks only, grouped by cluster, with\n"
		 "  util (max of util_avg and util_est) against the cluster's capacity and\n"
		 "  the misfit threshold (util x 1.25 >= capacity_of: fits_capacity()).\n"
		 "  'help ps' and 'help cpus' explain the columns.\n" },
	{ "cpus",
	  "  CPU        logical CPU number\n"
	  "  CLUSTER    cluster id (device tree cpu-map)\n"
	  "  CAP_ORIG   capacity_orig: capacity-dmips-mhz x max OPP, the biggest = 1024\n"
	  "  CAPACITY   capacity_of: CAP_ORIG less RT and IRQ pressure, what CFS\n"
	  "             placement uses (refreshed at load balancing; min 1)\n"
	  "  OPP_KHZ    its policy's current frequency\n"
	  "  UTIL       cpu_util_cfs: max(util_avg, util_est) of its CFS tasks\n"
	  "  RT_UTIL    avg_rt.util_avg: PELT of RT tasks' running time\n"
	  "  IRQ_UTIL   avg_irq.util_avg: PELT of interrupt time\n"
	  "             CAPACITY = (CAP_ORIG - RT_UTIL) x (CAP_ORIG - IRQ_UTIL) / CAP_ORIG\n"
	  "  NR_RUNNING tasks queued or running (all classes, idle excluded)\n"
	  "  IDLE%      share of time idle over the last second, or since the previous\n"
	  "             cpus or top screen if that was less than a second ago (the\n"
	  "             header says which)\n"
	  "  util and capacity are in capacity units: 1024 = the biggest CPU at max OPP.\n" },
	{ "cpu", "  states: online, offline (powered off by PSCI CPU_OFF), and the hotplug\n"
		 "  steps between; (inactive): online but taking no tasks yet. Taking a CPU\n"
		 "  offline migrates its tasks and IRQs and rebuilds the sched domains.\n" },
	{ "topology",
	  "  At boot the console shows three lines: machine (CPUs, clusters, equal or\n"
	  "  asymmetric capacities), clusters (their CPUs and capacity_orig), OPPs (each\n"
	  "  frequency domain's lowest-highest MHz). This prints every fact: per CPU\n"
	  "  mpidr, cluster, freq_domain, dmips (capacity-dmips-mhz), capacity\n"
	  "  (capacity_orig), fmin/fmax kHz; each CPU's domain levels as the tree\n"
	  "  makes them; each OPP (kHz, microvolt, energy-model power and cost); each\n"
	  "  idle state (latencies and residency in us). build/host/topology FILE.dtb\n"
	  "  prints the same lines on the host; boot option 'topology' prints them at boot.\n" },
	{ "domains", "  one line per CPU and level (MC: its cluster; DIE: the whole machine):\n"
		     "  span       CPUs of the domain\n"
		     "  groups     its sched groups, the units the balancer compares\n"
		     "  flags      SD_SHARE_PKG_RESOURCES (a shared last-level cache),\n"
		     "             SD_ASYM_CPUCAPACITY (more than one capacity in the span),\n"
		     "             SD_ASYM_CPUCAPACITY_FULL (it sees every capacity)\n"
		     "  asym       the CPU's sd_asym_cpucapacity (select_idle_capacity scans it)\n"
		     "  interval   balance_interval, ms between periodic balances of the level\n"
		     "  imbalance_pct  how much busier (%) a group must be to pull from it\n"
		     "  nr_balance_failed  balances in a row that moved nothing\n" },
	{ "features",
	  "  NAME turns a feature on, NO_NAME off; with no argument, each feature\n"
	  "  with a one-line description (Linux: /sys/kernel/debug/sched/features).\n" },
	{ "cpufreq", "  policies: one per frequency domain; cur/target/min/max in kHz,\n"
		     "  rate_limit_us: schedutil's minimum time between changes.\n"
		     "  stats: per policy, time at each OPP (ms) and the transition table: row\n"
		     "  = the OPP it left, column = the OPP it went to (counts).\n" },
	{ "cpuidle", "  per CPU and state: latency_us (exit), residency_us (minimum worth it),\n"
		     "  usage (entries), time_us since the reset (a stay that began before it\n"
		     "  counts from the reset; the one going on is included), above/below (the\n"
		     "  governor chose too deep/too shallow); per cluster: power-downs.\n" },
	{ "energy", "  joules per CPU and cluster since reset (the emulated energy meter:\n"
		    "  busy power at the OPP, idle power of the state), average watts.\n" },
	{ "spawn", "  work=US    us of work per chunk/period (emulated, scaled by the CPU's\n"
		   "             capacity and frequency; default 1000)\n"
		   "  period=US  periodic: WORK us every PERIOD us; none: CPU-bound\n"
		   "  nice=N     -20..19 (CFS policies); prio=1..99 (fifo, rr)\n"
		   "  slice=US   100..100000: its EEVDF request (sched=eevdf; Linux 6.12's\n"
		   "             sched_attr.sched_runtime), else the base slice\n"
		   "  cpus=LIST  affinity, like 0-3,6 (default: every online CPU)\n"
		   "  ws=KB      working set: what a move makes it refill (default 32)\n" },
	{ "kill",
	  "  only tasks started by spawn; the task ends after its current chunk of work.\n" },
	{ "taskset",
	  "  CPULIST like 0-3,6 (online CPUs); the scheduler's own tasks (swapper/N,\n"
	  "  migration/N) are refused. The task moves at once if its CPU is not in it.\n" },
	{ "renice", "  NICE -20..19 for normal and batch tasks: weight 1024 at 0, about 1.25x\n"
		    "  less per step up (Linux's sched_prio_to_weight), so CPU shares follow.\n" },
	{ "sleep", "  MS of emulated time: under -icount sleep=off (make run) idle time passes\n"
		   "  faster than the wall clock; make run REALTIME=1 paces it by the host.\n" },
	{ "why", "  why PID: the task's last wakeup placements (newest first): prev (where\n"
		 "  it last ran), the waker's CPU, target (after wake_affine), the CPU chosen\n"
		 "  and the rule of select_task_rq_fair() that chose it; the CPUs that rule\n"
		 "  considered and those its util fits; its misfit status; and the last move:\n"
		 "  a load balance (its migration type and who balanced) or an RT/DL push or\n"
		 "  pull.\n" },
	{ "sysctl", "  kernel.sched_rt_runtime_us (950000) of every kernel.sched_rt_period_us\n"
		    "  (1000000) is what RT tasks may run on a CPU; past it the CPU's RT queue\n"
		    "  is throttled until the period ends (Linux's RT throttling). -1: no limit.\n"
		    "  SCHED_DEADLINE admission allows the same share; a value that would not\n"
		    "  fit the admitted DL bandwidth is refused.\n" },
	{ "run", "  'help run' lists each benchmark's and experiment's keys and defaults;\n"
		 "  an unknown key or benchmark is refused before anything starts.\n"
		 "  After the benchmark's own lines (and after each experiment half), one\n"
		 "  line: totals: the run's length, the joules of every CPU and the average\n"
		 "  power, the share of the online CPUs' time idle and of it in WFI, in a\n"
		 "  CPU's own power-down and with its cluster off. run -r prints instead the\n"
		 "  per-CPU and per-state RESULT energy and RESULT cpuidle lines that\n"
		 "  benchmark and experiment boots print for the host tools.\n" },
	{ "selftest", "  runs the named KTEST suites, KTAP output. The suites and their cases:\n" },
	{ "eas", "  eas [UTIL]: EAS on, or why not (Linux 6.1's conditions); the root\n"
		 "  domain's overutilized flag; with UTIL, the energy a task of that util\n"
		 "  would add on each CPU (energy-model units, lowest wins).\n" },
	{ "cgcreate", "  cgcreate PATH [weight=W] [uclamp.min=N] [uclamp.max=N]: a task group\n"
		      "  (nested with A/B); the clamps restrict its tasks' requests. weight is\n"
		      "  cpu.weight (1-10000, default 100): busy sibling groups share CPU time\n"
		      "  in proportion to it, whatever their number of tasks (Linux's CFS group\n"
		      "  scheduling: calc_group_shares()).\n" },
	{ "trace", "  start: fresh per-CPU buffers, events on; stop: off; dump: ftrace text\n"
		   "  (tools/trace.py turns it into a picture); bench: one tracepoint's cost.\n"
		   "  start EVENT ...: record only those events (default: all), e.g.\n"
		   "  'trace start sched_switch sched_migrate_task cpu_frequency'. Events:\n"
		   "  sched_switch sched_wakeup sched_wakeup_new sched_migrate_task\n"
		   "  cpu_frequency cpu_idle (most of a dump) sched_pelt_cfs sched_pelt_se\n"
		   "  sched_overutilized sched_compute_energy.\n"
		   "  To a picture: make run LOG=FILE, then make trace-log LOG=FILE.\n" },
};

const char *shell_help_text(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(helps); i++)
		if (!strcmp(helps[i].name, name))
			return helps[i].text;
	return NULL;
}
