"""ktap.py - a KTAP version 1 parser for the host test runner (tools/runtests.py).

Owns: turning lines of output (a serial log, a host program's stdout) into a
tree of results, counting leaf test cases (passed / failed / skipped) and
naming the failures with the diagnostic lines printed before them.
Does not own: running anything, or judging panics and hangs (runtests.py).

The format is Linux's Documentation/dev-tools/ktap.rst, as KUnit prints it:

    KTAP version 1
    1..2
        KTAP version 1
        # Subtest: boot
        1..2
        # boot_el: entered at EL2
        ok 1 boot_el
        ok 2 boot_dt # SKIP no /chosen
    ok 1 boot
        ...
    not ok 2 smp

Subtests nest by indentation (4 spaces a level, but any deeper indentation is
accepted). Lines that are not KTAP (boot messages, other CPUs' printk) are
kept as diagnostics of the case that is running and change nothing else.
Only leaves are counted: a suite line adds a failure of its own only when it
says "not ok" although none of its cases failed.

Run as a script, it parses a file (or stdin) and prints the summary.
"""

import collections
import re
import sys

VERSION_RE = re.compile(r"^K?TAP version (\d+)$")
PLAN_RE = re.compile(r"^1\.\.(\d+)(?:\s+#.*)?$")
# The number is required (KTAP): a log line saying "ok" is not a result.
RESULT_RE = re.compile(r"^(not ok|ok)\s+(\d+)(?=\s|$)\s*(.*)$")
SUBTEST_RE = re.compile(r"^#\s*Subtest:\s*(.*)$")
BAIL_RE = re.compile(r"^Bail out!(.*)$")
# A directive follows the first '#' that starts a word ("ok 3 name # SKIP why").
DIRECTIVE_RE = re.compile(r"^(.*?)(?:(?:^|\s)#\s*(.*))?$")

# Lines of diagnostics kept per case: enough for a backtrace, bounded for
# a runaway log.
MAX_DIAG_LINES = 200


class Result:
    """One result line: `ok N name # DIRECTIVE reason`, maybe with a subtest."""

    def __init__(self, ok, number, name, directive=None, reason="", diagnostics=(),
                 subtest=None, synthetic=False):
        self.ok = ok
        self.number = number
        self.name = name
        self.directive = directive  # "SKIP", "TODO", "XFAIL", "TIMEOUT", "ERROR" or None
        self.reason = reason
        self.diagnostics = list(diagnostics)
        self.subtest = subtest  # a Subtest, or None for a leaf
        self.synthetic = synthetic  # made up for a subtest that never got its result line

    @property
    def status(self):
        """'pass', 'fail' or 'skip' (an expected failure counts as a skip)."""
        if self.directive == "SKIP":
            return "skip"
        if self.directive in ("TODO", "XFAIL") and not self.ok:
            return "skip"
        return "pass" if self.ok else "fail"

    def __repr__(self):
        return "Result(%r %r %s)" % (self.name, self.number, self.status)


class Subtest:
    """A KTAP document or a nested subtest: its plan and its results."""

    def __init__(self, indent, name=""):
        self.indent = indent
        self.name = name
        self.version = None
        self.plan = None
        self.results = []
        self.pending = collections.deque(maxlen=MAX_DIAG_LINES)  # lines since the last result
        self.child = None  # a closed subtest waiting for its result line

    def has_content(self):
        return self.plan is not None or bool(self.results) or self.child is not None

    def reported(self):
        """Results the output printed (not the made-up ones)."""
        return [r for r in self.results if not r.synthetic]


class Failure:
    """A failed case: dotted path name, its result line's reason, the lines before it."""

    def __init__(self, name, reason, diagnostics):
        self.name = name
        self.reason = reason
        self.diagnostics = diagnostics

    def __repr__(self):
        return "Failure(%r)" % self.name


class Summary:
    """What a parse found. `problems` are protocol failures (no plan, missing
    results, bail out); `warnings` are oddities that fail nothing."""

    def __init__(self):
        self.documents = []
        self.passed = 0
        self.failed = 0
        self.skipped = 0
        self.failures = []
        self.problems = []
        self.warnings = []

    @property
    def version_seen(self):
        return bool(self.documents)

    @property
    def plan_seen(self):
        return any(d.plan is not None for d in self.documents)

    @property
    def ok(self):
        return self.failed == 0 and not self.problems

    def __str__(self):
        return "%d passed, %d failed, %d skipped" % (self.passed, self.failed, self.skipped)


