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


class Linux612(unittest.TestCase):
    """--linux 6.12: Debian's 6.12 beside sched=eevdf; the EEVDF rows (issue 29)."""
    LINUX = ("compare: run wakeup little\nRESULT wakeup cpu=0 capacity=462 slice_us=1000 "
             "slice_get_us=1000 n=188 mean_us=1000.000 p99_us=3900.000 max_us=4000.000\n"
             "compare: run nice 0:5\nRESULT nice cpu=4 nice=5 ms=1000 share=0.752 "
             "weight_share=0.753\n")
    LB = ("bench: run spin,wakeup,slice=1000,ms=2000\nRESULT wakeup cpu=0 capacity=462 "
          "slice_us=1000 n=189 mean_us=500.000 p99_us=2000.000 max_us=3000.000 features=X "
          "sched=eevdf\nRESULT energy bench=spin total joules=1.5\n"
          "bench: run spin,nice=5,ms=1000\nRESULT nice cpu=4 nice=5 ms=1000 share=0.752 "
          "weight_share=0.753 features=X sched=eevdf\n")

    def setUp(self):
        self.saved = dict(compare.LINUX)

    def tearDown(self):
        compare.LINUX.clear()
        compare.LINUX.update(self.saved)

    def use(self, version):
        compare.LINUX.update(version=version, **compare.LINUXES[version])

    def test_log_names(self):
        self.assertEqual(compare.log_name("linux", 0), "linux-0.log")
        self.assertEqual(compare.log_name("littlebig"), "littlebig.log")
        self.use("6.12")
        self.assertEqual(compare.log_name("linux", 2), "linux-6.12-2.log")
        self.assertEqual(compare.log_name("littlebig"), "littlebig-eevdf.log")

    def boot_argv(self, version):
        """The QEMU line run_littlebig() would boot, boot() replaced."""
        self.use(version)
        seen = []
        real = compare.boot
        compare.boot = lambda argv, log, verbose: seen.append((argv, log))
        try:
            opt = type("Opt", (), {"qemu": "qemu", "build": "b", "verbose": False})()
            compare.MACHINE["dtb"] = "t.dtb"
            compare.run_littlebig(opt, "c")
        finally:
            compare.boot = real
        (argv, log), = seen
        return argv[argv.index("-append") + 1], log

    def test_littlebig_boots_the_policy(self):
        append, log = self.boot_argv("6.12")
        self.assertIn(" sched=eevdf ", append)
        self.assertTrue(log.endswith("littlebig-eevdf.log"))
        append, _ = self.boot_argv("6.1")
        self.assertIn(" sched=cfs ", append)
        self.assertIn(";spin,wakeup,big,slice=1000,ms=2000;", append)

    def test_every_eevdf_row_runs_on_both(self):
        keys = [k for k, _, _ in compare.WORKLOADS]
        for key in ("wakeup little", "wakeup big", "wakeup little base", "wakeup big base",
                    "nice 0:5", "spin up", "spread"):  # the placement rows stay
            self.assertIn(key, keys)
        for key, spec, cmd in compare.WORKLOADS:
            if key.startswith("wakeup"):
                big = " big" in key
                base = key.endswith("base")
                self.assertEqual(",big," in spec, big, key)
                self.assertEqual(cmd.split()[2], "big" if big else "little", key)
                self.assertEqual(cmd.split()[3], "0" if base else "1000", key)
                self.assertEqual("slice=1000" in spec, not base, key)

    def test_trace_wakeup(self):
        saved = list(compare.WORKLOADS)
        try:
            compare.trace_wakeup()
            for (key, spec, cmd), (_, spec0, cmd0) in zip(compare.WORKLOADS, saved):
                traced = key.startswith("wakeup")
                self.assertEqual(spec, spec0 + ",trace" if traced else spec0)
                self.assertEqual(cmd, cmd0 + " trace" if traced else cmd0)
        finally:
            compare.WORKLOADS[:] = saved

    def parse(self, text):
        with tempfile.NamedTemporaryFile("w", suffix=".log") as f:
            f.write(text)
            f.flush()
            return compare.parse(f.name)

    def test_wakeup_and_nice_rows(self):
        self.use("6.12")
        lx, lb = self.parse(self.LINUX), self.parse(self.LB)
        self.assertEqual(lx["wakeup little"]["slice_get_us"], "1000")
        t = compare.table([lx], lb).splitlines()
        rows = {tuple(l.split()[:3]): l.split() for l in t[1:]}
        self.assertEqual(rows[("wakeup", "little", "mean_us")][3:7],
                         ["1000", "1000-1000", "500", "0.50"])
        self.assertEqual(rows[("wakeup", "little", "max_us")][5], "3000")
        self.assertEqual(rows[("nice", "0:5", "share")][3:8],
                         ["0.752", "0.752-0.752", "0.752", "1.00", "-"])  # 6.1's figures only
        self.use("6.1")
        t = compare.table([lx], lb)
        self.assertTrue(next(l for l in t.splitlines() if "share" in l).endswith("0.754"))


class Fetch(unittest.TestCase):
    """tools/compare/fetch.sh against stand-ins for apt-get and apt-cache (no network): it
    keeps apt's state under OUT/apt and says clearly when the kernel package is missing."""
    FETCH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compare", "fetch.sh")

    def run_fetch(self, version, search_out=""):
        d = tempfile.mkdtemp()
        fake = os.path.join(d, "fakebin")
        os.makedirs(fake)
        calls = os.path.join(d, "calls")
        for tool, body in (("apt-get", "exit 0"),
                           ("apt-cache", 'case " $* " in *" search "*) printf "%%s" "%s";; '
                            'esac; exit 0' % search_out)):
            with open(os.path.join(fake, tool), "w") as f:
                f.write('#!/bin/sh\necho "%s $*" >> %s\n%s\n' % (tool, calls, body))
            os.chmod(os.path.join(fake, tool), 0o755)
        env = dict(os.environ, PATH=fake + os.pathsep + os.environ["PATH"])
        p = subprocess.run(["bash", self.FETCH, os.path.join(d, "out"), version], env=env,
                           capture_output=True, text=True)
        with open(calls) if os.path.exists(calls) else open(os.devnull) as f:
            return p, f.read(), d

    def test_unknown_version(self):
        p, calls, _ = self.run_fetch("5.10")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("only 6.1 and 6.12", p.stderr)
        self.assertEqual(calls, "")

    @unittest.skipUnless(os.path.exists("/usr/share/keyrings/debian-archive-keyring.gpg"),
                         "no debian-archive-keyring")
    def test_missing_package_private_state(self):
        p, calls, d = self.run_fetch("6.12")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("Linux 6.12 is missing", p.stderr)
        apt = os.path.join(d, "out", "apt")
        with open(os.path.join(apt, "sources.list")) as f:
            sources = f.read()
        self.assertIn("bookworm-backports main", sources)
        self.assertTrue(all("[arch=arm64 " in l for l in sources.splitlines()))
        for line in calls.splitlines():  # every call on the private state, arm64 only
            self.assertIn("Dir::Etc::sourcelist=%s/sources.list" % os.path.realpath(apt), line)
            self.assertIn("Dir::Etc::sourceparts=/dev/null", line)
            self.assertIn("APT::Architectures::=arm64", line)
        self.assertIn("apt-get", calls.split()[0])
        self.assertNotIn("dpkg", calls)


if __name__ == "__main__":
    unittest.main()
