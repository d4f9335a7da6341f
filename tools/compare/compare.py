#!/usr/bin/env python3
"""compare.py - `make compare`: the same workloads on Debian's Linux 6.1 and on
littlebig (sched=cfs), or with --linux 6.12 on Debian's 6.12 and littlebig under
sched=eevdf, on the same QEMU machine, side by side.

Owns: the list of workloads (WORKLOADS: the kernel/bench/ spec and the Linux
program line of each), the initramfs Linux boots (a cpio "newc" archive
written here: busybox-static, the programs of tools/compare/linux_*.c, an /init
that runs them and powers off), the device tree Linux gets (qemu-bl44's with
a fixed /chosen/rng-seed: without one Linux's crng waits for entropy and
boots ~3x slower under -icount), booting both kernels, parsing their RESULT
lines and the table with their ratio. Not fetching Linux (fetch.sh) nor
building the programs (the Makefile).

    tools/compare/compare.py [--build build] [--linux 6.1|6.12] [--runs N]
                             [--only linux|littlebig] [--rows KEY,...] [-v]
    tools/compare/compare.py --table LITTLEBIG.log LINUX.log...   (parse logs only)

Linux's numbers vary from boot to boot even under -icount (littlebig's do not):
it boots N times (--runs, default 3); the table shows the median and the range.
"""

import argparse
import glob
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from qemu_run import Process  # noqa: E402  (hang detection, log kept)

# (key, littlebig bench= spec, Linux command in the initramfs). One key per row
# of the table; both sides print the same RESULT kind for it.
WORKLOADS = [
    ("pingpong", "pipe,n=10000", "/bin/pipe 10000"),
    ("hackbench g1", "hackbench,g=1,l=200", "/bin/hackbench 1 200"),
    ("hackbench g2", "hackbench,g=2,l=200", "/bin/hackbench 2 200"),
    ("hackbench g4", "hackbench,g=4,l=200", "/bin/hackbench 4 200"),
    ("spin t1", "spin,t=1,ms=1000", "/bin/spin 1 1000"),
    ("spin t4", "spin,t=4,ms=1000", "/bin/spin 4 1000"),
    ("spin t8", "spin,t=8,ms=1000", "/bin/spin 8 1000"),
    ("spin up", "spin,up", "/bin/spin up"),
    # 2 threads per CPU until the spread settles (issue 31): 2 x max_load_balance_interval
    # (100 ms per CPU) as tests/kernel/selftest_sched.c's sched_spread; machine() sets MS.
    ("spread", "spin,spread,t=2,ms=1600", "/bin/spin spread 2 1600"),
    # EEVDF's point (issue 29): a periodic task (0.5 ms every 10 ms) beside 3 hogs on one
    # LITTLE / big CPU, its request 1 ms (sched_attr.sched_runtime; Linux 6.1 and sched=cfs
    # ignore it) or the base slice; then nice 0's share of a big CPU beside nice 5.
    ("wakeup little", "spin,wakeup,slice=1000,ms=2000", "/bin/spin wakeup little 1000 2000"),
    ("wakeup big", "spin,wakeup,big,slice=1000,ms=2000", "/bin/spin wakeup big 1000 2000"),
    ("wakeup little base", "spin,wakeup,ms=2000", "/bin/spin wakeup little 0 2000"),
    ("wakeup big base", "spin,wakeup,big,ms=2000", "/bin/spin wakeup big 0 2000"),
    ("nice 0:5", "spin,nice=5,ms=1000", "/bin/spin nice 5 1000"),
]
PROGRAMS = ["pipe", "hackbench", "spin"]

