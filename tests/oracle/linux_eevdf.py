#!/usr/bin/env python3
"""linux_eevdf.py - Linux 6.12's EEVDF rules in Python, replayed over the kernel's events.

An independent model of the fair class's policy as Linux 6.12.117 (kernel/sched/fair.c)
states it, written from its rules, not from kernel/sched/fair_eevdf.c: V as the weighted
average of the queued vruntimes (curr included), rounded down; eligibility as
sum w_i (v_i - v) >= 0 without dividing; the pick as the earliest virtual deadline among
the eligible entities (a brute-force scan, not a tree); deadlines v + slice x 1024 / w
once v reaches the old one; placement v = V - vlag x (W + w) / W (PLACE_LAG), a new
task's first request half a slice (PLACE_DEADLINE_INITIAL), a deadline kept relative to
vruntime across a non-sleeping dequeue (PLACE_REL_DEADLINE); the lag clamped at a dequeue
to twice the slice (at least a tick) in virtual time; RUN_TO_PARITY's deadline stash in
vlag and PREEMPT_SHORT's cancelling of it at a wakeup; a weight change on a dequeued
entity scaling its vlag by w / w'; DELAY_DEQUEUE (a sleeper that is not eligible stays
queued; its dequeue finishes when picked, its positive lag clipped to 0 by DELAY_ZERO; a
wakeup requeues it, placed afresh at lag 0 if it became eligible meanwhile).

tests/host/test_eevdf_oracle.c runs random sequences (fork, run, sleep, wake, nice,
slice) on CPU 4 of the host build under sched=eevdf and prints each class-level event
("E ev", with the run queue's clock_task) and, after each step, each task's state and the
run queue's V ("E check" / "E task"). The model replays the events, must make the same
pick at every pick, and must print the same V, vruntime, deadline, vlag, slice, weight
and queued state to the unit. The one deliberate difference from Linux it shares with
the kernel: calc_delta_fair() divides exactly (delta x 1024 / w) where Linux multiplies
by a 32-bit inverse (docs/deviations.md).

  tests/oracle/linux_eevdf.py [--unittests build/host/unittests] [--trace FILE] [-v]
"""
import sys
import oracle_run

NICE_0 = 1024
U64 = 1 << 64
ENQUEUE_WAKEUP, ENQUEUE_INITIAL = 0x01, 0x04
DEQUEUE_SLEEP = 0x01
# Linux 6.12's features.h defaults; the run prints the kernel's word and we check it.
FEATURES = ["PLACE_LAG", "PLACE_DEADLINE_INITIAL", "PLACE_REL_DEADLINE", "RUN_TO_PARITY",
            "PREEMPT_SHORT", "PICK_BUDDY"]


