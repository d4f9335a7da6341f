/* work.h - what the Linux-side workloads of `make compare` share (linux_pipe.c,
 * linux_hackbench.c, linux_spin.c: static arm64 programs in the initramfs that
 * tools/compare/compare.py boots): CLOCK_MONOTONIC in ns, the CPU a thread is on,
 * the capacity of each CPU from sysfs, and a thread's migration count. Each
 * program prints `RESULT <kind> key=value ...` as kernel/bench/ does. */
#ifndef COMPARE_WORK_H
#define COMPARE_WORK_H

#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_CPUS 64

static inline unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* /sys/devices/system/cpu/cpuN/cpu_capacity (Linux's arch_scale_cpu_capacity);
 * 1024 where absent (a symmetric machine has no capacities: every CPU is "big"). */
static inline int cpu_capacity(int cpu)
{
	char path[96];
	int cap = 1024;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpu_capacity", cpu);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &cap) != 1)
			cap = 1024;
		fclose(f);
	}
	return cap;
}

/* A field of the calling thread's /proc/thread-self/sched (CONFIG_SCHED_DEBUG), by its
 * name's start ("se.avg.util_avg"); -1 when absent. */
static inline long long thread_sched_field(const char *name)
{
	char line[256];
	long long v = -1;
	size_t n = strlen(name);
	FILE *f = fopen("/proc/thread-self/sched", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && (line[n] == ' ' || line[n] == ':')) {
			char *colon = strchr(line, ':');

			if (colon)
				v = atoll(colon + 1);
			break;
		}
	fclose(f);
	return v;
}

/* The calling thread's se.nr_migrations; -1 when the file is not there. */
static inline long long thread_migrations(void)
{
	return thread_sched_field("se.nr_migrations");
}

static inline void pin_self(int cpu) /* cpu < 0: every CPU */
{
	cpu_set_t set;

	CPU_ZERO(&set);
	for (int c = 0; c < CPU_SETSIZE && c < MAX_CPUS; c++)
		if (cpu < 0 || c == cpu)
			CPU_SET(c, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		perror("sched_setaffinity");
}

/* A thread with a small stack (hackbench starts 160 of them). */
static inline pthread_t start_thread(void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	pthread_t t;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 128 * 1024);
	if (pthread_create(&t, &attr, fn, arg)) {
		perror("pthread_create");
		exit(1);
	}
	pthread_attr_destroy(&attr);
	return t;
}

#endif
