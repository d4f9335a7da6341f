/* fake_printk.c - printk()/vprintk() for host builds: straight to stdout, flushed per call
 * so KTAP lines interleave correctly with sanitizer reports on stderr. The kernel's own
 * printk (console, lock) is kernel/printk.c; the formatting under test is lib/printf.c. */
#include <stdio.h>
#include "printk.h"

int vprintk(const char *fmt, va_list ap)
{
	int n = vprintf(fmt, ap);

	fflush(stdout);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}
