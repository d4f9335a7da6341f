/* speed.c - the emulated CPU speed of all code (docs/design.md, the emulated machine):
 * CPU c runs at s_c = capacity_orig/1024 x f_cur/f_max, paid as a stall
 * (arch_stall_until) before its effects reach other CPUs: before a wakeup, before
 * idle, at the tick. speed=all: each ns it spends executing costs (1/s_c - 1) ns
 * more. speed=exact: its own instructions (a QEMU plugin counts them) cost 1/(R x s_c)
 * ns each, whatever the other CPUs do; paid also at a context switch and at the end
 * of a handler, so the task, the IRQ or idle that executed them is charged.
 * Owns the boot option speed=all|exact|work|native and the debt. */
#include "sched_internal.h"
#include "bootargs.h"
#include "dtb.h"
#include "shell_parse.h"
#include "speed.h"
#include "timer.h"
#include "cache.h"
#include "trace.h"

/* Debts below this are carried to the next payment, not stalled for: a stall is
 * a timer round trip, and the total paid stays exact. In instructions of -icount's
 * budget: 1000 ns at speed_dilate=1, 1000/D ns with the clock D times slower (a round
 * trip takes the same instructions, and a carried debt must stay small beside what a
 * CPU does between two payments, which shrinks with D). */
#define SPEED_MIN_STALL_NS 1000
static u64 min_stall_ns = SPEED_MIN_STALL_NS;

/* SPEED_WORK until speed_init(): host tests' fake CPUs keep the older model. */
enum speed_model speed_model = SPEED_WORK;

/* Per CPU, touched only by its own CPU with IRQs off. */
static struct speed_cpu {
	u64 busy_since; /* executing since (emulated ns); valid if busy */
	u64 v_since;	/* the same on the processor-sharing clock */
	s64 debt;	/* ns of stall owed; < 0: a stall that overran, credit */
	u64 paid;	/* ns stalled in all (shell, self-tests) */
	u64 insn_since; /* speed=exact: own instruction count at busy_since */
	u64 irq_insn;	/* speed=exact: the same at the handler's entry */
	u64 irq_since;	/* speed=exact: and the time */
	u64 skip; /* speed=exact: instructions since insn_since not charged (handlers, spins) */
	u64 spin_insn;	       /* speed=exact: own count when the outermost spin-wait began */
	unsigned int spinning; /* speed=exact: inside a spin-wait (nested count) */
	bool check_irq;	       /* speed=exact: this interrupt ran the model's check */
	bool busy;	       /* executing: not idle, not in cpu_work()'s wait */
	bool in_irq;	       /* inside an interrupt handler: payment deferred */
	bool pay_at_exit;      /* speed_pay() came inside the handler */
} __attribute__((aligned(64))) speed_cpu[NR_CPUS];

static u64 speed_epoch; /* speed_set_model(): busy time before it is free */
static bool on_board;	/* speed_init(): the tree names a board */

bool speed_emulated_machine(void)
{
	return !on_board;
}

/* The processor-sharing clock (speed_clock=ps): V advances at 1/n per ns while
 * n CPUs execute (at 1/1 while none does), so a CPU's V progress while it
 * executes is its own share of -icount's one instruction per ns. V is in
 * ns << PS_SHIFT. Not the default: with it e4-short-qemu-bl44-1c's off half
 * woke its probe on big (23 of 30; elapsed 0), not understood yet; docs/speed.md
 * "speed=" has both measured. The default charges emulated busy time. */
#define PS_SHIFT 8
static bool speed_ps;
static spinlock_t ps_lock;
static u64 ps_v, ps_t;
static unsigned int ps_n;

/* Under ps_lock: bring V to now; n changes by dn after. */
static u64 ps_update(u64 now, int dn)
{
	if (now > ps_t)
		ps_v += ((now - ps_t) << PS_SHIFT) / (ps_n ? ps_n : 1);
	ps_t = MAX(ps_t, now);
	ps_n = (unsigned int)((int)ps_n + dn);
	return ps_v;
}

static u64 ps_now(int dn)
{
	u64 v;

	spin_lock(&ps_lock);
	v = ps_update(arch_clock_ns(), dn);
	spin_unlock(&ps_lock);
	return v;
}

static const char *const model_names[] = {
	[SPEED_ALL] = "all",
	[SPEED_WORK] = "work",
	[SPEED_NATIVE] = "native",
	[SPEED_EXACT] = "exact",
};

