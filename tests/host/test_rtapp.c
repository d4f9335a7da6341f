/* test_rtapp.c - kernel/bench/rtapp_parse.c on rt-app files as people write
 * them (comments, trailing commas, numbered and repeated event keys, tasks
 * without phases) and on every refusal: each bad file must give its message
 * and, where it has one, the line:column of the offending token. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ktest.h"
#include "rtapp.h"

static struct rtapp_workload *parse(const char *json, int *ret)
{
	struct rtapp_workload *w = calloc(1, sizeof(*w));

	*ret = w ? rtapp_parse(json, strlen(json), w) : -2;
	return w;
}

/* rt-app's own style: comments, trailing commas, "run0"/"timer0", the same
 * key twice in one phase, a task with events and no phases. */
static void rtapp_parse_as_written(struct ktest *t)
{
	static const char json[] =
		"/* two tasks */\n"
		"{\n"
		"  \"tasks\" : {\n"
		"    \"thread0\" : {\n"
		"      \"instance\" : 2, \"loop\" : -1, \"policy\" : \"SCHED_FIFO\",\n"
		"      \"priority\" : 10, \"cpus\" : [1, 3], \"delay\" : 1000,\n"
		"      \"phases\" : {\n"
		"        \"p0\" : { \"loop\" : 3, \"run0\" : 10000, \"run\" : 5,\n"
		"                   \"timer0\" : { \"ref\" : \"unique\", \"period\" : 20000,\n"
		"                                \"mode\" : \"absolute\" }, },\n"
		"        \"p1\" : { \"lock\" : \"m\", \"runtime\" : 100, \"unlock\" : \"m\",\n"
		"                   \"sleep\" : 50, \"sleep\" : 60, \"util_max\" : 512,\n"
		"                   \"taskgroup\" : \"/top-app/ui\" },\n"
		"      },\n"
		"    },\n"
		"    \"t1\" : { \"run\" : 1000,\n"
		"              \"timer\" : { \"ref\" : \"shared\", \"period\" : 4000 },\n"
		"              \"loop\" : 5 }, // events right in the task\n"
		"  },\n"
		"  \"global\" : { \"duration\" : 2, \"calibration\" : \"CPU3\",\n"
		"               \"default_policy\" : \"SCHED_OTHER\", \"logdir\" : \"./\" },\n"
		"}\n";
	struct rtapp_workload *w;
	int r;

	w = parse(json, &r);
	ASSERT_TRUE(t, w);
	if (r)
		ktest_diag(t, "error: %s", w->error);
	EXPECT_EQ(t, r, 0);
	EXPECT_EQ(t, w->nr_tasks, 2);
	EXPECT_EQ(t, w->duration_s, 2);
	EXPECT_EQ(t, w->calib_cpu, 3);
	EXPECT_EQ(t, w->tasks[0].instance, 2);
	EXPECT_EQ(t, w->tasks[0].delay_us, 1000);
	EXPECT_EQ(t, w->tasks[0].sched.policy, 1);
	EXPECT_EQ(t, w->tasks[0].sched.priority, 10);
	EXPECT_EQ(t, cpumask_u64(&w->tasks[0].sched.cpus), 0xa);
	EXPECT_EQ(t, w->tasks[0].nr_phases, 2);
	EXPECT_EQ(t, w->phases[0].loop, 3);
	EXPECT_EQ(t, w->phases[0].nr_events, 3);
	EXPECT_EQ(t, w->events[0].type, RTAPP_RUN);
	EXPECT_EQ(t, w->events[0].usec, 10000);
	EXPECT_EQ(t, w->events[1].usec, 5);
	EXPECT_EQ(t, w->events[2].type, RTAPP_TIMER);
	EXPECT_TRUE(t, w->events[2].absolute);
	EXPECT_TRUE(t, w->refs[w->events[2].ref].per_thread);
	EXPECT_EQ(t, w->phases[1].nr_events, 5);
	EXPECT_EQ(t, w->events[3].type, RTAPP_LOCK);
	EXPECT_EQ(t, w->events[4].type, RTAPP_RUNTIME);
	EXPECT_EQ(t, w->events[5].type, RTAPP_UNLOCK);
	EXPECT_EQ(t, w->events[6].usec, 50);
	EXPECT_EQ(t, w->events[7].usec, 60);
	EXPECT_EQ(t, w->phases[1].sched.util_max, 512);
	EXPECT_STREQ(t, w->phases[1].sched.taskgroup, "/top-app/ui");
	EXPECT_STREQ(t, w->tasks[0].sched.taskgroup, "");
	EXPECT_EQ(t, w->tasks[1].loop, 5);
	EXPECT_EQ(t, w->tasks[1].nr_phases, 1);
	EXPECT_FALSE(t, w->events[9].absolute);
	EXPECT_FALSE(t, w->refs[w->events[9].ref].per_thread);
	EXPECT_EQ(t, w->nr_warn, 1); /* logdir */
	EXPECT_TRUE(t, strstr(w->warn[0], "\"logdir\" ignored"));
	free(w);
}

