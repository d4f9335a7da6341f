/* trace.c - the ring buffers behind include/trace.h: one per CPU, written
 * only by its CPU with IRQs masked (so no lock), overwritten oldest-first
 * when full (trace_start) or filled once and then dropping (trace_start_fill,
 * for experiments: the start of a run is kept, and the dump cuts every CPU at
 * the moment the first buffer filled), read by trace_dump() once stopped. Dumped in Linux
 * ftrace's text format (`comm-pid [cpu] flags timestamp: event: fields`) so
 * ftrace-text tools (Perfetto, trace-cmd's parsers, tools/trace.py) read it.
 * Not the tracepoints' placement (kernel/sched/) nor plotting (tools/). */
#include "arch_topology.h"
#include "cpufreq.h"
#include "kernel.h"
#include "mm.h"
#include "sched.h"
#include "trace.h"

/* Per CPU: 1 MiB, ~10900 events (8 MiB on an 8-CPU machine): a short
 * experiment's half fits (E1 short on qemu-bl44: 12100 events in all, at
 * most ~3000 on one CPU), a longer one is cut cleanly. Less when the CPUs'
 * buffers would take more than an eighth of RAM (64 CPUs in 512 MiB: 1 MiB
 * each; 256: 256 KiB), at least 64 KiB. Allocated at the first start, kept. */
#define TRACE_PAGES_MAX 256
#define TRACE_PAGES_MIN 16

enum trace_type {
	T_SWITCH,
	T_WAKEUP,
	T_WAKEUP_NEW,
	T_MIGRATE,
	T_FREQ,
	T_IDLE,
	T_PELT_CFS,
	T_PELT_SE,
	T_OVERUTIL,
	T_ENERGY,
	T_PUSH_PULL,
	T_CACHE,
	T_EEVDF,
	T_NR
};

/* The events' names, as printed in the dump and typed after `trace start`. */
static const char *const trace_names[T_NR] = {
	[T_SWITCH] = "sched_switch",	     [T_WAKEUP] = "sched_wakeup",
	[T_WAKEUP_NEW] = "sched_wakeup_new", [T_MIGRATE] = "sched_migrate_task",
	[T_FREQ] = "cpu_frequency",	     [T_IDLE] = "cpu_idle",
	[T_PELT_CFS] = "sched_pelt_cfs",     [T_PELT_SE] = "sched_pelt_se",
	[T_OVERUTIL] = "sched_overutilized", [T_ENERGY] = "sched_compute_energy",
	[T_PUSH_PULL] = "sched_push_pull",   [T_CACHE] = "sched_cache_refill",
	[T_EEVDF] = "sched_eevdf",
};

struct trace_task {
	char comm[TASK_COMM_LEN];
	int pid, prio;
};

struct trace_entry {
	u64 ts;
	u8 type, cpu;
	struct trace_task cur; /* the task running when it was recorded */
	union {
		struct {
			struct trace_task prev, next;
			char prev_state;
			bool preempt;
		} sw;
		struct {
			struct trace_task p;
			int cpu, dest; /* target_cpu, or orig_cpu/dest_cpu */
			int how;       /* sched_push_pull: enum why_move_kind */
		} wk;
		struct {
			u32 state, cpu;
		} pw;
		struct {
			struct trace_task p; /* pid -1: the CPU's cfs_rq */
			unsigned long load, util;
			u32 util_est;
		} pelt;
		struct {
			struct trace_task p;
			int prev, best; /* -1: none */
			u64 prev_delta, best_delta;
		} en;
		struct {
			struct trace_task p;
			int from, to;
			u64 ns;
			u32 l2, dram;
		} ca;
		struct {
			struct trace_task p; /* pid -1: a group's entity */
			s64 lag, vdl;	     /* V - vruntime, deadline - V (virtual ns) */
			u64 slice;
			char what;
			bool eligible;
		} ev;
	};
};

struct trace_buf {
	struct trace_entry *e;
	u64 head; /* events ever written; e[head % nr] is next */
};

bool trace_on;
static struct trace_buf bufs[NR_CPUS];
static unsigned int nr_entries;
static unsigned long trace_pages; /* per CPU, set by the first start() */
static bool fill_once;		  /* trace_start_fill(): drop instead of overwriting */
static u32 event_mask = ~0u;	  /* bit T_x: event x is recorded (Linux: events/X/enable) */
static u64 dropped[NR_CPUS];	  /* events refused by a full buffer in fill_once mode */

