"""The overload record of a run (issue #17): per overload pair and wire, the capacity, every step's
figures, and the goals with their verdicts. Pure given the cells' windows (unit-tested on built
windows, no servers).

A pair (profile [[overload]] block) measures, in every start and round, a closed-model capacity
window of both wires at once and then each step, both wires at once, at a percent of that
capacity. Per step and wire, over its windows:

  offeredRate     the arrival rate asked for (median over windows: each window's is a percent of the
                  capacity of its own start and round)
  goodputRps      successful responses per second, with its bootstrap interval
  refusals        answered 503 / UNAVAILABLE (admission control), in all and per second;
                  admissionRefused is the service's own count (tandem_admission_refused_total)
  timeouts        timed out at the deadline (504 / DEADLINE_EXCEEDED, or the generator's own timeout)
  lateAnswers     accepted, but answered after the deadline counted from the request's due time
  otherErrors     every other failure
  p50/p99         of the accepted requests, timed from their due time (coordinated omission corrected)
  hitRatio        the warm cache's overall hit ratio: median and lowest over the windows
  l1Flushes       by reason, summed over the windows (the service's /actuator/cache counters)
  admissionLimit  the service's concurrency limit read after each window (median; lowest)
  serviceCores    the CPU the services (and the balancer, where one runs) used, in cores (median over
                  the windows): what the profile's CPU cap holds together, so a step at or near the
                  cap's cores had no CPU to spare, whatever share of the closed capacity it offered
  serviceP99Ms    the accepted requests' p99 as the service itself timed them (its histograms of the
                  step's windows pooled: windows.pooled_service_latency; until 2026-12-01 the median of
                  the windows' own p99s, which read lower): beside p99, how much of the wait was inside the service
                  and how much before it (in the kernel's queues, on a busy event loop or Tomcat's
                  poller) or in the generator
  capThrottledShare  the share of the CPU cap's periods in which the capped processes ran out of
                  their quota and all stopped until the next (median over the windows; the cgroup's
                  cpu.stat): how often the cap itself, not a queue, held every request up
  ioOverCarrier   the wire's service's CPU on its I/O threads (Tomcat's poller and acceptor, Netty's
                  event loops) over its CPU on the carriers that run the admitted requests' code
                  (median over the windows; cpu.THREAD_KINDS): where a refused request costs (on gRPC
                  a refusal is all I/O-thread work), and how much of the cap the connections take

Goals per wire (the issue's, "at 2× the saturating rate"), read at the lowest step offered at least
twice the wire's peak goodput (the 2× step, doubleStep): the saturating rate is the most the wire
serves, and the most it served under open arrivals is its peak; the goodput goal compares with that
same peak. Why not the step at 200 % of the closed capacity, as until 2026-11-29: a few closed users
on as many connections cost a call less than open arrivals over hundreds of connections do, so a
wire's closed capacity is above the most it serves open (gRPC's peak goodput was 0.56-0.77 of it in
the four runs of that day, so its 200 % step offered 2.6-3.6 times the peak). Nor a rate searched
open at the start (tried: results/20261129T193407Z-overload-cf28a83): the highest rate served whole
is where admission control starts refusing, not where goodput stops growing (gRPC's goodput peaked
at twice that rate). The steps stay percents of the closed capacity, dense enough from 100 to 250 %
that the 2× step offers 2-2.4 times the peak; the record says which step it was and what multiple.
Each goal has a status by the rule the dashboard applies to the hot path's goals (decomposition.ts
goalStatus): met when the whole 95 % interval is on the goal's side of the bound, not met when all
of it is on the other side, undecided when it holds the bound or there is none. Counts (timeouts, flushes) and the lowest hit
ratio have no sampling interval: every window is counted, so their interval is the value itself; a
window that answered requests but whose cache counters could not be read leaves the hit-ratio goal
undecided where the windows read meet it (they say nothing of it).
A goal measured in windows whose generator could not offer the load (generator-saturated,
rate-short, dropped-arrivals) did not happen as planned. Where the shortfall is in the 2× step (or
the peak step), the service saw less load than planned, so the figure can only flatter it (more
goodput, a lower p99, fewer timeouts; the arrivals never started are the ones that would have
waited longest): a goal the figure still fails is not met, one it meets is undecided. A shortfall in
the unloaded step, the p99's reference, could bias either way: undecided whatever the value.
A wire none of whose steps offered twice its peak (its goodput still grew at the top step: the
capacity window underestimated what it serves, or it queues rather than refuses) has no 2× step: its
goals at 2× are missing, saying so.

What a refusal costs in place (refusalCost, per wire): over the windows of the saturated steps, the
CPU the wire's refusing processes spent (the service's; with the balancer in front, the balancer's
too, where REST's refusals happen) is fitted as served × s + refused × f (least squares, no
constant: past saturation the capped CPU is all spent on arrivals), and r = f ÷ s, with its
bootstrap interval (the steps' windows drawn by the same start and round). That is the figure the
goodput goal turns on: with A arrivals a second, every one over what the CPU U serves refused, the
admitted keep x = (U − f·A) ÷ (s − f), so at 2× the goal (x ≥ 0.8 × peak) needs
r ≤ (U ÷ s − 0.8·peak) ÷ (A − 0.8·peak), reported as ratioForGoal from the 2× step's own U and A
(at A = 2 × peak with U what the peak was served with, r ≤ 1/6).
None when the saturated steps refused less than REFUSAL_FIT_SHARE of their requests (nothing to fit).
"""
from __future__ import annotations

