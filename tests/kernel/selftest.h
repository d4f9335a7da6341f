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

#endif
