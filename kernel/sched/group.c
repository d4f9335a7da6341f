/* group.c - task groups (Linux: struct task_group, the cpu cgroup's tree):
 * creation, nesting, removal, moving a task (sched_move_task), cpu.weight and
 * cpu.uclamp.min/max with their effective values (cpu_util_update_eff), read by
 * uclamp.c's uclamp_tg_restrict(). The CFS hierarchy (each group's entity and
 * cfs_rq per CPU) is fair_group.c's. The tree is under tg_mutex; a task's group
 * pointer is written under its rq lock (change_task) and read under it. */
#include "mm.h"
#include "mutex.h"
#include "sched_internal.h"

struct task_group root_task_group = {
	.name = "",
	.shares = NICE_0_LOAD,
	.uclamp_req = { SCHED_CAPACITY_SCALE, SCHED_CAPACITY_SCALE },
	.uclamp = { SCHED_CAPACITY_SCALE, SCHED_CAPACITY_SCALE },
};
static struct mutex tg_mutex;

/* Each child group c of tg (list.h has no list_for_each_entry). */
#define for_each_child(c, tg, pos)                                                                 \
	list_for_each(pos, &(tg)->children)                                                        \
		if (((c) = list_entry(pos, struct task_group, siblings)))

/* From sched_init(), before any other task: the root group alone. */
void sched_group_init(void)
{
	INIT_LIST_HEAD(&root_task_group.children);
	INIT_LIST_HEAD(&root_task_group.siblings);
	mutex_init(&tg_mutex);
}

struct task_group *task_group(const struct task_struct *p)
{
	struct task_group *tg = READ_ONCE(p->sched_task_group);

	return tg ? tg : &root_task_group;
}

/* Linux: cpu_util_update_eff(): a group's effective clamps are its requests
 * capped by its parent's effective ones, and min by max; then its children.
 * Queued tasks see new values at their next enqueue (Linux recounts them). */
static void cpu_util_update_eff(struct task_group *tg)
{
	struct task_group *child;
	struct list_head *pos;

	for (int id = 0; id < UCLAMP_CNT; id++) {
		unsigned int eff = tg->uclamp_req[id];

		if (tg->parent && eff > tg->parent->uclamp[id])
			eff = tg->parent->uclamp[id];
		WRITE_ONCE(tg->uclamp[id], eff);
	}
	if (tg->uclamp[UCLAMP_MIN] > tg->uclamp[UCLAMP_MAX])
		WRITE_ONCE(tg->uclamp[UCLAMP_MIN], tg->uclamp[UCLAMP_MAX]);
	for_each_child(child, tg, pos) cpu_util_update_eff(child);
}

static struct task_group *find_child(struct task_group *tg, const char *name, size_t len)
{
	struct task_group *c;
	struct list_head *pos;

	for_each_child(c, tg,
		       pos) if (strlen(c->name) == len && !strncmp(c->name, name, len)) return c;
	return NULL;
}

/* "A/B" (leading '/' optional); "" or "/" is the root. Under tg_mutex. */
static struct task_group *lookup(const char *path)
{
	struct task_group *tg = &root_task_group;

	while (*path == '/')
		path++;
	while (*path && tg) {
		size_t len = 0;

		while (path[len] && path[len] != '/')
			len++;
		tg = find_child(tg, path, len);
		path += len;
		while (*path == '/')
			path++;
	}
	return tg;
}

struct task_group *sched_group_find(const char *path)
{
	struct task_group *tg;

	mutex_lock(&tg_mutex);
	tg = lookup(path);
	mutex_unlock(&tg_mutex);
	return tg;
}

/* Linux: sched_create_group() + cpu_cgroup_css_online(): weight 100 (shares
 * 1024), clamps requested [0, 1024], effective ones from the parent. NULL for
 * a bad name (empty, '/', too long), a taken one or no memory. */
struct task_group *sched_group_create(struct task_group *parent, const char *name)
{
	size_t len = strlen(name);
	struct task_group *tg;

	parent = parent ? parent : &root_task_group;
	for (size_t i = 0; i < len; i++)
		if (name[i] == '/' || name[i] == ' ')
			return NULL;
	if (!len || len >= sizeof(tg->name) || !(tg = kzalloc(sizeof(*tg))))
		return NULL;
	strlcpy_k(tg->name, name, sizeof(tg->name));
	tg->parent = parent;
	tg->shares = NICE_0_LOAD;
	if (alloc_fair_sched_group(tg, parent)) {
		free_fair_sched_group(tg);
		kfree(tg);
		return NULL;
	}
	tg->uclamp_req[UCLAMP_MIN] = uclamp_none(UCLAMP_MIN);
	tg->uclamp_req[UCLAMP_MAX] = uclamp_none(UCLAMP_MAX);
	INIT_LIST_HEAD(&tg->children);
	mutex_lock(&tg_mutex);
	if (find_child(parent, name, len)) {
		mutex_unlock(&tg_mutex);
		free_fair_sched_group(tg);
		kfree(tg);
		return NULL;
	}
	online_fair_sched_group(tg);
	list_add_tail(&tg->siblings, &parent->children);
	cpu_util_update_eff(tg);
	mutex_unlock(&tg_mutex);
	return tg;
}

static void has_task(struct task_struct *p, void *arg)
{
	struct task_group **tg = arg;

	if (*tg && READ_ONCE(p->sched_task_group) == *tg)
		*tg = NULL;
}

