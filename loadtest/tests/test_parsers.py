"""k6 and ghz parsers on real recorded outputs (tests/fixtures/README.md says how they were made)."""
import json
from pathlib import Path

import pytest

from tandem_bench import parse_ghz, parse_k6, stats

FIXTURES = Path(__file__).resolve().parent / "fixtures"
ORCHESTRATOR_FIELDS = {"hitRatio", "loadGenCpuSeconds", "loadGenCpuPercent"}


def measurement_fields():
    """What a parser reports of a window; the orchestrator adds the rest (windows.build)."""
    return {"requests", "errors", "errorRate", "throughputRps", "latencyMs", "bodyBytes", "wireBytesSentPerRequest",
            "wireBytesReceivedPerRequest", "droppedIterations", "achievedRate", *ORCHESTRATOR_FIELDS}


# ---------------------------------------------------------------- k6

def test_k6_rest_closed_model():
    m = parse_k6.parse(FIXTURES / "k6-rest.json")
    assert set(m) == measurement_fields() - ORCHESTRATOR_FIELDS
    assert m["requests"] == 2620
    assert m["errors"] == 261  # every 10th request was a 404
    assert m["errorRate"] == pytest.approx(261 / 2620)
    assert m["throughputRps"] == pytest.approx(2620 / 2.00258132)
    # latency of the successful requests (k6's expected_response sub-metric), in ms
    assert m["latencyMs"] == pytest.approx({
        "mean": 1.2798288245019078, "p50": 0.603061, "p90": 2.6046472000000023,
        "p95": 4.557910199999998, "p99": 13.96038674000006, "p999": 36.18347282600013,
        "max": 41.317816})
    assert m["bodyBytes"] == 112
    assert m["wireBytesSentPerRequest"] == pytest.approx(197283 / 2620)
    assert m["wireBytesReceivedPerRequest"] == pytest.approx(738851 / 2620)
    assert m["droppedIterations"] is None and m["achievedRate"] is None


def test_k6_rest_open_model_reports_dropped_iterations_and_achieved_rate():
    m = parse_k6.parse(FIXTURES / "k6-rest-open.json", open_model=True)
    assert m["requests"] == 64 and m["errors"] == 0
    assert m["droppedIterations"] == 137
    assert m["achievedRate"] == pytest.approx(64 / 2.023092239)
    # 100/s asked for, one VU on a 20 ms endpoint: about a third achieved
    assert m["achievedRate"] < 50
    assert m["latencyMs"]["p50"] > 20


def test_k6_open_models_achieved_rate_is_per_second_of_its_duration_not_of_its_graceful_stop():
    # constant-arrival-rate for 2 s, then up to gracefulStop (5 s) for the iterations in flight:
    # testRunDurationMs holds that wait, so answers 0.6 s late made 64 iterations begun in 2 s read as
    # 24.6/s, as ghz's rps and oha's total once did (parse_ghz._begun_per_second)
    data = json.loads((FIXTURES / "k6-rest-open.json").read_text())
    data["state"]["testRunDurationMs"] = 2600.0
    assert parse_k6.parse_data(data, open_model=True, duration=2.0)["achievedRate"] == pytest.approx(64 / 2.0)
    # without the executor's duration, the run's
    assert parse_k6.parse_data(data, open_model=True)["achievedRate"] == pytest.approx(64 / 2.6)


def test_k6_open_model_without_drops_reports_zero():
    data = json.loads((FIXTURES / "k6-rest-open.json").read_text())
    del data["metrics"]["dropped_iterations"]  # k6 omits the metric when nothing was dropped
    assert parse_k6.parse_data(data, open_model=True)["droppedIterations"] == 0
    assert parse_k6.parse_data(data)["droppedIterations"] is None