def tdiv(a, b):
    """C's signed division (truncation towards zero)."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def cdf(delta, w):
    """calc_delta_fair(): virtual time of delta ns at weight w."""
    return delta if w == NICE_0 else delta * NICE_0 // w


class Task:
    def __init__(self, pid):
        self.pid = pid
        self.w = NICE_0
        self.v = 0
        self.d = 0
        self.vlag = 0
        self.stash = False  # vlag holds RUN_TO_PARITY's deadline (absolute), not a lag
        self.slice = 0
        self.custom = False
        self.on_rq = False
        self.rel = False
        self.delayed = False  # DELAY_DEQUEUE: asleep, still queued
        self.seq = 0  # insertion order: equal deadlines leave FIFO


class Model:
    def __init__(self, base_slice, tick, origin):
        self.base = base_slice
        self.tick = tick
        self.origin = origin  # absolute u64 of relative 0
        self.tasks = {}
        self.curr = None
        self.exec_start = 0
        self.zero = 0  # the last V computed (kept while nothing is queued)
        self.seq = 0
        self.errors = []

    # ---- V and eligibility ------------------------------------------------------------
    def queued(self):
        return [t for t in self.tasks.values() if t.on_rq]

    def sums(self):
        q = self.queued()
        return sum(t.w * t.v for t in q), sum(t.w for t in q)

    def V(self, update=True):
        s, w = self.sums()
        v = s // w if w else self.zero  # Python's // is floor, as avg_vruntime() rounds
        if update:
            self.zero = v
        return v

    def eligible(self, v):
        s, w = self.sums()
        return s >= v * w

    def tree(self):
        return [t for t in self.queued() if t is not self.curr]

    # ---- update_curr, update_deadline --------------------------------------------------
    def update_curr(self, now):
        c = self.curr
        if c is None or now - self.exec_start <= 0:
            return
        delta = now - self.exec_start
        self.exec_start = now
        c.v += cdf(delta, c.w)
        if c.v - c.d >= 0:  # the request is served: a new one
            if not c.custom:
                c.slice = self.base
            c.d = c.v + cdf(c.slice, c.w)
            self.V()

    # ---- the pick ----------------------------------------------------------------------
    def pick(self):
        q = self.queued()
        if not q:
            return None
        if len(q) == 1:
            return q[0]
        curr = self.curr
        if curr is not None and (not curr.on_rq or not self.eligible(curr.v)):
            curr = None
        if curr is not None and curr.stash and curr.vlag == curr.d:
            return curr  # RUN_TO_PARITY: its request is not served yet
        best = None
        for t in sorted(self.tree(), key=lambda t: (t.d, t.seq)):
            if self.eligible(t.v):
                best = t
                break
        if best is None or (curr is not None and curr.d < best.d):
            best = curr
        return best

    # ---- placement and lag -------------------------------------------------------------
    def place(self, t, flags):
        V = self.V()
        if not t.custom:
            t.slice = self.base
        vslice = cdf(t.slice, t.w)
        lag = 0
        if self.queued():  # PLACE_LAG, with something queued already (t is not yet)
            load = sum(x.w for x in self.queued())
            lag = tdiv(t.vlag * (load + t.w), load)
        t.v = V - lag
        if t.rel:  # PLACE_REL_DEADLINE
            t.d += t.v
            t.rel = False
            return
        if flags & ENQUEUE_INITIAL:  # PLACE_DEADLINE_INITIAL
            vslice //= 2
        t.d = t.v + vslice

    def lag(self, t):
        limit = cdf(max(2 * t.slice, self.tick), t.w)
        return max(-limit, min(limit, self.V() - t.v))

    # ---- the events --------------------------------------------------------------------
    def task(self, ev):
        pid = ev["pid"]
        if pid not in self.tasks:
            self.tasks[pid] = Task(pid)  # task_fork: vlag 0, placed at its first enqueue
        t = self.tasks[pid]
        t.slice, t.custom = ev["slice"], bool(ev["custom"])
        return t

    def event(self, ev):
        name, now, pid = ev["name"], ev["ct"], ev["pid"]
        t = self.task(ev) if pid >= 0 else None
        if name == "enqueue":
            if t.w != ev["w"]:
                t.w = ev["w"]
            if t is self.curr:
                self.place(t, ev["arg"])
                self.update_curr(now)
            else:
                self.update_curr(now)
                self.place(t, ev["arg"])
            t.stash = False
            self.seq += 1
            t.seq = self.seq
            t.on_rq = True
        elif name == "dequeue":
            self.update_curr(now)
            if ev["arg"] & DEQUEUE_SLEEP and not self.eligible(t.v):
                t.delayed = True  # DELAY_DEQUEUE: it stays, to burn its negative lag
                return
            t.vlag = self.lag(t)
            t.stash = False
            if not ev["arg"] & DEQUEUE_SLEEP:
                t.d -= t.v
                t.rel = True
            t.on_rq = False
        elif name == "block":  # a delayed sleeper's dequeue finishes
            self.update_curr(now)
            t.vlag = self.lag(t)
            t.stash = False
            t.on_rq = False
            t.delayed = False
            if t.vlag > 0:  # DELAY_ZERO
                t.vlag = 0
        elif name == "requeue":  # a delayed sleeper wakes
            t.vlag = self.lag(t)
            t.stash = False
            if t.vlag > 0:  # DELAY_ZERO: eligible meanwhile, starts afresh
                t.on_rq = False
                t.vlag = 0
                self.place(t, 0)
                self.seq += 1
                t.seq = self.seq
                t.on_rq = True
            t.delayed = False
        elif name == "put_prev":
            if t is not None and t.on_rq:
                self.update_curr(now)
            self.curr = None
        elif name == "pick":
            want = self.pick()
            got = t
            if (want.pid if want else -1) != (got.pid if got else -1):
                self.errors.append("pick at %d: kernel %s, model %s" % (
                    now, got.pid if got else "idle", want.pid if want else "idle"))
            self.set_next(got, now)
        elif name == "set_next":
            self.set_next(t, now)
        elif name in ("tick", "update_curr"):
            if t is not None:
                self.update_curr(now)
        elif name == "preempt_check":
            self.preempt_check(t, now, ev["resched"])
        elif name == "changed":
            if t.w != ev["w"]:  # reweight of an entity off the queue: vlag is lag / w
                if not t.on_rq:
                    t.vlag = tdiv(t.vlag * t.w, ev["w"])
                t.w = ev["w"]

    def set_next(self, t, now):
        self.curr = t
        if t is None:
            return
        self.exec_start = now
        if t.on_rq:
            t.vlag, t.stash = t.d, True

    def preempt_check(self, p, now, resched):
        c = self.curr
        if c is None or c is p or resched:
            return  # the class returns before looking (curr on its way out)
        self.update_curr(now)
        if p.slice < c.slice and self.eligible(p.v) and (p.d < c.d or not self.eligible(c.v)):
            if c.stash and c.vlag == c.d:
                c.vlag = c.d + 1  # PREEMPT_SHORT cancels RUN_TO_PARITY

    # ---- comparing -----------------------------------------------------------------------
    def rel(self, x):
        r = (x - self.origin) % U64
        return r - U64 if r >= U64 // 2 else r

    def check(self, line, tasks):
        errs = []
        if self.rel(line["V"]) != self.V(update=False):
            errs.append("V kernel %d, model %d" % (self.rel(line["V"]), self.V(update=False)))
        if line["nr"] != len(self.queued()):
            errs.append("nr_running kernel %d, model %d" % (line["nr"], len(self.queued())))
        for k in tasks:
            t = self.tasks.get(k["pid"])
            if t is None:
                continue
            vlag = (self.origin + t.vlag) % U64 if t.stash else t.vlag % U64
            want = {"q": int(t.on_rq), "dl": int(t.delayed), "v": t.v, "d": t.d,
                    "slice": t.slice, "w": t.w, "rel": int(t.rel)}
            got = {"q": k["q"], "dl": k["dl"], "v": self.rel(k["v"]), "d": self.rel(k["d"]),
                   "slice": k["slice"], "w": k["w"], "rel": k["rel"]}
            if t.rel:  # a relative deadline is a plain distance, not a point in time
                got["d"] = k["d"] - U64 if k["d"] >= U64 // 2 else k["d"]
            for f in want:
                if want[f] != got[f]:
                    errs.append("pid %d %s kernel %d, model %d" % (t.pid, f, got[f], want[f]))
            if k["vlag"] % U64 != vlag:
                errs.append("pid %d vlag kernel %d, model %d%s" % (
                    t.pid, k["vlag"], t.vlag, " (stash)" if t.stash else ""))
        return errs


def fields(words):
    out = {}
    for w in words:
        if "=" in w:
            k, v = w.split("=", 1)
            out[k] = int(v)
    return out


def parse(lines):
    scen = []
    for line in lines:
        if not line.startswith("E "):
            continue
        w = line.split()
        if w[1] == "scenario":
            scen.append({"head": fields(w[2:]), "items": []})
        elif w[1] == "ev":
            ev = fields(w[3:])
            ev["name"] = w[2]
            scen[-1]["items"].append(("ev", ev))
        elif w[1] == "check":
            c = fields(w[4:])
            c["step"], c["what"] = int(w[2]), w[3]
            scen[-1]["items"].append(("check", c, []))
        elif w[1] == "task":
            scen[-1]["items"][-1][2].append(fields(w[2:]))
    return scen


def run_scenario(sc, verbose):
    head = sc["head"]
    first = next(i for i in sc["items"] if i[0] == "check")
    m = Model(head["base_slice"], head["tick"], first[1]["V"])
    diag, picks, checks = [], 0, 0
    for item in sc["items"]:
        if item[0] == "ev":
            m.event(item[1])
            picks += item[1]["name"] == "pick"
            if m.errors:
                diag += m.errors
                return False, diag[:10]
        else:
            checks += 1
            errs = m.check(item[1], item[2])
            if errs:
                diag.append("step %d (%s):" % (item[1]["step"], item[1]["what"]))
                diag += errs
                return False, diag[:12]
    diag.append("seed %d: %d picks and %d checks agree" % (head["seed"], picks, checks))
    return True, diag


def main():
    a = oracle_run.args(__doc__)
    scen = parse(oracle_run.trace(a, ["eevdf_oracle"], "SCHED_EEVDF_TRACE"))
    if not scen:
        oracle_run.report([("eevdf_oracle", lambda: (False, [
            "no scenarios in the trace: is %s built?" % a.unittests]))])
        return 1
    cases = [("eevdf_seed_%d" % sc["head"]["seed"], lambda sc=sc: run_scenario(sc, a.verbose))
             for sc in scen]
    return 1 if oracle_run.report(cases) else 0


if __name__ == "__main__":
    sys.exit(main())
