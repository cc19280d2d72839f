"""From one generator run to a window record, and from a cell's windows to its summary: counts,
throughput of successful requests, pooled latency, CPU per request, the flags that say what not
to trust. Pure given its inputs (the sampler is only asked for CPU seconds between two times), so
it is tested on recorded tool outputs.

Flags (code: when), on a window unless said otherwise:
  generator-saturated  the generator used >= 95 % of the cores it was given, or the window's own
                       tool >= 95 % of what it can use (one core for a one-thread tool:
                       generator_ceiling; in a paired window beside the other wire's): the figure
                       is the generator's ceiling, not the service's
  dropped-arrivals     open model: more than 1 % of the arrivals due were never started
  rate-short           open model: the arrivals started fell more than 5 % short of the target rate
  errors               more than 1 % of the requests failed (in an overload cell, refusals by
                       admission control are its designed answer and counted apart, not here)
  hit-ratio            a cold window answered >= 10 % from cache, or a warm one <= 90 %
  db-reads             a warm window read more than one row a request from MariaDB: the cache's
                       background reloads (refresh ahead, or entries whose L2 copy had expired)
                       fell in it, and MariaDB's CPU with them, though every request hit L1
  unverified           gRPC through h2load: the service counted fewer successful calls than h2load
                       saw HTTP 200s (a gRPC error travels in trailers h2load does not read)
  jit                  the measured service's JIT compiler threads used more than 10 % of a core
                       during the window (CPU from /proc; against a target, the JVM's own
                       compilation time, which is wall time)
                       (noted, not excluded: after the warm-ups, what is left is compiling at
                       10-35 % of a core, mostly in no-cache and cold cells, whose windows would
                       otherwise be too few for an interval)
  other-cpu            processes outside the bench used > 0.2 cores (noted, not excluded)
  few-samples          cell: p50 or p99 could not be reported from the pooled samples
A window with any flag but other-cpu, jit and few-samples is left out of the headline ratios (the cell
still shows it).
"""
from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field

import numpy as np

from . import cachestats, pooled, probes
from .cpu import KINDS as THREAD_KINDS

GENERATOR_SATURATED = 0.95
DROP_LIMIT = 0.01
RATE_SHORT = 0.95
ERROR_LIMIT = 0.01
COLD_MAX_OVERALL = 0.1
WARM_MIN_OVERALL = 0.9
# A warm window reads about no rows (the bench's own probes: under 0.03 a request). The hot keys
# were primed together and age together, so their reloads come in a wave, and a wave of page
# reloads is tens to hundreds of rows a request in the window it falls in: 5.3 million rows in one
# 3-s window of ListGroups(1000) in results/20261129T060859Z-protocols-da2c45b.
WARM_MAX_ROWS_PER_REQUEST = 1.0
OTHER_CPU_CORES = 0.2
JIT_BUSY_SHARE = 0.1
NOT_EXCLUDING = ("other-cpu", "few-samples", "jit")


def fmt_ms(v) -> str:
    return "-" if v is None else f"{v:.3g} ms"


# In a paired window (overload), the CPU of the window's own generator beside the pair's ("generator").
OWN_GENERATOR = "ownGenerator"

# Run with one thread (h2load --threads 1, oha --worker-threads 1: loadgen), so one core is all they
# can use however many they are given; ghz and k6 use every core they are given.
ONE_THREAD_TOOLS = frozenset({"h2load", "oha"})


def generator_ceiling(tool: str, generator_cores: int) -> int:
    """The most cores a window's one generator can use: what the generator-saturated flag compares
    its CPU with. (Compared with the cores it was given, a one-thread tool at its ceiling on a
    machine with more than two cores was never flagged.)"""
    return 1 if tool in ONE_THREAD_TOOLS else generator_cores


def flag(code: str, reason: str) -> dict:
    return {"code": code, "reason": reason}


