#!/usr/bin/env python3
"""runtests.py - the host test runner behind `make test`.

Owns: the table of test runs (RUNS below), running each one (a host program,
a fuzzer, a QEMU boot with `selftest`), keeping its output in
build/test-logs/NAME.log, judging it through its KTAP output (tools/ktap.py)
and printing one line per run, the failures, and last the line
`N passed, N failed` (leaf test cases over all runs). Exits non-zero on any
failure. Does not own building anything (the Makefile runs `make all fuzzers`
first) or installing tools (tools/deps.sh).

A run fails on a `not ok` case, and also -- counted as one more failure -- on
a panic line, on missing KTAP (no plan, fewer results than planned), on a
non-zero exit of QEMU, or on a hang. Timeouts only detect hangs: host
wall-clock time is never asserted.

    tools/runtests.py [-v] [-k NAME] [--list] [--build DIR]
    QEMU="qemu-system-aarch64 -d guest_errors" tools/runtests.py -k bl44 -v
"""

import argparse
import collections
import glob
import os
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import time
import traceback
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap  # noqa: E402

# ---- the table ---------------------------------------------------------------------------
# One dict per run. "kind" picks the function that runs it (KINDS, at the end).
# Paths are relative to the repository root; "{build}" is the build directory.
#
#   qemu:      "qemu"    machine arguments (-M, -cpu, -smp, -dtb, ...)
#              "boot"    how the kernel gets in (default: -kernel {image})
#              "release": True -> {image} is the release build/Image (benchmarks and
#                        experiments measure it); otherwise the debug build/debug/Image
#                        (DEBUG=1: lock, lock-order and run-queue invariant checks)
#              "allow_reports": True -> the kernel's "N unexpected debug report(s)"
#                        line may be non-zero (runs that provoke reports on purpose)
#              "append"  kernel command line (default "selftest"; None: no -append)
#              "needs"   files that must exist (default: the Image and any -dtb)
#              "optional": True  -> a missing need skips the run instead of failing it
#              "expect"  [(name, regex)]: each a test case, passed if a log line matches
#              "expect_panic": True -> the boot is meant to panic (no KTAP judged;
#                        QEMU is stopped after the report)
#              "topology_of": a DTB: the kernel's "topology:" lines must equal what
#                        build/host/topology prints for it (one test case)
#   shell:     "qemu" as above, booted without selftest; "script": [(name, keys, [regex])]:
#              each step waits for the shell's prompt, types keys and is one test
#              case, passed when the output up to the next prompt matches every regex
#              (a step whose keys end the shell, like poweroff, waits for QEMU's exit)
#   command:   "argv"    a host program that prints KTAP
#   all:       "timeout" (s, whole run) and "idle_timeout" (s without output): hang
#              detectors only.

# QEMU's own device trees: the host DT tests compare our reader with libfdt on them.
QEMU_DTBS = [
    ("virt-gicv2-a53-smp2.dtb",
     ["-M", "virt,dumpdtb={out}", "-cpu", "cortex-a53", "-smp", "2"]),
    ("virt-gicv3-el2-a72-smp20.dtb",
     ["-M", "virt,gic-version=3,virtualization=on,dumpdtb={out}", "-cpu", "cortex-a72",
      "-smp", "20"]),
]

# Every self-test boot: repeatable emulated time (DESIGN.md), serial on stdio.
QEMU_SELFTEST = ["-icount", "shift=0,sleep=off", "-nographic", "-no-reboot", "-m", "512M"]

# The default machine (HiKey960-like 4+4, GICv2, EL1 entry): most runs boot it.
QEMU_BL44 = ["-M", "virt", "-cpu", "cortex-a53", "-smp", "8", "-dtb", "{build}/dts/qemu-bl44.dtb"]