/* Linux shows idle as pid 0, swapper/N. */
static void task_id(struct trace_task *t, const struct task_struct *p, unsigned int cpu)
{
	if (p->is_idle) {
		ksnprintf(t->comm, sizeof(t->comm), "swapper/%u", cpu);
		t->pid = 0;
		t->prio = 120;
		return;
	}
	memcpy(t->comm, p->comm, sizeof(t->comm));
	t->pid = p->pid;
	t->prio = p->prio;
}

/* A slot on this CPU, IRQs masked until trace_put(). */
static struct trace_entry *trace_get(enum trace_type type, unsigned long *flags)
{
	struct trace_buf *b;
	struct trace_entry *e;
	unsigned int cpu;

	*flags = arch_irq_save();
	cpu = arch_cpu_id();
	b = &bufs[cpu];
	if (!(event_mask & (1u << type))) {
		arch_irq_restore(*flags);
		return NULL;
	}
	if (!b->e || !READ_ONCE(trace_on) || (fill_once && b->head >= nr_entries)) {
		if (b->e && READ_ONCE(trace_on))
			dropped[cpu]++;
		arch_irq_restore(*flags);
		return NULL;
	}
	e = &b->e[b->head % nr_entries];
	e->ts = arch_clock_ns();
	e->type = (u8)type;
	e->cpu = (u8)cpu;
	task_id(&e->cur, current, cpu);
	return e;
}

static void trace_put(unsigned long flags)
{
	bufs[arch_cpu_id()].head++;
	arch_irq_restore(flags);
}

void __trace_sched_switch(bool preempt, const struct task_struct *prev,
			  const struct task_struct *next)
{
	unsigned long flags;
	struct trace_entry *e = trace_get(T_SWITCH, &flags);

	if (!e)
		return;
	task_id(&e->sw.prev, prev, e->cpu);
	task_id(&e->sw.next, next, e->cpu);
	e->sw.preempt = preempt;
	e->sw.prev_state = prev->state == TASK_INTERRUPTIBLE && !preempt ? 'S'
			   : prev->state == TASK_DEAD			 ? 'X'
									 : 'R';
	trace_put(flags);
}

static void trace_wake(enum trace_type type, const struct task_struct *p, int cpu, int dest)
{
	unsigned long flags;
	struct trace_entry *e = trace_get(type, &flags);

	if (!e)
		return;
	task_id(&e->wk.p, p, (unsigned int)cpu);
	e->wk.cpu = cpu;
	e->wk.dest = dest;
	trace_put(flags);
}

void __trace_sched_wakeup(const struct task_struct *p)
{
	trace_wake(T_WAKEUP, p, p->cpu, p->cpu);
}

void __trace_sched_wakeup_new(const struct task_struct *p)
{
	trace_wake(T_WAKEUP_NEW, p, p->cpu, p->cpu);
}

void __trace_sched_migrate_task(const struct task_struct *p, unsigned int dest_cpu)
{
	trace_wake(T_MIGRATE, p, p->cpu, (int)dest_cpu);
}

void __trace_sched_push_pull(const struct task_struct *p, unsigned int src, unsigned int dst,
			     int how)
{
	unsigned long flags;
	struct trace_entry *e = trace_get(T_PUSH_PULL, &flags);

	if (!e)
		return;
	task_id(&e->wk.p, p, src);
	e->wk.cpu = (int)src;
	e->wk.dest = (int)dst;
	e->wk.how = how;
	trace_put(flags);
}

void __trace_sched_cache_refill(const struct task_struct *p, int from, int to, u64 ns, u32 l2_bytes,
				u32 dram_bytes)
{
	unsigned long flags;
	struct trace_entry *e = trace_get(T_CACHE, &flags);

	if (!e)
		return;
	task_id(&e->ca.p, p, (unsigned int)to);
	e->ca.from = from;
	e->ca.to = to;
	e->ca.ns = ns;
	e->ca.l2 = l2_bytes;
	e->ca.dram = dram_bytes;
	trace_put(flags);
}

void __trace_sched_eevdf(unsigned int cpu, const struct sched_entity *se, char what, u64 V,
			 bool eligible)
{
	unsigned long flags;
	struct trace_entry *e = trace_get(T_EEVDF, &flags);

	if (!e)
		return;
	if (se->my_q) {
		ksnprintf(e->ev.p.comm, sizeof(e->ev.p.comm), "group");
		e->ev.p.pid = -1;
		e->ev.p.prio = 0;
	} else {
		task_id(&e->ev.p, container_of(se, struct task_struct, se), cpu);
	}
	e->ev.lag = (s64)(V - se->vruntime);
	e->ev.vdl = (s64)(se->deadline - V);
	e->ev.slice = se->slice;
	e->ev.what = what;
	e->ev.eligible = eligible;
	trace_put(flags);
}