import numpy as np

from . import pooled, windows
from .stats import goal_status  # the rule the hot path's goals are judged by too (report.py)

DOUBLE = 2.0                      # "2× the saturating rate": the goals' step offered at least this × the peak goodput
GOODPUT_KEPT = 0.8                # goodput at 2× ÷ peak, at least
P99_GROWTH = 10.0                 # accepted p99 at 2× ÷ unloaded p99, at most
WARM_HIT_RATIO = 0.97             # every step, at least
GENERATOR_FLAGS = ("generator-saturated", "rate-short", "dropped-arrivals")
SERVED = 0.95                     # a step whose goodput is at least this share of its offered load is not saturated
WIRES = ("rest", "grpc")
REFUSAL_FIT_SHARE = 0.05          # the saturated steps must refuse at least this share of their requests to fit r
CAPPED = (*windows.SERVICE_NAMES.values(), "balancer")   # the processes the profile's CPU cap holds (cpu_quota.py)


def _goal(key: str, label: str, bound: float, at_most: bool, value, low=None, high=None, *,
          exact: bool = False, generator_flags: list | None = None, flattering_flags: list | None = None,
          missing_why: str | None = None, unseen: str | None = None, counted_flags: list | None = None) -> dict:
    """generator_flags: shortfalls that may bias the figure either way; flattering_flags: shortfalls
    that can only make it look better (see the module's docstring); unseen: why some of the windows
    the goal asks about are not in the figure (a goal the rest already fail is not met, one they meet
    undecided); counted_flags: flags of the windows it rests on that the headlines would have left
    out (the service compiling, MariaDB reads in a warm window): counted, and said so."""
    if exact:
        low = high = value
    status = goal_status(value, low, high, bound, at_most)
    reason = None
    if generator_flags and status != "missing":
        status, reason = "undecided", ("the generator could not offer the load in every window it rests on ("
                                       + ", ".join(sorted(set(generator_flags))) + ")")
    elif flattering_flags and status == "not met":
        reason = ("not met even though the generator offered less than planned ("
                  + ", ".join(sorted(set(flattering_flags))) + "), which can only flatter the figure")
    elif flattering_flags and status != "missing":
        status, reason = "undecided", ("the generator could not offer the load in every window it rests on ("
                                       + ", ".join(sorted(set(flattering_flags))) + ")")
    elif status == "missing":
        reason = missing_why
    if unseen and status == "met":
        status, reason = "undecided", unseen
    if counted_flags and reason is None and status != "missing":
        reason = ("rests on windows flagged " + ", ".join(sorted(set(counted_flags)))
                  + ", which the headlines would leave out; counted here")
    return {"key": key, "label": label, "bound": bound, "atMost": at_most, "value": value, "low": low,
            "high": high, "status": status, "reason": reason}


