/* console.c - console input: received characters go into a ring (IRQ
 * context) and wake the reader; a script (boot option "script": the initrd's
 * text) is read before them. The shell that reads them is kernel/shell/.
 * Ring under rx_lock; the script belongs to the one reader. */
#include "console.h"
#include "kernel.h"
#include "sched.h"
#include "wait.h"

#define RX_SIZE 256

static char rx_buf[RX_SIZE];
static unsigned int rx_head, rx_tail; /* head: next write; tail: next read */
static spinlock_t rx_lock;
static struct wait_queue_head rx_wq = { SPINLOCK_INIT, LIST_HEAD_INIT(rx_wq.head) };

void console_rx_char(char c)
{
	spin_lock(&rx_lock);
	if (rx_head - rx_tail < RX_SIZE) /* full: drop, like a UART overrun */
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

/* The shell's lines come from the script first, as if typed, but only where
 * the shell reads a line: the keys that stop `sleep` or a run
 * (console_trygetc) stay the serial port's. No host input means the same
 * Image gives the same output under QEMU -icount (make labs). */
static const char *script;
static size_t script_len, script_pos;

void console_set_script(const char *text, size_t len)
{
	script = text;
	script_len = len;
	script_pos = 0;
}

int console_getc(void)
{
	int c;

	while (script_pos < script_len) {
		c = (u8)script[script_pos++];
		if (c) /* a NUL a loader padded with */
			return c;
	}

	wait_event(rx_wq, (c = console_trygetc()) >= 0);
	return c;
}
