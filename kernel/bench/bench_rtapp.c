/* bench_rtapp.c - runs an rt-app workload (include/rtapp.h) as kernel threads: one
 * per task instance, phases and events in file order, until the loops end or
 * the global duration has passed; then per-task activations, slack, wakeup
 * latency and migrations. Where files come from (built in, initrd) is here
 * too; the JSON parser is rtapp_parse.c. A run's state is its own context:
 * shared timers under each timer's spinlock, named mutexes are kernel/mutex.c's,
 * each thread's statistics are written by that thread only until it is joined. */
#include "bench.h"
#include "cpufreq.h"
#include "initrd.h"
#include "bench_internal.h"
#include "kernel.h"
#include "mm.h"
#include "mutex.h"
#include "rtapp.h"
#include "sched.h"
#include "timer.h"
#include "topology.h"

/* rt-app's timer: the next expiry, set from the first user's loop start. */
struct rt_timer {
	spinlock_t lock;
	bool init;
	u64 next;
};

struct rt_ctx;

struct rt_thread {
	struct rt_ctx *c;
	u32 task;
	struct task_struct *ts;
	struct rt_timer own[RTAPP_MAX_REFS]; /* "unique..." timers: per thread */
	struct rtapp_task_stats st;
};

struct rt_ctx {
	const struct rtapp_workload *w;
	u64 run_scale;	      /* work units per 1024 us of "run" */
	u64 start_ns, end_ns; /* end: ~0 without a duration */
	bool abort;
	struct barrier start;
	struct mutex mutexes[RTAPP_MAX_REFS];
	struct rt_timer timers[RTAPP_MAX_REFS]; /* shared ones */
	u32 nr_threads;
	struct rt_thread th[RTAPP_MAX_THREADS];
};

/* The duration has passed, or the shell's Ctrl-C asked the run to stop. */
static bool over(const struct rt_ctx *c)
{
	return arch_clock_ns() >= c->end_ns || bench_interrupted();
}

/* The work units this CPU does per 1024 ns now: capacity x f_cur / f_max. */
static u64 cpu_speed(void)
{
	unsigned int cpu = smp_processor_id();
	int pol = cpufreq_policy_of(cpu);
	u64 cap = capacity_orig_of(cpu);

	return pol < 0 || !cpufreq_max_freq(pol)
		       ? cap
		       : cap * cpufreq_cur_freq(pol) / cpufreq_max_freq(pol);
}

/* "runtime": busy for a wall time whatever the CPU's speed: the work the time
 * left is worth at the current speed, again until the time is up (a
 * migration or a frequency drop on the way only adds a round). */
static void run_wall(u64 ns)
{
	u64 end = arch_clock_ns() + ns;

	for (u64 now = arch_clock_ns(); now < end; now = arch_clock_ns())
		cpu_work(MAX((end - now) * cpu_speed() / 1024, 10 * NSEC_PER_USEC));
}

/* One timer event: sleep to the timer's next expiry and account the period.
 * Absolute mode keeps the grid when an expiry is missed; relative mode
 * (rt-app's default) restarts the grid from now. */
static void do_timer(struct rt_thread *t, const struct rtapp_event *e, u64 loop_start)
{
	struct rt_ctx *c = t->c;
	struct rt_timer *tm = c->w->refs[e->ref].per_thread ? &t->own[e->ref] : &c->timers[e->ref];
	unsigned long flags = spin_lock_irqsave(&tm->lock);
	u64 next, now;
	s64 slack;

	if (!tm->init) {
		tm->init = true;
		tm->next = loop_start;
	}
	tm->next += e->usec * NSEC_PER_USEC;
	next = tm->next;
	spin_unlock_irqrestore(&tm->lock, flags);
	if (next > c->end_ns) { /* the run ends first: not an activation */
		sleep_until_ns(c->end_ns);
		return;
	}
	now = arch_clock_ns();
	slack = (s64)(next - now);
	t->st.activations++;
	t->st.slack_sum_ns += slack;
	if (t->st.activations == 1 || slack < t->st.slack_min_ns)
		t->st.slack_min_ns = slack;
	if (slack < 0) {
		t->st.missed++;
		if (!e->absolute) {
			flags = spin_lock_irqsave(&tm->lock);
			tm->next = now;
			spin_unlock_irqrestore(&tm->lock, flags);
		}
		return;
	}
	sleep_until_ns(next);
	now = arch_clock_ns() - next; /* wakeup latency */
	t->st.wu_lat_sum_ns += now;
	t->st.wu_lat_n++;
	t->st.wu_lat_max_ns = MAX(t->st.wu_lat_max_ns, now);
}

