"""Per-request samples from each generator's recorded output (tests/fixtures/README.md says how
they were recorded), and the windows built from them."""
import json
from pathlib import Path

import numpy as np
import pytest

from tandem_bench import samples

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def test_k6_csv_rows_of_the_duration_metric_are_the_requests_sent_a_duration_before_their_stamp():
    s = samples.from_k6_csv(FIXTURES / "k6-rest-samples.csv", "rest")
    # 650 rows of every metric hold 47 http_req_duration rows; every 10th key is a 404
    assert s.requests == 47 and s.succeeded == 43
    first = next(l for l in (FIXTURES / "k6-rest-samples.csv").read_text().splitlines()
                 if l.startswith("http_req_duration")).split(",")
    assert s.latency_us[0] == pytest.approx(float(first[2]) * 1000)
    assert s.sent[0] == pytest.approx(int(first[1]) / 1e6 - float(first[2]) / 1000)
    start, end = s.span()
    assert 0 < end - start < 1


def test_k6_csv_with_second_timestamps_is_refused(tmp_path):
    f = tmp_path / "k6.csv"
    f.write_text("metric_name,timestamp,metric_value,scenario,status,extra_tags,metadata\n"
                 "http_req_duration,1795486167,0.7,bench,200,,\n")
    with pytest.raises(samples.SamplesError, match="unix_micro"):
        samples.from_k6_csv(f, "rest")


def test_ghz_details_give_start_latency_and_status():
    s = samples.from_ghz(FIXTURES / "ghz-errors.json")
    report = json.loads((FIXTURES / "ghz-errors.json").read_text())
    assert s.requests == 200 and s.succeeded == 180
    first = report["details"][0]
    assert s.latency_us[0] == first["latency"] / 1000
    # ghz stamps a call when it ends (its stats handler's End.EndTime): it was sent that latency earlier,
    # and the window ends with the last answer, not one latency after it
    assert s.sent[0] == pytest.approx(samples._rfc3339(first["timestamp"]) - first["latency"] / 1e9, abs=1e-6)
    assert s.span()[1] == pytest.approx(max(samples._rfc3339(d["timestamp"]) for d in report["details"]), abs=1e-6)


def _ghz_report(begins, latency_ms=1.0):
    """ghz details for calls begun at `begins` (seconds after 00:00:00 UTC) that took `latency_ms` each."""
    def stamp(t):
        whole = int(t)
        return f"2026-11-29T00:00:{whole:02d}.{round((t - whole) * 1e9):09d}Z"
    return {"details": [{"timestamp": stamp(b + latency_ms / 1000), "latency": int(latency_ms * 1e6),
                         "error": "", "status": "OK"} for b in begins]}


def test_ghz_open_model_latency_runs_from_the_due_time_when_its_pacer_fell_behind():
    # 100 calls a second: the third call was due at 0.02 s, but the pacer stalled until 0.05 s and
    # then began the owed calls at once, as ghz's constant pacer catches up
    report = _ghz_report([1.0, 1.01, 1.05, 1.05, 1.05, 1.05])
    corrected = samples.from_ghz(report, planned_rate=100)
    assert corrected.latency_us == pytest.approx([1000, 1000, 31000, 21000, 11000, 1000], abs=1)
    assert corrected.sent - corrected.sent[0] == pytest.approx([0, 0.01, 0.02, 0.03, 0.04, 0.05], abs=1e-6)
    # without the planned rate (a closed-model run), latency runs from when ghz began each call
    assert samples.from_ghz(report).latency_us == pytest.approx([1000] * 6, abs=1)


def test_ghz_open_model_calls_begun_on_time_or_early_keep_their_latency():
    # a pacer that kept up: calls begun on time, or by jitter a little early, keep their latency;
    # the last, begun half a millisecond after it was due, gets that half millisecond
    begins = [2.0, 2.01, 2.0195, 2.03, 2.0405]
    report = _ghz_report(begins, latency_ms=3.0)
    s = samples.from_ghz(report, planned_rate=100)
    assert s.latency_us == pytest.approx([3000, 3000, 3000, 3000, 3500], abs=1)
    assert s.span()[0] == pytest.approx(samples._rfc3339(report["details"][0]["timestamp"]) - 0.003, abs=1e-6)


def test_oha_database_times_latency_from_the_due_time_and_counts_bodies():
    s = samples.from_oha_db(FIXTURES / "oha-open.db")
    assert s.requests == 100 and s.succeeded == 79   # the URL list has one /missing (404) in five
    assert s.body_bytes == pytest.approx(112.0)
    launched = samples.from_oha_db(FIXTURES / "oha-open.db", launched_at=1000.0)
    assert 1000.0 <= launched.span()[0] < 1000.1 and launched.span()[1] < 1001.1
    assert samples.oha_failures(FIXTURES / "oha-open.json") == 0
    # --latency-correction: the latency runs from when the request was due, never from later
    assert (s.latency_us > 0).all()