def test_k6_grpc():
    m = parse_k6.parse(FIXTURES / "k6-grpc.json")
    assert m["requests"] == 7024 and m["errors"] == 0
    assert m["latencyMs"]["p50"] == pytest.approx(0.318772)
    assert m["latencyMs"]["p999"] == pytest.approx(6.990753324000071)
    assert m["wireBytesSentPerRequest"] == pytest.approx(625682 / 7024)
    assert m["bodyBytes"] is None  # no body_bytes trend in this script: the orchestrator fills it


def test_k6_default_trend_stats_are_refused_loudly():
    with pytest.raises(parse_k6.ParseError) as e:
        parse_k6.parse(FIXTURES / "k6-rest-default-stats.json")
    msg = str(e.value)
    assert "p(99)" in msg and "p(99.9)" in msg and "count" in msg
    assert "summaryTrendStats" in msg


def test_k6_grpc_without_checks_is_refused():
    data = json.loads((FIXTURES / "k6-grpc.json").read_text())
    del data["metrics"]["checks"]
    with pytest.raises(parse_k6.ParseError, match="check"):
        parse_k6.parse_data(data)


def test_k6_every_request_failed_gives_no_latency():
    data = json.loads((FIXTURES / "k6-rest.json").read_text())
    m = data["metrics"]
    del m["http_req_duration{expected_response:true}"]
    m["http_req_failed"]["values"].update(passes=2620, fails=0, rate=1)
    out = parse_k6.parse_data(data)
    assert out["errorRate"] == 1
    assert out["latencyMs"] == {k: None for k in out["latencyMs"]}


@pytest.mark.parametrize("content", ["", "{\"metrics\": {", "[]", "{}"])
def test_k6_unreadable_files(tmp_path, content):
    f = tmp_path / "summary.json"
    f.write_text(content)
    with pytest.raises(parse_k6.ParseError):
        parse_k6.parse(f)


def test_k6_missing_file(tmp_path):
    with pytest.raises(parse_k6.ParseError, match="nope.json"):
        parse_k6.parse(tmp_path / "nope.json")


def test_k6_script_must_drive_one_protocol():
    data = json.loads((FIXTURES / "k6-rest.json").read_text())
    data["metrics"]["grpc_req_duration"] = data["metrics"]["http_req_duration"]
    with pytest.raises(parse_k6.ParseError, match="both"):
        parse_k6.parse_data(data)


# ---------------------------------------------------------------- ghz

def ghz_raw(name):
    return json.loads((FIXTURES / name).read_text())


def test_ghz_closed_model():
    m = parse_ghz.parse(FIXTURES / "ghz.json")
    assert set(m) == measurement_fields() - ORCHESTRATOR_FIELDS
    raw = ghz_raw("ghz.json")
    assert m["requests"] == 200 and m["errors"] == 0
    assert m["throughputRps"] == pytest.approx(raw["rps"])
    lats = sorted(d["latency"] for d in raw["details"])
    assert m["latencyMs"]["mean"] == pytest.approx(sum(lats) / 200 / 1e6)
    assert m["latencyMs"]["max"] == pytest.approx(raw["slowest"] / 1e6)
    # nearest rank over 200 calls: p99.9 is the 200th value, p99 the 198th
    assert m["latencyMs"]["p999"] == pytest.approx(lats[199] / 1e6)
    assert m["latencyMs"]["p99"] == pytest.approx(lats[197] / 1e6)
    assert m["bodyBytes"] is None and m["wireBytesSentPerRequest"] is None
    assert m["droppedIterations"] is None and m["achievedRate"] is None


@pytest.mark.parametrize("name", ["ghz.json", "ghz-errors.json", "ghz-open.json"])
def test_ghz_percentiles_equal_ghz_own_distribution(name):
    # our rule is ghz's rule: where ghz reports a percentile, we must get the same number
    m = parse_ghz.parse(FIXTURES / name)
    own = {d["percentage"]: d["latency"] / 1e6 for d in ghz_raw(name)["latencyDistribution"]}
    for ours, pct in [("p50", 50), ("p90", 90), ("p95", 95), ("p99", 99)]:
        assert m["latencyMs"][ours] == pytest.approx(own[pct], abs=1e-9), ours