RUNS = [
    {"name": "ktap-parser", "kind": "pyunit", "path": "tools/test_ktap.py"},
    {"name": "host-unittests", "kind": "unittests", "argv": ["{build}/host/unittests"]},
    # make compare's own parts (initramfs, Linux's tree, the table); no download, no boot.
    {"name": "compare-tool", "kind": "pyunit", "path": "tools/test_compare.py"},
    # Linux 6.1's PELT paths, modelled in Python, against the host scenarios' trace
    # (tests/host/test_oracle.c): every task's and run queue's values, to the unit.
    {"name": "pelt-oracle", "kind": "command",
     "argv": ["tests/oracle/linux_pelt.py", "--unittests", "{build}/host/unittests",
              "--dtb", "{build}/dts/hi3660-hikey960.dtb"]},
    # Expands into one run per tests/fuzz/fuzz_*.c, each counted as one test;
    # at most 60 s each keeps the four (bootargs, dtb, rtapp, shell) within a
    # few minutes. `make fuzz` (--fuzz-time) runs them longer.
    {"name": "fuzz_*", "kind": "fuzz", "runs": 20000, "max_total_time": 60},
    # (a) big.LITTLE tree, GICv2, EL1 entry.
    {"name": "bl44-gicv2-el1", "kind": "qemu",
     "qemu": QEMU_BL44,
     "topology_of": "{build}/dts/qemu-bl44.dtb",
     "expect": [("boot-time-first-line", r"first console line at \d+ us"),
                ("boot-time-all-online", r"smp: 8 of 8 CPUs online at \d+ us")]},
    # (b) HiKey960's MPIDRs (0x0-0x3, 0x100-0x103) under GICv3, EL2 entry, PSCI over smc.
    {"name": "hikey-mpidr-gicv3-el2", "kind": "qemu",
     "qemu": ["-M", "virt,virtualization=on,gic-version=3", "-cpu", "cortex-a72",
              "-smp", "20", "-dtb", "{build}/dts/qemu-hikey-mpidr.dtb"],
     "topology_of": "{build}/dts/qemu-hikey-mpidr.dtb",
     "expect": [("all-online", r"smp: 8 of 8 CPUs online at \d+ us")]},
    # (c) QEMU's own generated tree.
    {"name": "qemu-dtb-smp2", "kind": "qemu",
     "qemu": ["-M", "virt", "-cpu", "cortex-a53", "-smp", "2"],
     "topology_of": "{build}/dts-qemu/virt-gicv2-a53-smp2.dtb",
     "expect": [("boot-time-first-line", r"first console line at \d+ us"),
                ("boot-time-all-online", r"smp: 2 of 2 CPUs online at \d+ us"),
                # QEMU's own tree carries /chosen rng-seed (32 bytes) and kaslr-seed (8).
                ("canary-seeded", r"canary from the boot counter and firmware entropy "
                                  r"\(40 seed bytes")]},
    # NO_HZ idle off (Linux's boot option): the idle CPUs tick HZ a second again.
    {"name": "nohz-off-bl44", "kind": "qemu", "append": "selftest=boot,timer,sched nohz=off",
     "qemu": ["-M", "virt", "-cpu", "cortex-a53", "-smp", "8",
              "-dtb", "{build}/dts/qemu-bl44.dtb"]},
    # A CPU in the tree that QEMU does not have: reported, left out, boot goes on;
    # hotplug cycles the six that came up and refuses to start the other two.
    {"name": "missing-cpus", "kind": "qemu", "append": "selftest=boot,timer,threads,hotplug",
     "qemu": ["-M", "virt", "-cpu", "cortex-a53", "-smp", "6",
              "-dtb", "{build}/dts/qemu-bl44.dtb"],
     "expect": [("cpu6-reported", r"smp: CPU6 \(MPIDR 0x6\) failed to come online"),
                ("cpu7-reported", r"smp: CPU7 \(MPIDR 0x7\) failed to come online"),
                ("six-online", r"smp: 6 of 8 CPUs online"),
                ("cpu6-not-hotplugged", r"^cpu: CPU6 never came online at boot")]},
    # An unexpected exception is reported in full and stops every other CPU.
    {"name": "fault-report", "kind": "qemu", "append": "crashtest=fault panic=poweroff",
     "expect_panic": True,
     "qemu": QEMU_BL44,
     "expect": [("exception-class", r"Unhandled exception: data abort \(same EL\)"),
                ("fault-address", r"translation fault .* at address 0x"),
                ("cpu-and-thread", r"CPU \d+, thread crashtest \(pid \d+\)"),
                ("registers", r"x29: [0-9a-f]{16} x28: [0-9a-f]{16}"),
                ("backtrace", r"^  0x[0-9a-f]+ \(kernel\.elf\+0x[0-9a-f]+\)"),
                # Names from the built-in symbol table (tools/gen_ksyms.py).
                ("pc-symbol", r"^pc : 0x[0-9a-f]+ \(kernel\.elf\+0x[0-9a-f]+\) "
                              r"crash_fault\+0x[0-9a-f]+/0x[0-9a-f]+$"),
                ("lr-symbol", r"^lr : .* crashtest_thread\+0x[0-9a-f]+/0x[0-9a-f]+$"),
                ("backtrace-symbols", r"^  0x[0-9a-f]+ \(kernel\.elf\+0x[0-9a-f]+\) "
                                      r"ret_from_fork\+0x[0-9a-f]+/0x[0-9a-f]+$"),
                ("panic-trace-symbols", r"^  0x[0-9a-f]+ .* handle_sync\+0x"),
                ("panic", r"Kernel panic on CPU \d+: unhandled exception"),
                ("others-stopped", r"panic: stopped 7 other CPUs")]},
    # Issue 9 fault reports (kernel/crashtest.c), each a boot that must panic.
    {"name": "stack-overflow-report", "kind": "qemu", "append": "crashtest=stack panic=poweroff",
     "expect_panic": True,
     "qemu": QEMU_BL44,
     "expect": [("guard-page", r"Kernel stack overflow: thread crashtest \(pid \d+\) on CPU \d+ "
                               r"hit the guard page below its stack \[0x[0-9a-f]+-0x[0-9a-f]+\]"),
                ("panic", r"Kernel panic on CPU \d+: unhandled exception")]},
    {"name": "text-readonly", "kind": "qemu", "append": "crashtest=write-text panic=poweroff",
     "expect_panic": True,
     "qemu": QEMU_BL44,
     "expect": [("write-faults", r"Unhandled exception: data abort \(same EL\)"),
                ("permission", r"permission fault at address 0x[0-9a-f]+ \(write\)")]},
    {"name": "data-noexec", "kind": "qemu", "append": "crashtest=exec-data panic=poweroff",
     "expect_panic": True,
     "qemu": QEMU_BL44,
     "expect": [("fetch-faults", r"Unhandled exception: instruction abort \(same EL\)"),
                ("permission", r"permission fault at address 0x[0-9a-f]+ \(read or fetch\)")]},
    {"name": "stack-protector", "kind": "qemu", "append": "crashtest=canary panic=poweroff",
     "expect_panic": True,
     "qemu": QEMU_BL44,
     "expect": [("names-function", r"stack-protector: kernel stack is corrupted in: "
                                   r"0x[0-9a-f]+ \(kernel\.elf\+0x[0-9a-f]+\) crash_smash\+0x"),
                ("panic", r"Kernel panic on CPU \d+: stack-protector: kernel stack corrupted")]},
    # Lockup detectors (kernel/watchdog.c), at 100 ms (soft: 200 ms) to keep the runs short.
    {"name": "softlockup-report", "kind": "qemu",
     "append": "crashtest=softlockup watchdog_thresh=100 panic=poweroff", "expect_panic": True,
     "qemu": QEMU_BL44,
     "expect": [("report", r"watchdog: BUG: soft lockup - CPU#\d+ stuck for \d+ ms! \[crashtest:\d+\]"),
                ("backtrace-into-stuck-code", r"^  0x[0-9a-f]+ .* crash_softlockup\+0x"),
                ("panic", r"Kernel panic on CPU \d+: softlockup")]},
    {"name": "hardlockup-report", "kind": "qemu",
     "append": "crashtest=hardlockup watchdog_thresh=100 panic=poweroff", "expect_panic": True,
     "qemu": QEMU_BL44,
     "expect": [("report", r"watchdog: hard LOCKUP on CPU#(\d+): no tick for \d+ ms.* seen by CPU#\d+"),
                ("panic", r"Kernel panic on CPU \d+: hard LOCKUP on CPU#\d+")]},
    {"name": "stack-noexec", "kind": "qemu", "append": "crashtest=exec-stack panic=poweroff",
     "expect_panic": True,
     "qemu": QEMU_BL44,
     "expect": [("fetch-faults", r"Unhandled exception: instruction abort \(same EL\)"),
                ("permission", r"permission fault at address 0x[0-9a-f]+ \(read or fetch\)")]},
    # The debug build's checks on the real locks and run queues (kernel/crashtest.c):
    # each prints its report and the kernel goes on (then the debug suite runs).
    # nohz=off: the corrupted CPU idles, and only a ticking idle CPU balances itself
    # (with NO_HZ idle its tick stops and no busy CPU has a reason to kick it).
    {"name": "sched-debug-checks", "kind": "qemu",
     "append": "crashtest=sched-checks selftest=debug nohz=off",
     "allow_reports": True,
     "qemu": QEMU_BL44,
     "expect": [("lock-order", r"^BUG: lockdep: lock order violation: taking pi_lock .* at "
                               r"kernel/crashtest\.c:\d+ while holding rq->lock of cpu\d+"),
                ("held-lock-list", r"^  held: rq->lock of cpu\d+ .*taken at kernel/crashtest\.c"),
                ("assert-held", r"^BUG: lockdep: lock not held: update_rq_clock\(\) expects "
                                r"&rq->lock held \(kernel/sched/core\.c:\d+\)"),
                ("assert-backtrace", r"^  0x[0-9a-f]+ .* update_rq_clock\+0x"),
                ("nr-running", r"^BUG: sched invariant: cpu\d+: nr_running \d+, the classes say \d+"),
                ("found-at-balance", r"^  0x[0-9a-f]+ .* load_balance\+0x"),
                ("kernel-goes-on", r"^crashtest: sched checks done")]},
    # Each other virt machine: its boot topology equals the host command's.
] + [
    {"name": "topology-" + m, "kind": "qemu", "append": "selftest=smp",
     "qemu": ["-M", "virt", "-cpu", "cortex-a53", "-smp", str(n),
              "-dtb", "{build}/dts/%s.dtb" % m],
     "topology_of": "{build}/dts/%s.dtb" % m}
    for m, n in (("qemu-bl44", 8), ("qemu-bl44-1c", 8), ("qemu-sym8", 8), ("qemu-bl22", 4))
]

# The speed model of all code (speed=all, issue 14): a loop's time follows
# capacity and OPP on two and three capacity levels (tests/kernel/speed.c).
RUNS += [
    {"name": "speed-" + m, "kind": "qemu", "append": "selftest=speed", "release": True,
     "qemu": ["-M", "virt", "-cpu", "cortex-a53", "-smp", "8",
              "-dtb", "{build}/dts/%s.dtb" % m]}
    for m in ("qemu-bl44", "qemu-bl44-1c", "qemu-tri")
]

# ---- firmware boot paths: U-Boot booti/bootefi, EDK2 (UEFI), the HiKey960 image ----------
# U-Boot reads its environment (bootcmd, bootargs; tools/uboot/*.env, built into
# {build}/fw/ by `make firmware`) from the second flash bank; QEMU's loader puts
# the Image at U-Boot's kernel_addr_r and the tree at 0x48000000. EDK2 gets the
# Image through fw_cfg (-kernel) and starts it as an EFI application with
# -append as its load options, with QEMU's own tree.
UBOOT_BIN = "/usr/lib/u-boot/qemu_arm64/u-boot.bin"
EDK2_BIN = "/usr/share/qemu-efi-aarch64/QEMU_EFI.fd"


def uboot_run(name, env, machine, dtb, expect, **kw):
    flash = "{build}/fw/uboot-%s.flash" % env
    return dict({"name": name, "kind": "qemu", "append": None,
                 "qemu": machine,
                 "boot": ["-bios", UBOOT_BIN,
                          "-drive", "if=pflash,unit=1,format=raw,readonly=on,file=" + flash,
                          "-device", "loader,file={image},addr=0x40400000,force-raw=on",
                          "-device", "loader,file=%s,addr=0x48000000,force-raw=on" % dtb],
                 "needs": ["{image}", dtb, flash, UBOOT_BIN],
                 "topology_of": dtb,
                 "expect": [("u-boot-ran", r"^U-Boot 20\d\d")] + expect}, **kw)