@dataclass
class WindowData:
    """What the statistics need of a window, kept out of run.json."""
    throughput: float
    ok: int
    counts: np.ndarray
    lat_sum_us: float
    lat_max_us: float | None
    server_cpu: float | None
    eligible: bool
    jit: bool = False             # the measured service's compiler was busy (the `jit` flag)
    # the service's own histogram of the window's successful requests (cumulative buckets, le → count;
    # probes.histogram_delta), for pooling over a cell's windows: None without a reading
    service_buckets: dict | None = None
    # the hits and misses per cache level the window's hit ratio was read from (cachestats.hit_counts),
    # for a cell's hit ratio over its windows: None without a reading
    hit_counts: dict | None = None

    @functools.cached_property
    def used_buckets(self) -> tuple[np.ndarray, np.ndarray]:
        """(indices, counts) of the histogram buckets this window's latencies fell in: a percentile
        over a draw of windows sums these, not the whole vectors (23,552 buckets each, of which a
        window's latencies, spread over a few powers of ten, use a fraction), and a bootstrap takes
        a thousand such percentiles per figure."""
        return pooled.used_buckets(self.counts)


def build(cell, *, start: int, rnd: int, order: int, outcome, sampler, generator_cores: int, hit_ratio,
          service_delta: dict, db_delta: dict, n_keys: int | None, notes: list, measured_service: str,
          cpu_names: list[str], offered_rate: float | None = None,
          hit_counts: dict | None = None) -> tuple[dict, WindowData]:
    """(window record as run.json holds it, its WindowData). offered_rate: the arrival rate this
    window was driven at, when it is not the cell's own (an overload step's rate is a percent of the
    capacity measured in the same start and round). hit_counts: the hits and misses hit_ratio was
    read from (cachestats.hit_counts)."""
    s = outcome.samples
    m = outcome.measurement
    span = s.span()
    seconds = s.seconds() or 1e-9
    # The rate of answers: over the seconds the load was offered in an open model, not until the
    # slowest answer came (ghz and oha wait for the requests in flight at the end): one answer 2 s late
    # in a 4-s step at 2,000/s read 1,333/s, so a saturated step's tail read as goodput lost. A closed
    # model's users wait for each answer: its span is its window.
    rate_seconds = cell.duration_seconds if cell.model == "open" and cell.duration_seconds else seconds
    requests = max(int(m.get("requests") or 0), s.requests)
    ok = s.succeeded
    flags = []
    if cell.tool == "h2load" and cell.protocol == "grpc":
        server_ok = service_delta.get("okCalls")
        if server_ok is None:
            flags.append(flag("unverified", "the gRPC service's call counter could not be read: h2load cannot "
                                            "see gRPC errors, so its successes are unverified"))
        elif server_ok < ok:
            flags.append(flag("unverified", f"h2load saw {ok} HTTP 200s, the service counted {server_ok} "
                                            "successful calls: the difference failed in gRPC"))
            ok = server_ok
    errors = requests - ok
    ok_lat = s.ok_latencies_us()
    lat = {"p50": None, "p99": None, "max": None}
    if len(ok_lat):
        srt = np.sort(ok_lat)
        # nearest rank, each percentile only from as many samples as the pooled figures ask of it
        lat = {f"p{q}": float(srt[int(np.ceil(q / 100 * len(srt))) - 1]) / 1000
               if len(srt) >= pooled.min_samples(q) else None for q in (50, 99)}
        lat["max"] = float(srt[-1]) / 1000
    cpu = sampler.window(span[0], span[1], cpu_names) if span else {n: None for n in [*cpu_names, "other"]}
    gen = cpu.get("generator")
    gen_cores = gen / seconds if gen is not None else None
    own = cpu.get(OWN_GENERATOR, gen)   # a window's one generator is its own
    own_ceiling = generator_ceiling(cell.tool, generator_cores)
    if gen_cores is not None and gen_cores >= GENERATOR_SATURATED * generator_cores:
        flags.append(flag("generator-saturated", f"the generator used {gen_cores:.2f} of its {generator_cores} "
                                                 "core(s): this figure is the generator's ceiling"))
    elif own is not None and own / seconds >= GENERATOR_SATURATED * own_ceiling:
        flags.append(flag("generator-saturated", f"{cell.tool} used {own / seconds:.2f} of the {own_ceiling} "
                                                 "core(s) it can use: this figure is its ceiling"))
    dropped = m.get("droppedIterations")
    achieved = None
    rate = offered_rate if offered_rate is not None else cell.target_rate
    if cell.model == "open":
        due = rate * cell.duration_seconds
        achieved = m.get("achievedRate") if m.get("achievedRate") is not None else requests / seconds
        if dropped and dropped > DROP_LIMIT * due:
            flags.append(flag("dropped-arrivals", f"{dropped} of {due:.0f} arrivals were never started "
                                                  f"(more than {DROP_LIMIT:.0%})"))
        if achieved < RATE_SHORT * rate:
            flags.append(flag("rate-short", f"{achieved:.0f}/s started of the {rate:g}/s asked for"))
    refused = s.refused
    failed = errors - refused if cell.pair else errors
    if requests and failed / requests > ERROR_LIMIT:
        flags.append(flag("errors", f"{failed} of {requests} requests failed"
                                    + (" (refusals not counted)" if cell.pair else "")))
    overall = hit_ratio and hit_ratio.get("overall")
    if cell.temperature == "cold" and overall is not None and overall >= COLD_MAX_OVERALL:
        flags.append(flag("hit-ratio", f"cold window answered {overall:.1%} from cache"))
    if cell.temperature == "warm" and (overall is None or overall <= WARM_MIN_OVERALL) and hit_ratio is not None:
        flags.append(flag("hit-ratio", f"warm window answered {'?' if overall is None else f'{overall:.1%}'} "
                                       "from cache"))
    rows_read = db_delta.get("rowsRead")
    if cell.temperature == "warm" and rows_read is not None and ok and rows_read / ok > WARM_MAX_ROWS_PER_REQUEST:
        flags.append(flag("db-reads", f"warm window read {rows_read / ok:.3g} rows a request from MariaDB "
                                      f"({rows_read:,} in all): cache reloads fell in it"))
    jit_cpu_ms, jit_ms = service_delta.get("jitCpuMs"), service_delta.get("jitMs")
    if jit_cpu_ms is not None:
        if jit_cpu_ms > JIT_BUSY_SHARE * seconds * 1000:
            flags.append(flag("jit", f"the service's JIT compiler threads used {jit_cpu_ms:.0f} ms of CPU in the "
                                     f"{seconds:.1f} s window"))
    elif jit_ms is not None and jit_ms > JIT_BUSY_SHARE * seconds * 1000:
        flags.append(flag("jit", f"the service spent {jit_ms:.0f} ms of the {seconds:.1f} s window compiling (JIT)"))
    other = cpu.get("other")
    if other is not None and other / seconds > OTHER_CPU_CORES:
        flags.append(flag("other-cpu", f"processes outside the bench used {other / seconds:.2f} cores"))
    if cell.temperature == "cold" and n_keys is not None and requests >= n_keys and cell.model == "closed":
        notes.append(f"the window asked all {n_keys} of its cold keys and ended early")
    server_parts = [cpu.get(measured_service), cpu.get("mariadb"), cpu.get("redis")]
    server_cpu = sum(server_parts) if all(v is not None for v in server_parts) else None
    record = {
        "start": start, "round": rnd, "order": order, "seconds": seconds,
        "requests": requests, "ok": ok, "errors": errors, "throughputRps": ok / rate_seconds,
        "latencyMs": lat,
        "serviceLatencyMs": service_latency(service_delta.get("okLatencyBuckets")),
        "droppedIterations": dropped if cell.model == "open" else None,
        "achievedRate": achieved,
        "hitRatio": hit_ratio or {"l1": None, "l2": None, "overall": None},
        "cpuSeconds": {**{k: cpu.get(k) for k in ("rest-service", "grpc-service", "balancer", "mariadb", "redis",
                                               "generator", "other")},
                       # a paired window's own wire's generator, apart from the pair's "generator"
                       **({OWN_GENERATOR: cpu[OWN_GENERATOR]} if OWN_GENERATOR in cpu else {})},
        "generatorCores": gen_cores,
        "jvm": {"gcPauseMs": service_delta.get("gcPauseMs"), "gcPauses": service_delta.get("gcPauses"),
                "jitMs": service_delta.get("jitMs"), "jitCpuMs": service_delta.get("jitCpuMs")},
        "db": {"rowsRead": db_delta.get("rowsRead"), "queries": db_delta.get("queries")},
        # read before the generator's run, or once its settle seconds are over in a window that has
        # them (Measure.read_after_settling), and after it (not interpolated to the window): a share
        # and a count per request, which the idle moments around the window barely move
        "serviceThreads": {**{k: service_delta.get(k) for k in ("userCpuMs", "systemCpuMs", "contextSwitches")},
                           # ms of CPU per kind of thread (cpu.THREAD_KINDS)
                           "cpuMsByKind": service_delta.get("threadCpuMs")},
        "wireBytesSentPerRequest": m.get("wireBytesSentPerRequest"),
        "wireBytesReceivedPerRequest": m.get("wireBytesReceivedPerRequest"),
        "timeline": s.timeline(),
        "flags": flags,
        "notes": notes,
    }
    if cell.pair:
        record.update(overload_counts(cell, s, m, errors, ok_lat, rate if cell.model == "open" else None))
    data = WindowData(throughput=ok / rate_seconds, ok=ok, counts=pooled.histogram_counts(ok_lat),
                      lat_sum_us=float(ok_lat.sum()), lat_max_us=float(ok_lat.max()) if len(ok_lat) else None,
                      server_cpu=server_cpu,
                      eligible=not any(f["code"] not in NOT_EXCLUDING for f in flags),
                      jit=any(f["code"] == "jit" for f in flags),
                      service_buckets=service_delta.get("okLatencyBuckets"), hit_counts=hit_counts)
    return record, data


