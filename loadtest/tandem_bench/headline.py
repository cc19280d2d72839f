"""The headline ratios of a run, computed from its cells' summaries.

Each ratio is the median of the ratios of matched cell pairs (cells equal in everything but
the one thing compared), so a run with many concurrencies still gives one number, and
headlineDetail lists every pair so the reader can check it. Only closed-model cells count:
in the open model the throughput is the rate asked for, not a capacity.

Cells are matched on TLS too (a cell without the field, from an older run, is plain), so the
protocol and cache ratios never pair a TLS cell with a plain one; the tlsOverPlain* ratios are the
ones that do, per protocol (REST = HTTP/1.1 + TLS, gRPC = HTTP/2 + TLS), each TLS cell with the
plain cell equal in everything else (tool, operation, page size, cache mode, temperature,
concurrency) of the same run.
"""
from __future__ import annotations

from typing import Callable, Sequence

from . import stats

NAMES = ("grpcOverRestP50Warm", "warmHybridOverNoneThroughput",
         "jsonOverProtobufBodyBytes", "getGroupOverHelloThroughput",
         "tlsOverPlainP50Rest", "tlsOverPlainP50Grpc",
         "tlsOverPlainThroughputRest", "tlsOverPlainThroughputGrpc")

DESCRIPTIONS = {
    "grpcOverRestP50Warm":
        "gRPC p50 ÷ REST p50, warm cache, both driven by k6, same cache mode, operation, "
        "page size and concurrency (below 1: gRPC is faster)",
    "warmHybridOverNoneThroughput":
        "ListGroups throughput with a warm hybrid cache ÷ without cache, same protocol, tool, "
        "page size and concurrency",
    "jsonOverProtobufBodyBytes":
        "REST JSON body bytes ÷ gRPC Protobuf body bytes of the same operation and page size",
    "getGroupOverHelloThroughput":
        "warm hybrid GetGroup throughput ÷ the framework's hello-world endpoint, same protocol, "
        "tool and concurrency",
    "tlsOverPlainP50Rest":
        "REST p50 over TLS ÷ plain, same tool, operation, page size, cache mode, temperature and "
        "concurrency (above 1: what encryption adds to a call)",
    "tlsOverPlainP50Grpc":
        "gRPC p50 over TLS ÷ plain, same tool, operation, page size, cache mode, temperature and "
        "concurrency (above 1: what encryption adds to a call)",
    "tlsOverPlainThroughputRest":
        "REST throughput over TLS ÷ plain, same tool, operation, page size, cache mode, temperature "
        "and concurrency (below 1: what encryption takes from capacity)",
    "tlsOverPlainThroughputGrpc":
        "gRPC throughput over TLS ÷ plain, same tool, operation, page size, cache mode, temperature "
        "and concurrency (below 1: what encryption takes from capacity)",
}

# what makes two cells "the same" apart from what a ratio compares
TLS_MATCH = ("tool", "operation", "pageSize", "cacheMode", "temperature", "concurrency")


def tls_of(cell: dict) -> bool:
    """Whether a cell ran over TLS; cells of runs written before the tls dimension ran plain."""
    return bool(cell.get("tls", False))


def _key(cell: dict, *fields: str) -> tuple:
    return tuple(tls_of(cell) if f == "tls" else cell[f] for f in fields)


def _ratio(num: float | None, den: float | None) -> float | None:
    if num is None or den is None or den == 0:
        return None
    return num / den


def _pairs(cells, is_num: Callable, is_den: Callable, match: tuple[str, ...],
           figure: Callable[[dict], float | None], one_per: tuple[str, ...] | None = None) -> list[dict]:
    dens = {}
    for c in cells:
        if is_den(c):
            dens.setdefault(_key(c, *match), c)
    pairs, seen = [], set()
    for c in cells:
        if not is_num(c):
            continue
        d = dens.get(_key(c, *match))
        if d is None:
            continue
        if one_per is not None:
            # several pairs would repeat one figure (e.g. body size per cache mode): keep the first
            k = _key(c, *one_per)
            if k in seen:
                continue
            seen.add(k)
        pairs.append({"numeratorCellId": c["id"], "denominatorCellId": d["id"],
                      "ratio": _ratio(figure(c), figure(d))})
    return pairs


def compute(cells: Sequence[dict]) -> tuple[dict, dict]:
    """Returns (headline, headlineDetail) as the run schema describes them."""
    closed = [c for c in cells if c["model"] == "closed"]
    p50 = lambda c: c["summary"]["latencyMs"]["p50"]
    rps = lambda c: c["summary"]["throughputRps"]
    body = lambda c: c["summary"]["bodyBytes"]
    domain_ops = ("GetGroup", "ListGroups")

    pairs = {
        "grpcOverRestP50Warm": _pairs(
            closed,
            is_num=lambda c: c["protocol"] == "grpc" and c["tool"] == "k6" and c["temperature"] == "warm",
            is_den=lambda c: c["protocol"] == "rest" and c["tool"] == "k6" and c["temperature"] == "warm",
            match=("cacheMode", "operation", "pageSize", "concurrency", "tls"),
            figure=p50),
        "warmHybridOverNoneThroughput": _pairs(
            closed,
            is_num=lambda c: c["operation"] == "ListGroups" and c["cacheMode"] == "hybrid" and c["temperature"] == "warm",
            is_den=lambda c: c["operation"] == "ListGroups" and c["cacheMode"] == "none",
            match=("protocol", "tool", "pageSize", "concurrency", "tls"),
            figure=rps),
        "jsonOverProtobufBodyBytes": _pairs(
            closed,
            is_num=lambda c: c["protocol"] == "rest" and c["operation"] in domain_ops,
            is_den=lambda c: c["protocol"] == "grpc" and c["operation"] in domain_ops,
            match=("operation", "pageSize", "tls"),
            figure=body,
            one_per=("operation", "pageSize")),
        "getGroupOverHelloThroughput": _pairs(
            closed,
            is_num=lambda c: c["operation"] == "GetGroup" and c["cacheMode"] == "hybrid" and c["temperature"] == "warm",
            is_den=lambda c: c["operation"] == "Hello",
            match=("protocol", "tool", "concurrency", "tls"),
            figure=rps),
    }
    for protocol, suffix in (("rest", "Rest"), ("grpc", "Grpc")):
        for name, figure in ((f"tlsOverPlainP50{suffix}", p50), (f"tlsOverPlainThroughput{suffix}", rps)):
            pairs[name] = _pairs(
                closed,
                is_num=lambda c, p=protocol: c["protocol"] == p and tls_of(c),
                is_den=lambda c, p=protocol: c["protocol"] == p and not tls_of(c),
                match=TLS_MATCH,
                figure=figure)

    headline, detail = {}, {}
    for name in NAMES:
        value = stats.median(p["ratio"] for p in pairs[name])
        if not pairs[name]:
            reason = "no pair of matching cells in this run"
        elif value is None:
            reason = "every matching pair lacks one of the two figures"
        else:
            reason = None
        headline[name] = value
        detail[name] = {"description": DESCRIPTIONS[name], "pairs": pairs[name], "reason": reason}
    return headline, detail