def edk2_run(name, machine, expect):
    return {"name": name, "kind": "qemu", "qemu": machine + ["-nic", "none"],
            "boot": ["-bios", EDK2_BIN, "-kernel", "{image}"],
            "needs": ["{image}", EDK2_BIN],
            "expect": [("efi-stub", r"littlebig: EFI stub"),  # after EDK2's escapes
                       ("bootargs-from-load-options", r'bootargs "selftest"; exiting boot'),
                       ("firmware-memory-kept", r"^efi: firmware keeps \[0x")] + expect}


BL44_EL1 = ["-M", "virt", "-cpu", "cortex-a53", "-smp", "8"]
HIKEY_EL2 = ["-M", "virt,virtualization=on,gic-version=3", "-cpu", "cortex-a72", "-smp", "20"]
BL44_DTB = "{build}/dts/qemu-bl44.dtb"
HIKEY_DTB = "{build}/dts/qemu-hikey-mpidr.dtb"
EL1 = [("entered-el1", r"# entered at EL1")]
EL2 = [("entered-el2", r"# entered at EL2")]

RUNS += [
    uboot_run("uboot-booti-bl44-el1", "booti", BL44_EL1, BL44_DTB,
              [("booti", r"^littlebig: U-Boot booti")] + EL1),
    uboot_run("uboot-booti-hikey-mpidr-el2", "booti", HIKEY_EL2, HIKEY_DTB,
              [("booti", r"^littlebig: U-Boot booti"),
               ("all-online", r"smp: 8 of 8 CPUs online")] + EL2),
    # U-Boot's EFI loader: the MMU and caches are on at entry (EL1, then EL2).
    uboot_run("uboot-bootefi-bl44-el1", "bootefi", BL44_EL1, BL44_DTB,
              [("efi-stub", r"^littlebig: EFI stub"),
               ("firmware-memory-kept", r"^efi: firmware keeps \[0x")] + EL1),
    uboot_run("uboot-bootefi-hikey-mpidr-el2", "bootefi", HIKEY_EL2, HIKEY_DTB,
              [("efi-stub", r"^littlebig: EFI stub"),
               ("all-online", r"smp: 8 of 8 CPUs online")] + EL2),
    # The DTB right at the kernel's end (header image_size past its load address).
    uboot_run("uboot-dtb-after-kernel", "booti-dtb-after-kernel", BL44_EL1, BL44_DTB,
              [("dtb-placed", r"^littlebig: DTB at [0-9a-f]+, just past the kernel")] + EL1),
    # EDK2: entered with its MMU, caches and HCR_EL2 as it left them.
    edk2_run("edk2-gicv2-el1", ["-M", "virt,acpi=off", "-cpu", "cortex-a53", "-smp", "4"], EL1),
    edk2_run("edk2-gicv3-el2", ["-M", "virt,acpi=off,virtualization=on,gic-version=3",
                                "-cpu", "cortex-a72", "-smp", "4"], EL2),
    # What `make hikey960` built unpacks to the same kernel and DTB.
    {"name": "hikey960-bootimg", "kind": "pyunit", "path": "tools/test_bootimg.py"},
]

# ---- entry robustness: a pre-boot shim between QEMU and the Image ------------------------
# tools/bootshim/shim.S, built into {build}/fw/ by `make firmware`: QEMU boots it
# as -kernel at EL2 (x0 = the DTB it patched) and it enters the Image, loaded at
# 0x40400000, with HCR_EL2 (E2H, TGE, RW=0, traps; -cpu cortex-a76 has VHE, so
# E2H sticks), SCTLR_EL1/EL2, CNTHCTL_EL2, CPTR_EL2, MDCR_EL2 and more in junk
# states. The spin-table shim also parks the other CPUs in a holding pen: the
# tree's enable-method = "spin-table" sends the kernel through the release path,
# and each CPU enters secondary_entry with the same junk.
def shim_run(name, shim, smp, dtb, expect, suites="boot,smp,ipi"):
    shim = "{build}/fw/bootshim-%s.bin" % shim
    return {"name": name, "kind": "qemu", "append": "selftest=" + suites,
            "qemu": ["-M", "virt,virtualization=on", "-cpu", "cortex-a76", "-smp", str(smp),
                     "-dtb", dtb],
            "boot": ["-kernel", shim,
                     "-device", "loader,file={image},addr=0x40400000,force-raw=on"],
            "needs": ["{image}", dtb, shim],
            "topology_of": dtb,
            "expect": [("shim-ran", r"^bootshim: .*HCR_EL2=0x0*4[0-9a-f]{8}, entering")] +
            EL2 + expect}


RUNS += [
    shim_run("el2-junk-hcr", "el2-junk", 8, BL44_DTB,
             [("all-online", r"smp: 8 of 8 CPUs online")]),
    # Secondaries enter at a different address than the boot CPU: from the pen
    # to secondary_entry, released through cpu-release-addr (arch_cpu_start).
    # Hotplug: spin-table CPUs cannot be turned off, so they park (and CPU0,
    # enable-method psci, is turned off and on by PSCI).
    shim_run("spin-table-el2-junk", "spin-table", 4, "{build}/tests/dts/qemu-spin-table.dtb",
             [("spin-table-cpus", r"^topology: cpu=3 .*enable_method=spin-table "
               r"cpu_release_addr=0x40200818"),
              ("all-online", r"smp: 4 of 4 CPUs online"),
              ("hotplug-parked", r"^cpu: CPU3 offline in \d+ us: .*; parked in wfi")],
             suites="boot,smp,ipi,hotplug"),
]

