/* shell_tasks.c - the console's task commands: ps, top, why, spawn, kill, taskset,
 * renice, and finding a task by pid or name for them. What they show is thread.c's
 * snapshot and kernel/sched/'s; the tasks spawn starts are this file's (kill ends only
 * those). Runs in the init thread only (the shell), so no lock. */
#include "console.h"
#include "kernel.h"
#include "mm.h"
#include "sched.h"
#include "shell_internal.h"
#include "shell_parse.h"
#include "smp.h"
#include "timer.h"
#include "topology.h"

#define MAX_SPAWNED 16

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

int cmd_ps(int argc, char **argv)
{
	if (argc != 1)
		return -1;
	print_tasks();
	return 0;
}

/* why PID: the last placement decisions for a task (kernel/sched/why.c). */
int cmd_why(int argc, char **argv)
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

/* Refresh every -d ms until a key (Ctrl-C included) or -n refreshes; -c:
 * the compact view (print_tasks_by_cluster). */
int cmd_top(int argc, char **argv)
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

int cmd_spawn(int argc, char **argv)
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

int cmd_kill(int argc, char **argv)
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

int cmd_taskset(int argc, char **argv)
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

int cmd_renice(int argc, char **argv)
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