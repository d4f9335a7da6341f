/* shell_parse.c - the pure half of the console shell (include/shell_parse.h):
 * the line editor state machine, the tokenizer, and the argument parsers of
 * the commands. External input: every parser says what was wrong and
 * refuses; nothing here touches the machine, so the host fuzzes it
 * (tests/fuzz/fuzz_shell.c). State: the caller's line_editor (the shell
 * runs in one thread, so no lock). */
#include "kernel.h"
#include "sched.h"
#include "shell_parse.h"
#include "topology.h"

/* ---- line editing ------------------------------------------------------------------ */

void line_editor_start(struct line_editor *le)
{
	le->line[0] = '\0';
	le->n = 0;
	le->cur = 0;
	le->overflow = false;
	le->esc = 0;
	le->back = 0;
}

void line_history_add(struct line_editor *le, const char *line)
{
	if (le->history_len && !strcmp(le->history[(le->history_len - 1) % SHELL_HISTORY], line))
		return;
	strlcpy_k(le->history[le->history_len++ % SHELL_HISTORY], line, SHELL_LINE_MAX);
}

void line_history_print(const struct line_editor *le)
{
	unsigned int len = le->history_len;

	for (unsigned int i = len > SHELL_HISTORY ? len - SHELL_HISTORY : 0; i < len; i++)
		printk("%4u  %s\n", i + 1, le->history[i % SHELL_HISTORY]);
}

/* Replace the characters on screen with s, the cursor at its end. */
static void retype(struct line_editor *le, const char *s)
{
	for (; le->cur < le->n; le->cur++) /* to the end of the line first */
		printk("%c", le->line[le->cur]);
	while (le->n--)
		printk("\b \b");
	strlcpy_k(le->line, s, SHELL_LINE_MAX);
	printk("%s", le->line);
	le->n = le->cur = strlen(le->line);
	le->overflow = false;
}

/* Redraw from the cursor to the end (then `extra` blanks), the cursor back in place. */
static void redraw_tail(const struct line_editor *le, size_t extra)
{
	printk("%s%*s", le->line + le->cur, (int)extra, "");
	for (size_t i = le->cur; i < le->n + extra; i++)
		printk("\b");
}

static void insert_key(struct line_editor *le, char c)
{
	if (le->n + 1 >= SHELL_LINE_MAX) {
		le->overflow = true; /* refused at Enter, not cut silently */
		return;
	}
	memmove(le->line + le->cur + 1, le->line + le->cur, le->n - le->cur + 1);
	le->line[le->cur] = c;
	le->n++;
	printk("%c", c);
	le->cur++;
	redraw_tail(le, 0);
}

static void backspace(struct line_editor *le)
{
	memmove(le->line + le->cur - 1, le->line + le->cur, le->n - le->cur + 1);
	le->n--;
	le->cur--;
	printk("\b");
	redraw_tail(le, 1);
}

/* The rest of "ESC [ X": Up and Down walk the history, the rest is dropped. */
static void escape(struct line_editor *le, int c)
{
	if (le->esc == 1) {
		le->esc = c == '[' ? 2 : 0;
		return;
	}
	le->esc = 0;
	if (c == 'D' && le->cur > 0) {
		le->cur--;
		printk("\b");
		return;
	}
	if (c == 'C' && le->cur < le->n) {
		printk("%c", le->line[le->cur++]);
		return;
	}
	if (c == 'A' && le->back < le->history_len && le->back < SHELL_HISTORY)
		le->back++;
	else if (c == 'B' && le->back > 0)
		le->back--;
	else
		return;
	retype(le, le->back ? le->history[(le->history_len - le->back) % SHELL_HISTORY] : "");
}

