#!/usr/bin/env python3
"""test_mdlinks.py - tools/mdlinks.py on fixtures (a broken file, a broken anchor, GitHub's
anchor names, links in code not checked), then the repository itself: every relative link
in every .md resolves (make test's run `md-links`)."""

import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mdlinks  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FIXTURE = {
    "README.md": "# Top\n\nSee [the guide](docs/guide.md#make-test-runs), [speed](docs/guide.md"
                 "#speed-the-emulated-speed), [img](docs/img/a.png), [self](#top),\n"
                 "[dir](docs/) and [web](https://example.org/x.md#nothing).\n"
                 "```\n[in a fence](nowhere.md)\n```\nand `[in code](nowhere.md)`.\n"
                 "[ref]: docs/guide.md#twice-1\n",
    "docs/guide.md": "# Guide\n\n## `make test` runs\n\n## speed=: the emulated speed\n\n"
                     "## Twice\n\n## Twice\n\n<a id=\"kept\"></a>\nBack [up](../README.md#top),"
                     " [kept](#kept).\n",
    "docs/img/a.png": "",
}


class MdLinks(unittest.TestCase):
    def tree(self, files):
        d = tempfile.mkdtemp()
        self.addCleanup(lambda: __import__("shutil").rmtree(d))
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(d, rel)), exist_ok=True)
            with open(os.path.join(d, rel), "w") as f:
                f.write(text)
        return d

    def test_slug(self):
        self.assertEqual(mdlinks.slug("speed=: the emulated speed of all code"),
                         "speed-the-emulated-speed-of-all-code")
        self.assertEqual(mdlinks.slug("`make test`"), "make-test")
        self.assertEqual(mdlinks.slug("Boot paths and the HiKey960"),
                         "boot-paths-and-the-hikey960")
        self.assertEqual(mdlinks.slug("NR_CPUS, E1-E5 (and [more](x.md))"),
                         "nr_cpus-e1-e5-and-more")

    def test_good_fixture(self):
        self.assertEqual(mdlinks.check(self.tree(FIXTURE)), [])

    def test_broken_file_and_anchor(self):
        files = dict(FIXTURE)
        files["README.md"] += ("[gone](docs/gone.md) [bad anchor](docs/guide.md#no-such)\n"
                               "[third twice](docs/guide.md#twice-2)\n")
        bad = mdlinks.check(self.tree(files))
        self.assertEqual([(f, t) for f, _, t, _ in bad],
                         [("README.md", "docs/gone.md"), ("README.md", "docs/guide.md#no-such"),
                          ("README.md", "docs/guide.md#twice-2")])
        self.assertIn("no file docs/gone.md", bad[0][3])
        self.assertIn("no heading #no-such in docs/guide.md", bad[1][3])

    def test_main_exit_status(self):
        files = dict(FIXTURE, **{"x.md": "[gone](gone.md)\n"})
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(mdlinks.main([self.tree(files)]), 1)
            self.assertEqual(mdlinks.main([self.tree(FIXTURE)]), 0)
        self.assertIn("x.md:1: gone.md: no file gone.md", out.getvalue())

    def test_repository(self):
        bad = mdlinks.check(ROOT)
        self.assertEqual(bad, [], "\n".join("%s:%d: %s: %s" % b for b in bad))


if __name__ == "__main__":
    unittest.main()
