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
    tools/trace.py halves N LOG OUTDIR [--name e1-qemu-bl44]
                                                 experiment N's traced halves (booted
                                                 with experiment=N,short,trace): a .txt
                                                 each, one PNG side by side
    tools/trace.py record OUTDIR                 the demo, features on and off
    tools/trace.py log LOG [OUTDIR]              every `trace dump` in a console log
                                                 (make run LOG=FILE) -> LOG-N.txt and
                                                 LOG-N.png (make trace-log LOG=FILE)
    tools/trace.py csvplot CSV OUT.png           a timeline CSV (timeline_csv: the data of a
                                                 lab's picture, docs/labs/img/) as a PNG
    tools/trace.py spinup OUT.png LOG...         `spin up trace`'s util samples ("# up"
                                                 lines, either kernel: make compare
                                                 --trace-up) on one time axis, with the
                                                 misfit line and each first big CPU
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
    (the CPU that recorded it), ts (s), event, and the event's fields (the sched_switch
    arrow is dropped; field values stay strings)."""
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


IDLE_OR_SYSTEM = re.compile(r"^(init|run|migration/\d+|swapper/\d+)$")


def timeline(events):
    """What a plot needs from a trace: t0 and t1 (s), running intervals per
    CPU [(start, end, comm)] from sched_switch (a CPU's task before its first
    switch is the one its first event names), each cluster's frequency steps
    by first CPU, util_avg samples per task (comm-pid), and per CPU the EEVDF view at each
    pick (eevdf: [(ts, comm, ev, vlag, vdeadline, eligible)] from sched_eevdf's pick,
    queued and place records, lag and deadline against V in virtual ns)."""
    t0 = min(e["ts"] for e in events)
    t1 = max(e["ts"] for e in events)
    runs, cur, freq, util, eevdf = {}, {}, {}, {}, {}
    for e in events:
        c = e["common_cpu"]
        if c not in cur:
            cur[c] = (e["common_comm"], e["common_pid"], t0)
        if e["event"] == "sched_switch":
            comm, pid, ts = cur[c]
            if pid != 0:
                runs.setdefault(c, []).append((ts, e["ts"], comm))
            cur[c] = (e["next_comm"], int(e["next_pid"]), e["ts"])
        elif e["event"] == "cpu_frequency":
            freq.setdefault(int(e["cpu_id"]), []).append((e["ts"], int(e["state"]) / 1000))
        elif e["event"] == "sched_pelt_se":
            util.setdefault("%s-%s" % (e["comm"], e["pid"]), []).append((e["ts"], int(e["util"])))
        elif e["event"] == "sched_eevdf" and e["ev"] in EEVDF_EVENTS:
            eevdf.setdefault(c, []).append((e["ts"], e["comm"], e["ev"], int(e["vlag"]),
                                            int(e["vdeadline"]), int(e["eligible"])))
    for c, (comm, pid, ts) in cur.items():
        if pid != 0:
            runs.setdefault(c, []).append((ts, t1, comm))
    return {"t0": t0, "t1": t1, "runs": runs, "freq": freq, "util": util, "eevdf": eevdf}


# sched_eevdf's records of a pick (kernel/sched/fair_eevdf.c eevdf_trace_pick): the picked
# entity, then every other queued one, all at the same instant and against the same V; and
# each placement (a wakeup: where the wait for the next pick begins).
EEVDF_EVENTS = ("pick", "queued", "place")


IDLE_EXIT = 0xffffffff  # cpu_idle's state when a CPU leaves idle (PWR_EVENT_EXIT)


def power_model_from_log(text):
    """What the kernel's energy meter (kernel/sched/energy.c) knows, from the boot
    log: each CPU's frequency domain ("topology: cpu="), each domain's EM power per
    OPP ("topology: opp"), each idle state's level ("topology: idle") and the idle
    fractions of the lowest OPP's power (an "energy ... idle_power=" line; else
    the kernel's defaults). None without an energy model."""
    fd = {int(c): int(f) for c, f in
          re.findall(r"^topology: cpu=(\d+) .*?\bfreq_domain=(\d+)", text, re.M)}
    em = {}
    for f, khz, uw in re.findall(r"^topology: opp freq_domain=(\d+) freq=(\d+) "
                                 r"microvolt=\d+ power=(\d+)", text, re.M):
        if int(uw):
            em.setdefault(int(f), {})[int(khz)] = int(uw)
    levels = {(int(c), int(s)): int(l) for c, s, l in re.findall(
        r"^topology: idle cpu=(\d+) state=(\d+) .*?\blevel=(\d+)", text, re.M)}
    m = re.search(r"idle_power=lowest_opp_power x \(wfi (\d+), cpu_off (\d+), "
                  r"cluster_off (\d+)\)", text)
    frac = tuple(int(x) for x in m.groups()) if m else (100, 20, 0)
    return {"fd": fd, "em": em, "levels": levels, "frac": frac} if fd and em else None


