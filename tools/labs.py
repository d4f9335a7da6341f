#!/usr/bin/env python3
"""labs.py - the labs' excerpts (docs/labs/NN-*.md) made from real runs: `make labs`.

Owns: rendering a lab run's session into the excerpts its entry in tests/runs.py names
("excerpts"), finding each excerpt's block in the lab's markdown between the markers

    <!-- excerpt: NAME -->
    ```
    ...
    ```
    <!-- /excerpt -->

rewriting the blocks (`make labs`) and comparing them with a fresh run (`make test`,
through tools/runtests.py's kind "script"). The same for a lab's pictures (tests/runs.py
"pictures"): each is a timeline of `trace dump`s in the session, kept as the data it is
drawn from (docs/labs/img/NAME.csv, tools/trace.py timeline_csv) and as a PNG drawn from
that data (tools/trace.py csvplot, Debian's matplotlib); make test compares the data,
never the pixels. Not the runs themselves: a lab run boots
with its steps in the initrd (boot option `script`), so no host input reaches the
machine and, under -icount, the same Image prints the same session (tools/qemu_run.py:
boot_script).

    tools/labs.py [-k NAME] [--build DIR]     # make labs: boot each lab, rewrite its excerpts
"""

import argparse
import difflib
import importlib.util
import os
import re
import subprocess
import sys

PROMPT = "littlebig> "
BEGIN_RE = re.compile(r"^<!-- excerpt: ([\w-]+) -->$")
END = "<!-- /excerpt -->"
ANSI_RE = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# The pictures' data and drawing: tools/trace.py (loaded by path: "trace" is also a
# stdlib module), drawn by Debian's python3 (matplotlib: tools/deps.sh), as make trace does.
TOOLS = os.path.dirname(os.path.abspath(__file__))
PLOT_PYTHON = "/usr/bin/python3"
DIFF_LINES = 30  # of a picture's data diff (the rest is counted)
# Compared as written except these, blanked on both sides (an excerpt may show them):
# addresses move with the build's layout, not with the scheduler.
MASKS = [(re.compile(r"0x[0-9a-f]{8,}"), "0x<address>")]


def clean(line):
    return ANSI_RE.sub("", line.rstrip("\r")).rstrip()


def split_session(text):
    """A script run's log -> (boot lines, [(command, output lines)]): one entry per
    prompt, the command being what the shell echoed after it."""
    chunks = text.split(PROMPT)
    boot = [clean(l) for l in chunks[0].split("\n")]
    steps = []
    for c in chunks[1:]:
        lines = [clean(l) for l in c.split("\n")]
        steps.append((lines[0], lines[1:]))
    return boot, steps


def render(parts, boot, steps_by_name):
    """An excerpt's lines: for each (step, keep[, first]) part the prompt and command,
    then the step's first `first` output lines and those matching regex keep (all
    lines if neither is given), "..." where lines were left out. Step "boot" is what
    came before the first prompt (no prompt line)."""
    out = []
    for part in parts:
        step, keep, first = (part + (None,))[:3]
        if step == "boot":
            cmd, lines = None, boot
        elif step in steps_by_name:
            cmd, lines = steps_by_name[step]
        else:
            raise KeyError("no step %r in the run" % step)
        if cmd is not None:
            out.append(PROMPT + cmd)
        lines = [l for l in lines if l.strip()]
        gap = False
        every = keep is None and first is None
        for i, l in enumerate(lines):
            if every or i < (first or 0) or (keep is not None and re.search(keep, l)):
                if gap:
                    out.append("...")
                out.append(l)
                gap = False
            else:
                gap = True
        if gap:
            out.append("...")
    return out


def read_blocks(path):
    """{name: (first line index of the block's body, end index, body lines)} of a
    markdown file's excerpt blocks, and the file's lines."""
    with open(path) as f:
        lines = f.read().split("\n")
    blocks, i = {}, 0
    while i < len(lines):
        m = BEGIN_RE.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j] != END:
            j += 1
        body = lines[i + 1:j]
        if len(body) >= 2 and body[0].startswith("```") and body[-1] == "```":
            body = body[1:-1]
        blocks[m.group(1)] = (i + 1, j, body)
        i = j + 1
    return blocks, lines


