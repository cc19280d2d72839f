"""The end-of-run summary printed by `make bench`: a plain aligned table, the A + B·N fits, the
headline ratios recomputed from the cells, the run's notes, and how to open the dashboard."""
from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from . import stats
from .cpu import KINDS as THREAD_KINDS

DASHBOARD_LINE = "Open the dashboard: make dashboard  →  http://127.0.0.1:5173"

OP_ORDER = {"Hello": 0, "GetGroup": 1, "ListGroups": 2}
CACHE_ORDER = {"none": 0, "local": 1, "redis": 2, "hybrid": 3}
TEMP_ORDER = {"none": 0, "cold": 1, "warm": 2}

def sig(v, digits: int = 3) -> str:
    """A figure to `digits` significant digits, thousands separated, trailing zeros dropped, no
    exponent, '-' when absent: as the dashboard prints it (format.ts formatNumber; both test against
    tests/fixtures/figures-as-text.json). Half away from zero on the figure's exact value, as
    JavaScript's toPrecision rounds: '%.3g' rounds half to even, which printed a watch p99 of 334.5 ms
    as 334 where the dashboard showed 335, and printed 24,136 req/s whole where it showed 24,100."""
    if v is None:
        return "-"
    if v == 0:
        return "0"
    exact = Decimal(v)   # a float's exact binary value, so a tie is a tie only when it is one
    rounded = exact.quantize(Decimal(1).scaleb(exact.adjusted() - digits + 1), rounding=ROUND_HALF_UP)
    text = f"{rounded:,f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def sig_apart(v, mark, digits: int = 3) -> str:
    """sig(v), with as many more digits as it takes not to print v as the mark it is read against (1
    for a ratio, a goal's bound) when it is not that mark: 0.9996 is "0.9996" beside 1, not "1",
    which beside "finding" (the interval excludes 1) said the opposite. As the dashboard's
    format.ts awayFromOne."""
    text = sig(v, digits)
    marks = () if mark is None else tuple(mark) if isinstance(mark, (tuple, list)) else (mark,)
    if v is None:
        return text
    while any(float(text.replace(",", "")) == m != v for m in marks) and digits < 12:
        digits += 1
        text = sig(v, digits)
    return text


def interval(iv: dict | None) -> str:
    """'3,980 [3,900–4,050]' from an Interval: the value and each bound to three digits of its own."""
    if not iv or iv.get("value") is None:
        return "-"
    if iv.get("low") is None:
        return sig(iv["value"])
    return f"{sig(iv['value'])} [{sig(iv['low'])}–{sig(iv['high'])}]"


def ratio(iv: dict, marks=(1,)) -> str:
    """'1.08× [0.997–1.09]': a ratio, read against 1 (its verdict; a goal's also against its bound),
    with its interval; no figure prints as a mark it is not (sig_apart), as the dashboard's cards."""
    if iv.get("value") is None:
        return "-"
    text = f"{sig_apart(iv['value'], marks)}×"
    if iv.get("low") is not None:
        text += f" [{sig_apart(iv['low'], marks)}–{sig_apart(iv['high'], marks)}]"
    return text


def _pct(v):
    return "-" if v is None else sig(v * 100)


COLUMNS = [
    # header, right-aligned?, value of a cell
    ("protocol", False, lambda c: c["protocol"]),
    ("tool", False, lambda c: c["tool"]),
    ("tls", False, lambda c: "tls" if c["tls"] else "-"),
    ("traced", False, lambda c: "traced" if c.get("tracing") else "-"),
    ("cache", False, lambda c: c["cacheMode"]),
    ("temp", False, lambda c: c["temperature"]),
    ("operation", False, lambda c: c["operation"] + (f" n={c['pageSize']}" if c["pageSize"] else "")),
    ("conc", True, lambda c: str(c["concurrency"])),
    ("model", False, lambda c: "closed" if c["model"] == "closed" else f"open {c['targetRate']:g}/s"),
    ("role", False, lambda c: c["role"]),
    ("ok req/s [95% CI]", True, lambda c: interval(c["summary"]["throughputRps"])),
    ("p50 ms [95% CI]", True, lambda c: interval(c["summary"]["latencyIntervalMs"]["p50"])),
    ("in svc p50", True, lambda c: sig((c["summary"].get("serviceLatencyMs") or {}).get("p50"))),
    ("p99 ms", True, lambda c: sig(c["summary"]["latencyMs"]["p99"])),
    ("p99.9 ms", True, lambda c: sig(c["summary"]["latencyMs"]["p999"])),
    ("err %", True, lambda c: _pct(c["summary"]["errorRate"])),
    ("server µs/req", True, lambda c: interval(c["summary"]["cpuUsPerRequest"]["server"])),
    ("sys %", True, lambda c: _pct((c["summary"].get("serviceThreads") or {}).get("systemShare"))),
    ("csw/req", True, lambda c: sig((c["summary"].get("serviceThreads") or {}).get("contextSwitchesPerRequest"))),
    ("gen cores", True, lambda c: sig(c["summary"]["generatorCores"])),
    ("hit %", True, lambda c: _pct(c["summary"]["hitRatio"]["overall"])),
    ("rows/req", True, lambda c: sig(c["summary"]["db"]["rowsReadPerRequest"], 2)),
    ("flags", False, lambda c: ",".join(sorted({f["code"] for f in c["flags"]})) or "-"),
]