static void trace_power(enum trace_type type, u32 state, unsigned int cpu)
{
	unsigned long flags;
	struct trace_entry *e = trace_get(type, &flags);

	if (!e)
		return;
	e->pw.state = state;
	e->pw.cpu = cpu;
	trace_put(flags);
}

void __trace_cpu_frequency(u32 khz, unsigned int cpu)
{
	trace_power(T_FREQ, khz, cpu);
}

void __trace_cpu_idle(u32 state, unsigned int cpu)
{
	trace_power(T_IDLE, state, cpu);
}

void __trace_sched_overutilized(bool overutilized)
{
	trace_power(T_OVERUTIL, overutilized, 0);
}

void __trace_sched_compute_energy(const struct task_struct *p, int prev_cpu, u64 prev_delta,
				  int best_cpu, u64 best_delta)
{
	unsigned long flags;
	struct trace_entry *e = trace_get(T_ENERGY, &flags);

	if (!e)
		return;
	task_id(&e->en.p, p, (unsigned int)p->cpu);
	e->en.prev = prev_cpu;
	e->en.best = best_cpu;
	e->en.prev_delta = prev_delta;
	e->en.best_delta = best_delta;
	trace_put(flags);
}

static void trace_pelt(const struct task_struct *p, unsigned int cpu, const struct sched_avg *a)
{
	unsigned long flags;
	struct trace_entry *e = trace_get(p ? T_PELT_SE : T_PELT_CFS, &flags);

	if (!e)
		return;
	if (p)
		task_id(&e->pelt.p, p, cpu);
	else
		e->pelt.p.pid = -1;
	e->pelt.load = a->load_avg;
	e->pelt.util = a->util_avg;
	e->pelt.util_est = MAX(a->util_est.ewma, a->util_est.enqueued & ~UTIL_AVG_UNCHANGED);
	trace_put(flags);
}

void __trace_sched_pelt_cfs(unsigned int cpu, const struct sched_avg *avg)
{
	trace_pelt(NULL, cpu, avg);
}

void __trace_sched_pelt_se(unsigned int cpu, const struct task_struct *p)
{
	if (!p->is_idle)
		trace_pelt(p, cpu, &p->se.avg);
}

/* ---- control and output -------------------------------------------------------------- */

static int start(bool once, u32 mask)
{
	unsigned int cpu;

	trace_stop();
	event_mask = mask;
	if (!trace_pages) /* once: buffers keep their size */
		trace_pages =
			MAX(TRACE_PAGES_MIN, MIN(TRACE_PAGES_MAX, page_alloc_total_count() / 8 /
									  MAX(nr_cpu_ids, 1)));
	nr_entries = (unsigned int)(trace_pages * PAGE_SIZE / sizeof(struct trace_entry));
	for_each_cpu(cpu, cpu_online_mask) {
		if (!bufs[cpu].e)
			bufs[cpu].e = alloc_pages(trace_pages);
		if (!bufs[cpu].e)
			return -1;
		bufs[cpu].head = 0;
		dropped[cpu] = 0;
	}
	fill_once = once;
	__atomic_store_n(&trace_on, true, __ATOMIC_RELEASE);
	/* Each CPU's frequency as the trace starts (Linux records changes only;
	 * a timeline needs the level it starts from). */
	for_each_cpu(cpu, cpu_online_mask)
		if (cpufreq_policy_of(cpu) >= 0)
			__trace_cpu_frequency(cpufreq_cur_freq(cpufreq_policy_of(cpu)), cpu);
	return 0;
}

int trace_start(void)
{
	return start(false, ~0u);
}

int trace_start_fill(void)
{
	return start(true, ~0u);
}

int trace_event_bit(const char *name)
{
	for (int i = 0; i < T_NR; i++)
		if (!strcmp(trace_names[i], name))
			return i;
	return -1;
}

const char *trace_event_name(int bit)
{
	return bit >= 0 && bit < T_NR ? trace_names[bit] : NULL;
}

int trace_start_events(u32 mask)
{
	return start(false, mask);
}

void trace_stop(void)
{
	__atomic_store_n(&trace_on, false, __ATOMIC_RELEASE);
}

