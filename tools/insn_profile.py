#!/usr/bin/env python3
"""insn_profile.py - `make profile B=SPEC [MACHINE=...]`: where the emulated machine's
instructions go, per kernel function, for one benchmark. Boots build/Image under -icount
with the TCG plugin tools/profile/tbcount.c (instructions per translation block; emulated
time is not changed), counts only between bench_profile_begin() and bench_profile_end()
(kernel/bench/bench.c), and attributes each instruction to the kernel.elf function holding
its address less the load address. Prints the benchmark's RESULT lines, then per
function: instructions (all CPUs together), instructions per benchmark operation, share.

  tools/insn_profile.py [--build build] [--machine qemu-bl44] [--top 30] [--ops N]
                        [--append BOOTARG] SPEC
"""
import argparse
import bisect
import collections
import os
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RAM_BASE = 0x40000000  # QEMU virt's RAM
INSN_BYTES = 4  # A64: every instruction is 4 bytes, so block + i * 4 is its i-th
QEMU_ARGS = ["-M", "virt", "-cpu", "cortex-a53", "-smp", "8", "-nographic", "-no-reboot",
             "-icount", "shift=0,sleep=off"]
OUTSIDE = "<outside kernel.elf>"


def load_address(image_header):
    """Where QEMU's -kernel puts an arm64 Image on virt (hw/arm/boot.c,
    load_aarch64_image()): RAM + the header's text_offset, moved up by 2 MiB when that
    offset would overlap QEMU's own boot stub at the bottom of RAM (offsets below 4 KiB)."""
    if len(image_header) < 64 or image_header[56:60] != b"ARM\x64":
        raise ValueError("not an arm64 Image (no ARM\\x64 magic at 56)")
    text_offset = struct.unpack_from("<Q", image_header, 8)[0]
    if text_offset < 0x1000:
        text_offset += 2 << 20
    return RAM_BASE + text_offset


class Symbols:
    """Function symbols of an `nm -n -S` listing: name by link-time address."""

    def __init__(self, nm_text):
        funcs = []
        self.by_name = {}
        for line in nm_text.splitlines():
            f = line.split()
            if len(f) == 4:
                addr, size, kind, name = int(f[0], 16), int(f[1], 16), f[2], f[3]
            elif len(f) == 3:
                addr, size, kind, name = int(f[0], 16), 0, f[1], f[2]
            else:
                continue
            self.by_name.setdefault(name, addr)
            if kind in "tTwW" and not name.startswith("$"):
                funcs.append((addr, size, name))
        funcs.sort()
        self.funcs = funcs
        self.addrs = [a for a, _, _ in funcs]

    def is_entry(self, addr):
        """addr is where a function starts (a block there is one call, or a loop back)."""
        i = bisect.bisect_left(self.addrs, addr)
        return i < len(self.addrs) and self.addrs[i] == addr

    def name_of(self, addr):
        """The function holding addr: the last one starting at or below it, if addr is
        inside its size (a symbol without a size holds up to the next symbol)."""
        i = bisect.bisect_right(self.addrs, addr) - 1
        if i < 0:
            return OUTSIDE
        start, size, name = self.funcs[i]
        if size and addr >= start + size:
            return OUTSIDE
        if not size and i + 1 == len(self.funcs):
            return OUTSIDE
        return name


def parse_counts(text):
    """tbcount's lines "vaddr ninsns count" -> [(vaddr, ninsns, count)], and its header."""
    blocks, header = [], {}
    for line in text.splitlines():
        if line.startswith("#"):
            header.update(kv.split("=", 1) for kv in line[1:].split() if "=" in kv)
            continue
        va, n, c = line.split()
        blocks.append((int(va, 16), int(n), int(c)))
    return blocks, header


def attribute(blocks, syms, base, calls=None):
    """Instructions per function: each block's instructions one by one (a block may run
    from one symbol into the next), minus the load address. calls (a Counter), if given,
    gets the executions of blocks that start at a function's first instruction: its calls,
    unless a loop branches back to that instruction."""
    per = collections.Counter()
    for va, n, count in blocks:
        if calls is not None and syms.is_entry(va - base):
            calls[syms.name_of(va - base)] += count
        for i in range(n):
            per[syms.name_of(va - base + i * INSN_BYTES)] += count
    return per