enum line_status line_editor_feed(struct line_editor *le, int c)
{
	if (le->esc) {
		escape(le, c);
	} else if (c == '\r' || c == '\n') {
		printk("\n");
		le->line[le->n] = '\0';
		if (le->overflow) {
			printk("line too long: at most %d characters; not run\n",
			       SHELL_LINE_MAX - 1);
			return LINE_DROPPED;
		}
		return LINE_DONE;
	} else if (c == 0x1b) {
		le->esc = 1;
	} else if (c == 0x03) {
		printk("^C\n");
		return LINE_DROPPED;
	} else if (c == 0x15) {
		retype(le, "");
	} else if ((c == 0x7f || c == '\b') && le->cur) {
		backspace(le);
	} else if (c >= ' ' && c < 0x7f) {
		insert_key(le, (char)c);
	}
	return LINE_MORE;
}

int shell_split(char *p, char **argv)
{
	int argc = 0;

	for (;;) {
		while (*p == ' ' || *p == '\t')
			*p++ = '\0';
		if (!*p)
			return argc;
		if (argc == SHELL_MAX_ARGS)
			return -1;
		argv[argc++] = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
	}
}

/* ---- argument parsing: each says what was wrong ----------------------------------- */

bool parse_long(const char *what, const char *s, long min, long max, long *v)
{
	const char *p = s;
	bool neg = *p == '-';
	long x = 0;

	if (neg)
		p++;
	if (!*p)
		goto bad;
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || x > 100000000000L)
			goto bad;
		x = x * 10 + (*p - '0');
	}
	x = neg ? -x : x;
	if (x < min || x > max) {
		printk("%s %ld out of range %ld..%ld\n", what, x, min, max);
		return false;
	}
	*v = x;
	return true;
bad:
	printk("%s: '%s' is not a number\n", what, s);
	return false;
}

/* One "A" or "A-B" of a cpu list at *p, advanced past it; -1 if malformed. */
static int cpu_range(const char **p, long *a, long *b)
{
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return -1;
	for (*a = 0; *s >= '0' && *s <= '9' && *a < NR_CPUS;)
		*a = *a * 10 + (*s++ - '0');
	*b = *a;
	if (*s == '-') {
		s++;
		if (*s < '0' || *s > '9')
			return -1;
		for (*b = 0; *s >= '0' && *s <= '9' && *b < NR_CPUS;)
			*b = *b * 10 + (*s++ - '0');
	}
	*p = s;
	return *a >= NR_CPUS || *b >= NR_CPUS || *b < *a ? -1 : 0;
}

bool parse_cpulist_of(const char *s, const cpumask_t *online, cpumask_t *mask)
{
	cpumask_t m = { { 0 } }, off;
	const char *p = s;

	while (*p) {
		long a, b;

		if (cpu_range(&p, &a, &b))
			goto bad;
		for (long c = a; c <= b; c++)
			__cpumask_set_cpu((unsigned int)c, &m);
		if (*p == ',')
			p++;
		else if (*p)
			goto bad;
	}
	if (cpumask_empty(&m))
		goto bad;
	if (cpumask_andnot(&off, &m, online)) {
		char buf[128];

		topology_format_mask(buf, sizeof(buf), online);
		printk("cpu list '%s' names CPUs that are not online (online: %s)\n", s, buf);
		return false;
	}
	*mask = m;
	return true;
bad:
	printk("'%s' is not a cpu list (like 0-3,6)\n", s);
	return false;
}

const char *policy_name(unsigned int policy)
{
	switch (policy) {
	case SCHED_NORMAL:
		return "normal";
	case SCHED_FIFO:
		return "fifo";
	case SCHED_RR:
		return "rr";
	case SCHED_BATCH:
		return "batch";
	case SCHED_IDLE:
		return "idle";
	case SCHED_DEADLINE:
		return "deadline";
	}
	return "?";
}

bool parse_policy(const char *s, unsigned int *policy)
{
	static const unsigned int all[] = { SCHED_NORMAL, SCHED_FIFO, SCHED_RR,
					    SCHED_BATCH,  SCHED_IDLE, SCHED_DEADLINE };

	for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
		if (!strcmp(s, policy_name(all[i]))) {
			*policy = all[i];
			return true;
		}
	}
	printk("unknown policy '%s' (normal, batch, idle, fifo, rr, deadline)\n", s);
	return false;
}

