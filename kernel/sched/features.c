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
	printk("sched: %s\n", sched_policy_name());
}

/* The shell's `features`: one line on each (by name, so a feature added to
 * SCHED_FEATURES without a line here still lists). */
static const char *const feat_desc[][2] = {
	{ "START_DEBIT", "a new task starts one slice behind min_vruntime (place_entity)" },
	{ "GENTLE_FAIR_SLEEPERS", "a waking sleeper's vruntime credit is half a latency" },
	{ "WAKEUP_PREEMPTION", "a wakee with less vruntime (by wakeup_gran) preempts" },
	{ "NEXT_BUDDY", "prefer the last wakee as the next task to run" },
	{ "LAST_BUDDY", "prefer the preempted task to run next (cache)" },
	{ "UTIL_EST", "util_est: a task's util when it last slept guides placement" },
	{ "UTIL_EST_FASTUP", "util_est's ewma jumps up at once, decays slowly" },
	{ "ASYM_PREFER_PREV", "E1: asymmetric wakeups take an idle prev/target that fits first" },
	{ "SELECT_IDLE_CAPACITY", "E4: asymmetric wakeups scan for an idle CPU the task fits" },
	{ "SIS_DEBOUNCE", "E2: a wakee placed in this tick is not moved again in it" },
	{ "MISFIT", "a task too big for its CPU is pulled to a bigger one (misfit)" },
	{ "CACHE_HOT_BUDDY", "the balancer leaves a cache-hot buddy where it is" },
	{ "RT_UTIL_TRACKING", "E5: RT tasks' util (avg_rt) counts for schedutil's frequency" },
	{ "WA_IDLE", "wake_affine: an idle waker's or prev CPU decides" },
	{ "WA_WEIGHT", "wake_affine: compare the two CPUs' load" },
	{ "WA_BIAS", "wake_affine: bias the load comparison towards the waker's CPU" },
	{ "EAS", "energy-aware wakeups when not overutilized (sched_energy_aware)" },
	{ "UCLAMP", "uclamp's run-queue clamps apply (off: as a kernel built without)" },
	{ "RT_PUSH_PULL", "RT tasks pushed/pulled between CPUs (off: placed at wakeup only)" },
	{ "RT_PUSH_IPI", "a CPU lowering its RT prio asks overloaded CPUs to push (no pull)" },
	{ "DL_PUSH_PULL", "DL tasks pushed/pulled between CPUs (off: placed at wakeup only)" },
	{ "PLACE_LAG", "eevdf: a (re)queued entity keeps the lag it left with" },
	{ "PLACE_DEADLINE_INITIAL", "eevdf: a new task's first request is half a slice" },
	{ "PLACE_REL_DEADLINE", "eevdf: a migrating entity keeps its deadline relative" },
	{ "RUN_TO_PARITY", "eevdf: curr keeps the CPU until its request's deadline" },
	{ "PREEMPT_SHORT", "eevdf: a shorter-slice eligible wakee cancels RUN_TO_PARITY" },
	{ "PICK_BUDDY", "eevdf: the next buddy is picked when eligible" },
	{ "DELAY_DEQUEUE", "eevdf: a sleeper with negative lag stays queued until eligible" },
	{ "DELAY_ZERO", "eevdf: a delayed sleeper's positive lag is clipped to 0" },
};

void sched_feat_describe(void)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(feat_names); i++) {
		const char *d = "(no description)";

		for (unsigned int j = 0; j < ARRAY_SIZE(feat_desc); j++)
			if (!strcmp(feat_desc[j][0], feat_names[i]))
				d = feat_desc[j][1];
		printk("  %-22s %-3s %s\n", feat_names[i],
		       (sysctl_sched_features & (1u << i)) ? "on" : "off", d);
	}
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