def test_oha_tickets_stamped_late_together_get_their_lateness_back(tmp_path):
    """oha stamps a ticket when its producer wakes: woken 40 ms late at 1,000/s, it stamps the 40
    overdue tickets (due 20-59 ms) at 60 ms, and each answers 1 ms later. The latency is taken from
    the stamp (1 ms) unless the due times are rebuilt from the rate: then the first of them waited
    41 ms. On time elsewhere, nothing moves; a request missing from the database (no response)
    never makes one look later than it was."""
    import sqlite3
    stamps = [i / 1000 for i in range(100)]
    stamps[20:60] = [0.060] * 40
    db = tmp_path / "late.db"
    with sqlite3.connect(db) as c:
        c.execute("CREATE TABLE oha (run INTEGER, start REAL, start_latency_correction REAL, end REAL, "
                  "duration REAL, status INTEGER, len_bytes INTEGER)")
        c.executemany("INSERT INTO oha VALUES (0, ?, ?, ?, 0.001, 200, 10)",
                      [(t, t, t + 0.001) for i, t in enumerate(stamps) if i != 70])   # 70 never answered
    as_stamped = samples.from_oha_db(db)
    assert as_stamped.latency_us.max() == pytest.approx(1000, abs=1)
    rebuilt = samples.from_oha_db(db, planned_rate=1000)
    assert rebuilt.latency_us.max() == pytest.approx(41000, abs=1)
    assert rebuilt.latency_us[:20] == pytest.approx([1000] * 20, abs=1)
    assert rebuilt.latency_us[60:] == pytest.approx([1000] * 39, abs=1)


def test_a_timeline_slices_the_window_by_send_time():
    sent = 100.0 + np.arange(1000) / 1000          # 1,000 requests over one second
    lat = np.where(np.arange(1000) < 500, 200.0, 2000.0)
    s = samples.Samples(sent, lat, np.ones(1000, bool))
    tl = s.timeline(0.25)
    assert [round(x["t"], 2) for x in tl] == [0.25, 0.5, 0.75, 1.0]
    assert [x["rps"] for x in tl] == pytest.approx([1000] * 4, rel=0.01)
    assert [x["p50"] for x in tl] == [0.2, 0.2, 2.0, 2.0]


def test_a_timeline_slice_reports_a_percentile_only_from_enough_samples():
    """The harness's rule (pooled.min_samples): p from at least 10 / (1 - p) samples, so a slice's
    p99 needs 1,000 and its p50 20; with fewer it is null rather than one of its few largest values."""
    from tandem_bench import pooled
    sent = 100.0 + np.arange(1000) / 1000          # 250 requests a slice
    s = samples.Samples(sent, np.full(1000, 500.0), np.ones(1000, bool))
    assert [x["p99"] for x in s.timeline(0.25)] == [None] * 4
    assert [x["p99"] for x in s.timeline(1.0)] == [0.5]   # 1,000 in one slice: enough
    sparse = samples.Samples(100.0 + np.arange(40) / 40, np.full(40, 500.0), np.ones(40, bool))
    tl = sparse.timeline(0.25)                      # 10 a slice
    assert pooled.min_samples(50) == 20
    assert [x["p50"] for x in tl] == [None] * 4 and [x["p99"] for x in tl] == [None] * 4


def test_k6_grpc_rows_succeed_on_status_zero():
    s = samples.from_k6_csv(FIXTURES / "k6-grpc-samples.csv", "grpc")
    assert s.requests == 50 and s.succeeded == 50
    assert s.latency_us[0] == pytest.approx(482.044)


def test_h2load_log_gives_start_status_and_duration_and_its_summary_the_traffic():
    from tandem_bench import loadgen
    s = samples.from_h2load_log(FIXTURES / "h2load-grpc.log")
    first = (FIXTURES / "h2load-grpc.log").read_text().splitlines()[0].split("\t")
    assert s.requests == 400 and s.succeeded == 400
    assert s.sent[0] == int(first[0]) / 1e6 and s.latency_us[0] == int(first[2])
    totals = loadgen.parse_h2load_stdout((FIXTURES / "h2load-grpc.txt").read_text())
    assert totals["requests"] == totals["succeeded"] == 133672 and totals["failed"] == 0
    # DATA payload per call: the gRPC frame, 5-byte prefix + the message of the one key h2load sends
    assert totals["dataBytes"] / totals["requests"] == pytest.approx(117.0, abs=0.1)
