"""Statistics of the bench lab: the A + B·N fit and exact nearest-rank percentiles (pooled
percentiles and intervals: pooled.py).

Everything here is pure (no files, no clock), so it is tested on known data.
"""
from __future__ import annotations

import math
from decimal import Decimal
from typing import Any, Iterable, Sequence


class FitError(ValueError):
    """The points cannot determine a line (fewer than two distinct page sizes)."""


# ---------------------------------------------------------------- cycle time = A + B·N

def fit_linear(points: Iterable) -> dict:
    """Least-squares line y = a + b·x with its R².

    points: (x, y) pairs or {"pageSize": x, "latencyMs": y} dicts.
    Returns {"a", "b", "r2"}; r2 is None when every y is equal (there is no variance to
    explain, so R² is undefined rather than 0 or 1).
    Raises FitError with fewer than two distinct x: a single page size says nothing about B.
    """
    pairs = [(p["pageSize"], p["latencyMs"]) if isinstance(p, dict) else tuple(p) for p in points]
    if len({x for x, _ in pairs}) < 2:
        raise FitError("need at least two distinct page sizes to fit A + B·N, "
                       f"got {sorted({x for x, _ in pairs}) or 'none'}")
    xs = [float(x) for x, _ in pairs]
    ys = [float(y) for _, y in pairs]
    n = len(xs)
    mean_x = sum(xs) / n
    mean_y = sum(ys) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys))
    b = sxy / sxx
    a = mean_y - b * mean_x
    ss_tot = sum((y - mean_y) ** 2 for y in ys)
    ss_res = sum((y - (a + b * x)) ** 2 for x, y in zip(xs, ys))
    r2 = None if ss_tot == 0 else 1 - ss_res / ss_tot
    return {"a": a, "b": b, "r2": r2}


FIT_KEYS = ("protocol", "tool", "cacheMode", "temperature", "concurrency")
# what the client asked for: a different representation, HTTP version or compression is another
# line (REST JSON and Protobuf pages in one fit would mix two costs per row); a cell without the
# fields (older runs) is its wire's default
BODY_KEYS = ("encoding", "http", "compression")
BODY_DEFAULTS = {"rest": ("json", "1.1", "identity"), "grpc": ("protobuf", "2", "identity")}


def body_of(cell: dict) -> tuple:
    defaults = BODY_DEFAULTS[cell["protocol"]]
    return tuple(cell.get(k) or d for k, d in zip(BODY_KEYS, defaults))


def _server_cpu_us(cell: dict) -> float | None:
    cpu = (cell["summary"].get("cpuUsPerRequest") or {}).get("server")
    return cpu.get("value") if isinstance(cpu, dict) else None


def fits_from_cells(cells: Sequence[dict]) -> tuple[list[dict], list[str]]:
    """One fit per protocol × tool × cache mode × temperature × concurrency × TLS × body (encoding,
    HTTP version, compression) over the closed-model ListGroups cells with a connection per user
    (no multiplexed or overload cells): the summary p50 against page
    size (at many users that p50 is mostly queueing, about users ÷ throughput, so its A and B are
    the closed loop's, not a request's fixed cost and cost per row), and, when every cell has it, server CPU per request against page size (serverCpu: its B
    is the server's CPU per row, which does not depend on how busy the machine was). Returns (fits,
    notes); a group with a single page size gets a note instead of a fit.
    """
    groups: dict[tuple, list[dict]] = {}
    for cell in cells:
        if cell["operation"] != "ListGroups" or cell["model"] != "closed":
            continue
        # A cell that multiplexes requests over fewer connections (h2load's streams), or an overload
        # pair's, where the other wire loads the machine too, measures another loop than the
        # one-request-per-connection cells at its users: fitted with them, one line went through
        # both (the record does not name its streams, so it is left out rather than fitted apart).
        if cell.get("overload") or (cell.get("connections") is not None and cell["connections"] != cell["concurrency"]):
            continue
        # plain and TLS cells are fitted apart; a cell without the field (older runs) is plain
        key = (*(cell[k] for k in FIT_KEYS), bool(cell.get("tls", False)), *body_of(cell))
        if cell.get("tracing"):
            key += ("traced",)   # fitted apart from the untraced cells
        groups.setdefault(key, []).append(cell)

    fits, notes = [], []
    for key, members in groups.items():
        members = sorted(members, key=lambda c: c["pageSize"])
        with_p50 = [c for c in members if c["summary"]["latencyMs"]["p50"] is not None]
        points = [{"pageSize": c["pageSize"], "latencyMs": c["summary"]["latencyMs"]["p50"]} for c in with_p50]
        labels = dict(zip((*FIT_KEYS, "tls", *BODY_KEYS), key))
        label = " ".join(f"{k}={v}" for k, v in zip(FIT_KEYS, key)) + (" over TLS" if labels["tls"] else "")
        body = tuple(labels[k] for k in BODY_KEYS)
        if body != BODY_DEFAULTS[labels["protocol"]]:
            label += " ({}, HTTP/{}, {})".format(*body)
        traced = key[-1] == "traced"
        if traced:
            labels["tracing"] = True
            label += " traced"
        try:
            line = fit_linear(points)
        except FitError as e:
            notes.append(f"no A + B·N fit for ListGroups {label}: {e}")
            continue
        cpu = [_server_cpu_us(c) for c in with_p50]
        server_cpu = None
        if all(v is not None for v in cpu):
            for point, v in zip(points, cpu):
                point["serverCpuUs"] = v
            server_cpu = fit_linear([(p["pageSize"], v) for p, v in zip(points, cpu)])
        fits.append({**labels, "operation": "ListGroups", "metric": "p50", **line, "serverCpu": server_cpu,
                     "points": points, "cellIds": [c["id"] for c in with_p50]})
    return fits, notes


# ---------------------------------------------------------------- percentiles

def percentile_nearest_rank(sorted_values: Sequence[float], percent: float | str) -> float:
    """Exact nearest-rank percentile: the smallest value with at least percent% of the values
    at or below it (rank ceil(p/100 · n)), over values sorted ascending.

    This is the definition ghz applies to its own 10..99 percentiles, so ours agree with its
    report exactly. The rank is computed in decimal: in binary floating point 99.9/100·1000 is
    999.0000000000001, which would pick the wrong rank.
    """
    n = len(sorted_values)
    if n == 0:
        raise ValueError("percentile of no values")
    p = Decimal(str(percent))
    if not (0 < p <= 100):
        raise ValueError(f"percent must be in (0, 100], got {percent}")
    rank = math.ceil(p * n / 100)
    return sorted_values[max(rank, 1) - 1]


def goal_status(value, low, high, bound: float, at_most: bool) -> str:
    """met / not met / undecided / missing, as the dashboard's goalStatus: met when the whole interval
    is on the bound's side, not met when all of it is on the other. The overload goals and the hot
    path's (report.py) are judged by it."""
    if value is None:
        return "missing"
    if low is None or high is None:
        return "undecided"
    within = (lambda x: x <= bound) if at_most else (lambda x: x >= bound)
    if within(low) and within(high):
        return "met"
    if not within(low) and not within(high):
        return "not met"
    return "undecided"
