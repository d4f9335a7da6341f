/* shell.c - the serial console shell the kernel boots to without
 * "selftest": one command per line from the table at the end. Owns the
 * commands; the line editor, tokenizer and argument parsers are the pure
 * kernel/shell/shell_parse.c (fuzzed on the host); not the receive ring
 * (console.c) nor what the commands show (thread.c, kernel/sched/, cpufreq).
 * Runs in the init thread only, so its state (history, spawned tasks) needs
 * no lock. External input: a bad line gets a message and the usage, never
 * a BUG_ON. */
#include "bench.h"
#include "console.h"
#include "cpu.h"
#include "cpufreq.h"
#include "cpuidle.h"
#include "kernel.h"
#include "ktest.h"
#include "mm.h"
#include "sched.h"
#include "speed.h"
#include "shell_help.h"
#include "shell_parse.h"
#include "smp.h"
#include "timer.h"
#include "topology.h"
#include "trace.h"

#define MAX_SPAWNED 16

struct command {
	const char *name;
	const char *usage;
	const char *help;
	int (*fn)(int argc, char **argv); /* -1: bad usage, the shell prints it */
};
static int cmd_help(int argc, char **argv); /* after the table it lists */

/* ---- line editing and argument parsing (shell_parse.c) ------------------------------- */

static struct line_editor editor;

/* Keys typed while a run went on (run_in_thread): the next lines start with them. */
static char typeahead[SHELL_LINE_MAX];
static size_t typeahead_n;

static void keep_key(int c)
{
	if (typeahead_n < sizeof(typeahead))
		typeahead[typeahead_n++] = (char)c;
}

/* Keys until Enter (true) or Ctrl-C (false, the line dropped). */
static bool read_line(void)
{
	enum line_status st = LINE_MORE;
	size_t i = 0;

	line_editor_start(&editor);
	while (st == LINE_MORE && i < typeahead_n)
		st = line_editor_feed(&editor, (unsigned char)typeahead[i++]);
	memmove(typeahead, typeahead + i, typeahead_n - i);
	typeahead_n -= i;
	while (st == LINE_MORE)
		st = line_editor_feed(&editor, console_getc());
	return st == LINE_DONE;
}

static bool parse_cpulist(const char *s, cpumask_t *mask)
{
	return parse_cpulist_of(s, cpu_online_mask, mask);
}

static struct task_info *snapshot(int *n, int *max);

/* The pid of the one live task called NAME; 0 and a message if none or several. */
static long pid_of_name(const char *name)
{
	int max, n, found = 0;
	struct task_info *info = snapshot(&n, &max);
	long pid = 0;

	if (!info)
		return 0;
	for (int k = 0; k < n && k < max; k++) {
		if (!strcmp(info[k].comm, name) && !info[k].is_idle) {
			pid = info[k].pid;
			found++;
		}
	}
	kfree(info);
	if (found > 1)
		printk("%d tasks are called '%s': give a pid\n", found, name);
	else if (!found)
		printk("no task called '%s'\n", name);
	return found == 1 ? pid : 0;
}

/* The live task with this pid or name (a reference to put), or NULL and a message. */
static struct task_struct *get_task_arg(const char *s)
{
	struct task_struct *t;
	long pid;

	if (!(s[0] >= '0' && s[0] <= '9') && s[0] != '-') { /* a name, as pgrep finds it */
		pid = pid_of_name(s);
		if (!pid)
			return NULL;
	} else if (!parse_long("pid", s, 0, 1000000000, &pid)) {
		return NULL;
	}
	if (!pid) { /* as in Linux, every idle task */
		printk("pid 0 is every CPU's idle task (swapper/N): the scheduler's own, not a "
		       "task to look at or change\n");
		return NULL;
	}
	t = find_get_task((int)pid);
	if (!t)
		printk("no task with pid %ld\n", pid);
	return t;
}

/* The scheduler's own tasks (idle, per-CPU stoppers) keep their settings. */
static bool changeable(const struct task_struct *t)
{
	const char *c = task_class_name(t);

	if (strcmp(c, "fair") && strcmp(c, "rt")) {
		printk("%s (pid %d) is the scheduler's own %s task: not changed\n", t->comm, t->pid,
		       c);
		return false;
	}
	return true;
}

/* ---- tasks: ps, top ------------------------------------------------------------------ */

static char task_state_char(const struct task_info *i)
{
	if (i->is_idle)
		return 'I'; /* swapper/N: runs when its CPU has nothing else */
	if (i->on_cpu)
		return 'R';
	switch (i->state) {
	case TASK_RUNNING:
		return i->is_idle ? 'I' : 'r';
	case TASK_INTERRUPTIBLE:
		return 'S';
	case TASK_DEAD:
		return 'X';
	case TASK_NEW:
		return 'N';
	}
	return '?';
}

/* VRUNTIME: a CFS task's vruntime minus its cfs_rq's min_vruntime, in us ("-" if
 * not CFS): the raw value starts near 2^64 (min_vruntime wraps early) and
 * teaches nothing. */
static void format_vruntime(char *buf, size_t size, const struct task_info *i)
{
	if (strcmp(i->class_name, "fair") || i->cpu < 0) {
		strlcpy_k(buf, "-", size);
		return;
	}
	ksnprintf(buf, size, "%lld", (long long)(i->vruntime - i->min_vruntime) / 1000);
}

/* EEVDF's LAG_US (V - vruntime; the saved lag when not queued) and DEADLINE_US (virtual
 * deadline - V), in virtual us ("-" if not fair). V is the cfs_rq's zero_vruntime. */
