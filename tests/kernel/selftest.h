/* selftest.h - helpers more than one self-test file uses (defined in
 * selftest_cpufreq.c, which had them first). Test code only. */
#ifndef TESTS_KERNEL_SELFTEST_H
#define TESTS_KERNEL_SELFTEST_H

#include "types.h"

/* The online CPU of the lowest (little) or highest (!little) capacity, the last
 * such in DT order, among those with a cpufreq policy if with_policy; -1 if none. */
int selftest_pick_cpu(bool little, bool with_policy);
/* Every policy back to the default governor (performance). */
void selftest_restore_governors(void);
/* speed=native on QEMU: cpu_work() is real work and every vCPU is alike, so cases whose
 * reference is the tree's capacities (work credited, run times) skip with this reason
 * (on a board they run: there the tree is what they check). */
#define SELFTEST_NATIVE_QEMU "speed=native on QEMU: every vCPU alike (selftest=validate)"
#define SELFTEST_SKIP_NATIVE_QEMU(t)                                                               \
	do {                                                                                       \
		if (speed_model == SPEED_NATIVE && speed_emulated_machine())                       \
			KTEST_SKIP(t, SELFTEST_NATIVE_QEMU);                                       \
	} while (0)

#endif
