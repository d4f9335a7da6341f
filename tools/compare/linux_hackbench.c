/* linux_hackbench.c - `hackbench -T -P` (thread mode, pipes) for `make compare`:
 * G groups of 20 senders and 20 receivers; each receiver owns a pipe, each
 * sender writes L messages of 100 bytes to every receiver of its group. All
 * threads are started first and released together (hackbench's ready/wakeup
 * pipes); the time is from the release to the last thread joined. Prints
 * kernel/bench/bench_hackbench.c's RESULT hackbench line.
 *   hackbench G L */
#include "work.h"

#define FDS 20
#define MSG 100

struct worker {
	int fd;	   /* sender: unused; receiver: its pipe's read end */
	int *wfds; /* sender: the group's write ends */
};

static long loops;
static int ready[2], wake[2];

static void wait_go(void)
{
	char c = 0;

	if (write(ready[1], &c, 1) != 1 || read(wake[0], &c, 1) != 1)
		exit(1);
}

static void *sender(void *arg)
{
	struct worker *w = arg;
	char msg[MSG];

	memset(msg, 0, sizeof(msg));
	wait_go();
	for (long i = 0; i < loops; i++)
		for (int j = 0; j < FDS; j++)
			if (write(w->wfds[j], msg, MSG) != MSG)
				exit(1);
	return NULL;
}

static void *receiver(void *arg)
{
	struct worker *w = arg;
	char msg[MSG];

	wait_go();
	for (long i = 0; i < loops * FDS; i++) {
		long done = 0;

		while (done < MSG) {
			long n = read(w->fd, msg + done, MSG - done);

			if (n <= 0)
				exit(1);
			done += n;
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int groups = argc > 1 ? atoi(argv[1]) : 1;
	int n = groups * 2 * FDS;
	pthread_t *t = calloc(n, sizeof(*t));
	struct worker *w = calloc(n, sizeof(*w));
	int(*wfds)[FDS] = calloc(groups, sizeof(*wfds));
	unsigned long long t0, ns;
	char c[256];

	loops = argc > 2 ? atol(argv[2]) : 10;
	if (groups < 1 || loops < 1 || !t || !w || !wfds || pipe(ready) || pipe(wake))
		return 1;
	for (int g = 0; g < groups; g++)
		for (int j = 0; j < FDS; j++) {
			int p[2];

			if (pipe(p))
				return 1;
			w[g * 2 * FDS + j].fd = p[0]; /* receivers first, as hackbench */
			wfds[g][j] = p[1];
			w[g * 2 * FDS + FDS + j].wfds = wfds[g];
		}
	for (int i = 0; i < n; i++)
		t[i] = start_thread(i % (2 * FDS) < FDS ? receiver : sender, &w[i]);
	for (int got = 0; got < n;) {
		long r = read(ready[0], c,
			      (size_t)(n - got) < sizeof(c) ? (size_t)(n - got) : sizeof(c));

		if (r <= 0)
			return 1;
		got += (int)r;
	}
	memset(c, 0, sizeof(c));
	t0 = now_ns();
	for (int left = n; left > 0; left -= (int)sizeof(c)) /* release all */
		if (write(wake[1], c, left < (int)sizeof(c) ? (size_t)left : sizeof(c)) <= 0)
			return 1;
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	ns = now_ns() - t0;
	printf("Running in threaded mode with %d groups using %d file descriptors each "
	       "(== %d tasks)\nTime: %.3f\n",
	       groups, 2 * FDS, n, ns / 1e9);
	printf("RESULT hackbench groups=%d loops=%ld seconds=%llu.%06llu\n", groups, loops,
	       ns / 1000000000ull, ns / 1000 % 1000000);
	return 0;
}