/* speed=exact: R, as ps per instruction of the biggest CPU at its top OPP. Under
 * -icount shift=0 all vCPUs together execute one instruction per ns; the whole
 * machine busy at f_max must fit in that budget, or the slowest-served CPUs fall
 * behind (QEMU's round-robin decides which). So R = budget / sum of s_c over every
 * CPU of the tree (at f_max, s_c = capacity_orig/1024), with SPEED_EXACT_BUDGET_PCT
 * of the budget given out and the rest left for rounding and for the stalls' own
 * timer round trips. A constant chosen before any run (docs/design.md). */
#define SPEED_EXACT_BUDGET_PCT 90
static u64 insn_ps; /* 1/R in ps */
/* speed_dilate=D: the kernel's clock runs D times slower than QEMU's virtual clock
 * (arch_clock_dilate()), so -icount's budget is D instructions per emulated ns and R
 * grows D-fold, at D times the host time per emulated busy second. Why: at D = 1 a
 * CPU's kernel code is ~10x slower against the kernel's own constants in ns (the tick,
 * wakeup granularity, PELT's periods) than on a board, and a slow CPU does more of that
 * code per message (docs/experiments.md, speed=exact). 1 unless given. */
#define SPEED_DILATE_MAX 64
static unsigned int speed_dilate = 1;
static bool want_exact; /* speed=exact given: switched on by speed_exact_start() */

unsigned int speed_clock_dilation(void)
{
	return speed_dilate;
}

const char *speed_model_name(void)
{
	return model_names[speed_model];
}

/* Boot option speed=. Default: `all` on an emulated machine, `native` on a
 * board. A tree whose root names a board (a compatible other than QEMU's own
 * "linux,dummy-virt") is a board; our QEMU trees (dts/qemu-*.dts) name none. */
void speed_init(const struct dtb *dt)
{
	int root = dt ? dtb_path(dt, "/") : -1;
	char v[16];

	speed_model = SPEED_ALL;
	if (root >= 0 && dtb_prop_str(dt, root, "compatible") &&
	    !dtb_is_compatible(dt, root, "linux,dummy-virt"))
		speed_model = SPEED_NATIVE;
	on_board = speed_model == SPEED_NATIVE;
	if (bootarg_get("speed", v, sizeof(v))) {
		if (!strcmp(v, "work"))
			speed_model = SPEED_WORK;
		else if (!strcmp(v, "native"))
			speed_model = SPEED_NATIVE;
		else if (!strcmp(v, "exact") && on_board)
			printk("speed: exact is for QEMU (its plugin counts instructions); "
			       "a board runs native\n");
		else if (!strcmp(v, "exact"))
			want_exact = true; /* all until speed_exact_start() */
		else if (strcmp(v, "all"))
			printk("speed: unknown model \"%s\"; using all\n", v);
	}
	if (bootarg_get("speed_clock", v, sizeof(v)))
		speed_ps = !strcmp(v, "ps");
	if (bootarg_get("speed_dilate", v, sizeof(v))) {
		long d = 1;

		if (on_board)
			printk("speed: speed_dilate is for QEMU (it slows the clock against "
			       "-icount's); ignored on a board\n");
		else if (!parse_long("speed_dilate", v, 1, SPEED_DILATE_MAX, &d))
			printk("speed: speed_dilate ignored; the clock keeps the counter's rate\n");
		else if (d > 1) {
			speed_dilate = (unsigned int)d;
			min_stall_ns = SPEED_MIN_STALL_NS / speed_dilate;
			arch_clock_dilate(speed_dilate);
			printk("speed: clock dilated x%u: %u instructions per emulated ns under "
			       "-icount shift=0\n",
			       speed_dilate, speed_dilate);
		}
	}
	spin_lock_init(&ps_lock);
	printk("speed: model %s (%s), clock %s\n", speed_model_name(),
	       want_exact		   ? "until speed=exact starts"
	       : speed_model == SPEED_ALL  ? "every instruction at capacity x f_cur / f_max"
	       : speed_model == SPEED_WORK ? "only cpu_work() is scaled"
					   : "no emulation",
	       speed_ps ? "ps" : "elapsed");
}

/* speed=exact: a busy CPU pays at least every SPEED_EXACT_CHECK_NS of emulated time, so
 * that it runs at most that many instructions ahead of its model before it stalls (QEMU
 * runs one vCPU at a time until the next timer deadline of any: without a deadline of its
 * own, a CPU in a loop would run ahead until its tick). The check's own interrupt is
 * free (__speed_irq_handled): charged, it would weigh more on a slower CPU. */
