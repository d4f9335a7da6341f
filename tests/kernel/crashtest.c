/* crashtest.c - bootargs "crashtest=WORD": break the kernel on purpose, in a
 * thread of its own, so that tools/runtests.py can check the report each
 * kind of failure gives (the runs that expect a panic). Owns nothing but the
 * ways to fail; the reports themselves come from traps.c, panic.c and
 * watchdog.c. No state, no locks. */
#include "kernel.h"
#include "../../kernel/sched/sched_internal.h"
#include "timer.h"

/* A `ret` instruction, in .data: fetching it must fault (data is PXN). */
static u32 crash_ret_insn = 0xd65f03c0;
static volatile int crash_depth_limit = 1 << 30; /* hides the recursion's end from gcc */

static void crash_fault(void)
{
	uintptr_t unmapped = 0x10; /* below RAM and MMIO: never mapped */

	__asm__ volatile("" : "+r"(unmapped)); /* hide the constant from gcc's checks */
	*(volatile u64 *)unmapped = 0xdead;
}

/* 512 bytes a frame until the stack runs into its guard page. */
static __attribute__((noinline)) int crash_recurse(int depth)
{
	volatile char pad[512];

	pad[depth & 511] = (char)depth;
	if (depth >= crash_depth_limit)
		return 0;
	return crash_recurse(depth + 1) + pad[0];
}

static void crash_stack(void)
{
	crash_recurse(0);
}

/* Text is mapped read-only: a permission fault on the write. */
static void crash_write_text(void)
{
	volatile u32 *insn = (volatile u32 *)(uintptr_t)crash_write_text;

	__asm__ volatile("" : "+r"(insn));
	*insn = 0xd503201f; /* nop */
}

static void jump_to(void *code)
{
	__asm__ volatile("" : "+r"(code));
	((void (*)(void))code)();
}

static void crash_exec_data(void)
{
	jump_to(&crash_ret_insn);
}

/* Stacks are data too: PXN, an instruction abort on the fetch. */
static void crash_exec_stack(void)
{
	volatile u32 code[2] = { 0xd65f03c0, 0 };

	jump_to((void *)code);
}

/* Overrun a local array through the canary above it (-fstack-protector-strong). */
static __attribute__((noinline)) void crash_smash(void)
{
	char buf[16];
	volatile char *p = buf;

	__asm__ volatile("" : "+r"(p)); /* gcc must not see the overrun coming */
	for (int i = 0; i < 40; i++)
		p[i] = 0x5a;
}

/* Stuck with preemption off and IRQs on: ticks come, nothing is scheduled.
 * wfi, not a busy loop: under -icount emulated time then runs at no cost. */
static void crash_softlockup(void)
{
	preempt_disable();
	for (;;)
		__asm__ volatile("wfi");
}

/* Stuck with IRQs off: this CPU's tick stops; another CPU must notice.
 * A plain loop: `yield` leaves QEMU's translated code each time (slow), and
 * wfi with a masked interrupt pending never sleeps either. */
static void crash_hardlockup(void)
{
	arch_irq_disable();
	for (;;)
		__asm__ volatile("nop");
}

/* The debug build's checks (include/lockdep.h), each on the real locks and
 * run queues; each must print its "BUG: ..." report and the kernel goes on.
 * A wrong order of two rq locks could really deadlock against a balancing
 * CPU, so that case is proven on private rq-class locks (suite debug); here
 * the classic inversion: a pi_lock (our own: nobody else takes it while we
 * run) under an rq lock. */
static void crash_sched_checks(void)
{
	unsigned long flags = arch_irq_save();
	struct rq *rq = this_rq();

	printk("crashtest: pi_lock taken under rq->lock\n");
	spin_lock(&rq->lock);
	spin_lock(&current->pi_lock);
	spin_unlock(&current->pi_lock);
	spin_unlock(&rq->lock);
	printk("crashtest: update_rq_clock() without rq->lock\n");
	update_rq_clock(rq);
	printk("crashtest: cpu%u nr_running one too high until the next balance\n", rq->cpu);
	spin_lock(&rq->lock);
	rq->nr_running++;
	spin_unlock(&rq->lock);
	arch_irq_restore(flags);
	msleep(100); /* this CPU idles: its periodic balance (nohz=off) runs the checker */
	flags = arch_irq_save();
	spin_lock(&rq->lock);
	rq->nr_running--;
	spin_unlock(&rq->lock);
	arch_irq_restore(flags);
	printk("crashtest: sched checks done\n");
}

static const struct {
	const char *word;
	void (*fn)(void);
} crashtests[] = {
	{ "fault", crash_fault },		/* data abort, translation fault */
	{ "stack", crash_stack },		/* stack overflow into the guard page */
	{ "write-text", crash_write_text },	/* data abort, permission fault */
	{ "exec-data", crash_exec_data },	/* instruction abort, permission fault */
	{ "exec-stack", crash_exec_stack },	/* the same, on the stack */
	{ "canary", crash_smash },		/* stack protector */
	{ "softlockup", crash_softlockup },	/* watchdog.c, reported by this CPU */
	{ "hardlockup", crash_hardlockup },	/* watchdog.c, reported by another CPU */
	{ "sched-checks", crash_sched_checks }, /* lockdep.c and stats.c reports */
};

static void crashtest_thread(void *arg)
{
	for (size_t i = 0; i < ARRAY_SIZE(crashtests); i++)
		if (!strcmp(crashtests[i].word, arg)) {
			crashtests[i].fn(); /* not a tail call: the reports name this frame */
			printk("crashtest: %s returned\n", (const char *)arg);
			return;
		}
	printk("crashtest: no crash called \"%s\"\n", (const char *)arg);
}

/* Run crashtest `word` in a thread; returns if it did not bring the kernel down. */
void crashtest_run(const char *word)
{
	static char w[32];

	strlcpy_k(w, word, sizeof(w));
	printk("crashtest: %s\n", w);
	kthread_run(crashtest_thread, w, "crashtest");
	msleep(1000);
	printk("crashtest: the crash did not happen\n");
}
