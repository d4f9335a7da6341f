/* bootargs.h - the kernel command line (/chosen/bootargs): space-separated
 * words, each `key` or `key=value`. The contract with outside tools:
 *   selftest          run every self-test suite, then power off
 *   selftest=a,b      run the named suites, then power off
 *   panic=poweroff    power off after a panic (unattended runs)
 *   crashtest=WORD    fail on purpose (tests of the reports; tests/kernel/crashtest.c):
 *                     fault, stack, write-text, exec-data, exec-stack, canary,
 *                     softlockup, hardlockup, sched-checks (the debug build's
 *                     reports: lock order, lock held, run-queue invariants)
 *   watchdog_thresh=MS  hard-lockup threshold, soft = 2 x MS (kernel/watchdog.c)
 *   bench=NAME,k=v    run a benchmark (include/bench.h), then power off
 *   experiment=N      run experiment N (,short: its KTAP check), then power off
 *   stress_seed=N     the PRNG seed of the stress suite (tests/kernel/selftest_stress.c; default 1)
 *   speed=all|exact|work|native  the emulated CPU speed model (kernel/sched/speed.c;
 *                     default all on QEMU trees, native on a board's)
 *                     exact needs QEMU's -plugin build/host/vcpu_insns.so)
 *   speed_clock=elapsed|ps  how speed=all counts a CPU's busy time (default elapsed)
 * Unknown words are reported and ignored. */
#ifndef BOOTARGS_H
#define BOOTARGS_H

#include "types.h"

#define BOOTARGS_MAX 512

void bootargs_init(const char *cmdline); /* copies; NULL = empty */
/* The value of `key` (copied into buf), "" for a bare key; NULL if absent. */
const char *bootarg_get(const char *key, char *buf, size_t size);
bool bootarg_has(const char *key);
const char *bootargs_string(void);

#endif