def cluster_power(events, model, clusters):
    """Each cluster's power in W as steps [(ts, W)], as the energy meter counts
    it: a busy CPU at its domain's EM power for the current frequency (the lowest
    OPP at or above it), an idle one in state k at the fraction of its lowest
    OPP's power for WFI, a CPU or a cluster power-down. Before its first
    cpu_idle event a CPU is idle (taken as WFI) if that event is an exit, busy
    if an entry; with none, busy if it recorded any event for a task."""
    freq, state, out = {}, {}, [[] for _ in clusters]
    for e in events:
        if e["event"] == "cpu_idle" and int(e["cpu_id"]) not in state:
            state[int(e["cpu_id"])] = 0 if int(e["state"]) == IDLE_EXIT else -1
    ran = {e["common_cpu"] for e in events if e.get("common_pid")}
    for cl in clusters:
        for c in cl:
            state.setdefault(c, -1 if c in ran else 0)

    def cpu_power(c):
        table = model["em"].get(model["fd"].get(c), {})
        if not table:
            return 0.0
        s = state.get(c, -1)
        if s < 0:
            khz = freq.get(model["fd"].get(c), max(table))
            return table[min([k for k in table if k >= khz] or [max(table)])] / 1e6
        wfi, cpu_off, cluster_off = model["frac"]
        permille = wfi if s == 0 else cluster_off if model["levels"].get((c, s)) else cpu_off
        return table[min(table)] * permille / 1000 / 1e6

    for e in events:
        if e["event"] == "cpu_frequency":
            freq[model["fd"].get(int(e["cpu_id"]))] = int(e["state"])
        elif e["event"] == "cpu_idle":
            st = int(e["state"])
            state[int(e["cpu_id"])] = -1 if st == IDLE_EXIT else st
        else:
            continue
        for k, cl in enumerate(clusters):
            out[k].append((e["ts"], sum(cpu_power(c) for c in cl)))
    return out


def _draw(axes, tl, clusters, title, color):
    """One timeline into three axes: CPU lanes (clusters grouped), cluster
    frequency, task utilization (one colour and legend entry per task name:
    hackbench has hundreds); times from the trace's first event."""
    import matplotlib.pyplot as plt
    ax, axf, axu = axes
    t0, y, ticks = tl["t0"], 0, []
    for cl in clusters:
        for c in cl:
            by_comm = {}
            for ts, te, comm in tl["runs"].get(c, []):
                by_comm.setdefault(comm, []).append((ts - t0, te - ts))
            for comm, bars in by_comm.items():
                ax.broken_barh(bars, (y, 0.8), color=color(comm))
            ticks.append((y + 0.4, "cpu%d" % c))
            y += 1
        y += 0.5  # a gap between clusters
    ax.set_yticks([t for t, _ in ticks], [n for _, n in ticks])
    ax.set_ylim(y, -0.2)
    ax.set_title(title, fontsize="medium")
    for k, cl in enumerate(clusters):
        pts = list(tl["freq"].get(cl[0], []))
        if pts:
            pts = [(ts - t0, f) for ts, f in pts] + [(tl["t1"] - t0, pts[-1][1])]
            axf.step([p[0] for p in pts], [p[1] for p in pts], where="post",
                     label="cluster %d (cpu%d-%d)" % (k, cl[0], cl[-1]))
    axf.set_ylabel("MHz")
    if tl.get("power"):  # a per-cluster power lane on the frequency axis' right
        axp = axf.twinx()
        for k, pts in enumerate(tl["power"]):
            if pts:
                pts = [(ts - t0, w) for ts, w in pts] + [(tl["t1"] - t0, pts[-1][1])]
                axp.step([p[0] for p in pts], [p[1] for p in pts], where="post",
                         linestyle="--", linewidth=1, color="C%d" % k)
        axp.set_ylabel("W (dashed)")
    for task, pts in sorted(tl["util"].items()):
        comm = task.rsplit("-", 1)[0]
        if not IDLE_OR_SYSTEM.match(comm):
            axu.plot([p[0] - t0 for p in pts], [p[1] for p in pts], label=comm + " util_avg",
                     color=color(comm), linewidth=1)
    for k, cap, thr in tl.get("capacity", []):  # black: task colours are tab20's
        axu.axhline(cap, color="k", linewidth=0.8, label="cluster capacity")
        axu.axhline(thr, color="k", linewidth=0.8, linestyle=":",
                    label="misfit above (capacity x 0.8)")
        axu.text(0, cap, " cluster %d: %d" % (k, cap), va="bottom", fontsize="x-small")
        axu.text(0, thr, " misfit > %.0f" % thr, va="bottom", fontsize="x-small")
    if tl.get("capacity"):
        axu.set_ylim(bottom=0)
    axu.set_ylabel("util_avg")
    axu.set_xlabel("time (s from the first event)")
    return [plt.Rectangle((0, 0), 1, 1, color=color(c)) for c in sorted(
        {comm for r in tl["runs"].values() for _, _, comm in r})]


