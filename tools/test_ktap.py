"""test_ktap.py - unit tests of tools/ktap.py (plain unittest; tools/runtests.py
runs them as its "ktap-parser" run, and `python3 tools/test_ktap.py` runs them alone).

Owns: the parser's contract as the runner relies on it: leaves counted, suite
lines counted only when they fail on their own, failures named with their
diagnostics, protocol problems (no plan, missing results, cut output) reported.
"""

import os
import sys
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap  # noqa: E402


def parse(text):
    return ktap.parse(textwrap.dedent(text))


def counts(s):
    return (s.passed, s.failed, s.skipped)


class Flat(unittest.TestCase):
    def test_all_pass(self):
        s = parse("""\
            KTAP version 1
            1..3
            ok 1 a
            ok 2 b
            ok 3 c
            """)
        self.assertEqual(counts(s), (3, 0, 0))
        self.assertEqual(s.problems, [])
        self.assertTrue(s.ok)

    def test_failure_is_named_with_its_diagnostics(self):
        s = parse("""\
            KTAP version 1
            1..2
            ok 1 a
            # b: EXPECTATION FAILED at x.c:3
            # x == 1: 0 vs 1
            not ok 2 b
            """)
        self.assertEqual(counts(s), (1, 1, 0))
        self.assertEqual([f.name for f in s.failures], ["b"])
        self.assertEqual(s.failures[0].diagnostics,
                         ["# b: EXPECTATION FAILED at x.c:3", "# x == 1: 0 vs 1"])
        self.assertFalse(s.ok)

    def test_skip_on_ok_and_not_ok(self):
        s = parse("""\
            KTAP version 1
            1..3
            ok 1 a # SKIP no GICv3
            not ok 2 b # SKIP not on this machine
            ok 3 c # skip lower case
            """)
        self.assertEqual(counts(s), (0, 0, 3))

    def test_todo_and_xfail_failures_are_not_failures(self):
        s = parse("""\
            KTAP version 1
            1..4
            not ok 1 a # TODO later
            not ok 2 b # XFAIL known
            ok 3 c # TODO passes anyway
            not ok 4 d # TIMEOUT
            """)
        self.assertEqual(counts(s), (1, 1, 2))
        self.assertEqual([f.name for f in s.failures], ["d"])

    def test_comment_that_is_not_a_directive(self):
        s = parse("""\
            KTAP version 1
            1..1
            ok 1 boot_time # 1234 us
            """)
        self.assertEqual(counts(s), (1, 0, 0))
        self.assertEqual(s.documents[0].results[0].name, "boot_time")
        self.assertEqual(s.documents[0].results[0].reason, "1234 us")

    def test_tap_dash_and_crlf(self):
        s = ktap.parse("TAP version 13\r\n1..2\r\nok 1 - first\r\nnot ok 2 - second\r\n")
        self.assertEqual(counts(s), (1, 1, 0))
        self.assertEqual(s.failures[0].name, "second")

    def test_empty_plan(self):
        s = parse("""\
            KTAP version 1
            1..0
            """)
        self.assertEqual(counts(s), (0, 0, 0))
        self.assertEqual(s.problems, [])