def _sum(windows_: list, key: str):
    vals = [w.get(key) for w in windows_]
    return None if any(v is None for v in vals) else sum(vals)


def _flushes(windows_: list) -> dict | None:
    total: dict = {}
    for w in windows_:
        if w.get("l1Flushes") is None:
            return None
        for reason, n in w["l1Flushes"].items():
            total[reason] = total.get(reason, 0) + n
    return total


def _service_cores(w: dict) -> float | None:
    """The capped processes' CPU in the window, in cores. A window names every process the bench
    tracks, None for one that did not run: no balancer is none of the cap's CPU, while a service
    not measured leaves the figure unknown."""
    cpu = w.get("cpuSeconds")
    if not cpu or not w.get("seconds") or any(cpu.get(k) is None for k in windows.SERVICE_NAMES.values()):
        return None
    return sum(cpu.get(k) or 0.0 for k in CAPPED) / w["seconds"]


def _throttled_share(w: dict) -> float | None:
    """The share of the window's CFS periods in which the capped group ran out of its quota."""
    t = w.get("capThrottling")
    return t["throttledPeriods"] / t["periods"] if t and t.get("periods") else None


def _io_over_carrier(w: dict) -> float | None:
    """The window's service CPU on I/O threads over that on the carriers (None without the reading)."""
    kinds = (w.get("serviceThreads") or {}).get("cpuMsByKind")
    return kinds["io"] / kinds["carrier"] if kinds and kinds["carrier"] > 0 else None


def step_record(run, draws) -> dict:
    """One wire's figures at one step (or the capacity window, step None) from its CellRun."""
    ws = run.windows
    # refusals a second of offered load, as goodput is (windows.build), not of the span to the slowest answer
    seconds = (run.plan.duration_seconds * len(ws) if run.plan.model == "open"
               else sum(w["seconds"] for w in ws))
    hits = [w["hitRatio"]["overall"] for w in ws]
    refusals = _sum(ws, "refusals")
    p50 = pooled.bootstrap(run.data, draws, windows.percentile_ms(50))
    p99 = pooled.bootstrap(run.data, draws, windows.percentile_ms(99))
    return {
        "cellId": run.plan.id,
        "step": run.plan.step,
        "offeredRate": windows.median_present([w.get("offeredRate") for w in ws]),
        "goodputRps": pooled.bootstrap(run.data, draws, windows.throughput),
        "requests": sum(w["requests"] for w in ws),
        "refusals": refusals,
        "admissionRefused": _sum(ws, "admissionRefused"),
        "refusalsPerSecond": refusals / seconds if refusals is not None and seconds else None,
        "timeouts": _sum(ws, "timeouts"),
        "lateAnswers": _sum(ws, "lateAnswers"),
        "otherErrors": _sum(ws, "otherErrors"),
        "p50": p50,
        "p99": p99,
        "hitRatio": windows.median_present(hits),
        "minHitRatio": min((h for h in hits if h is not None), default=None),
        "l1Flushes": _flushes(ws),
        "admissionLimit": windows.median_present([w.get("admissionLimit") for w in ws]),
        "minAdmissionLimit": min((w["admissionLimit"] for w in ws if w.get("admissionLimit") is not None),
                                 default=None),
        "serviceCores": windows.median_present([_service_cores(w) for w in ws]),
        "serviceP99Ms": (windows.pooled_service_latency(list(run.data.values())) or {}).get("p99"),
        "capThrottledShare": windows.median_present([_throttled_share(w) for w in ws]),
        "ioOverCarrier": windows.median_present([_io_over_carrier(w) for w in ws]),
        "flags": sorted({f["code"] for w in ws for f in w["flags"]}),
    }


