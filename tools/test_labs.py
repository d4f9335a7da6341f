#!/usr/bin/env python3
"""test_labs.py - tools/labs.py's own tests: a session split at the prompts, excerpts
rendered from it, and the comparison that make test does (a hand edit fails, an address
does not); a picture's data from a `trace dump` in the session, its PNG drawn from that data
(Debian's matplotlib, tools/deps.sh), the data compared (a changed value fails). No boot."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labs  # noqa: E402

LOG = ("# qemu ...\r\nlittlebig: booting\r\nmachine: 8 CPUs\r\nmm: at 0x48000000ab\r\n"
       "littlebig> ps\r\n  PID NAME\r\n    0 swapper/0\r\n   10 a    4\r\n   11 b    4\r\n"
       "littlebig> sleep 5\r\n"
       "littlebig> top -n 1\r\n\x1b[H\x1b[2Jtop - 1.000 s\r\ncluster 0\r\n"
       "littlebig> poweroff\r\n")
RUN = {"name": "labx", "script": [("ps", "ps\r", []), ("sleep", "sleep 5\r", []),
                                  ("top", "top -n 1\r", []), ("poweroff", "poweroff\r", [])],
       "excerpts": {"ps": [("ps", r"^  PID|^ +\d+ [ab] "), ("sleep", None)],
                    "boot": [("boot", r"^machine|^mm"), ("top", None, 1)]}}


def ftrace(ts, comm, pid, cpu, event, fields):
    return "%16s-%-7d [%03d] d..2. %12.6f: %s: %s\r\n" % (comm, pid, cpu, ts, event, fields)


# A session with topology lines and one `trace dump`: x runs on cpu0, migrates to cpu4.
TRACE_LOG = (
    "topology: cpu=0 mpidr=0x0 cluster=0 freq_domain=0 capacity=462\r\n"
    "topology: cpu=4 mpidr=0x100 cluster=1 freq_domain=1 capacity=1024\r\n"
    "littlebig> trace start\r\ntrace: on\r\n"
    "littlebig> trace dump\r\n# littlebig trace begin\r\n# tracer: nop\r\n" +
    ftrace(1.0, "<idle>", 0, 0, "cpu_frequency", "state=533000 cpu_id=0") +
    ftrace(1.0, "<idle>", 0, 4, "cpu_frequency", "state=2362000 cpu_id=4") +
    ftrace(1.001, "<idle>", 0, 0, "sched_switch", "prev_comm=swapper/0 prev_pid=0 prev_prio=120 "
           "prev_state=R ==> next_comm=x next_pid=5 next_prio=120") +
    ftrace(1.002, "x", 5, 0, "sched_pelt_se", "cpu=0 path=(null) comm=x pid=5 load=10 util=300 "
           "util_est=0") +
    ftrace(1.003, "x", 5, 0, "sched_switch", "prev_comm=x prev_pid=5 prev_prio=120 prev_state=R "
           "==> next_comm=swapper/0 next_pid=0 next_prio=120") +
    ftrace(1.004, "<idle>", 0, 4, "sched_migrate_task", "comm=x pid=5 prio=120 orig_cpu=0 "
           "dest_cpu=4") +
    ftrace(1.005, "<idle>", 0, 4, "sched_switch", "prev_comm=swapper/4 prev_pid=0 prev_prio=120 "
           "prev_state=R ==> next_comm=x next_pid=5 next_prio=120") +
    ftrace(1.0075, "x", 5, 4, "sched_pelt_se", "cpu=4 path=(null) comm=x pid=5 load=10 util=420 "
           "util_est=0") +
    "# littlebig trace end\r\nlittlebig> poweroff\r\n")
TRACE_RUN = {"name": "labt", "script": [("trace-on", "trace start\r", []),
                                        ("trace-dump", "trace dump\r", []),
                                        ("poweroff", "poweroff\r", [])],
             "excerpts": {}, "pictures": {"9-x": {"panels": [("trace-dump", "x moves")]}}}


class Pictures(unittest.TestCase):
    def run_in_tmp(self):
        d = tempfile.mkdtemp()
        self.addCleanup(lambda: __import__("shutil").rmtree(d))
        doc = os.path.join(d, "09-x.md")
        with open(doc, "w") as f:
            f.write("# Lab\n")
        return dict(TRACE_RUN, doc=doc)

    def test_data(self):
        csv = labs.fresh_pictures(dict(TRACE_RUN, doc="docs/labs/09-x.md"), TRACE_LOG)["9-x"]
        self.assertIn("panel,kind,cpu,start_ms,end_ms,task,value", csv)
        self.assertIn(",cluster,0,,,0-0,462/369.6", csv)
        self.assertIn(",cluster,4,,,4-4,1024/819.2", csv)
        self.assertIn('1,panel,,0.000,7.500,"x moves\\n0.008 s, 1 migrations, frequency '
                      'changes: 0 / 0",', csv)
        self.assertIn("1,run,0,1.000,3.000,x,", csv)
        self.assertIn("1,run,4,5.000,7.500,x,", csv)
        self.assertIn("1,freq,4,0.000,,,2362", csv)
        self.assertIn("1,util,,7.500,,x-5,420", csv)
        # Read back as the timeline that was written (what the PNG is drawn from).
        tr = labs.ktrace()
        clusters, panels = tr.read_timeline_csv(csv)
        self.assertEqual(clusters, [[0], [4]])
        self.assertEqual(panels[0][0].split("\n")[0], "x moves")
        tl = panels[0][1]
        self.assertEqual(tl["runs"][4], [(0.005, 0.0075, "x")])
        self.assertEqual(tl["util"]["x-5"], [(0.002, 300), (0.0075, 420)])
        self.assertEqual(tl["capacity"], [(0, 462, 369.6), (1, 1024, 819.2)])

    def test_write_draw_compare(self):
        run = self.run_in_tmp()
        csv, png = labs.picture_paths(run, "9-x")
        res = dict(labs.compare_pictures(run, TRACE_LOG))
        self.assertIn("make labs", res["9-x"][0])  # no data yet
        self.assertEqual(labs.rewrite_pictures(run, TRACE_LOG), ["9-x.csv", "9-x.png"])
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertEqual(labs.compare_pictures(run, TRACE_LOG), [("9-x", None)])
        self.assertEqual(labs.rewrite_pictures(run, TRACE_LOG), [])
        with open(csv) as f:
            text = f.read()
        with open(csv, "w") as f:
            f.write(text.replace("1,util,,7.500,,x-5,420", "1,util,,7.500,,x-5,421"))
        diag = dict(labs.compare_pictures(run, TRACE_LOG))["9-x"]
        self.assertIn("-1,util,,7.500,,x-5,421", diag)
        self.assertIn("+1,util,,7.500,,x-5,420", diag)
        self.assertIn("make labs", diag[-1])
        # The excerpt check carries the pictures' (a run's one list of cases).
        self.assertIn(("picture-9-x", diag), labs.compare(run, TRACE_LOG))


    def test_eevdf_picture(self):
        """"eevdf": 4 keeps cpu4's sched_eevdf pick records (not cpu0's) as eevdf rows; read
        back they are what the PNG draws; a picture without it keeps none."""
        ev = "sched_eevdf"
        log = TRACE_LOG.replace("# littlebig trace end", (
            ftrace(1.006, "x", 5, 4, ev, "comm=x pid=5 ev=pick vlag=0 vdeadline=700000 "
                   "slice=2800000 eligible=1") +
            ftrace(1.006, "x", 5, 4, ev, "comm=y pid=6 ev=queued vlag=-5000 vdeadline=900000 "
                   "slice=2800000 eligible=0") +
            ftrace(1.006, "x", 5, 0, ev, "comm=z pid=7 ev=pick vlag=0 vdeadline=1 "
                   "slice=2800000 eligible=1")).rstrip("\r\n") + "\r\n# littlebig trace end")
        pics = {"9-x": {"panels": [("trace-dump", "x moves")], "eevdf": 4}}
        csv = labs.fresh_pictures(dict(TRACE_RUN, doc="docs/labs/09-x.md", pictures=pics),
                                  log)["9-x"]
        self.assertIn("1,eevdf,4,6.000,,x,pick/0/700/1", csv)
        self.assertIn("1,eevdf,4,6.000,,y,queued/-5/900/0", csv)
        self.assertFalse([l for l in csv if ",eevdf,0," in l])
        _, panels = labs.ktrace().read_timeline_csv(csv)
        self.assertEqual(panels[0][1]["eevdf"][4][1], (0.006, "y", "queued", -5000, 900000, 0))
        plain = labs.fresh_pictures(dict(TRACE_RUN, doc="docs/labs/09-x.md"), log)["9-x"]
        self.assertFalse([l for l in plain if ",eevdf," in l])
        run = dict(self.run_in_tmp(), pictures=pics)
        self.assertEqual(labs.rewrite_pictures(run, log), ["9-x.csv", "9-x.png"])
        self.assertEqual(labs.compare_pictures(run, log), [("9-x", None)])


    def test_alike_tasks(self):
        """A picture with "alike" tasks matches a run where they swap at a tie and times
        drift by a us, and not one where the other task's rows move."""
        head = ["# x", "panel,kind,cpu,start_ms,end_ms,task,value", ",cluster,4,,,4-7,1024/819.2"]
        committed = head + ["1,run,4,0.000,1.108,hog2,", "1,run,4,1.108,1.730,hog3,",
                            "1,run,4,1.730,4.737,hog1,", "1,eevdf,4,1.729,,hog1,pick/0/2798/1",
                            "1,eevdf,4,4.737,,p,pick/430/800/1", "1,run,4,4.737,5.240,p,",
                            "1,run,4,5.240,7.599,hog3,"]
        swapped = head + ["1,run,4,0.000,1.108,hog2,", "1,run,4,1.108,4.737,hog3,",
                          "1,eevdf,4,1.729,,hog3,pick/0/2798/1",
                          "1,eevdf,4,4.736,,p,pick/431/799/1", "1,run,4,4.736,5.239,p,",
                          "1,run,4,5.239,7.599,hog1,"]
        spec = {"alike": r"hog\d"}
        self.assertTrue(labs.same_picture(committed, swapped, spec))
        self.assertFalse(labs.same_picture(committed, swapped, {}))  # exact without it
        moved = [l.replace("5.239,p", "5.300,p").replace("5.239,7.599", "5.300,7.599")
                 for l in swapped]
        self.assertFalse(labs.same_picture(committed, moved, spec))
        inelig = [l.replace("pick/431/799/1", "pick/431/799/0") for l in swapped]
        self.assertFalse(labs.same_picture(committed, inelig, spec))
        self.assertFalse(labs.same_picture(committed, swapped[:-1], spec))