def fresh_excerpts(run, log_text):
    """{name: lines} of the run's excerpts (tests/runs.py "excerpts") from its log."""
    boot, steps = split_session(log_text)
    names = [s[0] for s in run["script"]]
    by_name = dict(zip(names, steps))
    return {name: render(parts, boot, by_name) for name, parts in run["excerpts"].items()}


def masked(lines):
    out = []
    for l in lines:
        for rx, rep in MASKS:
            l = rx.sub(rep, l)
        out.append(l)
    return out


def compare(run, log_text):
    """[(excerpt name, None if the committed block equals this run's, else the
    diagnostics: a unified diff and the hint)]."""
    doc = run["doc"]
    try:
        blocks, _ = read_blocks(doc)
    except OSError as e:
        return [(name, ["cannot read %s: %s" % (doc, e)]) for name in run["excerpts"]]
    fresh = fresh_excerpts(run, log_text)
    res = []
    for name, lines in fresh.items():
        if name not in blocks:
            res.append((name, ["%s has no block <!-- excerpt: %s --> (add the markers, "
                               "then `make labs`)" % (doc, name)]))
            continue
        committed = blocks[name][2]
        if masked(committed) == masked(lines):
            res.append((name, None))
            continue
        diff = list(difflib.unified_diff(committed, lines, doc + " (committed)",
                                         "this run", lineterm="", n=1))
        res.append((name, diff + ["the excerpt differs from this run's output: `make labs` "
                                  "rewrites it (then check the lab's text still fits)"]))
    for name in blocks:
        if name not in fresh:
            res.append((name, ["%s has a block %r that run %s does not make"
                               % (doc, name, run["name"])]))
    return res + [("picture-" + n, d) for n, d in compare_pictures(run, log_text)]


def ktrace():
    """tools/trace.py as a module."""
    if "lb_trace" not in sys.modules:
        spec = importlib.util.spec_from_file_location("lb_trace", os.path.join(TOOLS, "trace.py"))
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        sys.modules["lb_trace"] = mod
    return sys.modules["lb_trace"]


def picture_paths(run, name):
    """(data CSV, PNG) of a lab picture: docs/labs/img/NAME.csv and .png."""
    base = os.path.join(os.path.dirname(run["doc"]), "img", name)
    return base + ".csv", base + ".png"


def fresh_pictures(run, log_text):
    """{name: CSV lines} of the run's pictures (tests/runs.py "pictures": {name: {"panels":
    [(step, title)], "power": bool, "eevdf": CPU}}): each panel is the first trace that
    step's output holds (a `trace dump`), titled with what it did (tools/trace.py half_stats); the
    clusters, capacities and (with "power") energy model come from the session's
    topology lines."""
    tr = ktrace()
    boot, steps = split_session(log_text)
    by_name = dict(zip([s[0] for s in run["script"]], steps))
    text = "\n".join(clean(l) for l in log_text.split("\n"))
    clusters = tr.clusters_from_log(text) or [tr.cpulist("0-3"), tr.cpulist("4-7")]
    out = {}
    for name, spec in run.get("pictures", {}).items():
        panels = []
        for step, title in spec["panels"]:
            if step not in by_name:
                raise KeyError("no step %r in the run" % step)
            blocks = tr.extract("\n".join(by_name[step][1]))
            if not blocks:
                raise KeyError("step %r printed no trace" % step)
            events, _ = tr.parse_lenient(blocks[0])
            if not events:
                raise KeyError("step %r's trace has no events" % step)
            panels.append(("%s\n%s" % (title, tr.half_stats(events, clusters)), events))
        model = tr.power_model_from_log(text) if spec.get("power") else None
        tls = tr.panel_timelines(panels, clusters, model, tr.capacities_from_log(text))
        cpu = spec.get("eevdf")  # that CPU's sched_eevdf picks: an EEVDF picture
        for _, tl in tls:
            tl["eevdf"] = {cpu: tl["eevdf"][cpu]} if cpu in tl["eevdf"] else {}
        csv, png = picture_paths(run, name)
        out[name] = tr.timeline_csv(
            tls, clusters, "%s: the data of %s, from run %s's trace dump(s) (tools/labs.py:\n"
            "make labs writes both; make test compares this file with a fresh run)"
            % (os.path.basename(csv), os.path.basename(png), run["name"]))
    return out


