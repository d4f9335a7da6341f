#!/usr/bin/env python3
"""runtests.py - the host test runner behind `make test`.

Owns: running each test run of the table (RUNS in tests/runs.py: a host program,
a fuzzer, a QEMU boot with `selftest`, a shell session typed or read by the kernel
from its initrd, the labs' excerpts compared through tools/labs.py), keeping its output in
build/test-logs/NAME.log, judging it through its KTAP output (tools/ktap.py)
and printing one line per run, the failures, and last the line
`N passed, N failed` (leaf test cases over all runs). Exits non-zero on any
failure. Does not own building anything (the Makefile runs `make all fuzzers`
first), installing tools (tools/deps.sh), or what it shares with tools/labs.py (a
run's outcome and options, processes, QEMU command lines, script boots and their
judging, the report of one run: tools/qemu_run.py).

A run fails on a `not ok` case, and also -- counted as one more failure -- on
a panic line, on missing KTAP (no plan, fewer results than planned), on a
non-zero exit of QEMU, or on a hang. Timeouts only detect hangs: host
wall-clock time is never asserted.

    tools/runtests.py [-v] [-k NAME] [--list] [--build DIR]
    QEMU="qemu-system-aarch64 -d guest_errors" tools/runtests.py -k bl44 -v
"""

import argparse
import glob
import os
import selectors
import shlex
import shutil
import subprocess
import sys
import time
import traceback
import unittest

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
sys.path.insert(0, os.path.join(os.path.dirname(TOOLS), "tests"))
import ktap  # noqa: E402
from qemu_run import (DEFAULT_IDLE_TIMEOUT, DIAG_LINES, QEMU_PANIC_MARKS,  # noqa: E402
                      SHELL_PROMPT, TAIL_LINES, Options, Outcome, Process, boot_script,
                      judge_script, judge_step, kill_group, qemu_argv, report)
from runs import BL44_DTB, QEMU_DTBS, RUNS  # noqa: E402  (the table)

PANIC_GRACE = 10            # s left to a panicking kernel to finish its report
POWEROFF_GRACE = 60         # s for QEMU to exit once every planned result is in
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")

# ---- kinds of run ------------------------------------------------------------------------

def run_ktap_command(run, opt, out, argv):
    """Run a host program that prints KTAP and judge it. A non-zero exit is
    expected when cases failed; without failed cases it is a problem."""
    parser = ktap.Parser()
    seen = []

    def on_line(line):
        parser.feed(line)
        if not seen and any(m in line for m in SANITIZER_MARKS):
            seen.append(line.strip())

    timeout, idle = opt.timeouts(run)
    p = Process(argv, out.log, opt.verbose, timeout, idle, on_line).run()
    summary = parser.finish()
    out.add_summary(summary)
    out.tail = list(p.tail)
    if seen:
        out.problems.append("error in the output: " + seen[0])
    if p.hang:
        out.problems.append("hang: %s" % p.hang)
    elif p.returncode != 0 and not summary.failed:
        out.problems.append("%s exited with status %d" % (os.path.basename(argv[0]),
                                                          p.returncode))


def kind_command(run, opt, out):
    argv = [opt.path(a) for a in run["argv"]]
    if not os.path.exists(argv[0]):
        out.problems.append("%s is missing (make all builds it)" % argv[0])
        return
    run_ktap_command(run, opt, out, argv)


def kind_unittests(run, opt, out):
    """build/host/unittests over every DTB: ours and the ones QEMU generates."""
    argv = [opt.path(a) for a in run["argv"]]
    if not os.path.exists(argv[0]):
        out.problems.append("%s is missing (make all builds it)" % argv[0])
        return
    dtbs = sorted(glob.glob(os.path.join(opt.build, "dts", "*.dtb")))
    if not dtbs:
        out.notes.append("no %s/dts/*.dtb to test the DT reader on (dts/ has no trees yet?)"
                         % opt.build)
    dtbs += dump_qemu_dtbs(opt, out)
    for dtb in dtbs:
        argv += ["--dtb", dtb]
    run_ktap_command(run, opt, out, argv)


