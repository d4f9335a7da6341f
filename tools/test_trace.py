#!/usr/bin/env python3
"""test_trace.py - tools/trace.py on known input: the ftrace text round trip,
the event sequence of the shell run's traced task (build/test-logs/shell.log,
written by the `shell` run just before), and a PNG drawn from it."""

import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace as ktrace  # noqa: E402  (tools/trace.py, not the stdlib module)

BUILD = os.environ.get("BUILD", "build")
SHELL_LOG = os.path.join(BUILD, "test-logs", "shell.log")

SAMPLE = """\
# littlebig trace begin
# tracer: nop
#
              tr-18      [004] d..2.     0.170001: sched_switch: prev_comm=tr prev_pid=18 \
prev_prio=120 prev_state=S ==> next_comm=swapper/4 next_pid=0 next_prio=120
          <idle>-0       [000] d..2.     0.170002: sched_wakeup: comm=tr pid=18 prio=120 \
target_cpu=004
          <idle>-0       [004] d..2.     0.170003: cpu_frequency: state=2362000 cpu_id=4
# littlebig trace end: 3 events, 0 overwritten
"""


class TraceTool(unittest.TestCase):
    def test_round_trip(self):
        blocks = ktrace.extract("noise\r\n" + SAMPLE.replace("\n", "\r\n") + "more noise\n")
        self.assertEqual(len(blocks), 1)
        events = ktrace.parse(blocks[0])
        self.assertEqual([e["event"] for e in events],
                         ["sched_switch", "sched_wakeup", "cpu_frequency"])
        self.assertEqual(events[0]["next_comm"], "swapper/4")
        self.assertEqual(events[1]["common_comm"], "<idle>")
        self.assertEqual(events[1]["comm"], "tr")
        again = ktrace.parse([ktrace.format_event(e) for e in events])
        self.assertEqual(again, events)

    def test_bad_line(self):
        with self.assertRaises(ValueError):
            ktrace.parse(["this is not ftrace"])

    def shell_events(self):
        if not os.path.exists(SHELL_LOG):
            self.skipTest("no %s (the shell run makes it)" % SHELL_LOG)
        with open(SHELL_LOG, errors="replace") as f:
            blocks = ktrace.extract(f.read())
        self.assertTrue(blocks, "no trace in " + SHELL_LOG)
        return blocks[0]

    def test_shell_scenario(self):
        """`spawn tr work=3000 period=10000 cpus=4`: woken new on cpu4, runs there,
        sleeps (S), is woken, runs again; never leaves cpu4."""
        evs = [e for e in ktrace.parse(self.shell_events())
               if "tr" in (e.get("comm"), e.get("prev_comm"), e.get("next_comm"))
               and e["event"] != "sched_pelt_se"]
        seq = []
        for e in evs:
            if e["event"] == "sched_wakeup_new":
                seq.append("new@%s" % e["target_cpu"])
            elif e["event"] == "sched_wakeup":
                seq.append("wake@%s" % e["target_cpu"])
            elif e["event"] == "sched_switch" and e["next_comm"] == "tr":
                seq.append("in@%d" % e["common_cpu"])
            elif e["event"] == "sched_switch":
                seq.append("out-%s@%d" % (e["prev_state"], e["common_cpu"]))
        self.assertEqual(seq[:4], ["new@004", "in@4", "out-S@4", "wake@004"], seq[:8])
        self.assertGreaterEqual(seq.count("out-S@4"), 3, seq)
        self.assertFalse([s for s in seq if not s.endswith("4")], seq)

    def test_png(self):
        lines = self.shell_events()
        with tempfile.TemporaryDirectory() as d:
            txt, png = os.path.join(d, "t.txt"), os.path.join(d, "t.png")
            with open(txt, "w") as f:
                f.write("\n".join(lines) + "\n")
            here = os.path.dirname(os.path.abspath(__file__))
            r = subprocess.run(["/usr/bin/python3", os.path.join(here, "trace.py"), "plot", txt,
                                png, "--title", "shell"], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(png, "rb") as f:
                data = f.read()
            self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n")
            self.assertGreater(len(data), 10000)


if __name__ == "__main__":
    unittest.main()
