#!/usr/bin/env python3
"""validate_report.py - a board's `selftest=validate` log as a short report
(docs/hikey960.md section 7), optionally beside a QEMU run of the same suite.

    python3 tools/validate_report.py board.log [--qemu build/test-logs/validate-all-qemu-bl44.log]

Reads the RESULT validate / validate_work / validate_idle lines the suite prints
(tests/kernel/selftest_validate.c) and the boot lines that say how the run was made
(speed model, cpufreq driver, calibration, idle states kept off). Prints, per group of
CPUs that share OPPs and capacity, the measured capacity beside the tree's; a
capacity-dmips-mhz the measurement suggests; the idle-state wakeup delays.
"""
import argparse
import re
import sys

KV = re.compile(r"(\w+)=(\S+)")


def fields(line):
    return {k: v for k, v in KV.findall(line)}


def parse(path):
    """The run's facts: rows of each RESULT kind and the notes that frame them."""
    run = {"validate": [], "work": [], "idle": [], "notes": [], "speed": None}
    with open(path, errors="replace") as f:
        for raw in f:
            line = raw.strip()
            if line.startswith("RESULT validate "):
                run["validate"].append(fields(line))
            elif line.startswith("RESULT validate_work "):
                run["work"].append(fields(line))
            elif line.startswith("RESULT validate_idle "):
                run["idle"].append(fields(line))
            elif line.startswith(("native:", "hi3660-stub-clk:", "hi3660-mbox:")) or (
                    line.startswith("cpuidle:") and ("kept off" in line or "refused" in line)):
                run["notes"].append(line)
            elif line.startswith("speed: model "):
                run["speed"] = line.split()[2]
            elif line.startswith("cpufreq: policy") and "driver=" in line:
                drv = fields(line).get("driver")
                note = "cpufreq driver: %s" % drv
                if note not in run["notes"]:
                    run["notes"].append(note)
    return run


def cpu_ranges(cpus):
    cpus = sorted(set(cpus))
    out, start = [], None
    for i, c in enumerate(cpus):
        if start is None:
            start = c
        if i + 1 == len(cpus) or cpus[i + 1] != c + 1:
            out.append(str(start) if start == c else "%d-%d" % (start, c))
            start = None
    return ",".join(out)


def groups(rows):
    """CPUs with the same (OPP, tree capacity) rows: one cluster on the HiKey960."""
    by_cpu = {}
    for r in rows:
        by_cpu.setdefault(int(r["cpu"]), []).append(
            (int(r["opp_khz"]), int(r["tree"]), int(r["hw_khz"]), int(r["measured"])))
    sig = {}
    for cpu, rs in by_cpu.items():
        key = tuple(sorted((o, t) for o, t, _, _ in rs))
        sig.setdefault(key, []).append(cpu)
    out = []
    for key, cpus in sig.items():
        table = []
        for opp, tree in key:
            ms = [m for c in cpus for o, t, h, m in by_cpu[c] if o == opp and t == tree]
            hws = sorted({h for c in cpus for o, t, h, m in by_cpu[c] if o == opp and t == tree})
            table.append({"opp": opp, "tree": tree, "hw": hws, "mean": sum(ms) / len(ms),
                          "min": min(ms), "max": max(ms)})
        out.append((cpus, table))
    out.sort(key=lambda g: min(g[0]))
    return out


def report(board, qemu=None, out=sys.stdout):
    w = out.write
    w("speed model: %s\n" % (board["speed"] or "unknown"))
    for n in board["notes"]:
        w("  %s\n" % n)
    gs = groups(board["validate"])
    if not gs:
        w("no RESULT validate lines: did the suite run? (selftest=validate)\n")
        return 1
    qratio = {}
    if qemu:
        for cpus, table in groups(qemu["validate"]):
            for row in table:
                qratio[(row["opp"], row["tree"])] = row["mean"] / max(row["tree"], 1)
    w("\ncapacity of the loop (1024 = the biggest CPU at its top OPP) beside the tree's\n")
    w("%-8s %8s %8s %9s %11s %6s %7s%s\n" % ("cpus", "opp_MHz", "hw_MHz", "measured",
                                            "(min-max)", "tree", "ratio",
                                            "  qemu_ratio" if qemu else ""))
    for cpus, table in gs:
        for row in table:
            hw = "/".join(str(h // 1000) for h in row["hw"])
            if row["hw"] != [row["opp"]]:
                hw += "*"
            q = qratio.get((row["opp"], row["tree"]))
            w("%-8s %8d %8s %9.0f %11s %6d %7.3f%s\n" % (
                cpu_ranges(cpus), row["opp"] // 1000, hw, row["mean"],
                "(%d-%d)" % (row["min"], row["max"]), row["tree"],
                row["mean"] / max(row["tree"], 1),
                "  %10.3f" % q if q is not None else ("  %10s" % "-" if qemu else "")))
    if any(row["hw"] != [row["opp"]] for _, t in gs for row in t):
        w("  * the firmware runs a rate other than the OPP asked\n")
    # capacity ~ dmips x f_max: what the loop says the tree's capacity-dmips-mhz should be
    tops = [(cpus, max(table, key=lambda r: r["opp"])) for cpus, table in gs]
    big = max(tops, key=lambda g: g[1]["tree"])  # the tree's biggest CPUs: 1024
    w("\ncapacity-dmips-mhz the loop suggests (the tree's biggest CPUs = 1024)\n")
    for cpus, top in tops:
        dm = 1024.0 * top["mean"] / big[1]["mean"] * big[1]["opp"] / top["opp"]
        tree_dm = 1024.0 * top["tree"] / big[1]["tree"] * big[1]["opp"] / top["opp"]
        w("  cpus %-8s %5.0f (the tree's: %.0f)\n" % (cpu_ranges(cpus), dm, tree_dm))
    if board["work"]:
        w("\ncpu_work() at f_max\n")
        for r in board["work"]:
            w("  cpu%-3s %s us of units took %s us: capacity %s (tree %s)\n" % (
                r["cpu"], r["units_us"], r["took_us"], r["measured"], r["tree"]))
    if board["idle"]:
        w("\nidle states: wakeup delay past the timer vs the tree's exit latency\n")
        for r in board["idle"]:
            w("  cpu%-3s sleep %6s us -> %-16s exit_tree %5s us, late %5s us%s\n" % (
                r["cpu"], r["sleep_us"], r["name"], r["exit_us_tree"], r["late_us"],
                "" if r.get("idles", "1") in ("0", "1") else " (%s idle periods)" % r["idles"]))
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log", help="the board's serial log")
    ap.add_argument("--qemu", help="a QEMU log of the same suite, for its ratios")
    a = ap.parse_args(argv)
    return report(parse(a.log), parse(a.qemu) if a.qemu else None)


if __name__ == "__main__":
    sys.exit(main())
