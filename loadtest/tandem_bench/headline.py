"""The headline ratios of a run, each with a bootstrap 95 % interval and a verdict.

A ratio pairs cells equal in everything but the one thing compared; its value is the geometric mean
of its pairs' ratios (as SPEC aggregates ratios: a median of three or four unlike pairs jumps from
one pair's value to another's — GetGroup 2.19 against ListGroups 2.6 — when one pair moves a little),
and its interval the 2.5th-97.5th percentiles of that mean over bootstrap
replicates (pooled.Plans: cells measured in the same service processes are resampled together,
so their ratio is paired as it was measured). Which cells may enter which ratio is the point:

  * latency ratios (p50) use only cells that measure latency: one user (closed) or an arrival
    rate (open). A closed cell at many users measures throughput: its p50 is queueing.
  * throughput and CPU-per-request ratios use closed-model cells only, and pair cells of the same
    tool on both sides (h2load where the profile has it: the generator with headroom).
  * a window flagged for anything but other-cpu is left out; a pair with no window left is listed
    as excluded, with why.

verdict: finding (interval excludes 1), inconclusive (it includes 1, or there is no interval),
flagged (only excluded pairs: the value is theirs, not to be trusted), missing (no pair at all).
"""
from __future__ import annotations

import statistics
from typing import Callable

from . import pooled, windows

NAMES = ("grpcOverRestP50Warm", "grpcOverRestThroughputWarm", "grpcOverRestServerCpuPerRequest",
         "warmHybridOverNoneThroughput", "jsonOverProtobufBodyBytes", "getGroupOverHelloThroughput",
         "tlsOverPlainP50Rest", "tlsOverPlainP50Grpc", "tlsOverPlainThroughputRest", "tlsOverPlainThroughputGrpc")

# Where gRPC ÷ REST comes from, one change at a time (warm, closed, native generators), as server CPU
# per request and throughput: REST JSON → REST Protobuf (the encoding), → REST Protobuf over HTTP/2
# (the framing and connection model), → gRPC (what is left: gRPC's own machinery); and what gzip
# costs on each wire. A run holds the ones its cells allow (the protocols profile holds them all).
STEPS = {
    "Encoding": ("REST Protobuf ÷ JSON over HTTP/1.1, uncompressed",
                 lambda c: c.protocol == "rest" and c.encoding == "protobuf" and c.http == "1.1",
                 lambda c: c.protocol == "rest" and c.encoding == "json" and c.http == "1.1"),
    "Http2": ("REST over HTTP/2 ÷ HTTP/1.1, Protobuf, uncompressed",
              lambda c: c.protocol == "rest" and c.encoding == "protobuf" and c.http == "2",
              lambda c: c.protocol == "rest" and c.encoding == "protobuf" and c.http == "1.1"),
    "Grpc": ("gRPC ÷ REST Protobuf over HTTP/2, uncompressed",
             lambda c: c.protocol == "grpc",
             lambda c: c.protocol == "rest" and c.encoding == "protobuf" and c.http == "2"),
}
STEP_NAMES = tuple(f"step{step}{figure}" for step in STEPS for figure in ("ServerCpu", "Throughput")) + \
    ("stepDirectServerCpu", "stepDirectThroughput", "gzipOverIdentityServerCpuRest", "gzipOverIdentityServerCpuGrpc",
     "revalidatedOverFullServerCpu", "revalidatedOverFullThroughput")

# The hot path against the framework's floor and under many users, per wire (issue 14's goals): warm
# GetGroup ÷ the wire's hello-world in server CPU per request (closed, many users) and in p50 at one
# user, and warm ListGroups throughput at 500 users ÷ at 50. Present when the run has the cells.
# What tracing costs per wire (the tracing dimension): cells against services started traced (every
# request sampled, spans exported) ÷ the same cells against untraced ones; present when the run has them.
TRACING_NAMES = tuple(f"tracedOverUntraced{figure}{suffix}" for figure in ("ServerCpu", "Throughput")
                      for suffix in ("Rest", "Grpc"))

HOT_PATH_NAMES = tuple(f"{figure}{suffix}" for figure in ("getGroupOverHelloServerCpu", "getGroupOverHelloP50",
                                                          "users500Over50Throughput")
                       for suffix in ("Rest", "Grpc")) + ("users500Over50ThroughputMultiplexedGrpc",)