static void print_entry(const struct trace_entry *e)
{
	char head[64], body[192];
	const char *name = e->type < T_NR ? trace_names[e->type] : "?";

	if (e->cur.pid == 0)
		ksnprintf(head, sizeof(head), "%16s-%-7d", "<idle>", 0);
	else
		ksnprintf(head, sizeof(head), "%16s-%-7d", e->cur.comm, e->cur.pid);
	switch (e->type) {
	case T_SWITCH:
		ksnprintf(body, sizeof(body),
			  "prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%c%s ==> "
			  "next_comm=%s next_pid=%d next_prio=%d",
			  e->sw.prev.comm, e->sw.prev.pid, e->sw.prev.prio, e->sw.prev_state,
			  e->sw.preempt && e->sw.prev_state == 'R' ? "+" : "", e->sw.next.comm,
			  e->sw.next.pid, e->sw.next.prio);
		break;
	case T_WAKEUP:
	case T_WAKEUP_NEW:
		ksnprintf(body, sizeof(body), "comm=%s pid=%d prio=%d target_cpu=%03d",
			  e->wk.p.comm, e->wk.p.pid, e->wk.p.prio, e->wk.cpu);
		break;
	case T_MIGRATE:
		ksnprintf(body, sizeof(body), "comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d",
			  e->wk.p.comm, e->wk.p.pid, e->wk.p.prio, e->wk.cpu, e->wk.dest);
		break;
	case T_PUSH_PULL:
		ksnprintf(body, sizeof(body),
			  "comm=%s pid=%d prio=%d class=%s how=%s orig_cpu=%d dest_cpu=%d",
			  e->wk.p.comm, e->wk.p.pid, e->wk.p.prio,
			  e->wk.how >= WHY_MOVE_DL_PUSH ? "dl" : "rt",
			  e->wk.how == WHY_MOVE_RT_PULL || e->wk.how == WHY_MOVE_DL_PULL ? "pull"
											 : "push",
			  e->wk.cpu, e->wk.dest);
		break;
	case T_CACHE:
		ksnprintf(body, sizeof(body),
			  "comm=%s pid=%d prio=%d orig_cpu=%d dest_cpu=%d stall_ns=%llu "
			  "l2_bytes=%u dram_bytes=%u",
			  e->ca.p.comm, e->ca.p.pid, e->ca.p.prio, e->ca.from, e->ca.to,
			  (unsigned long long)e->ca.ns, e->ca.l2, e->ca.dram);
		break;
	case T_FREQ:
	case T_IDLE:
		ksnprintf(body, sizeof(body), "state=%u cpu_id=%u", e->pw.state, e->pw.cpu);
		break;
	case T_PELT_CFS:
		ksnprintf(body, sizeof(body), "cpu=%u path=/ load=%lu util=%lu util_est=%u",
			  (unsigned int)e->cpu, e->pelt.load, e->pelt.util, e->pelt.util_est);
		break;
	case T_PELT_SE:
		ksnprintf(body, sizeof(body),
			  "cpu=%u path=(null) comm=%s pid=%d load=%lu util=%lu util_est=%u",
			  (unsigned int)e->cpu, e->pelt.p.comm, e->pelt.p.pid, e->pelt.load,
			  e->pelt.util, e->pelt.util_est);
		break;
	case T_OVERUTIL: /* LISA: sched_overutilized overutilized= span= */
		ksnprintf(body, sizeof(body), "overutilized=%u span=0-%u", e->pw.state,
			  nr_cpu_ids - 1);
		break;
	case T_EEVDF:
		ksnprintf(body, sizeof(body),
			  "comm=%s pid=%d ev=%s vlag=%lld vdeadline=%lld slice=%llu eligible=%d",
			  e->ev.p.comm, e->ev.p.pid,
			  e->ev.what == 'P'   ? "place"
			  : e->ev.what == 'D' ? "deadline"
			  : e->ev.what == 'K' ? "pick"
			  : e->ev.what == 'Q' ? "queued"
					      : "preempt",
			  (long long)e->ev.lag, (long long)e->ev.vdl,
			  (unsigned long long)e->ev.slice, e->ev.eligible);
		break;
	case T_ENERGY: /* ~0: that candidate was not evaluated */
		ksnprintf(body, sizeof(body),
			  "comm=%s pid=%d prev_cpu=%d prev_energy=%lld dst_cpu=%d energy=%lld",
			  e->en.p.comm, e->en.p.pid, e->en.prev, (long long)e->en.prev_delta,
			  e->en.best, (long long)e->en.best_delta);
		break;
	}
	printk("%s [%03u] d..2. %5llu.%06llu: %s: %s\n", head, (unsigned int)e->cpu,
	       e->ts / NSEC_PER_SEC, e->ts / NSEC_PER_USEC % 1000000, name, body);
}