class Nested(unittest.TestCase):
    KUNIT = """\
        booting littlebig on 8 CPUs
        KTAP version 1
        1..2
            KTAP version 1
            # Subtest: boot
            1..2
            ok 1 boot_el
            ok 2 boot_dt
        ok 1 boot
            KTAP version 1
            # Subtest: smp
            1..3
            ok 1 smp_online
            # smp_mpidr: EXPECTATION FAILED at tests/kernel/smp.c:42
            # mpidr(7) == 0x103: 0x7 vs 0x103
            not ok 2 smp_mpidr
            ok 3 smp_ipi # SKIP one CPU
        not ok 2 smp
        """

    def test_counts_leaves_only(self):
        s = parse(self.KUNIT)
        self.assertEqual(counts(s), (3, 1, 1))
        self.assertEqual(s.problems, [])
        self.assertEqual(s.warnings, [])

    def test_failure_path_and_diagnostics(self):
        s = parse(self.KUNIT)
        self.assertEqual([f.name for f in s.failures], ["smp.smp_mpidr"])
        self.assertEqual(s.failures[0].diagnostics[-1], "# mpidr(7) == 0x103: 0x7 vs 0x103")

    def test_tree(self):
        s = parse(self.KUNIT)
        doc = s.documents[0]
        self.assertEqual(doc.plan, 2)
        self.assertEqual([r.name for r in doc.results], ["boot", "smp"])
        smp = doc.results[1].subtest
        self.assertEqual(smp.name, "smp")
        self.assertEqual(smp.plan, 3)
        self.assertEqual([r.status for r in smp.results], ["pass", "fail", "skip"])

    def test_suite_not_ok_without_failed_case_counts_once(self):
        s = parse("""\
            KTAP version 1
            1..1
                KTAP version 1
                # Subtest: alloc
                1..2
                ok 1 a
                ok 2 b
            # alloc: leaked 3 pages
            not ok 1 alloc
            """)
        self.assertEqual(counts(s), (2, 1, 0))
        self.assertEqual(s.failures[0].name, "alloc")
        self.assertIn("# alloc: leaked 3 pages", s.failures[0].diagnostics)

    def test_suite_skipped_without_cases_is_one_skip(self):
        s = parse("""\
            KTAP version 1
            1..2
                KTAP version 1
                # Subtest: gicv3
                1..0
            ok 1 gicv3 # SKIP no GICv3 here
            not ok 2 unknown_suite
            """)
        self.assertEqual(counts(s), (0, 1, 1))
        self.assertEqual(s.failures[0].name, "unknown_suite")

    def test_subtest_header_before_version(self):
        s = parse("""\
            TAP version 14
            1..1
                # Subtest: timer
                KTAP version 1
                1..2
                ok 1 tick
                ok 2 oneshot
            ok 1 timer
            """)
        self.assertEqual(counts(s), (2, 0, 0))
        self.assertEqual(s.documents[0].results[0].subtest.name, "timer")
        self.assertEqual(s.problems, [])

    def test_subtest_without_header_lines(self):
        s = parse("""\
            KTAP version 1
            1..1
                1..2
                ok 1 x
                not ok 2 y
            not ok 1 s
            """)
        self.assertEqual(counts(s), (1, 1, 0))
        self.assertEqual(s.failures[0].name, "s.y")

    def test_three_levels(self):
        s = parse("""\
            KTAP version 1
            1..1
                KTAP version 1
                # Subtest: sched
                1..2
                    KTAP version 1
                    # Subtest: pelt
                    1..2
                    ok 1 decay
                    not ok 2 sum
                not ok 1 pelt
                ok 2 flat
            not ok 1 sched
            """)
        self.assertEqual(counts(s), (2, 1, 0))
        self.assertEqual([f.name for f in s.failures], ["sched.pelt.sum"])
        self.assertEqual(s.problems, [])

    def test_foreign_lines_at_column_zero_do_not_close_a_subtest(self):
        s = parse("""\
            KTAP version 1
            1..1
                KTAP version 1
                # Subtest: threads
                1..2
                ok 1 create
            [cpu3] a log line at column 0
            ok
                ok 2 join
            ok 1 threads
            """)
        self.assertEqual(counts(s), (2, 0, 0))
        self.assertEqual(s.problems, [])

    def test_kernel_log_inside_a_case_becomes_its_diagnostics(self):
        s = parse("""\
            KTAP version 1
            1..1
                KTAP version 1
                # Subtest: threads
                1..1
            WARNING: cpu 3 stuck
            backtrace: foo+0x10
                not ok 1 join
            not ok 1 threads
            """)
        self.assertEqual(s.failures[0].name, "threads.join")
        self.assertEqual(s.failures[0].diagnostics,
                         ["WARNING: cpu 3 stuck", "backtrace: foo+0x10"])