# ---- the console shell: scripted sessions over the serial port ---------------------------
# Keys as a terminal sends them: \r ends a line, \x7f is Backspace, \x15 Ctrl-U,
# \x03 Ctrl-C, \x1b[A Up. "{wait:RX}" inside keys waits for RX before the rest,
# "{sleep:S}" lets S s of host time pass (a benchmark gets going). An expected
# regex starting with "!" must match no line.
SHELL_SCRIPT = [
    ("help", "help\r", [r"^  ps +tasks", r"^  spawn ", r"^  poweroff ", r"'help CMD'"]),
    ("help-cmd", "help spawn\r", [r"usage: spawn NAME \[work=US\]"]),
    ("help-unknown", "help nosuch\r", [r"no command 'nosuch'", r"usage: help \[CMD\]"]),
    ("unknown-command", "frobnicate 3\r", [r"unknown command 'frobnicate'"]),
    ("backspace", "hepl\x7f\x7flp ps\r", [r"^usage: ps$", r"^tasks: pid"]),
    ("ctrl-u", "garbage\x15cpus\r", [r"CPU CLUSTER CAP_ORIG", r"^ *7 +1 +1024 "]),
    ("ctrl-c-line", "cpus\x03", [r"\^C"]),
    ("history-up", "\x1b[A\x1b[A\x1b[B\r", [r"CPU CLUSTER CAP_ORIG"]),
    ("history", "history\r", [r"^ +\d+  cpus$", r"^ +\d+  help spawn$"]),
    ("ps", "ps\r", [r"PID NAME +CPU S POLICY NICE UTIL_AVG UTIL_EST +VRUNTIME +MIGR",
                    r"^ +\d+ init +\d+ R normal +0 ", r"^ +\d+ idle/1 +1 [IR] idle +0 "]),
    ("spawn-cpu-bound", "spawn hog nice=5 cpus=4-7\r", [r"spawned hog pid \d+: normal, work "
                                                         r"1000 us chunks, CPU-bound"]),
    ("spawn-periodic", "spawn tick work=2000 period=16000 policy=fifo prio=10 cpus=0\r",
     [r"spawned tick pid \d+: fifo, work 2000 us every 16000 us"]),
    ("spawn-bad-args", "spawn x work=abc\r", [r"work \(us\): 'abc' is not a number",
                                               r"usage: spawn NAME"]),
    ("spawn-bad-cpus", "spawn x cpus=9-12\r", [r"names CPUs that are not online",
                                                r"usage: spawn"]),
    ("spawn-bad-period", "spawn x work=5000 period=100\r", [r"shorter than work"]),
    ("spawn-bad-policy", "spawn x policy=deadline\r", [r"unknown policy 'deadline'"]),
    ("ps-spawned", "ps\r", [r"^ +\d+ hog +[4-7] [RrS] normal +5 ", r"^ +\d+ tick +0 [RrS] fifo "]),
    ("top-count", "top -n 2 -d 100\r", [r"top - \d+\.\d+ s, \d+ tasks", r"^ +\d+ hog "]),
    ("top-bad", "top -x 1\r", [r"unknown option '-x'", r"usage: top"]),
    ("top-ctrl-c", "top -d 50\r{wait:^ +\\d+ hog }\x03", [r"\^C"]),
    ("taskset-show", "taskset 1\r", [r"pid 1 \(\S+\) affinity"]),
    ("taskset-bad", "taskset 99999\r", [r"no task with pid 99999", r"usage: taskset"]),
    ("renice-bad", "renice 1 50\r", [r"nice 50 out of range -20..19", r"usage: renice"]),
    ("cpus-busy", "cpus\r", [r"^ +[4-7] +1 +1024 +\d+ +\d+ +\d+ +\d+ +\d+"]),
    ("domains", "domains\r", [r"^cpu0 MC span=0-3 groups=\{0\}\{1\}\{2\}\{3\}",
                              r"^cpu7 DIE span=0-7 groups=\{0-3\}\{4-7\}"]),
    ("features", "features\r", [r"^sched_features: "]),
    ("features-on", "features SIS_DEBOUNCE NO_MISFIT\r",
     [r"^sched_features: (?!.*NO_SIS_DEBOUNCE).*SIS_DEBOUNCE.* NO_MISFIT "]),
    ("features-off", "features NO_SIS_DEBOUNCE MISFIT\r",
     [r"^sched_features: .*NO_SIS_DEBOUNCE (?!.*NO_MISFIT)"]),
    ("features-bad", "features NO_SUCH\r", [r"unknown feature 'NO_SUCH'"]),
    ("cpufreq", "cpufreq\r", [r"^policy0 cpus=0-3 governor=\w+", r"^policy1 cpus=4-7 "]),
    ("cpufreq-governor", "cpufreq governor all schedutil\r",
     [r"^policy1 cpus=4-7 governor=schedutil"]),
    ("cpufreq-stats", "cpufreq stats 1\r", [r"cpufreq: policy1"]),
    ("cpufreq-reset", "cpufreq reset all\r", [r"cpufreq: policy0"]),
    ("cpufreq-bad", "cpufreq governor 7 fast\r", [r"policy 7 out of range", r"usage: cpufreq"]),
    ("run-pipe", "run pipe n=200\r", [r"RESULT pingpong loops=200 "]),
    ("run-bad-bench", "run bogus\r", [r"bench: unknown benchmark"]),
    # Ctrl-C of a running benchmark (160 threads, hours of work): it stops, its
    # threads end and are joined, memory is back, the prompt returns. A short
    # run first: kmalloc keeps the pages it carves for its size classes.
    ("run-hackbench", "run hackbench g=4 l=1\r", [r"^RESULT hackbench groups=4 loops=1 "]),
    ("run-ctrl-c", "run hackbench g=4 l=100000\r{wait:^run: hackbench,g=4,l=100000 started}"
     "{sleep:1}\x03", [r"\^C", r"^run: interrupted; .*\(kmalloc in use (\d+) -> \1 bytes, "
                       r"free pages (\d+) -> \2\)"]),
    ("ps-after-ctrl-c", "ps\r", [r"^ +\d+ init ", r"!^ +\d+ (hb-send|hb-recv|run) "]),
    ("run-pipe-ctrl-c", "run pipe n=100000000\r{wait:^run: pipe,n=100000000 started}{sleep:1}"
     "\x03", [r"^run: interrupted; .*\(kmalloc in use (\d+) -> \1 bytes, "
              r"free pages (\d+) -> \2\)", r"!^RESULT"]),
    ("ps-after-pipe", "ps\r", [r"^ +\d+ init ", r"!^ +\d+ (pipe-0|pipe-1|run) "]),
    # An experiment stopped mid-way: no table, its feature flag back as it was.
    ("run-experiment-ctrl-c", "run experiment 1 n=5000000\r"
     "{wait:^run: experiment 1,n=5000000 started}{sleep:1}\x03",
     [r"^run: interrupted; ", r"!^E1:", r"!^RESULT e1 "]),
    ("features-restored", "features\r", [r"^sched_features: (?!.*NO_ASYM_PREFER_PREV)"]),
    ("kill-bad", "kill 1\r", [r"not a task spawned from this shell"]),
    ("ps-pids", "ps\r", [r"hog"]),  # kind_shell fills in "{pid:hog}" from ps lines
    ("kill-hog", "kill {pid:hog}\r", [r"killed \d+"]),
    ("kill-tick", "kill {pid:tick}\r", [r"killed \d+"]),
    ("renice", "renice {pid:init} 3\r", [r"pid \d+ \(init\) nice 3"]),
    ("taskset", "taskset {pid:init} 0-7\r", [r"pid \d+ \(init\) affinity 0-7"]),
    ("taskset-stopper", "taskset 9 0-3\r", [r"scheduler's own stop task: not changed"]),
    ("renice-idle", "renice 1 0\r", [r"scheduler's own idle task: not changed"]),
    ("long-line", "x" * 200 + "\r", [r"unknown command 'x{100,127}'"]),
    ("garbage", "#$%^&*() \t\x02\x04\x1b[Z !@\r", [r"unknown command '#\$%\^&\*\(\)'"]),
    ("too-many-words", "ps " + "a " * 20 + "\r", [r"too many words"]),
    ("trace-start", "trace start\r", [r"^trace: on"]),
    ("trace-spawn", "spawn tr work=3000 period=10000 cpus=4\r", [r"spawned tr pid \d+"]),
    ("sleep-ctrl-c", "sleep 100000\r{wait:sleep 100000\r?\n}\x03", [r"\^C"]),
    ("sleep", "sleep 50\r", []),
    ("trace-stop", "trace stop\r", [r"^trace: off"]),
    ("trace-dump", "trace dump\r",
     [r"^# littlebig trace begin", r"^# tracer: nop",
      r"^ +tr-\d+ +\[004\] d\.\.2\. +\d+\.\d{6}: sched_switch: prev_comm=tr prev_pid=\d+ "
      r"prev_prio=120 prev_state=S ==> next_comm=swapper/4 next_pid=0 next_prio=120",
      r": sched_wakeup: comm=tr pid=\d+ prio=120 target_cpu=004",
      r": sched_wakeup_new: comm=tr pid=\d+ prio=120 target_cpu=004",
      r": cpu_idle: state=4294967295 cpu_id=4",
      r": sched_pelt_se: cpu=4 path=\(null\) comm=tr pid=\d+ load=\d+ util=\d+",
      r": sched_pelt_cfs: cpu=4 path=/ load=\d+ util=\d+",
      r"^# littlebig trace end: \d+ events"]),
    ("trace-bad", "trace sideways\r", [r"unknown trace action 'sideways'", r"usage: trace"]),
    ("trace-bench", "trace bench\r", [r"^trace: sched_wakeup tracepoint: off \d+ ns/call, on \d+ "]),
    ("kill-tr", "kill {pid:tr}\r", [r"killed \d+"]),
    ("cpu-list", "cpu\r", [r"^cpu0 online$", r"^cpu3 online$", r"^cpu7 online$"]),
    ("cpu-offline", "cpu offline 3\r",
     [r"^cpu: CPU3 offline in \d+ us: \d+ task\(s\) migrated, .*powered off"]),
    ("cpus-offline", "cpus\r", [r"^ +3 +0 +462 offline$", r"^ +2 +0 +462 +\d+ "]),
    ("cpu-list-offline", "cpu\r", [r"^cpu3 offline$", r"^cpu2 online$"]),
    ("domains-offline", "domains\r", [r"^cpu0 MC span=0-2 groups=\{0\}\{1\}\{2\}"]),
    ("cpu-offline-again", "cpu offline 3\r", [r"CPU3 is already offline", r"CPU3: offline, nothing changed"]),
    ("cpu-online", "cpu online 3\r", [r"^cpu: CPU3 online in \d+ us"]),
    ("cpu-online-again", "cpu online 3\r", [r"CPU3 is already online"]),
    # CPU0 takes the console's interrupt: that the next line is read at all
    # shows it moved to another CPU.
    ("cpu-offline-0", "cpu offline 0\r", [r"^cpu: CPU0 offline in \d+ us: .* 1 IRQ\(s\) moved"]),
    ("cpu-list-no-0", "cpu\r", [r"^cpu0 offline$", r"^cpu1 online$"]),
    ("cpu-online-0", "cpu online 0\r", [r"^cpu: CPU0 online in \d+ us"]),
    ("cpu-bad-id", "cpu offline 12\r", [r"there is no CPU12 \(possible CPUs: 0-7\)"]),
    ("cpu-bad-action", "cpu sideways 1\r", [r"'sideways' is neither offline nor online",
                                              r"usage: cpu \[offline\|online N\]"]),
    ("cpu-bad-number", "cpu online x\r", [r"cpu: 'x' is not a number", r"usage: cpu"]),
    ("selftest", "selftest smp\r", [r"^ok 1 smp", r"selftest: 0 failed case"]),
    ("poweroff", "poweroff\r", []),
]

