/* exp_overheads.c - "experiment=overheads": the kernel's own cost against Linux 6.1 on the
 * same QEMU machine (issue 21): ping-pong and hackbench -l 200 with 1, 2 and 4 groups under
 * speed=work with plain wfi idle (Linux under QEMU is neither stretched nor pays idle exit
 * latencies), beside Linux's figures and the target of half of them. Printed, not judged:
 * a benchmark, not a test (docs/performance.md). */
#include "bench.h"
#include "bench_internal.h"
#include "cpuidle.h"
#include "kernel.h"
#include "speed.h"
#include "timer.h"

/* Linux 6.1 (Debian 6.1.0), -M virt -cpu cortex-a53 -smp 8 -icount shift=0,sleep=off with
 * qemu-bl44's tree: perf bench sched pipe -T (us per round trip), hackbench -T -l 200
 * (seconds), as issue 21 measured them. */
struct overhead_row {
	const char *name;
	u64 groups;   /* 0: ping-pong */
	u64 linux_ns; /* per round trip, or the whole run */
};

static const struct overhead_row rows[] = {
	{ "pingpong us/op", 0, 22440 },
	{ "hackbench g1 s", 1, 317000000 },
	{ "hackbench g2 s", 2, 630000000 },
	{ "hackbench g4 s", 4, 1222000000 },
};

static int overhead_run(const struct overhead_row *row, u64 *ns)
{
	if (!row->groups) {
		struct pipe_result r;

		if (bench_pipe(20000, &r))
			return -1;
		*ns = r.ns / r.loops;
	} else {
		struct hackbench_result r;

		if (bench_hackbench(row->groups, 200, 0, &r))
			return -1;
		*ns = r.ns;
	}
	return 0;
}

/* value in ns as "us.ddd" for ping-pong, "s.dddddd" for hackbench. */
static void overhead_fmt(char *buf, size_t size, const struct overhead_row *row, u64 ns)
{
	if (!row->groups)
		ksnprintf(buf, size, "%llu.%03llu", ns / 1000, ns % 1000);
	else
		ksnprintf(buf, size, "%llu.%06llu", ns / NSEC_PER_SEC, ns / 1000 % 1000000);
}

int experiment_overheads(void)
{
	enum speed_model was = speed_model;
	bool idle_was = cpuidle_enabled();
	int err = 0;

	speed_set_model(SPEED_WORK);
	cpuidle_set_enabled(false);
	msleep(20); /* every CPU passes through idle under the new model */
	printk("overheads: speed=work, cpuidle off; Linux 6.1 on the same QEMU line\n");
	printk("%-16s %12s %12s %7s %7s\n", "workload", "littlebig", "Linux", "ratio", "target");
	for (unsigned int i = 0; i < ARRAY_SIZE(rows) && !err; i++) {
		char ours[24], theirs[24];
		u64 ns, ratio;

		err = overhead_run(&rows[i], &ns);
		if (err)
			break;
		ratio = ns * 1000 / rows[i].linux_ns;
		overhead_fmt(ours, sizeof(ours), &rows[i], ns);
		overhead_fmt(theirs, sizeof(theirs), &rows[i], rows[i].linux_ns);
		printk("%-16s %12s %12s %3llu.%03llu %7s\n", rows[i].name, ours, theirs,
		       ratio / 1000, ratio % 1000, ratio <= 500 ? "<=0.5" : "MISSED");
		printk("RESULT overheads workload=%s groups=%llu ns=%llu linux_ns=%llu "
		       "ratio_permille=%llu\n",
		       rows[i].groups ? "hackbench" : "pingpong", rows[i].groups, ns,
		       rows[i].linux_ns, ratio);
	}
	cpuidle_set_enabled(idle_was);
	speed_set_model(was);
	return err ? -1 : 0;
}
