/* bootargs.c - parsing the command line (include/bootargs.h). Pure string
 * work on a private copy, written at boot before other CPUs run. */
#include "bootargs.h"
#include "kernel.h"

static char cmdline[BOOTARGS_MAX];
static const char *const known[] = {
	"selftest",
	"panic",
	"console",
	"earlycon",
	"sched_features",
	"cpufreq",
	"crashtest",
	"watchdog_thresh",
	"nohz",
	"bench",
	"experiment",
	"stress_seed",
	"speed",
	"speed_clock",
	"speed_stall",
	"speed_dilate",
	"cache", /* the cost of a migration: on or off (kernel/sched/speed.c) */
	"cpuidle",
	"cpuidle_governor",
	"script",   /* the shell's lines from the initrd (kernel/console.c) */
	"topology", /* the whole topology block at boot, not the summary */
	NULL,
};

/* Find word `key` (exact, before '=' or a space); returns its start or NULL. */
static const char *find(const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = cmdline; *p;) {
		while (*p == ' ')
			p++;
		if (!strncmp(p, key, klen) && (p[klen] == '=' || p[klen] == ' ' || !p[klen]))
			return p;
		while (*p && *p != ' ')
			p++;
	}
	return NULL;
}

void bootargs_init(const char *s)
{
	strlcpy_k(cmdline, s ? s : "", sizeof(cmdline));
	if (s && strlen(s) >= sizeof(cmdline))
		printk("bootargs: command line longer than %d bytes, truncated\n",
		       BOOTARGS_MAX - 1);
	for (char *p = cmdline; *p;) {
		char word[32];
		size_t n = 0;
		bool ok = false;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			*p++ = ' ';
		while (*p && *p != ' ' && *p != '=' && n + 1 < sizeof(word))
			word[n++] = *p++;
		word[n] = '\0';
		while (*p && *p != ' ')
			p++;
		for (int i = 0; known[i]; i++)
			ok |= !strcmp(word, known[i]);
		if (n && !ok)
			printk("bootargs: unknown option \"%s\" ignored\n", word);
	}
}

const char *bootarg_get(const char *key, char *buf, size_t size)
{
	const char *p = find(key);
	size_t n = 0;

	if (!p || !size)
		return NULL;
	p += strlen(key);
	if (*p == '=')
		p++;
	else
		p = "";
	while (p[n] && p[n] != ' ' && n + 1 < size)
		n++;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

bool bootarg_has(const char *key)
{
	return find(key) != NULL;
}

const char *bootargs_string(void)
{
	return cmdline;
}