def service_latency(buckets: dict | None) -> dict | None:
    """The measured service's own timing of the window's successful requests of the cell's
    operation, from its latency histogram (Micrometer's http.server.requests / grpc.server, read
    before and after the generator's run: probes.histogram_delta): how many it counted, and p50/p99
    in ms, interpolated within the bucket the rank falls in (the buckets are a tenth to a third apart),
    p99 only from 1,000 requests as the window's own. It starts where the framework first sees the
    request (after Tomcat's parsing and the admission valve on REST; on gRPC once the call runs on
    its thread) and ends with the answer written, so beside the generator's latency, timed from each
    request's due time, it says how much of that was spent inside the service. A window with settle
    seconds (overload) reads the histogram again once they are over
    (Measure.read_after_settling), so the figure covers the measured span, as the
    generator's do; otherwise it spans the generator's whole run, as the service's other counters
    do. None where the service publishes no histogram, counted nothing, or a reading failed."""
    if not buckets:
        return None
    count = max(buckets.values())
    if count <= 0:
        return None
    p99 = probes.histogram_quantile(0.99, buckets) if count >= 1000 else None
    return {"count": int(count), "p50": probes.histogram_quantile(0.5, buckets) * 1000,
            "p99": p99 * 1000 if p99 is not None else None}