def colour_slots(comms):
    """{task name: tab20 slot, or a grey level as a string}, the same for a task
    whatever else a picture holds: a user task's slot comes from a hash of its
    name (the next free slot on a collision, in name order; the strong shades
    before the light; not tab20's greys), so the off and on halves of a demo,
    drawn apart, agree; the kernel's own tasks (init, run, migration/N) are greys."""
    import zlib
    table, used = {}, set()
    for c in sorted(comms):
        h = zlib.crc32(c.encode())
        if IDLE_OR_SYSTEM.match(c):
            table[c] = str(0.45 + 0.1 * (h % 4))
            continue
        free = [s for s in [2 * ((h + k) % 10) + light for light in (0, 1)
                            for k in range(10)]
                if s not in used and s // 2 != 7]  # tab20's 14, 15: grey
        table[c] = free[0] if free else h % 20
        used.add(table[c])
    return table


def _colors(timelines):
    """One colour per task name, the same in every panel and picture (colour_slots)."""
    import matplotlib.pyplot as plt
    comms = ({comm for tl in timelines for r in tl["runs"].values() for _, _, comm in r} |
             {t.rsplit("-", 1)[0] for tl in timelines for t in tl["util"]})
    cmap = plt.get_cmap("tab20")
    table = {c: v if isinstance(v, str) else cmap(v) for c, v in colour_slots(comms).items()}
    return lambda comm: table.get(comm, "grey")


def capacities_from_log(text):
    """Each CPU's capacity_orig from the boot lines ("topology: cpu=4 ...
    capacity=1024"), {} if the log has none."""
    return {int(c): int(cap) for c, cap in
            re.findall(r"^topology: cpu=(\d+) .*?\bcapacity=(\d+)", text, re.M)}


def capacity_lines(clusters, caps):
    """[(cluster index, capacity, misfit threshold)] for the util panel: a task
    is misfit on a CPU when its util does not fit (Linux 6.1 fits_capacity():
    util * 1280 < capacity * 1024, i.e. below 80 % of the capacity)."""
    out = []
    for k, cl in enumerate(clusters):
        if cl and cl[0] in caps:
            out.append((k, caps[cl[0]], caps[cl[0]] * 1024 / 1280))
    return out


def panel_timelines(panels, clusters, model=None, caps=None):
    """[(title, events)] -> [(title, timeline)], each timeline with its clusters'
    power (given a power model) and capacity lines (given caps)."""
    out = []
    for title, ev in panels:
        tl = timeline(ev)
        if model:
            tl["power"] = cluster_power(ev, model, clusters)
        tl["capacity"] = capacity_lines(clusters, caps or {})
        out.append((title, tl))
    return out


def plot_panels(panels, out, clusters=("0-3", "4-7"), suptitle="", ncols=None, model=None,
                caps=None):
    """panels: [(title, events)] on one time scale (the longest panel's), one
    PNG, ncols panels a row (default: all in one row). Each panel: CPU lanes,
    frequency (and each cluster's power, dashed, given the power model of
    power_model_from_log), util_avg (with each cluster's capacity and misfit
    threshold, given caps {cpu: capacity} from capacities_from_log)."""
    clusters = [cpulist(c) if isinstance(c, str) else c for c in clusters]
    plot_timelines(panel_timelines(panels, clusters, model, caps), out, clusters, suptitle,
                   ncols)


def eevdf_picks(samples):
    """A CPU's sched_eevdf pick records (timeline()'s eevdf[cpu]) -> [(ts, picked task,
    {task: (vlag, vdeadline, eligible)})], one entry per pick: a pick record opens it,
    the queued records that follow it (same instant, same V) join it; placements do not."""
    picks = []
    for ts, comm, ev, vlag, vdl, elig in samples:
        if ev == "pick":
            picks.append((ts, comm, {}))
        elif ev != "queued" or not picks:
            continue  # a placement, or the tail of a pick from before the trace began
        picks[-1][2][comm] = (vlag, vdl, elig)
    return picks


def plot_eevdf(panels, out, suptitle=""):
    """A lab's EEVDF picture: per panel, for the CPU its sched_eevdf records are from (the
    busiest if several), three rows on one time axis: each task's lane (a solid bar while it
    runs, a pale one while it waits eligible, a hatched one while it waits not eligible, as
    each pick found it, or from its wakeup's placement); each task's lag V - v at every pick
    (a filled marker eligible, a cross not: the pick must be at or above 0) and placement
    (a hollow diamond); each task's deadline d - V at every pick
    (a star: the one picked, the earliest eligible deadline)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    nan = float("nan")
    n = len(panels)
    fig, axes = plt.subplots(3, n, figsize=(11 * n + 2, 9), sharex="col", squeeze=False,
                             gridspec_kw={"height_ratios": [2, 2, 2]})
    for i, (title, tl) in enumerate(panels):
        cpu = max(tl["eevdf"], key=lambda c: len(tl["eevdf"][c]))
        picks = eevdf_picks(tl["eevdf"][cpu])
        t0 = tl["t0"]
        tasks = sorted({comm for _, _, q in picks for comm in q})
        slots = colour_slots(set(tasks) | {c for _, _, c in tl["runs"].get(cpu, [])})
        cmap = plt.get_cmap("tab20")
        color = lambda c: slots[c] if isinstance(slots[c], str) else cmap(slots[c])  # noqa: E731
        lane, lag, dl = (axes[k][i] for k in range(3))
        row = {c: k for k, c in enumerate(tasks)}

        def wait_bar(ts, te, comm, elig):  # pale eligible, hatched not eligible
            lane.broken_barh([((ts - t0) * 1e3, (te - ts) * 1e3)], (row[comm] + 0.25, 0.3),
                             facecolor=color(comm), alpha=0.35 if elig else 0.1,
                             hatch=None if elig else "//", edgecolor=color(comm))

        for ts, te, comm in tl["runs"].get(cpu, []):
            if comm in row:
                lane.broken_barh([((ts - t0) * 1e3, (te - ts) * 1e3)], (row[comm], 0.8),
                                 color=color(comm))
        ends = [p[0] for p in picks[1:]] + [tl["t1"]]
        for (ts, picked, q), te in zip(picks, ends):
            for comm, (_, _, elig) in q.items():
                if comm != picked:
                    wait_bar(ts, te, comm, elig)
        for ts, comm, ev, vlag, vdl, elig in tl["eevdf"][cpu]:
            if ev == "place" and comm in row:
                # A wakeup's wait, from its placement to the next pick.
                wait_bar(ts, min([p[0] for p in picks if p[0] >= ts] or [tl["t1"]]), comm, elig)
                lag.scatter([(ts - t0) * 1e3], [vlag / 1e6], marker="D", s=22,
                            facecolor="none", edgecolor=color(comm))
        lane.set_yticks([k + 0.4 for k in range(len(tasks))], tasks)
        lane.set_ylim(len(tasks), -0.2)
        lane.set_title("%s\ncpu%d: solid runs, pale waits eligible, hatched waits not eligible"
                       % (title, cpu), fontsize="medium")
        for comm in tasks:
            pts = [(ts, q[comm], comm == picked) for ts, picked, q in picks if comm in q]
            x = [(ts - t0) * 1e3 for ts, _, _ in pts]
            # The lines break where a pick did not find the task queued (asleep).
            gap = [((ts - t0) * 1e3, q[comm][:2] if comm in q else (nan, nan))
                   for ts, _, q in picks]
            lag.plot([t for t, _ in gap], [v[0] / 1e6 for _, v in gap], color=color(comm),
                     linewidth=0.8, label=comm)
            dl.plot([t for t, _ in gap], [v[1] / 1e6 for _, v in gap], color=color(comm),
                    linewidth=0.5, alpha=0.5)
            for ax, k in ((lag, 0), (dl, 1)):
                for want, mk in ((1, "o"), (0, "x")):
                    sel = [(t, v[k] / 1e6) for t, (_, v, _) in zip(x, pts) if v[2] == want]
                    ax.scatter([a for a, _ in sel], [b for _, b in sel], marker=mk, s=14,
                               color=color(comm))
            star = [(t, v[1] / 1e6) for t, (_, v, p) in zip(x, pts) if p]
            dl.scatter([a for a, _ in star], [b for _, b in star], marker="*", s=90,
                       color=color(comm), edgecolor="k", linewidth=0.5, zorder=3)
        for ax in (lag, dl):
            ax.axhline(0, color="k", linewidth=0.8)
        lag.set_ylabel("lag V - vruntime (ms)\neligible at or above 0")
        lag.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.0, 1.0))
        dl.set_ylabel("deadline - V (ms)\n* picked")
        dl.set_xlabel("time (ms from the first event); markers: each pick (o eligible, "
                      "x not), each wakeup's placement (hollow diamond)")
        lane.set_xlim(0, (tl["t1"] - t0) * 1e3)
    if suptitle:
        fig.suptitle(suptitle)
    fig.tight_layout()
    fig.savefig(out, dpi=72)
    plt.close(fig)


def plot_timelines(panels, out, clusters, suptitle="", ncols=None):
    """plot_panels' drawing, from [(title, timeline)] (a timeline as timeline() makes it,
    or as read back from a CSV by read_timeline_csv)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    if any(tl.get("eevdf") for _, tl in panels):
        return plot_eevdf(panels, out, suptitle)
    tls = [tl for _, tl in panels]
    color = _colors(tls)
    n = len(panels)
    ncols = ncols or n
    nrows = (n + ncols - 1) // ncols
    fig, axes = plt.subplots(3 * nrows, ncols, figsize=(7 * ncols + 2, 8 * nrows), sharex=True,
                             sharey="row", squeeze=False,
                             gridspec_kw={"height_ratios": [3, 1, 2] * nrows})
    cell = lambda i, k: axes[3 * (i // ncols) + k][i % ncols]  # noqa: E731
    for i, ((title, _), tl) in enumerate(zip(panels, tls)):
        _draw([cell(i, k) for k in range(3)], tl, clusters, title, color)
    for i in range(n, nrows * ncols):
        for k in range(3):
            cell(i, k).set_visible(False)
    axes[0][0].set_xlim(0, max(tl["t1"] - tl["t0"] for tl in tls) or 1e-6)
    comms = sorted({comm for tl in tls for r in tl["runs"].values() for _, _, comm in r})
    cell(ncols - 1, 0).legend([plt.Rectangle((0, 0), 1, 1, color=color(c)) for c in comms],
                              comms, loc="upper left", bbox_to_anchor=(1.0, 1.0),
                              fontsize="small")
    for k in (1, 2):
        handles, labels = [], []
        for i in range(n):
            for h, l in zip(*cell(i, k).get_legend_handles_labels()):
                if l not in labels:
                    handles.append(h)
                    labels.append(l)
        if handles:
            cell(ncols - 1, k).legend(handles, labels, loc="upper left",
                                      bbox_to_anchor=(1.0, 1.0), fontsize="small")
    if suptitle:
        fig.suptitle(suptitle)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.4 / (8 * nrows)))  # half an inch for the suptitle
    fig.savefig(out, dpi=72)
    plt.close(fig)


