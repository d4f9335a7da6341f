#!/usr/bin/env python3
"""test_qemu_run.py - tools/qemu_run.py's own tests: the tools import no circle (runtests.py
and labs.py once imported each other), a script's keys as the kernel reads them, and a
script session judged step by step. No boot."""

import ast
import os
import sys
import unittest

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
import qemu_run  # noqa: E402


def tool_imports(path):
    """The tools/ modules a file imports, at its top or inside a function."""
    mods = set()
    with open(path) as f:
        tree = ast.parse(f.read(), path)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            mods.add(node.module)
    return {m for m in mods if os.path.exists(os.path.join(TOOLS, m + ".py"))}


class ImportGraph(unittest.TestCase):
    def test_no_circle(self):
        names = [f[:-3] for f in os.listdir(TOOLS) if f.endswith(".py")]
        graph = {n: tool_imports(os.path.join(TOOLS, n + ".py")) for n in names}
        self.assertIn("qemu_run", graph["labs"])
        self.assertIn("qemu_run", graph["runtests"])

        def visit(n, path):
            self.assertNotIn(n, path, "import circle: " + " -> ".join(path + [n]))
            for m in sorted(graph.get(n, ())):
                visit(m, path + [n])
        for n in sorted(graph):
            visit(n, [])


STEPS = [("ps", "ps\r", ["PID"]), ("kill", "kill {pid:hog}\r", ["!no such"]),
         ("poweroff", "poweroff\r", [])]


class Script(unittest.TestCase):
    def test_keys(self):
        self.assertEqual(qemu_run.script_keys(STEPS), "ps\rkill hog\rpoweroff\r")
        with self.assertRaises(ValueError):
            qemu_run.script_keys([("w", "run x\r{wait:done}", [])])

    def test_judge(self):
        out = qemu_run.Outcome("t", "/nonexistent.log")
        text = "boot\r\nlittlebig> ps\r\n  PID NAME\r\nlittlebig> kill hog\r\nno such task\r\n"
        qemu_run.judge_script({"script": STEPS}, text, out)
        self.assertEqual((out.passed, out.failed), (1, 2))  # kill's output, poweroff's missing
        self.assertEqual([f.name for f in out.failures], ["shell.kill", "shell.poweroff"])


if __name__ == "__main__":
    unittest.main()