# The figures the placement run judges against (kernel/bench/bench_spin.c), for the table:
# issue 13's (Linux 6.1.0 on this QEMU line), spin up and the ping-pong's migrations
# issue 32's (the workloads made equal, 3 boots of 6.1.192).
REFERENCE = {
    ("pingpong", "usec_per_op"): 22.4, ("pingpong", "migrations"): 0,
    ("hackbench g1", "seconds"): 0.317, ("hackbench g2", "seconds"): 0.630,
    ("hackbench g4", "seconds"): 1.222, ("spin t1", "big_share"): 0.97,
    ("spin t4", "big_share"): 0.98, ("spin t8", "big_share"): 0.52,
    ("spin up", "first_big_ms"): 52.438,
    ("nice 0:5", "share"): 0.754,  # the weights' share, 1024 / (1024 + 335)
}
# Which value of each row the table shows (the rest stay in the RESULT lines).
SHOWN = {"pingpong": ["usec_per_op", "migrations"], "hackbench": ["seconds"],
         "spin": ["big_share"], "spin_up": ["first_big_ms"], "spread": ["settled_ms"],
         "wakeup": ["mean_us", "p99_us", "max_us"], "nice": ["share"]}

# --linux: which Debian kernel (tools/compare/fetch.sh VERSION unpacks it in DIR) and the
# policy littlebig runs beside it (sched=).
LINUXES = {"6.1": {"dir": "linux", "sched": "cfs"},
           "6.12": {"dir": "linux-6.12", "sched": "eevdf"}}
LINUX = {"version": "6.1", **LINUXES["6.1"]}

# qemu-bl44's line in tests/runs.py (QEMU_BL44 + QEMU_SELFTEST): both kernels get it.
# machine() adapts it to another tree (--machine): its CPU count, GICv3 past 8, 2G.
QEMU_LINE = ["-M", "virt", "-cpu", "cortex-a53", "-smp", "8", "-icount", "shift=0,sleep=off",
             "-nographic", "-no-reboot", "-m", "512M"]
MACHINE = {"name": "qemu-bl44", "dtb": None, "cpus": 8}
LINUX_APPEND = "console=ttyAMA0 rdinit=/init loglevel=4"
RNG_SEED = bytes(range(0x5a, 0x5a + 32))  # fixed: repeatable runs
IDLE_TIMEOUT = 900  # s without output: a hang (Linux boots for minutes under -icount)


# ---- the initramfs ------------------------------------------------------------------------
def cpio_entry(name, mode, data=b"", rdev=(0, 0), ino=[0]):
    """One "newc" record (SVR4 portable, no CRC), padded to 4 bytes."""
    ino[0] += 1
    name_b = name.encode() + b"\0"
    fields = [ino[0], mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(name_b), 0]
    hdr = b"070701" + b"".join(b"%08X" % f for f in fields)
    pad = lambda n: b"\0" * (-n % 4)  # noqa: E731
    return hdr + name_b + pad(len(hdr) + len(name_b)) + data + pad(len(data))


def init_script():
    lines = ["#!/bin/busybox sh", "B=/bin/busybox",
             "$B mount -t proc proc /proc", "$B mount -t sysfs sysfs /sys",
             # /sys/kernel/debug/sched/debug: the cfs_rq figures `spin up trace` prints
             "$B mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null",
             # in CPU order (the glob cpu* sorts cpu10 before cpu2)
             'echo "compare: Linux $($B uname -r) cpu_capacity $(i=0; while [ -e'
             ' /sys/devices/system/cpu/cpu$i/cpu_capacity ]; do $B cat'
             ' /sys/devices/system/cpu/cpu$i/cpu_capacity; i=$((i + 1)); done |'
             ' $B tr "\\n" " ")"']
    for key, _, cmd in WORKLOADS:
        lines.append('echo "compare: run %s"; %s' % (key, cmd))
    lines += ['echo "compare: done"', "$B poweroff -f"]
    return "\n".join(lines) + "\n"


