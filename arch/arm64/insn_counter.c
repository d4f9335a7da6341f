/* insn_counter.c - each CPU's own executed-instruction count, written into guest
 * memory by the QEMU TCG plugin tools/qemu/vcpu_insns.c (speed=exact: kernel/sched/speed.c).
 * Under -icount every busy vCPU shares one instruction per ns and QEMU's PMU counts the
 * global icount (docs/design.md, the emulated machine): only a plugin sees each vCPU's
 * own count. It finds the page through insn_counter_marker() (insn_counter.S) and learns
 * which vCPU is which logical CPU through insn_counter_hello(). Not on a board: there
 * arch_insn_count() is 0 and speed=exact is refused. The page is the plugin's to write;
 * the kernel only reads its own CPU's word. */
#include "arch.h"
#include "boot.h"
#include "kernel.h"

/* The plugin's signature in the page, and the layout it writes (vcpu_insns.c). */
#define INSN_COUNTER_MAGIC 0x4c42494353544e49ull /* "INTSCIBL" */

struct insn_counter_page {
	u64 magic;	    /* INSN_COUNTER_MAGIC once the plugin has found the marker */
	u64 nr;		    /* count[]'s length, for the plugin's bound check */
	u64 count[NR_CPUS]; /* instructions executed by each logical CPU since boot */
} __attribute__((aligned(64)));
_Static_assert(NR_CPUS == 256, "insn_counter.S's sled has NR_CPUS nops");

/* In .bss: zeroed before the marker runs, then written by the plugin only. */
struct insn_counter_page insn_counter_page;

void insn_counter_marker(void);
void insn_counter_hello(unsigned int cpu);

static bool attached;

/* The boot CPU, before it starts the others: shows the plugin the page and says
 * hello. The plugin writes the magic before the marker's block executes. */
bool arch_insn_counter_attach(unsigned int boot_cpu)
{
	WRITE_ONCE(insn_counter_page.nr, NR_CPUS);
	insn_counter_marker();
	insn_counter_hello(boot_cpu);
	attached = READ_ONCE(insn_counter_page.magic) == INSN_COUNTER_MAGIC;
	return attached;
}

/* Each secondary CPU as it starts (again, after hotplug: the mapping stays). */
void arch_insn_counter_cpu_init(unsigned int cpu)
{
	insn_counter_hello(cpu);
}

bool arch_insn_counter_present(void)
{
	return attached;
}

/* CPU cpu's instructions since boot, as last written (any context; self-tests). */
u64 arch_insn_count_cpu(unsigned int cpu)
{
	return cpu < NR_CPUS ? READ_ONCE(insn_counter_page.count[cpu]) : 0;
}

/* The calling CPU's instructions since boot, up to the end of the translation block
 * that reads it (the plugin adds a block's count as it starts). IRQs off. */
u64 arch_insn_count(void)
{
	return READ_ONCE(insn_counter_page.count[arch_cpu_id()]);
}
