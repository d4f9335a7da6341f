/* linux_pipe.c - `perf bench sched pipe -T` for `make compare`: two threads pass a
 * 4-byte token through two pipes, N round trips (thread A writes then reads,
 * B reads then writes). Prints usecs/op and each thread's migrations over its
 * loop (se.nr_migrations) as kernel/bench/bench_pipe.c's RESULT pingpong line.
 *   pipe [N]    (default 10000) */
#include "work.h"

static int fds[2][2]; /* 0: A -> B, 1: B -> A */
static long loops;
static long long migrations[2];
static int cpu_first[2], cpu_last[2]; /* each thread's CPU at its loop's start and end */

static void *worker(void *arg)
{
	int me = (int)(long)arg;
	long long m0 = thread_migrations();
	int token = 0;

	cpu_first[me] = sched_getcpu();
	for (long i = 0; i < loops; i++) {
		if (me == 0) {
			if (write(fds[0][1], &token, sizeof(token)) != sizeof(token) ||
			    read(fds[1][0], &token, sizeof(token)) != sizeof(token))
				exit(1);
		} else {
			if (read(fds[0][0], &token, sizeof(token)) != sizeof(token) ||
			    write(fds[1][1], &token, sizeof(token)) != sizeof(token))
				exit(1);
		}
	}
	migrations[me] = m0 < 0 ? -1 : thread_migrations() - m0;
	cpu_last[me] = sched_getcpu();
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[2];
	unsigned long long t0, ns;

	loops = argc > 1 ? atol(argv[1]) : 10000;
	if (loops < 1 || pipe(fds[0]) || pipe(fds[1]))
		return 1;
	t0 = now_ns();
	for (int i = 0; i < 2; i++)
		t[i] = start_thread(worker, (void *)(long)i);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	ns = now_ns() - t0;
	printf("# Executed %ld pipe operations between two threads\n", loops);
	printf("# pingpong threads' CPUs, loop start -> end: %d -> %d, %d -> %d\n", cpu_first[0],
	       cpu_last[0], cpu_first[1], cpu_last[1]);
	printf("RESULT pingpong loops=%ld usec_per_op=%.3f ops_per_sec=%llu migrations=%lld "
	       "migrations_0=%lld migrations_1=%lld\n",
	       loops, ns / 1e3 / loops, (unsigned long long)(loops * 1000000000ull / ns),
	       migrations[0] + migrations[1], migrations[0], migrations[1]);
	return 0;
}