static void format_eevdf(char *buf, size_t size, const struct task_info *i)
{
	s64 lag = i->queued ? (s64)(i->min_vruntime - i->vruntime) : i->vlag;

	if (strcmp(i->class_name, "fair") || i->cpu < 0) {
		ksnprintf(buf, size, " %9s %11s", "-", "-");
		return;
	}
	ksnprintf(buf, size, " %9lld %11lld", (long long)lag / 1000,
		  (long long)(i->deadline - i->min_vruntime) / 1000);
}

static void print_task(const struct task_info *i)
{
	bool rt = i->policy == SCHED_FIFO || i->policy == SCHED_RR || i->policy == SCHED_DEADLINE;
	bool own = i->is_idle || !strcmp(i->class_name, "stop"); /* the scheduler's own */
	char nice[8], prio[8], vr[24], ev[32] = "";

	if (sched_policy_is_eevdf())
		format_eevdf(ev, sizeof(ev), i);
	ksnprintf(nice, sizeof(nice), "%d", i->nice);
	ksnprintf(prio, sizeof(prio), "%d", i->prio);
	format_vruntime(vr, sizeof(vr), i);
	printk("%5d %-16s %3d %c %-6s %4s %4s %8lu %8lu %12s%s %5llu %11llu %s\n", i->pid, i->comm,
	       i->cpu, task_state_char(i),
	       strcmp(i->class_name, "stop") ? policy_name(i->policy) : "stop", own ? "-" : prio,
	       rt || own ? "-" : nice, i->util_avg, i->util_est, vr, ev, i->nr_migrations,
	       i->sum_exec_runtime / NSEC_PER_MSEC, i->group);
	if (i->policy == SCHED_DEADLINE)
		printk("      deadline: runtime %llu us, deadline %llu us, period %llu us\n",
		       i->dl_runtime / NSEC_PER_USEC, i->dl_deadline / NSEC_PER_USEC,
		       i->dl_period / NSEC_PER_USEC);
}

/* A snapshot of the task list (kfree it), or NULL and a message. */
static struct task_info *snapshot(int *n, int *max)
{
	struct task_info *info;

	*max = (int)nr_tasks_alive() + 8;
	info = kmalloc(sizeof(*info) * (size_t)*max);
	if (!info) {
		printk("out of memory\n");
		return NULL;
	}
	*n = task_snapshot(info, *max);
	return info;
}

static void print_tasks(void)
{
	bool eevdf = sched_policy_is_eevdf();
	int max, n;
	struct task_info *info = snapshot(&n, &max);

	if (!info)
		return;
	if (eevdf)
		printk("sched: eevdf (VRUNTIME, LAG and DEADLINE against the average V)\n");
	printk("  PID NAME             CPU S POLICY PRIO NICE UTIL_AVG UTIL_EST VRUNTIME_US%s  "
	       "MIGR "
	       " RUNTIME_MS GROUP\n",
	       eevdf ? "    LAG_US DEADLINE_US" : "");
	for (int k = 0; k < n && k < max; k++)
		print_task(&info[k]);
	if (n > max)
		printk("(%d more tasks appeared while listing)\n", n - max);
	kfree(info);
}

/* top -c: tasks other than the scheduler's own and this shell, per cluster,
 * with util against the cluster's capacity and the misfit threshold
 * (fits_capacity(): util x 1.25 < capacity). */
/* As update_misfit_status() judges: CFS, asymmetric, allowed more than one CPU. */
static const char *misfit_note(const struct task_info *i, unsigned long util)
{
	if (strcmp(i->class_name, "fair"))
		return "  (not CFS)";
	if (!cpu_topology.asym_cpucapacity ||
	    util * 1280 < capacity_of((unsigned int)i->cpu) * 1024)
		return "";
	return cpumask_weight(&i->cpus_allowed) == 1 ? "  does not fit, pinned: not a misfit"
						     : "  MISFIT: does not fit its CPU";
}

static void print_tasks_by_cluster(void)
{
	int max, n, done[NR_CPUS], nr_done = 0;
	struct task_info *info = snapshot(&n, &max);
	unsigned int cpu;

	if (!info)
		return;
	for_each_cpu(cpu, cpu_online_mask) {
		int cl = cpu_topology.cpu[cpu].cluster_id, seen = 0;
		unsigned long cap = capacity_orig_of(cpu);

		for (int d = 0; d < nr_done; d++)
			seen |= done[d] == cl;
		if (seen)
			continue;
		done[nr_done++] = cl;
		if (cpu_topology.asym_cpucapacity)
			printk("cluster %d: capacity %lu, misfit above util %lu\n", cl, cap,
			       cap * 4 / 5);
		else
			printk("cluster %d: capacity %lu (symmetric: no misfit)\n", cl, cap);
		for (int k = 0; k < n && k < max; k++) {
			const struct task_info *i = &info[k];
			unsigned long util;

			if (i->is_idle || !strcmp(i->class_name, "stop") ||
			    i->pid == current->pid || i->cpu < 0 ||
			    cpu_topology.cpu[i->cpu].cluster_id != cl)
				continue;
			util = MAX(i->util_avg, i->util_est); /* Linux: task_util_est() */
			printk("  %5d %-16s cpu%-3d %c util %4lu = %3lu %% of %lu%s\n", i->pid,
			       i->comm, i->cpu, task_state_char(i), util, util * 100 / cap, cap,
			       misfit_note(i, util));
		}
	}
	kfree(info);
}