/* rt-app's SCHED_DEADLINE keys, in us; the period defaults to the runtime
 * and the deadline to the period (rt-app's parse_task_data()). */
static void rtapp_parse_deadline(struct ktest *t)
{
	static const char json[] =
		"{ \"tasks\": { \"d\": { \"loop\": 10, \"policy\": \"SCHED_DEADLINE\",\n"
		"  \"dl-runtime\": 9000, \"dl-period\": 17777, \"dl-deadline\": 17000,\n"
		"  \"run\": 8000, \"timer\": { \"ref\": \"t\", \"period\": 17777 } },\n"
		"  \"e\": { \"loop\": 1, \"policy\": \"SCHED_DEADLINE\", \"dl-runtime\": 500,\n"
		"  \"run\": 100 } } }";
	struct rtapp_workload *w;
	int r;

	w = parse(json, &r);
	ASSERT_TRUE(t, w);
	if (r)
		ktest_diag(t, "error: %s", w->error);
	EXPECT_EQ(t, r, 0);
	EXPECT_EQ(t, w->tasks[0].sched.policy, 6);
	EXPECT_EQ(t, w->tasks[0].sched.dl_runtime, 9000);
	EXPECT_EQ(t, w->tasks[0].sched.dl_period, 17777);
	EXPECT_EQ(t, w->tasks[0].sched.dl_deadline, 17000);
	EXPECT_EQ(t, w->tasks[1].sched.dl_runtime, 500);
	EXPECT_EQ(t, w->tasks[1].sched.dl_period, 0); /* unset: the runtime, when applied */
	EXPECT_TRUE(t, !strcmp(rtapp_policy_name(6), "SCHED_DEADLINE"));
	free(w);
}

static void rtapp_parse_warnings(struct ktest *t)
{
	struct rtapp_workload *w;
	int r;

	w = parse("{\"tasks\":{\"a\":{\"run\":1,\"loop\":1,\"colour\":\"red\"}},\"x\":1,"
		  "\"resources\":{}}",
		  &r);
	EXPECT_EQ(t, r, 0);
	EXPECT_EQ(t, w->nr_warn, 3);
	EXPECT_TRUE(t, strstr(w->warn[0], "1:50: unknown key \"x\""));
	EXPECT_TRUE(t, strstr(w->warn[1], "\"resources\" ignored"));
	EXPECT_TRUE(t, strstr(w->warn[2], "1:33: unknown key \"colour\""));
	free(w);
}