DESCRIPTIONS = {
    "grpcOverRestP50Warm": "gRPC p50 ÷ REST p50, warm cache, the same kind of generator (k6 on both wires, or "
                           "each wire's native one; any where no such pair exists), operation, page size and cache mode, "
                           "latency cells only (one user, or an arrival rate); below 1: gRPC answers sooner",
    "grpcOverRestThroughputWarm": "gRPC ÷ REST successful requests per second, warm cache, closed model, same "
                                  "operation and concurrency, driven by native generators with headroom (h2load "
                                  "for gRPC, oha for REST) or the same tool; every such pair of the run (any "
                                  "operation, page size, number of users, TLS or tool), not only the decomposition's "
                                  "(stepDirectThroughput); above 1: gRPC serves more",
    "grpcOverRestServerCpuPerRequest": "gRPC ÷ REST server CPU per request (the service, MariaDB and Redis), "
                                       "same cells as the throughput ratio: every warm closed pair of the run, not only "
                                       "the decomposition's (stepDirectServerCpu); below 1: gRPC costs the server less",
    "warmHybridOverNoneThroughput": "ListGroups throughput with a warm hybrid cache ÷ without cache, same "
                                    "protocol, tool, page size and concurrency",
    "jsonOverProtobufBodyBytes": "REST JSON body bytes ÷ gRPC Protobuf message bytes of the same responses "
                                 "(fetched with curl on both wires)",
    "getGroupOverHelloThroughput": "warm hybrid GetGroup throughput ÷ the hello-world endpoint of the same "
                                   "wire (GET /api/v1/hello, tandem.v1.HelloService/Hello), same tool and "
                                   "concurrency",
    "tlsOverPlainP50Rest": "REST p50 over TLS ÷ plain, latency cells; above 1: what encryption adds to a call",
    "tlsOverPlainP50Grpc": "gRPC p50 over TLS ÷ plain, latency cells; above 1: what encryption adds to a call",
    "tlsOverPlainThroughputRest": "REST throughput over TLS ÷ plain, closed cells of the same tool",
    "tlsOverPlainThroughputGrpc": "gRPC throughput over TLS ÷ plain, closed cells of the same tool",
    **{f"step{step}ServerCpu": f"{what}: server CPU per request (warm, closed, native generators); below 1: "
                               "the step saves the server work" for step, (what, _, _) in STEPS.items()},
    **{f"step{step}Throughput": f"{what}: successful requests per second (warm, closed, native generators)"
       for step, (what, _, _) in STEPS.items()},
    **{f"stepDirect{figure}": f"gRPC ÷ REST JSON over HTTP/1.1, measured directly: {what} (warm, closed, native "
                              "generators), over exactly the operations, page sizes, users and transport every step "
                              "pairs, so that it compares with the steps' product"
       for figure, what in (("ServerCpu", "server CPU per request"), ("Throughput", "successful requests per second"))},
    "gzipOverIdentityServerCpuRest": "REST server CPU per request when the client asks for gzip ÷ when it asks "
                                     "for nothing (same representation and HTTP version)",
    "gzipOverIdentityServerCpuGrpc": "gRPC server CPU per request of calls that ask for gzip ÷ calls that do not",
    "revalidatedOverFullServerCpu": "REST GetGroup server CPU per request of a client that revalidates "
                                    "(If-None-Match, answered 304 with no body) ÷ one that reads the whole body "
                                    "(same representation); gRPC has no equivalent",
    "revalidatedOverFullThroughput": "REST GetGroup successful requests per second answered 304 ÷ answered 200 "
                                     "with the body, same client otherwise",
    **{f"getGroupOverHelloServerCpu{suffix}": f"{wire} warm GetGroup server CPU per request ÷ the hello-world's "
                                              "(closed, same tool and concurrency); goal ≤ 1.1"
       for suffix, wire in (("Rest", "REST"), ("Grpc", "gRPC"))},
    **{f"getGroupOverHelloP50{suffix}": f"{wire} warm GetGroup p50 ÷ the hello-world's p50 at one user (same tool); "
                                        "goal ≤ 1.15" for suffix, wire in (("Rest", "REST"), ("Grpc", "gRPC"))},
    **{f"users500Over50Throughput{suffix}": f"{wire} warm ListGroups successful requests per second at 500 users ÷ "
                                            "at 50, each user on a connection of its own (closed, same tool and "
                                            "page size); goal ≥ 0.9 with no errors"
       for suffix, wire in (("Rest", "REST"), ("Grpc", "gRPC"))},
    "users500Over50ThroughputMultiplexedGrpc": "gRPC warm ListGroups successful requests per second at 500 users "
                                               "multiplexed ten to a connection ÷ 50 users on as many connections, "
                                               "one each (closed, same tool and page size): what ten times the users "
                                               "cost when the connections stay as they are, as over a client's fixed "
                                               "pool of channels; goal ≥ 0.9 with no errors",
    **{f"tracedOverUntracedServerCpu{suffix}": f"{wire} server CPU per request with tracing on (every request "
                                               "sampled, spans exported over OTLP) ÷ off, same cell otherwise; "
                                               "above 1: what tracing costs the server"
       for suffix, wire in (("Rest", "REST"), ("Grpc", "gRPC"))},
    **{f"tracedOverUntracedThroughput{suffix}": f"{wire} successful requests per second with tracing on ÷ off, "
                                                "closed cells, same cell otherwise"
       for suffix, wire in (("Rest", "REST"), ("Grpc", "gRPC"))},
}