RUNS += [
    {"name": "shell", "kind": "shell", "append": None,
     "qemu": ["-M", "virt", "-cpu", "cortex-a53", "-smp", "8", "-dtb", BL44_DTB],
     "script": SHELL_SCRIPT, "timeout": 120, "idle_timeout": 60},
    # tools/trace.py on the trace the shell run dumped.
    {"name": "trace-tool", "kind": "pyunit", "path": "tools/test_trace.py"},
]

# ---- workloads (kernel/bench/): shortened experiments judged on their direction ----------
# experiment=1,short prints E1's table and KTAP checks: on the HiKey960 shape,
# ping-pong migrations with ASYM_PREFER_PREV are under 1 % of those without;
# on the symmetric control the flag changes nothing.
RUNS += [
    {"name": "e1-short-" + m, "kind": "qemu", "append": "experiment=1,short", "release": True,
     "qemu": ["-M", "virt", "-cpu", "cortex-a53", "-smp", "8", "-dtb", "{build}/dts/%s.dtb" % m],
     "expect": [("e1-table", r"^# migrations +\d+ +\d+$")]}
    for m in ("qemu-bl44", "qemu-sym8")
] + [
    # E2: tbench over pipes beside the video background, SIS_DEBOUNCE off/on:
    # migrations with it under half of those without, throughput kept.
    {"name": "e2-short-qemu-sym8", "kind": "qemu", "append": "experiment=2,short", "release": True,
     "qemu": ["-M", "virt", "-cpu", "cortex-a53", "-smp", "8", "-dtb", "{build}/dts/qemu-sym8.dtb"],
     "expect": [("e2-table", r"^video playing +\d+ +-> \d+ ")]},
    # E3: hackbench time linear in the groups; a PELT update under a tenth of a wakeup.
    {"name": "e3-short-qemu-sym8", "kind": "qemu", "append": "experiment=3,short", "release": True,
     "qemu": ["-M", "virt", "-cpu", "cortex-a53", "-smp", "8", "-dtb", "{build}/dts/qemu-sym8.dtb"],
     "expect": [("e3-table", r"^PELT update \(update_load_avg: entity \+ cfs_rq\): \d+ ns each")]},
] + [
    # E4: with SELECT_IDLE_CAPACITY a task too big for its LITTLE CPU wakes on
    # an idle big one; without, where it was (hackbench, sysbench printed only).
    {"name": "e4-short-" + m, "kind": "qemu", "append": "experiment=4,short", "release": True,
     "qemu": ["-M", "virt", "-cpu", "cortex-a53", "-smp", "8", "-dtb", "{build}/dts/%s.dtb" % m],
     "expect": [("e4-table", r"^sysbench-threads events +\d+ +\d+ ")]}
    for m in ("qemu-bl44-1c", "qemu-bl44")
] + [
    # Placement beside Linux 6.1 on the same machine (kernel/bench/spin.c, KTAP): spinning
    # threads' share of time on big CPUs within 0.05 of Linux's, a spinner let go from
    # cpu0 first on a big CPU within 2x of Linux's time, ping-pong migrations <= 10.
    # Linux's figures are issue 13's; `make compare` measures Linux again (docs/compare.md).
    # All five cases are judged (",skip_up" would report the up-migration as SKIP).
    {"name": "placement-qemu-bl44", "kind": "qemu", "append": "experiment=placement",
     "release": True, "qemu": QEMU_BL44,
     "expect": [("spin-result", r"^RESULT spin threads=8 ms=1000 big_share=\d\.\d{3} "),
                ("spin-up-result", r"^RESULT spin_up from_cpu=0 first_big_ms=\d+\.\d{3} ")]},
    {"name": "bench-smoke", "kind": "qemu", "append": "experiment=smoke", "release": True,
     "qemu": ["-M", "virt", "-cpu", "cortex-a53", "-smp", "8", "-dtb", BL44_DTB],
     "expect": [("result-lines", r"^RESULT sysbench_cpu threads=1 events=\d+ .*features=")]},
]

# E5 shortened (2 s per run) on the symmetric 8-CPU machine: with RT_UTIL_TRACKING the
# frequency transitions are under a tenth of those without, and sysbench-cpu beside the
# FIFO thread completes more events (KTAP from kernel/bench/e5.c).
RUNS += [
    {"name": "e5-short-qemu-sym8", "kind": "qemu", "append": "experiment=5,short", "release": True,
     "qemu": ["-M", "virt", "-cpu", "cortex-a53", "-smp", "8", "-dtb", "{build}/dts/qemu-sym8.dtb"],
     "expect": [("e5-table", r"^total_trans \(rt-app\) +\d+ +\d+ +1230 -> 14$"),
                ("rtapp-result", r"^RESULT rtapp_task file=e5 \(NO_RT_UTIL_TRACKING\) task=fifo "
                                 r"policy=SCHED_FIFO .*features=")]},
]

# rt-app files by the initrd (QEMU -initrd): a broken one is refused with its line:column,
# and the kernel goes on (the shell lists and runs a built-in workload afterwards).
RTAPP_INITRD_SCRIPT = [
    ("rtapp-list", "run rtapp\r", [r"built-in workloads \(kernel/bench/workloads/\):.* e5 .*periodic"]),
    ("rtapp-initrd-refused", "run rtapp initrd\r",
     [r'^rtapp: initrd:8:4: event "suspend" is not supported .*; refused, not started']),
    ("rtapp-unknown-file", "run rtapp nosuch\r", [r'^rtapp: no workload "nosuch"']),
    # Every free page taken and written: none is in the initrd, whose bytes stay the same.
    ("rtapp-initrd-reserved", "selftest rtapp\r",
     [r"ok \d+ rtapp_initrd_reserved$", r"selftest: 0 failed case"]),
    ("rtapp-builtin-after", "run rtapp file=periodic\r",
     [r"^RESULT rtapp_task file=periodic task=light policy=SCHED_OTHER instances=1 .*features=",
      r"^RESULT rtapp_task file=periodic task=heavy "]),
    ("poweroff", "poweroff\r", []),
]
RUNS += [
    {"name": "rtapp-initrd-broken", "kind": "shell", "append": None,
     "qemu": ["-M", "virt", "-cpu", "cortex-a53", "-smp", "8", "-dtb", BL44_DTB,
              "-initrd", "tests/rtapp/bad-event.json"],
     "script": RTAPP_INITRD_SCRIPT, "timeout": 120, "idle_timeout": 60},
]

DEFAULT_TIMEOUT = 600       # s of host time for a whole run: a hang detector only
DEFAULT_IDLE_TIMEOUT = 180  # s without a byte of output
PANIC_GRACE = 10            # s left to a panicking kernel to finish its report
POWEROFF_GRACE = 60         # s for QEMU to exit once every planned result is in
QEMU_PANIC_MARKS = ("Kernel panic", "PANIC", "Unhandled exception")
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")
TAIL_LINES = 15             # log lines shown after a hang or crash
DIAG_LINES = 8              # diagnostic lines shown before a failed case (all with -v)


class Outcome:
    """What one run produced: leaf counts, failed cases, run-level problems."""

    def __init__(self, name, log):
        self.name = name
        self.log = log
        self.passed = self.failed = self.skipped = 0
        self.failures = []    # ktap.Failure
        self.problems = []    # strings: each makes the run fail (once in the count)
        self.notes = []       # strings: said, but fail nothing
        self.tail = []        # last lines of the log, shown with a problem
        self.skip_reason = None
        self.seconds = 0.0

    def add_summary(self, s):
        """Add a ktap.Summary: its counts, failures and protocol problems."""
        self.passed += s.passed
        self.failed += s.failed
        self.skipped += s.skipped
        self.failures += s.failures
        self.problems += s.problems

    @property
    def total_failed(self):
        """Failed cases, plus one when the run itself went wrong."""
        return self.failed + (1 if self.problems else 0)


