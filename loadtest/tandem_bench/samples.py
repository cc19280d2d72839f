"""Per-request samples from every load generator, in one shape, so that every latency figure of a
run is computed the same way whatever tool measured it.

A Samples holds, per request: when it was meant to be sent (epoch seconds), its latency (µs) and
whether it succeeded. "Meant to be sent" is the tool's intended send time where the tool corrects
for coordinated omission (oha --latency-correction records it; ghz --async and k6's arrival-rate
executor start each call on its schedule), else the actual send time; the latency is then timed
from that instant, so a stalled server shows up as latency rather than as requests never sent.
ghz records no due time: its latency runs from gRPC's call begin, which with --async is when the
pacer's tick fired (each tick gets a goroutine of its own, so a slow answer delays no later call).
That is the due time only while ghz's pacer keeps up; a pacer starved of CPU ticks late and then
catches up. from_ghz, given the planned rate, puts that lateness back into the latency (its
docstring says how).

Each sample also has an outcome (OUTCOMES): answered, refused by the service's admission control
(HTTP 503 / gRPC UNAVAILABLE, which is how the services say "at my limit, retry later"), timed out
(HTTP 504 / gRPC DEADLINE_EXCEEDED: the request's deadline passed, on the client or the server), or
failed otherwise. The overload profile counts refusals and timeouts apart from other errors.

Readers (each tested on a recorded output in tests/fixtures/):
  k6      --out csv with K6_CSV_TIME_FORMAT=unix_micro: one row per metric sample; the row of
          http_req_duration (REST) or grpc_req_duration (gRPC) is one request, stamped when it ended
  ghz     --format json: details[] with each call's timestamp, latency (ns) and error; the timestamp
          is when the call ended (ghz's stats handler stamps stats.End's EndTime), so it was
          sent `latency` earlier
  h2load  --log-file: start (µs since epoch), HTTP status, duration (µs) per request
  oha     --db-url: an sqlite table with start, start_latency_correction, end, status, len_bytes
"""
from __future__ import annotations

import csv
import gzip
import json
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import numpy as np

from .pooled import min_samples


class SamplesError(ValueError):
    """The raw output cannot be read as per-request samples; the message names the file."""


# a sample's outcome: answered (ok), refused (admission control), timed out, failed otherwise
OK, REFUSED, TIMED_OUT, FAILED = 0, 1, 2, 3
OUTCOMES = ("ok", "refused", "timedOut", "failed")
REST_REFUSED, REST_TIMED_OUT = 503, 504
GRPC_REFUSED, GRPC_TIMED_OUT = 14, 4          # UNAVAILABLE, DEADLINE_EXCEEDED
GHZ_STATUS = {"OK": OK, "Unavailable": REFUSED, "DeadlineExceeded": TIMED_OUT}


def http_outcomes(status: np.ndarray) -> np.ndarray:
    """Outcome per HTTP status (below 400 answered; -1 or 0: no response at all, failed)."""
    status = np.asarray(status, dtype=np.float64)
    out = np.full(len(status), FAILED, dtype=np.int8)
    out[(status >= 200) & (status < 400)] = OK
    out[status == REST_REFUSED] = REFUSED
    out[status == REST_TIMED_OUT] = TIMED_OUT
    return out


