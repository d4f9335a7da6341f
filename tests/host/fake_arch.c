/* fake_arch.c - include/arch.h for the host tests (tests/host/fake_arch.h): fake CPUs on
 * the test's one host thread, a clock that only the test advances, interrupts delivered
 * the way the arm64 IRQ path delivers them, and kthreads (the stop class's stoppers) as
 * coroutines on stacks of their own. Also the few kernel functions outside the linked
 * files that the scheduler calls: kernel/thread.c's (its stacks come from the page
 * allocator and its task list outlives a test's machine) and kernel/panic.c's (it would
 * park the CPU; here it aborts). kernel/smp.c and kernel/arch_topology.c are the real ones.
 * Not: simulated CPU speed (arch/sim). No locks: one host thread, so any spin in
 * arch_cpu_relax() is a deadlock and is reported as one. */
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif
#include "fake_arch.h"
#include "kernel.h"
#include "ktest.h"
#include "lockdep.h"
#include "sched.h"
#include "timer.h"
#include "topology.h"

struct fake_cpu fake_cpus[NR_CPUS];
unsigned int fake_arch_violations, fake_arch_warnings;
static u64 now_ns;
static unsigned int this_cpu;

static void violation(const char *what)
{
	fake_arch_violations++;
	printk("# fake_arch: CPU%u: %s\n", this_cpu, what);
}

/* ---- kthreads as coroutines ----------------------------------------------------------------
 * Tasks the tests make have no stack: they all run on the host's, which the test drives
 * (the "host context"). A kthread gets a stack and a ucontext: switching to it jumps
 * there, and it runs until it switches to a stackless task, which jumps back to the host
 * context, into the arch_context_switch() that left it. So at most one context runs, and
 * only a switch moves between them. ASan is told about each stack switch. */

#define THREAD_STACK_SIZE (256 * 1024) /* ASan's frames are large */

struct fake_thread {
	ucontext_t uc;
	void *stack;
	void *asan_fake_stack; /* ASan's bookkeeping while switched out */
	void (*entry)(void *);
	void *arg;
	struct task_struct *task;
	struct fake_thread *next; /* all_threads */
};

static struct fake_thread *all_threads;
static ucontext_t host_uc;
static void *host_asan_fake_stack;
static const void *host_stack_bottom;
static size_t host_stack_size;
static struct task_struct *switch_last; /* what the context switched to returns */
static bool switch_from_host;

/* A kthread's ctx.regs[13] holds its fake_thread; the tests' tasks have zeroes there. */
static struct fake_thread *thread_of(const struct task_struct *t)
{
	return (struct fake_thread *)(uintptr_t)t->ctx.regs[13];
}

static void asan_start_switch(void **save, const struct fake_thread *to)
{
#if defined(__SANITIZE_ADDRESS__)
	__sanitizer_start_switch_fiber(save, to ? to->stack : host_stack_bottom,
				       to ? THREAD_STACK_SIZE : host_stack_size);
#endif
}

static void asan_finish_switch(void *save)
{
#if defined(__SANITIZE_ADDRESS__)
	const void *bottom;
	size_t size;

	__sanitizer_finish_switch_fiber(save, &bottom, &size);
	if (switch_from_host) { /* learn the host stack, to switch back to it */
		host_stack_bottom = bottom;
		host_stack_size = size;
	}
#endif
}

/* A kthread's first instructions (arm64: ret_from_fork), then its function. */
static void thread_start(void)
{
	struct task_struct *t;

	asan_finish_switch(NULL);
	schedule_tail(switch_last);
	t = arch_current();
	thread_of(t)->entry(thread_of(t)->arg);
	t->state = TASK_DEAD; /* kernel/thread.c thread_exit() */
	schedule();
	panic("fake_arch: dead kthread %s ran again", t->comm);
}

/* Switch the host thread from prev's context to next's; returns in next's context. */
static void context_jump(struct task_struct *prev, struct task_struct *next)
{
	struct fake_thread *from = thread_of(prev), *to = thread_of(next);
	void **save = from ? &from->asan_fake_stack : &host_asan_fake_stack;

	switch_last = prev;
	switch_from_host = !from;
	asan_start_switch(save, to);
	if (swapcontext(from ? &from->uc : &host_uc, to ? &to->uc : &host_uc)) {
		printk("fake_arch: swapcontext failed\n");
		abort();
	}
	asan_finish_switch(*save);
}