#define SPEED_EXACT_CHECK_NS 200000ull
static struct timer exact_check[NR_CPUS];

static void exact_check_fn(struct timer *t)
{
	struct speed_cpu *sc = &speed_cpu[arch_cpu_id()];

	sc->check_irq = true; /* the model's own machinery: its instructions are free */
	__speed_pay();	      /* in the handler: paid at its exit, as the task's */
	if (sc->busy && speed_model == SPEED_EXACT)
		timer_start(t, arch_clock_ns() + SPEED_EXACT_CHECK_NS);
}

/* speed=exact, once topology and cpufreq are up (kernel/main.c): R from the tree's
 * CPUs, then the model, if the QEMU plugin counts this machine's instructions. */
void speed_exact_start(void)
{
	u64 sum = 0;

	if (!want_exact)
		return;
	if (!arch_insn_counter_present()) {
		printk("speed: exact needs each vCPU's instruction count from the QEMU plugin "
		       "(-plugin build/host/vcpu_insns.so; make run SPEED=exact); "
		       "keeping speed=all\n");
		return;
	}
	for (unsigned int c = 0; c < nr_cpu_ids; c++)
		sum += arch_scale_cpu_capacity((int)c);
	for (unsigned int c = 0; c < nr_cpu_ids; c++)
		timer_init(&exact_check[c], exact_check_fn);
	/* ps per instruction = 1000 x (sum/1024) / (PCT/100) / D, rounded up. */
	u64 den = (u64)SCHED_CAPACITY_SCALE * SPEED_EXACT_BUDGET_PCT * speed_dilate;

	insn_ps = (sum * 1000 * 100 + den - 1) / den;
	speed_set_model(SPEED_EXACT);
	printk("speed: model exact (each CPU's own instructions, QEMU plugin): R = %llu "
	       "instructions per ms on the biggest CPU at f_max (%d %% of -icount's budget "
	       "x%u over %u CPUs of total capacity %llu)\n",
	       1000000000ull / insn_ps, SPEED_EXACT_BUDGET_PCT, speed_dilate, nr_cpu_ids, sum);
}

/* speed=exact: what n instructions cost at rate (s_c x 2^20), in ns. n x insn_ps stays
 * below 2^64 for 10^14 instructions; the plugin's counts of one stretch are far fewer. */
static u64 exact_cost(u64 n, u64 rate)
{
	n = MIN(n, 100000000000000ull / (insn_ps ? insn_ps : 1));
	return rate ? (n * insn_ps / 1000 << 20) / rate : 0;
}

/* speed=exact: the cost of the instructions this CPU executed since insn_since, less the
 * ones not charged (skip); the next stretch starts here. They were current's: counted in
 * its exact_insns (the idle task's for the idle path). */
static u64 exact_take(struct speed_cpu *sc, u64 rate)
{
	u64 n = arch_insn_count(), own = n - MIN(n, sc->insn_since + sc->skip);
	u64 cost = exact_cost(own, rate);
	struct task_struct *curr = current;

	if (curr)
		curr->stats.exact_insns += own;
	sc->insn_since = n;
	sc->skip = 0;
	return cost;
}

/* s_c x 2^20: the same product account_cpu_work() credits work with. */
static u64 speed_rate(int cpu)
{
	return (u64)arch_scale_cpu_capacity(cpu) * arch_scale_freq_capacity(cpu);
}

/* Turn the busy time since the last checkpoint into debt at today's speed. The
 * debt is measured in emulated time, not in the CPU's own instructions: under
 * -icount all busy vCPUs share one budget, so a CPU that stalls (1/s - 1) x its
 * busy time runs its code at s x the speed of a CPU that does not, whatever the
 * number of busy CPUs (docs/deviations.md). */
