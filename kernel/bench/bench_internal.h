/* bench_internal.h - what the benchmarks share inside kernel/bench/: argument
 * parsing from a spec, the feature list of RESULT lines, and each
 * benchmark's entry point with its results, so that experiments can run
 * them with a feature off and on and compare. */
#ifndef BENCH_INTERNAL_H
#define BENCH_INTERNAL_H

#include "cpumask.h"
#include "types.h"

/* The value of key in "name,k=v,k2=v2" (decimal), or def if absent. */
u64 bench_arg(const char *spec, const char *key, u64 def);
bool bench_flag(const char *spec, const char *key); /* "name,key" or key=1 */
/* " features=A,NO_B,..." for the flags the experiments toggle. */
const char *bench_features(void);
/* Called around each benchmark of bench_run(): the markers `make profile` counts between. */
void bench_profile_begin(void);
void bench_profile_end(void);

/* Interrupted (Ctrl-C): partial, loops the round trips done of `target`, ns their time. */
struct pipe_result {
	u64 loops, ns, migrations[2], target;
	int cpu_first[2], cpu_last[2]; /* each thread's CPU at its loop's start and end */
	bool partial;
};
int bench_pipe(u64 loops, struct pipe_result *r);
int bench_pipe_on(u64 loops, const cpumask_t *cpus, struct pipe_result *r);
/* E1's `perf stat -r` matrix pinned to the biggest CPUs (exp_e1_matrix.c). */
int experiment_e1_matrix(u64 runs, u64 loops);
void bench_pipe_print(const struct pipe_result *r);
/* One line "  LABEL: N of M round trips in S s: OPS ops/sec, migrations A + B" */
void bench_pipe_print_partial(const char *label, const struct pipe_result *r);
/* What a run has done so far, for the shell's progress lines (bench_progress_report()):
 * the phase (an experiment's half, else the benchmark's name) and done of total (0: none). */
void bench_progress(const char *phase, u64 done, u64 total);

/* Interrupted: delivered of the run's groups x 20 x 20 x loops messages (else all). */
struct hackbench_result {
	u64 groups, loops, ns, delivered;
};
/* work: emulated work units per message, for its writer and its reader. */
int bench_hackbench(u64 groups, u64 loops, u64 work, struct hackbench_result *r);
int bench_hackbench_on(u64 groups, u64 loops, u64 work, const cpumask_t *cpus,
		       struct hackbench_result *r);

struct sysbench_result {
	u64 threads, events, ns, min_events, max_events, lat_sum_ns;
};
/* work: emulated work units per yield (0: none). */
int bench_sysbench_threads(u64 threads, u64 locks, u64 yields, u64 work, u64 ms,
			   struct sysbench_result *r);
int bench_sysbench_cpu(u64 threads, u64 work_units, bool real, u64 ms, struct sysbench_result *r);
/* The same with every thread pinned to cpus (0: anywhere); E5 runs it beside rt-app. */
int bench_sysbench_cpu_on(u64 threads, u64 work_units, bool real, u64 ms, const cpumask_t *cpus,
			  struct sysbench_result *r);

/* bench_rtapp.c: "rtapp,file=NAME" or "rtapp,NAME" (no name: list the built-in files). */
int bench_rtapp(const char *spec);
int bench_crowd(const char *spec); /* bench_crowd.c */
/* bench_spin.c: "spin,t=N,ms=M" (share of time on big CPUs) or "spin,up" (first seen on
 * a big CPU after leaving cpu0); experiment=placement[,skip_up] runs them and the
 * ping-pong and judges them against Linux's figures (KTAP). */
int bench_spin(const char *spec);
int experiment_placement(bool skip_up);
/* bench_stress.c: "stress,n=THREADS,a=ALIVE,s=SEED[,oom]" (include/stress.h). */
int bench_stress(const char *spec);
/* exp_e5.c: E5, RT utilization tracking off and on (short: 2 s runs and KTAP checks). */
int experiment_e5(bool shortrun);
/* exp_eas.c: E6, EAS off and on on LISA's EAS workloads (short: two, KTAP checks). */
int experiment_e6(bool shortrun);
int experiment_overheads(void); /* exp_overheads.c */

/* Tracing an experiment's halves (trace_halves.c). experiment_run calls
 * experiment_trace_setup(spec) first; each experiment brackets each of its
 * off/on halves with experiment_half_begin("NO_FEATURE") ... _end(). With the
 * spec's "trace" flag (experiment=N,short,trace) begin starts fresh trace
 * buffers and end dumps them between "# littlebig trace begin EN LABEL" and
 * "# littlebig trace end EN LABEL: ..." (tools/trace.py picks each half);
 * without it both do nothing. Keep printing out of the bracket: the dump
 * is what the host reads. */
void experiment_trace_setup(const char *spec);
/* bench.c: the energy meter, cpuidle's statistics and the idle times restart now;
 * bench_meters_print(" bench=NAME") prints them since (bench_set_full_results()). */
void bench_meters_reset(void);
void bench_meters_print(const char *tag);
void experiment_half_begin(const char *label);
void experiment_half_end(void);

/* bench_tbench.c: c client/server pairs over pipes for ms of emulated time, beside
 * bg periodic "video" tasks (0: none); why: print each thread's `why` at the end. */
struct tbench_result {
	u64 clients, bg_tasks, ns, trips, bytes, migrations;
	u64 bounced; /* wakeup moves within the tick of the last placement */
};
int bench_tbench(u64 clients, u64 ms, u64 bg_tasks, bool why, struct tbench_result *r);
void bench_tbench_print(const struct tbench_result *r);

/* Experiments (experiments.c and exp_*.c): a KTAP result line numbered by *n,
 * and "+x.y %" of the change from -> to. */
void ktap_check(int *n, bool ok, const char *name);
int pct_change(u64 from, u64 to, char *buf, size_t size);
int experiment_e2(bool shortrun, bool why); /* why: each thread's `why` per run */
int experiment_e3(bool shortrun);
int experiment_e4(bool shortrun);

/* "x.yz" of a ratio in hundredths, for printk (no floating point in the kernel). */
#define FIX2(v) (unsigned long long)((v) / 100), (unsigned long long)((v) % 100)

#endif
