#!/usr/bin/env python3
"""lint.py - the tree's habits as KTAP test cases (`make lint`; a run of `make test`).

One case per check, each over the files git tracks (worktree copies, so edits count):
  clang-format  every C file and header except dts/ and tests/dts/ (device-tree cpp
                macros, not C) equals `clang-format` of it with the checked-in
                .clang-format (Debian 12's clang-format 14); `--format` rewrites them so
  line-length   lines <= 100 columns (tabs to 8) in code: *.c *.h *.S *.py *.sh *.dts
                *.dtsi *.ld, Makefile and shebang scripts; not docs (*.md tables), JSON
                workloads or the shell tests' typed scripts (they are data)
  shellcheck    every shell script (*.sh and files whose shebang names bash or sh)
  pyflakes      every Python file (*.py and python shebangs), Debian's pyflakes3
  arch-fence    the portable core (kernel/, lib/, include/) includes no arch or driver
                header. An `#include "X"` or `<X>` there is refused when X names a
                directory arch/, drivers/ or asm/ (anywhere in its path; or resolves, from
                the including file's directory, into arch/ or drivers/),
                or X's file name is that of a header that lives under arch/ or drivers/
                (arch/arm64/include/: sysreg.h, boot.h, ...) or of an arch-specific one
                by its hardware (gic*.h, psci*.h, pl011*.h, arm_timer*.h). include/arch.h
                and include/arch_topology.h are the portable contract and are allowed:
                they resolve into include/, and no rule above names them.
Usage: tools/lint.py [CHECK...]   print KTAP, exit 1 if a case failed
       tools/lint.py --format     reformat in place what the clang-format case checks
"""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MAX_COLUMNS = 100
LENGTH_SUFFIXES = (".c", ".h", ".S", ".py", ".sh", ".dts", ".dtsi", ".ld")
FORMAT_EXCLUDE = ("dts/", "tests/dts/")
FENCE_DIRS = ("kernel/", "lib/", "include/")
FENCE_NAME_RE = re.compile(r"^(gic\w*|psci\w*|pl011\w*|arm_timer\w*)\.h$")
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]')


def tracked_files():
    """The files git tracks; outside a git checkout (a tarball), every file but build/."""
    p = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL)
    if p.returncode == 0:
        names = p.stdout.decode().split("\0")
    else:
        names = []
        for d, dirs, files in os.walk(ROOT):
            dirs[:] = [x for x in dirs if not (d == ROOT and x == "build") and x[0] != "."
                       and x != "__pycache__"]
            names += [os.path.relpath(os.path.join(d, f), ROOT) for f in files]
        names += [".ci/run"] if os.path.exists(os.path.join(ROOT, ".ci/run")) else []
    return sorted(f for f in names if f and os.path.isfile(os.path.join(ROOT, f)))


def shebang(path):
    try:
        with open(os.path.join(ROOT, path), "rb") as f:
            first = f.readline(200)
    except OSError:
        return ""
    return first.decode("utf-8", "replace").strip() if first.startswith(b"#!") else ""


def shell_scripts(files):
    return [f for f in files if f.endswith(".sh") or
            re.search(r"\b(ba)?sh\b", shebang(f).split("/")[-1])]


def python_files(files):
    return [f for f in files if f.endswith(".py") or "python" in shebang(f)]


def format_files(files):
    return [f for f in files if f.endswith((".c", ".h")) and not f.startswith(FORMAT_EXCLUDE)]


def read_lines(path):
    with open(os.path.join(ROOT, path), encoding="utf-8", errors="replace") as f:
        return f.read().splitlines()


def run_tool(argv):
    p = subprocess.run(argv, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return p.returncode, p.stdout.decode("utf-8", "replace")


def check_clang_format(files):
    bad = []
    for f in format_files(files):
        rc, out = run_tool(["clang-format", "--style=file", f])
        with open(os.path.join(ROOT, f), encoding="utf-8", errors="replace") as fh:
            if rc != 0 or out != fh.read():
                bad.append("%s differs from clang-format (make format)" % f)
    return bad


def check_line_length(files):
    bad = []
    for f in files:
        name = os.path.basename(f)
        if not (f.endswith(LENGTH_SUFFIXES) or name == "Makefile" or shebang(f)):
            continue
        for n, line in enumerate(read_lines(f), 1):
            cols = len(line.expandtabs(8))
            if cols > MAX_COLUMNS:
                bad.append("%s:%d: %d columns" % (f, n, cols))
    return bad


def check_shellcheck(files):
    scripts = shell_scripts(files)
    rc, out = run_tool(["shellcheck", "--format=gcc"] + scripts) if scripts else (0, "")
    return out.splitlines() if rc != 0 else []


def check_pyflakes(files):
    py = python_files(files)
    rc, out = run_tool(["pyflakes3"] + py) if py else (0, "")
    return out.splitlines() if rc != 0 else []


def fence_reason(path, target):
    parts = target.split("/")
    for d in parts[:-1]:
        if d in ("arch", "drivers", "asm"):
            return "names a directory %s/" % d
    resolved = os.path.normpath(os.path.join(os.path.dirname(path), target))
    if resolved.split("/")[0] in ("arch", "drivers"):
        return "resolves to %s" % resolved
    name = parts[-1]
    if FENCE_NAME_RE.match(name):
        return "an arch-specific header by name"
    return None


def check_arch_fence(files):
    arch_names = {os.path.basename(f) for f in files
                  if f.startswith(("arch/", "drivers/")) and f.endswith(".h")}
    bad = []
    for f in files:
        if not (f.startswith(FENCE_DIRS) and f.endswith((".c", ".h", ".S"))):
            continue
        for n, line in enumerate(read_lines(f), 1):
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            target = m.group(1)
            why = fence_reason(f, target)
            if why is None and os.path.basename(target) in arch_names:
                why = "a header of arch/ or drivers/"
            if why:
                bad.append("%s:%d: includes %s: %s" % (f, n, target, why))
    return bad


CHECKS = [("clang-format", check_clang_format), ("line-length", check_line_length),
          ("shellcheck", check_shellcheck), ("pyflakes", check_pyflakes),
          ("arch-fence", check_arch_fence)]

HINTS = {"clang-format": "; `make format` rewrites them (then commit)"}


def main(argv):
    files = tracked_files()
    if argv[:1] == ["--format"]:
        fmt = format_files(files)
        subprocess.run(["clang-format", "--style=file", "-i"] + fmt, cwd=ROOT, check=True)
        return 0
    checks = [c for c in CHECKS if not argv or c[0] in argv]
    print("KTAP version 1")
    print("1..%d" % len(checks))
    failed = 0
    for i, (name, fn) in enumerate(checks, 1):
        findings = fn(files)
        for line in findings:
            print("# " + line)
        if findings:
            failed += 1
            print("# %s: %d finding(s)%s" % (name, len(findings), HINTS.get(name, "")))
            print("not ok %d %s" % (i, name))
        else:
            print("ok %d %s" % (i, name))
        sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