@dataclass
class Samples:
    sent: np.ndarray        # float64 epoch seconds: intended (or actual) send time
    latency_us: np.ndarray  # float64 microseconds
    ok: np.ndarray          # bool
    body_bytes: float | None = None   # mean body bytes of the successful responses, when counted
    # int8 per sample (OK, REFUSED, TIMED_OUT, FAILED); None: derived from ok (answered or failed)
    outcome: np.ndarray | None = None

    def __post_init__(self):
        if not (len(self.sent) == len(self.latency_us) == len(self.ok)):
            raise SamplesError("sent, latency_us and ok differ in length")
        if self.outcome is None:
            self.outcome = np.where(self.ok, OK, FAILED).astype(np.int8)
        elif len(self.outcome) != len(self.ok):
            raise SamplesError("outcome and ok differ in length")

    @property
    def refused(self) -> int:
        return int((self.outcome == REFUSED).sum())

    @property
    def timed_out(self) -> int:
        return int((self.outcome == TIMED_OUT).sum())

    @property
    def requests(self) -> int:
        return int(len(self.sent))

    @property
    def succeeded(self) -> int:
        return int(self.ok.sum())

    def since(self, t: float) -> "Samples":
        """The samples sent (due, in an open model) at or after t."""
        keep = self.sent >= t
        return Samples(self.sent[keep], self.latency_us[keep], self.ok[keep], self.body_bytes, self.outcome[keep])

    def span(self) -> tuple[float, float] | None:
        """(first send, last completion) in epoch seconds: the measured window."""
        if not len(self.sent):
            return None
        return float(self.sent.min()), float((self.sent + self.latency_us / 1e6).max())

    def seconds(self) -> float:
        s = self.span()
        return s[1] - s[0] if s else 0.0

    def ok_latencies_us(self) -> np.ndarray:
        return self.latency_us[self.ok]

    def timeline(self, slice_seconds: float = 0.25) -> list[dict]:
        """The window cut by send time into equal slices of about slice_seconds: per slice, the
        successful requests per second and their p50/p99 in ms (nearest rank), each null when the
        slice holds fewer samples than pooled.min_samples asks of it (p99: 1,000), as a cell's
        percentiles are; t is the slice's end in seconds from the first send."""
        if not len(self.sent):
            return []
        first = float(self.sent.min())
        rel = self.sent - first
        sending = float(rel.max())
        n_slices = max(1, int(round(sending / slice_seconds)))
        width = sending / n_slices if sending > 0 else slice_seconds
        idx = np.minimum((rel / width).astype(int), n_slices - 1)
        out = []
        for i in range(n_slices):
            mask = (idx == i) & self.ok
            lat = np.sort(self.latency_us[mask])
            out.append({
                "t": round((i + 1) * width, 3),
                "rps": float(mask.sum() / width),
                "p50": _nearest_rank(lat, 50) / 1000 if len(lat) >= min_samples(50) else None,
                "p99": _nearest_rank(lat, 99) / 1000 if len(lat) >= min_samples(99) else None,
            })
        return out


def _nearest_rank(sorted_values: np.ndarray, percent: float) -> float:
    rank = int(np.ceil(percent / 100 * len(sorted_values)))
    return float(sorted_values[max(rank, 1) - 1])


def _make(sent, latency_us, ok, body_bytes=None, outcome=None) -> Samples:
    return Samples(np.asarray(sent, dtype=np.float64), np.asarray(latency_us, dtype=np.float64),
                   np.asarray(ok, dtype=bool), body_bytes,
                   None if outcome is None else np.asarray(outcome, dtype=np.int8))


# ---------------------------------------------------------------- k6

K6_DURATION = {"rest": "http_req_duration", "grpc": "grpc_req_duration"}


def from_k6_csv(path: str | Path, protocol: str) -> Samples:
    """k6 --out csv=FILE (optionally .gz) written with K6_CSV_TIME_FORMAT=unix_micro. The timestamp
    of a *_duration row is when the request ended, so it was sent `duration` earlier. REST succeeds
    on an HTTP status below 400 (k6's expected_response), gRPC on status 0 (OK)."""
    path = Path(path)
    metric = K6_DURATION[protocol]
    opener = gzip.open if path.suffix == ".gz" else open
    sent, lat, ok, outcome = [], [], [], []
    try:
        with opener(path, "rt", newline="") as f:
            reader = csv.DictReader(f)
            if not reader.fieldnames or "metric_name" not in reader.fieldnames:
                raise SamplesError(f"{path}: not a k6 CSV output (no metric_name column)")
            for row in reader:
                if row["metric_name"] != metric:
                    continue
                ts = int(row["timestamp"])
                if ts < 10**14:
                    raise SamplesError(f"{path}: timestamps in seconds; run k6 with K6_CSV_TIME_FORMAT=unix_micro")
                ms = float(row["metric_value"])
                sent.append(ts / 1e6 - ms / 1000)
                lat.append(ms * 1000)
                status = row.get("status") or ""
                code = int(status) if status.isdigit() else -1
                if protocol == "rest":
                    ok.append(0 < code < 400)
                    outcome.append(http_outcomes([code])[0])
                else:
                    ok.append(status == "0")
                    outcome.append(OK if code == 0 else REFUSED if code == GRPC_REFUSED
                                   else TIMED_OUT if code == GRPC_TIMED_OUT else FAILED)
    except (OSError, csv.Error, ValueError, KeyError) as e:
        if isinstance(e, SamplesError):
            raise
        raise SamplesError(f"{path}: unreadable k6 CSV: {e}") from e
    return _make(sent, lat, ok, outcome=outcome)