def saturated(step: dict | None) -> bool | None:
    """Whether a step was past the wire's capacity: it served less than SERVED of its offered load.
    None without the figures."""
    if step is None or step["offeredRate"] is None or step["goodputRps"]["value"] is None:
        return None
    return step["goodputRps"]["value"] < SERVED * step["offeredRate"]


def double_step(steps: list, peak: dict | None) -> dict | None:
    """The step the goals at 2× are read at: the lowest (steps ascend) offered at least DOUBLE × the
    peak goodput. None when none was, or without a peak."""
    if peak is None or not peak["goodputRps"]["value"]:
        return None
    return next((s for s in steps if s["offeredRate"] is not None
                 and s["offeredRate"] >= DOUBLE * peak["goodputRps"]["value"]), None)


def goodput_over_peak(double_run, step_runs: list, draws_for) -> dict:
    """Goodput at the 2× step ÷ the peak goodput, with its interval. The peak is the highest step's
    goodput in each replicate as on the point figures (a pair's steps share their service starts and
    rounds, so their draws are paired): the interval then carries the doubt over which step peaks. Read
    against the step that peaked on the point figures, a 2× step that was itself that step made the
    ratio exactly 1 in every replicate, an interval of [1–1] and a goal "met" on no evidence."""
    none = {"value": None, "low": None, "high": None}
    if double_run is None or not step_runs:
        return none

    def peak(figures):
        present = [f for f in figures if f is not None]
        return max(present) if present else None

    def div(a, b):
        return a / b if a is not None and b else None

    value = div(windows.throughput(list(double_run.data.values())),
                peak([windows.throughput(list(r.data.values())) for r in step_runs]))
    if value is None or any(len(r.data) < 2 for r in step_runs):
        return {**none, "value": value}
    draws = {id(r): draws_for(r) for r in step_runs}
    reps = [div(windows.throughput(pooled.choose(double_run.data, draws[id(double_run)][b])),
                peak([windows.throughput(pooled.choose(r.data, draws[id(r)][b])) for r in step_runs]))
            for b in range(len(draws[id(double_run)]))]
    low, high = pooled.interval(reps)
    return {"value": value, "low": low, "high": high}


def _generator_flags(*steps) -> list:
    return [code for s in steps if s for code in s["flags"] if code in GENERATOR_FLAGS]


def _counted_flags(*steps) -> list:
    """The steps' flags that take a window out of the headlines (windows.NOT_EXCLUDING's jit can, when
    another window of its start has none), other than the generator's, which the goals judge apart."""
    noted = {"other-cpu", "few-samples"}
    return [code for s in steps if s for code in s["flags"] if code not in GENERATOR_FLAGS and code not in noted]


def _cpu_of(protocol: str, front: str | None) -> tuple[str, ...]:
    """The processes (cpuSeconds keys) whose CPU a wire's requests, served or refused, are paid with."""
    return (windows.SERVICE_NAMES[protocol],) + (("balancer",) if front == "balancer" else ())


def _served_and_refused_cost(ws: list, cpu_of: tuple[str, ...]) -> tuple[float, float] | None:
    """CPU seconds per served and per refused request, by least squares over windows (None when the
    windows cannot tell them apart)."""
    if len(ws) < 2:
        return None
    a = np.array([[w["ok"], w["refusals"]] for w in ws], dtype=float)
    b = np.array([sum(w["cpuSeconds"][k] for k in cpu_of) for w in ws], dtype=float)
    if np.linalg.matrix_rank(a) < 2:
        return None
    served, refused = np.linalg.lstsq(a, b, rcond=None)[0]
    return float(served), float(refused)