# ---- a timeline as a CSV: the data a picture is drawn from, compared by make test ----------

CSV_HEADER = "panel,kind,cpu,start_ms,end_ms,task,value"


def _ms(t):
    return "%.3f" % (t * 1000)


def timeline_csv(panels, clusters, comment=""):
    """[(title, timeline)] (panel_timelines) -> the CSV lines of everything
    plot_timelines draws, times in ms from each panel's first event (the trace's us):
    per panel its title and length; per cluster its CPUs, capacity and misfit threshold;
    each running interval (run), each cluster's frequency steps (freq, MHz), each user
    task's util_avg samples (util), each cluster's power steps (power, W) and each
    sched_eevdf pick or place record (eevdf: value "pick|queued|place/vlag/vdeadline/eligible",
    against V in virtual us)."""
    import csv
    import io
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    caps = {}
    for _, tl in panels:
        for k, cap, thr in tl.get("capacity", []):
            caps[k] = (cap, thr)
    for k, cl in enumerate(clusters):
        cap, thr = caps.get(k, ("", ""))
        w.writerow(["", "cluster", cl[0], "", "", "%d-%d" % (cl[0], cl[-1]),
                    "%s/%s" % (cap, "%.1f" % thr if thr != "" else "")])
    for n, (title, tl) in enumerate(panels, 1):
        t0 = tl["t0"]
        w.writerow([n, "panel", "", _ms(0), _ms(tl["t1"] - t0), title.replace("\n", "\\n"),
                    ""])
        for c in sorted(tl["runs"]):
            for ts, te, comm in tl["runs"][c]:
                w.writerow([n, "run", c, _ms(ts - t0), _ms(te - t0), comm, ""])
        for c in sorted(tl["freq"]):
            for ts, mhz in tl["freq"][c]:
                w.writerow([n, "freq", c, _ms(ts - t0), "", "", "%g" % mhz])
        for task in sorted(tl["util"]):
            if IDLE_OR_SYSTEM.match(task.rsplit("-", 1)[0]):
                continue
            for ts, u in tl["util"][task]:
                w.writerow([n, "util", "", _ms(ts - t0), "", task, u])
        for k, pts in enumerate(tl.get("power") or []):
            for ts, watts in pts:
                w.writerow([n, "power", k, _ms(ts - t0), "", "", "%.6f" % watts])
        for c in sorted(tl.get("eevdf") or {}):
            for ts, comm, ev, vlag, vdl, elig in tl["eevdf"][c]:
                w.writerow([n, "eevdf", c, _ms(ts - t0), "", comm,  # us, as the times
                            "%s/%d/%d/%d" % (ev, round(vlag / 1e3), round(vdl / 1e3), elig)])
    head = ["# " + l for l in comment.splitlines()] + [CSV_HEADER]
    return head + buf.getvalue().splitlines()


