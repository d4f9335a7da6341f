/* traps.c - synchronous exceptions and unexpected vectors: nothing is
 * recoverable in a kernel without user space, so each is reported in full
 * (exception class decoded from ESR, FAR, ELR, registers, backtrace, CPU and
 * thread) and ends in panic(). Also arch_dump_stack() for WARN and panic. */
#include "boot.h"
#include "kernel.h"
#include "mm.h"
#include "ptregs.h"
#include "sched.h"
#include "sysreg.h"

int mmu_lookup(u64 va, u64 *attrs);

/* Where entry.S reports a fault whose stack cannot take the frame: the top of
 * each CPU's overflow stack, allocated before the CPU starts (a static
 * [NR_CPUS][16 KiB] array was 4 MiB of bss at NR_CPUS 256). */
u64 overflow_stack_top[NR_CPUS];

int overflow_stack_alloc(unsigned int cpu)
{
	unsigned long pages = (1ul << OVERFLOW_STACK_SHIFT) / PAGE_SIZE;
	u8 *s;

	if (overflow_stack_top[cpu])
		return 0;
	s = alloc_pages(pages);
	if (!s)
		return -1;
	overflow_stack_top[cpu] = (u64)(s + (1ul << OVERFLOW_STACK_SHIFT));
	return 0;
}

/* The two tables below keep one value a line. */
/* clang-format off */
/* ESR_ELx.EC values, Arm ARM D17.2.37. */
static const char *ec_name(unsigned int ec)
{
	switch (ec) {
	case 0x00: return "unknown reason";
	case 0x01: return "WFI/WFE trapped";
	case 0x07: return "FP/SIMD access trapped";
	case 0x0e: return "illegal execution state";
	case 0x15: return "SVC";
	case 0x16: return "HVC";
	case 0x17: return "SMC";
	case 0x18: return "MSR/MRS/system instruction trapped";
	case 0x20: return "instruction abort from a lower EL";
	case 0x21: return "instruction abort (same EL)";
	case 0x22: return "PC alignment fault";
	case 0x24: return "data abort from a lower EL";
	case 0x25: return "data abort (same EL)";
	case 0x26: return "SP alignment fault";
	case 0x2f: return "SError";
	case 0x30: case 0x31: return "breakpoint";
	case 0x32: case 0x33: return "software step";
	case 0x34: case 0x35: return "watchpoint";
	case 0x3c: return "BRK instruction";
	default: return "reserved/unhandled class";
	}
}

/* Data/instruction fault status code, ESR.ISS[5:0]. */
static const char *fsc_name(unsigned int fsc)
{
	switch (fsc & 0x3c) {
	case 0x04: return "translation fault (page not mapped)";
	case 0x08: return "access flag fault";
	case 0x0c: return "permission fault";
	case 0x10: return "synchronous external abort";
	case 0x20: return "alignment fault";
	default: return "other fault";
	}
}
/* clang-format on */

/* Print addresses relative to the link address too (`addr2line -e
 * build/kernel.elf`), and the function they are in (kernel/ksyms.c). */
static void print_addr(const char *prefix, u64 a)
{
	u64 off = a - boot_params.load_base, symoff, size;
	const char *name;

	if (a < boot_params.load_base || a >= (u64)_etext) {
		printk("%s%#llx\n", prefix, a);
		return;
	}
	name = ksym_lookup(off, &symoff, &size);
	if (name)
		printk("%s%#llx (kernel.elf+%#llx) %s+%#llx/%#llx\n", prefix, a, off, name, symoff,
		       size);
	else
		printk("%s%#llx (kernel.elf+%#llx)\n", prefix, a, off);
}

static bool fp_ok(u64 fp)
{
	return fp && !(fp & 7) && mmu_lookup(fp, NULL) == 0 && mmu_lookup(fp + 8, NULL) == 0;
}

