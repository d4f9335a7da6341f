/* shell_cgroup.c - the console's task-group commands, in the spirit of the
 * cgroup tools: cgcreate (nested paths, weight, uclamp), cgclassify, cgdelete
 * and the cgroups listing (kernel/sched/group.c does the work; cgexec lives
 * in shell_run.c beside `run`). External input: refused with a message. */
#include "kernel.h"
#include "sched.h"
#include "shell_internal.h"
#include "shell_parse.h"

/* "A/B": the parent "A" must exist; the last component is created. */
static struct task_group *create_path(const char *path)
{
	char parent[128];
	const char *slash = NULL;
	struct task_group *p, *tg;

	for (const char *c = path; *c; c++)
		if (*c == '/')
			slash = c;
	if (!slash)
		return sched_group_create(NULL, path);
	if ((size_t)(slash - path) >= sizeof(parent))
		return NULL;
	memcpy(parent, path, (size_t)(slash - path));
	parent[slash - path] = '\0';
	p = sched_group_find(parent);
	if (!p) {
		printk("cgcreate: no group '%s'\n", parent);
		return NULL;
	}
	tg = sched_group_create(p, slash + 1);
	return tg;
}

/* cgcreate NAME [weight=W] [uclamp.min=V] [uclamp.max=V] (clamps 0..1024) */
int shell_cgroup_cgcreate(int argc, char **argv)
{
	long weight = 100, umin = 0, umax = 1024;
	struct task_group *tg;

	if (argc < 2)
		return -1;
	for (int i = 2; i < argc; i++) {
		if (!strncmp(argv[i], "weight=", 7)) {
			if (!parse_long("weight", argv[i] + 7, 1, 10000, &weight))
				return -1;
		} else if (!strncmp(argv[i], "uclamp.min=", 11)) {
			if (!parse_long("uclamp.min", argv[i] + 11, 0, 1024, &umin))
				return -1;
		} else if (!strncmp(argv[i], "uclamp.max=", 11)) {
			if (!parse_long("uclamp.max", argv[i] + 11, 0, 1024, &umax))
				return -1;
		} else {
			printk("cgcreate: unknown setting '%s'\n", argv[i]);
			return -1;
		}
	}
	if (umin > umax) {
		printk("cgcreate: uclamp.min %ld above uclamp.max %ld\n", umin, umax);
		return -1;
	}
	tg = create_path(argv[1]);
	if (!tg) {
		printk("cgcreate: cannot create '%s' (exists, bad name or no memory)\n", argv[1]);
		return -1;
	}
	sched_group_set_weight(tg, (unsigned int)weight);
	sched_group_set_uclamp(tg, (unsigned int)umin, (unsigned int)umax);
	printk("cgcreate: %s weight=%ld uclamp=%ld-%ld\n", argv[1], weight, umin, umax);
	return 0;
}

/* cgclassify NAME PID ("/" is the root group) */
int shell_cgroup_cgclassify(int argc, char **argv)
{
	struct task_group *tg;
	struct task_struct *t;
	long pid;
	int ret;

	if (argc != 3 || !parse_long("pid", argv[2], 1, 1000000000, &pid))
		return -1;
	tg = sched_group_find(argv[1]);
	if (!tg) {
		printk("cgclassify: no group '%s'\n", argv[1]);
		return -1;
	}
	t = find_get_task((int)pid);
	if (!t) {
		printk("cgclassify: no task %ld\n", pid);
		return -1;
	}
	ret = sched_move_task(t, tg);
	if (ret)
		printk("cgclassify: cannot move %s\n", t->comm);
	else
		printk("pid %d (%s) -> %s\n", t->pid, t->comm, argv[1]);
	put_task_struct(t);
	return ret;
}

int shell_cgroup_cgdelete(int argc, char **argv)
{
	if (argc != 2)
		return -1;
	if (sched_group_destroy(sched_group_find(argv[1]))) {
		printk("cgdelete: cannot remove '%s' (root, missing, or has tasks or groups)\n",
		       argv[1]);
		return -1;
	}
	return 0;
}

int shell_cgroup_cgroups(int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return -1;
	sched_group_print();
	return 0;
}