/* getcontext() returns twice, as setjmp(): kept away from kthread_create's locals. */
static int thread_context_init(struct fake_thread *th)
{
	if (getcontext(&th->uc))
		return -1;
	th->uc.uc_stack.ss_sp = th->stack;
	th->uc.uc_stack.ss_size = THREAD_STACK_SIZE;
	th->uc.uc_link = NULL;
	makecontext(&th->uc, thread_start, 0);
	return 0;
}

/* kernel/thread.c's kthread_create(): a new task, not yet woken, whose function runs
 * on its own stack when it is first switched to. */
struct task_struct *kthread_create(void (*fn)(void *), void *arg, const char *name)
{
	static int next_pid = 10000;
	struct task_struct *t = calloc(1, sizeof(*t));
	struct fake_thread *th = calloc(1, sizeof(*th));

	if (!t || !th || !(th->stack = malloc(THREAD_STACK_SIZE)) || thread_context_init(th)) {
		free(th ? th->stack : NULL);
		free(th);
		free(t);
		return NULL;
	}
	th->entry = fn;
	th->arg = arg;
	th->task = t;
	th->next = all_threads;
	all_threads = th;
	snprintf(t->comm, sizeof(t->comm), "%s", name);
	spin_lock_init(&t->pi_lock);
	init_waitqueue_head(&t->exit_wq);
	t->ctx.regs[13] = (u64)(uintptr_t)th;
	t->pid = next_pid++;
	t->cpu = -1;
	cpumask_setall(&t->cpus_allowed);
	t->state = TASK_NEW;
	t->refcount = 2;
	sched_task_init(t);
	return t;
}

/* ---- include/arch.h ------------------------------------------------------------------ */

unsigned int arch_cpu_id(void)
{
	return this_cpu;
}

struct task_struct *arch_current(void)
{
	return fake_cpus[this_cpu].curr;
}

unsigned long arch_irq_save(void)
{
	unsigned long flags = fake_cpus[this_cpu].irqs_off;

	fake_cpus[this_cpu].irqs_off = true;
	return flags;
}

void arch_irq_restore(unsigned long flags)
{
	if (flags > 1)
		violation("arch_irq_restore() of a value arch_irq_save() never returned");
	fake_cpus[this_cpu].irqs_off = flags;
}

void arch_irq_enable(void)
{
	fake_cpus[this_cpu].irqs_off = false;
}

void arch_irq_disable(void)
{
	fake_cpus[this_cpu].irqs_off = true;
}

bool arch_irqs_disabled(void)
{
	return fake_cpus[this_cpu].irqs_off;
}

u64 arch_clock_ns(void)
{
	return now_ns;
}

void arch_clock_dilate(unsigned int d)
{
	(void)d; /* the host's clock is the tests' own */
}

void arch_timer_set_deadline(u64 ns)
{
	if (!fake_cpus[this_cpu].irqs_off)
		violation("arch_timer_set_deadline() with IRQs on");
	fake_cpus[this_cpu].deadline = ns;
}

void arch_send_ipi(unsigned int cpu, enum ipi_type type)
{
	if (cpu >= NR_CPUS || (unsigned int)type >= NR_IPIS) {
		violation("arch_send_ipi() to no CPU or of no type");
		return;
	}
	fake_cpus[cpu].ipi_pending |= 1u << type;
	fake_cpus[cpu].nr_ipis[type]++;
}

/* The interrupt that ends the wait has been taken already: fake_arch_irq() calls the
 * idle loop after it. */
void arch_idle(void)
{
	if (!fake_cpus[this_cpu].irqs_off)
		violation("arch_idle() with IRQs on");
}

void arch_wfi(void)
{
	if (!fake_cpus[this_cpu].irqs_off)
		violation("arch_wfi() with IRQs on");
}

/* The firmware's idle state: as wfi here. */
int arch_cpu_suspend(u32 psci_param)
{
	arch_wfi();
	return 0;
}

/* The fake CPUs share one clock: a stall moves it on (the stalling CPU is the
 * only one executing in a host test). */
void arch_stall_until(u64 deadline_ns)
{
	if (!fake_cpus[this_cpu].irqs_off)
		violation("arch_stall_until() with IRQs on");
	if (deadline_ns > now_ns)
		now_ns = deadline_ns;
}

/* No QEMU plugin counts the fake CPUs' instructions: speed=exact is refused. */
bool arch_insn_counter_present(void)
{
	return false;
}

u64 arch_insn_count(void)
{
	return 0;
}

u64 arch_insn_count_cpu(unsigned int cpu)
{
	return 0;
}