/* A thread's working set: what its mem events write into its buffer (rt-app writes each
 * mem event's bytes into one global.mem_buffer_size buffer per thread), the largest;
 * without mem events the kernel's default (CACHE_WS_DEFAULT_KIB). */
static u32 rtapp_ws_kib(const struct rtapp_workload *w, const struct rtapp_task *task)
{
	u64 ws = 0;

	for (u32 p = task->first_phase; p < task->first_phase + task->nr_phases; p++)
		for (u32 i = 0; i < w->phases[p].nr_events; i++) {
			const struct rtapp_event *e = &w->events[w->phases[p].first_event + i];

			if (e->type == RTAPP_MEM)
				ws = MAX(ws, MIN(e->usec, w->mem_buffer_size));
		}
	return ws ? (u32)MAX(1, ws / 1024) : CACHE_WS_DEFAULT_KIB;
}

static void do_event(struct rt_thread *t, const struct rtapp_event *e, u64 loop_start)
{
	struct rt_ctx *c = t->c;

	/* Past the end only locks still move, so that nothing is left held. */
	if (e->type != RTAPP_LOCK && e->type != RTAPP_UNLOCK && over(c))
		return;
	switch (e->type) {
	case RTAPP_RUN:
		cpu_work(e->usec * c->run_scale / 1024);
		break;
	case RTAPP_RUNTIME:
		run_wall(e->usec * NSEC_PER_USEC);
		break;
	case RTAPP_SLEEP:
		sleep_until_ns(MIN(arch_clock_ns() + e->usec * NSEC_PER_USEC, c->end_ns));
		break;
	case RTAPP_TIMER:
		do_timer(t, e, loop_start);
		break;
	case RTAPP_LOCK:
		mutex_lock(&c->mutexes[e->ref]);
		break;
	case RTAPP_UNLOCK:
		mutex_unlock(&c->mutexes[e->ref]);
		break;
	case RTAPP_YIELD:
		yield();
		break;
	case RTAPP_MEM: /* its size is the working set (rtapp_ws_kib()); no write time */
		break;
	}
}

/* rt-app's "taskgroup": the group at that path, made like mkdir -p. */
static struct task_group *rtapp_taskgroup(const char *path)
{
	struct task_group *tg = sched_group_find(""), *next;
	char part[RTAPP_NAME_LEN], sofar[RTAPP_NAME_LEN + 1] = "";

	while (*path && tg) {
		size_t n = 0;

		while (*path == '/')
			path++;
		while (path[n] && path[n] != '/' && n + 1 < sizeof(part)) {
			part[n] = path[n];
			n++;
		}
		part[n] = '\0';
		path += n;
		if (!n)
			break;
		strlcpy_k(sofar + strlen(sofar), "/", sizeof(sofar) - strlen(sofar));
		strlcpy_k(sofar + strlen(sofar), part, sizeof(sofar) - strlen(sofar));
		next = sched_group_find(sofar);
		tg = next ? next : sched_group_create(tg, part);
	}
	return tg;
}

/* rt-app's SCHED_DEADLINE: sched_setattr() with the dl-* keys (us); a
 * refusal is told and the thread keeps its policy (rt-app exits). Linux
 * refuses a DL task an affinity narrower than its root domain (-EPERM), so
 * "cpus" only says where it starts: a new thread is pinned there and made
 * DL, on every CPU again, once it runs (rt_thread_fn()). */