/* Each refusal: its message and, when given, its "line:column:". */
static const struct {
	const char *json, *msg, *pos;
} bad[] = {
	{ "{\"tasks\": {\"a\": {\"run\": 1 \"loop\": 1}}", "' never closed", "1:1:" },
	{ "{\"tasks\": {\"a\": {\"run\": 1,\n \"loop\": 1}}}}", "unexpected '}'", "2:14:" },
	{ "{\"tasks\": {\"a\": {\"run\": 1 2, \"loop\": 1}}}", "expected ','", "1:27:" },
	{ "{\"tasks\": {\"a\": {\"run\", \"loop\": 1}}}", "expected ':'", "" },
	{ "{\"tasks\": {\"a\": {\"run\": ten, \"loop\": 1}}}", "unexpected \"ten\"", "1:25:" },
	{ "{\"tasks\": {\"a\": {\"run\": \"1}}}", "unterminated string", "1:25:" },
	{ "[1, 2]", "one JSON object", "1:1:" },
	{ "{} {}", "text after", "1:4:" },
	{ "/* open", "unterminated /*", "1:1:" },
	{ "{\"global\": {}}", "no \"tasks\"", "" },
	{ "{\"tasks\": {}}", "no task", "" },
	{ "{\"tasks\": {\"a\": {\"loop\": 1}}}", "without any event", "1:17:" },
	{ "{\"tasks\": {\"a\": {\"run\": 1}}}", "loops forever", "" },
	{ "{\"tasks\": {\"a\": {\"run\": 1, \"loop\": 1,\n  \"cpus\": []}}}", "empty list",
	  "2:11:" },
	{ "{\"tasks\": {\"a\": {\"run\": 1, \"loop\": 1, \"cpus\": [0, 256]}}}", "out of range",
	  "1:51:" },
	{ "{\"tasks\": {\"a\": {\"run\": 1, \"loop\": 1, \"cpus\": [\"x\"]}}}", "integer", "" },
	{ "{\"tasks\": {\"a\": {\"loop\": 1, \"timer\": {\"ref\": \"t\", \"period\": 0}}}}",
	  "timer period is zero", "1:61:" },
	{ "{\"tasks\": {\"a\": {\"loop\": 1, \"timer\": {\"ref\": \"t\"}}}}", "needs \"ref\"", "" },
	{ "{\"tasks\": {\"a\": {\"loop\": 1, \"timer\": {\"ref\": \"t\", \"period\": 5, "
	  "\"mode\": \"sideways\"}}}}",
	  "timer mode", "" },
	{ "{\"tasks\": {\"a\": {\"loop\": 1, \"run\": 1, \"policy\": \"SCHED_TURBO\"}}}",
	  "unknown policy \"SCHED_TURBO\"", "1:49:" },
	{ "{\"tasks\": {\"a\": {\"loop\": 1, \"run\": 1, \"policy\": \"SCHED_DEADLINE\"}}}",
	  "SCHED_DEADLINE needs dl-runtime", "" },
	{ "{\"global\": {\"default_policy\": 7}, \"tasks\": {\"a\": {\"loop\": 1, \"run\": 1}}}",
	  "policy must be a string", "" },
	{ "{\"tasks\": {\"a\": {\"loop\": 1,\n \"run\": 1, \"suspend\": \"a\"}}}",
	  "event \"suspend\" is not supported", "2:12:" },
	{ "{\"tasks\": {\"a\": {\"loop\": 1, \"barrier0\": \"b\"}}}", "\"barrier0\" is not", "" },
	{ "{\"tasks\": {\"a\": {\"loop\": 1, \"run\": -5}}}", "out of range", "" },
	{ "{\"tasks\": {\"a\": {\"loop\": 1, \"run\": 1.5}}}", "must be an integer", "" },
	{ "{\"tasks\": {\"a\": {\"loop\": 1, \"run\": 1, \"policy\": \"SCHED_FIFO\", "
	  "\"priority\": 0}}}",
	  "outside 1..99", "" },
	{ "{\"tasks\": {\"a\": {\"loop\": 1, \"run\": 1, \"priority\": 50}}}", "nice range", "" },
	{ "{\"tasks\": {\"a\": {\"loop\": 1, \"unlock\": \"m\"}}}", "not held", "" },
	{ "{\"tasks\": {\"a\": {\"loop\": 1, \"lock\": \"m\"}}}", "holding mutex", "" },
	{ "{\"tasks\": {\"a\": {\"loop\": 1, \"lock\": \"m\", \"lock1\": \"m\"}}}", "twice", "" },
	{ "{\"tasks\": {\"a\": {\"loop\": 1, \"phases\": {\"p\": {\"run\": 1}}, \"sleep\": 3}}}",
	  "beside \"phases\"", "" },
	{ "{\"tasks\": {\"a\": {\"loop\": 1, \"phases\": {}}}}", "non-empty object", "" },
	{ "{\"tasks\": {\"a\": {\"instance\": 40, \"loop\": 1, \"run\": 1}}}", "out of range", "" },
	{ "{\"tasks\": {\"a\": {\"loop\": 1, \"run\": 1, \"util_min\": 900, \"util_max\": 100}}}",
	  "above util_max", "" },
	{ "{\"tasks\": {\"a\": {\"loop\": 1, \"run\": 1, \"taskgroup\": \"a//b\"}}}", "bad path",
	  "" },
	{ "{\"global\": {\"duration\": 0}, \"tasks\": {\"a\": {\"run\": 1}}}", "duration is zero",
	  "" },
	{ "{\"global\": {\"calibration\": \"GPU0\"}, "
	  "\"tasks\": {\"a\": {\"loop\": 1, \"run\": 1}}}",
	  "calibration must be", "" },
	{ "{\"tasks\": {\"a\": {\"loop\": 1, \"run\": 1, \"cpus\": [1 : 2]}}}", "unexpected ':'",
	  "" },
	{ "{\"tasks\": {\"this name is far too long for us\": {\"loop\": 1, \"run\": 1}}}",
	  "task name must be", "" },
};