def dump_qemu_dtbs(opt, out):
    """QEMU's own device trees into build/dts-qemu/; a failure is a problem."""
    outdir = os.path.join(opt.build, "dts-qemu")
    os.makedirs(outdir, exist_ok=True)
    made = []
    for name, args in QEMU_DTBS:
        path = os.path.join(outdir, name)
        if os.path.exists(path):
            os.unlink(path)
        argv = opt.qemu + [a.replace("{out}", path) for a in args] + ["-nographic"]
        try:
            r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=60)
            text = r.stdout.decode("utf-8", "replace").strip()
        except (OSError, subprocess.TimeoutExpired) as e:
            text = str(e)
        if _is_dtb(path):
            made.append(path)
        else:
            out.problems.append("could not dump QEMU's tree %s: %s" % (name, text or "?"))
    return made


def _is_dtb(path):
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\xd0\x0d\xfe\xed"
    except OSError:
        return False


def expand_fuzz(run, opt):
    """One run per fuzzer source; the binary is what `make fuzzers` built."""
    runs = []
    for src in sorted(glob.glob("tests/fuzz/fuzz_*.c")):
        name = os.path.basename(src)[:-2]
        runs.append(dict(run, name=name, binary=os.path.join(opt.build, "host", name)))
    if not runs:
        runs.append({"name": "fuzz", "kind": "skip", "reason": "no tests/fuzz/fuzz_*.c yet"})
    return runs