def test_ghz_errors_are_counted_and_left_out_of_latency():
    m = parse_ghz.parse(FIXTURES / "ghz-errors.json")
    assert m["requests"] == 200 and m["errors"] == 20
    assert m["errorRate"] == pytest.approx(0.1)
    raw = ghz_raw("ghz-errors.json")
    assert m["latencyMs"]["max"] == pytest.approx(raw["slowest"] / 1e6)  # ghz's slowest is OK calls only


def test_ghz_open_model():
    m = parse_ghz.parse(FIXTURES / "ghz-open.json", open_model=True)
    # 200 calls begun in its 1 s --duration: the rate offered (ghz's own rps, 198.8, divides by the
    # whole run, which lasts until the last answer)
    assert m["achievedRate"] == pytest.approx(200)
    assert m["droppedIterations"] is None  # ghz does not report dropped arrivals
    assert m["errors"] == 1  # the call cut off by the end of the window


def test_ghz_open_model_rate_is_what_its_pacer_began_not_what_came_back_in_time():
    # an overload step: 4 s of --rps 1000, --duration-stop wait, answers up to 6 s late, so the
    # run took 10 s and ghz's rps says 400/s; every call was begun on time
    report = {**ghz_raw("ghz-open.json"), "count": 4000, "total": 10 * 10**9, "rps": 400.0,
              "options": {**ghz_raw("ghz-open.json")["options"], "duration": 4 * 10**9, "rps": 1000}}
    m, _ = parse_ghz.parse_report(report, open_model=True)
    assert m["achievedRate"] == pytest.approx(1000)
    # a --total run (no duration) keeps ghz's rps
    m, _ = parse_ghz.parse_report({**report, "options": {**report["options"], "duration": 0}}, open_model=True)
    assert m["achievedRate"] == pytest.approx(400)


def test_ghz_all_errors_gives_no_latency():
    m = parse_ghz.parse(FIXTURES / "ghz-all-errors.json")
    assert m["requests"] == 20 and m["errors"] == 20 and m["errorRate"] == 1
    assert m["latencyMs"] == {k: None for k in m["latencyMs"]}


def test_ghz_truncated_details_are_noted():
    raw = ghz_raw("ghz.json")
    raw["count"] = 2_000_000  # as if ghz had kept only some of the calls
    m, notes = parse_ghz.parse_report(raw)
    assert m["requests"] == 2_000_000
    assert notes and "200 of 2000000" in notes[0]


def test_ghz_without_details_is_refused(tmp_path):
    raw = ghz_raw("ghz.json")
    del raw["details"]
    f = tmp_path / "ghz.json"
    f.write_text(json.dumps(raw))
    with pytest.raises(parse_ghz.ParseError, match="details"):
        parse_ghz.parse(f)


@pytest.mark.parametrize("content", ["Summary:\n  Count: 200\n", "[]", "{}", ""])
def test_ghz_unreadable_files(tmp_path, content):
    # e.g. ghz run with its default text summary instead of --format json
    f = tmp_path / "ghz.out"
    f.write_text(content)
    with pytest.raises(parse_ghz.ParseError):
        parse_ghz.parse(f)


# ---------------------------------------------------------------- the percentile rule itself

@pytest.mark.parametrize("n, pct, rank", [
    (200, "50", 100), (200, "99", 198), (200, "99.9", 200),
    (1000, "99.9", 999),  # 99.9/100·1000 in floating point is 999.0000000000001
    (10, "10", 1), (1, "50", 1), (1, "100", 1), (7, "50", 4),
])
def test_nearest_rank(n, pct, rank):
    values = list(range(1, n + 1))
    assert stats.percentile_nearest_rank(values, pct) == rank


def test_nearest_rank_refuses_nonsense():
    with pytest.raises(ValueError):
        stats.percentile_nearest_rank([], 50)
    with pytest.raises(ValueError):
        stats.percentile_nearest_rank([1, 2], 0)
