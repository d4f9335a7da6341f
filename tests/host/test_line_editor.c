/* test_line_editor.c - the shell's line editor (kernel/shell/shell_parse.c) fed keys as a
 * terminal sends them: Left/Right (ESC [ D / ESC [ C) move the cursor and keys insert
 * or delete there, as in readline; a line longer than the buffer is refused at Enter
 * rather than cut. The expected lines are what the keys spell, worked out by hand. */
#include "ktest.h"
#include "shell_parse.h"

static struct line_editor le;

static enum line_status feed(const char *keys)
{
	enum line_status st = LINE_MORE;

	line_editor_start(&le);
	for (const char *k = keys; *k && st == LINE_MORE; k++)
		st = line_editor_feed(&le, (unsigned char)*k);
	return st;
}

static void line_editor_cursor_keys(struct ktest *t)
{
	/* "elp", three Left, "h", three Right, " ps": "help ps". */
	EXPECT_EQ(t, feed("elp\x1b[D\x1b[D\x1b[Dh\x1b[C\x1b[C\x1b[C ps\r"), LINE_DONE);
	EXPECT_STREQ(t, le.line, "help ps");
	/* Backspace before the cursor: "cpuss", Left, DEL drops the first 's'. */
	EXPECT_EQ(t, feed("cpuss\x1b[D\x7f\r"), LINE_DONE);
	EXPECT_STREQ(t, le.line, "cpus");
	/* Left at the start and Right at the end do nothing; Ctrl-U clears from anywhere. */
	EXPECT_EQ(t, feed("\x1b[Dab\x1b[C\x1b[D\x1b[D\x15ps\r"), LINE_DONE);
	EXPECT_STREQ(t, le.line, "ps");
	EXPECT_EQ(t, le.cur, le.n);
}

static void line_editor_too_long_refused(struct ktest *t)
{
	char keys[SHELL_LINE_MAX + 8];

	for (int i = 0; i < SHELL_LINE_MAX + 5; i++)
		keys[i] = 'x';
	keys[SHELL_LINE_MAX + 5] = '\r';
	keys[SHELL_LINE_MAX + 6] = '\0';
	EXPECT_EQ(t, feed(keys), LINE_DROPPED);
	/* Exactly SHELL_LINE_MAX - 1 characters fit. */
	keys[SHELL_LINE_MAX - 1] = '\r';
	keys[SHELL_LINE_MAX] = '\0';
	EXPECT_EQ(t, feed(keys), LINE_DONE);
	EXPECT_EQ(t, le.n, SHELL_LINE_MAX - 1);
}

KTEST_SUITE(line_editor, KTEST_CASE(line_editor_cursor_keys),
	    KTEST_CASE(line_editor_too_long_refused));