def fuzz_stats(log):
    """"N runs in S s, coverage C, corpus K" from libFuzzer's last lines, or None."""
    import re
    try:
        with open(log, errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    done = re.findall(r"Done (\d+) runs in (\d+) second", text)
    cov = re.findall(r"cov: (\d+) ft: \d+ corp: (\d+)", text)
    if not done:
        return None
    return "%s runs in %s s%s" % (done[-1][0], done[-1][1], ", coverage %s, corpus %s inputs"
                                  % cov[-1] if cov else "")


def kind_fuzz(run, opt, out):
    """A bounded libFuzzer run over the seed corpus: one test, passed when it exits 0.
    With --fuzz-time (make fuzz): that many seconds, no run limit, and a corpus
    kept in build/fuzz-corpus/NAME/ from one `make fuzz` to the next."""
    name = run["name"]
    if not os.path.exists(run["binary"]):
        out.problems.append("%s is missing (make fuzzers builds it)" % run["binary"])
        return
    work = os.path.join(opt.build, "fuzz-work", name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(os.path.join(work, "corpus"))
    limit = opt.fuzz_time or run.get("max_total_time", 60)
    corpus = os.path.join(work, "corpus")
    if opt.fuzz_time:
        corpus = os.path.join(opt.build, "fuzz-corpus", name)
        os.makedirs(corpus, exist_ok=True)
    # New inputs go to the first corpus directory (build/), never to the seeds.
    argv = [run["binary"]] + ([] if opt.fuzz_time else ["-runs=%d" % run.get("runs", 20000)]) + [
            "-max_total_time=%d" % limit, "-timeout=30",
            "-artifact_prefix=" + work + "/", corpus]
    seeds = os.path.join("tests", "fuzz", "corpus", name[len("fuzz_"):])
    if os.path.isdir(seeds):
        argv.append(seeds)
    else:
        out.notes.append("no seed corpus %s/" % seeds)
    timeout = opt.timeout or run.get("timeout", limit + DEFAULT_IDLE_TIMEOUT)
    idle = opt.idle_timeout or run.get("idle_timeout", DEFAULT_IDLE_TIMEOUT)
    p = Process(argv, out.log, opt.verbose, timeout, idle).run()
    out.tail = list(p.tail)
    stats = fuzz_stats(out.log)
    if stats:
        out.notes.append(stats)
    if p.hang:
        out.problems.append("hang: %s" % p.hang)
    elif p.returncode == 0:
        out.passed = 1
    else:
        out.failed = 1
        crash = [l for l in p.tail if "ERROR:" in l or "SUMMARY:" in l or "Test unit" in l]
        found = sorted(glob.glob(os.path.join(work, "*-*")))
        if found:
            crash.append("input: %s (once fixed, add it to %s/ as a regression input)"
                         % (found[0], seeds))
        out.failures.append(ktap.Failure(name, "exit status %d" % p.returncode,
                                         crash or list(p.tail)))


def kind_qemu(run, opt, out):
    """Boot QEMU, stream the serial log, judge the KTAP and the way it ended."""
    argv = qemu_argv(run, opt)
    needs = run.get("needs")
    if needs is None:
        needs = [opt.path("{image}", run)] + \
            [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "-dtb"]
    missing = [opt.path(n, run) for n in needs if not os.path.exists(opt.path(n, run))]
    if missing:
        if run.get("optional"):
            out.skip_reason = "missing " + ", ".join(missing)
        else:
            out.problems.append("missing " + ", ".join(missing) + " (make all builds it)")
        return
    parser = ktap.Parser()
    panic = []

    def on_line(line):
        parser.feed(line)
        if not panic and any(m in line for m in QEMU_PANIC_MARKS):
            panic.append(line.strip())
            return PANIC_GRACE
        if parser.done():
            return POWEROFF_GRACE
        return None

    timeout, idle = opt.timeouts(run)
    p = Process(argv, out.log, opt.verbose, timeout, idle, on_line).run()
    out.tail = list(p.tail)
    # How the run ended first (the cause), then what that did to the KTAP.
    if panic and run.get("expect_panic"):
        pass  # the report is judged by check_log
    elif run.get("expect_panic"):
        out.problems.append("expected a panic, saw none")
    elif panic:
        out.problems.append("panic: " + panic[0])  # a kill after it is no news
    elif p.hang or p.stopped:
        if parser.done():
            out.problems.append("all results in, but QEMU did not exit (no PSCI SYSTEM_OFF?)")
        else:
            out.problems.append("hang: %s" % (p.hang or p.stopped))
    elif p.returncode == 127:
        out.problems.append(p.tail[-1] if p.tail else "cannot run QEMU")
    elif p.returncode != 0:
        out.problems.append("QEMU exited with status %d" % p.returncode)
    if not run.get("expect_panic"):
        out.add_summary(parser.finish())
    check_log(run, opt, out)


def check_log(run, opt, out):
    """The run's own checks on its log: expected lines, the topology lines."""
    import re
    with open(out.log, errors="replace") as f:
        lines = [l.rstrip("\r\n") for l in f]
    # The debug build's reports outside the cases that provoke them (kernel/main.c).
    for l in lines:
        m = re.search(r"selftest: .*\b(\d+) unexpected debug report", l)
        if m and int(m.group(1)) and not run.get("allow_reports"):
            bug = [x for x in lines if x.startswith("BUG: ")][:DIAG_LINES]
            out.problems.append("%s unexpected debug report(s) (BUG: lines)" % m.group(1))
            out.failures.append(ktap.Failure(run["name"] + ".debug-reports", l.strip(), bug))
    for name, rx in run.get("expect", []):
        if any(re.search(rx, l) for l in lines):
            out.passed += 1
        else:
            out.failed += 1
            out.failures.append(ktap.Failure(run["name"] + "." + name,
                                             "no line matches " + rx, []))
    dtb = run.get("topology_of")
    if dtb:
        dtb = opt.path(dtb)
        tool = os.path.join(opt.build, "host", "topology")
        res = subprocess.run([tool, dtb], capture_output=True, text=True)
        want = [l for l in res.stdout.splitlines() if l.startswith("topology: ")]
        got = [l for l in lines if l.startswith("topology: ")]
        if want and got == want:
            out.passed += 1
        else:
            out.failed += 1
            diff = [l for l in got if l not in want][:4] + \
                ["missing: " + l for l in want if l not in got][:4]
            out.failures.append(ktap.Failure(run["name"] + ".topology-matches-host",
                                             "kernel and %s %s differ" % (tool, dtb), diff))


class _Tee:
    def __init__(self, *streams):
        self.streams = streams

    def write(self, s):
        for st in self.streams:
            st.write(s)

    def flush(self):
        for st in self.streams:
            st.flush()


def kind_pyunit(run, opt, out):
    """Python unit tests (the KTAP parser's own), run in this process."""
    os.makedirs(os.path.dirname(out.log), exist_ok=True)
    with open(out.log, "w") as log:
        stream = _Tee(log, sys.stdout) if opt.verbose else log
        try:
            suite = unittest.defaultTestLoader.discover(
                os.path.dirname(run["path"]), pattern=os.path.basename(run["path"]))
        except Exception:
            out.problems.append("cannot load %s: %s" % (run["path"],
                                                        traceback.format_exc(limit=1)))
            return
        res = unittest.TextTestRunner(stream=stream, verbosity=2).run(suite)
    bad = res.failures + res.errors + [(t, "unexpected success") for t in
                                       res.unexpectedSuccesses]
    out.skipped = len(res.skipped) + len(res.expectedFailures)
    out.failed = len(bad)
    out.passed = res.testsRun - out.failed - out.skipped
    for test, text in bad:
        out.failures.append(ktap.Failure(test.id(), "", text.strip().splitlines()))
    if res.testsRun == 0:
        out.problems.append("no tests found in %s" % run["path"])


def kind_shell(run, opt, out):
    """Boot to the shell and type the script, a line once the prompt is back;
    each step is a test case judged on the output up to the next prompt."""
    import re
    argv = qemu_argv(run, opt)
    missing = [a for a in (opt.path("{image}", run), opt.path(BL44_DTB))
               if not os.path.exists(a)]
    if missing:
        out.problems.append("missing " + ", ".join(missing) + " (make all builds it)")
        return
    timeout, idle = opt.timeouts(run)
    os.makedirs(os.path.dirname(out.log), exist_ok=True)
    log = open(out.log, "wb")
    log.write(("# " + " ".join(shlex.quote(a) for a in argv) + "\n").encode())
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout.fileno(), selectors.EVENT_READ)
    buf = [""]         # output not yet consumed by a wait
    deadline = time.monotonic() + timeout

    def wait_for(rx):
        """Output up to and including the first match of rx, or None on EOF/hang."""
        last = time.monotonic()
        while True:
            m = re.search(rx, buf[0], re.M)
            if m:
                got, buf[0] = buf[0][:m.end()], buf[0][m.end():]
                return got
            now = time.monotonic()
            if now > deadline or now - last > idle:
                return None
            if not sel.select(min(1.0, deadline - now)):
                continue
            data = os.read(proc.stdout.fileno(), 65536)
            if not data:
                return None
            last = time.monotonic()
            log.write(data)
            log.flush()
            if opt.verbose:
                sys.stdout.buffer.write(data)
                sys.stdout.flush()
            buf[0] += data.decode("utf-8", "replace")

    def send(keys):
        proc.stdin.write(keys.encode())
        proc.stdin.flush()

    pids = {}
    try:
        if wait_for(re.escape(SHELL_PROMPT)) is None:
            out.problems.append("no shell prompt %r" % SHELL_PROMPT)
            return
        for name, keys, expects in run["script"]:
            for task, pid in pids.items():
                keys = keys.replace("{pid:%s}" % task, pid)
            if "{pid:" in keys:
                m = re.search(r"\{pid:(\w+)\}", keys)
                out.failed += 1
                out.failures.append(ktap.Failure("shell." + name,
                                                 "no pid of %s seen in ps" % m.group(1), []))
                continue
            text = ""
            for part in re.split(r"(\{(?:wait|sleep):[^}]*\})", keys):
                if part.startswith("{wait:"):
                    got = wait_for(part[6:-1])
                    text += got or ""
                    if got is None:
                        break
                elif part.startswith("{sleep:"):
                    time.sleep(float(part[7:-1]))
                elif part:
                    send(part)
            final = name == "poweroff"
            got = wait_for(r"\Z(?!x)x" if final else re.escape(SHELL_PROMPT))
            text += (got if got is not None else buf[0])
            lines = [l.rstrip("\r") for l in text.split("\n")]
            for l in lines:
                m = re.match(r"^ +(\d+) (\w+) ", l)
                if m:
                    pids[m.group(2)] = m.group(1)
                m = re.match(r"^spawned (\w+) pid (\d+)", l)
                if m:
                    pids[m.group(1)] = m.group(2)
            judge_step(out, name, keys, expects, text,
                       ["the prompt back"] if got is None and not final else [])
            if got is None and not final:
                out.problems.append("the shell stopped answering after step %s" % name)
                return
        try:
            rc = proc.wait(timeout=POWEROFF_GRACE)
            if rc != 0:
                out.problems.append("QEMU exited with status %d" % rc)
        except subprocess.TimeoutExpired:
            out.problems.append("QEMU did not exit after poweroff")
    finally:
        kill_group(proc)
        sel.close()
        proc.stdout.close()
        try:
            proc.stdin.close()
        except OSError:
            pass
        log.close()
        out.tail = [l for l in buf[0].splitlines() if l.strip()][-TAIL_LINES:]


def kind_script(run, opt, out):
    """A shell script typed by the kernel itself (boot_script), its steps judged as
    kind shell's; with "excerpts": each excerpt of the run's doc (docs/labs/) compared
    with this session (tools/labs.py), one case each."""
    import labs
    text = boot_script(run, opt, out)
    if text is None:
        return
    judge_script(run, text, out)
    for name, diag in labs.compare(run, text) if run.get("excerpts") else []:
        if diag is None:
            out.passed += 1
        else:
            out.failed += 1
            out.failures.append(ktap.Failure("excerpt." + name, "%s: block %s is not this "
                                             "run's output (make labs)" % (run["doc"], name),
                                             diag))


def kind_skip(run, opt, out):
    out.skip_reason = run["reason"]


KINDS = {
    "skip": kind_skip,
    "pyunit": kind_pyunit,
    "command": kind_command,
    "unittests": kind_unittests,
    "fuzz": kind_fuzz,
    "qemu": kind_qemu,
    "shell": kind_shell,
    "script": kind_script,
}
EXPANDERS = {"fuzz": expand_fuzz}


# ---- report ------------------------------------------------------------------------------

def describe(run, opt):
    kind = run["kind"]
    if kind == "skip":
        return "(skipped: %s)" % run["reason"]
    if kind == "script":
        return " ".join(shlex.quote(a) for a in qemu_argv(dict(run, append="script"), opt)) + \
            " -initrd %s" % os.path.join(opt.build, "test-logs", run["name"] + ".script")
    if kind in ("qemu", "shell"):
        return " ".join(shlex.quote(a) for a in qemu_argv(run, opt))
    if kind == "fuzz":
        return "%s -runs=%d -max_total_time=%d" % (run["binary"], run.get("runs", 20000),
                                                  run.get("max_total_time", 120))
    if kind in ("command", "unittests"):
        extra = " --dtb <each build/dts/*.dtb and QEMU's own>" if kind == "unittests" else ""
        return " ".join(opt.path(a) for a in run["argv"]) + extra
    return "python3 -m unittest " + run.get("path", "")


def selected_runs(opt, pattern):
    runs = []
    for run in RUNS:
        expand = EXPANDERS.get(run["kind"])
        for r in (expand(run, opt) if expand else [run]):
            if pattern is None or pattern in r["name"]:
                runs.append(r)
    return runs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="stream every run's output to the terminal")
    ap.add_argument("-k", metavar="NAME", dest="pattern",
                    help="only the runs whose name contains NAME")
    ap.add_argument("--list", action="store_true", help="list the runs and exit")
    ap.add_argument("--build", default="build", help="build directory (default: build)")
    ap.add_argument("--timeout", type=float, help="override every run's hang timeout (s)")
    ap.add_argument("--idle-timeout", type=float,
                    help="override every run's no-output timeout (s)")
    ap.add_argument("--fuzz-time", type=int, metavar="S",
                    help="fuzzers: S seconds each, no run limit, corpus kept in "
                         "build/fuzz-corpus/ (make fuzz)")
    args = ap.parse_args(argv)
    os.chdir(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    opt = Options(args)

    runs = selected_runs(opt, args.pattern)
    if not runs:
        print("runtests: no run matches %r (see --list)" % args.pattern, file=sys.stderr)
        return 2
    if args.list:
        for r in runs:
            print("%-24s %s" % (r["name"], describe(r, opt)))
        return 0

    width = max(len(r["name"]) for r in runs)
    live = sys.stdout.isatty() and not opt.verbose
    passed = failed = skipped = 0
    for run in runs:
        out = Outcome(run["name"], opt.log_path(run["name"]))
        if opt.verbose:
            print("==== %s: %s" % (run["name"], describe(run, opt)), flush=True)
        elif live:
            print("....  %s\r" % run["name"], end="", flush=True)
        start = time.monotonic()
        KINDS[run["kind"]](run, opt, out)
        out.seconds = time.monotonic() - start
        if live:
            print("\r\033[K", end="")
        report(out, width, opt.verbose)
        sys.stdout.flush()
        passed += out.passed
        failed += out.total_failed
        skipped += out.skipped
    if skipped:
        print("(%d skipped)" % skipped)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("\nruntests: interrupted", file=sys.stderr)
        sys.exit(130)
