#!/usr/bin/env python3
"""test_labs.py - tools/labs.py's own tests: a session split at the prompts, excerpts
rendered from it, and the comparison that make test does (a hand edit fails, an address
does not). No boot."""

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
