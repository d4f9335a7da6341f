#!/usr/bin/python3
"""trace.py - the kernel's scheduler traces on the host.

Owns: extracting the ftrace text that the shell's `trace dump` prints between
"# littlebig trace begin/end" in a serial log, parsing it (Linux ftrace text:
`comm-pid [cpu] flags timestamp: event: fields`), drawing a PNG timeline
(one lane per CPU coloured by task, clusters grouped; each cluster's
frequency; the utilization of chosen tasks), and `record`: boot QEMU, type a
scenario into the shell, keep the log, extract and plot. Plotting needs
Debian's python3-matplotlib (tools/deps.sh), hence /usr/bin/python3.

    tools/trace.py extract LOG OUT.txt          first trace of LOG as ftrace text
    tools/trace.py plot TRACE.txt OUT.png [--title T] [--clusters 0-3,4-7]
    tools/trace.py record OUTDIR                 the demo, features on and off
"""

import argparse
import os
import re
import subprocess
import sys
import time

BEGIN = "# littlebig trace begin"
END = "# littlebig trace end"
LINE_RE = re.compile(r"^\s*(.+)-(\d+)\s+\[(\d+)\]\s+\S+\s+(\d+\.\d+):\s+(\w+):\s+(.*)$")
FIELD_RE = re.compile(r"(\w+)=(\S+)")


def extract_labelled(text):
    """Each trace block of a serial log as (label, ftrace text lines); the label
    is what follows "# littlebig trace begin" ("E1 NO_ASYM_PREFER_PREV" for an
    experiment's half, "" for the shell's `trace dump`)."""
    blocks, cur, label = [], None, ""
    for line in text.splitlines():
        line = line.rstrip("\r")
        if line.startswith(BEGIN):
            cur, label = [], line[len(BEGIN):].strip()
        elif line.startswith(END) and cur is not None:
            blocks.append((label, cur))
            cur = None
        elif cur is not None:
            cur.append(line)
    return blocks


def extract(text):
    """Each trace block of a serial log, as a list of ftrace text lines."""
    return [lines for _, lines in extract_labelled(text)]


def parse(lines):
    """Events as dicts: common_comm, common_pid (the running task), common_cpu
    (the CPU that recorded it), ts (s), event, and the event's fields (the sched_switch arrow is dropped; field
    values stay strings)."""
    events = []
    for line in lines:
        if line.startswith("#") or not line.strip():
            continue
        m = LINE_RE.match(line)
        if not m:
            raise ValueError("not an ftrace line: %r" % line)
        ev = {"common_comm": m.group(1).strip(), "common_pid": int(m.group(2)),
              "common_cpu": int(m.group(3)), "ts": float(m.group(4)), "event": m.group(5)}
        ev.update(FIELD_RE.findall(m.group(6)))
        events.append(ev)
    return events


def format_event(ev):
    """Back to an ftrace text line (the round trip of parse)."""
    keys = [k for k in ev if k not in ("common_comm", "common_pid", "common_cpu", "ts", "event")]
    fields = " ".join("%s=%s" % (k, ev[k]) for k in keys)
    fields = fields.replace(" next_comm=", " ==> next_comm=")
    return "%16s-%-7d [%03d] d..2. %12.6f: %s: %s" % (ev["common_comm"], ev["common_pid"],
                                                    ev["common_cpu"], ev["ts"], ev["event"], fields)


def cpulist(s):
    cpus = []
    for part in s.split(","):
        a, _, b = part.partition("-")
        cpus += range(int(a), int(b or a) + 1)
    return cpus


def plot(events, out, title="", clusters=("0-3", "4-7"), tasks=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    clusters = [cpulist(c) for c in clusters]
    cpus = [c for cl in clusters for c in cl]
    t0 = min(e["ts"] for e in events)
    t1 = max(e["ts"] for e in events)
    # Running intervals per CPU from sched_switch.
    runs = {c: [] for c in cpus}
    start = {}
    for e in events:
        if e["event"] != "sched_switch" or e["common_cpu"] not in runs:
            continue
        c = e["common_cpu"]
        if c in start and start[c][0] != "0":
            runs[c].append((start[c][1], start[c][0], e["ts"]))
        start[c] = (e["next_pid"], e["ts"], e["next_comm"])
    names = {}
    for e in events:
        if e["event"] == "sched_switch":
            names[e["next_pid"]] = e["next_comm"]
    for c, (pid, ts, _) in start.items():
        if pid != "0":
            runs[c].append((ts, pid, t1))
    pids = sorted({pid for r in runs.values() for _, pid, _ in r}, key=int)
    cmap = plt.get_cmap("tab20")
    color = {pid: cmap(i % 20) for i, pid in enumerate(pids)}
    util = {}
    for e in events:
        if e["event"] == "sched_pelt_se":
            util.setdefault(e["pid"], []).append((e["ts"], int(e["util"])))
    if tasks is None:
        skip = re.compile(r"^(init|migration/\d+|swapper/\d+)$")
        tasks = [pid for pid in pids if not skip.match(names.get(pid, ""))]

    fig, (ax, axf, axu) = plt.subplots(3, 1, figsize=(12, 8), sharex=True,
                                       gridspec_kw={"height_ratios": [3, 1, 2]})
    y = 0
    ticks = []
    for k, cl in enumerate(clusters):
        for c in cl:
            for ts, pid, te in runs.get(c, []):
                ax.broken_barh([(ts - t0, te - ts)], (y, 0.8), color=color[pid])
            ticks.append((y + 0.4, "cpu%d" % c))
            y += 1
        y += 0.5  # a gap between clusters
    ax.set_yticks([t for t, _ in ticks], [n for _, n in ticks])
    ax.invert_yaxis()
    ax.set_title(title or "scheduler timeline")
    handles = [plt.Rectangle((0, 0), 1, 1, color=color[p]) for p in pids]
    ax.legend(handles, ["%s-%s" % (names.get(p, "?"), p) for p in pids], loc="upper left",
              bbox_to_anchor=(1.0, 1.0), fontsize="small")
    for k, cl in enumerate(clusters):
        pts = [(e["ts"] - t0, int(e["state"]) / 1000) for e in events
               if e["event"] == "cpu_frequency" and int(e["cpu_id"]) == cl[0]]
        if pts:
            pts.append((t1 - t0, pts[-1][1]))
            axf.step([p[0] for p in pts], [p[1] for p in pts], where="post",
                     label="cluster %d (cpu%d-%d)" % (k, cl[0], cl[-1]))
    axf.set_ylabel("MHz")
    axf.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    for pid in tasks:
        pts = util.get(pid, [])
        if pts:
            axu.plot([p[0] - t0 for p in pts], [p[1] for p in pts],
                     label="%s-%s util_avg" % (names.get(pid, "?"), pid), color=color.get(pid))
    axu.set_ylabel("util_avg")
    axu.set_xlabel("time (s from first event)")
    axu.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize="small")
    fig.tight_layout()
    fig.savefig(out, dpi=80)
    plt.close(fig)