static void apply_dl(struct task_struct *p, const struct rtapp_sched *s)
{
	u64 period = s->dl_period ? s->dl_period : s->dl_runtime;
	struct sched_attr a = { .sched_policy = SCHED_DEADLINE,
				.sched_runtime = s->dl_runtime * NSEC_PER_USEC,
				.sched_period = period * NSEC_PER_USEC,
				.sched_deadline = (s->dl_deadline ? s->dl_deadline : period) *
						  NSEC_PER_USEC };
	int err;

	if (!s->dl_runtime) /* a phase of a DL task that sets no dl-* key: unchanged */
		return;
	if (!cpumask_empty(&s->cpus)) {
		if (p->state == TASK_NEW) {
			set_cpus_allowed(p, cpumask_of(cpumask_first(&s->cpus)));
			return;
		}
		set_cpus_allowed(p, cpu_active_mask);
	}
	err = sched_setattr(p, &a);
	if (err)
		printk("rtapp: %s: sched_setattr(SCHED_DEADLINE %llu/%llu us) refused: %d\n",
		       p->comm, s->dl_runtime, period, err);
}

/* Policy, priority (nice for CFS policies), uclamp and affinity: what the
 * file set, over what the thread has. The parser checked each level against
 * its own policy; a phase can still meet a policy an earlier phase set (a
 * priority 50 arriving at a SCHED_OTHER thread, a util_min above the task's
 * util_max), and then the value is clamped to the range, as Linux clamps
 * uclamp requests: external input never trips a warning. */
static void apply_sched(struct task_struct *p, const struct rtapp_sched *s, int def_policy)
{
	int pol = s->policy != RTAPP_UNSET ? s->policy
		  : def_policy >= 0	   ? def_policy
					   : (int)p->policy;
	bool rt = pol == SCHED_FIFO || pol == SCHED_RR;
	int prio = s->priority != RTAPP_UNSET ? s->priority : (rt ? 10 : 0);
	unsigned int umin = p->uclamp_req[UCLAMP_MIN], umax = p->uclamp_req[UCLAMP_MAX];

	if (pol == SCHED_DEADLINE) {
		apply_dl(p, s);
		return;
	}
	if (s->policy != RTAPP_UNSET || s->priority != RTAPP_UNSET || def_policy >= 0) {
		prio = rt ? MIN(MAX(prio, 1), 99) : MIN(MAX(prio, -20), 19);
		WARN_ON_ONCE(sched_setscheduler(p, (unsigned int)pol, rt ? (unsigned int)prio : 0));
		if (!rt)
			WARN_ON_ONCE(set_user_nice(p, prio));
	}
	if (s->util_min != RTAPP_UNSET || s->util_max != RTAPP_UNSET) {
		umax = s->util_max != RTAPP_UNSET ? (unsigned int)s->util_max : umax;
		umin = s->util_min != RTAPP_UNSET ? (unsigned int)s->util_min : umin;
		WARN_ON_ONCE(sched_set_uclamp(p, MIN(umin, umax), umax));
	}
	if (s->taskgroup[0]) {
		struct task_group *tg = rtapp_taskgroup(s->taskgroup);

		if (!tg || sched_move_task(p, tg))
			printk("rtapp: %s: taskgroup %s could not be made; left in its group\n",
			       p->comm, s->taskgroup);
	}
	/* checked online before the run */
	if (!cpumask_empty(&s->cpus) && set_cpus_allowed(p, &s->cpus))
		printk("rtapp: %s: cpus %#llx no longer online; affinity unchanged\n", p->comm,
		       cpumask_bits(&s->cpus)[0]);
}

