/* thread.c - kernel thread lifetime: task_struct and stack allocation (a
 * guard page below every stack, so an overflow faults instead of silently
 * corrupting a neighbour), create, exit, join, and the global task list.
 * Not scheduling (kernel/sched/). Task list and pid counter under tasks_lock. */
#include "kernel.h"
#include "mm.h"
#include "sched.h"
#include "timer.h"

#define THREAD_STACK_PAGES 4 /* 16 KiB usable */

static struct list_head all_tasks = LIST_HEAD_INIT(all_tasks);
static spinlock_t tasks_lock;
static int next_pid = 1;
static unsigned long nr_alive;

/* Onto the task list; idle tasks are all pid 0, as Linux's swapper/N. */
static void task_list_add(struct task_struct *t)
{
	unsigned long flags = spin_lock_irqsave(&tasks_lock);

	t->pid = t->is_idle ? 0 : next_pid++;
	list_add_tail(&t->tasks, &all_tasks);
	nr_alive++;
	spin_unlock_irqrestore(&tasks_lock, flags);
}

static void task_init_common(struct task_struct *t, const char *name)
{
	strlcpy_k(t->comm, name, sizeof(t->comm));
	spin_lock_init_class(&t->pi_lock, LOCK_CLASS_PI, 0);
	init_waitqueue_head(&t->exit_wq);
	t->cpu = -1;
	cpumask_setall(&t->cpus_allowed);
	task_list_add(t);
}

/* The boot CPU's idle task (the arch's static init_task, "swapper/0") is
 * listed too, so ps shows every CPU's. */
void task_register_boot_idle(struct task_struct *t)
{
	task_list_add(t);
}

/* Stack plus a guard page below it, unmapped while the thread lives. */
static void *stack_alloc(void)
{
	u8 *base = alloc_pages(THREAD_STACK_PAGES + 1);

	if (!base)
		return NULL;
	arch_page_set_present(base, false);
	return base + PAGE_SIZE;
}

static void stack_free(void *stack)
{
	u8 *base = (u8 *)stack - PAGE_SIZE;

	arch_page_set_present(base, true);
	free_pages(base, THREAD_STACK_PAGES + 1);
}

static void thread_entry_trampoline(void *unused)
{
	struct task_struct *t = current;

	t->entry(t->arg);
	thread_exit(0);
}

struct task_struct *kthread_create(void (*fn)(void *), void *arg, const char *name)
{
	struct task_struct *t = kzalloc(sizeof(*t));

	if (!t)
		return NULL;
	t->stack = stack_alloc();
	if (!t->stack) {
		kfree(t);
		return NULL;
	}
	t->stack_size = THREAD_STACK_PAGES * PAGE_SIZE;
	t->entry = fn;
	t->arg = arg;
	t->state = TASK_NEW;
	t->refcount = 2; /* one for running, one for the creator's join */
	task_init_common(t, name);
	sched_task_init(t);
	arch_context_init(&t->ctx, (u8 *)t->stack + t->stack_size, thread_entry_trampoline, NULL);
	return t;
}

/* Undo a kthread_create() whose thread was never woken (a caller that could
 * not create all the threads it needs): both references go, and the memory. */
void kthread_discard(struct task_struct *t)
{
	if (!t)
		return;
	BUG_ON(t->state != TASK_NEW);
	put_task_struct(t);
	put_task_struct(t);
}

struct task_struct *kthread_run(void (*fn)(void *), void *arg, const char *name)
{
	struct task_struct *t = kthread_create(fn, arg, name);

	if (t)
		wake_up_new_task(t);
	return t;
}

/* The idle task of a secondary CPU: its stack is the CPU's boot stack. */
struct task_struct *idle_task_create(unsigned int cpu)
{
	struct task_struct *t = kzalloc(sizeof(*t));
	char name[TASK_COMM_LEN];

	if (!t)
		return NULL;
	t->stack = stack_alloc();
	if (!t->stack) {
		kfree(t);
		return NULL;
	}
	t->stack_size = THREAD_STACK_PAGES * PAGE_SIZE;
	t->refcount = 1;
	t->is_idle = true; /* pid 0 (sched_init_cpu() sets it again) */
	ksnprintf(name, sizeof(name), "swapper/%u", cpu);
	task_init_common(t, name);
	return t;
}

void put_task_struct(struct task_struct *t)
{
	unsigned long flags;

	if (__atomic_sub_fetch(&t->refcount, 1, __ATOMIC_ACQ_REL))
		return;
	flags = spin_lock_irqsave(&tasks_lock);
	list_del_init(&t->tasks);
	nr_alive--;
	spin_unlock_irqrestore(&tasks_lock, flags);
	stack_free(t->stack);
	kfree(t);
}