def _sort_key(c):
    return (OP_ORDER[c["operation"]], c["pageSize"] or 0, c["model"], c["concurrency"],
            CACHE_ORDER[c["cacheMode"]], TEMP_ORDER[c["temperature"]], c["protocol"], c["tool"], c["tls"],
            bool(c.get("tracing")), c["targetRate"] or 0)


def table(cells) -> str:
    """One aligned row per cell (medians over repetitions), a blank line between operations."""
    cells = sorted(cells, key=_sort_key)
    rows = [[get(c) for _, _, get in COLUMNS] for c in cells]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, (h, _, _) in enumerate(COLUMNS)]

    def line(values):
        return "  ".join(v.rjust(w) if right else v.ljust(w)
                         for v, w, (_, right, _) in zip(values, widths, COLUMNS)).rstrip()

    out = [line([h for h, _, _ in COLUMNS]), line(["-" * w for w in widths])]
    previous = None
    for cell, row in zip(cells, rows):
        group = (cell["operation"], cell["pageSize"])
        if previous is not None and group != previous:
            out.append("")
        previous = group
        out.append(line(row))
    return "\n".join(out)


def thread_lines(cells) -> list[str]:
    """Where the measured service's CPU went, per cell: µs a successful request by kind of thread
    (cpu.THREAD_KINDS) and their sum. Empty when no cell has the reading (a run
    against a target, or from before it was recorded)."""
    cells = [c for c in sorted(cells, key=_sort_key)
             if (c["summary"].get("serviceThreads") or {}).get("cpuUsPerRequestByKind")]
    if not cells:
        return []
    header = ["cell", *THREAD_KINDS, "all"]
    by_kind = [c["summary"]["serviceThreads"]["cpuUsPerRequestByKind"] for c in cells]
    rows = [[c["id"], *(sig(k[kind]) for kind in THREAD_KINDS), sig(sum(k.values()))]
            for c, k in zip(cells, by_kind)]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]

    def line(values):
        return "  ".join(v.rjust(w) if i else v.ljust(w) for i, (v, w) in enumerate(zip(values, widths))).rstrip()

    return ["The measured service's CPU, µs a successful request by thread (carrier: the virtual threads' "
            "carriers, each request's own code; io: the server's I/O threads; redis: the Redis client's; gc: "
            "the collector's and the VM thread's; jit: the compilers'), read before and after the generator's run "
            "(the table's server µs/req is over the measured span only, with MariaDB and Redis):",
            "  " + line(header), "  " + line(["-" * w for w in widths]), *("  " + line(r) for r in rows)]


# The hot path's goals (issue 14), each a headline ratio: key, bound, at most (else at least), and
# whether a failed request of a cell it compares fails the goal. As the dashboard's goal cards
# (decomposition.ts HOT_PATH_GOALS, goalVerdict); both test against tests/fixtures/hot-path-goals.json.
HOT_PATH_GOALS = tuple(
    goal for suffix in ("Rest", "Grpc") for goal in (
        (f"getGroupOverHelloServerCpu{suffix}", 1.1, True, False),
        (f"getGroupOverHelloP50{suffix}", 1.15, True, False),
        (f"users500Over50Throughput{suffix}", 0.9, False, True))
) + (("users500Over50ThroughputMultiplexedGrpc", 0.9, False, True),)