class Options:
    def __init__(self, args):
        self.build = args.build
        self.verbose = args.verbose
        self.timeout = args.timeout
        self.idle_timeout = args.idle_timeout
        self.fuzz_time = getattr(args, "fuzz_time", None)
        self.qemu = shlex.split(os.environ.get("QEMU", "qemu-system-aarch64"))

    def path(self, s, run=None):
        image = "{build}/Image" if run and run.get("release") else "{build}/debug/Image"
        return s.replace("{image}", image).replace("{build}", self.build)

    def log_path(self, name):
        return os.path.join(self.build, "test-logs", name + ".log")

    def timeouts(self, run):
        return (self.timeout or run.get("timeout", DEFAULT_TIMEOUT),
                self.idle_timeout or run.get("idle_timeout", DEFAULT_IDLE_TIMEOUT))


# ---- running a process -------------------------------------------------------------------

class Process:
    """Runs argv in its own process group with output (stdout and stderr) to
    a log file, the terminal (-v) and a per-line callback. The callback may
    return a number of seconds: the process gets at most that long to end."""

    def __init__(self, argv, log, verbose, timeout, idle_timeout, on_line=None):
        self.argv, self.log_path, self.verbose = argv, log, verbose
        self.timeout, self.idle_timeout = timeout, idle_timeout
        self.on_line = on_line or (lambda line: None)
        self.tail = collections.deque(maxlen=TAIL_LINES)
        self.returncode = None
        self.hang = None      # why it was killed for being stuck, or None
        self.stopped = None   # why it was killed at the end of a grace the callback set

    def run(self):
        os.makedirs(os.path.dirname(self.log_path), exist_ok=True)
        with open(self.log_path, "wb") as log:
            log.write(("# " + " ".join(shlex.quote(a) for a in self.argv) + "\n").encode())
            try:
                proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        start_new_session=True)
            except OSError as e:
                self.returncode = 127
                self.tail.append("cannot run %s: %s" % (self.argv[0], e))
                log.write((self.tail[-1] + "\n").encode())
                return self
            try:
                self._pump(proc, log)
            except BaseException:
                _kill_group(proc)
                raise
            finally:
                proc.stdout.close()
        return self

    def _pump(self, proc, log):
        start = time.monotonic()
        last_output = start
        end_by = start + self.timeout
        grace_why = None  # set once the callback shortened end_by
        fd = proc.stdout.fileno()
        sel = selectors.DefaultSelector()
        sel.register(fd, selectors.EVENT_READ)
        partial = b""
        while True:
            now = time.monotonic()
            idle_end = last_output + self.idle_timeout
            wait = min(end_by, idle_end) - now
            if wait <= 0:
                if end_by <= idle_end and grace_why is not None:
                    self.stopped = grace_why  # the caller asked for it: not a hang
                elif end_by <= idle_end:
                    self.hang = "still running after %d s" % self.timeout
                else:
                    self.hang = "no output for %d s" % self.idle_timeout
                _kill_group(proc)
                break
            if not sel.select(wait):
                continue
            data = os.read(fd, 65536)
            if not data:
                break
            last_output = time.monotonic()
            log.write(data)
            log.flush()
            if self.verbose:
                sys.stdout.buffer.write(data)
                sys.stdout.flush()
            partial += data
            lines = partial.split(b"\n")
            partial = lines.pop()
            if len(partial) > 65536:  # a runaway line: judge it in pieces
                lines.append(partial)
                partial = b""
            for raw in lines:
                line = raw.decode("utf-8", "replace").rstrip("\r")
                if line.strip():
                    self.tail.append(line)
                grace = self.on_line(line)
                if grace is not None and last_output + grace < end_by:
                    end_by = last_output + grace
                    grace_why = "%d s after %r" % (grace, line.strip())
        sel.close()
        if partial:
            line = partial.decode("utf-8", "replace").rstrip("\r")
            self.tail.append(line)
            self.on_line(line)
        try:
            self.returncode = proc.wait(timeout=max(1, end_by - time.monotonic()))
        except subprocess.TimeoutExpired:
            if grace_why is not None:
                self.stopped = grace_why
            else:
                self.hang = "closed its output but did not exit"
            _kill_group(proc)
            self.returncode = proc.wait()
        if self.hang or self.stopped:
            log.write(("\n# runtests: killed: %s\n" % (self.hang or self.stopped)).encode())


def _kill_group(proc):
    """SIGTERM the whole process group, then SIGKILL what is left."""
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


# ---- kinds of run ------------------------------------------------------------------------

def run_ktap_command(run, opt, out, argv):
    """Run a host program that prints KTAP and judge it. A non-zero exit is
    expected when cases failed; without failed cases it is a problem."""
    parser = ktap.Parser()
    seen = []

    def on_line(line):
        parser.feed(line)
        if not seen and any(m in line for m in SANITIZER_MARKS):
            seen.append(line.strip())

    timeout, idle = opt.timeouts(run)
    p = Process(argv, out.log, opt.verbose, timeout, idle, on_line).run()
    summary = parser.finish()
    out.add_summary(summary)
    out.tail = list(p.tail)
    if seen:
        out.problems.append("error in the output: " + seen[0])
    if p.hang:
        out.problems.append("hang: %s" % p.hang)
    elif p.returncode != 0 and not summary.failed:
        out.problems.append("%s exited with status %d" % (os.path.basename(argv[0]),
                                                          p.returncode))


def kind_command(run, opt, out):
    argv = [opt.path(a) for a in run["argv"]]
    if not os.path.exists(argv[0]):
        out.problems.append("%s is missing (make all builds it)" % argv[0])
        return
    run_ktap_command(run, opt, out, argv)


def kind_unittests(run, opt, out):
    """build/host/unittests over every DTB: ours and the ones QEMU generates."""
    argv = [opt.path(a) for a in run["argv"]]
    if not os.path.exists(argv[0]):
        out.problems.append("%s is missing (make all builds it)" % argv[0])
        return
    dtbs = sorted(glob.glob(os.path.join(opt.build, "dts", "*.dtb")))
    if not dtbs:
        out.notes.append("no %s/dts/*.dtb to test the DT reader on (dts/ has no trees yet?)"
                         % opt.build)
    dtbs += dump_qemu_dtbs(opt, out)
    for dtb in dtbs:
        argv += ["--dtb", dtb]
    run_ktap_command(run, opt, out, argv)


def dump_qemu_dtbs(opt, out):
    """QEMU's own device trees into build/dts-qemu/; a failure is a problem."""
    outdir = os.path.join(opt.build, "dts-qemu")
    os.makedirs(outdir, exist_ok=True)
    made = []
    for name, args in QEMU_DTBS:
        path = os.path.join(outdir, name)
        if os.path.exists(path):
            os.unlink(path)
        argv = opt.qemu + [a.replace("{out}", path) for a in args] + ["-nographic"]
        try:
            r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=60)
            text = r.stdout.decode("utf-8", "replace").strip()
        except (OSError, subprocess.TimeoutExpired) as e:
            text = str(e)
        if _is_dtb(path):
            made.append(path)
        else:
            out.problems.append("could not dump QEMU's tree %s: %s" % (name, text or "?"))
    return made


