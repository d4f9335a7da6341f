/* gicv2.c - GICv2 (arm,cortex-a15-gic, arm,gic-400): distributor and
 * memory-mapped CPU interface. SGI targets are CPU interface numbers, which
 * need not equal logical ids: each CPU reads its own from the banked
 * GICD_ITARGETSR0. Register offsets: GICv2 architecture spec (IHI 0048B) 4.1. */
#include "arch.h"
#include "boot.h"
#include "drivers.h"
#include "kernel.h"
#include "arch_topology.h" /* cpu_topology: how many CPUs the tree has */
#include "sysreg.h"
#include "topology.h"

#define GICV2_MAX_CPUS	8 /* CPU interface numbers 0-7 (IHI 0048B 1.4.4) */
#define GICD_CTLR	0x000
#define GICD_TYPER	0x004
#define GICD_ISENABLER	0x100
#define GICD_ICENABLER	0x180
#define GICD_IPRIORITYR 0x400
#define GICD_ITARGETSR	0x800
#define GICD_SGIR	0xf00
#define GICC_CTLR	0x000
#define GICC_PMR	0x004
#define GICC_IAR	0x00c
#define GICC_EOIR	0x010

static volatile u8 *dist, *cpuif;
static u8 cpu_iface_mask[NR_CPUS];
static unsigned int nr_lines;

static void v2_cpu_init(unsigned int cpu)
{
	/* ITARGETSR0..7 are banked: byte 0 holds this CPU's own interface bit. */
	cpu_iface_mask[cpu] = (u8)readl(dist + GICD_ITARGETSR);
	writel(0xffff0000, dist + GICD_ICENABLER); /* PPIs off until asked */
	writel(0x0000ffff, dist + GICD_ISENABLER); /* SGIs on */
	for (int i = 0; i < 32; i += 4)
		writel(0xa0a0a0a0, dist + GICD_IPRIORITYR + i);
	writel(0xf0, cpuif + GICC_PMR);
	writel(1, cpuif + GICC_CTLR);
}

static u32 v2_ack(void)
{
	return readl(cpuif + GICC_IAR);
}

static void v2_eoi(u32 iar)
{
	writel(iar, cpuif + GICC_EOIR);
}

static void v2_enable(unsigned int irq)
{
	if (irq >= 32) {
		/* SPIs go to the boot CPU (whose interface is found in cpu 0's slot
		 * or, failing that, the first CPU that registered). */
		volatile u8 *t = dist + GICD_ITARGETSR + irq;

		writeb(cpu_iface_mask[arch_cpu_id()], t);
		writeb(0xa0, dist + GICD_IPRIORITYR + irq);
	}
	writel(1u << (irq % 32), dist + GICD_ISENABLER + 4 * (irq / 32));
}

static void v2_send_sgi(unsigned int cpu, unsigned int sgi)
{
	dsb(ishst); /* make our writes visible before the target wakes */
	writel((u32)cpu_iface_mask[cpu] << 16 | sgi, dist + GICD_SGIR);
}

static void v2_set_affinity(unsigned int irq, unsigned int cpu)
{
	writeb(cpu_iface_mask[cpu], dist + GICD_ITARGETSR + irq);
}

static u32 v2_set_pmr(u32 pmr)
{
	u32 old = readl(cpuif + GICC_PMR);

	writel(pmr, cpuif + GICC_PMR);
	dsb(sy);
	return old;
}

/* SGI/PPI priorities are banked per CPU interface: the caller's own. */
static void v2_set_priority(unsigned int irq, u8 prio)
{
	writeb(prio, dist + GICD_IPRIORITYR + irq);
}

static const struct gic_ops v2_ops = {
	"GICv2",     v2_cpu_init,     v2_ack,	  v2_eoi,	   v2_enable,
	v2_send_sgi, v2_set_affinity, v2_set_pmr, v2_set_priority, GICV2_MAX_CPUS,
};

const struct gic_ops *gicv2_probe(const struct dtb *dt, int node)
{
	u64 dpa, dsz, cpa, csz;

	if (dtb_reg(dt, node, 0, &dpa, &dsz) || dtb_reg(dt, node, 1, &cpa, &csz)) {
		printk("gicv2: reg must give the distributor and CPU interface\n");
		return NULL;
	}
	dist = ioremap(dpa, dsz ? dsz : 0x1000);
	cpuif = ioremap(cpa, csz ? csz : 0x2000);
	if (!dist || !cpuif)
		return NULL;
	nr_lines = 32 * ((readl(dist + GICD_TYPER) & 0x1f) + 1);
	writel(0, dist + GICD_CTLR);
	for (unsigned int i = 32; i < nr_lines; i += 32)
		writel(~0u, dist + GICD_ICENABLER + i / 8);
	writel(1, dist + GICD_CTLR);
	if (cpu_topology.nr_cpus > GICV2_MAX_CPUS) /* 8-bit GICD_ITARGETSR / SGI lists */
		printk("gicv2: the device tree has %d CPUs but GICv2 targets at most %d: "
		       "CPUs %d-%d stay offline (use a GICv3)\n",
		       cpu_topology.nr_cpus, GICV2_MAX_CPUS, GICV2_MAX_CPUS,
		       cpu_topology.nr_cpus - 1);
	return &v2_ops;
}
