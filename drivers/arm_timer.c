/* arm_timer.c - the ARM generic timer: the EL1 virtual timer (CNTV_*) as
 * each CPU's one-shot deadline and CNTVCT as the clock. The frequency is
 * read from CNTFRQ_EL0, never assumed (QEMU: 62.5 MHz; HiKey960: 1.92 MHz).
 * Its PPI comes from the DT's arm,armv8-timer node (entry 2: virtual). */
#include "bootargs.h"
#include "drivers.h"
#include "kernel.h"
#include "sysreg.h"
#include "timer.h"

#define CNTV_CTL_ENABLE (1u << 0)
#define CNTV_CTL_IMASK	(1u << 1)

static u64 freq;
static u64 ns_mult;  /* ns = (cnt * ns_mult >> 32) + ns_off */
static u64 cnt_mult; /* cnt = (ns - ns_off) * cnt_mult >> 32 */
static u64 ns_off;   /* the clock's value when arm_timer_dilate() slowed it, less its new rate */
static int timer_irq = -1;
/* Boot option speed_stall=spin|wfi (default wfi): how arm_timer_stall_until()
 * waits. Under -icount a vCPU in wfi gives its round-robin share of the one
 * instruction per ns to the busy ones, so with every CPU busy a stalling LITTLE
 * speeds the bigs up; a spinning stall keeps its share (docs/speed.md). */
static bool stall_spin;

u64 arm_timer_freq(void)
{
	return freq;
}

u64 arm_timer_read_ns(void)
{
	u64 cnt;

	isb(); /* don't let the counter read be speculated early */
	cnt = read_sysreg(cntvct_el0);
	return (u64)(((unsigned __int128)cnt * ns_mult) >> 32) + ns_off;
}

static u64 ns_to_cnt(u64 ns)
{
	return (u64)(((unsigned __int128)(ns - MIN(ns, ns_off)) * cnt_mult) >> 32);
}

/* speed_dilate=D (kernel/sched/speed.c): from now on the clock runs d times slower than
 * the counter. Under -icount the counter advances one ns per instruction of the whole
 * machine, so the machine then executes d instructions per ns of the kernel's time.
 * Continuous: the clock goes on from its value now. Before the other CPUs start. */
void arm_timer_dilate(unsigned int d)
{
	u64 now = arm_timer_read_ns();

	ns_mult /= d;
	cnt_mult *= d;
	ns_off = 0;
	ns_off = now - MIN(now, arm_timer_read_ns());
}

/* The deadline is rounded up to a whole count, so it never fires early. */
void arm_timer_set_deadline_ns(u64 ns)
{
	u64 cnt;

	if (ns == ~0ull) { /* no deadline (NO_HZ idle, nothing pending): masked */
		write_sysreg(cntv_ctl_el0, CNTV_CTL_ENABLE | CNTV_CTL_IMASK);
		isb();
		return;
	}
	cnt = ns_to_cnt(ns) + 1;

	write_sysreg(cntv_cval_el0, cnt);
	write_sysreg(cntv_ctl_el0, CNTV_CTL_ENABLE);
	isb();
}

static void arm_timer_irq(unsigned int irq, void *arg)
{
	/* Mask until reprogrammed: a level interrupt stays asserted otherwise. */
	write_sysreg(cntv_ctl_el0, CNTV_CTL_ENABLE | CNTV_CTL_IMASK);
	timer_interrupt();
}

/* The clock, first thing after the MMU: printk timestamps need it. */
int arm_timer_clock_init(void)
{
	freq = read_sysreg(cntfrq_el0) & 0xffffffff;
	if (!freq)
		return -1;
	/* Both fit in 64 bits: 10^9 x 2^32 < 2^62 and freq < 2^32. */
	ns_mult = (NSEC_PER_SEC << 32) / freq;
	cnt_mult = (freq << 32) / NSEC_PER_SEC;
	return 0;
}

int arm_timer_init(const struct dtb *dt)
{
	int node = dtb_find_compatible(dt, -1, "arm,armv8-timer");
	char v[8];

	if (!freq) {
		printk("timer: CNTFRQ_EL0 is 0 (firmware did not set it)\n");
		return -1;
	}
	if (bootarg_get("speed_stall", v, sizeof(v))) { /* silent by default */
		stall_spin = !strcmp(v, "spin");
		printk("timer: speed_stall=%s: stalls %s\n", v,
		       stall_spin ? "spin on the counter" : "wait in wfi");
	}
	timer_irq = node >= 0 ? dt_irq(dt, node, 2) : 27;
	if (timer_irq < 0)
		timer_irq = 27; /* architected PPI 11, as every binding uses */
	return irq_register((unsigned int)timer_irq, arm_timer_irq, NULL);
}

void arm_timer_cpu_init(void)
{
	write_sysreg(cntv_ctl_el0, CNTV_CTL_IMASK);
	gic_set_priority((unsigned int)timer_irq, GIC_PRIO_STALL);
	gic_enable_irq((unsigned int)timer_irq);
}

/* arch_stall_until(): borrow the timer for the deadline with every other
 * interrupt held below the core (a pending masked interrupt would end wfi at
 * once: docs/design.md, QEMU facts), then give the timer back its own deadline. IRQs are off, so
 * the stall's timer interrupt only ends wfi; it is never taken. */
static void stall_wfi_until(u64 ns)
{
	u64 cval = read_sysreg(cntv_cval_el0), ctl = read_sysreg(cntv_ctl_el0);
	u64 cnt = ns_to_cnt(ns) + 1;
	u32 pmr = gic_set_pmr(GIC_PMR_STALL);

	write_sysreg(cntv_cval_el0, cnt);
	write_sysreg(cntv_ctl_el0, CNTV_CTL_ENABLE);
	isb();
	while (arm_timer_read_ns() < ns)
		__asm__ volatile("dsb sy; wfi" ::: "memory");
	write_sysreg(cntv_cval_el0, cval);
	write_sysreg(cntv_ctl_el0, ctl);
	isb();
	gic_set_pmr(pmr);
}

/* speed_stall=spin: read the counter until the deadline. IRQs are off, so
 * nothing is taken before it; the vCPU stays busy for QEMU's round-robin. */
void arm_timer_stall_until(u64 ns)
{
	if (!stall_spin) {
		stall_wfi_until(ns);
		return;
	}
	while (arm_timer_read_ns() < ns)
		;
}

/* Disabled, not merely masked: a parked CPU's wfi must not wake for it. */
void arm_timer_cpu_stop(void)
{
	write_sysreg(cntv_ctl_el0, 0);
	isb();
}