# ---------------------------------------------------------------- ghz

def _rfc3339(ts: str) -> float:
    """ghz's call timestamps: RFC 3339 with up to nanoseconds, which fromisoformat (3.11) refuses
    beyond microseconds."""
    head, _, rest = ts.partition(".")
    if rest:
        digits = "".join(c for c in rest if c.isdigit())
        zone = rest[len(digits):]
        ts = f"{head}.{digits[:6]}{zone}"
    return datetime.fromisoformat(ts.replace("Z", "+00:00")).timestamp()


def from_ghz(report: dict | str | Path, planned_rate: float | None = None) -> Samples:
    """ghz --format json. With `planned_rate` (the --rps of an open-model run), each call's latency
    runs from when it was due rather than from when ghz began it: ghz's constant pacer owes tick k
    at t0 + (k + 1) / rate and, when it has fallen behind, sends the owed ticks at once to catch up
    (load/pacer.go, v0.120.0), so the k-th call begun was due at the first one's begin + k / rate,
    or at its own begin if that is earlier. A pacer that never fell behind changes nothing."""
    if not isinstance(report, dict):
        path = Path(report)
        try:
            report = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError) as e:
            raise SamplesError(f"{path}: not a ghz JSON report: {e}") from e
    details = report.get("details")
    if details is None:
        raise SamplesError("ghz report without details: run ghz with --format json")
    lat = np.array([d["latency"] / 1000 for d in details], dtype=np.float64)
    # the timestamp is the call's end: taken as the send time, a window's span ran past its last
    # answer by that answer's latency, beyond the CPU readings when answers were slow
    sent = np.array([_rfc3339(d["timestamp"]) for d in details], dtype=np.float64) - lat / 1e6
    ok = [not d.get("error") and d.get("status", "OK") == "OK" for d in details]
    # a call with an error but status OK (ghz's own failure, e.g. a connection it could not open) failed
    outcome = np.array([OK if good else FAILED if d.get("status", "OK") == "OK" else GHZ_STATUS.get(d["status"], FAILED)
                        for good, d in zip(ok, details)], dtype=np.int8)
    ok = np.asarray(ok, dtype=bool)
    if planned_rate and len(sent):
        # the calls in the order ghz began them (goroutines may swap calls begun microseconds
        # apart: the due times stay the same set)
        order = np.argsort(sent, kind="stable")
        sent, lat, ok, outcome = sent[order], lat[order], ok[order], outcome[order]
        due = np.minimum(sent, sent[0] + np.arange(len(sent)) / planned_rate)
        lat = lat + (sent - due) * 1e6
        sent = due
    return _make(sent, lat, ok, outcome=outcome)


# ---------------------------------------------------------------- h2load