/* In fill-once mode, the time up to which every CPU's events are complete:
 * the last event of the first buffer to fill (U64_MAX if none filled). */
static u64 fill_cut(unsigned int *full_cpu)
{
	u64 cut = ~0ull;
	unsigned int cpu;

	for_each_cpu(cpu, cpu_online_mask) {
		const struct trace_buf *b = &bufs[cpu];

		if (fill_once && b->e && b->head >= nr_entries && b->e[nr_entries - 1].ts < cut) {
			cut = b->e[nr_entries - 1].ts;
			*full_cpu = cpu;
		}
	}
	return cut;
}

/* All CPUs' buffers merged in time order (each is already in order), between
 * "# littlebig trace begin[ LABEL]" and "# littlebig trace end[ LABEL]: ...". */
void trace_dump_labelled(const char *label)
{
	u64 pos[NR_CPUS], end[NR_CPUS], total = 0, lost = 0, cut, cut_off = 0;
	unsigned int cpu, full_cpu = 0;
	const char *sp = label ? " " : "";

	label = label ? label : "";
	trace_stop();
	if (!topology_printed()) /* tools/trace.py reads capacities and OPPs from it */
		topology_print(&cpu_topology);
	cut = fill_cut(&full_cpu);
	for_each_cpu(cpu, cpu_online_mask) {
		struct trace_buf *b = &bufs[cpu];

		end[cpu] = b->e ? b->head : 0; /* fill-once: never past nr_entries */
		pos[cpu] = end[cpu] > nr_entries ? end[cpu] - nr_entries : 0;
		lost += pos[cpu];
		cut_off += dropped[cpu];
	}
	printk("# littlebig trace begin%s%s\n# tracer: nop\n#\n"
	       "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
	       "#              | |         |   |||||     |         |\n",
	       sp, label);
	for (;;) {
		int best = -1;

		for_each_cpu(cpu, cpu_online_mask)
			if (pos[cpu] < end[cpu] &&
			    (best < 0 || bufs[cpu].e[pos[cpu] % nr_entries].ts <
						 bufs[best].e[pos[best] % nr_entries].ts))
				best = (int)cpu;
		if (best < 0)
			break;
		if (bufs[best].e[pos[best] % nr_entries].ts > cut) {
			pos[best]++; /* after the cut: another CPU's events are missing */
			cut_off++;
			continue;
		}
		print_entry(&bufs[best].e[pos[best]++ % nr_entries]);
		total++;
	}
	if (cut != ~0ull)
		printk("# littlebig trace truncated at %llu.%06llu: cpu%u's buffer (%u events) "
		       "filled; %llu later events dropped on all CPUs\n",
		       cut / NSEC_PER_SEC, cut / NSEC_PER_USEC % 1000000, full_cpu, nr_entries,
		       cut_off);
	printk("# littlebig trace end%s%s: %llu events, %llu overwritten%s\n", sp, label, total,
	       lost, cut != ~0ull ? ", truncated" : "");
}

void trace_dump(void)
{
	trace_dump_labelled(NULL);
}

/* The cost of one tracepoint: N calls with tracing off (the inline test) and
 * on (a record written). Under QEMU -icount shift=0 one emulated ns is one
 * instruction. */
void trace_bench(void)
{
	const int n = 10000;
	bool was_on = trace_on;
	u32 was_mask = event_mask;
	u64 t0, t1, t2;

	if (!bufs[arch_cpu_id()].e && trace_start()) {
		printk("trace: no memory for the buffers\n");
		return;
	}
	trace_stop();
	t0 = arch_clock_ns();
	for (int i = 0; i < n; i++)
		trace_sched_wakeup(current);
	t1 = arch_clock_ns();
	event_mask = ~0u; /* measure a recorded event even after `trace start cpu_idle` */
	__atomic_store_n(&trace_on, true, __ATOMIC_RELEASE);
	for (int i = 0; i < n; i++)
		trace_sched_wakeup(current);
	t2 = arch_clock_ns();
	trace_on = was_on;
	event_mask = was_mask;
	printk("trace: sched_wakeup tracepoint: off %llu ns/call, on %llu ns/event (%d calls)\n",
	       (t1 - t0) / (u64)n, (t2 - t1) / (u64)n, n);
}
