#!/usr/bin/env python3
"""runtests.py - the host test runner behind `make test`.

Owns: running each test run of the table (RUNS in tests/runs.py: a host program,
a fuzzer, a QEMU boot with `selftest`, a shell session typed or read by the kernel
from its initrd, the labs' excerpts compared through tools/labs.py), keeping its output in
build/test-logs/NAME.log, judging it through its KTAP output (tools/ktap.py)
and printing one line per run, the failures, and last the line
`N passed, N failed` (leaf test cases over all runs). Exits non-zero on any
failure. Does not own building anything (the Makefile runs `make all fuzzers`
first) or installing tools (tools/deps.sh).

A run fails on a `not ok` case, and also -- counted as one more failure -- on
a panic line, on missing KTAP (no plan, fewer results than planned), on a
non-zero exit of QEMU, or on a hang. Timeouts only detect hangs: host
wall-clock time is never asserted.

    tools/runtests.py [-v] [-k NAME] [--list] [--build DIR]
    QEMU="qemu-system-aarch64 -d guest_errors" tools/runtests.py -k bl44 -v
"""

import argparse
import collections
import glob
import os
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import time
import traceback
import unittest

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
sys.path.insert(0, os.path.join(os.path.dirname(TOOLS), "tests"))
import ktap  # noqa: E402
from runs import BL44_DTB, QEMU_DTBS, QEMU_SELFTEST, RUNS  # noqa: E402  (the table)

DEFAULT_TIMEOUT = 600       # s of host time for a whole run: a hang detector only
DEFAULT_IDLE_TIMEOUT = 180  # s without a byte of output
PANIC_GRACE = 10            # s left to a panicking kernel to finish its report
POWEROFF_GRACE = 60         # s for QEMU to exit once every planned result is in
QEMU_PANIC_MARKS = ("Kernel panic", "PANIC", "Unhandled exception")
SANITIZER_MARKS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:")
TAIL_LINES = 15             # log lines shown after a hang or crash
DIAG_LINES = 8              # diagnostic lines shown before a failed case (all with -v)


class Outcome:
    """What one run produced: leaf counts, failed cases, run-level problems."""

    def __init__(self, name, log):
        self.name = name
        self.log = log
        self.passed = self.failed = self.skipped = 0
        self.failures = []    # ktap.Failure
        self.problems = []    # strings: each makes the run fail (once in the count)
        self.notes = []       # strings: said, but fail nothing
        self.tail = []        # last lines of the log, shown with a problem
        self.skip_reason = None
        self.seconds = 0.0

    def add_summary(self, s):
        """Add a ktap.Summary: its counts, failures and protocol problems."""
        self.passed += s.passed
        self.failed += s.failed
        self.skipped += s.skipped
        self.failures += s.failures
        self.problems += s.problems

    @property
    def total_failed(self):
        """Failed cases, plus one when the run itself went wrong."""
        return self.failed + (1 if self.problems else 0)


class Options:
    def __init__(self, args):
        self.build = args.build
        self.verbose = args.verbose
        self.timeout = args.timeout
        self.idle_timeout = args.idle_timeout
        self.fuzz_time = getattr(args, "fuzz_time", None)
        self.qemu = shlex.split(os.environ.get("QEMU", "qemu-system-aarch64"))

    def path(self, s, run=None):
        image = "{build}/Image" if run and run.get("release") else "{build}/debug/Image"
        return s.replace("{image}", image).replace("{build}", self.build)

    def log_path(self, name):
        return os.path.join(self.build, "test-logs", name + ".log")

    def timeouts(self, run):
        return (self.timeout or run.get("timeout", DEFAULT_TIMEOUT),
                self.idle_timeout or run.get("idle_timeout", DEFAULT_IDLE_TIMEOUT))


# ---- running a process -------------------------------------------------------------------