def _is_dtb(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\xd0\x0d\xfe\xed"
    except OSError:
        return False


def expand_fuzz(run, opt):
    """One run per fuzzer source; the binary is what `make fuzzers` built."""
    runs = []
    for src in sorted(glob.glob("tests/fuzz/fuzz_*.c")):
        name = os.path.basename(src)[:-2]
        runs.append(dict(run, name=name, binary=os.path.join(opt.build, "host", name)))
    if not runs:
        runs.append({"name": "fuzz", "kind": "skip", "reason": "no tests/fuzz/fuzz_*.c yet"})
    return runs


def fuzz_stats(log):
    """"N runs in S s, coverage C, corpus K" from libFuzzer's last lines, or None."""
    import re
    try:
        with open(log, errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    done = re.findall(r"Done (\d+) runs in (\d+) second", text)
    cov = re.findall(r"cov: (\d+) ft: \d+ corp: (\d+)", text)
    if not done:
        return None
    return "%s runs in %s s%s" % (done[-1][0], done[-1][1], ", coverage %s, corpus %s inputs"
                                  % cov[-1] if cov else "")


def kind_fuzz(run, opt, out):
    """A bounded libFuzzer run over the seed corpus: one test, passed when it exits 0.
    With --fuzz-time (make fuzz): that many seconds, no run limit, and a corpus
    kept in build/fuzz-corpus/NAME/ from one `make fuzz` to the next."""
    name = run["name"]
    if not os.path.exists(run["binary"]):
        out.problems.append("%s is missing (make fuzzers builds it)" % run["binary"])
        return
    work = os.path.join(opt.build, "fuzz-work", name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "corpus"))
    limit = opt.fuzz_time or run.get("max_total_time", 60)
    corpus = os.path.join(work, "corpus")
    if opt.fuzz_time:
        corpus = os.path.join(opt.build, "fuzz-corpus", name)
        os.makedirs(corpus, exist_ok=True)
    # New inputs go to the first corpus directory (build/), never to the seeds.
    argv = [run["binary"]] + ([] if opt.fuzz_time else ["-runs=%d" % run.get("runs", 20000)]) + [
            "-max_total_time=%d" % limit, "-timeout=30",
            "-artifact_prefix=" + work + "/", corpus]
    seeds = os.path.join("tests", "fuzz", "corpus", name[len("fuzz_"):])
    if os.path.isdir(seeds):
        argv.append(seeds)
    else:
        out.notes.append("no seed corpus %s/" % seeds)
    timeout = opt.timeout or run.get("timeout", limit + DEFAULT_IDLE_TIMEOUT)
    idle = opt.idle_timeout or run.get("idle_timeout", DEFAULT_IDLE_TIMEOUT)
    p = Process(argv, out.log, opt.verbose, timeout, idle).run()
    out.tail = list(p.tail)
    stats = fuzz_stats(out.log)
    if stats:
        out.notes.append(stats)
    if p.hang:
        out.problems.append("hang: %s" % p.hang)
    elif p.returncode == 0:
        out.passed = 1
    else:
        out.failed = 1
        crash = [l for l in p.tail if "ERROR:" in l or "SUMMARY:" in l or "Test unit" in l]
        found = sorted(glob.glob(os.path.join(work, "*-*")))
        if found:
            crash.append("input: %s (once fixed, add it to %s/ as a regression input)"
                         % (found[0], seeds))
        out.failures.append(ktap.Failure(name, "exit status %d" % p.returncode,
                                         crash or list(p.tail)))


def qemu_argv(run, opt):
    boot = run.get("boot", ["-kernel", "{image}"])
    argv = opt.qemu + [opt.path(a, run) for a in run["qemu"] + QEMU_SELFTEST + boot]
    append = run.get("append", "selftest")
    if append is not None:
        argv += ["-append", append]
    return argv


def kind_qemu(run, opt, out):
    """Boot QEMU, stream the serial log, judge the KTAP and the way it ended."""
    argv = qemu_argv(run, opt)
    needs = run.get("needs")
    if needs is None:
        needs = [opt.path("{image}", run)] + \
            [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "-dtb"]
    missing = [opt.path(n, run) for n in needs if not os.path.exists(opt.path(n, run))]
    if missing:
        if run.get("optional"):
            out.skip_reason = "missing " + ", ".join(missing)
        else:
            out.problems.append("missing " + ", ".join(missing) + " (make all builds it)")
        return
    parser = ktap.Parser()
    panic = []

    def on_line(line):
        parser.feed(line)
        if not panic and any(m in line for m in QEMU_PANIC_MARKS):
            panic.append(line.strip())
            return PANIC_GRACE
        if parser.done():
            return POWEROFF_GRACE
        return None

    timeout, idle = opt.timeouts(run)
    p = Process(argv, out.log, opt.verbose, timeout, idle, on_line).run()
    out.tail = list(p.tail)
    # How the run ended first (the cause), then what that did to the KTAP.
    if panic and run.get("expect_panic"):
        pass  # the report is judged by check_log
    elif run.get("expect_panic"):
        out.problems.append("expected a panic, saw none")
    elif panic:
        out.problems.append("panic: " + panic[0])  # a kill after it is no news
    elif p.hang or p.stopped:
        if parser.done():
            out.problems.append("all results in, but QEMU did not exit (no PSCI SYSTEM_OFF?)")
        else:
            out.problems.append("hang: %s" % (p.hang or p.stopped))
    elif p.returncode == 127:
        out.problems.append(p.tail[-1] if p.tail else "cannot run QEMU")
    elif p.returncode != 0:
        out.problems.append("QEMU exited with status %d" % p.returncode)
    if not run.get("expect_panic"):
        out.add_summary(parser.finish())
    check_log(run, opt, out)


def check_log(run, opt, out):
    """The run's own checks on its log: expected lines, the topology lines."""
    import re
    with open(out.log, errors="replace") as f:
        lines = [l.rstrip("\r\n") for l in f]
    # The debug build's reports outside the cases that provoke them (kernel/main.c).
    for l in lines:
        m = re.search(r"selftest: .*\b(\d+) unexpected debug report", l)
        if m and int(m.group(1)) and not run.get("allow_reports"):
            bug = [x for x in lines if x.startswith("BUG: ")][:DIAG_LINES]
            out.problems.append("%s unexpected debug report(s) (BUG: lines)" % m.group(1))
            out.failures.append(ktap.Failure(run["name"] + ".debug-reports", l.strip(), bug))
    for name, rx in run.get("expect", []):
        if any(re.search(rx, l) for l in lines):
            out.passed += 1
        else:
            out.failed += 1
            out.failures.append(ktap.Failure(run["name"] + "." + name,
                                             "no line matches " + rx, []))
    dtb = run.get("topology_of")
    if dtb:
        dtb = opt.path(dtb)
        tool = os.path.join(opt.build, "host", "topology")
        res = subprocess.run([tool, dtb], capture_output=True, text=True)
        want = [l for l in res.stdout.splitlines() if l.startswith("topology: ")]
        got = [l for l in lines if l.startswith("topology: ")]
        if want and got == want:
            out.passed += 1
        else:
            out.failed += 1
            diff = [l for l in got if l not in want][:4] + \
                ["missing: " + l for l in want if l not in got][:4]
            out.failures.append(ktap.Failure(run["name"] + ".topology-matches-host",
                                             "kernel and %s %s differ" % (tool, dtb), diff))


class _Tee:
    def __init__(self, *streams):
        self.streams = streams

    def write(self, s):
        for st in self.streams:
            st.write(s)

    def flush(self):
        for st in self.streams:
            st.flush()


def kind_pyunit(run, opt, out):
    """Python unit tests (the KTAP parser's own), run in this process."""
    os.makedirs(os.path.dirname(out.log), exist_ok=True)
    with open(out.log, "w") as log:
        stream = _Tee(log, sys.stdout) if opt.verbose else log
        try:
            suite = unittest.defaultTestLoader.discover(
                os.path.dirname(run["path"]), pattern=os.path.basename(run["path"]))
        except Exception:
            out.problems.append("cannot load %s: %s" % (run["path"],
                                                        traceback.format_exc(limit=1)))
            return
        res = unittest.TextTestRunner(stream=stream, verbosity=2).run(suite)
    bad = res.failures + res.errors + [(t, "unexpected success") for t in
                                       res.unexpectedSuccesses]
    out.skipped = len(res.skipped) + len(res.expectedFailures)
    out.failed = len(bad)
    out.passed = res.testsRun - out.failed - out.skipped
    for test, text in bad:
        out.failures.append(ktap.Failure(test.id(), "", text.strip().splitlines()))
    if res.testsRun == 0:
        out.problems.append("no tests found in %s" % run["path"])


SHELL_PROMPT = "littlebig> "


def kind_shell(run, opt, out):
    """Boot to the shell and type the script, a line once the prompt is back;
    each step is a test case judged on the output up to the next prompt."""
    import re
    argv = qemu_argv(run, opt)
    missing = [a for a in (opt.path("{image}", run), opt.path(BL44_DTB))
               if not os.path.exists(a)]
    if missing:
        out.problems.append("missing " + ", ".join(missing) + " (make all builds it)")
        return
    timeout, idle = opt.timeouts(run)
    os.makedirs(os.path.dirname(out.log), exist_ok=True)
    log = open(out.log, "wb")
    log.write(("# " + " ".join(shlex.quote(a) for a in argv) + "\n").encode())
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout.fileno(), selectors.EVENT_READ)
    buf = [""]         # output not yet consumed by a wait
    deadline = time.monotonic() + timeout

    def wait_for(rx):
        """Output up to and including the first match of rx, or None on EOF/hang."""
        last = time.monotonic()
        while True:
            m = re.search(rx, buf[0], re.M)
            if m:
                got, buf[0] = buf[0][:m.end()], buf[0][m.end():]
                return got
            now = time.monotonic()
            if now > deadline or now - last > idle:
                return None
            if not sel.select(min(1.0, deadline - now)):
                continue
            data = os.read(proc.stdout.fileno(), 65536)
            if not data:
                return None
            last = time.monotonic()
            log.write(data)
            log.flush()
            if opt.verbose:
                sys.stdout.buffer.write(data)
                sys.stdout.flush()
            buf[0] += data.decode("utf-8", "replace")

    def send(keys):
        proc.stdin.write(keys.encode())
        proc.stdin.flush()

    pids = {}
    try:
        if wait_for(re.escape(SHELL_PROMPT)) is None:
            out.problems.append("no shell prompt %r" % SHELL_PROMPT)
            return
        for name, keys, expects in run["script"]:
            for task, pid in pids.items():
                keys = keys.replace("{pid:%s}" % task, pid)
            if "{pid:" in keys:
                m = re.search(r"\{pid:(\w+)\}", keys)
                out.failed += 1
                out.failures.append(ktap.Failure("shell." + name,
                                                 "no pid of %s seen in ps" % m.group(1), []))
                continue
            text = ""
            for part in re.split(r"(\{(?:wait|sleep):[^}]*\})", keys):
                if part.startswith("{wait:"):
                    got = wait_for(part[6:-1])
                    text += got or ""
                    if got is None:
                        break
                elif part.startswith("{sleep:"):
                    time.sleep(float(part[7:-1]))
                elif part:
                    send(part)
            final = name == "poweroff"
            got = wait_for(r"\Z(?!x)x" if final else re.escape(SHELL_PROMPT))
            text += (got if got is not None else buf[0])
            lines = [l.rstrip("\r") for l in text.split("\n")]
            for l in lines:
                m = re.match(r"^ +(\d+) (\w+) ", l)
                if m:
                    pids[m.group(2)] = m.group(1)
                m = re.match(r"^spawned (\w+) pid (\d+)", l)
                if m:
                    pids[m.group(1)] = m.group(2)
            bad = [rx for rx in expects if rx.startswith("!") and
                   any(re.search(rx[1:], l) for l in lines)]
            bad += [rx for rx in expects if not rx.startswith("!") and
                    not any(re.search(rx, l) for l in lines)]
            if any(mark in text for mark in QEMU_PANIC_MARKS):
                bad.append("no panic")
            if got is None and not final:
                bad.append("the prompt back")
            if bad:
                out.failed += 1
                out.failures.append(ktap.Failure("shell." + name, "keys %r: no line matches %s"
                                                 % (keys, bad), lines[-DIAG_LINES:]))
            else:
                out.passed += 1
            if got is None and not final:
                out.problems.append("the shell stopped answering after step %s" % name)
                return
        try:
            rc = proc.wait(timeout=POWEROFF_GRACE)
            if rc != 0:
                out.problems.append("QEMU exited with status %d" % rc)
        except subprocess.TimeoutExpired:
            out.problems.append("QEMU did not exit after poweroff")
    finally:
        _kill_group(proc)
        sel.close()
        proc.stdout.close()
        try:
            proc.stdin.close()
        except OSError:
            pass
        log.close()
        out.tail = [l for l in buf[0].splitlines() if l.strip()][-TAIL_LINES:]