def _indent_of(line):
    return len(line) - len(line.lstrip(" \t"))


def _parse_result(text):
    m = RESULT_RE.match(text)
    if not m:
        return None
    ok = m.group(1) == "ok"
    number = int(m.group(2))
    d = DIRECTIVE_RE.match(m.group(3))
    name = d.group(1).strip()
    if name.startswith("- "):  # TAP style "ok 1 - name"
        name = name[2:].strip()
    directive, reason = None, ""
    comment = d.group(2)
    if comment is not None:
        word, _, rest = comment.partition(" ")
        if word.upper() in ("SKIP", "TODO", "XFAIL", "TIMEOUT", "ERROR"):
            directive, reason = word.upper(), rest.strip()
        else:
            reason = comment.strip()
    return Result(ok, number, name, directive, reason)


class Parser:
    """Streaming parser: feed() lines as they arrive, then finish()."""

    def __init__(self):
        self.documents = []
        self.stack = []  # open subtests, outermost first; empty outside a document
        self.problems = []
        self.warnings = []

    # -- feeding -----------------------------------------------------------------------

    def feed(self, line):
        """Take one line of output (with or without its newline)."""
        line = line.rstrip("\r\n").expandtabs(8).rstrip()
        text = line.strip()
        indent = _indent_of(line)

        if VERSION_RE.match(text):
            self._version(indent, text)
        elif not self.stack or indent < self.stack[0].indent:
            self._unknown(line)  # outside any document: not ours
        elif PLAN_RE.match(text):
            frame = self._frame_at(indent)
            if frame.plan is not None:
                self.warnings.append("%s: second plan line %r" % (self._path(frame), text))
            else:
                frame.plan = int(PLAN_RE.match(text).group(1))
        elif SUBTEST_RE.match(text) and indent > self.stack[0].indent:
            name = SUBTEST_RE.match(text).group(1).strip()
            top = self.stack[-1]
            if indent == top.indent and len(self.stack) > 1 and not top.has_content() \
                    and not top.name:
                top.name = name  # "KTAP version 1" then "# Subtest: name"
            else:
                self._frame_at(indent, new=True).name = name
        elif RESULT_RE.match(text):
            self._result(indent, _parse_result(text))
        elif BAIL_RE.match(text):
            self.problems.append("bail out:%s" % BAIL_RE.match(text).group(1))
            self._unknown(line)
        else:
            self._unknown(line)

    def feed_text(self, text):
        for line in text.splitlines():
            self.feed(line)

    def _unknown(self, line):
        """A diagnostic or a foreign line: belongs to whatever case is running."""
        text = line.strip()
        if not text:
            return
        if self.stack:
            self.stack[-1].pending.append(text)

    def _version(self, indent, text):
        root = self.stack[0] if self.stack else None
        if root is None or indent < root.indent or \
                (indent == root.indent and root.has_content()):
            if root is not None:
                self.problems.append("KTAP output restarted (%r again): did the kernel reboot?"
                                     % text)
                self._close_all()
            doc = Subtest(indent)
            doc.version = text
            self.documents.append(doc)
            self.stack = [doc]
        elif indent == root.indent:
            self.warnings.append("repeated %r line" % text)
        else:
            top = self.stack[-1]
            if indent == top.indent and top is not root and not top.has_content() \
                    and top.version is None:
                top.version = text  # "# Subtest: name" came first (older KUnit)
            else:
                self._frame_at(indent, new=True).version = text

    def _frame_at(self, indent, new=False):
        """The subtest a structural line at `indent` belongs to, opening or
        closing subtests as the indentation says. `new`: the line starts a
        subtest (version or Subtest header), so an open one at the same depth
        that already has content is over."""
        while len(self.stack) > 1 and self.stack[-1].indent > indent:
            self._pop()
        top = self.stack[-1]
        if new and top.indent == indent and len(self.stack) > 1 and top.has_content():
            self._pop()
            top = self.stack[-1]
        if indent > top.indent:
            if top.child is not None:
                self._orphan(top)
            frame = Subtest(indent)
            frame.pending.extend(top.pending)  # lines printed as the subtest started
            top.pending.clear()
            self.stack.append(frame)
            return frame
        return top

    def _pop(self):
        """Close the innermost subtest; it waits for its result line in the parent."""
        frame = self.stack.pop()
        parent = self.stack[-1]
        if parent.child is not None:
            self._orphan(parent)
        parent.child = frame
        parent.pending.extend(frame.pending)  # lines after its last case
        frame.pending.clear()

    def _orphan(self, frame):
        """frame.child never got a result line: keep its cases, flag it."""
        child = frame.child
        frame.child = None
        name = child.name or "(unnamed subtest)"
        self.problems.append("%s: subtest has no result line (output ended or was cut)"
                             % self._path(frame, name))
        frame.results.append(Result(False, None, name, subtest=child, synthetic=True))

    def _result(self, indent, res):
        frame = self._frame_at(indent)
        if frame.child is not None:
            res.subtest = frame.child
            frame.child = None
            if not res.subtest.name:
                res.subtest.name = res.name
        res.diagnostics = list(frame.pending)
        frame.pending.clear()
        expected = len(frame.reported()) + 1
        if res.number != expected:
            self.warnings.append("%s: result %d where %d was expected"
                                 % (self._path(frame, res.name), res.number, expected))
        frame.results.append(res)

    def _close_all(self):
        while len(self.stack) > 1:
            self._pop()
        if self.stack and self.stack[0].child is not None:
            self._orphan(self.stack[0])
        self.stack = []

    def _path(self, frame, name=None):
        names = [f.name for f in self.stack[1:self.stack.index(frame) + 1]] \
            if frame in self.stack else [frame.name]
        if name:
            names.append(name)
        return ".".join(n for n in names if n) or "(top level)"

    # -- results ------------------------------------------------------------------------

    def done(self):
        """True once the first document printed as many results as it planned."""
        if not self.documents:
            return False
        doc = self.documents[0]
        return doc.plan is not None and len(doc.reported()) >= doc.plan

    def finish(self):
        """Close everything still open and count. Returns a Summary."""
        self._close_all()
        s = Summary()
        s.documents = self.documents
        s.problems = list(self.problems)
        s.warnings = list(self.warnings)
        if not self.documents:
            s.problems.append('no KTAP output ("KTAP version 1" line) seen')
        for doc in self.documents:
            if doc.plan is None:
                s.problems.append("no KTAP plan (1..N) line seen")
            _check_plans(doc, "", s)
            _count(doc.results, "", s)
        return s