static void rt_thread_fn(void *arg)
{
	struct rt_thread *t = arg;
	struct rt_ctx *c = t->c;
	const struct rtapp_workload *w = c->w;
	const struct rtapp_task *task = &w->tasks[t->task];
	u64 mig0;

	barrier_wait(&c->start);
	if (c->abort)
		return;
	if (task->sched.policy == SCHED_DEADLINE && !cpumask_empty(&task->sched.cpus))
		apply_dl(current, &task->sched); /* started on its first CPU */
	mig0 = current->se.nr_migrations;
	sleep_until_ns(MIN(c->start_ns + task->delay_us * NSEC_PER_USEC, c->end_ns));
	for (s64 l = 0; (task->loop < 0 || l < task->loop) && !over(c); l++) {
		for (u32 p = task->first_phase; p < task->first_phase + task->nr_phases; p++) {
			const struct rtapp_phase *ph = &w->phases[p];

			apply_sched(current, &ph->sched, -1);
			for (s64 pl = 0; pl < ph->loop && !over(c); pl++) {
				u64 loop_start = arch_clock_ns();
				u32 e = ph->first_event;

				for (; e < ph->first_event + ph->nr_events; e++)
					do_event(t, &w->events[e], loop_start);
				t->st.loops++;
			}
		}
	}
	t->st.migrations = current->se.nr_migrations - mig0;
	t->st.runtime_ns = current->se.sum_exec_runtime;
}

/* A CPU list must name online CPUs: refused before anything starts. */
static int check_cpus(const struct rtapp_sched *s, const char *task)
{
	cpumask_t bad;

	if (!cpumask_andnot(&bad, &s->cpus, cpu_online_mask))
		return 0;
	printk("rtapp: %u:%u: task \"%s\": cpus names CPU%d, which is not online "
	       "(online: %u CPUs, 0-%u)\n",
	       s->cpus_line, s->cpus_col, task, cpumask_first(&bad), num_online_cpus(),
	       num_online_cpus() - 1);
	return -1;
}

static int check_machine(const struct rtapp_workload *w)
{
	for (u32 i = 0; i < w->nr_tasks; i++) {
		const struct rtapp_task *t = &w->tasks[i];

		if (check_cpus(&t->sched, t->name))
			return -1;
		for (u32 p = t->first_phase; p < t->first_phase + t->nr_phases; p++)
			if (check_cpus(&w->phases[p].sched, t->name))
				return -1;
	}
	return 0;
}

/* "run" is microseconds of work at the calibration CPU's top speed (rt-app
 * calibrates its loop there): work units are ns at 1024, so scale by its
 * capacity. Without a calibration CPU, the biggest CPU's. */
static u64 run_scale(const struct rtapp_workload *w)
{
	if (w->calib_cpu >= 0 && (unsigned int)w->calib_cpu < nr_cpu_ids)
		return 1000 * capacity_orig_of((unsigned int)w->calib_cpu);
	return 1000 * 1024;
}

static u32 create_threads(struct rt_ctx *c)
{
	const struct rtapp_workload *w = c->w;
	u32 n = 0;

	for (u32 i = 0; i < w->nr_tasks; i++) {
		const struct rtapp_task *task = &w->tasks[i];

		for (u32 k = 0; k < task->instance; k++) {
			struct rt_thread *t = &c->th[n];
			char comm[TASK_COMM_LEN];

			t->c = c;
			t->task = i;
			for (u32 r = 0; r < RTAPP_MAX_REFS; r++)
				spin_lock_init(&t->own[r].lock);
			ksnprintf(comm, sizeof(comm), task->instance > 1 ? "%s-%u" : "%s",
				  task->name, k);
			t->ts = kthread_create(rt_thread_fn, t, comm);
			if (!t->ts) {
				printk("rtapp: out of memory for thread %u\n", n);
				c->abort = true;
				return n;
			}
			apply_sched(t->ts, &task->sched, w->default_policy);
			t->ts->cache.ws_kib = rtapp_ws_kib(w, task);
			n++;
		}
	}
	return n;
}