def write_initramfs(path, busybox, progdir):
    out = [cpio_entry(d, 0o040755) for d in ("bin", "dev", "proc", "sys")]
    out.append(cpio_entry("dev/console", 0o020600, rdev=(5, 1)))
    with open(busybox, "rb") as f:
        out.append(cpio_entry("bin/busybox", 0o100755, f.read()))
    for p in PROGRAMS:
        with open(os.path.join(progdir, p), "rb") as f:
            out.append(cpio_entry("bin/" + p, 0o100755, f.read()))
    out.append(cpio_entry("init", 0o100755, init_script().encode()))
    out.append(cpio_entry("TRAILER!!!", 0))
    with open(path, "wb") as f:
        f.write(b"".join(out))


def linux_dtb_source(dts):
    """The qemu-bl44 tree (dtc's text) as Linux needs it to see the same machine:
    a fixed /chosen/rng-seed, and each CPU's clock at its top OPP. Linux 6.1
    normalizes capacity-dmips-mhz by each CPU's top frequency, from cpufreq or,
    without a cpufreq driver (QEMU virt has no CPU clocks), from the CPU node's
    clock (topology_parse_cpu_capacity()'s freq_factor); with none it would see
    592/1024 instead of HiKey960's 462/1024. A fixed-clock per OPP table gives
    it the same facts the tree already holds."""
    seed = "rng-seed = [%s];" % " ".join("%02x" % b for b in RNG_SEED)
    dts, n = re.subn(r"(\n\s*chosen \{\n)", r"\1\t\t%s\n" % seed, dts, count=1)
    if n != 1:
        sys.exit("compare: no /chosen node in the tree")
    top = {}  # OPP table phandle -> its highest opp-hz
    for m in re.finditer(r"\n\t(opp-table[\w-]*) \{\n(.*?)\n\t\};", dts, re.S):
        ph = re.search(r"\n\t\tphandle = <(0x[0-9a-f]+)>;", m.group(2))
        hz = [int(h, 16) << 32 | int(l, 16)
              for h, l in re.findall(r"opp-hz = <(0x[0-9a-f]+) (0x[0-9a-f]+)>;", m.group(2))]
        if ph and hz:
            top[int(ph.group(1), 16)] = max(hz)
    nextph = max(int(x, 16) for x in re.findall(r"phandle = <(0x[0-9a-f]+)>;", dts)) + 1
    clk = {}  # OPP table phandle -> the phandle of its fixed clock
    for opp in sorted(top):
        clk[opp], nextph = nextph, nextph + 1

    def cpu_clock(m):
        opp = re.search(r"operating-points-v2 = <(0x[0-9a-f]+)>;", m.group(2))
        if not opp or int(opp.group(1), 16) not in clk:
            return m.group(0)
        return "%s%s\n\t\t\tclocks = <0x%x>;%s" % (m.group(1), m.group(2),
                                                   clk[int(opp.group(1), 16)], m.group(3))
    dts = re.sub(r"(\n\t\tcpu@\w+ \{)(.*?)(\n\t\t\};)", cpu_clock, dts, flags=re.S)
    nodes = "".join("\n\tcompare-cpu-clk-%x {\n\t\tcompatible = \"fixed-clock\";\n"
                    "\t\t#clock-cells = <0>;\n\t\tclock-frequency = <%d>;\n"
                    "\t\tphandle = <0x%x>;\n\t};\n" % (opp, top[opp], clk[opp])
                    for opp in sorted(top))
    i = dts.rindex("};")
    return dts[:i] + nodes + dts[i:]


def write_linux_dtb(src, dst):
    dts = subprocess.run(["dtc", "-q", "-I", "dtb", "-O", "dts", src], check=True,
                         capture_output=True, text=True).stdout
    subprocess.run(["dtc", "-q", "-I", "dts", "-O", "dtb", "-o", dst, "-"],
                   input=linux_dtb_source(dts), check=True, text=True)


# ---- booting ------------------------------------------------------------------------------
def log_name(kernel, run=None):
    """linux-N.log / littlebig.log on qemu-bl44 beside Linux 6.1; with the tree's name on
    another; beside 6.12 linux-6.12-N.log and littlebig-eevdf.log."""
    tag = "" if MACHINE["name"] == "qemu-bl44" else "-" + MACHINE["name"]
    if LINUX["version"] != "6.1":
        kernel += "-" + (LINUX["version"] if kernel == "linux" else LINUX["sched"])
    return "%s%s%s.log" % (kernel, tag, "" if run is None else "-%d" % run)


