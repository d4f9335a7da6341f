/* printk.h - formatted output. lib/printf.c formats (pure, host-tested);
 * kernel/printk.c sends whole lines to the console under one lock.
 * Formats: %d %i %u %x %X %o %c %s %p %%, the l / ll / z length modifiers,
 * '-' and '0' flags, a field width and a precision for %s. No floating point. */
#ifndef PRINTK_H
#define PRINTK_H

#include <stdarg.h>
#include "types.h"

/* Like C's vsnprintf: always NUL-terminates when size > 0, returns the length
 * the full output would have had. */
int kvsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int ksnprintf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Print to the console. Safe from any context, any CPU; lines from
 * different CPUs are never interleaved within a line. */
int printk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vprintk(const char *fmt, va_list ap);

#endif
