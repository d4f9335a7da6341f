#!/usr/bin/env python3
"""linux_pelt.py - the Linux-maths oracle: an independent model of Linux 6.1's PELT
bookkeeping (kernel/sched/pelt.[ch] and the PELT paths of fair.c, rt.c, core.c), replayed
over the core-level events that build/host/unittests prints for the scenarios of
tests/host/test_oracle.c (SCHED_ORACLE_TRACE=1), and compared, to the unit, with every
task's and run queue's values the kernel printed after each step.

The kernel tells us only what its core did (clock updates, enqueue, dequeue, the switch,
the tick, set_task_cpu, fork, a weight change, a blocked-load update); what Linux's
classes do about each is decided here: update_load_avg() with its flags, attach, detach,
remove (with sync_entity_load_avg and migrate_se_pelt_lag), util_est, the RT signal,
update_rq_clock_pelt() and update_idle_rq_clock_pelt() with lost_idle_time. The decay
table and LOAD_AVG_MAX are derived here from y^32 = 1/2, exactly, in integers.
No task groups (the root cfs_rq only), no DL class, no thermal pressure.

Prints KTAP: one case for the derived constants, one per scenario.
usage: linux_pelt.py [--unittests PATH] [--dtb PATH] [--trace FILE] [-v]
"""
import os
import sys
from decimal import Decimal, getcontext
import oracle_run

U32 = (1 << 32) - 1
U64 = (1 << 64) - 1
PERIOD = 32                     # LOAD_AVG_PERIOD: y^32 = 1/2
CAP_SHIFT = 10                  # SCHED_CAPACITY_SHIFT
UTIL_AVG_UNCHANGED = 0x80000000
UTIL_EST_WEIGHT_SHIFT = 2
UTIL_EST_MARGIN = 1024 // 100
WEIGHT_IDLEPRIO = 3


# ---- constants, from y^32 = 1/2 ---------------------------------------------------------

def derive_yn_inv():
    """runnable_avg_yN_inv[i] = floor((2^32 - 1) * y^i), y = 2^(-1/32), computed with
    60 significant digits so that no rounding of a float decides a floor."""
    getcontext().prec = 60
    y = Decimal(2) ** (Decimal(-1) / Decimal(PERIOD))
    return [int((Decimal(U32) * y ** i).to_integral_value(rounding="ROUND_FLOOR"))
            for i in range(PERIOD)]


YN_INV = derive_yn_inv()


def derive_load_avg_max():
    """The fixed point of max = max * y + 1024 in the kernel's integer arithmetic."""
    last, cur = None, 1024
    while cur != last:
        last, cur = cur, ((cur * YN_INV[1]) >> 32) + 1024
    return cur


LOAD_AVG_MAX = derive_load_avg_max()
MIN_DIVIDER = LOAD_AVG_MAX - 1024    # PELT_MIN_DIVIDER


def decay_load(val, n):
    if n > PERIOD * 63:
        return 0
    if n >= PERIOD:
        val >>= n // PERIOD
        n %= PERIOD
    return (val * YN_INV[n]) >> 32


def accumulate_segments(periods, d1, d3):
    c1 = decay_load(d1, periods)
    c2 = LOAD_AVG_MAX - decay_load(LOAD_AVG_MAX, periods) - 1024
    return c1 + c2 + d3


class Avg:
    """struct sched_avg, Python style: plain integers, widths applied where C has them."""
    FIELDS = ("lut", "load_sum", "runnable_sum", "util_sum", "period", "load", "runnable",
              "util", "ue_enq", "ue_ewma")

    def __init__(self):
        for f in self.FIELDS:
            setattr(self, f, 0)

    def divider(self):
        return MIN_DIVIDER + self.period

    def add_time(self, now, load, runnable, running):
        """___update_load_sum() with accumulate_sum(): 1 if a period boundary passed."""
        delta = (now - self.lut) & U64
        if delta >= 1 << 63:             # the clock went backwards
            self.lut = now
            return 0
        delta >>= 10
        if not delta:
            return 0
        self.lut += delta << 10
        if not load:
            runnable = running = 0
        contrib = delta
        delta += self.period
        periods = delta // 1024
        if periods:
            self.load_sum = decay_load(self.load_sum, periods)
            self.runnable_sum = decay_load(self.runnable_sum, periods)
            self.util_sum = decay_load(self.util_sum, periods) & U32
            delta %= 1024
            if load:
                contrib = accumulate_segments(periods, 1024 - self.period, delta)
        self.period = delta
        if load:
            self.load_sum += load * contrib
        if runnable:
            self.runnable_sum += (runnable * contrib) << CAP_SHIFT
        if running:
            self.util_sum = (self.util_sum + (contrib << CAP_SHIFT)) & U32
        return 1 if periods else 0

    def set_averages(self, weight):
        """___update_load_avg()."""
        d = self.divider()
        self.load = weight * self.load_sum // d
        self.runnable = self.runnable_sum // d
        self.util = self.util_sum // d


