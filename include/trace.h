/* trace.h - scheduler tracepoints into per-CPU ring buffers (kernel/trace.c),
 * dumped in the text format of Linux's ftrace (/sys/kernel/tracing/trace)
 * with Linux's event and field names. Each tracepoint is one inline test of
 * trace_on when tracing is off; the host build (tests/host) compiles them
 * away. Events are recorded on the calling CPU with IRQs masked. */
#ifndef TRACE_H
#define TRACE_H

#include "pelt.h"
#include "types.h"

struct task_struct;

#define PWR_EVENT_EXIT 0xffffffffu /* Linux: cpu_idle state when leaving idle */

#ifdef HOST_BUILD
#define TRACEPOINT(name, proto, args)                                                              \
	static inline void trace_##name proto                                                      \
	{                                                                                          \
	}                                                                                          \
	static inline bool trace_##name##_enabled(void)                                            \
	{                                                                                          \
		return false;                                                                      \
	}
#else
extern bool trace_on;
#define TRACEPOINT(name, proto, args)                                                              \
	void __trace_##name proto;                                                                 \
	static inline void trace_##name proto                                                      \
	{                                                                                          \
		if (__builtin_expect(*(volatile bool *)&trace_on, 0))                              \
			__trace_##name args;                                                       \
	}                                                                                          \
	/* Linux: trace_NAME_enabled(), for work done only to feed the event */                    \
	static inline bool trace_##name##_enabled(void)                                            \
	{                                                                                          \
		return __builtin_expect(*(volatile bool *)&trace_on, 0);                           \
	}
#endif

TRACEPOINT(sched_switch,
	   (bool preempt, const struct task_struct *prev, const struct task_struct *next),
	   (preempt, prev, next))
TRACEPOINT(sched_wakeup, (const struct task_struct *p), (p))
TRACEPOINT(sched_wakeup_new, (const struct task_struct *p), (p))
TRACEPOINT(sched_migrate_task, (const struct task_struct *p, unsigned int dest_cpu), (p, dest_cpu))
TRACEPOINT(cpu_frequency, (u32 khz, unsigned int cpu), (khz, cpu))
TRACEPOINT(cpu_idle, (u32 state, unsigned int cpu), (state, cpu))
/* PELT samples (no Linux text format: these are bare tracepoints there,
 * pelt_cfs_tp and pelt_se_tp; the names and fields follow LISA's sched_tp). */
TRACEPOINT(sched_pelt_cfs, (unsigned int cpu, const struct sched_avg *avg), (cpu, avg))
TRACEPOINT(sched_pelt_se, (unsigned int cpu, const struct task_struct *p), (cpu, p))
/* EAS (kernel/sched/fair_energy.c): LISA's sched_overutilized, and one event per
 * find_energy_efficient_cpu() decision (the energy p adds on prev_cpu and on the best
 * other candidate; Linux has no such event, LISA's module names it sched_compute_energy). */
TRACEPOINT(sched_overutilized, (bool overutilized), (overutilized))
TRACEPOINT(sched_compute_energy,
	   (const struct task_struct *p, int prev_cpu, u64 prev_delta, int best_cpu,
	    u64 best_delta),
	   (p, prev_cpu, prev_delta, best_cpu, best_delta))

/* RT and DL push / pull (kernel/sched/rt.c, deadline.c): a queued task moved by its
 * class, not by the fair balancer; how is an enum why_move_kind (include/sched.h).
 * Linux has no such event (only sched_migrate_task, which follows it here too). */
TRACEPOINT(sched_push_pull,
	   (const struct task_struct *p, unsigned int src, unsigned int dst, int how),
	   (p, src, dst, how))

/* The refill a task's first run after a move (or a long absence) was charged
 * (kernel/sched/cache.c): from the L2 and from DRAM, in bytes, and the stall in ns.
 * Linux has no such event (a board just runs slower). */
TRACEPOINT(sched_cache_refill,
	   (const struct task_struct *p, int from, int to, u64 ns, u32 l2_bytes, u32 dram_bytes),
	   (p, from, to, ns, l2_bytes, dram_bytes))

/* EEVDF (sched=eevdf, kernel/sched/fair_eevdf.c): one entity's request on cpu's cfs_rq,
 * what = 'P' placed, 'D' new deadline (request served), 'W' wakeup preempts (V: the
 * cfs_rq's zero_vruntime, the average vruntime as last computed); at each pick 'K' the
 * picked entity and 'Q' every other queued one, against V as it is then (eevdf_trace_pick).
 * Linux has no such event: enough to draw each task's lag and deadline against V over time. */
struct sched_entity;
TRACEPOINT(sched_eevdf,
	   (unsigned int cpu, const struct sched_entity *se, char what, u64 V, bool eligible),
	   (cpu, se, what, V, eligible))

/* kernel/trace.c: the shell's `trace`. */
int trace_start(void);	    /* 0, or -1 when the buffers cannot be allocated */
int trace_start_fill(void); /* same, but a full buffer keeps its first events */
/* `trace start EVENTS`: only the events whose bits (trace_event_bit) are in mask. */
int trace_start_events(u32 mask);
int trace_event_bit(const char *name); /* -1: no such event */
const char *trace_event_name(int bit); /* NULL past the last event */
void trace_stop(void);
void trace_dump(void);			     /* between "# littlebig trace begin/end" markers */
void trace_dump_labelled(const char *label); /* "# littlebig trace begin LABEL" */
void trace_bench(void);			     /* the cost of a tracepoint, on and off */

#endif