def kind_skip(run, opt, out):
    out.skip_reason = run["reason"]


KINDS = {
    "skip": kind_skip,
    "pyunit": kind_pyunit,
    "command": kind_command,
    "unittests": kind_unittests,
    "fuzz": kind_fuzz,
    "qemu": kind_qemu,
    "shell": kind_shell,
}
EXPANDERS = {"fuzz": expand_fuzz}


# ---- report ------------------------------------------------------------------------------

def describe(run, opt):
    kind = run["kind"]
    if kind == "skip":
        return "(skipped: %s)" % run["reason"]
    if kind in ("qemu", "shell"):
        return " ".join(shlex.quote(a) for a in qemu_argv(run, opt))
    if kind == "fuzz":
        return "%s -runs=%d -max_total_time=%d" % (run["binary"], run.get("runs", 20000),
                                                  run.get("max_total_time", 120))
    if kind in ("command", "unittests"):
        extra = " --dtb <each build/dts/*.dtb and QEMU's own>" if kind == "unittests" else ""
        return " ".join(opt.path(a) for a in run["argv"]) + extra
    return "python3 -m unittest " + run.get("path", "")


def report(out, width, verbose):
    if out.skip_reason:
        print("SKIP  %-*s  %s" % (width, out.name, out.skip_reason))
        return
    status = "FAIL" if out.total_failed else "PASS"
    counts = "%d passed, %d failed" % (out.passed, out.total_failed)
    if out.skipped:
        counts += ", %d skipped" % out.skipped
    log = out.log if os.path.exists(out.log) else "(no log)"
    print("%s  %-*s  %-32s (%.1f s)  %s" % (status, width, out.name, counts, out.seconds, log))
    for n in out.notes:
        print("      note: " + n)
    for f in out.failures:
        diags = f.diagnostics if verbose else f.diagnostics[-DIAG_LINES:]
        for d in diags:
            print("          " + d)
        print("      not ok " + f.name + (" # " + f.reason if f.reason else ""))
    for p in out.problems:
        print("      " + p)
    if out.problems and not verbose and os.path.exists(out.log):
        if out.tail:
            print("      last lines of %s:" % out.log)
            for line in out.tail:
                print("          " + line)
        else:
            print("      (it printed nothing)")


def selected_runs(opt, pattern):
    runs = []
    for run in RUNS:
        expand = EXPANDERS.get(run["kind"])
        for r in (expand(run, opt) if expand else [run]):
            if pattern is None or pattern in r["name"]:
                runs.append(r)
    return runs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="stream every run's output to the terminal")
    ap.add_argument("-k", metavar="NAME", dest="pattern",
                    help="only the runs whose name contains NAME")
    ap.add_argument("--list", action="store_true", help="list the runs and exit")
    ap.add_argument("--build", default="build", help="build directory (default: build)")
    ap.add_argument("--timeout", type=float, help="override every run's hang timeout (s)")
    ap.add_argument("--idle-timeout", type=float,
                    help="override every run's no-output timeout (s)")
    ap.add_argument("--fuzz-time", type=int, metavar="S",
                    help="fuzzers: S seconds each, no run limit, corpus kept in "
                         "build/fuzz-corpus/ (make fuzz)")
    args = ap.parse_args(argv)
    os.chdir(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    opt = Options(args)

    runs = selected_runs(opt, args.pattern)
    if not runs:
        print("runtests: no run matches %r (see --list)" % args.pattern, file=sys.stderr)
        return 2
    if args.list:
        for r in runs:
            print("%-24s %s" % (r["name"], describe(r, opt)))
        return 0

    width = max(len(r["name"]) for r in runs)
    live = sys.stdout.isatty() and not opt.verbose
    passed = failed = skipped = 0
    for run in runs:
        out = Outcome(run["name"], opt.log_path(run["name"]))
        if opt.verbose:
            print("==== %s: %s" % (run["name"], describe(run, opt)), flush=True)
        elif live:
            print("....  %s\r" % run["name"], end="", flush=True)
        start = time.monotonic()
        KINDS[run["kind"]](run, opt, out)
        out.seconds = time.monotonic() - start
        if live:
            print("\r\033[K", end="")
        report(out, width, opt.verbose)
        sys.stdout.flush()
        passed += out.passed
        failed += out.total_failed
        skipped += out.skipped
    if skipped:
        print("(%d skipped)" % skipped)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("\nruntests: interrupted", file=sys.stderr)
        sys.exit(130)
