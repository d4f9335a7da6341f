#!/usr/bin/env python3
"""test_trace.py - tools/trace.py on known input: the ftrace text round trip,
the event sequence of the shell run's traced task (build/test-logs/shell.log,
written by the `shell` run just before), and a PNG drawn from it; and
`make trace E=1` (one boot of qemu-bl44 under -icount, ~10 s): both halves
extracted, round-tripped, consistent with what E1 measured, one PNG."""

import glob
import os
import re
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


POWER_LOG = """\
topology: cpu=0 mpidr=0x0 cluster=0 freq_domain=0 compatible=x dmips=1024 capacity=1024
topology: cpu=1 mpidr=0x1 cluster=0 freq_domain=0 compatible=x dmips=1024 capacity=1024
topology: opp freq_domain=0 freq=1000000 microvolt=700000 power=200000 cost=1
topology: opp freq_domain=0 freq=2000000 microvolt=900000 power=800000 cost=2
topology: idle cpu=0 state=1 name=a entry_us=1 exit_us=1 residency_us=1 level=0 \
timer_stop=1 psci=0x0
topology: idle cpu=1 state=2 name=b entry_us=1 exit_us=1 residency_us=1 level=1 \
timer_stop=1 psci=0x0
"""

# A pick on cpu4 as eevdf_trace_pick records it (kernel/sched/fair_eevdf.c): the picked
# entity, then the others queued, all against one V; then the next pick.
EEVDF_SAMPLE = """\
            hog1-40      [004] d..2.     1.000100: sched_eevdf: comm=p pid=43 ev=pick \
vlag=120000 vdeadline=880000 slice=1000000 eligible=1
            hog1-40      [004] d..2.     1.000100: sched_eevdf: comm=hog1 pid=40 ev=queued \
vlag=-300000 vdeadline=2500000 slice=2800000 eligible=0
            hog1-40      [004] d..2.     1.000100: sched_eevdf: comm=hog2 pid=41 ev=queued \
vlag=90000 vdeadline=1900000 slice=2800000 eligible=1
               p-43      [004] d..2.     1.000600: sched_eevdf: comm=hog2 pid=41 ev=pick \
vlag=40000 vdeadline=1850000 slice=2800000 eligible=1
               p-43      [004] d..2.     1.000600: sched_eevdf: comm=hog1 pid=40 ev=deadline \
vlag=-1 vdeadline=1 slice=2800000 eligible=1
            hog2-41      [004] d..2.     1.000700: sched_eevdf: comm=p pid=43 ev=place \
vlag=430000 vdeadline=570000 slice=1000000 eligible=1
""".splitlines()


