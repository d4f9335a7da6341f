/* console.c - console input and the minimal interactive loop the kernel
 * boots to without "selftest". Received characters go into a ring (IRQ
 * context) and wake the reader. The full shell (ps, top, features, ...) is
 * a later issue; this loop knows a few commands and refuses the rest.
 * Ring under rx_lock. */
#include "bootargs.h"
#include "console.h"
#include "kernel.h"
#include "ktest.h"
#include "sched.h"
#include "smp.h"
#include "wait.h"

#define RX_SIZE 256
#define LINE_MAX 128

static char rx_buf[RX_SIZE];
static unsigned int rx_head, rx_tail;	/* head: next write; tail: next read */
static spinlock_t rx_lock;
static struct wait_queue_head rx_wq = { SPINLOCK_INIT, LIST_HEAD_INIT(rx_wq.head) };

void console_rx_char(char c)
{
	spin_lock(&rx_lock);
	if (rx_head - rx_tail < RX_SIZE)	/* full: drop, like a UART overrun */
		rx_buf[rx_head++ % RX_SIZE] = c;
	spin_unlock(&rx_lock);
	wake_up(&rx_wq);
}

int console_trygetc(void)
{
	unsigned long flags = spin_lock_irqsave(&rx_lock);
	int c = -1;

	if (rx_head != rx_tail)
		c = (u8)rx_buf[rx_tail++ % RX_SIZE];
	spin_unlock_irqrestore(&rx_lock, flags);
	return c;
}

int console_getc(void)
{
	int c;

	wait_event(rx_wq, (c = console_trygetc()) >= 0);
	return c;
}

static void read_line(char *line, size_t size)
{
	size_t n = 0;

	for (;;) {
		int c = console_getc();

		if (c == '\r' || c == '\n') {
			printk("\n");
			line[n] = '\0';
			return;
		} else if ((c == 0x7f || c == '\b') && n) {
			n--;
			printk("\b \b");
		} else if (c == 0x15 || c == 0x03) {	/* Ctrl-U, Ctrl-C: drop the line */
			printk("%s\n", c == 0x03 ? "^C" : "");
			n = 0;
			line[0] = '\0';
			return;
		} else if (c >= ' ' && c < 0x7f && n + 1 < size) {
			line[n++] = (char)c;
			printk("%c", c);
		}
	}
}

static void cmd_help(const char *args)
{
	printk("commands:\n"
	       "  help              this list\n"
	       "  cpus              online CPUs and their context switches\n"
	       "  selftest [a,b]    run self-test suites (all if none named)\n"
	       "  poweroff          PSCI SYSTEM_OFF\n"
	       "  reboot            PSCI SYSTEM_RESET\n");
}

static void cmd_cpus(const char *args)
{
	unsigned int cpu;

	for_each_cpu(cpu, cpu_online_mask)
		printk("cpu%u: online, %u runnable, %llu switches\n", cpu, cpu_nr_running(cpu),
		       cpu_nr_switches(cpu));
}

static void cmd_selftest(const char *args)
{
	printk("selftest: %d failed case(s)\n", ktest_run(args));
}

static void cmd_poweroff(const char *args)
{
	arch_poweroff();
}

static void cmd_reboot(const char *args)
{
	arch_reboot();
}

static const struct {
	const char *name;
	void (*fn)(const char *args);
} commands[] = {
	{ "help", cmd_help },	      { "cpus", cmd_cpus },	    { "selftest", cmd_selftest },
	{ "poweroff", cmd_poweroff }, { "reboot", cmd_reboot },
};

void console_loop(void)
{
	char line[LINE_MAX];

	printk("littlebig console: type 'help'\n");
	for (;;) {
		char *p = line, *args;
		size_t i;

		printk("littlebig> ");
		read_line(line, sizeof(line));
		while (*p == ' ')
			p++;
		if (!*p)
			continue;
		for (args = p; *args && *args != ' '; args++)
			;
		if (*args)
			*args++ = '\0';
		while (*args == ' ')
			args++;
		for (i = 0; i < ARRAY_SIZE(commands); i++) {
			if (!strcmp(p, commands[i].name)) {
				commands[i].fn(args);
				break;
			}
		}
		if (i == ARRAY_SIZE(commands))
			printk("unknown command '%s'; 'help' lists the commands\n", p);
	}
}