static int cmd_ps(int argc, char **argv)
{
	if (argc != 1)
		return -1;
	print_tasks();
	return 0;
}

/* why PID: the last placement decisions for a task (kernel/sched/why.c). */
static int cmd_why(int argc, char **argv)
{
	struct task_struct *t;

	if (argc != 2)
		return -1;
	t = get_task_arg(argv[1]);
	if (!t)
		return -1;
	sched_why_print(t);
	put_task_struct(t);
	return 0;
}

/* IDLE%: what a CPU does now, as the other columns, so over the last second; or since
 * the previous cpus (or top screen) if that was less than a second ago, exactly from
 * the samples it kept (the second ago: kernel/sched/stats.c's history). */
static u64 last_idle[NR_CPUS], last_sample[NR_CPUS], last_cpus;

static u64 idle_percent(unsigned int cpu)
{
	u64 now = arch_clock_ns(), idle = cpu_idle_time_ns(cpu), from, di, dt;

	if (last_sample[cpu] && now - last_sample[cpu] < NSEC_PER_SEC) {
		di = idle - last_idle[cpu];
		dt = now - last_sample[cpu];
	} else {
		from = now > NSEC_PER_SEC ? now - NSEC_PER_SEC : 0;
		di = cpu_idle_time_since(cpu, from, &dt);
		dt -= from;
	}
	last_sample[cpu] = now;
	last_idle[cpu] = idle;
	return dt ? MIN(di * 100 / dt, 100ull) : 0;
}

static void print_cpus(void)
{
	u64 now = arch_clock_ns();
	bool recent = last_cpus && now - last_cpus < NSEC_PER_SEC;
	u64 window = recent ? now - last_cpus : MIN(now, NSEC_PER_SEC);
	unsigned int cpu;

	last_cpus = now;
	printk("speed model: %s (boot option speed=)\n", speed_model_name());
	printk("CPU CLUSTER CAP_ORIG CAPACITY   OPP_KHZ UTIL RT_UTIL IRQ_UTIL NR_RUNNING IDLE%% "
	       "(over the last %llu ms%s)\n",
	       window / NSEC_PER_MSEC, recent ? ", since the previous cpus" : "");
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		int pol = cpufreq_policy_of(cpu);

		if (!cpu_online(cpu)) {
			last_sample[cpu] = 0; /* back online: from the history */
			printk("%3u %7d %8lu %s\n", cpu, cpu_topology.cpu[cpu].cluster_id,
			       capacity_orig_of(cpu), cpuhp_state_name(cpu));
			continue;
		}
		printk("%3u %7d %8lu %8lu %9u %4lu %7lu %8lu %10u %4llu\n", cpu,
		       cpu_topology.cpu[cpu].cluster_id, capacity_orig_of(cpu), capacity_of(cpu),
		       pol >= 0 ? cpufreq_cur_freq(pol) : 0, cpu_util_cfs(cpu), cpu_util_rt(cpu),
		       cpu_util_irq(cpu), cpu_nr_running(cpu), idle_percent(cpu));
	}
}

/* topology: every fact read from the device tree (the boot log's block). */
static int cmd_topology(int argc, char **argv)
{
	if (argc != 1)
		return -1;
	topology_print(&cpu_topology);
	return 0;
}

/* cpu: list the states; cpu offline|online N (kernel/cpu.c says why it refuses). */
static int cmd_cpu(int argc, char **argv)
{
	bool up;
	long n;

	if (argc == 1) {
		for (unsigned int cpu = 0; cpu < nr_cpu_ids; cpu++)
			printk("cpu%u %s%s\n", cpu, cpuhp_state_name(cpu),
			       cpu_online(cpu) && !cpu_active(cpu) ? " (inactive)" : "");
		return 0;
	}
	if (argc != 3)
		return -1;
	up = !strcmp(argv[1], "online");
	if (!up && strcmp(argv[1], "offline")) {
		printk("cpu: '%s' is neither offline nor online\n", argv[1]);
		return -1;
	}
	if (!parse_long("cpu", argv[2], 0, NR_CPUS - 1, &n))
		return -1;
	if (up ? cpu_up((unsigned int)n) : cpu_down((unsigned int)n))
		printk("cpu: CPU%ld: %s, nothing changed\n", n, cpuhp_state_name((unsigned int)n));
	return 0;
}

static int cmd_cpus(int argc, char **argv)
{
	if (argc != 1)
		return -1;
	print_cpus();
	return 0;
}

/* Refresh every -d ms until a key (Ctrl-C included) or -n refreshes; -c:
 * the compact view (print_tasks_by_cluster). */
static int cmd_top(int argc, char **argv)
{
	bool compact = false;
	long delay, count;
	int j = 1;

	for (int i = 1; i < argc; i++) { /* -c out, the rest to parse_top_args() */
		if (!strcmp(argv[i], "-c"))
			compact = true;
		else
			argv[j++] = argv[i];
	}
	if (!parse_top_args(j, argv, &delay, &count))
		return -1;
	for (long it = 0; count < 0 || it < count; it++) {
		u64 now = arch_clock_ns();

		printk("\x1b[H\x1b[2Jtop - %llu.%03llu s, %lu tasks (any key stops)\n",
		       now / NSEC_PER_SEC, now / NSEC_PER_MSEC % 1000, nr_tasks_alive());
		if (compact) {
			print_tasks_by_cluster();
		} else {
			print_cpus();
			print_tasks();
		}
		if (count >= 0 && it + 1 == count)
			break;
		for (long waited = 0; waited < delay; waited += 10) {
			int c = console_trygetc();

			if (c >= 0) {
				printk("%s", c == 0x03 ? "^C\n" : "");
				return 0;
			}
			msleep(10);
		}
	}
	return 0;
}