def hot_path_goal(h: dict | None, key: str, cells) -> tuple[str, str]:
    """met / not met / undecided / missing, and why: the verdict a headline's 1 is not (a goal met
    with an interval holding 1 is a result; one undecided whose interval excludes 1 is not)."""
    _, bound, at_most, no_errors = next(g for g in HOT_PATH_GOALS if g[0] == key)
    if not h or h.get("value") is None:
        return "missing", (h or {}).get("reason") or "no pair of cells for it in this run"
    if no_errors:
        used = [p for p in h["pairs"] if not p.get("excluded")] or h["pairs"]
        ids = {i for p in used for i in (p["numeratorCellId"], p["denominatorCellId"])}
        failed = [c["id"] for c in cells if c["id"] in ids and c["summary"]["errors"] > 0]
        if failed:
            return "not met", f"{', '.join(failed)} failed requests"
    if h["verdict"] == "flagged":
        return "undecided", "the bench flagged every window it could come from"
    if h.get("low") is None or h.get("high") is None:
        return "undecided", "no interval to decide it"
    status = stats.goal_status(h["value"], h["low"], h["high"], bound, at_most)
    near, far = ("at or below", "above") if at_most else ("at or above", "below")
    if status == "met":
        return status, f"the whole 95 % interval is {near} {bound:g}"
    if status == "not met":
        return status, f"the whole 95 % interval is {far} {bound:g}"
    return status, f"the 95 % interval [{sig_apart(h['low'], bound)}–{sig_apart(h['high'], bound)}] holds {bound:g}"


def hot_path_goal_lines(head: dict, cells) -> list[str]:
    """Each hot path goal the run has a headline for, with its figure and status (none for other runs)."""
    goals = [g for g in HOT_PATH_GOALS if g[0] in head]
    if not goals:
        return []
    width = max(len(g[0]) for g in goals)
    lines = ["Hot path goals (met: the whole 95 % interval on the goal's side of its bound):"]
    for key, bound, at_most, no_errors in goals:
        h = head[key]
        status, why = hot_path_goal(h, key, cells)
        value = ratio(h, (1, bound)) if h.get("value") is not None else "-"
        goal = f"{'≤' if at_most else '≥'} {bound:g}{' with no errors' if no_errors else ''}"
        lines.append(f"  {key.ljust(width)}  {goal:<22} {value:<24} {status} — {why}")
    return lines


# headlines whose brackets are the lowest and highest over what they pair (headline.py _body_headline)
RANGE_HEADLINES = ("jsonOverProtobufBodyBytes",)


def headline_lines(head: dict) -> list[str]:
    width = max(len(name) for name in head)
    lines = []
    for name, h in head.items():
        # a ratio read against 1 (its verdict): no figure that is not 1 prints as 1
        value = ratio(h)
        if name in RANGE_HEADLINES and h["low"] is not None:
            value += " min–max"   # not a bootstrap interval, whatever the heading says of the others
        why = f" — {h['reason']}" if h["reason"] else ""
        lines.append(f"  {name.ljust(width)}  {value:<22} {h['verdict']}{why}")
    return lines


def _r2(r2: float | None) -> str:
    return "-" if r2 is None else f"{r2:.4f}"


def fit_lines(fits) -> list[str]:
    lines = []
    for f in fits:
        lines.append(f"  {f['protocol']:<4} {f['tool']:<3} {'tls' if f.get('tls') else '':<3} {f['cacheMode']:<6} {f['temperature']:<4} "
                     f"c={f['concurrency']:<3}  A = {sig(f['a'])} ms  B = {sig(f['b'])} ms/row  R² = {_r2(f['r2'])}"
                     f"  (N = {', '.join(str(p['pageSize']) for p in f['points'])})")
        cpu = f.get("serverCpu")
        if cpu:
            # what a request and a row cost the server, whatever the queueing in the p50 above
            lines.append(f"  {'':<31}server CPU  A = {sig(cpu['a'])} µs  B = {sig(cpu['b'])} µs/row  R² = {_r2(cpu['r2'])}")
    return lines