def read_timeline_csv(lines):
    """timeline_csv's lines -> (clusters, [(title, timeline)]), times back in s."""
    import csv
    rows = list(csv.reader([l for l in lines if l and not l.startswith("#")]))
    if not rows or ",".join(rows[0]) != CSV_HEADER:
        raise ValueError("not a timeline CSV (header %r)" % CSV_HEADER)
    clusters, capacity, panels = [], [], {}
    for panel, kind, cpu, start, end, task, value in rows[1:]:
        if kind == "cluster":
            clusters.append(cpulist(task))
            cap, _, thr = value.partition("/")
            if cap:
                capacity.append((len(clusters) - 1, int(cap), float(thr)))
            continue
        tl = panels.setdefault(int(panel), {"title": "", "t0": 0.0, "t1": 0.0, "runs": {},
                                            "freq": {}, "util": {}, "power": [], "eevdf": {}})
        t = float(start) / 1000
        if kind == "panel":
            tl["title"], tl["t1"] = task.replace("\\n", "\n"), float(end) / 1000
        elif kind == "run":
            tl["runs"].setdefault(int(cpu), []).append((t, float(end) / 1000, task))
        elif kind == "freq":
            tl["freq"].setdefault(int(cpu), []).append((t, float(value)))
        elif kind == "util":
            tl["util"].setdefault(task, []).append((t, int(value)))
        elif kind == "power":
            while len(tl["power"]) <= int(cpu):
                tl["power"].append([])
            tl["power"][int(cpu)].append((t, float(value)))
        elif kind == "eevdf":
            ev, vlag, vdl, elig = value.split("/")
            tl["eevdf"].setdefault(int(cpu), []).append((t, task, ev, int(vlag) * 1000,
                                                         int(vdl) * 1000, int(elig)))
        else:
            raise ValueError("unknown row kind %r" % kind)
    out = []
    for n in sorted(panels):
        tl = panels[n]
        tl["capacity"] = capacity
        out.append((tl.pop("title"), tl))
    return clusters, out


