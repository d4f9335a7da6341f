/* console.h - the console: a driver registers its output function and feeds
 * received characters in; kernel/printk.c and kernel/console.c use them. */
#ifndef CONSOLE_H
#define CONSOLE_H

#include "types.h"

struct console {
	const char *name;
	void (*write)(const char *s, size_t n); /* polled, any context */
};

void console_register(const struct console *con);
/* Driver side: a received character (IRQ context). */
void console_rx_char(char c);
/* Reader side: next received character, sleeping until there is one. */
int console_getc(void);
/* Non-blocking: -1 if nothing was received. */
int console_trygetc(void);
/* console_getc() returns TEXT's characters first (boot option "script"). */
void console_set_script(const char *text, size_t len);

/* The interactive shell (kernel/shell/). */
void console_loop(void) __attribute__((noreturn));

#endif