def summary(run: dict) -> str:
    """The text `make bench` prints at the end of a run."""
    cells = run["cells"]
    fits = run.get("fits")
    if fits is None:
        fits, _ = stats.fits_from_cells(cells)
    parts = [
        f"Run {run['runId']} (profile {run['profile']['name']}, {len(cells)} cells, "
        f"{_repetitions(cells)})",
        "",
        table(cells) if cells else "(no cells)",
        "",
        *(lines + [""] if (lines := thread_lines(cells)) else []),
        # the fits are over closed cells at many users (assemble), whose p50 is mostly queueing
        "Cycle time = A + B·N (ListGroups, p50 of closed cells at c users, least squares; at many users that p50 "
        "is mostly queueing, about users ÷ throughput, so A is not a request's fixed cost; the server CPU line "
        "under a fit is what a request, A, and a row, B, cost the service, MariaDB and Redis):",
        *(fit_lines(fits) or ["  (no cell group with two or more page sizes)"]),
        "",
        "Headline (geometric mean over pairs of cells that differ only in what is compared, bootstrap 95 % interval):",
        *headline_lines(run["headline"]),
        *(["", *lines] if (lines := hot_path_goal_lines(run["headline"], cells)) else []),
    ]
    for pair in run.get("overload") or []:
        parts += ["", *overload_lines(pair)]
    if run.get("watch"):
        parts += ["", *watch_lines(run["watch"])]
    resolved = run["profile"].get("resolved") or {}
    if run.get("overload"):
        for what, key in (("admission", "admissionOverrides"), ("cache", "cacheOverrides")):
            overrides = resolved.get(key)
            parts.append(f"  services' {what} settings: " + (", ".join(f"{k}={v}" for k, v in overrides.items())
                                                             if overrides else "their defaults (tandem-domain.yml)"))
        if resolved.get("balancer"):
            b = resolved["balancer"]
            parts.append(f"  balancer: {b['config']} (nginx, one process beside the services), at most "
                         f"{b['restInFlight']} REST requests in flight")
    if run.get("notes"):
        parts += ["", "Notes:", *(f"  - {n}" for n in run["notes"])]
    parts += ["", DASHBOARD_LINE]
    return "\n".join(parts)


def overload_lines(pair: dict) -> list[str]:
    """An overload pair: per wire its steps (offered rate, goodput, refusals, timeouts, accepted p99,
    the same p99 as the service timed it, hit ratio, L1 flushes, admission limit, the services' CPU in
    cores, the share of the cap's periods it throttled them in, the wire's service's CPU on its I/O
    threads over that on its carriers), then its figures against the issue's goals."""
    op = pair["operation"] + (f" n={pair['pageSize']}" if pair["pageSize"] else "")
    lines = [f"Under overload: {op}, {pair['cacheMode']} {pair['temperature']}, both wires at once "
             f"(deadline {sig(pair['timeoutSeconds'])} s; goodput and p99 with 95 % intervals):"]
    header = ("step", "offered/s", "goodput/s [95% CI]", "refused/s", "timeouts", "late", "other err",
              "p50 ms", "p99 ms [95% CI]", "in svc p99", "hit % (min)", "L1 flushes", "limit", "svc cores", "throttled", "io÷carrier", "flags")
    for wire in pair["wires"]:
        name = "REST" if wire["protocol"] == "rest" else "gRPC"
        cap = wire["capacity"]
        through = ", through the compose balancer" if wire.get("front") == "balancer" else ""
        lines.append(f"  {name} ({wire['tool']}{through}): capacity with both wires loaded "
                     f"{interval(cap['goodputRps']) if cap else '-'} ok/s; peak goodput "
                     f"{interval(wire['peak']['goodputRps']) if wire['peak'] else '-'} ok/s"
                     + (f" at {sig(wire['peak']['step'])} %" if wire["peak"] else "")
                     + ("" if "doubleStep" not in wire else
                        "; no step offered twice the peak" if wire["doubleStep"] is None else
                        f"; 2×: the {sig(wire['doubleStep']['step'])} % step, "
                        f"{sig(wire['doubleStep']['offeredOverPeak'])}× the peak offered")
                     + ("" if "firstSaturatedStep" not in wire else
                        "; no step saturated it" if wire["firstSaturatedStep"] is None else
                        f"; saturated from {sig(wire['firstSaturatedStep'])} %"))
        rows = [[f"{sig(st['step'])} %", sig(st["offeredRate"]), interval(st["goodputRps"]),
                 sig(st["refusalsPerSecond"]), str(st["timeouts"]) if st["timeouts"] is not None else "-",
                 str(st["lateAnswers"]) if st["lateAnswers"] is not None else "-",
                 str(st["otherErrors"]) if st["otherErrors"] is not None else "-",
                 sig(st["p50"]["value"]), interval(st["p99"]), sig(st.get("serviceP99Ms")),
                 f"{_pct(st['hitRatio'])} ({_pct(st['minHitRatio'])})",
                 "-" if st["l1Flushes"] is None else
                 (", ".join(f"{k} {v:g}" for k, v in st["l1Flushes"].items()) or "0"),
                 sig(st["admissionLimit"]),
                 sig(st.get("serviceCores")),
                 _pct(st.get("capThrottledShare")),
                 sig(st.get("ioOverCarrier")),
                 ",".join(st["flags"]) or "-"] for st in wire["steps"]]
        widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(header)]
        lines.append("    " + "  ".join(h.rjust(w) for h, w in zip(header, widths)).rstrip())
        lines += ["    " + "  ".join(v.rjust(w) for v, w in zip(r, widths)).rstrip() for r in rows]
        lines += goal_lines(wire["goals"])
        if cost := wire.get("refusalCost"):
            lines.append(_refusal_cost_line(cost))
    return lines


