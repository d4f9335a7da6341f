/* drivers.h - the arm64 platform drivers (drivers/) as arch/arm64 sees them.
 * Each init takes the device tree and finds its device by compatible or by
 * /chosen; each returns 0 or a negative error with a message printed. */
#ifndef ARM64_DRIVERS_H
#define ARM64_DRIVERS_H

#include "dtb.h"
#include "types.h"

/* pl011.c */
int pl011_init(const struct dtb *dt); /* console from stdout-path */
int pl011_enable_rx_irq(void);	      /* after the GIC is up */

/* gic.c, gicv2.c, gicv3.c */
typedef void (*irq_handler_t)(unsigned int irq, void *arg);
int gic_init(const struct dtb *dt);  /* boot CPU: distributor + own interface */
void gic_cpu_init(unsigned int cpu); /* each CPU: its interface / redistributor */
/* CPU hotplug: route the SPIs that target `cpu` to `to` instead; returns how many. */
unsigned int gic_migrate_irqs(unsigned int cpu, unsigned int to);
int irq_register(unsigned int irq, irq_handler_t fn, void *arg);
void gic_enable_irq(unsigned int irq); /* SPIs go to the boot CPU */
void gic_send_sgi(unsigned int cpu, unsigned int sgi);
void gic_handle_irq(void);
/* Interrupt number (GIC INTID) of entry `index` of a node's "interrupts". */
int dt_irq(const struct dtb *dt, int node, int index);
const char *gic_name(void);
/* Every interrupt has priority GIC_PRIO_DEFAULT except the local timer's,
 * GIC_PRIO_STALL: a priority mask of GIC_PMR_STALL lets only it reach the core
 * (arch_stall_until); GIC_PMR_OPEN lets all in. */
#define GIC_PRIO_DEFAULT 0xa0
#define GIC_PRIO_STALL	 0x80
#define GIC_PMR_STALL	 0x90
#define GIC_PMR_OPEN	 0xf0
u32 gic_set_pmr(u32 pmr);
void gic_set_priority(unsigned int irq, u8 prio);
/* Whether the GIC can target logical CPU `cpu` (arch_cpu_start refuses others). */
bool gic_serves_cpu(unsigned int cpu);

struct gic_ops {
	const char *name;
	void (*cpu_init)(unsigned int cpu);
	u32 (*ack)(void); /* INTID, >= 1020 if spurious */
	void (*eoi)(u32 intid);
	void (*enable)(unsigned int irq);
	void (*send_sgi)(unsigned int cpu, unsigned int sgi);
	void (*set_affinity)(unsigned int irq, unsigned int cpu); /* an SPI */
	u32 (*set_pmr)(u32 pmr); /* this CPU's priority mask; returns the old one */
	void (*set_priority)(unsigned int irq, u8 prio); /* a PPI: this CPU's copy */
	unsigned int max_cpus; /* CPUs it can target (GICv2: 8); 0: no limit */
};
const struct gic_ops *gicv2_probe(const struct dtb *dt, int node);
const struct gic_ops *gicv3_probe(const struct dtb *dt, int node);

/* arm_timer.c */
int arm_timer_clock_init(void);
int arm_timer_init(const struct dtb *dt);
void arm_timer_cpu_init(void);
void arm_timer_cpu_stop(void); /* this CPU's timer off (it goes offline) */
u64 arm_timer_read_ns(void);
void arm_timer_dilate(unsigned int d);
void arm_timer_set_deadline_ns(u64 ns);
u64 arm_timer_freq(void);
void arm_timer_stall_until(u64 ns); /* arch_stall_until() */

/* psci.c */
int psci_init(const struct dtb *dt);
int psci_cpu_on(u64 mpidr, u64 entry_pa, u64 context);
int psci_cpu_off(void); /* returns only on refusal */
/* power_state as the tree's arm,psci-suspend-param; 0 after the wakeup, < 0 refused */
int psci_cpu_suspend(u32 power_state, u64 entry_pa, u64 context);
int psci_affinity_info(u64 mpidr); /* 0 on, 1 off, 2 on pending, < 0 error */
void psci_system_off(void);
void psci_system_reset(void);
bool psci_available(void);
u32 psci_version(void);

/* hi3660_stub_clk.c: the Hi3660's cpufreq driver, if the tree has a stub clock */
int hi3660_stub_clk_init(const struct dtb *dt);

#endif