/* ---- scheduler: domains, features -------------------------------------------------- */

static int cmd_domains(int argc, char **argv)
{
	if (argc != 1)
		return -1;
	sched_print_domains();
	return 0;
}

/* sched [cfs|eevdf]: the fair class's policy (boot option sched=), switched on every CPU
 * at once (kernel/sched/fair_eevdf.c). */
static int cmd_sched(int argc, char **argv)
{
	if (argc > 2)
		return -1;
	if (argc == 2 && sched_policy_set(argv[1])) {
		printk("sched: '%s' not switched (cfs|eevdf)\n", argv[1]);
		return -1;
	}
	printk("sched: %s\n", sched_policy_name());
	return 0;
}

static int cmd_features(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (sched_feat_set(argv[i])) {
			printk("unknown feature '%s'\n", argv[i]);
			sched_feat_print();
			return -1;
		}
	}
	sched_feat_print();
	if (argc == 1)
		sched_feat_describe();
	return 0;
}

/* EAS (kernel/sched/fair_energy.c): state, and estimates for a task of util U. */
static int cmd_eas(int argc, char **argv)
{
	long util = -1;

	if (argc > 2 || (argc == 2 && !parse_long("util", argv[1], 0, 1024, &util)))
		return -1;
	sched_energy_print(util);
	return 0;
}

/* Linux's sysctls of the scheduler that exist here: kernel.sched_rt_runtime_us and
 * kernel.sched_rt_period_us (RT throttling, kernel/sched/rt.c). NAME=VALUE sets one. */
static int cmd_sysctl(int argc, char **argv)
{
	long runtime, period, v;

	sched_rt_bandwidth_get(&runtime, &period);
	for (int i = 1; i < argc; i++) {
		char *name = argv[i], *eq = name;
		bool is_runtime;
		int err;

		while (*eq && *eq != '=')
			eq++;
		eq = *eq ? eq : NULL;
		if (!strncmp(name, "kernel.", 7))
			name += 7;
		if (eq)
			*eq = '\0';
		is_runtime = !strcmp(name, "sched_rt_runtime_us");
		if (!is_runtime && strcmp(name, "sched_rt_period_us")) {
			printk("sysctl: unknown name '%s' (sched_rt_runtime_us, "
			       "sched_rt_period_us)\n",
			       name);
			return -1;
		}
		if (!eq)
			continue;
		if (!parse_long(name, eq + 1, is_runtime ? -1 : 1, 0x7fffffff, &v))
			return -1;
		err = sched_rt_bandwidth_set(is_runtime ? v : runtime, is_runtime ? period : v);
		if (err == -EINVAL) {
			printk("sysctl: sched_rt_runtime_us (%ld) must be -1 or at most "
			       "sched_rt_period_us (%ld)\n",
			       is_runtime ? v : runtime, is_runtime ? period : v);
			return -1;
		}
		if (err) {
			printk("sysctl: the admitted SCHED_DEADLINE bandwidth would not fit: "
			       "unchanged\n");
			return -1;
		}
		sched_rt_bandwidth_get(&runtime, &period);
	}
	printk("kernel.sched_rt_period_us = %ld\nkernel.sched_rt_runtime_us = %ld\n", period,
	       runtime);
	return 0;
}

/* ---- cpuidle and energy ----------------------------------------------------------- */

static int cmd_cpuidle(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "reset"))
		cpuidle_reset_stats();
	else if (argc != 1) {
		printk("usage: cpuidle [reset]\n");
		return -1;
	}
	cpuidle_print("", "");
	return 0;
}

static int cmd_energy(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "reset"))
		energy_reset();
	else if (argc != 1) {
		printk("usage: energy [reset]\n");
		return -1;
	}
	energy_print("", "");
	return 0;
}

/* ---- cpufreq ------------------------------------------------------------------------- */

static void print_policies(void)
{
	for (int p = 0; p < cpufreq_nr_policies(); p++) {
		cpumask_t m = { { 0 } };
		unsigned int cpu;
		char buf[64];

		for_each_cpu(cpu, cpu_online_mask)
			if (cpufreq_policy_of(cpu) == p)
				__cpumask_set_cpu(cpu, &m);
		topology_format_mask(buf, sizeof(buf), &m);
		if (cpumask_empty(&m)) /* every CPU of it offline */
			strlcpy_k(buf, "none(inactive)", sizeof(buf));
		printk("policy%d cpus=%s governor=%s cur=%u target=%u min=%u max=%u "
		       "rate_limit_us=%u\n",
		       p, buf, cpufreq_governor_name(p), cpufreq_cur_freq(p),
		       cpufreq_target_freq(p), cpufreq_min_freq(p), cpufreq_max_freq(p),
		       cpufreq_rate_limit_us(p));
	}
}