class Problems(unittest.TestCase):
    def test_no_ktap_at_all(self):
        s = parse("""\
            booting
            Unhandled exception: data abort
            """)
        self.assertFalse(s.version_seen)
        self.assertFalse(s.ok)
        self.assertEqual(s.problems, ['no KTAP output ("KTAP version 1" line) seen'])

    def test_no_plan(self):
        s = parse("""\
            KTAP version 1
            ok 1 a
            """)
        self.assertFalse(s.plan_seen)
        self.assertIn("no KTAP plan (1..N) line seen", s.problems)
        self.assertEqual(counts(s), (1, 0, 0))

    def test_missing_results(self):
        s = parse("""\
            KTAP version 1
            1..3
            ok 1 a
            ok 2 b
            """)
        self.assertEqual(s.problems, ["planned 3 results, got 2"])
        self.assertFalse(s.ok)

    def test_output_cut_in_the_middle_of_a_suite(self):
        s = parse("""\
            KTAP version 1
            1..2
                KTAP version 1
                # Subtest: boot
                1..1
                ok 1 boot_el
            ok 1 boot
                KTAP version 1
                # Subtest: smp
                1..3
                ok 1 smp_online
            Kernel panic - not syncing: oops
            """)
        # The cases seen still count; the cut is reported, not guessed at.
        self.assertEqual(counts(s), (2, 0, 0))
        self.assertIn("smp: subtest has no result line (output ended or was cut)", s.problems)
        self.assertIn("planned 2 results, got 1", s.problems)
        self.assertIn("smp: planned 3 results, got 1", s.problems)

    def test_sibling_subtest_without_result_line(self):
        s = parse("""\
            KTAP version 1
            1..2
                KTAP version 1
                # Subtest: a
                1..1
                ok 1 a1
                KTAP version 1
                # Subtest: b
                1..1
                ok 1 b1
            ok 2 b
            """)
        self.assertEqual(counts(s), (2, 0, 0))
        self.assertIn("a: subtest has no result line (output ended or was cut)", s.problems)
        self.assertEqual(s.documents[0].results[-1].subtest.name, "b")

    def test_restart_is_a_problem(self):
        s = parse("""\
            KTAP version 1
            1..1
            ok 1 a
            KTAP version 1
            1..1
            ok 1 a
            """)
        self.assertEqual(len(s.documents), 2)
        self.assertEqual(counts(s), (2, 0, 0))
        self.assertTrue(any("restarted" in p for p in s.problems))

    def test_bail_out(self):
        s = parse("""\
            KTAP version 1
            1..1
            Bail out! no console
            """)
        self.assertTrue(any(p.startswith("bail out") for p in s.problems))

    def test_numbering_mismatch_is_only_a_warning(self):
        s = parse("""\
            KTAP version 1
            1..2
            ok 1 a
            ok 3 b
            """)
        self.assertEqual(s.problems, [])
        self.assertEqual(len(s.warnings), 1)


class Streaming(unittest.TestCase):
    def test_done_once_the_plan_is_met(self):
        p = ktap.Parser()
        for line in ["KTAP version 1", "1..2", "    KTAP version 1", "    1..1", "    ok 1 x"]:
            p.feed(line + "\n")
            self.assertFalse(p.done())
        p.feed("ok 1 s\n")
        self.assertFalse(p.done())
        p.feed("ok 2 t\n")
        self.assertTrue(p.done())
        self.assertEqual(counts(p.finish()), (2, 0, 0))

    def test_diagnostics_are_bounded(self):
        p = ktap.Parser()
        p.feed_text("KTAP version 1\n1..1\n")
        for i in range(10 * ktap.MAX_DIAG_LINES):
            p.feed("log line %d" % i)
        p.feed("not ok 1 flood")
        s = p.finish()
        self.assertEqual(len(s.failures[0].diagnostics), ktap.MAX_DIAG_LINES)
        self.assertEqual(s.failures[0].diagnostics[-1],
                         "log line %d" % (10 * ktap.MAX_DIAG_LINES - 1))


if __name__ == "__main__":
    unittest.main()