def from_h2load_log(path: str | Path) -> Samples:
    """h2load --log-file: 'start µs since epoch <TAB> status <TAB> duration µs' per request. A
    request that failed below HTTP (reset, timeout) is logged with status -1."""
    path = Path(path)
    try:
        data = np.loadtxt(path, dtype=np.float64, delimiter="\t", ndmin=2)
    except (OSError, ValueError) as e:
        raise SamplesError(f"{path}: not an h2load log file: {e}") from e
    if data.size == 0:
        return _make([], [], [])
    if data.shape[1] != 3:
        raise SamplesError(f"{path}: expected 3 tab-separated columns, got {data.shape[1]}")
    status = data[:, 1]
    return _make(data[:, 0] / 1e6, data[:, 2], (status >= 200) & (status < 400), outcome=http_outcomes(status))


# ---------------------------------------------------------------- oha

def from_oha_db(path: str | Path, launched_at: float | None = None, planned_rate: float | None = None) -> Samples:
    """oha --db-url: start and end are seconds from the run's start; with --latency-correction,
    start_latency_correction is when the request's ticket was stamped, and the latency runs from
    then. The run column holds the start in whole epoch seconds only, so `launched_at` (when the
    process was started, a few ms before its clock) places the requests in time when given. oha
    stores the requests that got a response; the failures are counted from its JSON report by the
    caller.

    With `planned_rate` (the -q of an open-model run) a ticket's lateness is put back. oha's
    ticket producer sleeps until tick i is due (start + i / rate) and stamps it when it wakes
    (client.rs, work_until_with_qps_latency_correction, 1.16.0): woken late (its one thread busy with
    the connections, or descheduled), it stamps the overdue tickets together, late, and that
    lateness never reached the latency, where ghz's is put back (from_ghz). Ticks are 1 / rate apart
    and stamped in order, so each ticket was due at least 1 / rate before the next one was: going
    back from the last, due_i = min(stamp_i, due_{i+1} - 1 / rate). A request missing from the
    database (no response) only makes a due time later than it was, so the latency is never
    overstated; a producer that kept time changes nothing."""
    path = Path(path)
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
            rows = db.execute("SELECT run, start, start_latency_correction, end, status, len_bytes FROM oha").fetchall()
    except sqlite3.Error as e:
        raise SamplesError(f"{path}: not an oha database: {e}") from e
    if not rows:
        return _make([], [], [])
    a = np.array([(r[0], r[1], r[2] if r[2] is not None else r[1], r[3], r[4], r[5]) for r in rows],
                 dtype=np.float64)
    if planned_rate:
        a = a[np.argsort(a[:, 2], kind="stable")]
        period = np.arange(len(a)) / planned_rate
        # min over j >= i of (stamp_j - (j - i) / rate), as a reversed running minimum
        a[:, 2] = np.minimum.accumulate((a[:, 2] - period)[::-1])[::-1] + period
    base = a[:, 0] if launched_at is None else np.full(len(a), launched_at)
    due = base + a[:, 2]
    latency_us = (a[:, 3] - a[:, 2]) * 1e6
    ok = (a[:, 4] >= 200) & (a[:, 4] < 400)
    body = float(a[ok, 5].mean()) if ok.any() else None
    return _make(due, latency_us, ok, body, outcome=http_outcomes(a[:, 4]))


def oha_failures(report_path: str | Path) -> int:
    """Requests oha counted as errors (connection errors, deadline aborts) in its JSON report; they
    are not in its database."""
    return sum(oha_error_counts(report_path))


def oha_error_counts(report_path: str | Path) -> tuple[int, int]:
    """(timed out, other) among the requests oha counted as errors: a request that outlived oha's
    -t timeout is reported as "timeout" (oha 1.16 against a server answering after 1 s, -t 200ms:
    errorDistribution {"timeout": 16}); "aborted due to deadline" is the end of the window, not a
    request's deadline, and counts as other."""
    try:
        report = json.loads(Path(report_path).read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise SamplesError(f"{report_path}: not an oha JSON report: {e}") from e
    errors = report.get("errorDistribution") or {}
    timed_out = sum(int(n) for msg, n in errors.items() if "timeout" in msg.lower() or "timed out" in msg.lower())
    return timed_out, int(sum(errors.values())) - timed_out
