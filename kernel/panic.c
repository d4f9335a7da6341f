/* panic.c - the end of the line: report once, stop the other CPUs by IPI,
 * and halt (or power off when the boot asked for it, so that an unattended
 * self-test run ends). WARN reports and continues. */
#include "kernel.h"
#include "sched.h"

extern bool printk_panic_mode;
bool panic_poweroff; /* bootargs "panic=poweroff" */
static int panicking;

void panic(const char *fmt, ...)
{
	va_list ap;
	char buf[256];

	arch_irq_disable();
	if (__atomic_fetch_add(&panicking, 1, __ATOMIC_ACQ_REL)) {
		for (;;) /* another CPU is already panicking */
			arch_idle();
	}
	printk_panic_mode = true;
	va_start(ap, fmt);
	kvsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printk("\nKernel panic on CPU %u: %s\n", arch_cpu_id(), buf);
	arch_dump_stack();
	smp_send_stop();
	printk("---[ end Kernel panic ]---\n");
	if (panic_poweroff)
		arch_poweroff();
	for (;;)
		arch_idle();
}

void warn_slowpath(const char *file, int line, const char *cond)
{
	struct task_struct *t = current;

	printk("WARNING: CPU %u, thread %s: %s:%d: %s\n", arch_cpu_id(), t ? t->comm : "?", file,
	       line, cond);
	arch_dump_stack();
}