void thread_exit(int code)
{
	struct task_struct *t = current;

	BUG_ON(t->is_idle);
	t->exit_code = code;
	arch_irq_disable();
	/* Mark dead before waking the joiner; the stack is freed only after
	 * the switch away (put_task_struct in finish_task_switch). */
	t->state = TASK_DEAD;
	__atomic_store_n(&t->exited, true, __ATOMIC_RELEASE);
	wake_up(&t->exit_wq);
	schedule();
	panic("dead thread %s ran again", t->comm);
}

/* entry.S's ret_from_fork falls back here if entry returns. */
void thread_exit_current(void)
{
	thread_exit(0);
}

int kthread_join(struct task_struct *t)
{
	int code;

	wait_event(t->exit_wq, __atomic_load_n(&t->exited, __ATOMIC_ACQUIRE));
	/* Its CPU drops the running reference just after switching away from
	 * it: wait for that, so that its stack and struct are freed by the time
	 * we return and a caller's memory accounting is exact. */
	while (__atomic_load_n(&t->refcount, __ATOMIC_ACQUIRE) > 1)
		sleep_ns(2 * NSEC_PER_USEC);
	code = t->exit_code;
	put_task_struct(t);
	return code;
}

void for_each_task(void (*fn)(struct task_struct *, void *), void *arg)
{
	unsigned long flags = spin_lock_irqsave(&tasks_lock);
	struct list_head *pos;

	list_for_each(pos, &all_tasks)
		fn(container_of(pos, struct task_struct, tasks), arg);
	spin_unlock_irqrestore(&tasks_lock, flags);
}

unsigned long nr_tasks_alive(void)
{
	return READ_ONCE(nr_alive);
}

/* Iteration for the shell: a copy per task, so no caller holds tasks_lock
 * while it prints. */
int task_snapshot(struct task_info *out, int max)
{
	unsigned long flags = spin_lock_irqsave(&tasks_lock);
	struct list_head *pos;
	int n = 0;

	list_for_each(pos, &all_tasks) {
		const struct task_struct *t = container_of(pos, struct task_struct, tasks);
		struct task_info *i = &out[n];

		if (n++ >= max)
			continue;
		i->pid = t->pid;
		memcpy(i->comm, t->comm, sizeof(i->comm));
		i->cpu = t->cpu;
		i->state = t->state;
		i->on_cpu = t->on_cpu;
		i->is_idle = t->is_idle;
		i->class_name = task_class_name(t);
		i->policy = t->policy;
		i->prio = t->prio;
		i->nice = t->is_idle ? 0 : PRIO_TO_NICE(t->static_prio);
		i->util_avg = t->se.avg.util_avg;
		i->util_est = MAX(t->se.avg.util_est.ewma,
				  t->se.avg.util_est.enqueued & ~UTIL_AVG_UNCHANGED);
		i->vruntime = t->se.vruntime;
		i->nr_migrations = t->se.nr_migrations;
		i->sum_exec_runtime = t->se.sum_exec_runtime;
		sched_group_path(task_group(t), i->group, sizeof(i->group));
		i->min_vruntime = task_min_vruntime(t);
		i->deadline = t->se.deadline;
		i->slice = t->se.slice;
		i->vlag = t->se.vlag;
		i->queued = t->on_rq != 0;
		i->dl_runtime = t->dl.dl_runtime;
		i->dl_deadline = t->dl.dl_deadline;
		i->dl_period = t->dl.dl_period;
		i->cpus_allowed = t->cpus_allowed;
	}
	spin_unlock_irqrestore(&tasks_lock, flags);
	return n;
}

struct task_struct *find_get_task(int pid)
{
	unsigned long flags = spin_lock_irqsave(&tasks_lock);
	struct task_struct *found = NULL;
	struct list_head *pos;

	list_for_each(pos, &all_tasks) {
		struct task_struct *t = container_of(pos, struct task_struct, tasks);
		int ref = __atomic_load_n(&t->refcount, __ATOMIC_ACQUIRE);

		if (t->pid != pid || t->exited)
			continue;
		/* Only a task whose last reference is not being dropped right now. */
		while (ref > 0 && !__atomic_compare_exchange_n(&t->refcount, &ref, ref + 1, false,
							       __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
			;
		if (ref > 0)
			found = t;
		break;
	}
	spin_unlock_irqrestore(&tasks_lock, flags);
	return found;
}
