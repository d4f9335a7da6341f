#!/usr/bin/env python3
"""test_compare.py - tools/compare/compare.py's pure parts on known input (no
Linux download, no boot): the initramfs read back by a cpio "newc" reader
written here, the tree Linux gets (rng-seed; each CPU's clock at its top OPP,
and the capacities Linux 6.1 derives from it, computed here by its rule
independently of littlebig's), and RESULT parsing and the table."""

import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "compare"))
import compare  # noqa: E402  (tools/compare/compare.py)

BUILD = os.environ.get("BUILD", "build")
BL44_DTB = os.path.join(BUILD, "dts", "qemu-bl44.dtb")


def read_newc(data):
    """[(name, mode, rdevmajor, rdevminor, bytes)] of a cpio "newc" archive."""
    out, off = [], 0
    while True:
        assert data[off:off + 6] == b"070701", "bad magic at %d" % off
        f = [int(data[off + 6 + 8 * i:off + 14 + 8 * i], 16) for i in range(13)]
        mode, size, rmaj, rmin, namesize = f[1], f[6], f[9], f[10], f[11]
        name = data[off + 110:off + 110 + namesize - 1].decode()
        off += 110 + namesize
        off += -off % 4
        body = data[off:off + size]
        off += size
        off += -off % 4
        if name == "TRAILER!!!":
            assert off == len(data)
            return out
        out.append((name, mode, rmaj, rmin, body))


class Initramfs(unittest.TestCase):
    def test_round_trip(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "bin"))
            for p in compare.PROGRAMS:
                with open(os.path.join(d, "bin", p), "wb") as f:
                    f.write(p.encode() * 3)  # odd lengths: padding is exercised
            with open(os.path.join(d, "busybox"), "wb") as f:
                f.write(b"\x7fELF busybox")
            compare.write_initramfs(os.path.join(d, "i.cpio"), os.path.join(d, "busybox"),
                                    os.path.join(d, "bin"))
            with open(os.path.join(d, "i.cpio"), "rb") as f:
                files = {e[0]: e for e in read_newc(f.read())}
        self.assertEqual(files["dev/console"][1:4], (0o020600, 5, 1))  # char 5:1
        self.assertEqual(files["bin/busybox"][4], b"\x7fELF busybox")
        for p in compare.PROGRAMS:
            self.assertEqual(files["bin/" + p][4], p.encode() * 3)
            self.assertEqual(files["bin/" + p][1], 0o100755)
        init = files["init"][4].decode()
        self.assertTrue(init.startswith("#!/bin/busybox sh\n"))
        for key, _, cmd in compare.WORKLOADS:
            self.assertIn('echo "compare: run %s"; %s' % (key, cmd), init)
        self.assertTrue(init.rstrip().endswith("poweroff -f"))


@unittest.skipUnless(os.path.exists(BL44_DTB), "no %s (make dtbs)" % BL44_DTB)
class LinuxTree(unittest.TestCase):
    def setUp(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "l.dtb")
            compare.write_linux_dtb(BL44_DTB, out)
            self.dts = subprocess.run(["dtc", "-q", "-I", "dtb", "-O", "dts", out],
                                      check=True, capture_output=True, text=True).stdout

    def tree(self):
        """Every node of dtc's text: {"name", "props": {name: [cells]}, "kids": [...]}."""
        root = stack = None
        for line in self.dts.splitlines():
            line = line.strip()
            if line.endswith("{"):
                node = {"name": line[:-1].strip(), "props": {}, "kids": []}
                if stack:
                    stack[-1]["kids"].append(node)
                else:
                    root, stack = node, []
                stack.append(node)
            elif line == "};":
                stack.pop()
            elif stack and re.match(r"[\w,#-]+ = <", line):
                name, cells = re.match(r"([\w,#-]+) = <([^>]*)>;", line).groups()
                stack[-1]["props"][name] = [int(x, 16) for x in cells.split()]
        return root

    def walk(self, node):
        yield node
        for k in node["kids"]:
            yield from self.walk(k)

    def test_rng_seed(self):
        m = re.search(r"chosen \{[^}]*rng-seed = (?:<([^>]*)>|\[([^\]]*)\]);", self.dts)
        self.assertIsNotNone(m)
        self.assertEqual(len((m.group(1) or m.group(2)).split()) * (4 if m.group(1) else 1), 32)

    def test_linux_capacities_are_littlebigs(self):
        """Linux 6.1: capacity = dmips * clock kHz, scaled so the largest is 1024."""
        nodes = list(self.walk(self.tree()))
        by_phandle = {n["props"]["phandle"][0]: n for n in nodes if "phandle" in n["props"]}
        raw = {}
        for cpu in (n for n in nodes if n["name"].startswith("cpu@")):
            self.assertIn("clocks", cpu["props"], cpu["name"] + " has no clock")
            hz = by_phandle[cpu["props"]["clocks"][0]]["props"]["clock-frequency"][0]
            opp = by_phandle[cpu["props"]["operating-points-v2"][0]]
            top = max(k["props"]["opp-hz"][0] << 32 | k["props"]["opp-hz"][1]
                      for k in opp["kids"])
            self.assertEqual(hz, top)
            raw[int(cpu["name"][4:], 16)] = cpu["props"]["capacity-dmips-mhz"][0] * (hz // 1000)
        biggest = max(raw.values())
        caps = [raw[c] * 1024 // biggest for c in sorted(raw)]
        self.assertEqual(caps, [462] * 4 + [1024] * 4)  # README: HiKey960 A53 = 462


class Table(unittest.TestCase):
    LINUX = ("compare: run pingpong\nRESULT pingpong loops=10 usec_per_op=20.000 "
             "migrations=2\ncompare: run spin up\nRESULT spin_up from_cpu=0 first_big_ms=40.0\n")
    LB = ("bench: run pipe,n=10000\nRESULT pingpong loops=10 usec_per_op=10.000 migrations=0 "
          "features=X\nRESULT energy bench=pipe total joules=1.5\n"
          "RESULT cpuidle bench=pipe enabled=0 governor=menu\n"
          "bench: run spin,up\nRESULT spin_up from_cpu=0 first_big_ms=never\n")

    def parse(self, text):
        with tempfile.NamedTemporaryFile("w", suffix=".log") as f:
            f.write(text)
            f.flush()
            return compare.parse(f.name)

    def test_parse_both_markers(self):
        lx, lb = self.parse(self.LINUX), self.parse(self.LB)
        self.assertEqual(lx["pingpong"]["usec_per_op"], "20.000")
        self.assertEqual(lb["pingpong"]["migrations"], "0")
        self.assertEqual(lb["spin up"]["first_big_ms"], "never")

    def test_median_range_ratio(self):
        other = self.LINUX.replace("20.000", "30.000").replace("40.0", "44.0")
        t = compare.table([self.parse(self.LINUX), self.parse(other), self.parse(self.LINUX)],
                          self.parse(self.LB))
        row = next(l for l in t.splitlines() if "usec_per_op" in l).split()
        self.assertEqual(row[2:6], ["20", "20-30", "10", "0.50"])
        row = next(l for l in t.splitlines() if "first_big_ms" in l).split()
        self.assertEqual(row[3:7], ["40", "40-44", "never", "-"])  # key "spin up": 2 words


if __name__ == "__main__":
    unittest.main()
