/* shell_help.h - the long help of the shell's commands (kernel/shell/shell_help.c). */
#ifndef SHELL_HELP_H
#define SHELL_HELP_H

/* What `help NAME` prints after the usage line (columns, letters, units), or NULL. */
const char *shell_help_text(const char *name);

#endif