def is_latency(c) -> bool:
    return c.model == "open" and c.sweep is None or (c.model == "closed" and c.concurrency == 1)


def is_capacity(c) -> bool:
    return c.model == "closed" and c.concurrency > 1 and c.temperature != "cold"


def is_default_body(c) -> bool:
    """What each wire sends unless a cell asks otherwise: JSON over HTTP/1.1 on REST, and no
    compression on either. These headlines compare the wires as their clients use them by default;
    cells that change the representation, the HTTP version or the compression are compared step
    by step elsewhere."""
    return c.compression == "identity" and not c.revalidate and \
        (c.protocol == "grpc" or (c.encoding == "json" and c.http == "1.1"))


def group_of(c) -> tuple:
    """Cells measured in the same service processes (resampled together): one start serves a cache
    mode's cells, plain and TLS alike."""
    return (c.service_config,)


def _match(c, fields: tuple) -> tuple:
    return tuple(getattr(c, f) for f in fields)


def _pairs(plans: list, is_num: Callable, is_den: Callable, match: tuple) -> list[tuple]:
    dens = {}
    for c in plans:
        if is_den(c):
            dens.setdefault(_match(c, match), c)
    return [(c, dens[_match(c, match)]) for c in plans if is_num(c) and _match(c, match) in dens]


def pair_specs(plans: list) -> dict[str, tuple[list, Callable]]:
    """Per headline: its cell pairs and the figure it compares."""
    plans = [c for c in plans if is_default_body(c)]
    p50 = windows.percentile_ms(50)
    warm = lambda c: c.temperature == "warm"
    rest, grpc = (lambda c: c.protocol == "rest"), (lambda c: c.protocol == "grpc")
    same = ("family", "operation", "page_size", "cache_mode", "concurrency", "streams", "tls", "model", "target_rate")
    tool_free = ("operation", "page_size", "cache_mode", "concurrency", "tls", "model", "target_rate")
    specs = {
        # k6 on both wires is the one tool that drives both, so the latency pair may cross tools only
        # through the tool_free match below when no same-tool pair exists
        "grpcOverRestP50Warm": (_pairs(plans, lambda c: grpc(c) and warm(c) and is_latency(c),
                                       lambda c: rest(c) and warm(c) and is_latency(c), same) or
                                _pairs(plans, lambda c: grpc(c) and warm(c) and is_latency(c),
                                       lambda c: rest(c) and warm(c) and is_latency(c), tool_free), p50),
        "grpcOverRestThroughputWarm": (_pairs(plans, lambda c: grpc(c) and warm(c) and is_capacity(c),
                                              lambda c: rest(c) and warm(c) and is_capacity(c), same),
                                       windows.throughput),
        "warmHybridOverNoneThroughput": (_pairs(
            plans, lambda c: c.operation == "ListGroups" and c.cache_mode == "hybrid" and warm(c) and is_capacity(c),
            lambda c: c.operation == "ListGroups" and c.cache_mode == "none" and is_capacity(c),
            ("protocol", "family", "page_size", "concurrency", "streams", "tls")), windows.throughput),
        "getGroupOverHelloThroughput": (_pairs(
            plans, lambda c: c.operation == "GetGroup" and c.cache_mode == "hybrid" and warm(c) and is_capacity(c),
            lambda c: c.operation == "Hello" and is_capacity(c), ("protocol", "family", "concurrency", "streams", "tls")),
            windows.throughput),
    }
    specs["grpcOverRestServerCpuPerRequest"] = (specs["grpcOverRestThroughputWarm"][0], windows.server_cpu_us)
    for protocol, suffix in (("rest", "Rest"), ("grpc", "Grpc")):
        tls_match = ("family", "operation", "page_size", "cache_mode", "temperature", "concurrency", "streams",
                     "model", "target_rate")
        specs[f"tlsOverPlainP50{suffix}"] = (_pairs(
            plans, lambda c, p=protocol: c.protocol == p and c.tls and is_latency(c),
            lambda c, p=protocol: c.protocol == p and not c.tls and is_latency(c), tls_match), p50)
        specs[f"tlsOverPlainThroughput{suffix}"] = (_pairs(
            plans, lambda c, p=protocol: c.protocol == p and c.tls and is_capacity(c),
            lambda c, p=protocol: c.protocol == p and not c.tls and is_capacity(c), tls_match), windows.throughput)
    return specs


