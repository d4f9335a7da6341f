/* stress.h - the stress workload of kernel/bench/bench_stress.c, run by the
 * self-test suite stress (tests/kernel/selftest_stress.c) and by bench=stress. */
#ifndef STRESS_H
#define STRESS_H

#include "types.h"

#define STRESS_MAX_ALIVE 256

struct stress_cfg {
	unsigned int total; /* threads the controller creates */
	unsigned int alive; /* at most this many at once (<= STRESS_MAX_ALIVE) */
	u64 seed;	    /* the PRNG's (bootargs stress_seed=N) */
	bool exhaust;	    /* hold every free page for a while in the middle */
};

struct stress_result {
	unsigned long created, create_fail, joined;	   /* the controller's threads */
	unsigned long started, exited, children;	   /* all threads, children included */
	unsigned long child_fail, pipe_fail, pipe_ok, ops; /* the workers' */
	u64 mutex_ops, mutex_counted;			   /* equal when mutual exclusion held */
	size_t pipe_left;				   /* bytes left in the shared pipes: 0 */
	/* the hold (exhaust): pages, failed direct creations (of 2), the
	 * controller's failures, the workers' operations and failures */
	unsigned long held_pages, fail_while_held, create_fail_held, ops_during, worker_fails;
	unsigned long live_at_hold; /* threads running when the hold began */
	unsigned long peak_live;    /* most threads running at once */
	u64 ns;			    /* emulated time of the run */
};

/* Runs the whole thing; 0, -EINVAL for a bad cfg, -ENOMEM without memory
 * for the shared pipes (nothing started then). */
int stress_run(const struct stress_cfg *cfg, struct stress_result *r);

#endif