int rtapp_run(const struct rtapp_workload *w, struct rtapp_result *r)
{
	struct rt_ctx *c;
	bool aborted;

	if (check_machine(w))
		return -1;
	c = kzalloc(sizeof(*c));
	if (!c) {
		printk("rtapp: out of memory\n");
		return -1;
	}
	c->w = w;
	c->run_scale = run_scale(w);
	c->end_ns = ~0ull;
	for (u32 i = 0; i < RTAPP_MAX_REFS; i++) {
		mutex_init(&c->mutexes[i]);
		spin_lock_init(&c->timers[i].lock);
	}
	c->nr_threads = create_threads(c);
	barrier_init(&c->start, c->nr_threads + 1);
	for (u32 i = 0; i < c->nr_threads; i++)
		wake_up_new_task(c->th[i].ts);
	c->start_ns = arch_clock_ns();
	if (w->duration_s > 0)
		c->end_ns = c->start_ns + (u64)w->duration_s * NSEC_PER_SEC;
	barrier_wait(&c->start);
	for (u32 i = 0; i < c->nr_threads; i++)
		kthread_join(c->th[i].ts);
	*r = (struct rtapp_result){ .nr_tasks = w->nr_tasks, .ns = arch_clock_ns() - c->start_ns };
	for (u32 i = 0; i < c->nr_threads; i++) {
		struct rtapp_task_stats *s = &r->task[c->th[i].task], *t = &c->th[i].st;

		if (t->activations && (!s->activations || t->slack_min_ns < s->slack_min_ns))
			s->slack_min_ns = t->slack_min_ns;
		s->loops += t->loops;
		s->activations += t->activations;
		s->missed += t->missed;
		s->slack_sum_ns += t->slack_sum_ns;
		s->wu_lat_sum_ns += t->wu_lat_sum_ns;
		s->wu_lat_n += t->wu_lat_n;
		s->wu_lat_max_ns = MAX(s->wu_lat_max_ns, t->wu_lat_max_ns);
		s->migrations += t->migrations;
		s->runtime_ns += t->runtime_ns;
	}
	for (u32 i = 0; i < w->nr_tasks; i++) {
		const struct rtapp_sched *s = &w->tasks[i].sched;

		strlcpy_k(r->name[i], w->tasks[i].name, RTAPP_NAME_LEN);
		r->policy[i] = s->policy != RTAPP_UNSET ? s->policy : w->default_policy;
	}
	aborted = c->abort || bench_interrupted();
	kfree(c);
	return aborted ? -1 : 0;
}

/* ---- results ------------------------------------------------------------------------ */

static s64 div_s(s64 a, u64 b)
{
	return b ? (a < 0 ? -(s64)((u64)-a / b) : (s64)((u64)a / b)) : 0;
}

void rtapp_print(const struct rtapp_workload *w, const struct rtapp_result *r, const char *file)
{
	printk("rtapp %s: %llu ms, %u tasks; slack = period end - work end (< 0: missed)\n", file,
	       r->ns / NSEC_PER_MSEC, r->nr_tasks);
	printk("%-16s %-11s %4s %8s %11s %6s %9s %9s %9s %9s %10s\n", "task", "policy", "inst",
	       "loops", "activations", "missed", "slack_min", "slack_avg", "wu_lat", "wu_max",
	       "migrations");
	for (u32 i = 0; i < r->nr_tasks; i++) {
		const struct rtapp_task_stats *s = &r->task[i];
		s64 smin = div_s(s->slack_min_ns, 1000),
		    savg = div_s(s->slack_sum_ns, s->activations * 1000);
		u64 lat = s->wu_lat_n ? s->wu_lat_sum_ns / s->wu_lat_n / 1000 : 0;

		printk("%-16s %-11s %4u %8llu %11llu %6llu %9lld %9lld %9llu %9llu %10llu\n",
		       r->name[i], rtapp_policy_name(r->policy[i]), w->tasks[i].instance, s->loops,
		       s->activations, s->missed, smin, savg, lat, s->wu_lat_max_ns / 1000,
		       s->migrations);
		printk("RESULT rtapp_task file=%s task=%s policy=%s instances=%u loops=%llu "
		       "activations=%llu missed=%llu slack_min_us=%lld slack_avg_us=%lld "
		       "wu_lat_avg_us=%llu wu_lat_max_us=%llu migrations=%llu runtime_ms=%llu%s\n",
		       file, r->name[i], rtapp_policy_name(r->policy[i]), w->tasks[i].instance,
		       s->loops, s->activations, s->missed, smin, savg, lat,
		       s->wu_lat_max_ns / 1000, s->migrations, s->runtime_ns / NSEC_PER_MSEC,
		       bench_features());
	}
}