static int cmd_cpufreq(int argc, char **argv)
{
	int lo = 0, hi = cpufreq_nr_policies();
	long khz;

	if (!cpufreq_nr_policies()) {
		printk("cpufreq: no policies (no OPP tables in the device tree)\n");
		return 0;
	}
	if (argc == 1) {
		print_policies();
		return 0;
	}
	if ((!strcmp(argv[1], "stats") || !strcmp(argv[1], "reset")) && argc <= 3) {
		if (argc == 3 && !parse_policies(argv[2], cpufreq_nr_policies(), &lo, &hi))
			return -1;
		for (int p = lo; p < hi; p++) {
			if (argv[1][0] == 'r')
				cpufreq_reset_stats(p);
			cpufreq_print_stats(p);
		}
		return 0;
	}
	if (!strcmp(argv[1], "governor") && argc == 4) {
		if (!parse_policies(argv[2], cpufreq_nr_policies(), &lo, &hi))
			return -1;
		for (int p = lo; p < hi; p++)
			if (cpufreq_set_governor(p, argv[3]))
				return -1; /* cpufreq says why */
		print_policies();
		return 0;
	}
	if (!strcmp(argv[1], "speed") && argc == 4) {
		if (!parse_policies(argv[2], cpufreq_nr_policies(), &lo, &hi) ||
		    !parse_long("khz", argv[3], 1, 100000000, &khz))
			return -1;
		for (int p = lo; p < hi; p++) {
			if (cpufreq_set_speed(p, (u32)khz)) {
				printk("policy%d: speed needs the userspace governor\n", p);
				return -1;
			}
		}
		print_policies();
		return 0;
	}
	printk("bad cpufreq arguments\n");
	return -1;
}

/* ---- spawn, kill, taskset, renice ------------------------------------------------------ */

/* A task started from the shell: CPU-bound (period 0: work units again and
 * again) or periodic (work units every period). It checks `stop` between
 * chunks, which is how kill ends it. */
struct spawned {
	struct task_struct *t;
	u64 work_ns, period_ns;
	volatile bool stop;
};
static struct spawned spawned[MAX_SPAWNED];

static void spawn_fn(void *arg)
{
	struct spawned *s = arg;
	u64 next = arch_clock_ns();

	while (!READ_ONCE(s->stop)) {
		u64 now;

		cpu_work(s->work_ns);
		if (!s->period_ns)
			continue;
		next += s->period_ns;
		now = arch_clock_ns();
		if (next > now)
			sleep_ns(next - now);
		else
			next = now; /* overrun: start the next period now */
	}
}

/* policy=deadline: sched_setattr(); the kernel's refusal is printed. */
static int spawn_dl(struct task_struct *t, const struct spawn_args *a)
{
	struct sched_attr attr = {
		.sched_policy = SCHED_DEADLINE,
		.sched_runtime = (u64)a->runtime * NSEC_PER_USEC,
		.sched_deadline = (u64)(a->deadline ? a->deadline : a->period) * NSEC_PER_USEC,
		.sched_period = (u64)(a->period ? a->period : a->deadline) * NSEC_PER_USEC,
	};
	int err;

	if (!cpumask_equal(&a->mask, cpu_active_mask)) {
		printk("a deadline task runs on every active CPU: no cpus=\n");
		return -1;
	}
	err = sched_setattr(t, &attr);
	if (err)
		printk("sched_setattr: %s\n", err == -EBUSY
						      ? "bandwidth refused by admission control"
					      : err == -EPERM ? "not allowed on every active CPU"
							      : "invalid parameters");
	return err;
}

static int cmd_spawn(int argc, char **argv)
{
	struct spawn_args a;
	struct spawned *s = NULL;
	struct task_struct *t;

	if (!parse_spawn_args(argc, argv, cpu_online_mask, &a))
		return -1;
	for (int i = 0; i < MAX_SPAWNED && !s; i++)
		if (!spawned[i].t)
			s = &spawned[i];
	if (!s) {
		printk("already %d spawned tasks: kill one first\n", MAX_SPAWNED);
		return 0;
	}
	s->work_ns = (u64)a.work * NSEC_PER_USEC;
	s->period_ns = (u64)a.period * NSEC_PER_USEC;
	s->stop = false;
	t = kthread_create(spawn_fn, s, argv[1]);
	if (!t) {
		printk("out of memory\n");
		return 0;
	}
	if (a.policy == SCHED_DEADLINE) {
		if (spawn_dl(t, &a)) {
			kthread_discard(t);
			return 0;
		}
	} else if (a.policy == SCHED_FIFO || a.policy == SCHED_RR)
		sched_setscheduler(t, a.policy, (unsigned int)a.prio);
	else {
		sched_setscheduler(t, a.policy, 0);
		set_user_nice(t, (int)a.nice);
		if (a.slice)
			sched_set_slice(t, (u64)a.slice * NSEC_PER_USEC);
	}
	/* No cpus=: every possible CPU, as Linux's default affinity, so a CPU
	 * brought online later is usable. */
	set_cpus_allowed(t, a.cpus_given ? &a.mask : cpu_possible_mask);
	if (a.ws_kib)
		t->cache.ws_kib = (u32)a.ws_kib;
	s->t = t;
	wake_up_new_task(t);
	printk("spawned %s pid %d: %s, work %ld us%s", t->comm, t->pid, policy_name(a.policy),
	       a.work, a.period ? "" : " chunks, CPU-bound\n");
	if (a.period)
		printk(" every %ld us\n", a.period);
	return 0;
}

