/* shell_run.c - the console's `run`, `cgexec` and `trace`: a benchmark or experiment
 * (kernel/bench/) in a thread of its own while the shell watches the console for
 * Ctrl-C, and the scheduler trace's buffers (kernel/trace.c). Runs in the init thread
 * only (the shell), so no lock. */
#include "bench.h"
#include "console.h"
#include "kernel.h"
#include "mm.h"
#include "sched.h"
#include "shell_internal.h"
#include "shell_parse.h"
#include "timer.h"
#include "trace.h"

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
			shell_keep_key(c); /* for the next line */
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
int cmd_cgexec(int argc, char **argv)
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
int cmd_run(int argc, char **argv)
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

int cmd_trace(int argc, char **argv)
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