def sub_positive(val, sub, mask):
    sub &= mask
    res = (val - sub) & mask
    return 0 if res > val else res


# ---- the model of one machine -------------------------------------------------------------

class Task:
    def __init__(self, pid, cls, weight, cpu):
        self.pid, self.cls, self.weight, self.cpu = pid, cls, weight, cpu
        self.avg = Avg()
        self.on_rq = False


class Rq:
    def __init__(self, cpu, cap, clock, clock_task, clock_pelt, idle_pid):
        self.cpu, self.cap = cpu, cap
        self.clock, self.clock_task, self.clock_pelt, self.lost = clock, clock_task, clock_pelt, 0
        self.clock_idle, self.clock_pelt_idle = 0, 0
        self.idle_pid = idle_pid
        self.curr = None                 # the task running (None: idle)
        self.cfs = Avg()
        self.cfs_load = 0                # cfs_rq->load.weight
        self.cfs_nr = 0                  # h_nr_running
        self.cfs_curr = None             # cfs_rq->curr
        self.removed = [0, 0, 0, 0]      # nr, load, util, runnable
        self.rt = Avg()
        self.irq = Avg()

    def clock_pelt_now(self):            # rq_clock_pelt()
        return self.clock_pelt - self.lost

    def curr_cls(self):
        return self.curr.cls if self.curr else "i"