def step_specs(plans: list) -> dict[str, tuple[list, Callable]]:
    """The decomposition's pairs: cells equal in all but the one step."""
    warm_capacity = [c for c in plans if c.temperature == "warm" and is_capacity(c) and c.family == "native"]
    base = [c for c in warm_capacity if not c.revalidate]
    # streams too: REST over HTTP/2 sends one request per connection, and gRPC's 10-stream cell
    # (requests multiplexed over 5 connections) would make the last step what multiplexing saves
    match = ("family", "operation", "page_size", "cache_mode", "concurrency", "streams", "tls", "model")
    identity = [c for c in base if c.compression == "identity"]
    specs = {}
    for step, (_, is_num, is_den) in STEPS.items():
        pairs = _pairs(identity, is_num, is_den, match)
        specs[f"step{step}ServerCpu"] = (pairs, windows.server_cpu_us)
        specs[f"step{step}Throughput"] = (pairs, windows.throughput)
    # The whole gap measured directly, set beside the steps' product: over the pairs every step holds,
    # and those only. grpcOverRest* pool every warm closed pair of the run (ListGroups(20) at 500 users
    # in protocols, where gRPC's per-connection cost shows; k6's reference pair and a TLS pair in
    # quick), which the steps never measured, so their figure could differ from the product for that
    # reason alone.
    chained = [{_match(num, match) for num, _ in specs[f"step{step}ServerCpu"][0]} for step in STEPS]
    common = set.intersection(*chained)
    direct = _pairs([c for c in identity if _match(c, match) in common], lambda c: c.protocol == "grpc",
                    lambda c: c.protocol == "rest" and c.encoding == "json" and c.http == "1.1", match)
    specs["stepDirectServerCpu"] = (direct, windows.server_cpu_us)
    specs["stepDirectThroughput"] = (direct, windows.throughput)
    body = match + ("encoding", "http")
    for protocol, suffix in (("rest", "Rest"), ("grpc", "Grpc")):
        specs[f"gzipOverIdentityServerCpu{suffix}"] = (_pairs(
            base, lambda c, p=protocol: c.protocol == p and c.compression == "gzip",
            lambda c, p=protocol: c.protocol == p and c.compression == "identity", body), windows.server_cpu_us)
    revalidation = _pairs(warm_capacity, lambda c: c.protocol == "rest" and c.revalidate,
                          lambda c: c.protocol == "rest" and not c.revalidate, body + ("compression",))
    specs["revalidatedOverFullServerCpu"] = (revalidation, windows.server_cpu_us)
    specs["revalidatedOverFullThroughput"] = (revalidation, windows.throughput)
    return specs


