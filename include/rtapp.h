/* rtapp.h - rt-app's JSON workload format as a description (kernel/bench/rtapp_parse.c,
 * pure: no allocation, no globals, host-tested and fuzzed) and the engine that runs one
 * (kernel/bench/bench_rtapp.c: a thread per task instance, per-task statistics).
 * Units are rt-app's: microseconds for run/runtime/sleep/delay/period, seconds for
 * duration. Limits are fixed so that a description is one flat allocation. */
#ifndef RTAPP_H
#define RTAPP_H

#include "cpumask.h"
#include "types.h"

#define RTAPP_MAX_FILE	    (32 * 1024) /* bytes of JSON text */
#define RTAPP_MAX_TOKENS    4096
#define RTAPP_MAX_TASKS	    16
#define RTAPP_MAX_PHASES    64	/* over all tasks */
#define RTAPP_MAX_EVENTS    256 /* over all phases */
#define RTAPP_MAX_REFS	    32	/* distinct timer and mutex names */
#define RTAPP_MAX_INSTANCES 32	/* threads of one task */
#define RTAPP_MAX_THREADS   64	/* threads of the whole workload */
#define RTAPP_NAME_LEN	    24
#define RTAPP_MAX_WARN	    8
#define RTAPP_MSG_LEN	    128

enum rtapp_event_type {
	RTAPP_RUN,     /* emulated work: slower on a smaller or slower CPU */
	RTAPP_RUNTIME, /* wall time on the CPU, whatever its speed */
	RTAPP_SLEEP,
	RTAPP_TIMER, /* wait for the next period of a (maybe shared) timer */
	RTAPP_LOCK,
	RTAPP_UNLOCK,
	RTAPP_YIELD,
	RTAPP_MEM, /* bytes written into the thread's buffer: sets its working set */
};

#define RTAPP_UNSET (-1000) /* a scheduling attribute the file did not set */

/* Settable at task and at phase level; a phase's set values apply at its start. */
struct rtapp_sched {
	int policy;			/* SCHED_* or RTAPP_UNSET */
	int priority;			/* nice for SCHED_OTHER/BATCH/IDLE, 1..99 for RT */
	cpumask_t cpus;			/* affinity mask; empty = unset */
	u32 cpus_line, cpus_col;	/* where "cpus" is, to name it if the machine lacks one */
	int util_min, util_max;		/* 0..1024 or RTAPP_UNSET */
	char taskgroup[RTAPP_NAME_LEN]; /* rt-app's cpu-cgroup path ("/A/B"); "" = unset */
	/* SCHED_DEADLINE (rt-app's dl-runtime, dl-period, dl-deadline), us; 0 unset:
	 * the period defaults to the runtime, the deadline to the period (rt-app's) */
	u64 dl_runtime, dl_period, dl_deadline;
};

struct rtapp_event {
	u8 type;       /* enum rtapp_event_type */
	bool absolute; /* timer mode */
	u16 ref;       /* timer or mutex: index in refs[] */
	u64 usec;      /* run, runtime, sleep: duration; timer: period; mem: bytes */
};

struct rtapp_phase {
	u16 first_event, nr_events;
	s64 loop; /* >= 1 */
	struct rtapp_sched sched;
};

struct rtapp_task {
	char name[RTAPP_NAME_LEN];
	u32 instance;
	s64 loop; /* -1: until the workload's duration ends */
	u64 delay_us;
	struct rtapp_sched sched;
	u16 first_phase, nr_phases;
};

enum rtapp_ref_kind { RTAPP_REF_TIMER, RTAPP_REF_MUTEX };

/* A named resource. Timers named "unique..." are per thread (rt-app's rule);
 * any other name is one timer shared by every thread that uses it. */
struct rtapp_ref {
	char name[RTAPP_NAME_LEN];
	u8 kind;
	bool per_thread;
};

struct rtapp_workload {
	s64 duration_s; /* -1: until every task's loops are done */
	int calib_cpu;	/* "calibration": "CPUn" -> n; an integer -> -1 */
	int default_policy;
	u64 mem_buffer_size; /* global.mem_buffer_size, bytes (rt-app's default: 4 MiB) */
	u32 nr_tasks, nr_phases, nr_events, nr_refs;
	struct rtapp_task tasks[RTAPP_MAX_TASKS];
	struct rtapp_phase phases[RTAPP_MAX_PHASES];
	struct rtapp_event events[RTAPP_MAX_EVENTS];
	struct rtapp_ref refs[RTAPP_MAX_REFS];
	/* Warnings (unknown keys, ignored settings): the first RTAPP_MAX_WARN kept. */
	u32 nr_warn;
	char warn[RTAPP_MAX_WARN][RTAPP_MSG_LEN];
	/* The reason of a refusal, "LINE:COL: what" when it has a position. */
	char error[RTAPP_MSG_LEN];
	u32 err_line, err_col; /* 0 when the error has no position */
	/* Parser scratch: the text with comments blanked, and jsmn's tokens
	 * (4 ints each: type, start, end, size; checked against jsmntok_t). */
	char text[RTAPP_MAX_FILE + 1];
	int tok[RTAPP_MAX_TOKENS][4];
};

/* Parse len bytes of rt-app JSON into w (all of w is overwritten). Returns 0,
 * or -1 with w->error set. Accepted beyond strict JSON, as rt-app files are
 * written: comments, trailing commas, repeated or numbered event keys ("run",
 * "run1", "run" again), any key order. */
int rtapp_parse(const char *json, size_t len, struct rtapp_workload *w);
const char *rtapp_policy_name(int policy);
const char *rtapp_event_name(int type);

/* kernel/bench/bench_rtapp.c: the built-in workload files (kernel/bench/workloads/) */
struct rtapp_file {
	const char *name;
	const char *text;
	size_t len;
};
const struct rtapp_file *rtapp_builtin(const char *name); /* NULL if none */
void rtapp_list_builtin(void);

/* Load (built-in name or "initrd") and parse: a kzalloc'ed workload, or NULL
 * after printing why (with the file position). Warnings are printed. */
struct rtapp_workload *rtapp_load(const char *name);

/* Per task (summed over its instances) after a run. */
struct rtapp_task_stats {
	u64 loops, activations, missed;		    /* activation = a timer period ended */
	s64 slack_min_ns, slack_sum_ns;		    /* slack: period end - work end (< 0: missed) */
	u64 wu_lat_sum_ns, wu_lat_max_ns, wu_lat_n; /* timer expiry -> running again */
	u64 migrations, runtime_ns;
};

struct rtapp_result {
	u32 nr_tasks;
	char name[RTAPP_MAX_TASKS][RTAPP_NAME_LEN];
	int policy[RTAPP_MAX_TASKS];
	struct rtapp_task_stats task[RTAPP_MAX_TASKS];
	u64 ns; /* elapsed */
};

/* Run a parsed workload to its end; 0, or -1 (with a message) if it cannot
 * start on this machine (CPU list, too many threads, out of memory). */
int rtapp_run(const struct rtapp_workload *w, struct rtapp_result *r);
/* Table and RESULT rtapp_task lines. */
void rtapp_print(const struct rtapp_workload *w, const struct rtapp_result *r, const char *file);
/* "rtapp,file=NAME" / "NAME": load (initrd or built-in), parse, run, print. */
int rtapp_bench(const char *name, struct rtapp_result *r);

#endif
