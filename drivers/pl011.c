/* pl011.c - the ARM PrimeCell PL011 UART as the console: the one that
 * /chosen/stdout-path names (QEMU's pl011@9000000, HiKey960's uart6).
 * Output is polled, so it works in any context including panic; input comes
 * by the receive interrupt and goes to console_rx_char(). Baud rate and line
 * settings are left as the firmware set them (QEMU ignores them). */
#include "boot.h"
#include "console.h"
#include "drivers.h"
#include "kernel.h"
#include "sysreg.h"

/* Register offsets and bits, PL011 TRM (ARM DDI 0183) section 3.2. */
#define UARTDR	 0x000
#define UARTFR	 0x018
#define UARTIMSC 0x038
#define UARTICR	 0x044
#define UARTCR	 0x030
#define FR_TXFF	 (1u << 5)
#define FR_RXFE	 (1u << 4)
#define INT_RX	 (1u << 4)
#define INT_RT	 (1u << 6) /* receive timeout: a partly filled FIFO went quiet */

static volatile u8 *base;
static int irq = -1;

static void pl011_putc(char c)
{
	while (readl(base + UARTFR) & FR_TXFF)
		;
	writel((u8)c, base + UARTDR);
}

static void pl011_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			pl011_putc('\r');
		pl011_putc(s[i]);
	}
}

static const struct console pl011_console = { "pl011", pl011_write };

static void pl011_irq(unsigned int intid, void *arg)
{
	while (!(readl(base + UARTFR) & FR_RXFE))
		console_rx_char((char)(readl(base + UARTDR) & 0xff));
	writel(INT_RX | INT_RT, base + UARTICR);
}

int pl011_init(const struct dtb *dt)
{
	int chosen = dtb_path(dt, "/chosen"), node;
	const char *path;
	u64 pa, size;

	if (chosen < 0 || !(path = dtb_prop_str(dt, chosen, "stdout-path")))
		return -1; /* no console: nothing can be said */
	node = dtb_path(dt, path);
	if (node < 0 || !dtb_is_compatible(dt, node, "arm,pl011") ||
	    dtb_reg(dt, node, 0, &pa, &size))
		return -1;
	base = ioremap(pa, size ? size : 0x1000);
	if (!base)
		return -1;
	console_register(&pl011_console);
	irq = dt_irq(dt, node, 0);
	return 0;
}

int pl011_enable_rx_irq(void)
{
	if (!base || irq < 0 || irq_register((unsigned int)irq, pl011_irq, NULL))
		return -1;
	writel(INT_RX | INT_RT, base + UARTICR);
	writel(INT_RX | INT_RT, base + UARTIMSC);
	gic_enable_irq((unsigned int)irq);
	return 0;
}
