/* rtapp_parse.c - rt-app JSON text -> struct rtapp_workload (include/rtapp.h).
 * Pure: no allocation (the caller's workload holds the scratch), no globals,
 * no locks, no libc beyond the compiler's; the host unit tests and
 * tests/fuzz/fuzz_rtapp.c link exactly this file. Tokenizing is jsmn's (Debian
 * libjsmn-dev, non-strict mode, which also lets trailing commas through);
 * everything jsmn lets through that is not JSON is checked here. */
#include "rtapp.h"
#include "printk.h"

#define JSMN_STATIC
#include <jsmn.h>

_Static_assert(sizeof(jsmntok_t) == sizeof(((struct rtapp_workload *)0)->tok[0]),
	       "rtapp_workload.tok must hold jsmn tokens");

/* Linux's policy numbers (include/sched.h), repeated so the parser stays pure. */
enum { P_OTHER = 0, P_FIFO = 1, P_RR = 2, P_BATCH = 3, P_IDLE = 5, P_DEADLINE = 6 };

struct ps {
	struct rtapp_workload *w;
	const char *js;
	const jsmntok_t *t;
	int n; /* tokens */
};

/* ---- positions and messages ------------------------------------------------------- */

/* Line and column (from 1) of byte off; a string token's position is its
 * opening quote (jsmn's start is the byte after it). */
static void pos_of(const char *js, int off, u32 *line, u32 *col)
{
	if (off > 0 && js[off - 1] == '"')
		off--;
	*line = 1;
	*col = 1;
	for (int i = 0; i < off; i++) {
		if (js[i] == '\n') {
			++*line;
			*col = 1;
		} else {
			++*col;
		}
	}
}

