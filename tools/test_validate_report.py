#!/usr/bin/env python3
"""test_validate_report.py - tools/validate_report.py on a made-up board log (the
numbers below are invented, chosen so every figure of the report can be worked out
by hand): grouping by cluster, the ratio to the tree, a firmware-rounded rate, the
capacity-dmips-mhz suggestion, the QEMU column, idle lines."""

import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_report  # noqa: E402

def validate(cpu, opp, hw, measured, tree, speed="native"):
    """A RESULT validate line as selftest_validate.c prints it (ratio and rel unused)."""
    return ("RESULT validate cpu=%d opp_khz=%d hw_khz=%d measured=%d tree=%d ratio=0 rel=0 "
            "speed=%s\n" % (cpu, opp, hw, measured, tree, speed))


BOARD = "".join([
    "speed: model native (no emulation), clock elapsed\n",
    "hi3660-stub-clk: mailbox 0xe896b000 channel 13 (dst 3, ack 0), rates at 0xe896b570\n",
    "cpufreq: policy0 cpus=0-1 opps=2 governor=performance driver=hi3660-stub-clk\n",
    "cpuidle: cpu0: cpu-sleep-0 and deeper kept off: local-timer-stop, and no broadcast\n",
    validate(0, 533000, 533000, 150, 133),
    validate(1, 533000, 533000, 152, 133),
    validate(0, 1844000, 1840000, 500, 462),
    validate(1, 1844000, 1840000, 500, 462),
    validate(2, 903000, 903000, 390, 391),
    validate(2, 2362000, 2362000, 1024, 1024),
    "RESULT validate_idle cpu=0 sleep_us=500 state=0 name=WFI entry_us_tree=0 "
    "exit_us_tree=0 late_us=3 idles=1\n",
])

QEMU = validate(0, 533000, 533000, 132, 133, "all") + validate(1, 533000, 533000, 132, 133, "all")


def run_report(board, qemu=None):
    paths = []
    for text in (board, qemu):
        if text is None:
            continue
        f = tempfile.NamedTemporaryFile("w", suffix=".log", delete=False)
        f.write(text)
        f.close()
        paths.append(f.name)
    try:
        out = io.StringIO()
        rc = validate_report.report(validate_report.parse(paths[0]),
                                    validate_report.parse(paths[1]) if qemu else None, out)
        return rc, out.getvalue()
    finally:
        for p in paths:
            os.unlink(p)


class ValidateReport(unittest.TestCase):
    def test_groups_ratios_and_rounding(self):
        rc, text = run_report(BOARD)
        self.assertEqual(rc, 0)
        self.assertIn("speed model: native", text)
        self.assertIn("cpufreq driver: hi3660-stub-clk", text)
        self.assertIn("kept off: local-timer-stop", text)
        lines = [ln.split() for ln in text.splitlines()]
        row = next(ln for ln in lines if ln[:2] == ["0-1", "533"])
        self.assertEqual(row[3], "151")         # (150 + 152) / 2
        self.assertEqual(row[-1], "1.135")      # 151 / 133
        row = next(ln for ln in lines if ln[:2] == ["0-1", "1844"])
        self.assertEqual(row[2], "1840*")       # the firmware's rate, flagged
        self.assertIn("runs a rate other than the OPP asked", text)
        row = next(ln for ln in lines if ln[:2] == ["2", "2362"])
        self.assertEqual(row[-1], "1.000")

    def test_dmips_suggestion(self):
        # little: 1024 x 500/1024 x 2362/1844 = 640.4; the tree's 462 gives 591.8
        _, text = run_report(BOARD)
        self.assertRegex(text, r"cpus 0-1 +640 \(the tree's: 592\)")
        self.assertRegex(text, r"cpus 2 +1024 \(the tree's: 1024\)")

    def test_qemu_column_and_idle(self):
        _, text = run_report(BOARD, QEMU)
        rows = [ln.split() for ln in text.splitlines()]
        row = next(r for r in rows if r[:2] == ["0-1", "533"])
        self.assertEqual(row[-1], "0.992")
        row = next(r for r in rows if r[:2] == ["2", "903"])
        self.assertEqual(row[-1], "-")
        self.assertRegex(text, r"cpu0 +sleep +500 us -> WFI +exit_tree +0 us, late +3 us")

    def test_no_results(self):
        rc, text = run_report("speed: model native (no emulation)\n")
        self.assertEqual(rc, 1)
        self.assertIn("no RESULT validate lines", text)


if __name__ == "__main__":
    unittest.main()
