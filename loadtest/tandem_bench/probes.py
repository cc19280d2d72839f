"""What the servers themselves say about a window, read just before and just after it: the
measured service's JIT compilation time, GC pauses and count of successful calls (Micrometer,
/actuator/prometheus), and MariaDB's own row and query counters (SHOW GLOBAL STATUS) — an
independent check of the hit ratio (a warm window reads about no rows, a cold one at least one
per request) and, for h2load on gRPC, the only count of calls that really succeeded (h2load sees
HTTP status 200 on every gRPC response, errors included: the gRPC status travels in trailers).
"""
from __future__ import annotations

import math
import re
import subprocess
import urllib.error

from . import services

GRPC_OK = "grpc_server_seconds_count"
# the services' latency histograms (tandem-service.yml, management.metrics.distribution): cumulative
# counts of the calls answered within each bucket's upper bound (le, seconds)
GRPC_BUCKETS = "grpc_server_seconds_bucket"
REST_BUCKETS = "http_server_requests_seconds_bucket"
# admission control (dev.tandem.admission): the concurrency limit now, and the requests refused so far
ADMISSION_LIMIT = "tandem_admission_limit"
ADMISSION_REFUSED = "tandem_admission_refused_total"
REST_OK = "http_server_requests_seconds_count"
REST_PATHS = {"Hello": "/api/v1/hello", "GetGroup": "/api/v1/groups/{id}", "ListGroups": "/api/v1/groups"}


def jvm_and_calls(management_base: str, protocol: str, operation: str, method: str | None) -> dict:
    """Cumulative counters of one service: jitMs, gcPauseMs, gcPauses, okCalls (successful calls of
    the operation), admissionRefused, okLatencyBuckets (the successful calls' latency histogram,
    {upper bound in seconds: calls within it}); and two gauges, heapMaxBytes and admissionLimit (the
    concurrency limit at the time of reading). Values it does not publish are None; an unreachable
    service gives all None."""
    out = {"jitMs": None, "gcPauseMs": None, "gcPauses": None, "okCalls": None, "heapMaxBytes": None,
           "admissionLimit": None, "admissionRefused": None, "okLatencyBuckets": None}
    try:
        status, body = services.http_get(f"{management_base}/actuator/prometheus", timeout=10)
    except (urllib.error.URLError, OSError):
        return out
    if status != 200:
        return out
    text = body.decode(errors="replace")
    jit = prometheus_samples(text, "jvm_compilation_time_ms_total")
    if jit:
        out["jitMs"] = sum(v for _, v in jit)
    heap = [v for labels, v in prometheus_samples(text, "jvm_memory_max_bytes")
            if labels.get("area") == "heap" and v > 0]
    if heap:
        out["heapMaxBytes"] = int(sum(heap))
    limit = prometheus_samples(text, ADMISSION_LIMIT)
    if limit:
        out["admissionLimit"] = sum(v for _, v in limit)
    refused = prometheus_samples(text, ADMISSION_REFUSED)
    if refused:
        out["admissionRefused"] = int(sum(v for _, v in refused))
    pauses = prometheus_samples(text, "jvm_gc_pause_seconds_sum")
    counts = prometheus_samples(text, "jvm_gc_pause_seconds_count")
    if pauses or counts:
        out["gcPauseMs"] = sum(v for _, v in pauses) * 1000
        out["gcPauses"] = int(sum(v for _, v in counts))
    what = operation_series(protocol, operation, method)
    if what is None:
        return out
    calls, buckets, ok = what
    out["okCalls"] = int(sum(v for labels, v in prometheus_samples(text, calls) if ok(labels)))
    out["okLatencyBuckets"] = histogram(text, buckets, ok)
    return out


def operation_series(protocol: str, operation: str, method: str | None):
    """Where a service counts the operation's successful calls: (count series, histogram bucket
    series, a filter of their label sets); None for what it does not count."""
    if protocol == "grpc" and method:
        service, _, rpc = method.partition("/")

        def ok(labels: dict) -> bool:
            # grpc_status_code, not error: Micrometer sets error only from a status's cause, and an
            # interceptor's refusal (RESOURCE_EXHAUSTED, UNAUTHENTICATED) has none
            return (labels.get("rpc_service") == service and labels.get("rpc_method") == rpc
                    and labels.get("grpc_status_code") == "OK")
        return GRPC_OK, GRPC_BUCKETS, ok
    if protocol == "rest":
        def ok(labels: dict) -> bool:
            # REDIRECTION: a revalidating client's 304, its answer when its copy is current
            return (labels.get("uri") == REST_PATHS.get(operation)
                    and labels.get("outcome") in ("SUCCESS", "REDIRECTION"))
        return REST_OK, REST_BUCKETS, ok
    return None