# ---- record: the demo scenario through the shell -----------------------------------------

PROMPT = b"littlebig> "
# A periodic little task and a task that starts small and turns CPU-bound:
# misfit migration (MISFIT on) moves it to a big CPU; with NO_MISFIT it can stay.
DEMO = ["cpufreq governor all schedutil", "trace start",
        "spawn small work=2000 period=16000", "spawn hog nice=0", "spawn small2 work=1000 period=8000",
        "sleep 300", "trace stop", "trace dump"]


def record(qemu_argv, features, log_path):
    """Boot, set features, run DEMO, power off; returns the serial log."""
    proc = subprocess.Popen(qemu_argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    out = b""
    lines = (["features " + features] if features else []) + DEMO + ["poweroff"]
    deadline = time.monotonic() + 300
    fd = proc.stdout.fileno()
    for line in lines:
        while not out.endswith(PROMPT):
            if time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError("no prompt from the kernel (see %s)" % log_path)
            data = os.read(fd, 65536)
            if not data:
                break
            out += data
        proc.stdin.write(line.encode() + b"\r")
        proc.stdin.flush()
        out += b"\n"  # so the next wait needs a fresh prompt
    out += proc.stdout.read()
    proc.wait(timeout=60)
    with open(log_path, "wb") as f:
        f.write(out)
    return out.decode("utf-8", "replace")


def cmd_record(args):
    os.makedirs(args.outdir, exist_ok=True)
    argv = args.qemu.split() + ["-M", "virt", "-cpu", "cortex-a53", "-smp", "8",
                                "-dtb", os.path.join(args.build, "dts", "qemu-bl44.dtb"),
                                "-icount", "shift=0,sleep=off", "-nographic", "-no-reboot",
                                "-m", "512M", "-kernel", os.path.join(args.build, "Image")]
    pngs = []
    for tag, feat in (("on", args.feature), ("off", "NO_" + args.feature)):
        log = os.path.join(args.outdir, "%s-%s.log" % (args.name, tag))
        blocks = extract(record(argv, feat, log))
        if not blocks:
            sys.exit("trace.py: no trace in %s" % log)
        txt = os.path.join(args.outdir, "%s-%s.txt" % (args.name, tag))
        with open(txt, "w") as f:
            f.write("# tracer: nop\n#\n" + "\n".join(blocks[0]) + "\n")
        png = os.path.join(args.outdir, "%s-%s.png" % (args.name, tag))
        plot(parse(blocks[0]), png, title="%s: %s" % (args.name, feat))
        print("trace.py: %s (%d events), %s" % (txt, len(parse(blocks[0])), png))
        pngs.append(png)
    return pngs


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("extract")
    p.add_argument("log")
    p.add_argument("out")
    p = sub.add_parser("plot")
    p.add_argument("trace")
    p.add_argument("out")
    p.add_argument("--title", default="")
    p.add_argument("--clusters", default="0-3,4-7")
    p = sub.add_parser("record")
    p.add_argument("outdir")
    p.add_argument("--build", default="build")
    p.add_argument("--name", default="demo")
    p.add_argument("--feature", default="MISFIT")
    p.add_argument("--qemu", default=os.environ.get("QEMU", "qemu-system-aarch64"))
    args = ap.parse_args(argv)
    if args.cmd == "extract":
        with open(args.log, errors="replace") as f:
            blocks = extract(f.read())
        if not blocks:
            sys.exit("trace.py: no '%s' in %s" % (BEGIN, args.log))
        with open(args.out, "w") as f:
            f.write("\n".join(blocks[0]) + "\n")
    elif args.cmd == "plot":
        with open(args.trace) as f:
            events = parse(f.read().splitlines())
        cl = args.clusters.split(",") if "," in args.clusters else [args.clusters]
        # "0-3,4-7" names two clusters; a single range is one.
        plot(events, args.out, args.title, clusters=cl)
    else:
        cmd_record(args)


if __name__ == "__main__":
    main()
