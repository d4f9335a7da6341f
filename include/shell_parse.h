/* shell_parse.h - the pure half of the console shell (kernel/shell/shell_parse.c):
 * the line editor as a state machine fed one key at a time, the tokenizer,
 * and the argument parsers, each printing what was wrong. No machine access
 * (the online mask is a parameter), so the host links it: the libFuzzer
 * target tests/fuzz/fuzz_shell.c. kernel/shell/ owns the commands. */
#ifndef SHELL_PARSE_H
#define SHELL_PARSE_H

#include "smp.h"
#include "types.h"

#define SHELL_LINE_MAX 128
#define SHELL_MAX_ARGS 16
#define SHELL_HISTORY  16

/* One line being typed, and the recent lines (the last SHELL_HISTORY of
 * history_len ever added). Echo and redraw go out through printk. */
struct line_editor {
	char line[SHELL_LINE_MAX];
	size_t n;	   /* characters in line */
	size_t cur;	   /* the cursor: characters before it (Left/Right move it) */
	bool overflow;	   /* a key did not fit: Enter refuses the line */
	int esc;	   /* 0, or 1/2 inside "ESC [" */
	unsigned int back; /* how far up the history Up has gone */
	char history[SHELL_HISTORY][SHELL_LINE_MAX];
	unsigned int history_len;
};

enum line_status { LINE_MORE, LINE_DONE, LINE_DROPPED };

void line_editor_start(struct line_editor *le); /* an empty line, history kept */
/* Backspace/DEL (before the cursor), Ctrl-U (kill line), Ctrl-C (drop line:
 * LINE_DROPPED), Up/Down (ESC [ A/B) through the history, Left/Right (ESC [ D/C)
 * move the cursor (keys insert there), Enter (LINE_DONE: le->line holds the
 * line; LINE_DROPPED with a message if keys were lost to a full line); other
 * control keys and escape sequences are ignored. */
enum line_status line_editor_feed(struct line_editor *le, int c);
void line_history_add(struct line_editor *le, const char *line); /* not twice in a row */
void line_history_print(const struct line_editor *le);

/* Split line in place at blanks: the word count, or -1 above SHELL_MAX_ARGS. */
int shell_split(char *line, char **argv);

/* Each returns false after printing what was wrong; *out is set only on success. */
bool parse_long(const char *what, const char *s, long min, long max, long *v);
bool parse_cpulist_of(const char *s, const cpumask_t *online, cpumask_t *mask); /* "0-3,6" */
bool parse_policy(const char *s, unsigned int *policy); /* normal batch idle fifo rr deadline */
const char *policy_name(unsigned int policy);
/* "all" or a policy number below nr: [*lo, *hi). */
bool parse_policies(const char *s, int nr, int *lo, int *hi);
/* arg is "key=VALUE": *val points at VALUE. */
bool shell_opt(const char *arg, const char *key, const char **val);

/* spawn NAME [work=US] [period=US] [nice=N] [policy=P] [prio=N] [cpus=LIST]
 * [runtime=US deadline=US] (policy=deadline: its reservation; the DL period
 * is period=, or deadline= when the task is CPU-bound) */
struct spawn_args {
	long work, period, nice, prio; /* us, us (0: CPU-bound), -20..19, 1..99 */
	long runtime, deadline;	       /* us, SCHED_DEADLINE only (0: unset) */
	long slice;		       /* us, a fair task's EEVDF request (0: base slice) */
	unsigned int policy;
	cpumask_t mask; /* cpus=, else every online CPU */
	bool cpus_given;
	long ws_kib; /* ws=KB: working set (kernel/sched/cache.c), 0: the default */
};
bool parse_spawn_args(int argc, char **argv, const cpumask_t *online, struct spawn_args *a);
/* top [-d MS] [-n COUNT]: *count -1 means until a key. */
bool parse_top_args(int argc, char **argv, long *delay, long *count);
/* run BENCH [k=v ...] | run experiment N [...]: the words after "run" (and
 * "experiment") joined by commas into spec; false when none or too long. */
bool parse_run_args(int argc, char **argv, char *spec, size_t size, bool *experiment);

#endif
