/* kernel.h - what every kernel file needs: printk, panic, BUG_ON/WARN_ON_ONCE,
 * the string functions of lib/string.c. Errors come in three tiers
 * (docs/style.md habit 6): build time, BUG_ON when continuing is unsafe, WARN and
 * recover for anything survivable. External input never reaches BUG_ON. */
#ifndef KERNEL_H
#define KERNEL_H

#include "types.h"
#include "printk.h"

void panic(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void crashtest_run(const char *word); /* bootargs crashtest=WORD (tests/kernel/crashtest.c) */
/* Function holding link offset off, with offset in it and size (kernel/ksyms.c). */
const char *ksym_lookup(u64 off, u64 *symoff, u64 *size);
/* Soft/hard lockup checks, from every CPU's tick (kernel/watchdog.c). */
void watchdog_tick(void);
void watchdog_cpu_dead(unsigned int cpu);		    /* its CPU goes offline */
void watchdog_tick_stopped(unsigned int cpu, bool stopped); /* NO_HZ idle, on cpu */
void warn_slowpath(const char *file, int line, const char *cond);

#define BUG_ON(cond)                                                                               \
	do {                                                                                       \
		if (__builtin_expect(!!(cond), 0))                                                 \
			panic("BUG at %s:%d: %s", __FILE__, __LINE__, #cond);                      \
	} while (0)

#define WARN_ON_ONCE(cond)                                                                         \
	({                                                                                         \
		static bool __warned;                                                              \
		bool __c = !!(cond);                                                               \
		if (__builtin_expect(__c, 0) && !__warned) {                                       \
			__warned = true;                                                           \
			warn_slowpath(__FILE__, __LINE__, #cond);                                  \
		}                                                                                  \
		__c;                                                                               \
	})

#define READ_ONCE(x)	 (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))
#define barrier()	 __asm__ __volatile__("" ::: "memory")

/* lib/string.c (kernel only; host tests use libc's) */
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strlcpy_k(char *dst, const char *src, size_t size);

/* Error numbers (Linux's values), returned negated: -ENOMEM. */
#define EPERM	  1
#define EIO	  5
#define ENOMEM	  12
#define EBUSY	  16
#define ENODEV	  19
#define EINVAL	  22
#define ETIMEDOUT 110

#define NSEC_PER_USEC 1000ull
#define NSEC_PER_MSEC 1000000ull
#define NSEC_PER_SEC  1000000000ull

#endif
