/* gicv3.c - GICv3 (arm,gic-v3): distributor with affinity routing, one
 * redistributor per CPU (found by walking every redistributor region of the
 * tree for the frame whose GICR_TYPER affinity matches the MPIDR, as Linux's
 * gic_populate_rdist), and the CPU interface through ICC_* system registers.
 * All interrupts are Group 1 (non-secure). Offsets: GICv3 spec (IHI 0069) 12. */
#include "arch.h"
#include "boot.h"
#include "drivers.h"
#include "kernel.h"
#include "sysreg.h"

#define GICD_CTLR	0x0000
#define GICD_TYPER	0x0004
#define GICD_IGROUPR	0x0080
#define GICD_ISENABLER	0x0100
#define GICD_ICENABLER	0x0180
#define GICD_IPRIORITYR 0x0400
#define GICD_IROUTER	0x6000
#define GICD_CTLR_RWP	(1u << 31)
#define GICD_CTLR_ARE	(1u << 4)
#define GICD_CTLR_GRP1	(1u << 1)

#define GICR_WAKER	      0x0014
#define GICR_TYPER	      0x0008
#define GICR_SGI	      0x10000 /* SGI_base frame */
#define GICR_IGROUPR0	      (GICR_SGI + 0x0080)
#define GICR_ISENABLER0	      (GICR_SGI + 0x0100)
#define GICR_ICENABLER0	      (GICR_SGI + 0x0180)
#define GICR_IPRIORITYR	      (GICR_SGI + 0x0400)
#define WAKER_PROCESSOR_SLEEP (1u << 1)
#define WAKER_CHILDREN_ASLEEP (1u << 2)
#define TYPER_LAST	      (1u << 4)
#define TYPER_VLPIS	      (1u << 1)

#define ICC_PMR_EL1	S3_0_C4_C6_0
#define ICC_IAR1_EL1	S3_0_C12_C12_0
#define ICC_EOIR1_EL1	S3_0_C12_C12_1
#define ICC_BPR1_EL1	S3_0_C12_C12_3
#define ICC_CTLR_EL1	S3_0_C12_C12_4
#define ICC_SRE_EL1	S3_0_C12_C12_5
#define ICC_IGRPEN1_EL1 S3_0_C12_C12_7
#define ICC_SGI1R_EL1	S3_0_C12_C11_5

#define MAX_REDIST_REGIONS 8 /* #redistributor-regions; QEMU virt uses 1 or 2 */

static volatile u8 *dist;
static struct {
	volatile u8 *base;
	u64 size;
} redist[MAX_REDIST_REGIONS];
static unsigned int nr_redist;
static u64 cpu_mpidr[NR_CPUS];
static volatile u8 *cpu_redist[NR_CPUS]; /* found once, in v3_cpu_init */
static u64 boot_mpidr;

static void wait_rwp(void)
{
	for (int i = 0; i < 1000000 && (readl(dist + GICD_CTLR) & GICD_CTLR_RWP); i++)
		;
}

static u64 mpidr_to_aff(u64 mpidr) /* Aff3.Aff2.Aff1.Aff0 packed as in GICR_TYPER */
{
	return (mpidr & 0xffffff) | ((mpidr >> 32) & 0xff) << 24;
}

static volatile u8 *find_redist(u64 mpidr)
{
	u64 aff = mpidr_to_aff(mpidr);

	for (unsigned int r = 0; r < nr_redist; r++) {
		for (u64 off = 0; off < redist[r].size;) {
			u64 typer = readq(redist[r].base + off + GICR_TYPER);

			if ((typer >> 32) == aff)
				return redist[r].base + off;
			if (typer & TYPER_LAST)
				break;
			off += (typer & TYPER_VLPIS) ? 0x40000 : 0x20000;
		}
	}
	return NULL;
}

static void v3_cpu_init(unsigned int cpu)
{
	u64 mpidr = read_sysreg(mpidr_el1) & 0xff00ffffffull;
	volatile u8 *rd = find_redist(mpidr);

	cpu_mpidr[cpu] = mpidr;
	cpu_redist[cpu] = rd;
	if (!rd) {
		printk("gicv3: no redistributor for MPIDR %#llx\n", mpidr);
		return;
	}
	/* Wake the redistributor (ProcessorSleep is set out of reset). */
	writel(readl(rd + GICR_WAKER) & ~WAKER_PROCESSOR_SLEEP, rd + GICR_WAKER);
	for (int i = 0; i < 1000000 && (readl(rd + GICR_WAKER) & WAKER_CHILDREN_ASLEEP); i++)
		;
	writel(~0u, rd + GICR_IGROUPR0);
	writel(0xffff0000, rd + GICR_ICENABLER0);
	writel(0x0000ffff, rd + GICR_ISENABLER0);
	for (int i = 0; i < 32; i += 4)
		writel(0xa0a0a0a0, rd + GICR_IPRIORITYR + i);

	write_sysreg(ICC_SRE_EL1, read_sysreg(ICC_SRE_EL1) | 1);
	isb();
	write_sysreg(ICC_PMR_EL1, 0xf0);
	write_sysreg(ICC_BPR1_EL1, 0);
	write_sysreg(ICC_CTLR_EL1, 0); /* EOImode 0: EOI also deactivates */
	write_sysreg(ICC_IGRPEN1_EL1, 1);
	isb();
}