static int cmd_kill(int argc, char **argv)
{
	bool by_name;
	long pid = 0;

	if (argc != 2)
		return -1;
	by_name = !(argv[1][0] >= '0' && argv[1][0] <= '9') && argv[1][0] != '-';
	if (!by_name && !parse_long("pid", argv[1], 1, 1000000000, &pid))
		return -1;
	for (int i = 0; i < MAX_SPAWNED; i++) {
		struct spawned *s = &spawned[i];

		if (!s->t || (by_name ? strcmp(s->t->comm, argv[1]) : s->t->pid != pid))
			continue;
		pid = s->t->pid;
		s->stop = true;
		kthread_join(s->t); /* after its current chunk of work */
		s->t = NULL;
		printk("killed %ld\n", pid);
		return 0;
	}
	printk("%s is not a task spawned from this shell (only those can be killed)\n", argv[1]);
	return -1;
}

static int cmd_taskset(int argc, char **argv)
{
	struct task_struct *t;
	cpumask_t mask = { { 0 } };
	char buf[128];
	int ret = 0;

	if (argc < 2 || argc > 3)
		return -1;
	if (argc == 3 && !parse_cpulist(argv[2], &mask))
		return -1;
	t = get_task_arg(argv[1]);
	if (!t)
		return -1;
	if (argc == 3 && !changeable(t)) {
		ret = -1;
	} else if (argc == 3 && set_cpus_allowed(t, &mask)) {
		printk("cannot change the affinity of %s\n", t->comm);
		ret = -1;
	}
	topology_format_mask(buf, sizeof(buf), &t->cpus_allowed);
	printk("pid %d (%s) affinity %s\n", t->pid, t->comm, buf);
	put_task_struct(t);
	return ret;
}

static int cmd_renice(int argc, char **argv)
{
	struct task_struct *t;
	long nice;
	int ret = 0;

	if (argc != 3 || !parse_long("nice", argv[2], -20, 19, &nice))
		return -1;
	t = get_task_arg(argv[1]);
	if (!t)
		return -1;
	if (!changeable(t)) {
		ret = -1;
	} else if ((t->policy != SCHED_NORMAL && t->policy != SCHED_BATCH) ||
		   set_user_nice(t, (int)nice)) {
		printk("cannot renice %s (policy %s)\n", t->comm, policy_name(t->policy));
		ret = -1;
	} else {
		printk("pid %d (%s) nice %d\n", t->pid, t->comm, task_nice(t));
	}
	put_task_struct(t);
	return ret;
}

/* ---- the rest ------------------------------------------------------------------------ */

int shell_cgroup_cgcreate(int argc, char **argv); /* shell_cgroup.c */
int shell_cgroup_cgclassify(int argc, char **argv);
int shell_cgroup_cgdelete(int argc, char **argv);
int shell_cgroup_cgroups(int argc, char **argv);

static int cmd_history(int argc, char **argv)
{
	if (argc != 1)
		return -1;
	line_history_print(&editor);
	return 0;
}

struct run_job {
	const char *spec;
	bool exp, done;
};

static void run_job_fn(void *arg)
{
	struct run_job *j = arg;

	if (j->exp)
		experiment_run(j->spec);
	else
		bench_run(j->spec);
	__atomic_store_n(&j->done, true, __ATOMIC_RELEASE);
}

/* The benchmark runs in its own thread while this one watches the console:
 * Ctrl-C asks it to stop (bench_interrupt), and the benchmark ends and
 * joins its own threads before returning, so nothing is left behind. */
static void run_in_thread(const char *spec, bool exp, bool full)
{
	struct run_job job = { spec, exp, false };
	size_t heap = kmalloc_in_use();
	unsigned long pages = page_alloc_free_count();
	struct task_struct *t;
	bool stopped = false;
	u64 start = arch_clock_ns(), next_progress = 0;

	bench_interrupt(false);
	bench_set_full_results(full);
	t = kthread_run(run_job_fn, &job, "run");
	if (!t) {
		printk("run: out of memory\n");
		return;
	}
	printk("run: %s%s started (Ctrl-C stops it)\n", exp ? "experiment " : "", spec);
	while (!__atomic_load_n(&job.done, __ATOMIC_ACQUIRE)) {
		int c = console_trygetc();

		if (!stopped)
			bench_progress_report(start, &next_progress);
		if (c == 0x03 && !stopped) { /* only Ctrl-C stops a run */
			printk("^C\n");
			bench_interrupt(true);
			stopped = true;
		} else if (c >= 0 && c != 0x03) {
			keep_key(c); /* for the next line */
		}
		msleep(20);
	}
	kthread_join(t);
	bench_interrupt(false);
	if (stopped)
		printk("run: interrupted; the benchmark's threads have ended (kmalloc in use %zu "
		       "-> "
		       "%zu bytes, free pages %lu -> %lu)\n",
		       heap, kmalloc_in_use(), pages, page_alloc_free_count());
}

/* run [-r] ...: -r (argv[1]) asks for the per-CPU RESULT energy / cpuidle lines
 * instead of one line of totals; taken out of argv. */
static bool take_results_flag(int *argc, char **argv)
{
	if (*argc < 2 || strcmp(argv[1], "-r"))
		return false;
	for (int i = 1; i + 1 < *argc; i++)
		argv[i] = argv[i + 1];
	(*argc)--;
	return true;
}

/* cgexec NAME [-r] BENCH|experiment ...: `run` from inside group NAME (the
 * benchmark's threads inherit the group at fork), then back. */