class Process:
    """Runs argv in its own process group with output (stdout and stderr) to
    a log file, the terminal (-v) and a per-line callback. The callback may
    return a number of seconds: the process gets at most that long to end."""

    def __init__(self, argv, log, verbose, timeout, idle_timeout, on_line=None):
        self.argv, self.log_path, self.verbose = argv, log, verbose
        self.timeout, self.idle_timeout = timeout, idle_timeout
        self.on_line = on_line or (lambda line: None)
        self.tail = collections.deque(maxlen=TAIL_LINES)
        self.returncode = None
        self.hang = None      # why it was killed for being stuck, or None
        self.stopped = None   # why it was killed at the end of a grace the callback set

    def run(self):
        os.makedirs(os.path.dirname(self.log_path), exist_ok=True)
        with open(self.log_path, "wb") as log:
            log.write(("# " + " ".join(shlex.quote(a) for a in self.argv) + "\n").encode())
            try:
                proc = subprocess.Popen(self.argv, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        start_new_session=True)
            except OSError as e:
                self.returncode = 127
                self.tail.append("cannot run %s: %s" % (self.argv[0], e))
                log.write((self.tail[-1] + "\n").encode())
                return self
            try:
                self._pump(proc, log)
            except BaseException:
                _kill_group(proc)
                raise
            finally:
                proc.stdout.close()
        return self

    def _pump(self, proc, log):
        start = time.monotonic()
        last_output = start
        end_by = start + self.timeout
        grace_why = None  # set once the callback shortened end_by
        fd = proc.stdout.fileno()
        sel = selectors.DefaultSelector()
        sel.register(fd, selectors.EVENT_READ)
        partial = b""
        while True:
            now = time.monotonic()
            idle_end = last_output + self.idle_timeout
            wait = min(end_by, idle_end) - now
            if wait <= 0:
                if end_by <= idle_end and grace_why is not None:
                    self.stopped = grace_why  # the caller asked for it: not a hang
                elif end_by <= idle_end:
                    self.hang = "still running after %d s" % self.timeout
                else:
                    self.hang = "no output for %d s" % self.idle_timeout
                _kill_group(proc)
                break
            if not sel.select(wait):
                continue
            data = os.read(fd, 65536)
            if not data:
                break
            last_output = time.monotonic()
            log.write(data)
            log.flush()
            if self.verbose:
                sys.stdout.buffer.write(data)
                sys.stdout.flush()
            partial += data
            lines = partial.split(b"\n")
            partial = lines.pop()
            if len(partial) > 65536:  # a runaway line: judge it in pieces
                lines.append(partial)
                partial = b""
            for raw in lines:
                line = raw.decode("utf-8", "replace").rstrip("\r")
                if line.strip():
                    self.tail.append(line)
                grace = self.on_line(line)
                if grace is not None and last_output + grace < end_by:
                    end_by = last_output + grace
                    grace_why = "%d s after %r" % (grace, line.strip())
        sel.close()
        if partial:
            line = partial.decode("utf-8", "replace").rstrip("\r")
            self.tail.append(line)
            self.on_line(line)
        try:
            self.returncode = proc.wait(timeout=max(1, end_by - time.monotonic()))
        except subprocess.TimeoutExpired:
            if grace_why is not None:
                self.stopped = grace_why
            else:
                self.hang = "closed its output but did not exit"
            _kill_group(proc)
            self.returncode = proc.wait()
        if self.hang or self.stopped:
            log.write(("\n# runtests: killed: %s\n" % (self.hang or self.stopped)).encode())


def _kill_group(proc):
    """SIGTERM the whole process group, then SIGKILL what is left."""
    for sig, wait in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            continue


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


def qemu_argv(run, opt):
    boot = run.get("boot", ["-kernel", "{image}"])
    mem = ["-m", run.get("mem", "512M")]
    argv = opt.qemu + [opt.path(a, run) for a in run["qemu"] + QEMU_SELFTEST + mem + boot]
    append = run.get("append", "selftest")
    if append is not None:
        argv += ["-append", append]
    return argv


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


SHELL_PROMPT = "littlebig> "