bool parse_policies(const char *s, int nr, int *lo, int *hi)
{
	long p;

	if (!strcmp(s, "all")) {
		*lo = 0;
		*hi = nr;
		return true;
	}
	if (!parse_long("policy", s, 0, nr - 1, &p))
		return false;
	*lo = (int)p;
	*hi = (int)p + 1;
	return true;
}

bool shell_opt(const char *arg, const char *key, const char **val)
{
	size_t n = strlen(key);

	if (strncmp(arg, key, n) || arg[n] != '=')
		return false;
	*val = arg + n + 1;
	return true;
}

/* ---- whole commands' arguments -------------------------------------------------------- */

static bool spawn_arg(const char *arg, const cpumask_t *online, struct spawn_args *a)
{
	const char *v;

	if (shell_opt(arg, "work", &v))
		return parse_long("work (us)", v, 1, 10000000, &a->work);
	if (shell_opt(arg, "period", &v))
		return parse_long("period (us)", v, 0, 100000000, &a->period);
	if (shell_opt(arg, "nice", &v))
		return parse_long("nice", v, -20, 19, &a->nice);
	if (shell_opt(arg, "prio", &v))
		return parse_long("prio", v, 1, 99, &a->prio);
	if (shell_opt(arg, "policy", &v))
		return parse_policy(v, &a->policy);
	if (shell_opt(arg, "slice", &v))
		return parse_long("slice (us)", v, 100, 100000, &a->slice);
	if (shell_opt(arg, "runtime", &v))
		return parse_long("runtime (us)", v, 1, 4000000, &a->runtime);
	if (shell_opt(arg, "deadline", &v))
		return parse_long("deadline (us)", v, 1, 4000000, &a->deadline);
	if (shell_opt(arg, "ws", &v))
		return parse_long("ws (KiB)", v, 1, 1048576, &a->ws_kib);
	if (shell_opt(arg, "cpus", &v)) {
		a->cpus_given = true;
		return parse_cpulist_of(v, online, &a->mask);
	}
	printk("unknown option '%s'\n", arg);
	return false;
}

bool parse_spawn_args(int argc, char **argv, const cpumask_t *online, struct spawn_args *a)
{
	const char *v;

	*a = (struct spawn_args){
		.work = 1000, .prio = 1, .policy = SCHED_NORMAL, .mask = *online
	};
	if (argc < 2 || shell_opt(argv[1], "work", &v) || shell_opt(argv[1], "period", &v))
		return false; /* no NAME */
	for (int i = 2; i < argc; i++)
		if (!spawn_arg(argv[i], online, a))
			return false;
	if (a->period && a->period < a->work) {
		printk("period %ld us is shorter than work %ld us\n", a->period, a->work);
		return false;
	}
	if (a->policy != SCHED_DEADLINE && (a->runtime || a->deadline)) {
		printk("runtime= and deadline= are for policy=deadline\n");
		return false;
	}
	if (a->policy == SCHED_DEADLINE && (!a->runtime || (!a->deadline && !a->period))) {
		printk("policy=deadline needs runtime=US and deadline=US or period=US\n");
		return false;
	}
	return true;
}

bool parse_top_args(int argc, char **argv, long *delay, long *count)
{
	*delay = 1000;
	*count = -1;
	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			return false;
		if (!strcmp(argv[i], "-d")) {
			if (!parse_long("delay", argv[++i], 10, 60000, delay))
				return false;
		} else if (!strcmp(argv[i], "-n")) {
			if (!parse_long("count", argv[++i], 1, 100000, count))
				return false;
		} else {
			printk("unknown option '%s'\n", argv[i]);
			return false;
		}
	}
	return true;
}

bool parse_run_args(int argc, char **argv, char *spec, size_t size, bool *experiment)
{
	size_t n = 0;
	bool exp = argc > 2 && !strcmp(argv[1], "experiment");

	if (argc < 2 || !size)
		return false;
	spec[0] = '\0';
	for (int i = exp ? 2 : 1; i < argc && n < size; i++)
		n += (size_t)ksnprintf(spec + n, size - n, "%s%s", n ? "," : "", argv[i]);
	if (n >= size) {
		printk("run: arguments too long\n");
		return false;
	}
	*experiment = exp;
	return true;
}