void dump_backtrace(u64 fp, u64 pc)
{
	printk("Call trace:\n");
	print_addr("  ", pc);
	for (int depth = 0; depth < 32 && fp_ok(fp); depth++) {
		u64 next = ((u64 *)fp)[0], lr = ((u64 *)fp)[1];

		if (!lr)
			break;
		print_addr("  ", lr);
		if (next <= fp) /* stacks grow down: frames only go up */
			break;
		fp = next;
	}
}

/* From our caller on: our own frame record holds the caller's fp and the
 * address we return to. */
void arch_dump_stack(void)
{
	u64 *fp = __builtin_frame_address(0);

	dump_backtrace(fp[0], fp[1]);
}

void show_regs(const struct pt_regs *regs)
{
	struct task_struct *t = arch_current();

	printk("CPU %u, thread %s (pid %d)\n", arch_cpu_id(), t ? t->comm : "?", t ? t->pid : -1);
	print_addr("pc : ", regs->pc);
	print_addr("lr : ", regs->regs[30]);
	printk("sp : %#018llx pstate: %#010llx\n", regs->sp, regs->pstate);
	for (int i = 29; i >= 1; i -= 2)
		printk("x%-2d: %016llx x%-2d: %016llx\n", i, regs->regs[i], i - 1,
		       regs->regs[i - 1]);
}

/* A fault while reporting a fault: say so once and stop this CPU. */
static int nesting[NR_CPUS];

static void check_recursion(struct pt_regs *regs)
{
	if (nesting[arch_cpu_id()]++ == 0)
		return;
	printk("\nException while handling an exception on CPU %u (pc %#llx); halting it\n",
	       arch_cpu_id(), regs->pc);
	for (;;)
		__asm__ volatile("wfi");
}

static bool in_guard(const struct task_struct *t, u64 a)
{
	return a >= (u64)t->stack - PAGE_SIZE && a < (u64)t->stack;
}

void handle_sync(struct pt_regs *regs)
{
	u64 esr = read_sysreg(esr_el1), far = read_sysreg(far_el1);
	unsigned int ec = esr >> 26;
	struct task_struct *t = arch_current();

	check_recursion(regs);
	printk("\nUnhandled exception: %s (EC %#x, ESR %#llx)\n", ec_name(ec), ec, esr);
	if (ec == 0x20 || ec == 0x21 || ec == 0x24 || ec == 0x25) {
		printk("%s at address %#llx (%s)\n", fsc_name(esr & 0x3f), far,
		       (ec & 4) && (esr & (1 << 6)) ? "write" : "read or fetch");
	}
	/* The faulting access or the exception frame itself in the guard page. */
	if (t && t->stack && (in_guard(t, far) || in_guard(t, regs->sp - S_FRAME_SIZE)))
		printk("Kernel stack overflow: thread %s (pid %d) on CPU %u hit the guard page "
		       "below its stack [%#llx-%#llx] (sp %#llx)\n",
		       t->comm, t->pid, arch_cpu_id(), (u64)t->stack, (u64)t->stack + t->stack_size,
		       regs->sp);
	show_regs(regs);
	dump_backtrace(regs->regs[29], regs->pc);
	panic("unhandled exception");
}

void handle_bad(struct pt_regs *regs, int vector)
{
	static const char *const kind[] = { "sync", "IRQ", "FIQ", "SError" };

	check_recursion(regs);
	printk("\nUnexpected exception vector %d (%s, %s)\n", vector, kind[vector & 3],
	       vector < 4   ? "SP_EL0"
	       : vector < 8 ? "current EL"
			    : "lower EL");
	printk("ESR %#llx FAR %#llx\n", read_sysreg(esr_el1), read_sysreg(far_el1));
	show_regs(regs);
	dump_backtrace(regs->regs[29], regs->pc);
	panic("unexpected exception");
}

/* Called by a -fstack-protector epilogue whose canary changed: the frame it
 * guards was overwritten, so its return address cannot be trusted. */
void __stack_chk_fail(void)
{
	print_addr("\nstack-protector: kernel stack is corrupted in: ",
		   (u64)__builtin_return_address(0));
	panic("stack-protector: kernel stack corrupted");
}
