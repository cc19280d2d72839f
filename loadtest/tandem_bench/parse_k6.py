"""k6 v1.8.1 summary → measurement.

Input: the JSON that a script's handleSummary writes, i.e. JSON.stringify(data). The script
must ask for every statistic we report (SUMMARY_TREND_STATS below); k6's default set lacks p99,
p99.9 and count, and a bench that silently reported p95 as its tail would lie, so a missing
statistic is an error, never a guess.

Output: a measurement as in run.schema.json, without hitRatio, loadGenCpuSeconds and
loadGenCpuPercent, which the orchestrator reads from elsewhere.
"""
from __future__ import annotations

import json
from pathlib import Path

# Use exactly this list as options.summaryTrendStats in every bench script.
SUMMARY_TREND_STATS = ["avg", "min", "med", "max", "p(90)", "p(95)", "p(99)", "p(99.9)", "count"]

# The Trend a script fills with the byte length of each successful response body.
BODY_BYTES_METRIC = "body_bytes"

# k6 tags every HTTP request with expected_response (status < 400 by default); its summary carries
# this sub-metric, the latency of the requests that succeeded, which is what ghz reports too.
REST_OK_DURATION = "http_req_duration{expected_response:true}"

LATENCY_FROM_K6 = {"mean": "avg", "p50": "med", "p90": "p(90)", "p95": "p(95)",
                   "p99": "p(99)", "p999": "p(99.9)", "max": "max"}


class ParseError(ValueError):
    """The file is not a usable k6 summary; the message says what to change."""


def parse(path: str | Path, *, open_model: bool = False, duration: float | None = None) -> dict:
    """Reads a handleSummary JSON file. open_model: the cell used an arrival-rate executor,
    so dropped iterations and the achieved rate are reported; duration: that executor's, in seconds."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ParseError(f"{path}: not a readable k6 summary: {e}") from e
    return parse_data(data, open_model=open_model, duration=duration, source=str(path))


def parse_data(data: dict, *, open_model: bool = False, duration: float | None = None,
               source: str = "k6 summary") -> dict:
    if not isinstance(data, dict):
        raise ParseError(f"{source}: a k6 summary is a JSON object, got {type(data).__name__}")
    metrics = data.get("metrics")
    duration_ms = (data.get("state") or {}).get("testRunDurationMs")
    if not isinstance(metrics, dict) or not duration_ms:
        raise ParseError(f"{source}: no metrics/state.testRunDurationMs: "
                         "is this the data handleSummary received?")
    seconds = duration_ms / 1000

    def values(name):
        m = metrics.get(name)
        return m["values"] if m else None

    is_rest = "http_req_duration" in metrics
    is_grpc = "grpc_req_duration" in metrics
    if is_rest == is_grpc:
        raise ParseError(f"{source}: expected exactly one of http_req_duration (REST) and "
                         f"grpc_req_duration (gRPC), found {'both' if is_rest else 'neither'}; "
                         "a bench script drives one protocol, and at least one request must run")

    if is_rest:
        requests = _need(values("http_reqs"), "count", "http_reqs", source)
        failed = values("http_req_failed")
        if failed is None:
            raise ParseError(f"{source}: no http_req_failed metric, so errors cannot be counted")
        errors = failed["passes"]  # a Rate counts true values as passes: true = the request failed
        latency = values(REST_OK_DURATION)
        if latency is None and errors < requests:
            latency = values("http_req_duration")
        trend_name = REST_OK_DURATION if REST_OK_DURATION in metrics else "http_req_duration"
    else:
        latency = values("grpc_req_duration")
        requests = _need(latency, "count", "grpc_req_duration", source)
        checks = values("checks")
        if checks is None:
            # k6 has no failure metric for gRPC; the script's one check per call is the count
            raise ParseError(f"{source}: gRPC summary without checks: the script must check each "
                             "response's status (exactly one check per call) so errors are counted")
        errors = checks["fails"]
        trend_name = "grpc_req_duration"

    latency_ms = _latency(latency, trend_name, source)

    body = values(BODY_BYTES_METRIC)
    sent = _need(values("data_sent"), "count", "data_sent", source)
    received = _need(values("data_received"), "count", "data_received", source)
    dropped = values("dropped_iterations")
    iterations = values("iterations")

    return {
        "requests": int(requests),
        "errors": int(errors),
        "errorRate": errors / requests if requests else 0.0,
        "throughputRps": requests / seconds,
        "latencyMs": latency_ms,
        "bodyBytes": body["avg"] if body and body.get("count") else None,
        "wireBytesSentPerRequest": sent / requests if requests else None,
        "wireBytesReceivedPerRequest": received / requests if requests else None,
        "droppedIterations": int(dropped["count"]) if dropped else (0 if open_model else None),
        # the iterations begun per second of the executor's duration: testRunDurationMs also holds its
        # gracefulStop, the wait for the iterations in flight, as long as their answers took
        "achievedRate": (iterations["count"] / (duration or seconds) if iterations else 0.0) if open_model else None,
    }


def _need(vals: dict | None, key: str, name: str, source: str):
    if vals is None or key not in vals:
        raise ParseError(f"{source}: metric {name} has no '{key}'")
    return vals[key]


def _latency(vals: dict | None, name: str, source: str) -> dict:
    if vals is None:
        # every request failed: there is no latency of a successful request to report
        return {k: None for k in LATENCY_FROM_K6}
    missing = [s for s in SUMMARY_TREND_STATS if s not in vals]
    if missing:
        raise ParseError(
            f"{source}: {name} lacks {', '.join(missing)}; set options.summaryTrendStats = "
            f"{json.dumps(SUMMARY_TREND_STATS)} in the k6 script")
    return {ours: float(vals[theirs]) for ours, theirs in LATENCY_FROM_K6.items()}