/* Linux: rmdir refuses a cgroup with tasks or children (-EBUSY): -1 here. */
int sched_group_destroy(struct task_group *tg)
{
	struct task_group *probe = tg;

	if (!tg || tg == &root_task_group)
		return -1;
	mutex_lock(&tg_mutex);
	if (!list_empty(&tg->children)) {
		mutex_unlock(&tg_mutex);
		return -1;
	}
	for_each_task(has_task, &probe);
	if (!probe) {
		mutex_unlock(&tg_mutex);
		return -1;
	}
	list_del_init(&tg->siblings);
	unregister_fair_sched_group(tg);
	mutex_unlock(&tg_mutex);
	free_fair_sched_group(tg);
	kfree(tg);
	return 0;
}

/* Linux: cpu.weight 1..10000 -> shares = weight x 1024 / 100, rounded
 * (sched_weight_from_cgroup()), then sched_group_set_shares(). */
int sched_group_set_weight(struct task_group *tg, unsigned int weight)
{
	if (!tg || tg == &root_task_group || weight < 1 || weight > 10000)
		return -1;
	mutex_lock(&tg_mutex);
	sched_group_set_shares(tg, ((unsigned long)weight * NICE_0_LOAD + 50) / 100);
	mutex_unlock(&tg_mutex);
	return 0;
}

/* Linux: cpu.uclamp.min / cpu.uclamp.max (there in percent; here 0..1024). */
int sched_group_set_uclamp(struct task_group *tg, unsigned int min, unsigned int max)
{
	if (!tg || tg == &root_task_group || min > max || max > SCHED_CAPACITY_SCALE)
		return -1;
	uclamp_mark_used();
	mutex_lock(&tg_mutex);
	tg->uclamp_req[UCLAMP_MIN] = min;
	tg->uclamp_req[UCLAMP_MAX] = max;
	cpu_util_update_eff(tg);
	mutex_unlock(&tg_mutex);
	return 0;
}

int sched_group_path(const struct task_group *tg, char *buf, size_t size)
{
	int n = 0;

	if (!tg || !tg->parent)
		return ksnprintf(buf, size, "/");
	if (tg->parent->parent)
		n = sched_group_path(tg->parent, buf, size);
	if ((size_t)n < size)
		n += ksnprintf(buf + n, size - (size_t)n, "/%s", tg->name);
	return n;
}

struct group_usage {
	const struct task_group *tg;
	unsigned int tasks;
	u64 runtime;
	unsigned long util;
};

static void add_usage(struct task_struct *p, void *arg)
{
	struct group_usage *u = arg;

	if (task_group(p) != u->tg || p->is_idle)
		return;
	u->tasks++;
	u->runtime += READ_ONCE(p->se.sum_exec_runtime);
	u->util += READ_ONCE(p->se.avg.util_avg);
}

/* Each CPU where the group has load: its cfs_rq's load and util, its entity's weight
 * (its share of tg->shares there, calc_group_shares) and the tasks below it. */
static void print_group_cpus(struct task_group *tg)
{
	struct sched_group_cpu s;
	unsigned int cpu;

	for_each_cpu(cpu, cpu_online_mask) {
		if (sched_group_cpu_stats(tg, cpu, &s) ||
		    (!s.cfs_load && !s.cfs_util && !s.nr_running))
			continue;
		printk("  cpu%-3u load %5lu util %4lu weight %5lu tasks %u\n", cpu, s.cfs_load,
		       s.cfs_util, s.se_weight, s.nr_running);
	}
}

static void print_tree(struct task_group *tg)
{
	struct group_usage u = { .tg = tg };
	struct task_group *c;
	struct list_head *pos;
	char path[128];

	sched_group_path(tg, path, sizeof(path));
	for_each_task(add_usage, &u);
	printk("%-20s %6lu %4u-%-4u %4u-%-4u %5u %12llu %5lu\n", path, tg->shares,
	       tg->uclamp_req[UCLAMP_MIN], tg->uclamp_req[UCLAMP_MAX], tg->uclamp[UCLAMP_MIN],
	       tg->uclamp[UCLAMP_MAX], u.tasks, u.runtime / NSEC_PER_USEC, u.util);
	print_group_cpus(tg);
	for_each_child(c, tg, pos) print_tree(c);
}

/* The `cgroups` listing: each group's settings and its tasks' usage, then per CPU its
 * cfs_rq's load and util (tg->load_avg is their sum, within the 1/64 filter). */
void sched_group_print(void)
{
	mutex_lock(&tg_mutex);
	printk("%-20s %6s %9s %9s %5s %12s %5s\n", "group", "shares", "uclamp", "effective",
	       "tasks", "runtime_us", "util");
	print_tree(&root_task_group);
	mutex_unlock(&tg_mutex);
}

/* Linux: sched_change_group() -> task_change_group_fair() (a task that is not fair
 * only changes its pointer). */
static void apply_group(struct task_struct *p, long arg)
{
	struct task_group *tg = (struct task_group *)arg;

	task_change_group_fair(p, tg == &root_task_group ? NULL : tg);
}

/* Linux: sched_move_task(): dequeue (and put) the task, change its group (its
 * signals leave one hierarchy and join the other), enqueue (and set next) again,
 * so that it is queued on its new group's cfs_rq and its rq's clamp buckets
 * recount it. */
int sched_move_task(struct task_struct *p, struct task_group *tg)
{
	if (!p || !tg || p->is_idle)
		return -1;
	mutex_lock(&tg_mutex);
	sched_change_task(p, apply_group, (long)tg);
	mutex_unlock(&tg_mutex);
	return 0;
}