def judge_step(out, name, keys, expects, text, bad):
    """One shell step, a test case: its output (text) must match every regex of expects,
    match none of those starting with "!", satisfy each callable (tests/runs.py: lab
    checks get the step's lines and return None when satisfied, else what they missed),
    and hold no panic. bad: what already went wrong."""
    import re
    lines = [l.rstrip("\r") for l in text.split("\n")]
    bad = list(bad) + [b for b in (f(lines) for f in expects if callable(f)) if b is not None]
    rxs = [rx for rx in expects if not callable(rx)]
    bad += [rx for rx in rxs if rx.startswith("!") and
            any(re.search(rx[1:], l) for l in lines)]
    bad += [rx for rx in rxs if not rx.startswith("!") and
            not any(re.search(rx, l) for l in lines)]
    if any(mark in text for mark in QEMU_PANIC_MARKS):
        bad.append("no panic")
    if bad:
        out.failed += 1
        out.failures.append(ktap.Failure("shell." + name, "keys %r: no line matches %s"
                                         % (keys, bad), lines[-DIAG_LINES:]))
    else:
        out.passed += 1


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
        _kill_group(proc)
        sel.close()
        proc.stdout.close()
        try:
            proc.stdin.close()
        except OSError:
            pass
        log.close()
        out.tail = [l for l in buf[0].splitlines() if l.strip()][-TAIL_LINES:]


def script_keys(script):
    """A shell script's keys as the kernel reads them from the initrd (boot option
    `script`): "{pid:NAME}" becomes NAME (the shell takes a task's name where it
    takes a pid); one line per step, nothing timed by the host."""
    import re
    keys = ""
    for name, k, _ in script:
        if "{wait:" in k or "{sleep:" in k or k.count("\r") != 1 or not k.endswith("\r"):
            raise ValueError("step %s: a script step is one line ending in \\r, "
                             "without {wait:} or {sleep:}" % name)
        keys += re.sub(r"\{pid:(\w+)\}", r"\1", k)
    return keys


def boot_script(run, opt, out):
    """Boot with the run's script in the initrd (the shell reads it as if typed; no
    host input, so under -icount the same Image prints the same session); the log's
    text once QEMU exited after the last step (poweroff), or None and a problem."""
    path = os.path.join(opt.build, "test-logs", run["name"] + ".script")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(script_keys(run["script"]))
    argv = qemu_argv(dict(run, append="script"), opt) + ["-initrd", path]
    missing = [a for a in (opt.path("{image}", run), opt.path(BL44_DTB))
               if not os.path.exists(a)]
    if missing:
        out.problems.append("missing " + ", ".join(missing) + " (make all builds it)")
        return None
    timeout, idle = opt.timeouts(run)
    p = Process(argv, out.log, opt.verbose, timeout, idle).run()
    out.tail = list(p.tail)
    if p.hang:
        out.problems.append("hang: %s" % p.hang)
    elif p.returncode != 0:
        out.problems.append("QEMU exited with status %d" % p.returncode)
    with open(out.log, errors="replace") as f:
        text = f.read()
    return None if out.problems else text


def judge_script(run, text, out):
    """Each step of a script run, judged on its output (up to the next prompt)."""
    chunks = text.split(SHELL_PROMPT)[1:]
    for i, (name, keys, expects) in enumerate(run["script"]):
        if i < len(chunks):
            judge_step(out, name, keys, expects, chunks[i], [])
        else:
            judge_step(out, name, keys, expects, "", ["output (the shell stopped before)"])


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


def report(out, width, verbose):
    if out.skip_reason:
        print("SKIP  %-*s  %s" % (width, out.name, out.skip_reason))
        return
    status = "FAIL" if out.total_failed else "PASS"
    counts = "%d passed, %d failed" % (out.passed, out.total_failed)
    if out.skipped:
        counts += ", %d skipped" % out.skipped
    log = out.log if os.path.exists(out.log) else "(no log)"
    print("%s  %-*s  %-32s (%.1f s)  %s" % (status, width, out.name, counts, out.seconds, log))
    for n in out.notes:
        print("      note: " + n)
    for f in out.failures:
        # An excerpt's diff is shown whole (up to a screen): it is the report.
        keep = 40 if f.name.startswith("excerpt.") else DIAG_LINES
        diags = f.diagnostics if verbose else f.diagnostics[-keep:]
        for d in diags:
            print("          " + d)
        print("      not ok " + f.name + (" # " + f.reason if f.reason else ""))
    for p in out.problems:
        print("      " + p)
    if out.problems and not verbose and os.path.exists(out.log):
        if out.tail:
            print("      last lines of %s:" % out.log)
            for line in out.tail:
                print("          " + line)
        else:
            print("      (it printed nothing)")


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
