#!/usr/bin/env python3
"""test_lint.py - unit tests of tools/lint.py's own rules (the arch fence, the file kinds
each check covers), on made-up file lists and include lines: no tool is run."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import lint  # noqa: E402


class FenceTest(unittest.TestCase):
    FILES = ["arch/arm64/include/sysreg.h", "drivers/gicv3.c", "include/arch.h",
             "include/arch_topology.h", "kernel/sched/fair.c", "kernel/x.c"]

    def findings(self, path, lines):
        real = lint.read_lines
        lint.read_lines = lambda f: lines if f == path else []
        try:
            return lint.check_arch_fence(self.FILES + [path])
        finally:
            lint.read_lines = real

    def test_portable_contract_allowed(self):
        ok = ['#include "arch.h"', '#include "arch_topology.h"', "#include <stdint.h>",
              '#include "sched_internal.h"', '#include "../../include/sched.h"']
        self.assertEqual(self.findings("kernel/sched/x.c", ok), [])

    def test_arch_and_driver_headers_refused(self):
        bad = ['#include "sysreg.h"', '#include "../arch/arm64/include/boot.h"',
               '#include <asm/io.h>', '#include "gicv3.h"', '#include "psci.h"',
               '#  include "pl011.h"', '#include "drivers/x.h"',
               '#include "../../drivers/gic.c"']
        got = self.findings("kernel/sched/y.c", bad)
        self.assertEqual([g.split(":")[1] for g in got], [str(n) for n in range(1, 9)])

    def test_only_the_portable_core_is_fenced(self):
        self.assertEqual(self.findings("drivers/z.c", ['#include "sysreg.h"']), [])
        self.assertEqual(len(self.findings("lib/z.c", ['#include "sysreg.h"'])), 1)
        self.assertEqual(len(self.findings("include/z.h", ['#include "sysreg.h"'])), 1)


class KindsTest(unittest.TestCase):
    def test_format_skips_device_tree_macros(self):
        files = ["dts/littlebig.h", "tests/dts/test-cpus.h", "kernel/a.c", "include/b.h",
                 "tools/c.py"]
        self.assertEqual(lint.format_files(files), ["kernel/a.c", "include/b.h"])


if __name__ == "__main__":
    unittest.main()