def ops_of(results):
    """Operations of a benchmark, from its RESULT lines: ping-pong round trips; hackbench
    messages (each group's 20 senders send loops messages to each of its 20 receivers)."""
    for line in results:
        kv = dict(w.split("=", 1) for w in line.split()[2:] if "=" in w)
        if line.startswith("RESULT pingpong"):
            return int(kv["loops"]), "round trip"
        if line.startswith("RESULT hackbench"):
            return int(kv["groups"]) * int(kv["loops"]) * 400, "message"
    return 1, "run"


def table(per, ops, unit, top, calls=None):
    """The top functions by instructions (their own, not their callees'); with calls, also
    calls per op and instructions per call."""
    calls = calls if calls is not None else collections.Counter()
    total = sum(per.values())
    lines = ["%d instructions in the window, %.0f per %s (%d %ss)" %
             (total, total / ops, unit, ops, unit),
             "%7s %14s %12s %10s %9s  %s" % ("share", "instructions", "per " + unit,
                                           "calls/" + unit.split()[-1], "per call",
                                           "function")]
    for name, n in per.most_common(top):
        c = calls[name]
        lines.append("%6.2f%% %14d %12.1f %10.2f %9s  %s" % (
            100.0 * n / total if total else 0, n, n / ops, c / ops,
            "%.1f" % (n / c) if c else "-", name))
    return "\n".join(lines)


def run(opt):
    elf = os.path.join(opt.build, "kernel.elf")
    image = os.path.join(opt.build, "Image")
    nm = subprocess.run([opt.nm, "-n", "-S", elf], check=True, capture_output=True, text=True)
    syms = Symbols(nm.stdout)
    with open(image, "rb") as f:
        base = opt.base if opt.base is not None else load_address(f.read(64))
    marks = [syms.by_name.get(n) for n in ("bench_profile_begin", "bench_profile_end")]
    if None in marks:
        sys.exit("profile: kernel.elf has no bench_profile_begin/end")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "counts.txt")
        plugin = "%s,out=%s,begin=%x,end=%x" % (os.path.abspath(opt.plugin), out,
                                               base + marks[0], base + marks[1])
        dtb = os.path.join(opt.build, "dts", opt.machine + ".dtb")
        argv = [opt.qemu] + QEMU_ARGS + ["-m", opt.mem, "-monitor", "none", "-plugin", plugin,
                                         "-kernel", image, "-dtb", dtb,
                                         "-append", " ".join(opt.append + ["bench=" + opt.spec])]
        con = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                             timeout=opt.timeout)
        if not os.path.exists(out):
            sys.exit("profile: the plugin wrote nothing (does this QEMU load plugins?)\n" +
                     con.stdout[-2000:] + con.stderr[-2000:])
        with open(out) as f:
            blocks, header = parse_counts(f.read())
    results = [ln.strip() for ln in con.stdout.splitlines() if ln.startswith("RESULT")]
    print("\n".join(results))
    if header.get("windows", "0") == "0":
        sys.exit("profile: the benchmark never reached bench_profile_end()")
    calls = collections.Counter()
    per = attribute(blocks, syms, base, calls)
    ops, unit = ops_of(results)
    if opt.ops:
        ops, unit = opt.ops, "op"
    print(table(per, ops, unit, opt.top, calls))
    if per[OUTSIDE] > sum(per.values()) // 100:
        print("profile: %d instructions outside kernel.elf: is the load address %#x right?"
              % (per[OUTSIDE], base))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("spec", help="benchmark spec as for bench= (include/bench.h)")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--machine", default="qemu-bl44")
    ap.add_argument("--plugin", help="tbcount.so (default BUILD/host/tbcount.so)")
    ap.add_argument("--qemu", default="qemu-system-aarch64")
    ap.add_argument("--nm", default="aarch64-linux-gnu-nm")
    ap.add_argument("--base", type=lambda s: int(s, 0), help="load address (default: from "
                    "the Image header, as QEMU places it)")
    ap.add_argument("--ops", type=int, help="divide by this instead of the RESULT's count")
    ap.add_argument("--top", type=int, default=30)
    ap.add_argument("--mem", default="512M", help="QEMU -m (bench=crowd,t=10000: 1G)")
    ap.add_argument("--append", action="append", default=[],
                    help="more boot arguments, e.g. speed=work")
    ap.add_argument("--timeout", type=int, default=3600)
    opt = ap.parse_args()
    opt.plugin = opt.plugin or os.path.join(opt.build, "host", "tbcount.so")
    run(opt)


if __name__ == "__main__":
    main()