def read_lines(path):
    with open(path) as f:
        return f.read().split("\n")[:-1]


# A picture whose spec names interchangeable tasks ("alike": a regex, e.g. lab 9's three
# identical hogs) is compared up to them: under a loaded host a run has been seen to drift
# by a ns (QEMU's -icount is not record/replay), and a ns decides a tie between equal
# deadlines, so which hog runs may swap. Then the alike tasks' run rows are one task,
# merged where they follow each other, their EEVDF records are left out, and times and
# values may differ by PICTURE_TOL (ms; us for an EEVDF record's lag and deadline).
PICTURE_TOL = 0.005


def picture_rows(lines, alike):
    """The CSV's data rows as [panel, kind, cpu, start, end, task, value], alike tasks
    named "alike", their eevdf rows dropped, their consecutive run rows merged."""
    rows = []
    for line in lines:
        if line.startswith("#") or line.startswith("panel,"):
            continue
        f = line.split(",")
        if len(f) == 7 and re.fullmatch(alike, f[5]):
            if f[1] == "eevdf":
                continue
            f[5] = "alike"
            last = rows[-1] if rows else None
            if (f[1] == "run" and last and last[:3] == f[:3] and last[5] == "alike" and
                    last[4] == f[3]):
                last[4] = f[4]
                continue
        rows.append(f)
    return rows


def close_fields(a, b):
    """Two CSV fields equal, or times (ms) within PICTURE_TOL, or EEVDF records
    (ev/lag/deadline/eligible) whose lag and deadline (us) are within PICTURE_TOL x 1000."""
    if a == b:
        return True
    pa, pb = a.split("/"), b.split("/")
    if len(pa) != len(pb):
        return False
    loose, tol = ((0,), PICTURE_TOL) if len(pa) == 1 else ((1, 2), PICTURE_TOL * 1000)
    for i, (x, y) in enumerate(zip(pa, pb)):
        if x == y:
            continue
        try:
            if i not in loose or abs(float(x) - float(y)) > tol + 1e-9:
                return False
        except ValueError:
            return False
    return True


def same_picture(committed, fresh, spec):
    """True if a picture with interchangeable tasks shows the same thing (see above)."""
    alike = spec.get("alike")
    if not alike:
        return False
    a, b = picture_rows(committed, alike), picture_rows(fresh, alike)
    return len(a) == len(b) and all(
        len(x) == len(y) and all(close_fields(p, q) for p, q in zip(x, y))
        for x, y in zip(a, b))


def compare_pictures(run, log_text):
    """[(picture name, None if its committed data equals this run's, else diagnostics)]."""
    res = []
    try:
        fresh = fresh_pictures(run, log_text)
    except (KeyError, ValueError) as e:
        return [(name, ["picture %s: %s" % (name, e)]) for name in run.get("pictures", {})]
    for name, lines in fresh.items():
        csv, _ = picture_paths(run, name)
        try:
            committed = read_lines(csv)
        except OSError as e:
            res.append((name, ["cannot read %s: %s (`make labs` writes it)" % (csv, e)]))
            continue
        if committed == lines or same_picture(committed, lines, run["pictures"][name]):
            res.append((name, None))
            continue
        diff = list(difflib.unified_diff(committed, lines, csv + " (committed)", "this run",
                                         lineterm="", n=0))
        more = len(diff) - DIFF_LINES
        res.append((name, diff[:DIFF_LINES] + (["... %d more diff lines" % more] if more > 0
                                                else []) +
                    ["the picture's data differs from this run's trace: `make labs` redraws "
                     "it (then check the lab's text still fits)"]))
    return res