def refusal_cost(protocol: str, front: str | None, steps: list, step_runs: list, peak: dict | None,
                 double: dict | None, draws_for) -> dict | None:
    """r, a refusal's CPU ÷ a served request's, fitted over the saturated steps' windows (module
    docstring), and the r the goodput goal at 2× would need. None with too few refusals to fit."""
    cpu_of = _cpu_of(protocol, front)
    fitted = [(s, r) for s, r in zip(steps, step_runs) if saturated(s)]
    by_key = [{(w["start"], w["round"]): w for w in r.windows
               if w.get("refusals") is not None and all((w.get("cpuSeconds") or {}).get(k) is not None for k in cpu_of)}
              for _, r in fitted]
    ws = [w for keyed in by_key for w in keyed.values()]
    requests = sum(w["ok"] + w["refusals"] for w in ws)
    if not ws or not requests or sum(w["refusals"] for w in ws) < REFUSAL_FIT_SHARE * requests:
        return None
    costs = _served_and_refused_cost(ws, cpu_of)
    if costs is None or costs[0] <= 0:
        return None
    served, refused = costs

    def ratio(draw) -> float | None:
        c = _served_and_refused_cost([w for keyed in by_key for w in pooled.choose(keyed, draw)], cpu_of)
        return c[1] / c[0] if c and c[0] > 0 else None

    low, high = pooled.interval([ratio(d) for d in draws_for(fitted[0][1])])
    for_goal = None
    at_double = next((keyed for (s, _), keyed in zip(fitted, by_key) if double and s["step"] == double["step"]), None)
    if at_double and peak and peak["goodputRps"]["value"]:
        cpu = windows.median_present([sum(w["cpuSeconds"][k] for k in cpu_of) / w["seconds"]
                                      for w in at_double.values()])
        arrivals = windows.median_present([(w["ok"] + w["refusals"]) / w["seconds"] for w in at_double.values()])
        kept = GOODPUT_KEPT * peak["goodputRps"]["value"]
        if arrivals > kept:
            for_goal = max(0.0, (cpu / served - kept) / (arrivals - kept))
    return {"servedUs": served * 1e6, "refusedUs": refused * 1e6,
            "ratio": {"value": refused / served, "low": low, "high": high},
            "ratioForGoal": for_goal, "windows": len(ws), "cpuOf": list(cpu_of)}


