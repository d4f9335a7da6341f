"""qemu_run.py - what tools/runtests.py (`make test`) and tools/labs.py (`make labs`) share.

Owns: one run's Outcome and the Options every run reads; Process (a command in its own
process group, its output to a log, hangs detected, a callback per line); a run's QEMU
command line (qemu_argv); a script run booted with its steps in the initrd (boot_script)
and its steps judged (judge_step, judge_script); the report of one run. Not the table of
runs (tests/runs.py), the kinds of run and the totals (tools/runtests.py), nor the labs'
excerpts (tools/labs.py). It imports neither of the two, so both import it without a
circle.
"""

import collections
import os
import selectors
import shlex
import signal
import subprocess
import sys
import time

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, TOOLS)
sys.path.insert(0, os.path.join(os.path.dirname(TOOLS), "tests"))
import ktap  # noqa: E402
from runs import BL44_DTB, QEMU_SELFTEST  # noqa: E402

DEFAULT_TIMEOUT = 600       # s of host time for a whole run: a hang detector only
DEFAULT_IDLE_TIMEOUT = 180  # s without a byte of output
QEMU_PANIC_MARKS = ("Kernel panic", "PANIC", "Unhandled exception")
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
                kill_group(proc)
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
                kill_group(proc)
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
            kill_group(proc)
            self.returncode = proc.wait()
        if self.hang or self.stopped:
            log.write(("\n# runtests: killed: %s\n" % (self.hang or self.stopped)).encode())


def kill_group(proc):
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


# ---- QEMU and script runs ----------------------------------------------------------------

def qemu_argv(run, opt):
    boot = run.get("boot", ["-kernel", "{image}"])
    mem = ["-m", run.get("mem", "512M")]
    argv = opt.qemu + [opt.path(a, run) for a in run["qemu"] + QEMU_SELFTEST + mem + boot]
    append = run.get("append", "selftest")
    if append is not None:
        argv += ["-append", append]
    return argv


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


# ---- report ------------------------------------------------------------------------------

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