static u32 v3_ack(void)
{
	u32 v = (u32)read_sysreg(ICC_IAR1_EL1);

	dsb(sy);
	return v;
}

static void v3_eoi(u32 intid)
{
	write_sysreg(ICC_EOIR1_EL1, intid);
	isb();
}

static void v3_enable(unsigned int irq)
{
	if (irq < 32) {
		volatile u8 *rd = cpu_redist[arch_cpu_id()];

		if (rd)
			writel(1u << irq, rd + GICR_ISENABLER0);
		return;
	}
	writeb(0xa0, dist + GICD_IPRIORITYR + irq);
	writeq(mpidr_to_aff(boot_mpidr) & 0xffffff, dist + GICD_IROUTER + 8 * irq);
	writel(1u << (irq % 32), dist + GICD_ISENABLER + 4 * (irq / 32));
	wait_rwp();
}

/* ICC_SGI1R_EL1: Aff3.Aff2.Aff1 name a group of 16 CPUs (Aff0 RS*16 .. RS*16+15),
 * the target list picks among them (Linux: gic_send_sgi, gic_compute_target_list).
 * One CPU per write here: IPIs go to single CPUs. */
static void v3_send_sgi(unsigned int cpu, unsigned int sgi)
{
	u64 m = cpu_mpidr[cpu], aff0 = m & 0xff;
	u64 v = ((m >> 32) & 0xff) << 48 | (aff0 >> 4) << 44 | ((m >> 16) & 0xff) << 32 |
		(u64)sgi << 24 | ((m >> 8) & 0xff) << 16 | (1ull << (aff0 & 0xf));

	dsb(ishst);
	write_sysreg(ICC_SGI1R_EL1, v);
	isb();
}

static void v3_set_affinity(unsigned int irq, unsigned int cpu)
{
	writeq(mpidr_to_aff(cpu_mpidr[cpu]) & 0xffffff, dist + GICD_IROUTER + 8 * irq);
}

static u32 v3_set_pmr(u32 pmr)
{
	u32 old = (u32)read_sysreg(ICC_PMR_EL1);

	write_sysreg(ICC_PMR_EL1, (u64)pmr);
	isb();
	dsb(sy); /* the PMR must reach the redistributor before wfi */
	return old;
}

static void v3_set_priority(unsigned int irq, u8 prio)
{
	volatile u8 *rd = irq < 32 ? find_redist(cpu_mpidr[arch_cpu_id()]) : NULL;

	if (irq < 32 && rd)
		writeb(prio, rd + GICR_IPRIORITYR + irq);
	else if (irq >= 32)
		writeb(prio, dist + GICD_IPRIORITYR + irq);
}

static const struct gic_ops v3_ops = {
	"GICv3",     v3_cpu_init,     v3_ack,	  v3_eoi,	   v3_enable,
	v3_send_sgi, v3_set_affinity, v3_set_pmr, v3_set_priority, 0,
};

const struct gic_ops *gicv3_probe(const struct dtb *dt, int node)
{
	u64 dpa, dsz, rpa, rsz;
	u32 regions = 1;
	unsigned int lines;

	dtb_prop_u32(dt, node, "#redistributor-regions", &regions);
	if (regions > MAX_REDIST_REGIONS) {
		printk("gicv3: %u redistributor regions, using the first %d\n", regions,
		       MAX_REDIST_REGIONS);
		regions = MAX_REDIST_REGIONS;
	}
	if (dtb_reg(dt, node, 0, &dpa, &dsz)) {
		printk("gicv3: reg must give the distributor and redistributors\n");
		return NULL;
	}
	dist = ioremap(dpa, dsz ? dsz : 0x10000);
	for (nr_redist = 0; nr_redist < regions; nr_redist++) {
		if (dtb_reg(dt, node, 1 + (int)nr_redist, &rpa, &rsz))
			break;
		redist[nr_redist].base = ioremap(rpa, rsz);
		redist[nr_redist].size = rsz;
		if (!redist[nr_redist].base)
			return NULL;
	}
	if (!dist || !nr_redist) {
		printk("gicv3: reg must give the distributor and redistributors\n");
		return NULL;
	}
	boot_mpidr = read_sysreg(mpidr_el1) & 0xff00ffffffull;
	lines = 32 * ((readl(dist + GICD_TYPER) & 0x1f) + 1);
	writel(0, dist + GICD_CTLR);
	wait_rwp();
	for (unsigned int i = 32; i < lines; i += 32) {
		writel(~0u, dist + GICD_ICENABLER + i / 8);
		writel(~0u, dist + GICD_IGROUPR + i / 8);
	}
	wait_rwp();
	writel(GICD_CTLR_ARE | GICD_CTLR_GRP1, dist + GICD_CTLR);
	wait_rwp();
	return &v3_ops;
}