def cmd_csvplot(args):
    """A timeline CSV (timeline_csv; tools/labs.py writes the labs') -> one PNG."""
    with open(args.csv) as f:
        clusters, panels = read_timeline_csv(f.read().splitlines())
    plot_timelines(panels, args.out, clusters, args.title, args.ncols)


def pair_layout(labels):
    """Panel order and columns: halves "EN NO_X rest"... then "EN X rest"... (an
    experiment's off runs, then its on runs) become rows of off | on pairs;
    anything else is one row (at most 4 panels a row)."""
    n = len(labels)
    h = n // 2
    strip = lambda l: l.split(" ", 1)[-1]  # noqa: E731
    if n > 2 and n % 2 == 0 and all(strip(labels[i]) == "NO_" + strip(labels[i + h])
                                    for i in range(h)):
        return [j for i in range(h) for j in (i, i + h)], 2
    return list(range(n)), min(n, 4)


def plot(events, out, title="", clusters=("0-3", "4-7"), caps=None):
    """One trace as one timeline (the shell's `trace dump`, the demo), its title
    counting the migrations and frequency changes."""
    clusters = [cpulist(c) if isinstance(c, str) else c for c in clusters]
    title = "%s\n%s" % (title or "scheduler timeline", half_stats(events, clusters))
    plot_panels([(title, events)], out, clusters, caps=caps)


def clusters_from_log(text):
    """The clusters as CPU lists from the kernel's boot lines
    ("topology: cpu=4 ... cluster=1 ..."), or None if the log has none."""
    cl = {}
    for m in re.finditer(r"^topology: cpu=(\d+) .*?\bcluster=(\d+)", text, re.M):
        cl.setdefault(int(m.group(2)), []).append(int(m.group(1)))
    return [sorted(v) for _, v in sorted(cl.items())] or None


def half_title(label):
    """"E1 NO_ASYM_PREFER_PREV" -> "E1: ASYM_PREFER_PREV off"."""
    exp, _, feat = label.partition(" ")
    if re.match(r"^[A-Z0-9_]+$", feat or "-"):
        if feat.startswith("NO_"):
            return "%s: %s off" % (exp, feat[3:])
        return "%s: %s on" % (exp, feat)
    return label


def results_after(text):
    """{label: the first RESULT line after that trace block's end marker}:
    what the traced half measured (its table follows the dump)."""
    out, label = {}, None
    for line in text.splitlines():
        line = line.rstrip("\r")
        if line.startswith(END):
            label = line[len(END):].split(":")[0].strip()
        elif line.startswith("RESULT ") and label is not None:
            out[label] = line
            label = None
    return out


