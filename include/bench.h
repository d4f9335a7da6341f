/* bench.h - benchmarks and experiments as kernel threads (kernel/bench/).
 * A spec is "name,key=value,...", as in the bootargs words
 *   bench=pipe,n=20000        bench=hackbench,g=2,l=10 (,w=units ,m=cpumask in decimal)
 *   bench=sysbench-threads,t=8,d=1,w=1000   bench=sysbench-cpu,t=1,d=2
 *   bench=tbench,c=2,d=1000,bg=8   (bg: the "video playing" background tasks)
 *   bench=rtapp,file=e5 (a built-in rt-app file, or file=initrd; docs/rtapp.md)
 *   bench=spin,t=4,ms=1000 (share of time on big CPUs)   bench=spin,up (ms to a big CPU)
 *   bench=crowd,t=1000,ms=200 (t never-blocking threads on one CPU: the cost per task)
 *   bench=pipe,n=100;spin,up  (several, in turn, each after a "bench: run SPEC" line)
 *   experiment=placement (spin 1/4/8, spin up, pipe: make test compares them with Linux)
 *   experiment=1 .. 5         experiment=1,short (KTAP direction check)
 *   experiment=overheads      ping-pong and hackbench under speed=work vs Linux (issue 21)
 * Each prints a table and `RESULT <kind> key=value ... features=...` lines
 * (docs/experiments.md, "Output convention"). */
#ifndef BENCH_H
#define BENCH_H

#include "types.h"

/* Both return 0 on success, -1 for an unknown name, a refused argument or
 * an interruption. */
int bench_run(const char *spec);
int experiment_run(const char *spec);

/* Ctrl-C of the shell's `run`: bench_interrupt(true) asks the running
 * benchmark to stop early; its threads see it at their next loop, end, and
 * are joined and freed by the benchmark as on a normal end, which then
 * prints what it gathered so far marked partial (pipe, hackbench, E1; not a RESULT
 * line) and returns -1. bench_interrupt(false) before a run clears it. */
void bench_interrupt(bool stop);
/* After each benchmark and experiment half: true (the default: benchmark and experiment
 * boots, whose lines the host tools parse) the per-CPU "RESULT energy" and "RESULT
 * cpuidle" lines; false (the shell's `run` without -r) one "totals" line instead. */
void bench_set_full_results(bool on);
/* The shell, before a run starts: 0 if spec names a benchmark (or, with
 * experiment, an experiment) and every key=value or flag is one it takes;
 * else a message and -1. bench_print_help(): each one's keys and defaults. */
int bench_check_spec(const char *spec, bool experiment);
void bench_print_help(void);
bool bench_interrupted(void);
bool spread_by_capacity(const unsigned int *count); /* per CPU id: the spread settled */
/* The shell, while a run goes on: once it has lasted a second of emulated time,
 * a progress line ("run: progress: PHASE ...") about every second and at each
 * new phase. start_ns: when the run started; *next_ns: 0 at first. */
void bench_progress_report(u64 start_ns, u64 *next_ns);

#endif