class Labs(unittest.TestCase):
    def test_split_session(self):
        boot, steps = labs.split_session(LOG)
        self.assertIn("machine: 8 CPUs", boot)
        self.assertEqual([s[0] for s in steps], ["ps", "sleep 5", "top -n 1", "poweroff"])
        self.assertEqual(steps[2][1][0], "top - 1.000 s")  # escapes gone

    def test_render(self):
        got = labs.fresh_excerpts(RUN, LOG)
        self.assertEqual(got["ps"], ["littlebig> ps", "  PID NAME", "...", "   10 a    4",
                                     "   11 b    4", "littlebig> sleep 5"])
        self.assertEqual(got["boot"], ["...", "machine: 8 CPUs", "mm: at 0x48000000ab",
                                       "littlebig> top -n 1", "top - 1.000 s", "..."])

    def doc(self, text):
        f = tempfile.NamedTemporaryFile("w", suffix=".md", delete=False)
        f.write(text)
        f.close()
        self.addCleanup(os.unlink, f.name)
        return dict(RUN, doc=f.name)

    def written(self):
        """A doc with both blocks, rewritten from LOG."""
        run = self.doc("# Lab\n\n<!-- excerpt: ps -->\n```\nold\n```\n<!-- /excerpt -->\n"
                       "text\n<!-- excerpt: boot -->\n```\n```\n<!-- /excerpt -->\n")
        self.assertEqual(labs.rewrite(run, LOG), ["boot", "ps"])
        return run

    def test_rewrite_then_compare(self):
        run = self.written()
        with open(run["doc"]) as f:
            text = f.read()
        self.assertIn("```\nlittlebig> ps\n  PID NAME\n", text)
        self.assertIn("text\n<!-- excerpt: boot -->", text)
        self.assertEqual(labs.compare(run, LOG), [("ps", None), ("boot", None)])
        self.assertEqual(labs.rewrite(run, LOG), [])

    def test_hand_edit_fails(self):
        run = self.written()
        with open(run["doc"]) as f:
            text = f.read()
        with open(run["doc"], "w") as f:
            f.write(text.replace("   10 a    4", "   10 a    5"))
        res = dict(labs.compare(run, LOG))
        self.assertIsNone(res["boot"])
        self.assertIn("-   10 a    5", res["ps"])
        self.assertIn("+   10 a    4", res["ps"])
        self.assertIn("make labs", res["ps"][-1])

    def test_address_not_compared(self):
        run = self.written()
        with open(run["doc"]) as f:
            text = f.read()
        with open(run["doc"], "w") as f:
            f.write(text.replace("0x48000000ab", "0x40000000cd"))
        self.assertEqual(dict(labs.compare(run, LOG))["boot"], None)

    def test_missing_and_unknown_blocks(self):
        run = self.doc("<!-- excerpt: ps -->\n```\n```\n<!-- /excerpt -->\n"
                       "<!-- excerpt: other -->\n```\n```\n<!-- /excerpt -->\n")
        res = dict(labs.compare(run, LOG))
        self.assertIn("no block <!-- excerpt: boot -->", res["boot"][0])
        self.assertIn("does not make", res["other"][0])
        self.assertRaises(KeyError, labs.rewrite, run, LOG)


if __name__ == "__main__":
    unittest.main()