def half_stats(events, clusters):
    """What a half did, from its own events: its length, the task migrations,
    each cluster's frequency changes (on its first CPU; the level each trace
    starts with is not a change)."""
    span = max(e["ts"] for e in events) - min(e["ts"] for e in events)
    mig = sum(1 for e in events if e["event"] == "sched_migrate_task")
    changes = []
    for cl in clusters:
        last, n = None, 0
        for e in events:
            if e["event"] == "cpu_frequency" and int(e["cpu_id"]) == cl[0]:
                n += last is not None and e["state"] != last
                last = e["state"]
        changes.append(n)
    return "%.3f s, %d migrations, frequency changes: %s" % (
        span, mig, " / ".join(str(n) for n in changes))


def slug(s):
    return re.sub(r"[^A-Za-z0-9]+", "-", s).strip("-").lower()


def cmd_halves(args):
    """Each traced half of experiment N in LOG -> NAME-HALF.txt, and one PNG
    of all halves side by side; checks each half round-trips the parser."""
    with open(args.log, errors="replace") as f:
        text = f.read()
    want = "E%s " % args.experiment
    halves = [(l, b) for l, b in extract_labelled(text) if l.startswith(want)]
    if not halves:
        sys.exit("trace.py: no '%s %s...' trace in %s (was the experiment run with "
                 "the trace flag, and does it call experiment_half_begin/_end?)"
                 % (BEGIN, want, args.log))
    os.makedirs(args.outdir, exist_ok=True)
    panels, names = [], set()
    clusters = clusters_from_log(text) or [cpulist(c) for c in args.clusters.split(",")]
    for label, lines in halves:
        events = parse(lines)
        if parse([format_event(e) for e in events]) != events:
            sys.exit("trace.py: %s does not round-trip the parser" % label)
        base = "%s-%s" % (args.name, slug(label.split(" ", 1)[-1]))
        first, k = base, 1
        while base in names:  # a label used twice
            k += 1
            base = "%s-%d" % (first, k)
        names.add(base)
        txt = os.path.join(args.outdir, base + ".txt")
        with open(txt, "w") as f:
            f.write("\n".join(lines) + "\n")
        cut = [l for l in lines if l.startswith("# littlebig trace truncated")]
        print("trace.py: %s: %d events%s -> %s" % (label, len(events),
                                                  " (%s)" % cut[0][2:] if cut else "", txt))
        panels.append((half_title(label) + "\n" + half_stats(events, clusters), events))
    m = re.search(r"^(E%s: .*)$" % re.escape(str(args.experiment)), text, re.M)
    sup = "%s%s" % (m.group(1).strip() if m else "E%s" % args.experiment,
                    " (%s)" % args.machine if args.machine else "")
    png = os.path.join(args.outdir, args.name + ".png")
    order, ncols = pair_layout([l for l, _ in halves])
    plot_panels([panels[i] for i in order], png, clusters, sup, ncols,
                power_model_from_log(text), capacities_from_log(text))
    print("trace.py: %s" % png)


# ---- record: the demo scenario through the shell -----------------------------------------

