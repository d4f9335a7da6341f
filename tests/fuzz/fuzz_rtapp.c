/* fuzz_rtapp.c - libFuzzer target for kernel/bench/rtapp_parse.c, the parser
 * of rt-app JSON files that arrive by the initrd: any bytes in, and what the
 * engine relies on out. On success every index stays inside its table
 * (tasks -> phases -> events -> refs), counts within limits, loops and
 * periods positive; on refusal a non-empty, terminated message. Seeds:
 * tests/fuzz/corpus/rtapp/ (the built-in workloads and broken files). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rtapp.h"

static struct rtapp_workload w;

static void check_ok(void)
{
	if (!w.nr_tasks || w.nr_tasks > RTAPP_MAX_TASKS || w.nr_phases > RTAPP_MAX_PHASES ||
	    w.nr_events > RTAPP_MAX_EVENTS || w.nr_refs > RTAPP_MAX_REFS)
		abort();
	for (unsigned int i = 0; i < w.nr_tasks; i++) {
		const struct rtapp_task *t = &w.tasks[i];

		if (!t->nr_phases || t->first_phase + t->nr_phases > w.nr_phases ||
		    t->instance > RTAPP_MAX_INSTANCES || memchr(t->name, 0, RTAPP_NAME_LEN) == NULL)
			abort();
		if (t->loop < 0 && w.duration_s < 0)
			abort(); /* would never end */
	}
	for (unsigned int p = 0; p < w.nr_phases; p++) {
		const struct rtapp_phase *ph = &w.phases[p];

		if (!ph->nr_events || ph->first_event + ph->nr_events > w.nr_events || ph->loop < 1)
			abort();
	}
	for (unsigned int e = 0; e < w.nr_events; e++) {
		const struct rtapp_event *ev = &w.events[e];

		if (ev->type > RTAPP_YIELD)
			abort();
		if ((ev->type == RTAPP_TIMER || ev->type == RTAPP_LOCK ||
		     ev->type == RTAPP_UNLOCK) &&
		    ev->ref >= w.nr_refs)
			abort();
		if (ev->type == RTAPP_TIMER && !ev->usec)
			abort();
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	int r = rtapp_parse((const char *)data, size, &w);

	if (memchr(w.error, 0, sizeof(w.error)) == NULL)
		abort();
	for (unsigned int i = 0; i < RTAPP_MAX_WARN; i++)
		if (memchr(w.warn[i], 0, RTAPP_MSG_LEN) == NULL)
			abort();
	if (r == 0)
		check_ok();
	else if (r != -1 || !w.error[0])
		abort();
	return 0;
}