def latency_histogram(management_base: str, protocol: str, operation: str, method: str | None) -> dict | None:
    """The operation's latency histogram alone (okLatencyBuckets of jvm_and_calls), read with the
    Prometheus endpoint's includedNames so that the service renders that one series: cheap enough to
    read while a window runs on a capped service. None when unreachable or not published."""
    what = operation_series(protocol, operation, method)
    if what is None:
        return None
    _, buckets, ok = what
    # includedNames takes a metric family's name: the histogram's, not its _bucket series'
    family = buckets.removesuffix("_bucket")
    try:
        status, body = services.http_get(f"{management_base}/actuator/prometheus?includedNames={family}", timeout=10)
    except (urllib.error.URLError, OSError):
        return None
    return histogram(body.decode(errors="replace"), buckets, ok) if status == 200 else None


def histogram(text: str, name: str, keep) -> dict[float, float] | None:
    """The cumulative buckets of histogram `name` summed over the label sets `keep` accepts:
    {upper bound (le, +Inf included): count}. None when it publishes none (no histogram configured)."""
    out: dict[float, float] = {}
    for labels, v in prometheus_samples(text, name):
        if "le" in labels and keep(labels):
            le = float(labels["le"])
            out[le] = out.get(le, 0.0) + v
    return out or None


def histogram_delta(before: dict | None, after: dict | None) -> dict[float, float] | None:
    """What a histogram counted between two readings, per bucket; None unless both have the same
    buckets (a service restarted in between, or one without the histogram)."""
    if not before or not after or set(before) != set(after):
        return None
    return {le: after[le] - before[le] for le in after}


def histogram_quantile(q: float, buckets: dict[float, float] | None) -> float | None:
    """The q-quantile (0..1) of cumulative buckets as Prometheus's histogram_quantile() computes it:
    the bucket the rank falls in, interpolated linearly within it (from 0 for the first bucket), and
    the largest finite bound when the rank falls in +Inf. None when nothing was counted."""
    if not buckets:
        return None
    bounds = sorted(buckets)
    total = buckets[bounds[-1]]
    if total <= 0:
        return None
    rank = q * total
    lower, below = 0.0, 0.0
    for le in bounds:
        count = buckets[le]
        if count >= rank:
            if math.isinf(le):
                return lower
            if count == below:
                return le
            return lower + (le - lower) * (rank - below) / (count - below)
        lower, below = le, count
    return lower


# a label value may hold a brace (uri="/api/v1/groups/{id}"): the label set ends at the first brace
# outside quotes
_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?:[^"}]|"(?:[^"\\]|\\.)*")*\})?\s+(\S+)')
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def prometheus_samples(text: str, name: str) -> list[tuple[dict, float]]:
    """(labels, value) of every sample of metric `name` in Prometheus text format."""
    out = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        if not m or m.group(1) != name:
            continue
        labels = dict(_LABEL.findall(m.group(2) or ""))
        try:
            out.append((labels, float(m.group(3))))
        except ValueError:
            continue
    return out


def compile_shares(before: dict, after: dict, seconds: float) -> dict[str, float]:
    """Per service, the cores its JIT used on average over `seconds`, from two cumulative readings
    in ms (above 1 with more than one compiler thread busy); services not read are left out."""
    return {p: (after[p] - before[p]) / 1000 / max(seconds, 1e-9) for p in before
            if before[p] is not None and after.get(p) is not None}


# Rows_read is MariaDB's count of rows read from every table (MySQL's is Innodb_rows_read)
DB_COUNTERS = {"Rows_read": "rowsRead", "Innodb_rows_read": "rowsRead", "Questions": "queries"}


def db_counters(port: int) -> dict:
    """MariaDB's global Rows_read (MySQL: Innodb_rows_read) and Questions (every statement, this
    one included)."""
    out = {v: None for v in DB_COUNTERS.values()}
    sql = "SHOW GLOBAL STATUS WHERE Variable_name IN (" + ",".join(f"'{k}'" for k in DB_COUNTERS) + ")"
    try:
        r = subprocess.run(["mariadb", "-h127.0.0.1", f"-P{port}", "-utandem", "-ptandem", "-N", "-B", "-e", sql],
                           capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return out
    if r.returncode != 0:
        return out
    for line in r.stdout.splitlines():
        name, _, value = line.partition("\t")
        if name in DB_COUNTERS and value.strip().isdigit():
            out[DB_COUNTERS[name]] = int(value)
    return out


def delta(before: dict, after: dict) -> dict:
    """after - before per key; None where either is None. A histogram ({bound: count}) per bucket."""
    return {k: (histogram_delta(before.get(k), after[k]) if isinstance(after[k], dict)
                else after[k] - before[k] if before.get(k) is not None and after.get(k) is not None else None)
            for k in after}