def boot(argv, log, verbose):
    print("compare: " + " ".join(shlex.quote(a) for a in argv), flush=True)
    p = Process(argv, log, verbose, timeout=24 * 3600, idle_timeout=IDLE_TIMEOUT).run()
    if p.hang or p.returncode:
        sys.exit("compare: %s: %s (log: %s)" % (argv[0], p.hang or "exit %d" % p.returncode,
                                                log))


def run_linux(opt, cdir, run):
    vmlinuz = sorted(glob.glob(os.path.join(cdir, LINUX["dir"], "boot/vmlinuz-*")))
    busybox = os.path.join(cdir, "busybox/bin/busybox")
    if not vmlinuz or not os.path.exists(busybox):
        sys.exit("compare: no Linux %s under %s/%s (tools/compare/fetch.sh %s %s fetches it)"
                 % (LINUX["version"], cdir, LINUX["dir"], cdir, LINUX["version"]))
    dtb = os.path.join(cdir, "%s-linux.dtb" % MACHINE["name"])
    write_linux_dtb(MACHINE["dtb"], dtb)
    initrd = os.path.join(cdir, "initramfs.cpio")
    write_initramfs(initrd, busybox, os.path.join(cdir, "bin"))
    log = os.path.join(cdir, log_name("linux", run))
    boot([opt.qemu] + QEMU_LINE + ["-dtb", dtb, "-kernel", vmlinuz[-1], "-initrd", initrd,
                                   "-append", LINUX_APPEND], log, opt.verbose)
    return log


def run_littlebig(opt, cdir):
    """One boot running the whole list in turn (bench=A;B;...), as Linux's /init does."""
    log = os.path.join(cdir, log_name("littlebig"))
    # cpuidle=off: QEMU runs Linux's PSCI CPU_SUSPEND as a plain wfi, so its idle
    # states cost nothing; ours would charge the tree's exit latencies (up to
    # 2.1 ms a wakeup), which is the machine model, not the scheduler, compared.
    boot([opt.qemu] + QEMU_LINE + ["-dtb", MACHINE["dtb"],
                                   "-kernel", os.path.join(opt.build, "Image"), "-append",
                                   "cpuidle=off sched=%s bench=" % LINUX["sched"] +
                                   ";".join(spec for _, spec, _ in WORKLOADS)],
         log, opt.verbose)
    return log


# ---- the table ----------------------------------------------------------------------------
def parse(log):
    """{key: {name: value}} from the RESULT lines after each "compare: run KEY"
    (Linux's /init) or "bench: run SPEC" (littlebig)."""
    # One workload (--rows): littlebig prints no "bench: run" line for a lone spec.
    res, key = {}, WORKLOADS[0][0] if len(WORKLOADS) == 1 else None
    by_spec = {spec: k for k, spec, _ in WORKLOADS}
    with open(log, errors="replace") as f:
        for line in f:
            line = line.strip("\r\n")
            m = re.match(r"compare: run (.*)$", line)
            if m:
                key = m.group(1)
            m = re.match(r"bench: run (.*)$", line)
            if m:
                key = by_spec.get(m.group(1))
            m = re.match(r"RESULT (\S+) (.*)$", line)
            # The workload's own line comes first; littlebig follows it with
            # RESULT energy and RESULT cpuidle lines of the same run.
            if m and key and key not in res:
                kv = dict(w.split("=", 1) for w in m.group(2).split() if "=" in w)
                res[key] = {"kind": m.group(1), **kv}
    return res


def num(v):
    try:
        return float(v)
    except (TypeError, ValueError):
        return None