def hot_path_specs(plans: list) -> dict[str, tuple[list, Callable]]:
    """The hot path's goals, per wire: pairs of default-body cells (JSON over HTTP/1.1 on REST)."""
    plans = [c for c in plans if is_default_body(c)]
    get_group = lambda c: c.operation == "GetGroup" and c.cache_mode == "hybrid" and c.temperature == "warm"
    hello = lambda c: c.operation == "Hello"
    specs = {}
    for protocol, suffix in (("rest", "Rest"), ("grpc", "Grpc")):
        wire = lambda c, p=protocol: c.protocol == p
        specs[f"getGroupOverHelloServerCpu{suffix}"] = (_pairs(
            plans, lambda c, w=wire: w(c) and get_group(c) and is_capacity(c),
            lambda c, w=wire: w(c) and hello(c) and is_capacity(c),
            ("tool", "concurrency", "streams", "tls")), windows.server_cpu_us)
        specs[f"getGroupOverHelloP50{suffix}"] = (_pairs(
            plans, lambda c, w=wire: w(c) and get_group(c) and c.model == "closed" and c.concurrency == 1,
            lambda c, w=wire: w(c) and hello(c) and c.model == "closed" and c.concurrency == 1,
            ("tool", "tls")), windows.percentile_ms(50))
        # Two questions, never pooled: 500 users each on a connection of its own (ten times the users
        # and the connections) and 500 users multiplexed over the 50 connections of the 50-user cell
        # (ten times the users only), which is how a gRPC client's fixed pool of channels carries them.
        list_groups = lambda c, w=wire: w(c) and c.operation == "ListGroups" and c.temperature == "warm" \
            and is_capacity(c)
        fifty_one_each = lambda c, lg=list_groups: lg(c) and c.concurrency == 50 and c.streams == 1
        specs[f"users500Over50Throughput{suffix}"] = (_pairs(
            plans, lambda c, lg=list_groups: lg(c) and c.concurrency == 500 and c.streams == 1, fifty_one_each,
            ("tool", "page_size", "cache_mode", "tls")), windows.throughput)
        multiplexed = _pairs(
            plans, lambda c, lg=list_groups: lg(c) and c.concurrency == 500 and c.streams > 1, fifty_one_each,
            ("tool", "page_size", "cache_mode", "connections", "tls"))
        if multiplexed:
            specs[f"users500Over50ThroughputMultiplexed{suffix}"] = (multiplexed, windows.throughput)
    return specs


def compute(runs: dict, draws: pooled.Plans, body_bytes: dict) -> dict:
    """runs: cell id → windows.CellRun; body_bytes: (protocol, operation, page size, encoding,
    compression) → bytes."""
    # overload cells are their own record (overload.py): a step's rate is a share of a measured capacity
    everything = [r.plan for r in runs.values() if r.plan.pair is None]
    # the headlines describe the service as deployed by default: untraced (tracing's own pairs below)
    plans = [c for c in everything if not c.tracing]
    out = {}
    for name, (pairs, figure) in pair_specs(plans).items():
        out[name] = _headline(name, pairs, figure, runs, draws)
    out["jsonOverProtobufBodyBytes"] = _body_headline(body_bytes)
    for name, (pairs, figure) in (step_specs(plans) | hot_path_specs(plans) | tracing_specs(everything)).items():
        if pairs:
            out[name] = _headline(name, pairs, figure, runs, draws)
    return {name: out[name] for name in NAMES + STEP_NAMES + HOT_PATH_NAMES + TRACING_NAMES if name in out}


def tracing_specs(plans: list) -> dict[str, tuple[list, Callable]]:
    """Traced ÷ untraced, per wire: closed cells (many users) equal in everything but tracing."""
    match = ("tool", "operation", "page_size", "cache_mode", "temperature", "concurrency", "streams", "tls",
             "model", "target_rate", "encoding", "http", "compression", "revalidate")
    specs = {}
    for protocol, suffix in (("rest", "Rest"), ("grpc", "Grpc")):
        pairs = _pairs(plans, lambda c, p=protocol: c.protocol == p and c.tracing and is_capacity(c),
                       lambda c, p=protocol: c.protocol == p and not c.tracing and is_capacity(c), match)
        specs[f"tracedOverUntracedServerCpu{suffix}"] = (pairs, windows.server_cpu_us)
        specs[f"tracedOverUntracedThroughput{suffix}"] = (pairs, windows.throughput)
    return specs


def _draws(draws: pooled.Plans, run) -> list:
    return draws.for_group(group_of(run.plan), list(run.data))