def goal_lines(goals: list[dict]) -> list[str]:
    """An overload wire's goals (overload._goal): label, bound, figure and status. The figure is read
    against the bound (met / not met), so it never prints as the bound when it is not (sig_apart)."""
    lines = []
    for g in goals:
        bound = f"{'≤' if g['atMost'] else '≥'} {sig(g['bound'])}"
        low, value, high = (sig_apart(g[k], g["bound"]) for k in ("low", "value", "high"))
        if g["value"] is None:
            value = "-"
        elif g["low"] is not None and g["low"] != g["high"]:
            value = f"{value}× [{low}–{high}]"
        why = f" — {g['reason']}" if g["reason"] else ""
        lines.append(f"    goal {g['label']} {bound}: {value}  {g['status']}{why}")
    return lines


def _refusal_cost_line(cost: dict) -> str:
    """What a refusal cost in place (overload.refusal_cost), next to the ratio the goodput goal needed."""
    whose = " + ".join("the balancer" if k == "balancer" else k.replace("-", " ") for k in cost["cpuOf"])
    need = cost["ratioForGoal"]
    return (f"    a refusal in place cost {sig(cost['refusedUs'])} µs of CPU ({whose}) against "
            f"{sig(cost['servedUs'])} µs a served request: r = {interval(cost['ratio'])}, fitted over the "
            f"{cost['windows']} windows of the saturated steps"
            + ("" if need is None else
               f"; 0.8 of the peak at 2× would have needed r ≤ {sig(need)} with that step's CPU and arrivals"))


def watch_lines(records: list[dict]) -> list[str]:
    """The WatchGroup cells: change-to-client latency per wire, cache mode and load write rate."""
    header = ("wire", "client", "cache", "watches", "load writes/s (achieved)", "changes", "missed",
              "p50 ms", "p99 ms", "max ms", "window p50s ms", "from request p50/p99 ms")
    rows = []
    for r in records:
        s = r["summary"]
        lat, req, spread = s["latencyMs"], s["fromRequestMs"], s["windowP50Ms"]
        rows.append(["REST" if r["protocol"] == "rest" else "gRPC", r["client"], r["cacheMode"], str(r["watchers"]),
                     f"{sig(r['writeRate'])} ({sig(s['achievedWriteRate'])})", str(s["changes"]),
                     str(s["missed"]) + (f", {s['errors']} errors" if s["errors"] else ""),
                     sig(lat["p50"]), sig(lat["p99"]), sig(lat["max"]),
                     "-" if spread is None else f"{sig(spread['min'])}–{sig(spread['max'])}",
                     f"{sig(req['p50'])}/{sig(req['p99'])}"])
    widths = [max([len(h)] + [len(row[i]) for row in rows]) for i, h in enumerate(header)]
    return ["Change to client (WatchGroup: from a write's answer to the watch's receipt; p50 from 20 changes, p99 from 1,000):",
            "  " + "  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip(),
            *("  " + "  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in rows)]


def _repetitions(cells) -> str:
    windows = sorted({len(c["windows"]) for c in cells})
    return f"{'/'.join(map(str, windows))} windows per cell" if windows else "no windows"


def main(argv: list[str] | None = None) -> int:
    """python -m tandem_bench.report results/<run-id>/run.json: print a stored run's summary."""
    import argparse
    import json

    parser = argparse.ArgumentParser(prog="python -m tandem_bench.report", description=main.__doc__)
    parser.add_argument("run_json")
    args = parser.parse_args(argv)
    with open(args.run_json) as f:
        print(summary(json.load(f)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