/* Nothing else runs while this host thread spins: the lock or flag waited for can
 * never change. Give it a few rounds (a trylock loop may be legitimate), then stop. */
void arch_cpu_relax(void)
{
	static unsigned long spins;

	if (++spins % 1000000 == 0) {
		printk("# fake_arch: CPU%u spins forever: a lock taken twice on one CPU, or a wait "
		       "for a CPU that cannot run\n",
		       this_cpu);
		abort();
	}
}

/* Between two stackless tasks nothing moves: the caller goes on as `next`
 * (arch_current() is next from here), and what it resumes to see is the task switched
 * out, `prev` (Linux: last). A kthread on either side: a jump between contexts, and
 * the one resumed sees the task that was switched out to resume it. */
struct task_struct *arch_context_switch(struct task_struct *prev, struct arch_context *prev_ctx,
					struct task_struct *next, struct arch_context *next_ctx)
{
	struct fake_cpu *c = &fake_cpus[this_cpu];

	if (!c->irqs_off)
		violation("arch_context_switch() with IRQs on");
	if (c->curr != prev)
		violation("arch_context_switch() from a task that is not current");
	c->curr = next;
	c->nr_switches++;
	c->last_prev = prev;
	c->last_next = next;
	if (!thread_of(prev) && !thread_of(next))
		return prev;
	context_jump(prev, next);
	return switch_last;
}

/* Only the fake's own kthread_create() makes runnable contexts (it knows the stack size
 * that ucontext needs); a context made here is stackless. */
void arch_context_init(struct arch_context *ctx, void *stack_top, void (*entry)(void *), void *arg)
{
	memset(ctx, 0, sizeof(*ctx));
}

u64 arch_cpu_hwid(void)
{
	return (int)this_cpu < cpu_topology.nr_cpus ? cpu_topology.cpu[this_cpu].mpidr : this_cpu;
}

void arch_set_cpu_id(unsigned int cpu)
{
	fake_arch_set_cpu(cpu);
}

void arch_page_set_present(void *page, bool present)
{
}

void arch_dump_stack(void)
{
}

/* ---- the rest of the kernel that the scheduler calls ----------------------------------- */

/* kernel/timer.c's tick calls it; lockups are not simulated here. */
void watchdog_tick(void)
{
}

void watchdog_tick_stopped(unsigned int cpu, bool stopped)
{
}

/* Tasks belong to the test that made them; the scheduler only drops its reference. */
/* kernel/ktest.c's hook: unittests is built with CONFIG_DEBUG_SCHED, and a
 * report of its checks (include/lockdep.h) during a case fails the case. */
unsigned long ktest_case_begin(void)
{
	return debug_failures();
}

void ktest_case_end(struct ktest *t, unsigned long token)
{
	if (debug_failures() != token)
		ktest_fail(t, __FILE__, __LINE__, "%lu debug check report(s) during the case",
			   debug_failures() - token);
}

/* kernel/thread.c's task list: here, the kthreads (tests' own tasks are not listed). */
void for_each_task(void (*fn)(struct task_struct *, void *), void *arg)
{
	for (struct fake_thread *th = all_threads; th; th = th->next)
		if (th->task)
			fn(th->task, arg);
}

/* kernel/cpu.c's: one host thread runs the harness, so no CPU is inside the scheduler. */
int stop_machine_cpus_locked(int (*fn)(void *), void *arg)
{
	return fn(arg);
}

void put_task_struct(struct task_struct *t)
{
	__atomic_sub_fetch(&t->refcount, 1, __ATOMIC_ACQ_REL);
}

void panic(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printk("\nKernel panic on CPU %u: %s\n", this_cpu, buf);
	abort();
}

void warn_slowpath(const char *file, int line, const char *cond)
{
	struct task_struct *t = fake_cpus[this_cpu].curr;

	fake_arch_warnings++;
	printk("# WARNING: CPU %u, thread %s: %s:%d: %s\n", this_cpu, t ? t->comm : "?", file, line,
	       cond);
}

/* ---- the machine ------------------------------------------------------------------------ */

/* kzalloc for the scheduler's boot-time allocations (rq->sd_groups): a bump
 * arena that each machine (fake_arch_reset) starts afresh, as the harness
 * clears the run queues that point into it. */
static _Alignas(16) char arena[1 << 20];
static size_t arena_used;

void *kzalloc(size_t size)
{
	void *p;

	size = ALIGN_UP(size, 16);
	if (size > sizeof(arena) - arena_used)
		return NULL;
	p = arena + arena_used;
	arena_used += size;
	memset(p, 0, size);
	return p;
}