/* rt-app's mem event (bytes written into the thread's buffer) and the buffer's size,
 * global.mem_buffer_size (rt-app's default 4 MiB when absent). */
static void rtapp_parse_mem(struct ktest *t)
{
	static const char json[] = "{ \"global\": { \"mem_buffer_size\": 1048576 },\n"
				   "  \"tasks\": { \"m\": { \"loop\": 1, \"mem\": 524288,\n"
				   "  \"run\": 100, \"mem1\": 2000000 } } }";
	struct rtapp_workload *w;
	int r;

	w = parse(json, &r);
	ASSERT_TRUE(t, w);
	EXPECT_EQ(t, r, 0);
	EXPECT_EQ(t, w->mem_buffer_size, 1048576ull);
	EXPECT_EQ(t, w->nr_events, 3u);
	EXPECT_EQ(t, w->events[0].type, RTAPP_MEM);
	EXPECT_EQ(t, w->events[0].usec, 524288ull);
	EXPECT_EQ(t, w->events[2].type, RTAPP_MEM);
	free(w);
	w = parse("{ \"tasks\": { \"m\": { \"loop\": 1, \"mem\": 4096 } } }", &r);
	ASSERT_TRUE(t, w);
	EXPECT_EQ(t, r, 0);
	EXPECT_EQ(t, w->mem_buffer_size, 4ull << 20);
	free(w);
}

static void rtapp_parse_refusals(struct ktest *t)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(bad); i++) {
		struct rtapp_workload *w;
		int r;

		w = parse(bad[i].json, &r);
		ASSERT_TRUE(t, w);
		if (r != -1 || !strstr(w->error, bad[i].msg) ||
		    strncmp(w->error, bad[i].pos, strlen(bad[i].pos))) {
			ktest_fail(t, __FILE__, __LINE__, "case %u: %d \"%s\", wanted \"%s%s\"", i,
				   r, w->error, bad[i].pos, bad[i].msg);
		}
		free(w);
	}
}

/* Limits are refusals too, never overflows. */
static void rtapp_parse_limits(struct ktest *t)
{
	size_t cap = RTAPP_MAX_FILE * 2;
	char *big = malloc(cap + 1);
	struct rtapp_workload *w = calloc(1, sizeof(*w));
	size_t n = 0;
	int r;

	ASSERT_TRUE(t, big && w);
	n += (size_t)snprintf(big + n, cap - n, "{\"tasks\": {");
	for (int i = 0; i < 20; i++)
		n += (size_t)snprintf(big + n, cap - n, "\"t%d\": {\"loop\": 1, \"run\": 1},", i);
	n += (size_t)snprintf(big + n, cap - n, "}}");
	EXPECT_EQ(t, rtapp_parse(big, n, w), -1);
	EXPECT_TRUE(t, strstr(w->error, "more than 16 tasks"));
	memset(big, ' ', cap);
	big[0] = '{';
	big[cap - 1] = '}';
	EXPECT_EQ(t, rtapp_parse(big, cap, w), -1);
	EXPECT_TRUE(t, strstr(w->error, "at most"));
	n = (size_t)snprintf(big, cap, "{\"tasks\": {\"a\": {\"loop\": 1, \"cpus\": [");
	for (int i = 0; i < 5000; i++)
		n += (size_t)snprintf(big + n, cap - n, "1,");
	n += (size_t)snprintf(big + n, cap - n, "]}}}");
	r = rtapp_parse(big, n, w);
	EXPECT_EQ(t, r, -1);
	EXPECT_TRUE(t, strstr(w->error, "JSON tokens"));
	free(big);
	free(w);
}

KTEST_SUITE(rtapp_parse, KTEST_CASE(rtapp_parse_as_written), KTEST_CASE(rtapp_parse_deadline),
	    KTEST_CASE(rtapp_parse_mem), KTEST_CASE(rtapp_parse_warnings),
	    KTEST_CASE(rtapp_parse_refusals), KTEST_CASE(rtapp_parse_limits));