class TraceTool(unittest.TestCase):
    def test_cluster_power(self):
        """Busy at the EM's power for the frequency, idle at 10 % (WFI), 2 % (a CPU
        power-down) or 0 % (a cluster power-down) of the lowest OPP's 0.2 W."""
        model = ktrace.power_model_from_log(POWER_LOG)
        ev = lambda ts, name, state, cpu: {"ts": ts, "event": name,  # noqa: E731
                                           "state": str(state), "cpu_id": str(cpu)}
        events = [ev(1.0, "cpu_frequency", 2000000, 0), ev(2.0, "cpu_idle", 2, 1),
                  ev(3.0, "cpu_idle", 0, 0), ev(4.0, "cpu_idle", 1, 0),
                  ev(5.0, "cpu_frequency", 1000000, 0), ev(6.0, "cpu_idle", 0xffffffff, 0)]
        got = ktrace.cluster_power(events, model, [[0, 1]])[0]
        want = [1.6, 0.8, 0.02, 0.004, 0.004, 0.2]
        self.assertEqual([ts for ts, _ in got], [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
        for (_, w), x in zip(got, want):
            self.assertAlmostEqual(w, x)

    def test_eevdf_picks(self):
        """sched_eevdf's pick and queued records parse, round-trip, and group into one entry
        per pick with each queued task's lag, deadline and eligibility (a deadline record
        is not kept, a placement is kept but is not part of a pick)."""
        events = ktrace.parse(EEVDF_SAMPLE)
        self.assertEqual(ktrace.parse([ktrace.format_event(e) for e in events]), events)
        e = events[1]
        self.assertEqual((e["event"], e["comm"], e["ev"], e["vlag"], e["vdeadline"],
                          e["eligible"], e["common_cpu"]),
                         ("sched_eevdf", "hog1", "queued", "-300000", "2500000", "0", 4))
        tl = ktrace.timeline(events)
        self.assertEqual(list(tl["eevdf"]), [4])
        self.assertEqual(tl["eevdf"][4][0], (1.0001, "p", "pick", 120000, 880000, 1))
        self.assertEqual(tl["eevdf"][4][-1], (1.0007, "p", "place", 430000, 570000, 1))
        self.assertEqual(len(tl["eevdf"][4]), 5)
        picks = ktrace.eevdf_picks(tl["eevdf"][4])
        self.assertEqual(picks, [
            (1.0001, "p", {"p": (120000, 880000, 1), "hog1": (-300000, 2500000, 0),
                           "hog2": (90000, 1900000, 1)}),
            (1.0006, "hog2", {"hog2": (40000, 1850000, 1)})])
        # The pick is eligible and has the earliest deadline of the eligible ones.
        ts, picked, q = picks[0]
        self.assertEqual(picked, min((v[1], c) for c, v in q.items() if v[2])[1])
        # Queued records before the first pick (its tail cut by the trace start) are dropped.
        self.assertEqual(ktrace.eevdf_picks([(0.5, "x", "queued", 1, 2, 1)]), [])

    def test_eevdf_csv_round_trip(self):
        """The EEVDF picks survive timeline_csv and read_timeline_csv (what the lab's PNG
        is drawn from), in ms from the first event; and csvplot draws them."""
        tl = ktrace.timeline(ktrace.parse(EEVDF_SAMPLE))
        lines = ktrace.timeline_csv([("eevdf", tl)], [[4]])
        self.assertIn("1,eevdf,4,0.000,,hog1,queued/-300/2500/0", lines)
        self.assertIn("1,eevdf,4,0.500,,hog2,pick/40/1850/1", lines)
        _, panels = ktrace.read_timeline_csv(lines)
        got = panels[0][1]["eevdf"][4]
        self.assertEqual([(c, ev, lag, dl, el) for _, c, ev, lag, dl, el in got],
                         [(c, ev, lag, dl, el) for _, c, ev, lag, dl, el in tl["eevdf"][4]])
        self.assertAlmostEqual(got[3][0], 0.0005)
        with tempfile.TemporaryDirectory() as d:
            csv, png = os.path.join(d, "e.csv"), os.path.join(d, "e.png")
            with open(csv, "w") as f:
                f.write("\n".join(lines) + "\n")
            here = os.path.dirname(os.path.abspath(__file__))
            r = subprocess.run(["/usr/bin/python3", os.path.join(here, "trace.py"), "csvplot",
                                csv, png], capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

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

    def test_capacity_lines(self):
        """Each cluster's capacity from the boot lines and Linux 6.1's misfit
        threshold: fits_capacity(util, cap) is util * 1280 < cap * 1024."""
        little = "topology: cpu=4 mpidr=0x100 cluster=1 freq_domain=1 capacity=462\n"
        caps = ktrace.capacities_from_log(POWER_LOG + little)
        self.assertEqual(caps, {0: 1024, 1: 1024, 4: 462})
        got = ktrace.capacity_lines([[0, 1], [4]], caps)
        self.assertEqual([(k, c) for k, c, _ in got], [(0, 1024), (1, 462)])
        for _, cap, thr in got:
            fits = [u for u in range(cap + 1) if u * 1280 < cap * 1024]
            self.assertTrue(max(fits) < thr <= max(fits) + 1, (cap, thr))

    def test_colours_stable(self):
        """A task has one colour whatever else a picture holds (the demo's on and
        off halves are drawn apart); the kernel's own tasks are grey."""
        a = ktrace.colour_slots(["small", "hog", "small2", "init"])
        b = ktrace.colour_slots(["hog", "migration/4", "small2", "small", "run"])
        for c in ("small", "hog", "small2"):
            self.assertEqual(a[c], b[c], c)
        self.assertEqual(len({a[c] for c in ("small", "hog", "small2")}), 3)
        self.assertIsInstance(b["migration/4"], str)  # a grey level
        self.assertFalse({a[c] for c in ("small", "hog", "small2")} & {14, 15})  # greys

    def test_plot_title_counts(self):
        """plot() titles count migrations and each cluster's frequency changes."""
        ev = lambda ts, name, **f: dict({"common_comm": "x", "common_pid": 5,  # noqa: E731
                                         "common_cpu": 0, "ts": ts, "event": name},
                                        **{k: str(v) for k, v in f.items()})
        events = [ev(0.0, "cpu_frequency", state=500000, cpu_id=0),
                  ev(0.1, "sched_migrate_task", comm="x", pid=5, orig_cpu=0, dest_cpu=4),
                  ev(0.2, "cpu_frequency", state=900000, cpu_id=0),
                  ev(0.3, "cpu_frequency", state=900000, cpu_id=0)]
        self.assertEqual(ktrace.half_stats(events, [[0, 1], [4]]),
                         "0.300 s, 1 migrations, frequency changes: 1 / 0")
        with tempfile.TemporaryDirectory() as d:
            titles = []
            orig = ktrace.plot_panels
            ktrace.plot_panels = lambda panels, *a, **k: titles.extend(t for t, _ in panels)
            try:
                ktrace.plot(events, os.path.join(d, "x.png"), "demo", [[0, 1], [4]])
            finally:
                ktrace.plot_panels = orig
        self.assertEqual(titles, ["demo\n0.300 s, 1 migrations, frequency changes: 1 / 0"])

    def test_lenient(self):
        """A console log kept by `make run LOG=` may carry other output inside a dump."""
        lines = ktrace.extract(SAMPLE.replace("# littlebig trace end", "spawned x pid 3\n"
                                              "# littlebig trace end"))[0]
        events, skipped = ktrace.parse_lenient(lines)
        self.assertEqual((len(events), skipped), (3, 1))

    def test_make_trace_log(self):
        """`make run LOG=FILE` tees the console; `make trace-log LOG=FILE` draws each
        dump of it: the shell run's full dump and its `trace start sched_switch
        sched_migrate_task` one, which has only those events."""
        if not os.path.exists(SHELL_LOG):
            self.skipTest("no %s (the shell run makes it)" % SHELL_LOG)
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "session.log")
            r = subprocess.run(["make", "-s", "-n", "-C", root, "run", "LOG=" + log],
                               capture_output=True, text=True)
            self.assertIn("| tee " + log, r.stdout)
            with open(SHELL_LOG, "rb") as f, open(log, "wb") as g:
                g.write(f.read())
            r = subprocess.run(["make", "-s", "-C", root, "trace-log", "LOG=" + log],
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(r.returncode, 0, r.stderr)
            pngs = sorted(glob.glob(os.path.join(d, "session-*.png")))
            self.assertGreaterEqual(len(pngs), 2, r.stdout)
            for png in pngs:
                with open(png, "rb") as f:
                    self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
            with open(os.path.join(d, "session-2.txt")) as f:
                names = {e["event"] for e in ktrace.parse(f.read().splitlines())}
            self.assertTrue(names and names <= {"sched_switch", "sched_migrate_task"}, names)


class MakeTraceE1(unittest.TestCase):
    """`make trace E=1`: E1 short with each half traced, as a user runs it."""
    MACHINE = "qemu-bl44"

    @classmethod
    def setUpClass(cls):
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        cls.out = os.path.join(BUILD, "trace")
        cls.base = os.path.join(cls.out, "e1-" + cls.MACHINE)
        for f in glob.glob(cls.base + "*"):
            os.unlink(f)
        cls.make = subprocess.run(["make", "-s", "-C", root, "trace", "E=1", "BUILD=" + BUILD],
                                  capture_output=True, text=True, timeout=600)

    def setUp(self):
        self.assertEqual(self.make.returncode, 0, self.make.stdout + self.make.stderr)

    def halves(self):
        with open(self.base + ".log", errors="replace") as f:
            text = f.read()
        # E1's two halves; the tester's matrix after them (E1 UCLAMP/big ...,
        # exp_e1_matrix.c) is traced too but is not the ping-pong compared here.
        halves = {k: v for k, v in ktrace.extract_labelled(text) if "ASYM_PREFER_PREV" in k}
        self.assertEqual(sorted(halves), ["E1 ASYM_PREFER_PREV", "E1 NO_ASYM_PREFER_PREV"])
        return text, {k: ktrace.parse(v) for k, v in halves.items()}

    def test_files_round_trip(self):
        for half in ("no-asym-prefer-prev", "asym-prefer-prev"):
            with open("%s-%s.txt" % (self.base, half)) as f:
                lines = f.read().splitlines()
            self.assertTrue(lines[0].startswith("# tracer: nop"), lines[:2])
            events = ktrace.parse(lines)
            self.assertGreater(len(events), 1000)
            self.assertEqual(ktrace.parse([ktrace.format_event(e) for e in events]), events)

    def test_wakeup_then_switch_on_target(self):
        """Every wakeup of a pipe task is followed, for that task, by a
        sched_switch onto the target CPU (or a migration first)."""
        _, halves = self.halves()
        for label, events in halves.items():
            where, checked = {}, 0
            for e in events:
                if e["event"] == "sched_wakeup" and e["comm"].startswith("pipe-"):
                    where[e["pid"]] = int(e["target_cpu"])
                elif e["event"] == "sched_migrate_task" and e["pid"] in where:
                    where[e["pid"]] = int(e["dest_cpu"])
                elif e["event"] == "sched_switch" and e["next_pid"] in where:
                    self.assertEqual(e["common_cpu"], where.pop(e["next_pid"]), (label, e))
                    checked += 1
            self.assertGreater(checked, 1500, label)

    def test_migrations_match_result(self):
        """The trace's sched_migrate_task of pipe-0/pipe-1 agree with the RESULT
        line of the same half (which counts from the start barrier): off, all
        wakeups move; on, none do."""
        text, halves = self.halves()
        results = ktrace.results_after(text)
        for label, events in halves.items():
            n = sum(1 for e in events if e["event"] == "sched_migrate_task"
                    and e["comm"].startswith("pipe-"))
            m = int(re.search(r" migrations=(\d+)", results[label]).group(1))
            self.assertTrue(m <= n <= m + 2, (label, n, results[label]))
        self.assertGreater(int(re.search(r" migrations=(\d+)",
                                         results["E1 NO_ASYM_PREFER_PREV"]).group(1)), 1000)

    def test_png(self):
        with open(self.base + ".png", "rb") as f:
            data = f.read()
        self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n")
        self.assertGreater(len(data), 10000)


if __name__ == "__main__":
    unittest.main()
