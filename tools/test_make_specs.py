#!/usr/bin/env python3
"""test_make_specs.py - `make experiment E=N`, `make bench B=SPEC` and `make profile B=SPEC`
refuse a bad E or B before anything is built or booted (issue 30: `make experiment E=7`
printed nothing and exited 0): non-zero exit, a message saying what is valid, no QEMU and
no Image. QEMU is a stand-in that records being called; the build directory is a
temporary one, so only the spec checker (build/host/benchspec) is built. The check itself
is the kernel's (kernel/bench/bench_spec.c), run the same way by the shell's `run`."""

import os
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QEMU_STUB = '#!/bin/sh\necho "$@" >> %s\nexit 0\n'


class MakeSpecs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="littlebig-specs-")
        cls.build = os.path.join(cls.tmp, "build")
        cls.calls = os.path.join(cls.tmp, "qemu-calls")
        cls.qemu = os.path.join(cls.tmp, "qemu")
        with open(cls.qemu, "w") as f:
            f.write(QEMU_STUB % cls.calls)
        os.chmod(cls.qemu, 0o755)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def make(self, *args):
        res = subprocess.run(["make", "--no-print-directory", "DEPS_CHECKED=1",
                              "BUILD=" + self.build, "QEMU=" + self.qemu] + list(args),
                             cwd=ROOT, capture_output=True, text=True, timeout=300)
        return res.returncode, res.stdout + res.stderr

    def refused(self, args, *says):
        rc, out = self.make(*args)
        self.assertNotEqual(rc, 0, out)
        for s in says:
            self.assertIn(s, out)
        self.assertFalse(os.path.exists(self.calls), "QEMU was started: " + out)
        self.assertFalse(os.path.exists(os.path.join(self.build, "Image")), "Image built")

    def test_unknown_experiment(self):
        self.refused(["experiment", "E=7"], "no experiment E=7", "1 2 3 4 5 6")

    def test_experiment_without_machines(self):
        self.refused(["experiment", "E=smoke"], "no experiment E=smoke", "1 2 3 4 5 6")

    def test_experiment_bad_flag(self):
        self.refused(["experiment", "E=1,long"], "1 does not take 'long'",
                     "what is valid", "short trace n=50000")

    def test_unknown_benchmark(self):
        self.refused(["bench", "B=nosuch"], 'no benchmark "nosuch"', "what is valid",
                     "pipe", "hackbench", "sysbench-threads")

    def test_bench_bad_key(self):
        self.refused(["bench", "B=pipe,x=1"], "pipe does not take 'x=1'", "n=10000")

    def test_bench_bad_value(self):
        self.refused(["bench", "B=pipe,n=lots"], "does not take 'n=lots'")

    def test_bench_list_with_a_bad_spec(self):
        self.refused(["bench", "B=pipe,n=10;spin,fast"], "spin does not take 'fast'")

    def test_profile_bad_spec(self):
        self.refused(["profile", "B=hackbench,q=2"], "hackbench does not take 'q=2'")

    def test_valid_specs_pass_the_check(self):
        for args in (["check-bench-spec", "B=pipe,n=20000"],
                     ["check-bench-spec", "B=pipe,n=10000;hackbench,g=1,l=200;spin,up"],
                     ["check-bench-spec", "B=crowd,t=10,ms=200"],
                     ["check-experiment-spec", "E=1,short,trace"],
                     ["check-experiment-spec", "E=6"]):
            rc, out = self.make(*args)
            self.assertEqual(rc, 0, "%s: %s" % (args, out))
        self.assertFalse(os.path.exists(self.calls))


if __name__ == "__main__":
    unittest.main()
