/* psci.c - PSCI 0.2+ firmware calls (CPU_ON, CPU_OFF, CPU_SUSPEND, SYSTEM_OFF,
 * SYSTEM_RESET, PSCI_VERSION, AFFINITY_INFO) over hvc or smc, as /psci's "method" says.
 * Function IDs: Arm DEN0022 (PSCI) 5.1; the 64-bit CPU_ON since it takes an
 * address. A pre-0.2 "arm,psci" node gives its own IDs. */
#include "drivers.h"
#include "kernel.h"

#define PSCI_VERSION	      0x84000000u
#define PSCI_CPU_SUSPEND_64   0xc4000001u
#define PSCI_CPU_OFF	      0x84000002u
#define PSCI_CPU_ON_64	      0xc4000003u
#define PSCI_AFFINITY_INFO_64 0xc4000004u
#define PSCI_SYSTEM_OFF	      0x84000008u
#define PSCI_SYSTEM_RESET     0x84000009u

static bool use_smc, present, v0_1;
static u32 fn_cpu_on = PSCI_CPU_ON_64, fn_cpu_off = PSCI_CPU_OFF,
	   fn_cpu_suspend = PSCI_CPU_SUSPEND_64;

static u64 psci_call(u64 fn, u64 a1, u64 a2, u64 a3)
{
	register u64 x0 __asm__("x0") = fn;
	register u64 x1 __asm__("x1") = a1;
	register u64 x2 __asm__("x2") = a2;
	register u64 x3 __asm__("x3") = a3;

	if (use_smc)
		__asm__ volatile("smc #0"
				 : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
				 :
				 : "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13",
				   "x14", "x15", "x16", "x17", "memory");
	else
		__asm__ volatile("hvc #0"
				 : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)
				 :
				 : "x4", "x5", "x6", "x7", "x8", "x9", "x10", "x11", "x12", "x13",
				   "x14", "x15", "x16", "x17", "memory");
	return x0;
}

int psci_init(const struct dtb *dt)
{
	int node = dtb_path(dt, "/psci");
	const char *method;

	if (node < 0 || !(method = dtb_prop_str(dt, node, "method"))) {
		printk("psci: no /psci node with a method\n");
		return -1;
	}
	if (!strcmp(method, "smc"))
		use_smc = true;
	else if (strcmp(method, "hvc")) {
		printk("psci: unknown method \"%s\"\n", method);
		return -1;
	}
	if (!dtb_is_compatible(dt, node, "arm,psci-0.2") &&
	    !dtb_is_compatible(dt, node, "arm,psci-1.0")) {
		dtb_prop_u32(dt, node, "cpu_on", &fn_cpu_on); /* PSCI 0.1 */
		dtb_prop_u32(dt, node, "cpu_off", &fn_cpu_off);
		dtb_prop_u32(dt, node, "cpu_suspend", &fn_cpu_suspend);
		v0_1 = true; /* no AFFINITY_INFO */
	}
	present = true;
	return 0;
}

bool psci_available(void)
{
	return present;
}

u32 psci_version(void)
{
	return present ? (u32)psci_call(PSCI_VERSION, 0, 0, 0) : 0;
}

int psci_cpu_on(u64 mpidr, u64 entry_pa, u64 context)
{
	if (!present)
		return -1;
	return (int)(s32)psci_call(fn_cpu_on, mpidr, entry_pa, context);
}

/* On the CPU to turn off, IRQs masked: returns only if the firmware refused
 * (Arm DEN0022 5.1.3: DENIED when a trusted OS runs there). */
int psci_cpu_off(void)
{
	if (!present)
		return -1;
	return (int)(s32)psci_call(fn_cpu_off, 0, 0, 0);
}

/* Arm DEN0022 5.1.2 (and 5.4, the power_state formats): on the CPU to suspend, IRQs
 * masked; returns after the wakeup (a standby state, or any state QEMU accepts), or
 * at once with an error (-2 INVALID_PARAMETERS: QEMU for power levels above the
 * CPU). A state that loses context would resume at entry_pa instead: callers pass
 * only states that keep it (kernel/sched/cpuidle.c). */
int psci_cpu_suspend(u32 power_state, u64 entry_pa, u64 context)
{
	if (!present)
		return -1;
	return (int)(s32)psci_call(fn_cpu_suspend, power_state, entry_pa, context);
}

/* Arm DEN0022 5.1.5 at affinity level 0: 0 ON, 1 OFF, 2 ON_PENDING; a
 * negative error, or -1 when there is no such call (PSCI 0.1). */
int psci_affinity_info(u64 mpidr)
{
	if (!present || v0_1)
		return -1;
	return (int)(s32)psci_call(PSCI_AFFINITY_INFO_64, mpidr, 0, 0);
}

void psci_system_off(void)
{
	if (present)
		psci_call(PSCI_SYSTEM_OFF, 0, 0, 0);
}

void psci_system_reset(void)
{
	if (present)
		psci_call(PSCI_SYSTEM_RESET, 0, 0, 0);
}
