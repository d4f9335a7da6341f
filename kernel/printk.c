/* printk.c - formatted console output: each call is formatted into a local
 * buffer (lib/printf.c) and written whole under console_lock, so lines from
 * different CPUs never interleave. During panic the lock is taken with a
 * bounded wait, since its holder may have been stopped. */
#include "console.h"
#include "kernel.h"
#include "spinlock.h"

static const struct console *con;
static spinlock_t console_lock;
bool printk_panic_mode;

void console_register(const struct console *c)
{
	con = c;
}

static void console_write(const char *s, size_t n)
{
	if (con)
		con->write(s, n);
}

int vprintk(const char *fmt, va_list ap)
{
	char buf[320];
	int n = kvsnprintf(buf, sizeof(buf), fmt, ap);
	size_t len = MIN((size_t)n, sizeof(buf) - 1);
	unsigned long flags = arch_irq_save();
	bool locked = true;

	if (printk_panic_mode) {
		int tries = 1000000;

		while (!spin_trylock(&console_lock) && --tries)
			arch_cpu_relax();
		locked = tries > 0;
	} else {
		spin_lock(&console_lock);
	}
	console_write(buf, len);
	if (locked)
		spin_unlock(&console_lock);
	arch_irq_restore(flags);
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