def draw(run, name, title=""):
    """The PNG of a picture from its committed data (tools/trace.py csvplot)."""
    csv, png = picture_paths(run, name)
    subprocess.run([PLOT_PYTHON, os.path.join(TOOLS, "trace.py"), "csvplot", csv, png] +
                   (["--title", title] if title else []), check=True)


def rewrite_pictures(run, log_text):
    """Write each picture's data, and draw its PNG when the data changed or the PNG is
    missing; returns the file names that changed."""
    changed = []
    for name, lines in fresh_pictures(run, log_text).items():
        csv, png = picture_paths(run, name)
        try:
            same = read_lines(csv) == lines
        except OSError:
            same = False
        if not same:
            os.makedirs(os.path.dirname(csv), exist_ok=True)
            with open(csv, "w") as f:
                f.write("\n".join(lines) + "\n")
            changed.append(os.path.basename(csv))
        if not same or not os.path.exists(png):
            draw(run, name, run["pictures"][name].get("title", ""))
            changed.append(os.path.basename(png))
    return changed


def rewrite(run, log_text):
    """Write this run's excerpts into its doc; returns the names that changed."""
    doc = run["doc"]
    blocks, lines = read_blocks(doc)
    fresh = fresh_excerpts(run, log_text)
    missing = [n for n in fresh if n not in blocks]
    if missing:
        raise KeyError("%s has no block for %s (add <!-- excerpt: NAME --> and %s)"
                       % (doc, ", ".join(missing), END))
    changed = []
    # Bottom up, so earlier blocks' indices stay valid.
    for name, (start, end, body) in sorted(blocks.items(), key=lambda kv: -kv[1][0]):
        if name not in fresh:
            continue
        if body != fresh[name]:
            changed.append(name)
        lines[start:end] = ["```"] + fresh[name] + ["```"]
    with open(doc, "w") as f:
        f.write("\n".join(lines))
    return sorted(changed)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-k", metavar="NAME", dest="pattern",
                    help="only the lab runs whose name contains NAME")
    ap.add_argument("-v", "--verbose", action="store_true", help="stream the sessions")
    ap.add_argument("--build", default="build", help="build directory (default: build)")
    args = ap.parse_args(argv)
    os.chdir(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sys.path.insert(0, "tools")
    import qemu_run  # noqa: E402  (runs and judges the boots)
    from runs import RUNS  # noqa: E402  (tests/, on the path once qemu_run is imported)

    opt = qemu_run.Options(argparse.Namespace(build=args.build, verbose=args.verbose,
                                              timeout=None, idle_timeout=None))
    runs = [r for r in RUNS if r.get("excerpts") and
            (args.pattern is None or args.pattern in r["name"])]
    if not runs:
        print("labs.py: no lab run with excerpts matches %r" % args.pattern, file=sys.stderr)
        return 2
    bad = 0
    for run in runs:
        out = qemu_run.Outcome(run["name"], opt.log_path(run["name"]))
        text = qemu_run.boot_script(run, opt, out)
        if text is not None:
            qemu_run.judge_script(run, text, out)
        if text is None or out.total_failed:
            # A session that breaks the lab's promise must not become its excerpt.
            qemu_run.report(out, len(run["name"]), opt.verbose)
            print("labs.py: %s not rewritten" % run["doc"])
            bad += 1
            continue
        changed = rewrite(run, text) + rewrite_pictures(run, text)
        print("labs.py: %s: %d excerpt(s), %d picture(s), %s" % (
            run["doc"], len(run["excerpts"]), len(run.get("pictures", {})),
            "changed: " + ", ".join(changed) if changed else "unchanged"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
