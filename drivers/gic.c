/* gic.c - what GICv2 and GICv3 share: choosing the driver by compatible,
 * the IRQ handler table, decoding "interrupts" specifiers, and the IRQ
 * dispatch loop (acknowledge, dispatch, end of interrupt; the entry that
 * calls it and then the scheduler is arch/arm64/irq.c).
 * SGIs 0..NR_IPIS-1 are the kernel's IPIs. Handlers are registered at
 * init, before IRQs are on, so the table needs no lock. */
#include "drivers.h"
#include "kernel.h"
#include "ptregs.h"
#include "smp.h"
#include "speed.h"

#define NR_IRQS 1020 /* INTIDs 1020-1023 are special (spurious) */

static const struct gic_ops *gic;
static struct {
	irq_handler_t fn;
	void *arg;
	int cpu; /* an enabled SPI: 1 + the CPU it is routed to; 0: none */
} handlers[NR_IRQS];

int gic_init(const struct dtb *dt)
{
	int node;

	if ((node = dtb_find_compatible(dt, -1, "arm,gic-v3")) >= 0)
		gic = gicv3_probe(dt, node);
	else if ((node = dtb_find_compatible(dt, -1, "arm,gic-400")) >= 0 ||
		 (node = dtb_find_compatible(dt, -1, "arm,cortex-a15-gic")) >= 0)
		gic = gicv2_probe(dt, node);
	if (!gic) {
		printk("gic: no supported interrupt controller in the device tree\n");
		return -1;
	}
	return 0;
}

const char *gic_name(void)
{
	return gic ? gic->name : "none";
}

bool gic_serves_cpu(unsigned int cpu)
{
	return !gic || !gic->max_cpus || cpu < gic->max_cpus;
}

void gic_cpu_init(unsigned int cpu)
{
	gic->cpu_init(cpu);
}

int irq_register(unsigned int irq, irq_handler_t fn, void *arg)
{
	if (irq >= NR_IRQS || irq < 16 || handlers[irq].fn)
		return -1;
	handlers[irq].fn = fn;
	handlers[irq].arg = arg;
	return 0;
}

/* An SPI goes to the CPU that enables it (init: the boot CPU). */
void gic_enable_irq(unsigned int irq)
{
	gic->enable(irq);
	if (irq >= 32 && irq < NR_IRQS)
		handlers[irq].cpu = (int)arch_cpu_id() + 1; /* stored +1: 0 is "none" */
}

/* Linux: irq_migrate_all_off_this_cpu(), on the dying CPU (IRQs off). */
unsigned int gic_migrate_irqs(unsigned int cpu, unsigned int to)
{
	unsigned int moved = 0;

	for (unsigned int irq = 32; irq < NR_IRQS; irq++) {
		if (handlers[irq].cpu != (int)cpu + 1)
			continue;
		gic->set_affinity(irq, to);
		handlers[irq].cpu = (int)to + 1;
		moved++;
	}
	return moved;
}

u32 gic_set_pmr(u32 pmr)
{
	return gic->set_pmr(pmr);
}

void gic_set_priority(unsigned int irq, u8 prio)
{
	gic->set_priority(irq, prio);
}

void gic_send_sgi(unsigned int cpu, unsigned int sgi)
{
	gic->send_sgi(cpu, sgi);
}

void gic_handle_irq(void)
{
	for (;;) {
		u32 iar = gic->ack(), intid = iar & 0x3ff;

		if (intid >= NR_IRQS)
			break;
		if (intid < 16) {
			gic->eoi(iar); /* before the handler: IPI_STOP never returns */
			if (intid < NR_IPIS)
				ipi_handler((enum ipi_type)intid);
			continue;
		}
		if (handlers[intid].fn)
			handlers[intid].fn(intid, handlers[intid].arg);
		else
			printk("gic: unexpected interrupt %u\n", intid);
		gic->eoi(iar);
	}
}

/* The interrupt parent of a node: its own or an ancestor's interrupt-parent. */
static int irq_parent(const struct dtb *dt, int node)
{
	u32 ph;

	for (int n = node; n >= 0; n = dtb_parent(dt, n))
		if (dtb_prop_u32(dt, n, "interrupt-parent", &ph) == 0)
			return dtb_node_by_phandle(dt, ph);
	return -1;
}

/* GIC binding: <type number flags>, type 0 = SPI (INTID 32+n), 1 = PPI (16+n). */
int dt_irq(const struct dtb *dt, int node, int index)
{
	int parent = irq_parent(dt, node), len;
	u32 cells = 3;
	const u8 *p = dtb_prop(dt, node, "interrupts", &len);

	if (parent >= 0)
		dtb_prop_u32(dt, parent, "#interrupt-cells", &cells);
	if (!p || cells < 2 || len < (int)((index + 1) * cells * 4))
		return -1;
	p += index * cells * 4;
	switch (dtb_be32(p)) {
	case 0:
		return 32 + (int)dtb_be32(p + 4);
	case 1:
		return 16 + (int)dtb_be32(p + 4);
	default:
		return -1;
	}
}