static int cmd_cgexec(int argc, char **argv)
{
	struct task_group *tg, *was = task_group(current);
	char spec[128];
	bool exp, full;

	if (argc < 3)
		return -1;
	tg = sched_group_find(argv[1]);
	if (!tg) {
		printk("cgexec: no group '%s'\n", argv[1]);
		return -1;
	}
	argc--;
	argv++;
	full = take_results_flag(&argc, argv);
	if (!parse_run_args(argc, argv, spec, sizeof(spec), &exp))
		return -1;
	if (bench_check_spec(spec, exp))
		return 0; /* it said why; nothing started */
	sched_move_task(current, tg);
	run_in_thread(spec, exp, full);
	sched_move_task(current, was);
	return 0;
}

/* run [-r] BENCH [k=v ...] or run [-r] experiment N [short] [trace]: the words become
 * the comma-separated spec of kernel/bench/ ("pipe,n=20000", "1,short"). */
static int cmd_run(int argc, char **argv)
{
	bool full = take_results_flag(&argc, argv), exp;
	char spec[128];

	if (!parse_run_args(argc, argv, spec, sizeof(spec), &exp))
		return -1;
	if (bench_check_spec(spec, exp))
		return 0; /* it said why; nothing started */
	run_in_thread(spec, exp, full);
	return 0;
}

/* trace start [EVENT ...]: every name checked before anything starts. */
static void trace_start_cmd(int argc, char **argv)
{
	u32 mask = argc > 2 ? 0 : ~0u;

	for (int i = 2; i < argc; i++) {
		int bit = trace_event_bit(argv[i]);

		if (bit < 0) {
			printk("trace: unknown event '%s'; the events:", argv[i]);
			for (int b = 0; trace_event_name(b); b++)
				printk(" %s", trace_event_name(b));
			printk("\ntrace: not started\n");
			return;
		}
		mask |= 1u << bit;
	}
	if (trace_start_events(mask)) {
		printk("trace: no memory for the buffers\n");
		return;
	}
	if (argc > 2) {
		printk("trace: on, events:");
		for (int i = 2; i < argc; i++)
			printk(" %s", argv[i]);
		printk("\n");
	} else {
		printk("trace: on\n");
	}
}

static int cmd_trace(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "start")) {
		trace_start_cmd(argc, argv);
		return 0;
	}
	if (argc != 2)
		return -1;
	if (!strcmp(argv[1], "stop")) {
		trace_stop();
		printk("trace: off\n");
	} else if (!strcmp(argv[1], "dump")) {
		trace_dump();
	} else if (!strcmp(argv[1], "bench")) {
		trace_bench();
	} else {
		printk("unknown trace action '%s'\n", argv[1]);
		return -1;
	}
	return 0;
}

/* Wait MS of emulated time; any key ends it early. */
static int cmd_sleep(int argc, char **argv)
{
	long ms;

	if (argc != 2 || !parse_long("ms", argv[1], 0, 3600000, &ms))
		return -1;
	for (long waited = 0; waited < ms; waited += 10) {
		int c = console_trygetc();

		if (c >= 0) {
			printk("%s", c == 0x03 ? "^C\n" : "");
			return 0;
		}
		msleep(ms - waited < 10 ? (u64)(ms - waited) : 10);
	}
	return 0;
}

static int cmd_selftest(int argc, char **argv)
{
	if (argc > 2)
		return -1;
	printk("selftest: %d failed case(s)\n", ktest_run(argc == 2 ? argv[1] : NULL));
	return 0;
}

static int cmd_poweroff(int argc, char **argv)
{
	if (argc != 1)
		return -1;
	arch_poweroff();
}

static int cmd_reboot(int argc, char **argv)
{
	if (argc != 1)
		return -1;
	arch_reboot();
}