def median(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2] if len(xs) % 2 else (xs[len(xs) // 2 - 1] + xs[len(xs) // 2]) / 2


def fmt(x):
    return "%.3f" % x if x != int(x) else "%d" % x


def table(linux_runs, lb):
    rows = [("workload", "value", "Linux", "(range, %d boots)" % len(linux_runs), "littlebig",
             "lb/Linux", "reference")]
    for key, _, _ in WORKLOADS:
        kind = next((r[key]["kind"] for r in linux_runs + [lb] if key in r), "")
        for name in SHOWN.get(kind, []):
            xs = [num(r[key].get(name)) for r in linux_runs if key in r]
            xs = [x for x in xs if x is not None]
            a = median(xs) if xs else None
            raw = (lb.get(key) or {}).get(name)  # "never" stays as it is
            b = num(raw)
            ratio = "%.2f" % (b / a) if a and b is not None else "-"
            ref = REFERENCE.get((key, name)) if LINUX["version"] == "6.1" else None
            rows.append((key, name, "-" if a is None else fmt(a),
                         "%s-%s" % (fmt(min(xs)), fmt(max(xs))) if xs else "-",
                         raw or "-" if b is None else fmt(b), ratio,
                         "-" if ref is None else str(ref)))
    w = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip() for r in rows)


def print_results(name, log, res):
    print("== %s (%s)" % (name, log))
    for key, _, _ in WORKLOADS:
        r = res.get(key)
        if r:
            print("RESULT %s %s" % (r["kind"], " ".join("%s=%s" % (k, v) for k, v in r.items()
                                                         if k != "kind")))
        else:
            print("(no RESULT for %s)" % key)


# Linux's own tracing around one command (tracefs; the events littlebig records too, and
# the SCHED softirq, where nohz idle balancing and the periodic balance run), dumped
# between the markers littlebig's trace_dump_labelled() prints.
LINUX_TRACE = ("T=/sys/kernel/tracing; $B mount -t tracefs tracefs $T 2>/dev/null; "
               "echo 2048 > $T/buffer_size_kb; "
               "for e in sched/sched_switch sched/sched_wakeup sched/sched_wakeup_new "
               "sched/sched_migrate_task irq/softirq_entry ipi/ipi_raise ipi/ipi_entry; do "
               "echo 1 > $T/events/$e/enable 2>/dev/null; done; echo 1 > $T/tracing_on; "
               "%s; echo 0 > $T/tracing_on; echo '# littlebig trace begin spin-up'; "
               "$B cat $T/trace; echo '# littlebig trace end spin-up: Linux'")


def machine(opt):
    """--machine NAME: a tree of build/dts/ or build/tests/dts/ (issue 31: qemu-bl48,
    qemu-bl64, ...), its CPUs counted in the tree; QEMU_LINE and the spread's length
    follow. --rows KEY,...: only those workloads."""
    for d in ("dts", "tests/dts"):
        dtb = os.path.join(opt.build, d, opt.machine + ".dtb")
        if os.path.exists(dtb):
            break
    else:
        sys.exit("compare: no tree %s under %s/dts or %s/tests/dts (make dtbs)" %
                 (opt.machine, opt.build, opt.build))
    dts = subprocess.run(["dtc", "-q", "-I", "dtb", "-O", "dts", dtb], check=True,
                         capture_output=True, text=True).stdout
    cpus = len(re.findall(r'device_type = "cpu";', dts))
    MACHINE.update(name=opt.machine, dtb=dtb, cpus=cpus)
    if cpus > 8:
        QEMU_LINE[QEMU_LINE.index("-M") + 1] = "virt,gic-version=3"
        QEMU_LINE[QEMU_LINE.index("-m") + 1] = "2G"
    QEMU_LINE[QEMU_LINE.index("-smp") + 1] = str(cpus)
    ms = 2 * 100 * cpus
    for i, (key, spec, cmd) in enumerate(WORKLOADS):
        if key == "spread":
            WORKLOADS[i] = (key, "spin,spread,t=2,ms=%d" % ms, "/bin/spin spread 2 %d" % ms)
    if opt.rows:
        keep = opt.rows.split(",")
        WORKLOADS[:] = [w for w in WORKLOADS if w[0] in keep]
        if not WORKLOADS:
            sys.exit("compare: --rows %s names no workload" % opt.rows)


def trace_up():
    """spin up, traced: the spinner's util every 2 ms and its parent's, on both sides
    (issue 32; Linux reads them from /proc, which costs the spinner a little time)."""
    for i, (key, spec, cmd) in enumerate(WORKLOADS):
        if key == "spin up":
            WORKLOADS[i] = (key, spec + ",trace", LINUX_TRACE % (cmd + " trace"))


def trace_wakeup():
    """The wakeup rows, each wakeup's latency printed on both kernels ("# wakeup" lines)
    and littlebig's scheduler trace of each run."""
    for i, (key, spec, cmd) in enumerate(WORKLOADS):
        if key.startswith("wakeup"):
            WORKLOADS[i] = (key, spec + ",trace", cmd + " trace")


def up_timeline(log):
    """The "# up" lines of a log, as printed by either side."""
    with open(log, errors="replace") as f:
        return [ln.strip() for ln in f if ln.startswith("# up")]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--runs", type=int, default=int(os.environ.get("COMPARE_RUNS", "3")))
    ap.add_argument("--only", choices=["linux", "littlebig"])
    ap.add_argument("--table", nargs="+", metavar="LOG")
    ap.add_argument("--machine", default=os.environ.get("COMPARE_MACHINE", "qemu-bl44"),
                    help="a tree of build/dts or build/tests/dts (COMPARE_MACHINE)")
    ap.add_argument("--rows", default=os.environ.get("COMPARE_ROWS"),
                    help="only these workloads, comma-separated keys (COMPARE_ROWS)")
    ap.add_argument("--linux", choices=sorted(LINUXES), default=os.environ.get(
        "COMPARE_LINUX", "6.1"), help="Debian's 6.1 beside sched=cfs, or 6.12 beside "
        "sched=eevdf (COMPARE_LINUX; make compare LINUX=6.12)")
    ap.add_argument("--trace-up", action="store_true",
                    help="spin up with its util timeline on both kernels (# up lines)")
    ap.add_argument("--trace-wakeup", action="store_true",
                    help="the wakeup rows with each wakeup's latency (# wakeup lines)")
    ap.add_argument("-v", "--verbose", action="store_true")
    opt = ap.parse_args(argv)
    LINUX.update(version=opt.linux, **LINUXES[opt.linux])
    machine(opt)
    if opt.trace_up or os.environ.get("COMPARE_TRACE_UP") == "1":
        trace_up()
    if opt.trace_wakeup:
        trace_wakeup()
    opt.qemu = os.environ.get("QEMU", "qemu-system-aarch64")
    cdir = os.path.join(opt.build, "compare")
    if opt.table:
        lb_log, linux_logs = opt.table[0], opt.table[1:]
    else:
        lb_log = os.path.join(cdir, log_name("littlebig"))
        linux_logs = [os.path.join(cdir, log_name("linux", i)) for i in range(opt.runs)]
        if opt.only != "littlebig":
            for i in range(opt.runs):
                run_linux(opt, cdir, i)
        if opt.only != "linux":
            run_littlebig(opt, cdir)
    linux_logs = [l for l in linux_logs if os.path.exists(l)]
    linux = [parse(l) for l in linux_logs]
    lb = parse(lb_log) if os.path.exists(lb_log) else {}
    for log, r in zip(linux_logs, linux):
        print_results("Linux", log, r)
    print_results("littlebig", lb_log, lb)
    print()
    print(table(linux, lb))
    for log in linux_logs + ([lb_log] if os.path.exists(lb_log) else []):
        lines = up_timeline(log)
        if lines:
            print("\nspin up, traced (%s):\n  %s" % (log, "\n  ".join(lines)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