def pooled_service_latency(ws: list[WindowData]) -> dict | None:
    """The service's own timing over a cell's (or a step's) windows: their histograms summed, then
    read once (service_latency), as the generator's percentiles are pooled (pooled.py). A median of
    the windows' own p99s, as this once was, reads lower than the pooled p99 whenever the windows
    differ (the generator's own p99s read both ways in results/20261201T043039Z-hotpath-bf45c25:
    the pooled 0.6-12.5 % higher in the 50- and 500-connection cells), and set beside the
    generator's pooled p99 it overstated the time spent outside the service. Windows without a reading are left
    out; None when none has one, or their buckets differ (a service restarted with another
    configuration)."""
    readings = [w.service_buckets for w in ws if w.service_buckets]
    if not readings or any(set(r) != set(readings[0]) for r in readings):
        return None
    return service_latency({le: sum(r[le] for r in readings) for le in readings[0]})


def overload_counts(cell, s, m: dict, errors: int, ok_lat: np.ndarray, offered_rate: float | None) -> dict:
    """What an overload window adds to its record: the rate it was offered, how its errors split
    (refused by admission control, timed out at the deadline, other), and the accepted requests
    answered only after their deadline (latency from the due time, so a request the generator could
    not even send in time counts)."""
    timed_out = s.timed_out + int(m.get("timeouts") or 0)
    late = int((ok_lat > cell.timeout_seconds * 1e6).sum()) if cell.timeout_seconds else 0
    return {"offeredRate": offered_rate, "refusals": s.refused, "timeouts": timed_out,
            "otherErrors": max(0, errors - s.refused - timed_out), "lateAnswers": late}


