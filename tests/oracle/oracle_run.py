"""What both oracles' main() share: the command line, the trace (the unittests binary run
with its trace switch on, or a saved trace), and the KTAP report of the cases. The models
themselves (linux_pelt.py, linux_eevdf.py) share nothing: each is written from its own
Linux version's rules."""

import argparse
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def args(doc, extra=()):
    """Parse --unittests, --trace, -v and the oracle's own (name, default) options."""
    ap = argparse.ArgumentParser(description=doc.splitlines()[0])
    ap.add_argument("--unittests", default=os.path.join(ROOT, "build/host/unittests"))
    for name, default in extra:
        ap.add_argument(name, default=default)
    ap.add_argument("--trace", help="read this trace instead of running unittests")
    ap.add_argument("-v", "--verbose", action="store_true")
    return ap.parse_args()


def trace(a, argv, env_var):
    """The trace's lines: from --trace, else from `unittests ARGV` with env_var=1."""
    if a.trace:
        with open(a.trace) as f:
            return f.read().splitlines()
    r = subprocess.run([a.unittests] + argv, env=dict(os.environ, **{env_var: "1"}),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True)
    return r.stdout.splitlines()


def report(cases):
    """Run (name, fn) cases, fn() -> (ok, diagnostics), as KTAP; the number that failed."""
    print("KTAP version 1")
    print("1..%d" % max(len(cases), 1))
    failed = 0
    for i, (name, fn) in enumerate(cases, 1):
        ok, diag = fn()
        for d in diag:
            print("# " + d)
        print("%s %d %s" % ("ok" if ok else "not ok", i, name))
        failed += not ok
    return failed