void kfree(void *p)
{
	(void)p; /* the arena is reclaimed whole by the next machine */
}

void fake_arch_reset(void)
{
	arena_used = 0;
	/* The previous machine's kthreads: none runs (the host context does). */
	while (all_threads) {
		struct fake_thread *th = all_threads;

		all_threads = th->next;
		free(th->stack);
		free(th->task);
		free(th);
	}
	memset(fake_cpus, 0, sizeof(fake_cpus));
	for (int i = 0; i < NR_CPUS; i++)
		fake_cpus[i].deadline = ~0ull;
	now_ns = 0;
	this_cpu = 0;
	fake_arch_violations = fake_arch_warnings = 0;
}

void fake_arch_set_cpu(unsigned int cpu)
{
	if (cpu >= NR_CPUS) {
		violation("fake_arch_set_cpu() beyond NR_CPUS");
		return;
	}
	this_cpu = cpu;
}

void fake_arch_set_current(unsigned int cpu, struct task_struct *t)
{
	fake_cpus[cpu].curr = t;
}

u64 fake_arch_now(void)
{
	return now_ns;
}

void fake_arch_irq(unsigned int cpu)
{
	struct fake_cpu *c = &fake_cpus[cpu];
	unsigned int saved = this_cpu, pending;

	this_cpu = cpu;
	/* Between the test's steps every CPU runs a task or waits in its idle loop, both
	 * with IRQs on: anything else is a missing restore. */
	if (c->irqs_off)
		violation("interrupt while IRQs are off: a save/disable without its restore?");
	c->irqs_off = true;
	c->in_irq = true;
	c->nr_irqs++;
	pending = c->ipi_pending;
	c->ipi_pending = 0;
	if (pending & (1u << IPI_STOP)) /* kernel/smp.c would park this CPU for ever */
		violation("IPI_STOP: panic's stop on the host");
	for (unsigned int type = 0; type < NR_IPIS; type++)
		if (type != IPI_STOP && (pending & (1u << type)))
			ipi_handler((enum ipi_type)type); /* kernel/smp.c, as gic.c calls it */
	if (c->deadline <= now_ns) {
		c->deadline = ~0ull; /* masked until reprogrammed, as arm_timer_irq() */
		timer_interrupt();
	}
	c->in_irq = false;
	irq_exit_preempt();
	c->irqs_off = false; /* the exception return */
	if (c->curr && c->curr->is_idle)
		cpu_idle_once(); /* the idle loop resumes after its wfi */
	this_cpu = saved;
}

void fake_arch_deliver_ipis(void)
{
	for (int round = 0; round < 10000; round++) {
		bool any = false;

		for (unsigned int cpu = 0; cpu < NR_CPUS; cpu++) {
			if (fake_cpus[cpu].ipi_pending && cpu_online(cpu)) {
				fake_arch_irq(cpu);
				any = true;
			}
		}
		if (!any)
			return;
	}
	violation("IPIs keep coming at one instant (an IPI storm)");
}

void fake_arch_run_until(u64 ns)
{
	unsigned long same_instant = 0;

	for (;;) {
		int best = -1;

		fake_arch_deliver_ipis();
		for (int cpu = 0; cpu < NR_CPUS; cpu++) {
			if (cpu_online((unsigned int)cpu) && fake_cpus[cpu].deadline <= ns &&
			    (best < 0 || fake_cpus[cpu].deadline < fake_cpus[best].deadline))
				best = cpu;
		}
		if (best < 0)
			break;
		if (fake_cpus[best].deadline > now_ns) {
			now_ns = fake_cpus[best].deadline;
			same_instant = 0;
		} else if (++same_instant > 100000) {
			violation("timer interrupts keep coming at one instant");
			break;
		}
		fake_arch_irq((unsigned int)best);
	}
	if (ns > now_ns)
		now_ns = ns;
	fake_arch_deliver_ipis();
}

/* kernel/smp.c's smp_init() starts real CPUs; on the host the tests bring their fake CPUs
 * up themselves (tests/host/sched_harness.h), so it is never called. */
int arch_cpu_start(unsigned int cpu, struct task_struct *idle)
{
	violation("arch_cpu_start(): smp_init() is not for the host");
	return -1;
}

struct task_struct *idle_task_create(unsigned int cpu)
{
	violation("idle_task_create(): smp_init() is not for the host");
	return NULL;
}

/* The fake CPUs never go offline (kernel/cpu.c is not linked here). */
void cpuhp_report_idle_dead(void)
{
	abort();
}