PROMPT = b"littlebig> "
# A periodic little task and a task that starts small and turns CPU-bound:
# misfit migration (MISFIT on) moves it to a big CPU; with NO_MISFIT it can stay.
DEMO = ["cpufreq governor all schedutil", "trace start",
        "spawn small work=2000 period=16000", "spawn hog nice=0",
        "spawn small2 work=1000 period=8000",
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
        text = record(argv, feat, log)
        blocks = extract(text)
        if not blocks:
            sys.exit("trace.py: no trace in %s" % log)
        txt = os.path.join(args.outdir, "%s-%s.txt" % (args.name, tag))
        with open(txt, "w") as f:
            f.write("# tracer: nop\n#\n" + "\n".join(blocks[0]) + "\n")
        png = os.path.join(args.outdir, "%s-%s.png" % (args.name, tag))
        plot(parse(blocks[0]), png, title="%s: %s" % (args.name, feat),
             clusters=clusters_from_log(text) or ("0-3", "4-7"),
             caps=capacities_from_log(text))
        print("trace.py: %s (%d events), %s" % (txt, len(parse(blocks[0])), png))
        pngs.append(png)
    return pngs


def parse_lenient(lines):
    """parse(), skipping lines that are not ftrace text (a console log kept by
    `make run LOG=FILE` can have other output inside a dump); (events, skipped)."""
    keep = [l for l in lines if l.startswith("#") or not l.strip() or LINE_RE.match(l)]
    return parse(keep), len(lines) - len(keep)


def cmd_log(args):
    """Each `trace dump` of a console log -> OUTDIR/BASE-N.txt and BASE-N.png, the
    clusters from the log's topology lines (else --clusters)."""
    with open(args.log, errors="replace") as f:
        text = f.read()
    blocks = extract(text)
    if not blocks:
        sys.exit("trace.py: no '%s' in %s (type `trace start`, then `trace stop` and "
                 "`trace dump` in the shell)" % (BEGIN, args.log))
    outdir = args.outdir or os.path.dirname(os.path.abspath(args.log))
    os.makedirs(outdir, exist_ok=True)
    base = os.path.splitext(os.path.basename(args.log))[0]
    clusters = clusters_from_log(text) or [cpulist(c) for c in args.clusters.split(",")]
    pngs = []
    for i, lines in enumerate(blocks, 1):
        events, skipped = parse_lenient(lines)
        if not events:
            print("trace.py: dump %d of %s has no events, skipped" % (i, args.log))
            continue
        stem = os.path.join(outdir, "%s-%d" % (base, i))
        with open(stem + ".txt", "w") as f:
            f.write("\n".join(lines) + "\n")
        plot_panels([("%s, dump %d\n%s" % (base, i, half_stats(events, clusters)), events)],
                    stem + ".png", clusters, model=power_model_from_log(text),
                    caps=capacities_from_log(text))
        print("trace.py: dump %d: %d events%s -> %s.txt, %s.png"
              % (i, len(events), ", %d other lines skipped" % skipped if skipped else "",
                 stem, stem))
        pngs.append(stem + ".png")
    return pngs


UP_RE = re.compile(r"^# up t_ms=(-?[\d.]+) cpu=(\d+) util_avg=(-?\d+)")
UP_DONE_RE = re.compile(r"RESULT spin_up from_cpu=0 first_big_ms=([\d.]+)")


def spinup_samples(text):
    """(t_ms, util_avg) pairs of a log's "# up" lines, and its first_big_ms (or None)."""
    pts = [(float(m.group(1)), int(m.group(3))) for m in map(UP_RE.match, text.splitlines())
           if m]
    done = UP_DONE_RE.search(text)
    return pts, float(done.group(1)) if done else None


def cmd_spinup(args):
    """The spinner's util over time on each log, the misfit line of cpu0 (capacity x 0.8),
    and a mark where each log's spinner was first seen on a big CPU (issue 32)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for i, log in enumerate(args.logs):
        with open(log, errors="replace") as f:
            pts, done = spinup_samples(f.read())
        if not pts:
            sys.exit("trace.py: no '# up' lines in %s (spin up trace / spin,up,trace)" % log)
        line, = ax.step([t for t, _ in pts], [u for _, u in pts], where="post",
                        label="%s (big after %s ms)" % (os.path.basename(log), done))
        if done is not None:
            ax.axvline(done, color=line.get_color(), linestyle=":", linewidth=1)
    ax.axhline(args.capacity * 0.8, color="black", linestyle="--", linewidth=1,
               label="misfit above %.0f (capacity %d x 0.8)" % (args.capacity * 0.8,
                                                                args.capacity))
    ax.set_xlabel("ms since the spinner was let go from cpu0")
    ax.set_ylabel("spinner's util_avg")
    ax.set_title(args.title)
    ax.legend(fontsize="small", loc="upper left")
    fig.tight_layout()
    fig.savefig(args.out, dpi=80)
    print("trace.py: %d logs -> %s" % (len(args.logs), args.out))


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
    p = sub.add_parser("halves")
    p.add_argument("experiment")
    p.add_argument("log")
    p.add_argument("outdir")
    p.add_argument("--name", default=None)
    p.add_argument("--machine", default="")
    p.add_argument("--clusters", default="0-3,4-7")
    p = sub.add_parser("record")
    p.add_argument("outdir")
    p.add_argument("--build", default="build")
    p.add_argument("--name", default="demo")
    p.add_argument("--feature", default="MISFIT")
    p.add_argument("--qemu", default=os.environ.get("QEMU", "qemu-system-aarch64"))
    p = sub.add_parser("log")
    p.add_argument("log")
    p.add_argument("outdir", nargs="?", default=None)
    p.add_argument("--clusters", default="0-3,4-7")
    p = sub.add_parser("csvplot")
    p.add_argument("csv")
    p.add_argument("out")
    p.add_argument("--title", default="")
    p.add_argument("--ncols", type=int, default=None)
    p = sub.add_parser("spinup")
    p.add_argument("out")
    p.add_argument("logs", nargs="+")
    p.add_argument("--capacity", type=int, default=462, help="cpu0's capacity")
    p.add_argument("--title", default="spin up: Linux 6.1 and littlebig on qemu-bl44")
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
    elif args.cmd == "halves":
        args.name = args.name or "e%s" % args.experiment
        cmd_halves(args)
    elif args.cmd == "log":
        cmd_log(args)
    elif args.cmd == "spinup":
        cmd_spinup(args)
    elif args.cmd == "csvplot":
        cmd_csvplot(args)
    else:
        cmd_record(args)


if __name__ == "__main__":
    main()