def settled(outcome, seconds: float, measured_seconds: float):
    """A generator's outcome (loadgen.Outcome) without the requests due in its first `seconds`, as
    if it had been measured from then on: in a window's first second the generators were still opening their connections (oha
    opens one per worker as its first request is due) against capped services, and the requests due
    meanwhile waited for that (in a short run of the overload profile's first pair, most requests over
    its 25 % step's p99 were due in the window's first second: docs/overload.md, "An unloaded reference"). The
    tool's own totals lose the requests left out; failures the tool reports only as counts (oha's
    connection errors and deadline aborts) have no due time and stay. An open model's achieved rate
    is then the requests left over the measured seconds."""
    s = outcome.samples
    if not seconds or s is None or not s.requests:
        return outcome
    kept = s.since(float(s.sent.min()) + seconds)
    measurement = dict(outcome.measurement)
    measurement["requests"] = max(0, int(measurement.get("requests") or 0) - (s.requests - kept.requests))
    if measurement.get("achievedRate") is not None:
        measurement["achievedRate"] = measurement["requests"] / measured_seconds
    return dataclasses.replace(outcome, samples=kept, measurement=measurement)


# ---------------------------------------------------------------- figures over windows

def throughput(ws: list[WindowData]) -> float | None:
    return float(np.median([w.throughput for w in ws])) if ws else None


def percentile_ms(percent: float):
    def figure(ws: list[WindowData]) -> float | None:
        if not ws:
            return None
        v = pooled.percentile_us_of_sum([w.used_buckets for w in ws], percent, pooled.min_samples(percent))
        return v / 1000 if v is not None else None
    return figure


def server_cpu_us(ws: list[WindowData]) -> float | None:
    if not ws or any(w.server_cpu is None for w in ws):
        return None
    ok = sum(w.ok for w in ws)
    return sum(w.server_cpu for w in ws) / ok * 1e6 if ok else None


@dataclass
class CellRun:
    plan: object
    windows: list = field(default_factory=list)
    data: dict = field(default_factory=dict)   # (start, round) → WindowData

    def add_window(self, built: tuple[dict, WindowData]) -> None:
        record, data = built
        self.windows.append(record)
        self.data[(record["start"], record["round"])] = data

    def eligible(self) -> dict:
        """The windows a headline ratio uses: none with an excluding flag, and none flagged `jit`
        as long as every start keeps a window without it. A window whose service compiled for a
        tenth of a core or more measures the compiler, and one start's first window after its
        warm-ups is the one that does; a cell whose service compiles in every window (without a
        cache it waits on MariaDB and keeps compiling) keeps them all, and its flags say so."""
        kept = {k: d for k, d in self.data.items() if d.eligible}
        steady = {k: d for k, d in kept.items() if not d.jit}
        return steady if {s for s, _ in steady} == {s for s, _ in kept} else kept

    def summary(self, draws, body_bytes: float | None) -> tuple[dict, list]:
        """(summary as run.json holds it, cell-level flags)."""
        ws = self.windows
        data = list(self.data.values())
        pool = pooled.Pool(counts=sum((d.counts for d in data), np.zeros_like(data[0].counts)),
                           n=int(sum(int(d.counts.sum()) for d in data)),
                           sum_us=sum(d.lat_sum_us for d in data),
                           max_us=max((d.lat_max_us for d in data if d.lat_max_us is not None), default=None))
        latency, too_few = pool.latency_ms()
        flags = []
        if {"p50", "p99"} & set(too_few):
            flags.append(flag("few-samples", f"{pool.n} successful samples pooled: "
                                             f"{', '.join(too_few)} not reported (p99 needs "
                                             f"{pooled.min_samples(99):,}, p99.9 {pooled.min_samples(99.9):,})"))
        requests = sum(w["requests"] for w in ws)
        ok = sum(w["ok"] for w in ws)
        errors = sum(w["errors"] for w in ws)

        def total(path):
            vals = [_dig(w, path) for w in ws]
            return None if any(v is None for v in vals) else sum(vals)

        def per_request(v):
            return v / ok * 1e6 if v is not None and ok else None

        # the hits and misses of the windows whose counters were read, summed: one ratio per level over
        # the cell, as its CPU and rows a request are (a median per level took each from another
        # window, and gave an overall its L1 and L2 could not)
        counted = [d.hit_counts for d in data if d.hit_counts is not None]
        hit_ratio = cachestats.ratios(cachestats.summed(counted) if counted else None)

        def median_of(key):
            vals = [w[key] for w in ws if w[key] is not None]
            return float(np.median(vals)) if vals else None

        rows, queries = total(("db", "rowsRead")), total(("db", "queries"))
        service = SERVICE_NAMES[self.plan.protocol]
        service_pooled = pooled_service_latency(list(self.data.values()))
        summary = {
            "requests": requests, "ok": ok, "errors": errors, "errorRate": errors / requests if requests else 0.0,
            "samples": pool.n,
            "throughputRps": pooled.bootstrap(self.data, draws, throughput),
            "latencyMs": latency,
            "latencyIntervalMs": {"p50": pooled.bootstrap(self.data, draws, percentile_ms(50)),
                                  "p99": pooled.bootstrap(self.data, draws, percentile_ms(99))},
            "spectrum": pool.spectrum(),
            "bodyBytes": body_bytes,
            "wireBytesSentPerRequest": median_of("wireBytesSentPerRequest"),
            "wireBytesReceivedPerRequest": median_of("wireBytesReceivedPerRequest"),
            "hitRatio": hit_ratio,
            "cpuUsPerRequest": {
                "service": per_request(total(("cpuSeconds", service))),
                "mariadb": per_request(total(("cpuSeconds", "mariadb"))),
                "redis": per_request(total(("cpuSeconds", "redis"))),
                # the cell's own generator: in a paired cell its wire's, not both of the pair's, which
                # over one wire's requests made each wire's generator look as costly as the two
                "generator": per_request(total(("cpuSeconds", OWN_GENERATOR))
                                         if all(OWN_GENERATOR in w["cpuSeconds"] for w in ws)
                                         else total(("cpuSeconds", "generator"))),
                "server": pooled.bootstrap(self.data, draws, server_cpu_us),
            },
            "generatorCores": median_of("generatorCores"),
            # the service's own timing, its windows' histograms pooled
            "serviceLatencyMs": {q: (service_pooled or {}).get(q) for q in ("p50", "p99")},
            "jvm": {"gcPauseMs": total(("jvm", "gcPauseMs")), "jitMs": total(("jvm", "jitMs")),
                    "jitCpuMs": total(("jvm", "jitCpuMs"))},
            "serviceThreads": service_threads(total(("serviceThreads", "userCpuMs")),
                                              total(("serviceThreads", "systemCpuMs")),
                                              total(("serviceThreads", "contextSwitches")), ok,
                                              {kind: total(("serviceThreads", "cpuMsByKind", kind))
                                               for kind in THREAD_KINDS}),
            "db": {"rowsReadPerRequest": rows / ok if rows is not None and ok else None,
                   "queriesPerRequest": queries / ok if queries is not None and ok else None},
            "droppedIterations": total(("droppedIterations",)) if self.plan.model == "open" else None,
            "achievedRate": median_of("achievedRate"),
        }
        return summary, flags


