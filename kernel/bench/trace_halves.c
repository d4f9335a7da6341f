/* trace_halves.c - scheduler traces of an experiment's halves: with the
 * "trace" flag (experiment=1,short,trace) each off/on half is bracketed by
 * experiment_half_begin/_end, which start fresh trace buffers (fill-once:
 * a half too long for them is cut cleanly, and the dump says so) and dump
 * them between "# littlebig trace begin E1 LABEL" markers for tools/trace.py.
 * State: experiments run one at a time from one thread, so no lock. */
#include "bench_internal.h"
#include "kernel.h"
#include "trace.h"

static bool tracing, started;
static char exp_name[16], half[48];

void experiment_trace_setup(const char *spec)
{
	size_t n = 0;

	tracing = bench_flag(spec, "trace");
	started = false;
	exp_name[n++] = 'E';
	for (; *spec && *spec != ',' && n < sizeof(exp_name) - 1; spec++)
		exp_name[n++] = *spec;
	exp_name[n] = '\0';
}

/* Each half also meters its energy and idle states from its start (issue 14),
 * traced or not: "RESULT energy half=EN/LABEL ..." lines at its end (at the
 * console, without `run -r`, one "totals half=..." line). */
void experiment_half_begin(const char *label)
{
	strlcpy_k(half, label, sizeof(half));
	bench_progress(label, 0, 0); /* the shell's progress lines name the half */
	bench_meters_reset();
	if (!tracing)
		return;
	started = !trace_start_fill();
	if (!started)
		printk("experiment: no memory for the trace buffers; %s %s not traced\n", exp_name,
		       half);
}

void experiment_half_end(void)
{
	char label[sizeof(exp_name) + sizeof(half)];

	ksnprintf(label, sizeof(label), " half=%s/%s", exp_name, half);
	/* one key=value: "E4/X hackbench" -> "E4/X/hackbench" */
	for (char *c = label + 1; *c; c++)
		if (*c == ' ')
			*c = '/';
	bench_meters_print(label); /* before the dump: trace.py's RESULT follows it */
	if (!tracing || !started)
		return;
	started = false;
	trace_stop();
	ksnprintf(label, sizeof(label), "%s %s", exp_name, half);
	trace_dump_labelled(label);
}