static void speed_accrue(struct speed_cpu *sc, int cpu, u64 now)
{
	u64 rate = speed_rate(cpu), full = (u64)SCHED_CAPACITY_SCALE * SCHED_CAPACITY_SCALE;

	if (speed_model == SPEED_EXACT) {
		/* Not busy: the idle path's instructions wait for __speed_busy_begin();
		 * spinning: the wait is not work, and its end restarts the stretch. */
		if (!sc->busy || sc->spinning)
			return;
		if (sc->busy_since >= READ_ONCE(speed_epoch))
			sc->debt +=
				(s64)exact_take(sc, rate) - (s64)(now - MIN(now, sc->busy_since));
		else
			exact_take(sc, rate);
		sc->busy_since = now;
		return;
	}
	if (speed_ps) {
		u64 v = ps_now(0);

		if (sc->busy && v > sc->v_since && rate && rate < full)
			sc->debt += (s64)(((v - sc->v_since) >> PS_SHIFT) * (full - rate) / rate);
		sc->v_since = v;
		return;
	}
	if (sc->busy_since < READ_ONCE(speed_epoch))
		sc->busy_since = READ_ONCE(speed_epoch);
	if (sc->busy && now > sc->busy_since && rate && rate < full)
		sc->debt += (s64)((now - sc->busy_since) * (full - rate) / rate);
	sc->busy_since = now;
}

/* A stall ends when QEMU next runs the vCPU, often later than its deadline
 * while others are busy (-icount round-robin): the overrun is credit against
 * the next debt, bounded by one tick so an old overrun cannot hide new work. */
static s64 speed_credit(s64 debt)
{
	return debt < -(s64)TICK_NSEC ? -(s64)TICK_NSEC : debt;
}

/* speed_clock=ps: the debt is V time; stall n_others x it, then count what V
 * really did (others may have started or stopped meanwhile). */
static void speed_stall_ps(struct speed_cpu *sc)
{
	u64 start = arch_clock_ns();

	for (int round = 0; round < 4 && sc->debt >= (s64)min_stall_ns; round++) {
		u64 v0, v1, n;

		spin_lock(&ps_lock);
		v0 = ps_update(arch_clock_ns(), sc->busy ? -1 : 0);
		n = ps_n ? ps_n : 1;
		spin_unlock(&ps_lock);
		arch_stall_until(arch_clock_ns() + (u64)sc->debt * n);
		v1 = ps_now(sc->busy ? 1 : 0);
		v1 = (v1 - v0) >> PS_SHIFT;
		sc->debt = speed_credit(sc->debt - (s64)v1);
		sc->v_since = ps_v;
	}
	sc->paid += arch_clock_ns() - start;
	sc->busy_since = arch_clock_ns();
}

static void speed_stall(struct speed_cpu *sc)
{
	u64 start = arch_clock_ns(), end;

	if (sc->debt < (s64)min_stall_ns)
		return;
	if (speed_ps) {
		speed_stall_ps(sc);
		return;
	}
	arch_stall_until(start + (u64)sc->debt);
	end = arch_clock_ns();
	sc->paid += end - start;
	sc->debt = speed_credit(sc->debt - (s64)(end - start));
	sc->busy_since = end; /* the stall is not execution */
}

/* Pay what this CPU owes now (any context; a wakeup, the tick). */
void __speed_pay(void)
{
	unsigned long flags;
	struct speed_cpu *sc;
	int cpu;

	flags = arch_irq_save();
	cpu = (int)arch_cpu_id();
	sc = &speed_cpu[cpu];
	if (sc->busy && sc->in_irq && speed_model == SPEED_EXACT) {
		/* The handlers' instructions are theirs (__speed_irq_handled): the
		 * interrupted stretch was booked at the entry, and is paid at the exit. */
		sc->pay_at_exit = true;
	} else if (sc->busy) {
		speed_accrue(sc, cpu, arch_clock_ns());
		if (sc->in_irq)
			sc->pay_at_exit = true;
		else
			speed_stall(sc);
	}
	arch_irq_restore(flags);
}

/* The interrupt controller holds the stall's own timer interrupt off while a
 * handler is active (its running priority), so a stall inside a handler
 * would never end: a tick or a wakeup there pays at speed_irq_exit(), after
 * the end of interrupt. The arch's IRQ entry brackets its handlers. */
void __speed_irq_enter(void)
{
	int cpu = (int)arch_cpu_id();
	struct speed_cpu *sc = &speed_cpu[cpu];

	if (speed_model == SPEED_EXACT) { /* the task's stretch pauses for the handler */
		u64 now = arch_clock_ns();

		speed_accrue(sc, cpu, now);
		sc->irq_insn = arch_insn_count();
		sc->irq_since = now;
	}
	sc->in_irq = true;
}

/* speed=exact: the handlers' own instructions, stalled for inside the IRQ time (the
 * arch's handle_irq() measures it around this): an interrupt's slowness is IRQ time,
 * whether it came to a task or to idle. An overrun (QEMU ran other vCPUs meanwhile)
 * is no credit: the handlers have no later stretch to take it from. */