/* ---- where files come from -------------------------------------------------------- */

/* tools/gen_workloads.py: offsets from the table (no relocations). */
extern const u64 rtapp_wl_count;
extern const u64 rtapp_wl_table[][3]; /* name, text, length */

static struct rtapp_file builtin_at(u64 i)
{
	const char *base = (const char *)rtapp_wl_table;

	return (struct rtapp_file){ base + rtapp_wl_table[i][0], base + rtapp_wl_table[i][1],
				    rtapp_wl_table[i][2] };
}

const struct rtapp_file *rtapp_builtin(const char *name)
{
	static struct rtapp_file f[RTAPP_MAX_TASKS]; /* stable pointers, filled once */

	for (u64 i = 0; i < rtapp_wl_count && i < ARRAY_SIZE(f); i++) {
		f[i] = builtin_at(i);
		if (!strcmp(f[i].name, name))
			return &f[i];
	}
	return NULL;
}

void rtapp_list_builtin(void)
{
	printk("rtapp: built-in workloads (kernel/bench/workloads/):");
	for (u64 i = 0; i < rtapp_wl_count; i++)
		printk(" %s", builtin_at(i).name);
	printk("; or \"initrd\" for the file given with QEMU -initrd\n");
}

/* Load, parse and check one file: the workload in a new allocation, or NULL
 * after saying why. */
struct rtapp_workload *rtapp_load(const char *name)
{
	const struct rtapp_file *f = rtapp_builtin(name);
	struct rtapp_workload *w;
	struct rtapp_file initrd;

	if (!strcmp(name, "initrd")) {
		initrd.text = initrd_get(&initrd.len);
		if (!initrd.text) {
			printk("rtapp: no initrd (boot with QEMU -initrd FILE)\n");
			return NULL;
		}
		initrd.name = name;
		f = &initrd;
	}
	if (!f) {
		printk("rtapp: no workload \"%s\"\n", name);
		rtapp_list_builtin();
		return NULL;
	}
	w = kzalloc(sizeof(*w));
	if (!w) {
		printk("rtapp: out of memory\n");
		return NULL;
	}
	if (rtapp_parse(f->text, f->len, w)) {
		printk("rtapp: %s%s%s; refused, not started\n", name, w->err_line ? ":" : ": ",
		       w->error);
		kfree(w);
		return NULL;
	}
	for (u32 i = 0; i < MIN(w->nr_warn, (u32)RTAPP_MAX_WARN); i++)
		printk("rtapp: %s:%s\n", name, w->warn[i]);
	if (w->nr_warn > RTAPP_MAX_WARN)
		printk("rtapp: %s: %u more warnings\n", name, w->nr_warn - RTAPP_MAX_WARN);
	return w;
}

int rtapp_bench(const char *name, struct rtapp_result *r)
{
	struct rtapp_workload *w = rtapp_load(name);
	int err;

	if (!w)
		return -1;
	err = rtapp_run(w, r);
	if (!err)
		rtapp_print(w, r, name);
	else
		printk("rtapp: %s: refused, not started\n", name);
	kfree(w);
	return err;
}

int bench_rtapp(const char *spec)
{
	const char *p = spec + 5; /* after "rtapp" */
	struct rtapp_result *r;
	char name[RTAPP_NAME_LEN];
	size_t n = 0;
	int err;

	if (*p == ',')
		p++;
	if (!strncmp(p, "file=", 5))
		p += 5;
	for (; p[n] && p[n] != ','; n++)
		if (n + 1 == sizeof(name)) {
			printk("rtapp: file name too long\n");
			return -1;
		}
	if (!n) {
		rtapp_list_builtin();
		return 0;
	}
	strlcpy_k(name, p, n + 1);
	r = kzalloc(sizeof(*r));
	if (!r)
		return -1;
	err = rtapp_bench(name, r);
	kfree(r);
	return err;
}