def _headline(name, pairs, figure, runs, draws) -> dict:
    rows = []
    for num, den in pairs:
        a, b = runs[num.id], runs[den.id]
        ea, eb = a.eligible(), b.eligible()
        excluded_why = None
        if not ea or not eb:
            excluded_why = "; ".join(f"{r.plan.id}: every window flagged ({_codes(r)})" for r, e in ((a, ea), (b, eb))
                                     if not e)
        num_w, den_w = (ea, eb) if not excluded_why else (a.data, b.data)
        r, reps = pooled.ratio_interval(num_w, _draws(draws, a), figure, den_w, _draws(draws, b), figure)
        rows.append({"numeratorCellId": num.id, "denominatorCellId": den.id, "ratio": r["value"],
                     "low": r["low"], "high": r["high"], "excluded": excluded_why is not None,
                     "excludedWhy": excluded_why, "_reps": reps})
    reps = [r.pop("_reps") for r in rows]
    kept = [i for i, r in enumerate(rows) if not r["excluded"] and r["ratio"] is not None]
    use = kept or [i for i, r in enumerate(rows) if r["ratio"] is not None]
    value = _mean_ratio([rows[i]["ratio"] for i in use]) if use else None
    low = high = None
    # every pair's spread or none: a pair without replicates (a cell of one window) would otherwise
    # leave the interval to the others
    if use and all(any(x is not None for x in reps[i]) for i in use):
        # A replicate in which any pair has no ratio (its draw held none of that pair's eligible
        # windows: a flagged window's start drawn every time) is missing as a whole, as a single
        # pair's replicate that drew no window is (pooled.interval drops it). Averaging it over the
        # other pairs only would put their mean, not this headline's, among the replicates: with 3
        # starts and one flagged window 1 in 27 of them, past the 2.5 % tail, so a bound became
        # the other pairs' value.
        means = [_mean_ratio(rep) if all(x is not None for x in rep) else None
                 for rep in zip(*[reps[i] for i in use])]
        low, high = pooled.interval(means)
    if not rows:
        verdict, reason = "missing", "no pair of matching cells in this run"
    elif value is None:
        verdict, reason = "missing", "every matching pair lacks one of the two figures"
    elif not kept:
        verdict, reason = "flagged", "every pair has a cell whose windows were all flagged: " + \
                          "; ".join(r["excludedWhy"] for r in rows if r["excludedWhy"])
    elif low is None or high is None:
        verdict, reason = "inconclusive", "no interval (a cell with a single window, or whose windows left are one start's of several)"
    elif low <= 1 <= high:
        verdict, reason = "inconclusive", f"the 95 % interval [{low:.3g}, {high:.3g}] includes 1: no difference shown"
    else:
        verdict, reason = "finding", None
    return {"description": DESCRIPTIONS[name], "value": value, "low": low, "high": high,
            "verdict": verdict, "reason": reason, "pairs": rows}


def _mean_ratio(ratios: list) -> float | None:
    """The geometric mean of the positive ratios (a ratio of 0 has no logarithm: a side that served
    nothing is its own flag, not a factor of the mean)."""
    positive = [r for r in ratios if r is not None and r > 0]
    return statistics.geometric_mean(positive) if positive else None


def _codes(run) -> str:
    return ", ".join(sorted({f["code"] for w in run.windows for f in w["flags"]}))


def _body_headline(body_bytes: dict) -> dict:
    """Body sizes are measured once per key, not per window: no sampling spread, so the interval is
    the range over operations and page sizes."""
    rows = []
    for (protocol, op, size, encoding, compression), rest_bytes in sorted(body_bytes.items(), key=str):
        if protocol != "rest" or op == "Hello" or (encoding, compression) != ("json", "identity"):
            continue
        grpc_bytes = body_bytes.get(("grpc", op, size, "protobuf", "identity"))
        if grpc_bytes:
            rows.append({"numeratorCellId": f"rest-{op}{size or ''}", "denominatorCellId": f"grpc-{op}{size or ''}",
                         "ratio": rest_bytes / grpc_bytes, "low": None, "high": None, "excluded": False,
                         "excludedWhy": None})
    if not rows:
        return {"description": DESCRIPTIONS["jsonOverProtobufBodyBytes"], "value": None, "low": None, "high": None,
                "verdict": "missing", "reason": "no body sizes were measured", "pairs": []}
    ratios = [r["ratio"] for r in rows]
    return {"description": DESCRIPTIONS["jsonOverProtobufBodyBytes"], "value": statistics.median(ratios),
            "low": min(ratios), "high": max(ratios),
            "verdict": "finding" if min(ratios) > 1 or max(ratios) < 1 else "inconclusive",
            "reason": None if min(ratios) > 1 or max(ratios) < 1 else "JSON and Protobuf sizes overlap",
            "pairs": rows}