void __speed_irq_handled(void)
{
	int cpu = (int)arch_cpu_id();
	struct speed_cpu *sc = &speed_cpu[cpu];
	u64 now = arch_clock_ns(), n = arch_insn_count();
	u64 cost = exact_cost(n - MIN(n, sc->irq_insn), speed_rate(cpu));
	u64 end = sc->irq_since + cost;

	/* An interrupt that only ran the check (above) is not the machine's work: on a
	 * board it does not exist, and its cost would be a larger share of a slow CPU. */
	if (sc->check_irq)
		end = 0;
	sc->check_irq = false;
	if (end >= now + min_stall_ns) {
		arch_stall_until(end);
		sc->paid += arch_clock_ns() - now;
	}
	/* The interrupted stretch (a task's, or the idle path's) goes on after the
	 * handlers, without their instructions nor their time (a spin-wait's end
	 * skips its whole window, handlers included). */
	if (sc->spinning)
		return;
	sc->skip += arch_insn_count() - sc->irq_insn;
	if (sc->busy)
		sc->busy_since = arch_clock_ns();
}

/* speed=exact: a CPU spinning on a lock or a flag waits, it does not work: its spin
 * instructions would be charged at 1/(R x s_c) ns each while it executes them at
 * -icount's pace, so a waiter on a stalled holder would owe more than it waited, and
 * stall the longer. The wait costs its emulated time only (Linux on a board: the
 * same wall time however slow the CPU). Any context; nests. */
void __speed_spin_begin(void)
{
	unsigned long flags = arch_irq_save();
	int cpu = (int)arch_cpu_id();
	struct speed_cpu *sc = &speed_cpu[cpu];

	if (!sc->spinning) {
		speed_accrue(sc, cpu, arch_clock_ns());
		sc->spin_insn = arch_insn_count();
	}
	sc->spinning++;
	arch_irq_restore(flags);
}

void __speed_spin_end(void)
{
	unsigned long flags = arch_irq_save();
	struct speed_cpu *sc = &speed_cpu[arch_cpu_id()];

	if (sc->spinning && !--sc->spinning) {
		sc->skip += arch_insn_count() - sc->spin_insn;
		if (sc->busy)
			sc->busy_since = arch_clock_ns();
	}
	arch_irq_restore(flags);
}

void __speed_irq_exit(void)
{
	struct speed_cpu *sc = &speed_cpu[arch_cpu_id()];

	sc->in_irq = false;
	if (sc->pay_at_exit) {
		sc->pay_at_exit = false;
		__speed_pay();
	}
}

/* speed.h's inline wrappers call these with speed=all only. */

/* The CPU stops executing (IRQs off): idle pays first (its effects, then the
 * wait); cpu_work()'s wait only books the debt (the task still runs). */
void __speed_busy_end(bool pay)
{
	int cpu = (int)arch_cpu_id();
	struct speed_cpu *sc = &speed_cpu[cpu];

	if (pay && speed_model == SPEED_EXACT)
		timer_try_cancel(&exact_check[cpu]); /* idle wakes for no check */
	speed_accrue(sc, cpu, arch_clock_ns());
	if (pay)
		speed_stall(sc);
	if (pay && sc->debt < 0)
		sc->debt = 0; /* an overrun's credit does not outlive the busy stretch */
	if (sc->busy && speed_ps)
		ps_now(-1);
	sc->busy = false;
}

/* The CPU executes again (IRQs off): out of idle or cpu_work()'s wait. */
void __speed_busy_begin(void)
{
	int cpu = (int)arch_cpu_id();
	struct speed_cpu *sc = &speed_cpu[cpu];
	u64 now = arch_clock_ns();

	if (speed_model == SPEED_EXACT) {
		/* What the idle path (or cpu_work()'s wait) executed outside the handlers
		 * since busy_end: owed, and paid at the next payment, before the switch
		 * out of idle. A CPU that has not run since the model changed joins. */
		u64 cost = exact_take(sc, speed_rate(cpu));

		if (sc->busy_since >= READ_ONCE(speed_epoch))
			sc->debt += (s64)cost;
		timer_start(&exact_check[cpu], now + SPEED_EXACT_CHECK_NS);
	}
	sc->busy_since = now;
	if (!sc->busy && speed_ps)
		sc->v_since = ps_now(1);
	sc->busy = true;
}

/* At run time (self-tests compare the models in one boot): each CPU's debt
 * counts from now; a CPU in the middle of a stretch joins at its next idle. */