static int __attribute__((format(printf, 3, 4)))
fail_at(struct ps *p, int off, const char *fmt, ...)
{
	struct rtapp_workload *w = p->w;
	va_list ap;
	int n = 0;

	if (off >= 0) {
		pos_of(p->js, off, &w->err_line, &w->err_col);
		n = ksnprintf(w->error, sizeof(w->error), "%u:%u: ", w->err_line, w->err_col);
	}
	va_start(ap, fmt);
	kvsnprintf(w->error + n, sizeof(w->error) - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static void __attribute__((format(printf, 3, 4)))
warn_at(struct ps *p, int off, const char *fmt, ...)
{
	struct rtapp_workload *w = p->w;
	va_list ap;
	u32 line, col;
	int n;

	if (w->nr_warn++ >= RTAPP_MAX_WARN)
		return;
	pos_of(p->js, off, &line, &col);
	n = ksnprintf(w->warn[w->nr_warn - 1], RTAPP_MSG_LEN, "%u:%u: ", line, col);
	va_start(ap, fmt);
	kvsnprintf(w->warn[w->nr_warn - 1] + n, RTAPP_MSG_LEN - (size_t)n, fmt, ap);
	va_end(ap);
}

/* ---- tokens ------------------------------------------------------------------------ */

static int tlen(const jsmntok_t *t)
{
	return t->end - t->start;
}

static bool tok_is(struct ps *p, int i, const char *s)
{
	const jsmntok_t *t = &p->t[i];
	int k = 0;

	for (; s[k]; k++)
		if (k >= tlen(t) || p->js[t->start + k] != s[k])
			return false;
	return k == tlen(t);
}

static bool tok_prefix(struct ps *p, int i, const char *s)
{
	const jsmntok_t *t = &p->t[i];

	for (int k = 0; s[k]; k++)
		if (k >= tlen(t) || p->js[t->start + k] != s[k])
			return false;
	return true;
}

/* The index after token i and its subtree (a key's subtree is its value).
 * Iterative: the nesting depth is the file's, the kernel stack is small. */
static int skip(struct ps *p, int i)
{
	for (int pending = 1; pending && i < p->n; i++)
		pending += p->t[i].size - 1;
	return i;
}

/* Copy a string token (escapes kept verbatim: names are identifiers). */
static int tok_name(struct ps *p, int i, char *out, const char *what)
{
	const jsmntok_t *t = &p->t[i];

	if (t->type != JSMN_STRING)
		return fail_at(p, t->start, "%s must be a string", what);
	if (tlen(t) == 0 || tlen(t) >= RTAPP_NAME_LEN)
		return fail_at(p, t->start, "%s must be 1..%d characters", what,
			       RTAPP_NAME_LEN - 1);
	for (int k = 0; k < tlen(t); k++)
		out[k] = p->js[t->start + k];
	out[tlen(t)] = '\0';
	return 0;
}

static int tok_int(struct ps *p, int i, s64 lo, s64 hi, s64 *out, const char *what)
{
	const jsmntok_t *t = &p->t[i];
	const char *s = p->js + t->start;
	int k = 0, len = tlen(t);
	bool neg = false;
	u64 v = 0;

	if (t->type != JSMN_PRIMITIVE)
		return fail_at(p, t->start, "%s must be an integer", what);
	if (len && s[0] == '-') {
		neg = true;
		k = 1;
	}
	if (k == len)
		return fail_at(p, t->start, "%s must be an integer", what);
	for (; k < len; k++) {
		if (s[k] < '0' || s[k] > '9')
			return fail_at(p, t->start, "%s must be an integer, not \"%.*s\"", what,
				       len, s);
		v = v * 10 + (u64)(s[k] - '0');
		if (v > (1ull << 53))
			return fail_at(p, t->start, "%s is out of range", what);
	}
	*out = neg ? -(s64)v : (s64)v;
	if (*out < lo || *out > hi)
		return fail_at(p, t->start, "%s %lld is out of range %lld..%lld", what, *out, lo,
			       hi);
	return 0;
}

/* jsmn (non-strict) takes any bare word as a primitive: only JSON's are values. */
static int check_primitive(struct ps *p, int i)
{
	const char *s = p->js + p->t[i].start;
	int len = tlen(&p->t[i]), k = 0, digits = 0;

	if (tok_is(p, i, "true") || tok_is(p, i, "false") || tok_is(p, i, "null"))
		return 0;
	if (k < len && s[k] == '-')
		k++;
	for (; k < len && ((s[k] >= '0' && s[k] <= '9') || s[k] == '.' || s[k] == 'e' ||
			   s[k] == 'E' || s[k] == '+' || s[k] == '-');
	     k++)
		digits += s[k] >= '0' && s[k] <= '9';
	if (k == len && digits)
		return 0;
	return fail_at(p, p->t[i].start, "malformed JSON: unexpected \"%.*s\"", len, s);
}

/* Every object member must be "key": one value (jsmn, non-strict, would also
 * take a bare key, two values for one key or an object as a key). */
static int check_structure(struct ps *p)
{
	if (p->n < 1 || p->t[0].type != JSMN_OBJECT)
		return fail_at(p, p->n ? p->t[0].start : 0, "the file must be one JSON object");
	if (skip(p, 0) != p->n)
		return fail_at(p, p->t[skip(p, 0)].start, "malformed JSON: text after the object");
	for (int i = 0; i < p->n; i++) {
		const jsmntok_t *t = &p->t[i];

		if (t->type == JSMN_PRIMITIVE && (check_primitive(p, i) || t->size))
			return t->size ? fail_at(p, t->end, "malformed JSON: unexpected ':'") : -1;
		if (t->type == JSMN_ARRAY)
			for (int c = i + 1, k = 0; k < t->size; k++, c = skip(p, c))
				if (p->t[c].type == JSMN_STRING && p->t[c].size)
					return fail_at(p, p->t[c].end,
						       "malformed JSON: ':' in "
						       "an array");
		if (t->type != JSMN_OBJECT)
			continue;
		for (int c = i + 1, k = 0; k < t->size; k++, c = skip(p, c)) {
			if (p->t[c].type != JSMN_STRING)
				return fail_at(p, p->t[c].start,
					       "malformed JSON: expected a "
					       "\"key\" string");
			if (p->t[c].size > 1)
				return fail_at(p, p->t[skip(p, c + 1)].start,
					       "malformed JSON: "
					       "expected ',' before this");
			if (!p->t[c].size)
				return fail_at(p, p->t[c].end,
					       "malformed JSON: expected ':' and "
					       "a value");
		}
	}
	return 0;
}

/* Comments (rt-app's examples carry them) become blanks; newlines stay so
 * that positions are the file's. */
static int blank_comments(struct ps *p, const char *in, size_t len)
{
	char *o = p->w->text;
	bool str = false;

	for (size_t i = 0; i < len; i++) {
		o[i] = in[i];
		if (!in[i])
			return fail_at(p, (int)i, "NUL byte in the file");
		if (str) {
			if (in[i] == '\\' && i + 1 < len)
				o[i + 1] = in[i + 1], i++;
			else if (in[i] == '"')
				str = false;
		} else if (in[i] == '"') {
			str = true;
		} else if (in[i] == '/' && i + 1 < len && (in[i + 1] == '/' || in[i + 1] == '*')) {
			bool block = in[i + 1] == '*';
			size_t s = i;

			for (o[i++] = ' ', o[i] = ' '; ++i < len;) {
				if (!block && in[i] == '\n')
					break;
				if (block && in[i] == '*' && i + 1 < len && in[i + 1] == '/') {
					o[i] = o[i + 1] = ' ';
					i++;
					break;
				}
				o[i] = in[i] == '\n' ? '\n' : ' ';
			}
			if (block && i >= len)
				return fail_at(p, (int)s, "unterminated /* comment");
			if (!block && i < len)
				o[i] = in[i]; /* the newline */
		}
	}
	o[len] = '\0';
	return 0;
}

static int tokenize(struct ps *p, size_t len)
{
	jsmn_parser jp;
	int r;

	jsmn_init(&jp);
	r = jsmn_parse(&jp, p->w->text, len, (jsmntok_t *)p->w->tok, RTAPP_MAX_TOKENS);
	if (r == JSMN_ERROR_NOMEM)
		return fail_at(p, -1, "more than %d JSON tokens", RTAPP_MAX_TOKENS);
	if (r == JSMN_ERROR_INVAL)
		return fail_at(p, (int)jp.pos, "malformed JSON: unexpected '%c'",
			       jp.pos < len ? p->js[jp.pos] : '?');
	if (r == JSMN_ERROR_PART) {
		/* An unclosed string leaves pos at its quote; an unclosed object or array is
		 * the last token still without an end. */
		if (jp.pos < len && p->js[jp.pos] == '"')
			return fail_at(p, (int)jp.pos, "malformed JSON: unterminated string");
		for (int i = (int)jp.toknext - 1; i >= 0; i--)
			if (p->t[i].end == -1)
				return fail_at(p, p->t[i].start,
					       "malformed JSON: '%c' never "
					       "closed",
					       p->js[p->t[i].start]);
		return fail_at(p, (int)jp.pos, "malformed JSON: unterminated string");
	}
	p->n = r;
	return 0;
}

/* ---- rt-app semantics -------------------------------------------------------------- */

static int parse_policy(struct ps *p, int i, int *out)
{
	static const struct {
		const char *name;
		int policy;
	} names[] = {
		{ "SCHED_OTHER", P_OTHER },	  { "SCHED_NORMAL", P_OTHER },
		{ "SCHED_FIFO", P_FIFO },	  { "SCHED_RR", P_RR },
		{ "SCHED_BATCH", P_BATCH },	  { "SCHED_IDLE", P_IDLE },
		{ "SCHED_DEADLINE", P_DEADLINE },
	};

	if (p->t[i].type != JSMN_STRING)
		return fail_at(p, p->t[i].start, "policy must be a string");
	for (unsigned int k = 0; k < ARRAY_SIZE(names); k++) {
		if (tok_is(p, i, names[k].name)) {
			*out = names[k].policy;
			return 0;
		}
	}
	return fail_at(p, p->t[i].start,
		       "unknown policy \"%.*s\" (SCHED_OTHER, SCHED_FIFO, "
		       "SCHED_RR, SCHED_BATCH, SCHED_IDLE, SCHED_DEADLINE)",
		       tlen(&p->t[i]), p->js + p->t[i].start);
}

static int parse_cpus(struct ps *p, int i, struct rtapp_sched *s)
{
	const jsmntok_t *t = &p->t[i];
	s64 c;

	pos_of(p->js, t->start, &s->cpus_line, &s->cpus_col);
	if (t->type == JSMN_PRIMITIVE) {
		if (tok_int(p, i, 0, NR_CPUS - 1, &c, "cpu"))
			return -1;
		s->cpus = *cpumask_of(c);
		return 0;
	}
	if (t->type != JSMN_ARRAY)
		return fail_at(p, t->start, "cpus must be an array of CPU numbers");
	if (!t->size)
		return fail_at(p, t->start, "cpus is an empty list");
	cpumask_clear(&s->cpus);
	for (int k = 0, e = i + 1; k < t->size; k++, e = skip(p, e)) {
		if (tok_int(p, e, 0, NR_CPUS - 1, &c, "cpu"))
			return -1;
		__cpumask_set_cpu((unsigned int)c, &s->cpus);
	}
	return 0;
}

/* A scheduling key of a task or phase: 1 if taken, 0 if not one, -1 on error. */
static int parse_sched_key(struct ps *p, int key, struct rtapp_sched *s)
{
	int v = key + 1;
	s64 x;

	if (tok_is(p, key, "policy"))
		return parse_policy(p, v, &s->policy) ? -1 : 1;
	if (tok_is(p, key, "priority")) {
		if (tok_int(p, v, -20, 99, &x, "priority"))
			return -1;
		s->priority = (int)x;
		return 1;
	}
	if (tok_is(p, key, "cpus"))
		return parse_cpus(p, v, s) ? -1 : 1;
	if (tok_is(p, key, "dl-runtime") || tok_is(p, key, "dl-period") ||
	    tok_is(p, key, "dl-deadline")) {
		if (tok_int(p, v, 1, 4000000, &x, "dl-runtime/dl-period/dl-deadline (us)"))
			return -1;
		*(tok_is(p, key, "dl-runtime")	? &s->dl_runtime
		  : tok_is(p, key, "dl-period") ? &s->dl_period
						: &s->dl_deadline) = (u64)x;
		return 1;
	}
	if (tok_is(p, key, "util_min") || tok_is(p, key, "util_max")) {
		if (tok_int(p, v, 0, 1024, &x, "util_min/util_max"))
			return -1;
		*(tok_is(p, key, "util_min") ? &s->util_min : &s->util_max) = (int)x;
		return 1;
	}
	if (tok_is(p, key, "taskgroup")) { /* rt-app: the task's cpu cgroup */
		if (tok_name(p, v, s->taskgroup, "taskgroup"))
			return -1;
		for (const char *c = s->taskgroup; *c; c++)
			if (*c == ' ' || (c[0] == '/' && c[1] == '/'))
				return fail_at(p, p->t[v].start, "taskgroup: bad path");
		return 1;
	}
	return 0;
}

static int find_ref(struct ps *p, int i, enum rtapp_ref_kind kind, u16 *out)
{
	struct rtapp_workload *w = p->w;
	char name[RTAPP_NAME_LEN];

	if (tok_name(p, i, name, kind == RTAPP_REF_TIMER ? "timer ref" : "mutex name"))
		return -1;
	for (u32 r = 0; r < w->nr_refs; r++) {
		if (w->refs[r].kind == kind && tok_is(p, i, w->refs[r].name)) {
			*out = (u16)r;
			return 0;
		}
	}
	if (w->nr_refs == RTAPP_MAX_REFS)
		return fail_at(p, p->t[i].start, "more than %d timer and mutex names",
			       RTAPP_MAX_REFS);
	w->refs[w->nr_refs] = (struct rtapp_ref){ .kind = (u8)kind };
	for (int k = 0; k < RTAPP_NAME_LEN; k++)
		w->refs[w->nr_refs].name[k] = name[k];
	w->refs[w->nr_refs].per_thread = kind == RTAPP_REF_TIMER && tok_prefix(p, i, "unique");
	*out = (u16)w->nr_refs++;
	return 0;
}

static int parse_timer(struct ps *p, int v, struct rtapp_event *e)
{
	int ref = -1, period = -1;
	s64 x;

	if (p->t[v].type != JSMN_OBJECT)
		return fail_at(p, p->t[v].start, "timer must be an object { \"ref\", \"period\" }");
	for (int k = 0, c = v + 1; k < p->t[v].size; k++, c = skip(p, c)) {
		if (tok_is(p, c, "ref")) {
			ref = c + 1;
		} else if (tok_is(p, c, "period")) {
			period = c + 1;
		} else if (tok_is(p, c, "mode")) {
			if (!tok_is(p, c + 1, "absolute") && !tok_is(p, c + 1, "relative"))
				return fail_at(p, p->t[c + 1].start,
					       "timer mode must be "
					       "\"absolute\" or \"relative\"");
			e->absolute = tok_is(p, c + 1, "absolute");
		} else {
			warn_at(p, p->t[c].start, "unknown timer key \"%.*s\" ignored",
				tlen(&p->t[c]), p->js + p->t[c].start);
		}
	}
	if (ref < 0 || period < 0)
		return fail_at(p, p->t[v].start, "timer needs \"ref\" and \"period\"");
	if (tok_int(p, period, 0, 3600000000ll, &x, "timer period"))
		return -1;
	if (!x)
		return fail_at(p, p->t[period].start, "timer period is zero");
	e->usec = (u64)x;
	return find_ref(p, ref, RTAPP_REF_TIMER, &e->ref);
}

/* rt-app names events by prefix ("run0", "sleep_long"), so a file can list
 * one kind many times; "runtime" is tried before "run". */
static const struct {
	const char *name;
	int type;
} event_names[] = {
	{ "runtime", RTAPP_RUNTIME }, { "run", RTAPP_RUN },	  { "sleep", RTAPP_SLEEP },
	{ "timer", RTAPP_TIMER },     { "unlock", RTAPP_UNLOCK }, { "lock", RTAPP_LOCK },
	{ "yield", RTAPP_YIELD },     { "mem", RTAPP_MEM },
};
static const char *const unsupported_events[] = {
	"iorun", "wait", "signal", "broad", "sync", "barrier", "suspend", "resume", "fork",
};

/* An event key: 1 if taken, 0 if not an event, -1 on error. */
static int parse_event(struct ps *p, int key)
{
	struct rtapp_workload *w = p->w;
	struct rtapp_event *e;
	int v = key + 1;
	s64 x;

	for (unsigned int k = 0; k < ARRAY_SIZE(unsupported_events); k++)
		if (tok_prefix(p, key, unsupported_events[k]))
			return fail_at(p, p->t[key].start,
				       "event \"%.*s\" is not supported "
				       "(run, runtime, sleep, timer, lock, unlock, yield, mem)",
				       tlen(&p->t[key]), p->js + p->t[key].start);
	for (unsigned int k = 0; k < ARRAY_SIZE(event_names); k++) {
		if (!tok_prefix(p, key, event_names[k].name))
			continue;
		if (w->nr_events == RTAPP_MAX_EVENTS)
			return fail_at(p, p->t[key].start, "more than %d events", RTAPP_MAX_EVENTS);
		e = &w->events[w->nr_events];
		*e = (struct rtapp_event){ .type = (u8)event_names[k].type };
		switch (e->type) {
		case RTAPP_RUN:
		case RTAPP_RUNTIME:
		case RTAPP_SLEEP:
			if (tok_int(p, v, 0, 3600000000ll, &x, event_names[k].name))
				return -1;
			e->usec = (u64)x;
			break;
		case RTAPP_MEM: /* bytes; only its size is modelled (docs/rtapp.md) */
			if (tok_int(p, v, 0, 1ll << 30, &x, "mem"))
				return -1;
			e->usec = (u64)x;
			break;
		case RTAPP_TIMER:
			if (parse_timer(p, v, e))
				return -1;
			break;
		case RTAPP_LOCK:
		case RTAPP_UNLOCK:
			if (find_ref(p, v, RTAPP_REF_MUTEX, &e->ref))
				return -1;
			break;
		}
		w->nr_events++;
		return 1;
	}
	return 0;
}

/* Each phase must leave every mutex it took: a lock is released by its owner
 * before the phase ends, and nothing is unlocked that is not held. */
static int check_locks(struct ps *p, const struct rtapp_phase *ph, int obj)
{
	int depth[RTAPP_MAX_REFS] = { 0 };

	for (u32 i = ph->first_event; i < ph->first_event + ph->nr_events; i++) {
		const struct rtapp_event *e = &p->w->events[i];

		if (e->type == RTAPP_LOCK && depth[e->ref]++)
			return fail_at(p, p->t[obj].start,
				       "mutex \"%s\" locked twice in a row "
				       "(it would deadlock)",
				       p->w->refs[e->ref].name);
		if (e->type == RTAPP_UNLOCK && --depth[e->ref] < 0)
			return fail_at(p, p->t[obj].start,
				       "unlock of mutex \"%s\" that is not "
				       "held",
				       p->w->refs[e->ref].name);
	}
	for (u32 r = 0; r < p->w->nr_refs; r++)
		if (depth[r])
			return fail_at(p, p->t[obj].start, "phase ends holding mutex \"%s\"",
				       p->w->refs[r].name);
	return 0;
}

static const struct rtapp_sched sched_unset = {
	.policy = RTAPP_UNSET,
	.priority = RTAPP_UNSET,
	.util_min = RTAPP_UNSET,
	.util_max = RTAPP_UNSET,
};

/* The keys of a phase object (or of a task object, for a task without
 * "phases"; `task` then takes the task-level keys). */
static int parse_phase(struct ps *p, int obj, struct rtapp_task *task)
{
	struct rtapp_workload *w = p->w;
	struct rtapp_phase *ph;
	int r;

	if (p->t[obj].type != JSMN_OBJECT)
		return fail_at(p, p->t[obj].start, "a phase must be an object");
	if (w->nr_phases == RTAPP_MAX_PHASES)
		return fail_at(p, p->t[obj].start, "more than %d phases", RTAPP_MAX_PHASES);
	ph = &w->phases[w->nr_phases];
	*ph = (struct rtapp_phase){ .first_event = (u16)w->nr_events,
				    .loop = 1,
				    .sched = sched_unset };
	for (int k = 0, c = obj + 1; k < p->t[obj].size; k++, c = skip(p, c)) {
		s64 x;

		if (task && (tok_is(p, c, "instance") || tok_is(p, c, "loop") ||
			     tok_is(p, c, "delay") || tok_is(p, c, "phases")))
			continue; /* the task's, parsed by parse_task */
		if (tok_is(p, c, "loop")) {
			if (tok_int(p, c + 1, 1, 1ll << 40, &x, "phase loop"))
				return -1;
			ph->loop = x;
			continue;
		}
		r = parse_sched_key(p, c, task ? &task->sched : &ph->sched);
		if (!r)
			r = parse_event(p, c);
		if (r < 0)
			return -1;
		if (!r)
			warn_at(p, p->t[c].start, "unknown key \"%.*s\" ignored", tlen(&p->t[c]),
				p->js + p->t[c].start);
	}
	ph->nr_events = (u16)(w->nr_events - ph->first_event);
	if (!ph->nr_events)
		return fail_at(p, p->t[obj].start, "a phase without any event");
	if (check_locks(p, ph, obj))
		return -1;
	w->nr_phases++;
	return 0;
}

static int parse_task(struct ps *p, int key)
{
	struct rtapp_workload *w = p->w;
	struct rtapp_task *task = &w->tasks[w->nr_tasks];
	int obj = key + 1, phases = -1;
	s64 x;

	if (w->nr_tasks == RTAPP_MAX_TASKS)
		return fail_at(p, p->t[key].start, "more than %d tasks", RTAPP_MAX_TASKS);
	*task = (struct rtapp_task){
		.instance = 1, .loop = -1, .sched = sched_unset, .first_phase = (u16)w->nr_phases
	};
	if (tok_name(p, key, task->name, "task name"))
		return -1;
	if (p->t[obj].type != JSMN_OBJECT)
		return fail_at(p, p->t[obj].start, "task \"%s\" must be an object", task->name);
	for (int k = 0, c = obj + 1; k < p->t[obj].size; k++, c = skip(p, c)) {
		if (tok_is(p, c, "instance")) {
			if (tok_int(p, c + 1, 0, RTAPP_MAX_INSTANCES, &x, "instance"))
				return -1;
			task->instance = (u32)x;
		} else if (tok_is(p, c, "loop")) {
			if (tok_int(p, c + 1, -1, 1ll << 40, &x, "task loop"))
				return -1;
			task->loop = x;
		} else if (tok_is(p, c, "delay")) {
			if (tok_int(p, c + 1, 0, 3600000000ll, &x, "delay"))
				return -1;
			task->delay_us = (u64)x;
		} else if (tok_is(p, c, "phases")) {
			phases = c + 1;
		}
	}
	if (phases < 0) {
		if (parse_phase(p, obj, task)) /* events right in the task */
			return -1;
	} else {
		for (int k = 0, c = obj + 1; k < p->t[obj].size; k++, c = skip(p, c))
			if (!tok_is(p, c, "instance") && !tok_is(p, c, "loop") &&
			    !tok_is(p, c, "delay") && !tok_is(p, c, "phases") &&
			    parse_sched_key(p, c, &task->sched) == 0) {
				if (parse_event(p, c))
					return fail_at(p, p->t[c].start,
						       "event \"%.*s\" beside "
						       "\"phases\": put it in a phase",
						       tlen(&p->t[c]), p->js + p->t[c].start);
				warn_at(p, p->t[c].start, "unknown key \"%.*s\" ignored",
					tlen(&p->t[c]), p->js + p->t[c].start);
			}
		if (p->w->error[0])
			return -1;
		if (p->t[phases].type != JSMN_OBJECT || !p->t[phases].size)
			return fail_at(p, p->t[phases].start, "phases must be a non-empty object");
		for (int k = 0, c = phases + 1; k < p->t[phases].size; k++, c = skip(p, c))
			if (parse_phase(p, c + 1, NULL))
				return -1;
	}
	task->nr_phases = (u16)(w->nr_phases - task->first_phase);
	w->nr_tasks++;
	return 0;
}

static int parse_calibration(struct ps *p, int v)
{
	const jsmntok_t *t = &p->t[v];
	s64 x;

	if (t->type == JSMN_PRIMITIVE) {
		if (tok_int(p, v, 1, 1ll << 40, &x, "calibration"))
			return -1;
		p->w->calib_cpu = -1; /* ns per loop: no loops here, run is emulated */
		warn_at(p, t->start,
			"calibration in ns per loop ignored: run events are "
			"microseconds of work at the top OPP of the biggest CPU");
		return 0;
	}
	if (t->type == JSMN_STRING && tok_prefix(p, v, "CPU") && tlen(t) > 3) {
		int cpu = 0;

		for (int k = 3; k < tlen(t); k++) {
			char ch = p->js[t->start + k];

			if (ch < '0' || ch > '9' || cpu > 63)
				goto bad;
			cpu = cpu * 10 + ch - '0';
		}
		if (cpu > 63)
			goto bad;
		p->w->calib_cpu = cpu;
		return 0;
	}
bad:
	return fail_at(p, t->start, "calibration must be \"CPUn\" or an integer");
}

static int parse_global(struct ps *p, int obj)
{
	static const char *const ignored[] = {
		"logdir",     "log_basename", "log_size",	  "ftrace",	"gnuplot",
		"lock_pages", "io_device",    "cumulative_slack", "pi_enabled",
	};
	s64 x;

	if (p->t[obj].type != JSMN_OBJECT)
		return fail_at(p, p->t[obj].start, "global must be an object");
	for (int k = 0, c = obj + 1; k < p->t[obj].size; k++, c = skip(p, c)) {
		bool known = false;

		if (tok_is(p, c, "duration")) {
			if (tok_int(p, c + 1, -1, 1000000, &x, "duration"))
				return -1;
			if (!x)
				return fail_at(p, p->t[c + 1].start, "duration is zero");
			p->w->duration_s = x;
			continue;
		}
		if (tok_is(p, c, "calibration")) {
			if (parse_calibration(p, c + 1))
				return -1;
			continue;
		}
		if (tok_is(p, c, "mem_buffer_size")) {
			if (tok_int(p, c + 1, 0, 1ll << 30, &x, "mem_buffer_size"))
				return -1;
			p->w->mem_buffer_size = (u64)x;
			continue;
		}
		if (tok_is(p, c, "default_policy")) {
			if (parse_policy(p, c + 1, &p->w->default_policy))
				return -1;
			continue;
		}
		for (unsigned int i = 0; i < ARRAY_SIZE(ignored); i++)
			known |= tok_is(p, c, ignored[i]);
		warn_at(p, p->t[c].start,
			known ? "\"%.*s\" ignored: results go to the console"
			      : "unknown key \"%.*s\" ignored",
			tlen(&p->t[c]), p->js + p->t[c].start);
	}
	return 0;
}

static bool is_rt(int policy)
{
	return policy == P_FIFO || policy == P_RR;
}

/* A priority means nice for CFS policies, rt_priority for RT ones: check it
 * against the policy in force (the phase's, else the task's, else the default). */
static int check_priority(struct ps *p, const struct rtapp_sched *s, int policy, const char *where)
{
	int pol = s->policy != RTAPP_UNSET ? s->policy : policy;

	if (s->util_min != RTAPP_UNSET && s->util_max != RTAPP_UNSET && s->util_min > s->util_max)
		return fail_at(p, -1, "%s: util_min %d above util_max %d", where, s->util_min,
			       s->util_max);
	if (s->policy == P_DEADLINE && !s->dl_runtime)
		return fail_at(p, -1, "%s: SCHED_DEADLINE needs dl-runtime", where);
	if (s->priority == RTAPP_UNSET)
		return 0;
	if (is_rt(pol) && (s->priority < 1 || s->priority > 99))
		return fail_at(p, -1, "%s: priority %d is outside 1..99 for %s", where, s->priority,
			       rtapp_policy_name(pol));
	if (!is_rt(pol) && s->priority > 19)
		return fail_at(p, -1, "%s: priority %d is outside the nice range -20..19 for %s",
			       where, s->priority, rtapp_policy_name(pol));
	return 0;
}

static int check_workload(struct ps *p)
{
	struct rtapp_workload *w = p->w;
	u32 threads = 0;

	if (!w->nr_tasks)
		return fail_at(p, -1, "no task in \"tasks\"");
	for (u32 i = 0; i < w->nr_tasks; i++) {
		const struct rtapp_task *t = &w->tasks[i];
		int pol = t->sched.policy != RTAPP_UNSET ? t->sched.policy : w->default_policy;

		threads += t->instance;
		if (check_priority(p, &t->sched, w->default_policy, t->name))
			return -1;
		if (pol == P_DEADLINE && !t->sched.dl_runtime)
			return fail_at(p, -1, "%s: SCHED_DEADLINE needs dl-runtime", t->name);
		for (u32 ph = t->first_phase; ph < t->first_phase + t->nr_phases; ph++)
			if (check_priority(p, &w->phases[ph].sched, pol, t->name))
				return -1;
		if (t->loop < 0 && w->duration_s < 0)
			return fail_at(p, -1,
				       "task \"%s\" loops forever and global duration is "
				       "not set: it would never end",
				       t->name);
	}
	if (threads > RTAPP_MAX_THREADS)
		return fail_at(p, -1, "%u threads in all (instances), at most %d", threads,
			       RTAPP_MAX_THREADS);
	return 0;
}

int rtapp_parse(const char *json, size_t len, struct rtapp_workload *w)
{
	struct ps p = { .w = w, .js = w->text, .t = (const jsmntok_t *)w->tok };
	int tasks = -1;

	*w = (struct rtapp_workload){ .duration_s = -1,
				      .calib_cpu = 0,
				      .default_policy = P_OTHER,
				      .mem_buffer_size = 4 << 20 };
	if (len > RTAPP_MAX_FILE)
		return fail_at(&p, -1, "file of %zu bytes, at most %d", len, RTAPP_MAX_FILE);
	if (blank_comments(&p, json, len) || tokenize(&p, len) || check_structure(&p))
		return -1;
	for (int k = 0, c = 1; k < p.t[0].size; k++, c = skip(&p, c)) {
		if (tok_is(&p, c, "tasks")) {
			tasks = c + 1;
		} else if (tok_is(&p, c, "global")) {
			if (parse_global(&p, c + 1))
				return -1;
		} else if (tok_is(&p, c, "resources")) {
			warn_at(&p, p.t[c].start,
				"\"resources\" ignored: mutexes and timers are "
				"made from their names");
		} else {
			warn_at(&p, p.t[c].start, "unknown key \"%.*s\" ignored", tlen(&p.t[c]),
				p.js + p.t[c].start);
		}
	}
	if (tasks < 0)
		return fail_at(&p, -1, "no \"tasks\" object");
	if (p.t[tasks].type != JSMN_OBJECT)
		return fail_at(&p, p.t[tasks].start, "tasks must be an object");
	for (int k = 0, c = tasks + 1; k < p.t[tasks].size; k++, c = skip(&p, c))
		if (parse_task(&p, c))
			return -1;
	return check_workload(&p);
}

const char *rtapp_policy_name(int policy)
{
	switch (policy) {
	case P_OTHER:
		return "SCHED_OTHER";
	case P_FIFO:
		return "SCHED_FIFO";
	case P_RR:
		return "SCHED_RR";
	case P_BATCH:
		return "SCHED_BATCH";
	case P_IDLE:
		return "SCHED_IDLE";
	case P_DEADLINE:
		return "SCHED_DEADLINE";
	}
	return "?";
}

const char *rtapp_event_name(int type)
{
	for (unsigned int k = 0; k < ARRAY_SIZE(event_names); k++)
		if (event_names[k].type == type)
			return event_names[k].name;
	return "?";
}
