/* features.c - runtime feature flags, as Linux's sched features
 * (/sys/kernel/debug/sched/features): each mechanism that a reproduced patch
 * changed is one flag, so one boot shows before and after. Set from bootargs
 * (sched_features=NO_ASYM_PREFER_PREV,SIS_DEBOUNCE) or at run time.
 * The word is read locklessly; writers are rare (console, experiments). */
#include "bootargs.h"
#include "sched_internal.h"

#define F_NAME(name, def)    #name,
#define F_DEFAULT(name, def) | ((def) ? (1u << __SCHED_FEAT_##name) : 0)
static const char *const feat_names[] = { SCHED_FEATURES(F_NAME) };
u32 sysctl_sched_features = 0 SCHED_FEATURES(F_DEFAULT);

int sched_feat_set(const char *s)
{
	bool on = strncmp(s, "NO_", 3) != 0;
	const char *name = on ? s : s + 3;

	for (unsigned int i = 0; i < ARRAY_SIZE(feat_names); i++) {
		if (strcmp(name, feat_names[i]))
			continue;
		if (on)
			__atomic_fetch_or(&sysctl_sched_features, 1u << i, __ATOMIC_RELAXED);
		else
			__atomic_fetch_and(&sysctl_sched_features, ~(1u << i), __ATOMIC_RELAXED);
		if (i == __SCHED_FEAT_EAS)
			sched_energy_update(); /* Linux: the sched_energy_aware sysctl's rebuild */
		return 0;
	}
	return -1;
}

bool sched_feat_get(const char *name, bool *value)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(feat_names); i++) {
		if (!strcmp(name, feat_names[i])) {
			*value = READ_ONCE(sysctl_sched_features) & (1u << i);
			return true;
		}
	}
	return false;
}

/* One line, Linux's format: enabled names, disabled ones as NO_NAME. */
void sched_feat_print(void)
{
	char line[512];
	size_t n = 0;

	for (unsigned int i = 0; i < ARRAY_SIZE(feat_names) && n < sizeof(line); i++)
		n += (size_t)ksnprintf(line + n, sizeof(line) - n, "%s%s ",
				       (sysctl_sched_features & (1u << i)) ? "" : "NO_",
				       feat_names[i]);
	printk("sched_features: %s\n", line);
}

/* bootargs "sched_features=A,NO_B": unknown names are reported, not fatal. */
void sched_feat_init_from_bootargs(void)
{
	char buf[BOOTARGS_MAX], *p, *end;

	if (!bootarg_get("sched_features", buf, sizeof(buf)))
		return;
	for (p = buf; *p; p = end) {
		for (end = p; *end && *end != ','; end++)
			;
		if (*end)
			*end++ = '\0';
		if (*p && sched_feat_set(p))
			printk("sched_features: unknown feature \"%s\" ignored\n", p);
	}
}