def wire_record(protocol: str, capacity_run, step_runs: list, draws_for) -> dict:
    """A wire's capacity, steps and goals. draws_for(run) → the bootstrap draws of its group."""
    capacity = step_record(capacity_run, draws_for(capacity_run)) if capacity_run else None
    step_runs = sorted(step_runs, key=lambda r: r.plan.step)
    plan = (capacity_run or step_runs[0]).plan
    steps = [step_record(r, draws_for(r)) for r in step_runs]
    by_step = {s["step"]: (s, r) for s, r in zip(steps, step_runs)}
    peak = max(steps, key=lambda s: s["goodputRps"]["value"] or -1, default=None)
    double = double_step(steps, peak)
    double_run = by_step[double["step"]][1] if double else None
    unloaded, unloaded_run = (steps[0], by_step[steps[0]["step"]][1]) if steps else (None, None)
    wire = "REST" if protocol == "rest" else "gRPC"

    def ratio(num_run, den_run, figure):
        if num_run is None or den_run is None:
            return {"value": None, "low": None, "high": None}
        r, _ = pooled.ratio_interval(num_run.data, draws_for(num_run), figure,
                                     den_run.data, draws_for(den_run), figure)
        return r

    kept = goodput_over_peak(double_run, step_runs, draws_for)
    growth = ratio(double_run, unloaded_run, windows.percentile_ms(99))
    past_deadline = None
    if double is not None and double["timeouts"] is not None and double["lateAnswers"] is not None:
        past_deadline = double["timeouts"] + double["lateAnswers"]
    hit_values = [s["minHitRatio"] for s in steps]
    min_hit = None if not steps or any(v is None for v in hit_values) else min(hit_values)
    # A window that answered requests but has no hit ratio: its cache counters could not be read
    # (the readings around it failed). Its requests went through a cache nobody saw, so the lowest
    # hit ratio of the windows that were read is a bound on what was seen, not on every window.
    unread = sum(1 for r in step_runs for w in r.windows if w["ok"] and w["hitRatio"]["overall"] is None)
    flush_steps = [s["l1Flushes"] for s in steps]
    flushes = None if not steps or any(f is None for f in flush_steps) else sum(sum(f.values()) for f in flush_steps)
    unloaded_label = f"{unloaded['step']:g} %" if unloaded else "the lowest step"
    first_saturated = next((s["step"] for s in steps if saturated(s)), None)
    no_double = None
    if double is None and peak is not None:
        top = steps[-1]
        no_double = (f"no step offered twice the peak goodput ({peak['goodputRps']['value']:.0f}/s at "
                     f"{peak['step']:g} %; the highest offered {top['offeredRate'] or 0:.0f}/s): its goodput was still "
                     "growing, so the capacity window underestimated what it serves, or it queues instead of refusing")
    goals = [
        _goal("goodputAt2xOverPeak", f"{wire} · goodput at 2× ÷ peak goodput", GOODPUT_KEPT, False,
              kept["value"], kept["low"], kept["high"], flattering_flags=_generator_flags(double, peak),
              missing_why=no_double, counted_flags=_counted_flags(double, peak)),
        _goal("p99At2xOverUnloaded", f"{wire} · accepted p99 at 2× ÷ at {unloaded_label}", P99_GROWTH, True,
              growth["value"], growth["low"], growth["high"], generator_flags=_generator_flags(unloaded),
              flattering_flags=_generator_flags(double),
              missing_why=no_double, counted_flags=_counted_flags(double, unloaded)),
        _goal("pastDeadlineAt2x", f"{wire} · requests timed out or answered after their deadline at 2×", 0, True,
              past_deadline, exact=True, flattering_flags=_generator_flags(double), missing_why=no_double),
        _goal("minWarmHitRatio", f"{wire} · lowest warm hit ratio over every step's windows", WARM_HIT_RATIO, False,
              min_hit, exact=True,
              unseen=f"{unread} windows answered requests whose cache counters could not be read" if unread else None),
        _goal("l1Flushes", f"{wire} · L1 flushes over every step", 0, True, flushes, exact=True),
    ]
    return {"protocol": protocol, "tool": plan.tool,
            "front": plan.front,
            "capacity": capacity, "steps": steps,
            "peak": {"step": peak["step"], "goodputRps": peak["goodputRps"]} if peak else None,
            "doubleStep": {"step": double["step"], "offeredOverPeak": double["offeredRate"] / peak["goodputRps"]["value"]}
            if double else None,
            "firstSaturatedStep": first_saturated,
            "goodputAt2xOverPeak": kept, "p99At2xOverUnloaded": growth, "pastDeadlineAt2x": past_deadline,
            "minHitRatio": min_hit, "l1FlushCount": flushes, "goals": goals,
            "refusalCost": refusal_cost(protocol, plan.front, steps, step_runs, peak, double, draws_for)}


def records(runs: dict, draws: pooled.Plans, group_of) -> list[dict]:
    """One record per overload pair of the run. runs: cell id → windows.CellRun; group_of(plan) →
    the bootstrap group (cells measured in the same service processes share their draws)."""
    pairs: dict[str, list] = {}
    for run in runs.values():
        if run.plan.pair and run.windows:
            pairs.setdefault(run.plan.pair, []).append(run)

    def draws_for(run):
        return draws.for_group(group_of(run.plan), list(run.data))

    out = []
    for pair, pair_runs in pairs.items():
        first = pair_runs[0].plan
        wires = []
        for protocol in WIRES:
            mine = [r for r in pair_runs if r.plan.protocol == protocol]
            if not mine:
                continue
            capacity = next((r for r in mine if r.plan.step is None), None)
            wires.append(wire_record(protocol, capacity, [r for r in mine if r.plan.step is not None], draws_for))
        out.append({
            "id": pair, "operation": first.operation, "pageSize": first.page_size, "cacheMode": first.cache_mode,
            "temperature": first.temperature, "tls": first.tls,
            "percents": sorted({r.plan.step for r in pair_runs if r.plan.step is not None}),
            "timeoutSeconds": first.timeout_seconds, "wires": wires,
        })
    return out
