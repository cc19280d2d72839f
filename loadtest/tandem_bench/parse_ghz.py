"""ghz v0.120.0 `--format json` report → measurement.

ghz's own latencyDistribution stops at p99 and its `average` includes failed calls, so every
latency figure is computed here from `details`, the per-call latencies (nanoseconds) ghz keeps
(the first 1,000,000 calls). Like ghz, we use the calls that succeeded, and the exact
nearest-rank percentile — the definition ghz applies to its own p10..p99, so our p50..p99 equal
ghz's and p99.9 comes from the same rule. (HdrHistogram — the `hdrh` package installs here —
would round each latency to 3 significant digits; with every latency at hand there is no need.)

ghz does not count bytes: bodyBytes and the wire bytes are None here; the orchestrator fills
bodyBytes from a real response. Output lacks hitRatio and the load-generator CPU, like parse_k6.
"""
from __future__ import annotations

import json
from pathlib import Path

from .stats import percentile_nearest_rank

PERCENTILES = {"p50": "50", "p90": "90", "p95": "95", "p99": "99", "p999": "99.9"}
REQUIRED = ("count", "total", "rps", "statusCodeDistribution")
NS_PER_MS = 1_000_000


class ParseError(ValueError):
    """The file is not a usable ghz JSON report; the message says why."""


def parse(path: str | Path, *, open_model: bool = False) -> dict:
    """Reads a `ghz --format json` report. open_model: the call used --rps, so the achieved
    rate is reported (ghz has no notion of dropped arrivals: droppedIterations stays None)."""
    return parse_with_notes(path, open_model=open_model)[0]


def parse_with_notes(path: str | Path, *, open_model: bool = False) -> tuple[dict, list[str]]:
    """Like parse, plus notes the reader of the run must see (e.g. truncated details)."""
    path = Path(path)
    try:
        report = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ParseError(f"{path}: not a readable ghz JSON report: {e}") from e
    return parse_report(report, open_model=open_model, source=str(path))


def parse_report(report: dict, *, open_model: bool = False,
                 source: str = "ghz report") -> tuple[dict, list[str]]:
    if not isinstance(report, dict):
        raise ParseError(f"{source}: a ghz report is a JSON object, got {type(report).__name__}")
    missing = [k for k in REQUIRED if k not in report]
    if missing:
        raise ParseError(f"{source}: missing {', '.join(missing)}: run ghz with --format json")
    count = report["count"]
    details = report.get("details") or []
    if count and not details:
        raise ParseError(f"{source}: {count} calls but no details: per-call latencies are needed "
                         "for p99.9 and the mean (ghz --format json writes them)")
    notes = []
    if len(details) < count:
        notes.append(f"{source}: ghz kept {len(details)} of {count} call latencies; "
                     "percentiles are over those")

    errors = count - report["statusCodeDistribution"].get("OK", 0)
    ok = sorted(d["latency"] for d in details if not d.get("error"))
    if ok:
        latency = {"mean": sum(ok) / len(ok) / NS_PER_MS}
        for ours, pct in PERCENTILES.items():
            latency[ours] = percentile_nearest_rank(ok, pct) / NS_PER_MS
        latency["max"] = ok[-1] / NS_PER_MS
    else:
        # no call succeeded: nothing to time
        latency = {k: None for k in ("mean", *PERCENTILES, "max")}

    return {
        "requests": count,
        "errors": errors,
        "errorRate": errors / count if count else 0.0,
        "throughputRps": float(report["rps"]),
        "latencyMs": {k: latency[k] for k in ("mean", "p50", "p90", "p95", "p99", "p999", "max")},
        "bodyBytes": None,
        "wireBytesSentPerRequest": None,
        "wireBytesReceivedPerRequest": None,
        "droppedIterations": None,
        "achievedRate": _begun_per_second(report) if open_model else None,
    }, notes


def _begun_per_second(report: dict) -> float:
    """The calls ghz began per second of its --duration: the arrival rate it offered. Not ghz's
    rps, which divides by the whole run, and a run with --duration-stop wait (the bench's) lasts
    until its slowest call in flight has its answer: at an overload step with answers seconds late
    rps fell to 0.55 of the planned rate where ghz had begun at least 0.96 of its calls, and the
    window was flagged rate-short for a shortfall that was not there. Without a duration (a --total
    run), ghz's rps."""
    duration_ns = (report.get("options") or {}).get("duration") or 0
    if duration_ns > 0:
        return report["count"] / (duration_ns / 1e9)
    return float(report["rps"])
