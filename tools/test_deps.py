#!/usr/bin/env python3
"""test_deps.py - tools/deps.sh and the Makefile's install step (issue 25): two deps.sh at
once take turns instead of failing on apt's lock, and `make test` installs once, before
its parallel sub-makes. No real apt-get: a stand-in first on PATH records its calls and
fails when entered twice. Not tested here: the real apt (make fresh-check does that)."""

import os
import shutil
import subprocess
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HIDDEN = "dtc"                  # the tool deps.sh must find missing
HIDDEN_PACKAGE = "device-tree-compiler"

# The stand-in apt-get: an atomic mkdir marks "inside"; a second entry meanwhile is an
# overlap (recorded, and fails as apt-get on its lock would). Installing HIDDEN_PACKAGE
# puts the tool back on PATH, after a pause long enough for a racing run to come in.
APT_GET = r"""#!/bin/bash
state=%(state)s
if ! mkdir "$state/inside" 2>/dev/null; then
	echo "$$ $*" >>"$state/overlaps"
	echo "E: Could not get lock (stand-in apt-get entered twice)" >&2
	exit 100
fi
echo "$*" >>"$state/calls"
sleep 0.4
case " $* " in
*" install "*%(package)s*) ln -sf %(real)s %(bin)s/%(tool)s ;;
esac
rmdir "$state/inside"
"""
SUDO = '#!/bin/bash\nexec "$@"\n'   # for a non-root run: deps.sh goes through sudo


def sandbox_bin(tmp):
    """A PATH directory: every executable of /usr/local/bin, /usr/bin and /bin as a
    symlink but HIDDEN, plus the stand-ins. Returns (bin, state)."""
    bindir, state = os.path.join(tmp, "bin"), os.path.join(tmp, "state")
    os.makedirs(bindir)
    os.makedirs(state)
    for d in ("/usr/local/bin", "/usr/bin", "/bin"):
        for name in sorted(os.listdir(d)) if os.path.isdir(d) else []:
            src, dst = os.path.join(d, name), os.path.join(bindir, name)
            if name == HIDDEN or os.path.lexists(dst) or not os.access(src, os.X_OK):
                continue
            os.symlink(src, dst)
    real = shutil.which(HIDDEN) or "/usr/bin/" + HIDDEN
    stubs = {"apt-get": APT_GET % {"state": state, "package": HIDDEN_PACKAGE, "real": real,
                                   "bin": bindir, "tool": HIDDEN},
             "sudo": SUDO}
    for name, text in stubs.items():
        path = os.path.join(bindir, name)
        if os.path.lexists(path):
            os.unlink(path)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, 0o755)
    return bindir, state


def lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return f.read().splitlines()


class DepsSh(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="test_deps.")
        self.addCleanup(shutil.rmtree, self.tmp)

    def test_two_runs_take_turns(self):
        """Two deps.sh at once, one tool missing: one apt-get at a time, one install,
        and both succeed (the second finds the tool there once it has the lock)."""
        bindir, state = sandbox_bin(self.tmp)
        env = {"PATH": bindir, "HOME": self.tmp, "TMPDIR": self.tmp, "LC_ALL": "C",
               "DEPS_SH_LOCK": os.path.join(self.tmp, "deps.lock"), "DEPS_APT_WAIT": "20"}
        script = os.path.join(ROOT, "tools", "deps.sh")
        runs = []
        for _ in range(2):
            runs.append(subprocess.Popen(["bash", script], env=env, cwd=self.tmp,
                                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                         universal_newlines=True))
            time.sleep(0.05)
        outs = [r.communicate(timeout=120)[0] for r in runs]
        report = "\n".join("run %d (exit %d):\n%s" % (i, r.returncode, o)
                           for i, (r, o) in enumerate(zip(runs, outs)))
        calls = lines(os.path.join(state, "calls"))
        self.assertEqual(lines(os.path.join(state, "overlaps")), [],
                         "apt-get entered twice at once\n" + report)
        self.assertEqual([r.returncode for r in runs], [0, 0], report)
        installs = [c for c in calls if " install " in " %s " % c]
        self.assertEqual(len(installs), 1, "apt-get calls: %r\n%s" % (calls, report))
        self.assertIn(HIDDEN_PACKAGE, installs[0])


class MakefileInstallsOnce(unittest.TestCase):
    SOURCES = ("Makefile", "linker.ld", "arch", "kernel", "drivers", "lib", "include", "dts",
               "tests", "tools")

    def test_make_n_test_installs_once(self):
        """`make -n test` in a tree without build/ prints tools/deps.sh once: the
        install comes before the parallel sub-makes, which (DEBUG=1 too) share it."""
        tmp = tempfile.mkdtemp(prefix="test_deps_make.")
        self.addCleanup(shutil.rmtree, tmp)
        for name in self.SOURCES:
            os.symlink(os.path.join(ROOT, name), os.path.join(tmp, name))
        env = {k: v for k, v in os.environ.items()
               if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}
        p = subprocess.run(["make", "-n", "test"], cwd=tmp, env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True, timeout=120)
        installs = [ln for ln in p.stdout.splitlines() if "tools/deps.sh" in ln]
        self.assertEqual(len(installs), 1, "make -n test (exit %d):\n%s" %
                         (p.returncode, "\n".join(installs) or p.stdout[-2000:]))


if __name__ == "__main__":
    unittest.main()
