"""What the servers themselves say about a window, read just before and just after it: the
measured service's JIT compilation time, GC pauses and count of successful calls (Micrometer,
/actuator/prometheus), and MariaDB's own row and query counters (SHOW GLOBAL STATUS) — an
independent check of the hit ratio (a warm window reads about no rows, a cold one at least one
per request) and, for h2load on gRPC, the only count of calls that really succeeded (h2load sees
HTTP status 200 on every gRPC response, errors included: the gRPC status travels in trailers).
"""
from __future__ import annotations

import re
import subprocess
import urllib.error

from . import services

GRPC_OK = "grpc_server_seconds_count"
# admission control (dev.tandem.admission): the concurrency limit now, and the requests refused so far
ADMISSION_LIMIT = "tandem_admission_limit"
ADMISSION_REFUSED = "tandem_admission_refused_total"
REST_OK = "http_server_requests_seconds_count"
REST_PATHS = {"Hello": "/api/v1/hello", "GetGroup": "/api/v1/groups/{id}", "ListGroups": "/api/v1/groups"}


def jvm_and_calls(management_base: str, protocol: str, operation: str, method: str | None) -> dict:
    """Cumulative counters of one service: jitMs, gcPauseMs, gcPauses, okCalls (successful calls of
    the operation), admissionRefused; and two gauges, heapMaxBytes and admissionLimit (the
    concurrency limit at the time of reading). Values it does not publish are None; an unreachable
    service gives all None."""
    out = {"jitMs": None, "gcPauseMs": None, "gcPauses": None, "okCalls": None, "heapMaxBytes": None,
           "admissionLimit": None, "admissionRefused": None}
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
    if protocol == "grpc" and method:
        service, _, rpc = method.partition("/")
        out["okCalls"] = int(sum(v for labels, v in prometheus_samples(text, GRPC_OK)
                                 if labels.get("rpc_service") == service and labels.get("rpc_method") == rpc
                                 and labels.get("error", "none") == "none"))
    elif protocol == "rest":
        out["okCalls"] = int(sum(v for labels, v in prometheus_samples(text, REST_OK)
                                 if labels.get("uri") == REST_PATHS.get(operation)
                                 and labels.get("outcome") == "SUCCESS"))
    return out


_SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)')
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
    """after - before per key; None where either is None."""
    return {k: (after[k] - before[k] if before.get(k) is not None and after.get(k) is not None else None)
            for k in after}