void speed_set_model(enum speed_model m)
{
	unsigned long flags = arch_irq_save();

	/* Only speed=all keeps the busy flags: every CPU counts as not executing
	 * until it next leaves idle (a self-test's switch, not a hot path; a CPU
	 * executing right now goes free until then). */
	for (unsigned int c = 0; c < NR_CPUS; c++)
		WRITE_ONCE(speed_cpu[c].busy, false);
	spin_lock(&ps_lock);
	ps_update(arch_clock_ns(), 0);
	ps_n = 0;
	spin_unlock(&ps_lock);
	WRITE_ONCE(speed_epoch, arch_clock_ns());
	WRITE_ONCE(speed_model, m);
	arch_irq_restore(flags);
}

u64 speed_stalled_ns(unsigned int cpu)
{
	return cpu < NR_CPUS ? READ_ONCE(speed_cpu[cpu].paid) : 0;
}

/* ---- the cost of a migration (docs/design.md, "Caches"; the model is cache.c) ---------- */

struct cache_model cache_model;

/* Boot option cache=on|off, once the topology is parsed. Off by default: with the 32 KiB
 * default working set, E1 overshoots the published gain eightfold (E2's video half
 * collapsed through a cpu_work() bug, since fixed: docs/experiments.md, issue 27), so it
 * is opt-in until a board measures the workloads' footprints. A board pays its own
 * misses: there (and with speed=native) it stays off whatever the option says. */
void cache_init(const struct topology *topo)
{
	char v[8];
	bool emulated = !on_board && speed_model != SPEED_NATIVE;

	cache_model.on = false;
	if (bootarg_get("cache", v, sizeof(v))) {
		if (!strcmp(v, "on"))
			cache_model.on = emulated;
		else if (strcmp(v, "off"))
			printk("cache: unknown value \"%s\" (on or off)\n", v);
	}
	cache_model_init(&cache_model, topo);
	printk("cache: migration cost %s (working set %u KiB unless a task names one)\n",
	       cache_model.on ? "on"
	       : emulated     ? "off (cache=on charges it)"
			      : "off (a board pays its own)",
	       CACHE_WS_DEFAULT_KIB);
}

void cache_set_on(bool on)
{
	WRITE_ONCE(cache_model.on, on);
}

/* finish_task_switch(), rq lock held: prev's warmth starts to decay here; next owes
 * what it lost (returned, in ns: core.c's cache_charge()). */
u64 cache_switch(struct task_struct *prev, struct task_struct *next, int cpu)
{
	struct cache_refill r;

	if (!prev->is_idle && prev != next)
		cache_model_switch_out(&cache_model, &prev->cache, cpu);
	/* Per-CPU kernel threads (idle, the stoppers) never move, and what they touch (a
	 * few lines of the stopper's work) is not modelled: no refill, no fills. */
	if (next->per_cpu_kthread || !next->cache.ws_kib || prev == next)
		return 0;
	int from = next->cache.cpu;

	r = cache_model_switch_in(&cache_model, &next->cache, cpu);
	if (!r.ns)
		return 0;
	next->cache.last_at = arch_clock_ns();
	next->cache.last_ns = r.ns;
	next->cache.total_ns += r.ns;
	next->cache.nr++;
	next->cache.last_l2_kib = r.l2_bytes / 1024;
	next->cache.last_dram_kib = r.dram_bytes / 1024;
	next->cache.last_from = (s16)from;
	next->cache.last_to = (s16)cpu;
	trace_sched_cache_refill(next, from, cpu, r.ns, r.l2_bytes, r.dram_bytes);
	return r.ns;
}

/* A stall that is not the CPU's execution (the refill): the model's debt so far is booked,
 * the stall itself is not stretched again. IRQs off. False: inside a handler, not done. */
bool speed_stall_plain(u64 ns)
{
	int cpu = (int)arch_cpu_id();
	struct speed_cpu *sc = &speed_cpu[cpu];
	bool busy = speed_stalls() && sc->busy && !sc->spinning;

	if (sc->in_irq) /* a stall in a handler would never end: the task pays later */
		return false;
	if (busy)
		speed_accrue(sc, cpu, arch_clock_ns());
	arch_stall_until(arch_clock_ns() + ns);
	if (busy)
		sc->busy_since = arch_clock_ns();
	if (busy && speed_ps)
		sc->v_since = ps_now(0);
	return true;
}