class Model:
    def __init__(self):
        self.rqs, self.tasks = {}, {}

    # -- the PELT clock (pelt.h) --
    def idle_sync(self, rq):             # _update_idle_rq_clock_pelt()
        rq.clock_pelt = rq.clock_task
        rq.clock_idle = rq.clock
        rq.clock_pelt_idle = rq.clock_pelt_now()

    def ev_clock(self, rq, e):           # update_rq_clock() -> update_rq_clock_task()
        delta = e["t"] - rq.clock
        if delta <= 0:
            return
        irq = min(e["arg"], delta)
        rq.clock = e["t"]
        delta -= irq
        rq.clock_task += delta
        if irq:
            self.update_irq(rq, irq, e["freq"])
        if rq.curr is None:              # update_rq_clock_pelt()
            self.idle_sync(rq)
        else:
            delta = (delta * rq.cap) >> CAP_SHIFT
            delta = (delta * e["freq"]) >> CAP_SHIFT
            rq.clock_pelt += delta

    def update_irq(self, rq, running, freq):   # update_irq_load_avg()
        running = (running * freq) >> CAP_SHIFT
        running = (running * rq.cap) >> CAP_SHIFT
        r = rq.irq.add_time(rq.clock - running, 0, 0, 0)
        r += rq.irq.add_time(rq.clock, 1, 1, 1)
        if r:
            rq.irq.set_averages(1)
        return r

    def update_rt(self, rq, running):    # update_rt_rq_load_avg()
        if rq.rt.add_time(rq.clock_pelt_now(), running, running, running):
            rq.rt.set_averages(1)
            return 1
        return 0

    def update_idle_rq_clock_pelt(self, rq):
        divider = ((LOAD_AVG_MAX - 1024) << CAP_SHIFT) - LOAD_AVG_MAX
        util_sum = (rq.cfs.util_sum + rq.rt.util_sum) & U32    # + dl: none here
        if util_sum >= divider:
            rq.lost += rq.clock_task - rq.clock_pelt
        self.idle_sync(rq)

    # -- CFS PELT (fair.c) --
    def se_update(self, rq, p, now):     # __update_load_avg_se()
        if p.avg.add_time(now, int(p.on_rq), int(p.on_rq), int(rq.cfs_curr is p)):
            p.avg.set_averages(p.weight)
            p.avg.ue_enq &= ~UTIL_AVG_UNCHANGED     # cfs_se_util_change()

    def blocked_se(self, p, now):        # __update_load_avg_blocked_se()
        if p.avg.add_time(now, 0, 0, 0):
            p.avg.set_averages(p.weight)

    def cfs_rq_update(self, rq, now):    # update_cfs_rq_load_avg()
        sa, decayed = rq.cfs, 0
        if rq.removed[0]:
            d = sa.divider()
            _, load, util, runnable = rq.removed
            rq.removed = [0, 0, 0, 0]
            sa.load = sub_positive(sa.load, load, U64)
            sa.load_sum = sub_positive(sa.load_sum, load * d, U64)
            sa.load_sum = max(sa.load_sum & U32, (sa.load * MIN_DIVIDER) & U32)
            sa.util = sub_positive(sa.util, util, U64)
            sa.util_sum = sub_positive(sa.util_sum, util * d, U32)
            sa.util_sum = max(sa.util_sum, (sa.util * MIN_DIVIDER) & U32)
            sa.runnable = sub_positive(sa.runnable, runnable, U64)
            sa.runnable_sum = sub_positive(sa.runnable_sum, runnable * d, U64)
            sa.runnable_sum = max(sa.runnable_sum & U32, (sa.runnable * MIN_DIVIDER) & U32)
            decayed = 1
        if sa.add_time(now, rq.cfs_load, rq.cfs_nr, int(rq.cfs_curr is not None)):
            sa.set_averages(1)
            decayed = 1
        return decayed

    def attach(self, rq, p):             # attach_entity_load_avg()
        sa, se = rq.cfs, p.avg
        d = sa.divider()
        se.lut, se.period = sa.lut, sa.period
        se.util_sum = (se.util * d) & U32
        se.runnable_sum = se.runnable * d
        se.load_sum = se.load * d
        se.load_sum = se.load_sum // p.weight if p.weight < se.load_sum else 1
        sa.load += se.load                                 # enqueue_load_avg()
        sa.load_sum += p.weight * se.load_sum
        sa.util += se.util
        sa.util_sum = (sa.util_sum + se.util_sum) & U32
        sa.runnable += se.runnable
        sa.runnable_sum += se.runnable_sum

    def dequeue_load_avg(self, rq, p):
        sa = rq.cfs
        sa.load = sub_positive(sa.load, p.avg.load, U64)
        sa.load_sum = sub_positive(sa.load_sum, p.weight * p.avg.load_sum, U64)
        sa.load_sum = max(sa.load_sum & U32, (sa.load * MIN_DIVIDER) & U32)

    def detach(self, rq, p):             # detach_entity_load_avg()
        sa, se = rq.cfs, p.avg
        self.dequeue_load_avg(rq, p)
        sa.util = sub_positive(sa.util, se.util, U64)
        sa.util_sum = sub_positive(sa.util_sum, se.util_sum, U32)
        sa.util_sum = max(sa.util_sum, (sa.util * MIN_DIVIDER) & U32)
        sa.runnable = sub_positive(sa.runnable, se.runnable, U64)
        sa.runnable_sum = sub_positive(sa.runnable_sum, se.runnable_sum, U64)
        sa.runnable_sum = max(sa.runnable_sum & U32, (sa.runnable * MIN_DIVIDER) & U32)

    def update_load_avg(self, rq, p, attach=False, detach=False):
        now = rq.clock_pelt_now()
        if p.avg.lut:
            self.se_update(rq, p, now)
        self.cfs_rq_update(rq, now)
        if not p.avg.lut and attach:
            self.attach(rq, p)
        elif detach:
            self.detach(rq, p)

    def util_est_update(self, rq, p):    # util_est_update(), UTIL_EST and _FASTUP on
        ue_enq, ewma = p.avg.ue_enq, p.avg.ue_ewma
        if ue_enq & UTIL_AVG_UNCHANGED:
            return
        last_enq_diff = ue_enq
        ue_enq = p.avg.util
        if ewma < ue_enq:
            p.avg.ue_enq, p.avg.ue_ewma = ue_enq | UTIL_AVG_UNCHANGED, ue_enq
            return
        last_ewma_diff = ue_enq - ewma
        last_enq_diff -= ue_enq
        within = lambda v: -UTIL_EST_MARGIN < v < UTIL_EST_MARGIN   # noqa: E731
        if within(last_ewma_diff):
            if not within(last_enq_diff):
                p.avg.ue_enq = ue_enq | UTIL_AVG_UNCHANGED
            return
        if p.avg.util > rq.cap:          # capacity_orig_of()
            return
        ewma = ((((ewma << UTIL_EST_WEIGHT_SHIFT) + last_ewma_diff) & U32)
                >> UTIL_EST_WEIGHT_SHIFT)
        p.avg.ue_enq, p.avg.ue_ewma = ue_enq | UTIL_AVG_UNCHANGED, ewma

    @staticmethod
    def task_util_est(p):                # _task_util_est()
        return max(p.avg.ue_ewma, p.avg.ue_enq & ~UTIL_AVG_UNCHANGED)

    # -- the core's events, handled as Linux 6.1's classes do --
    def ev_enqueue(self, rq, p, e):
        if p.cls != "f":
            return                       # enqueue_task_rt: no PELT
        rq.cfs.ue_enq = (rq.cfs.ue_enq + self.task_util_est(p)) & U32
        self.update_load_avg(rq, p, attach=True)          # UPDATE_TG | DO_ATTACH
        rq.cfs_load += p.weight
        rq.cfs_nr += 1
        p.on_rq = True

    def ev_dequeue(self, rq, p, e):
        if p.cls != "f":
            return
        rq.cfs.ue_enq -= min(rq.cfs.ue_enq, self.task_util_est(p))
        self.update_load_avg(rq, p, detach=e["onrq"] == 2)  # TASK_ON_RQ_MIGRATING
        p.on_rq = False
        rq.cfs_load -= p.weight
        rq.cfs_nr -= 1
        if e["arg"] & 1:                 # DEQUEUE_SLEEP: the task sleeps
            self.util_est_update(rq, p)

    def ev_put_prev(self, rq, p, e):
        if p is None:
            return
        if p.cls == "f":                 # put_prev_entity()
            if p.on_rq:
                self.update_load_avg(rq, p)
            rq.cfs_curr = None
        elif p.cls == "r":               # put_prev_task_rt()
            self.update_rt(rq, 1)

    def set_next(self, rq, p, first):
        if p.cls == "f":                 # set_next_entity()
            if p.on_rq:
                self.update_load_avg(rq, p)
            rq.cfs_curr = p
        elif p.cls == "r" and first and rq.curr_cls() != "r":     # set_next_task_rt()
            self.update_rt(rq, 0)

    def ev_pick(self, rq, p, e):
        if p is None:                    # the idle task
            if rq.curr_cls() in ("f", "i"):
                # pick_next_task_fair()'s idle path (the fast path of __pick_next_task)
                self.update_idle_rq_clock_pelt(rq)
            rq.curr = None
            return
        self.set_next(rq, p, True)
        rq.curr = p

    def ev_set_next(self, rq, p, e):     # the core puts back a task it changed
        self.set_next(rq, p, False)

    def ev_tick(self, rq, p, e):
        if p is None:
            return
        if p.cls == "f":                 # entity_tick()
            self.update_load_avg(rq, p)
        elif p.cls == "r":               # task_tick_rt()
            self.update_rt(rq, 1)

    def ev_migrate(self, rq, p, e):      # set_task_cpu() -> migrate_task_rq_fair()
        if p.cls == "f" and e["onrq"] != 2:
            self.remove(rq, p)
            self.pelt_lag(rq, p, e["t"])
        if p.cls == "f":
            p.avg.lut = 0
        p.cpu = e["arg"]

    def remove(self, rq, p):             # remove_entity_load_avg()
        self.blocked_se(p, rq.cfs.lut)                     # sync_entity_load_avg()
        rq.removed[0] += 1
        rq.removed[1] += p.avg.load
        rq.removed[2] += p.avg.util
        rq.removed[3] += p.avg.runnable

    def pelt_lag(self, rq, p, t):        # migrate_se_pelt_lag()
        a = p.avg
        if not (a.load_sum or a.util_sum or a.runnable_sum) or rq.curr is not None:
            return
        now, lut = rq.clock_pelt_idle, rq.cfs.lut
        now = lut if now < lut else now + t - rq.clock_idle
        self.blocked_se(p, now)

    def ev_fork(self, rq, p, e):         # init_entity_runnable_average + post_init_...
        p = Task(e["pid"], e["cls"], e["w"], rq.cpu)
        self.tasks[p.pid] = p
        if p.cls != "f":
            return
        p.avg.load = p.weight
        cap = rq.cap - rq.cfs.util
        cap = -((-cap) // 2) if cap < 0 else cap // 2     # C's division, toward 0
        if cap > 0:
            if rq.cfs.util:
                p.avg.util = min(rq.cfs.util * (p.weight << 10) // (rq.cfs.load + 1), cap)
            else:
                p.avg.util = cap
        p.avg.runnable = p.avg.util

    def ev_change(self, rq, p, e):
        p.old_cls = p.cls

    def ev_changed(self, rq, p, e):      # set_load_weight(p, true) -> reweight_task()
        if e["idlepol"]:
            p.weight = WEIGHT_IDLEPRIO
        elif p.old_cls == "f":
            self.dequeue_load_avg(rq, p)                   # reweight_entity()
            p.weight = e["w"]
            p.avg.load = p.weight * p.avg.load_sum // p.avg.divider()
            rq.cfs.load += p.avg.load
            rq.cfs.load_sum += p.weight * p.avg.load_sum
        else:
            p.weight = e["w"]
        p.cls = e["cls"]

    def ev_switched(self, rq, p, e):     # check_class_changed()
        if p.old_cls == "f" and p.avg.lut:                # switched_from_fair()
            self.update_load_avg(rq, p)                    # detach_entity_cfs_rq()
            self.detach(rq, p)
        if p.cls == "f":                                   # switched_to_fair()
            self.update_load_avg(rq, p)                    # attach_entity_cfs_rq()
            self.attach(rq, p)

    def ev_dead(self, rq, p, e):         # task_dead_fair()
        if p.cls == "f":
            self.remove(rq, p)

    def ev_blocked(self, rq, p, e):      # update_blocked_averages()
        self.update_rt(rq, int(rq.curr_cls() == "r"))
        if rq.irq.add_time(rq.clock, 0, 0, 0):            # update_irq_load_avg(rq, 0)
            rq.irq.set_averages(1)
        self.cfs_rq_update(rq, rq.clock_pelt_now())

    def event(self, e):
        rq = self.rqs[e["cpu"]]
        if e["ev"] == "clock":
            return self.ev_clock(rq, e)
        p = self.tasks.get(e["pid"])
        if p is None and e["cls"] == "s":        # a stopper: no PELT of its own
            p = self.tasks[e["pid"]] = Task(e["pid"], "s", 0, rq.cpu)
        if e["ev"] == "fork":
            return self.ev_fork(rq, p, e)
        if p is None and e["pid"] not in (-1, rq.idle_pid) and e["cls"] != "s":
            raise Unsupported("event for a task never forked: %r" % e)
        getattr(self, "ev_" + e["ev"])(rq, p, e)


class Unsupported(Exception):
    pass


# ---- the trace ------------------------------------------------------------------------------

def fields(words):
    out = {}
    for w in words:
        k, _, v = w.partition("=")
        out[k] = v if k in ("cls",) or not v.lstrip("-").isdigit() else int(v)
    return out


def parse(lines):
    """Scenarios: name -> list of items, ("ev", dict) or ("check", step, what, {key: dict})."""
    scen, cur, check = [], None, None
    for line in lines:
        if not line.startswith("O "):
            continue
        w = line.split()
        if w[1] == "scenario":
            cur = {"name": w[2], "cpus": [], "items": []}
            scen.append(cur)
        elif w[1] == "cpu":
            cur["cpus"].append((int(w[2]), fields(w[3:])))
        elif w[1] == "ev":
            e = fields(w[3:])
            e["ev"] = w[2]
            cur["items"].append(("ev", e))
        elif w[1] == "check":
            check = {"step": int(w[2]), "what": w[3], "t": fields(w[4:])["t"], "vals": {}}
            cur["items"].append(("check", check))
        elif w[1] in ("task", "cfs", "rt", "clock"):
            check["vals"][(w[1], int(w[2]))] = fields(w[3:])
        elif w[1] == "done":
            cur["done"] = True
    return scen


def compare(model, check):
    """The first difference between the kernel's values and the model's, or None."""
    for (kind, ident), vals in sorted(check["vals"].items()):
        if kind == "task":
            p = model.tasks.get(ident)
            if p is None:
                return "task %d: not in the model" % ident
            mine = p.avg
        elif kind in ("cfs", "rt"):
            mine = getattr(model.rqs[ident], kind)
        else:
            rq = model.rqs[ident]
            ref = {"clock": rq.clock, "clock_task": rq.clock_task,
                   "clock_pelt": rq.clock_pelt, "lost": rq.lost}
            for k, v in vals.items():
                if ref[k] != v:
                    return "cpu %d %s: kernel %d, Linux %d" % (ident, k, v, ref[k])
            continue
        for k in Avg.FIELDS:
            if getattr(mine, k) != vals[k]:
                return ("%s %d %s: kernel %d, Linux %d (util: kernel %d, Linux %d)"
                        % (kind, ident, k, vals[k], getattr(mine, k), vals["util"], mine.util))
    return None


def run_scenario(sc, verbose):
    """(ok, diagnostics)."""
    model = Model()
    for cpu, f in sc["cpus"]:
        model.rqs[cpu] = Rq(cpu, f["cap"], f["clock"], f["clock_task"], f["clock_pelt"],
                            f["idle_pid"])
    recent, diag = [], []
    checks = 0
    try:
        for item in sc["items"]:
            if item[0] == "ev":
                model.event(item[1])
                recent = (recent + [item[1]])[-8:]
                continue
            check = item[1]
            checks += 1
            diff = compare(model, check)
            if diff:
                diag.append("step %d (%s, t=%d ns): %s" % (check["step"], check["what"],
                                                          check["t"], diff))
                diag += ["  after: " + " ".join("%s=%s" % kv for kv in sorted(e.items()))
                         for e in recent[-4:]]
                return False, diag
    except Unsupported as exc:
        return False, ["unsupported by the model: %s" % exc]
    if not sc.get("done"):
        return False, ["the scenario did not finish (see the unittests output)"]
    if not checks:
        return False, ["no values to compare"]
    finals = ", ".join("pid %d util %d ue %d/%d" % (p.pid, p.avg.util,
                                                     p.avg.ue_enq & ~UTIL_AVG_UNCHANGED,
                                                     p.avg.ue_ewma)
                       for p in model.tasks.values() if p.cls == "f")
    lost = ", ".join("cpu%d %d" % (c, r.lost) for c, r in sorted(model.rqs.items()) if r.lost)
    diag.append("%d steps equal; end: %s%s" % (checks, finals,
                                                "; lost_idle_time " + lost if lost else ""))
    return True, diag


def constants_case():
    """Linux's published sched-pelt.h values, as a check on the derivation."""
    want = {0: 0xffffffff, 1: 0xfa83b2da, 16: 0xb504f333, 31: 0x82cd8698}
    bad = ["runnable_avg_yN_inv[%d] = %#x, Linux %#x" % (i, YN_INV[i], v)
           for i, v in want.items() if YN_INV[i] != v]
    if LOAD_AVG_MAX != 47742:
        bad.append("LOAD_AVG_MAX = %d, Linux 47742" % LOAD_AVG_MAX)
    return not bad, bad or ["y^n table and LOAD_AVG_MAX = %d derived" % LOAD_AVG_MAX]


def main():
    a = oracle_run.args(__doc__, [("--dtb", os.path.join(oracle_run.ROOT,
                                                         "build/dts/hi3660-hikey960.dtb"))])
    scen = parse(oracle_run.trace(a, ["--dtb", a.dtb, "sched_oracle"], "SCHED_ORACLE_TRACE"))
    cases = [("linux_pelt_constants", constants_case)]
    cases += [("oracle_" + sc["name"], lambda sc=sc: run_scenario(sc, a.verbose))
              for sc in scen]
    failed = oracle_run.report(cases)
    if len(scen) == 0:
        print("# no scenarios in the trace: is %s built?" % a.unittests)
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