SERVICE_NAMES = {"rest": "rest-service", "grpc": "grpc-service"}


def median_present(vals: list) -> float | None:
    """The median of the values that are there; None when none is."""
    vals = [v for v in vals if v is not None]
    return float(np.median(vals)) if vals else None


def service_threads(user_ms, system_ms, switches, ok: int, kind_ms: dict) -> dict:
    """How the measured service spent its CPU over a cell's windows (their totals): the share of it
    the kernel ran on the service's behalf (system calls: sockets, epoll, futexes), its threads'
    context switches per successful request (hand-offs between threads, waits), and its CPU a
    successful request by kind of thread (µs; cpu.THREAD_KINDS: the requests' own code on the
    carriers, the server's I/O threads, the Redis client, the collector, the JIT, the rest). The two
    servers' I/O models differ most here (README, "Where the difference comes from"). None where a
    window lacks them (against a target, or a run from before they were recorded)."""
    spent = user_ms + system_ms if user_ms is not None and system_ms is not None else None
    return {"systemShare": system_ms / spent if spent else None,
            "contextSwitchesPerRequest": switches / ok if switches is not None and ok else None,
            "cpuUsPerRequestByKind": None if not ok or any(kind_ms[k] is None for k in THREAD_KINDS)
            else {k: kind_ms[k] * 1000 / ok for k in THREAD_KINDS}}


def _dig(d: dict, path: tuple):
    for k in path:
        d = d.get(k) if isinstance(d, dict) else None
        if d is None:
            return None
    return d


def interleave(cells: list, turn: int) -> list:
    """The cells of one round in the order they run: rotated by one more place each round, and
    reversed every other round, so no cell is always first after a start (or always after
    the same neighbour)."""
    if not cells:
        return []
    k = turn % len(cells)
    order = cells[k:] + cells[:k]
    return order[::-1] if turn % 2 else order
