/* shell.c - the serial console shell the kernel boots to without "selftest": the
 * command table, `help`, reading a line (with the keys typed while a run went on) and
 * running it. The commands live by family: shell_tasks.c (ps, top, why, spawn, kill,
 * taskset, renice), shell_cpus.c (cpus, topology, cpu, domains, sched, features, eas,
 * sysctl, cpufreq, cpuidle, energy), shell_run.c (run, cgexec, trace), shell_cgroup.c
 * (cg*); the line editor, tokenizer and argument parsers are the pure shell_parse.c
 * (fuzzed on the host), the long `help CMD` texts shell_help.c. Runs in the init thread
 * only, so its state (history, typeahead) needs no lock. External input: a bad line gets
 * a message and the usage, never a BUG_ON. */
#include "console.h"
#include "bench.h"
#include "kernel.h"
#include "ktest.h"
#include "shell_help.h"
#include "shell_internal.h"
#include "shell_parse.h"
#include "timer.h"

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

void shell_keep_key(int c)
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

static int cmd_history(int argc, char **argv)
{
	if (argc != 1)
		return -1;
	line_history_print(&editor);
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