def _check_plans(sub, path, s):
    got = len(sub.reported())
    where = path + ": " if path else ""
    if sub.plan is not None and got != sub.plan:
        s.problems.append("%splanned %d results, got %d" % (where, sub.plan, got))
    elif sub.plan is None and path:
        s.warnings.append("%sno plan line" % where)
    for r in sub.results:
        if r.subtest is not None:
            _check_plans(r.subtest, path + "." + r.name if path else r.name, s)


def _count(results, prefix, s):
    """Add leaf counts and failures of `results` into s; returns failures added."""
    added = 0
    for r in results:
        name = prefix + "." + r.name if prefix else r.name
        if r.subtest is not None and r.subtest.results:
            below = _count(r.subtest.results, name, s)
            added += below
            if r.status == "fail" and below == 0 and not r.synthetic:
                s.failed += 1  # the suite itself failed (e.g. its init)
                s.failures.append(Failure(name, r.reason, r.diagnostics))
                added += 1
        elif r.synthetic:
            continue  # an empty subtest cut short: the problem says so
        elif r.status == "pass":
            s.passed += 1
        elif r.status == "skip":
            s.skipped += 1
        else:
            s.failed += 1
            s.failures.append(Failure(name, r.reason, r.diagnostics))
            added += 1
    return added


def parse(text):
    """Parse a whole output (a string or an iterable of lines)."""
    p = Parser()
    lines = text.splitlines() if isinstance(text, str) else text
    for line in lines:
        p.feed(line)
    return p.finish()


def main(argv):
    if len(argv) > 1:
        with open(argv[1], errors="replace") as f:
            data = f.read()
    else:
        data = sys.stdin.read()
    s = parse(data)
    for f in s.failures:
        for d in f.diagnostics[-10:]:
            print("    " + d)
        print("not ok " + f.name + (" # " + f.reason if f.reason else ""))
    for p in s.problems:
        print("problem: " + p)
    for w in s.warnings:
        print("warning: " + w)
    print(s)
    return 0 if s.ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