static const struct command commands[] = {
	{ "help", "help [CMD]", "list the commands, or one command's usage", cmd_help },
	{ "ps", "ps",
	  "tasks: pid, name, cpu, state, policy, prio, nice, util, vruntime, migrations", cmd_ps },
	{ "top", "top [-c] [-d MS] [-n COUNT]",
	  "cpus and ps every MS (1000) until a key is pressed; -c: compact, by cluster", cmd_top },
	{ "why", "why PID|NAME",
	  "why a task is on its CPU: its last wakeup placements, misfit, moves", cmd_why },
	{ "cpus", "cpus",
	  "per CPU: cluster, capacity_orig, capacity_of, OPP, util (cfs, rt, irq), nr_running, "
	  "idle % over the last second",
	  cmd_cpus },
	{ "topology", "topology",
	  "what the device tree says: CPUs, capacities, clusters, domains, OPPs, idle states",
	  cmd_topology },
	{ "cpu", "cpu [offline|online N]",
	  "list CPU states, or take CPU N offline / bring it back online (hotplug)", cmd_cpu },
	{ "domains", "domains", "each CPU's sched domains: span, groups, flags, balancing",
	  cmd_domains },
	{ "features", "features [NAME|NO_NAME]...",
	  "list (with a line on each) or toggle scheduler features", cmd_features },
	{ "sched", "sched [cfs|eevdf]", "the fair class's policy: Linux 6.1's CFS or 6.12's EEVDF",
	  cmd_sched },
	{ "cpufreq", "cpufreq [stats|reset [P|all]] | [governor P|all GOV] | [speed P|all KHZ]",
	  "frequency policies, governors (performance powersave userspace schedutil), stats",
	  cmd_cpufreq },
	{ "cpuidle", "cpuidle [reset]",
	  "idle states per CPU: latency, residency, usage, time, above, below; cluster power-downs",
	  cmd_cpuidle },
	{ "eas", "eas [UTIL]", "EAS on? why not? overutilized? energy of a task of UTIL per CPU",
	  cmd_eas },
	{ "energy", "energy [reset]", "joules per CPU and cluster since reset, average power",
	  cmd_energy },
	{ "sysctl", "sysctl [kernel.sched_rt_runtime_us[=US]] [kernel.sched_rt_period_us[=US]]",
	  "show or set RT throttling: RT gets RUNTIME of every PERIOD per CPU (-1: no limit)",
	  cmd_sysctl },
	{ "spawn",
	  "spawn NAME [work=US] [period=US] [nice=N] [policy=normal|batch|idle|fifo|rr|deadline] "
	  "[prio=1..99] [cpus=LIST] [runtime=US deadline=US] [ws=KB] [slice=US]",
	  "start a task: CPU-bound (no period) or WORK us of work every PERIOD us", cmd_spawn },
	{ "kill", "kill PID|NAME", "stop a task started by spawn", cmd_kill },
	{ "cgcreate", "cgcreate A[/B] [weight=W] [uclamp.min=V] [uclamp.max=V]",
	  "a task group: cpu.weight (1-10000, 100 default) shares CPU time, clamps 0-1024",
	  shell_cgroup_cgcreate },
	{ "cgclassify", "cgclassify GROUP PID", "move a task to a group (/ is the root)",
	  shell_cgroup_cgclassify },
	{ "cgexec", "cgexec GROUP [-r] BENCH [k=v ...]", "run a benchmark inside a group",
	  cmd_cgexec },
	{ "cgdelete", "cgdelete GROUP", "remove an empty group", shell_cgroup_cgdelete },
	{ "cgroups", "cgroups", "task groups: weight, clamps, tasks and their usage",
	  shell_cgroup_cgroups },
	{ "taskset", "taskset PID|NAME [CPULIST]", "show or set a task's affinity (like 0-3,6)",
	  cmd_taskset },
	{ "renice", "renice PID|NAME NICE", "set the nice value (-20..19) of a normal task",
	  cmd_renice },
	{ "run", "run [-r] BENCH [k=v ...] | run [-r] experiment N [short] [trace]",
	  "run a benchmark (pipe, hackbench, tbench, sysbench-threads, sysbench-cpu,"
	  " rtapp FILE) or experiment, then one line of energy and idle totals (-r: the "
	  "per-CPU RESULT energy and cpuidle lines); a progress line each second of a long "
	  "one; Ctrl-C stops it (pipe, hackbench and E1 print what they did, marked partial)",
	  cmd_run },
	{ "selftest", "selftest [suite,suite]", "run self-test suites (all if none named)",
	  cmd_selftest },
	{ "trace", "trace start [EVENT ...]|stop|dump|bench",
	  "scheduler events into per-CPU buffers; dump prints them as ftrace text, bench "
	  "measures a tracepoint",
	  cmd_trace },
	{ "sleep", "sleep MS", "wait MS ms of emulated time (any key ends it)", cmd_sleep },
	{ "history", "history", "the recent lines (Up/Down recall them)", cmd_history },
	{ "poweroff", "poweroff", "PSCI SYSTEM_OFF", cmd_poweroff },
	{ "reboot", "reboot", "PSCI SYSTEM_RESET", cmd_reboot },
};
static const size_t nr_commands = ARRAY_SIZE(commands);

/* Line by line: printk() takes one line at a time, not a page. */
static void print_lines(const char *text)
{
	while (text && *text) {
		int n = 0;

		while (text[n] && text[n] != '\n')
			n++;
		printk("%.*s\n", n, text);
		text += text[n] ? n + 1 : n;
	}
}

static int cmd_help(int argc, char **argv)
{
	if (argc > 2)
		return -1;
	for (size_t i = 0; i < nr_commands; i++) {
		const struct command *c = &commands[i];

		if (argc == 1)
			printk("  %-10s %s\n", c->name, c->help);
		else if (!strcmp(argv[1], c->name)) {
			const char *more = shell_help_text(c->name);

			printk("usage: %s\n%s\n", c->usage, c->help);
			print_lines(more);
			if (!strcmp(c->name, "selftest"))
				ktest_list();
			if (!strcmp(c->name, "run"))
				bench_print_help();
			return 0;
		}
	}
	if (argc == 2) {
		printk("no command '%s'\n", argv[1]);
		return -1;
	}
	printk("'help CMD' shows a command's usage and explains its columns and units; "
	       "Up/Down recall lines, Left/Right move the cursor, Ctrl-U clears the line, Ctrl-C "
	       "stops a running command\n");
	return 0;
}

static void run_line(char *line)
{
	char *argv[SHELL_MAX_ARGS];
	int argc = shell_split(line, argv);

	if (argc < 0) {
		printk("too many words (at most %d)\n", SHELL_MAX_ARGS);
		return;
	}
	if (!argc)
		return;
	for (size_t i = 0; i < nr_commands; i++) {
		if (strcmp(argv[0], commands[i].name))
			continue;
		if (commands[i].fn(argc, argv))
			printk("usage: %s\n", commands[i].usage);
		return;
	}
	printk("unknown command '%s'; 'help' lists the commands\n", argv[0]);
}

void console_loop(void)
{
	printk("littlebig console: 'help' lists the commands, 'help CMD' explains one; the labs: "
	       "docs/labs/README.md\n");
	for (;;) {
		printk("littlebig> ");
		if (!read_line())
			continue;
		if (editor.line[0] && editor.line[0] != ' ')
			line_history_add(&editor, editor.line);
		run_line(editor.line);
	}
}
