"""Medians, spread, the A + B·N fit and the headline pairing, on known data."""
import copy
import json
from pathlib import Path

import pytest

from tandem_bench import headline, stats

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def measurement(rps, p50, p99, requests=1000, l1=None):
    return {
        "requests": requests, "errors": 0, "errorRate": 0.0, "throughputRps": rps,
        "latencyMs": {"mean": p50 * 1.2, "p50": p50, "p90": p50 * 2, "p95": p50 * 3, "p99": p99,
                      "p999": p99 * 2, "max": p99 * 3},
        "bodyBytes": 100, "wireBytesSentPerRequest": 50.0, "wireBytesReceivedPerRequest": 200.0,
        "hitRatio": {"l1": l1, "l2": None, "overall": l1},
        "loadGenCpuSeconds": 1.0, "loadGenCpuPercent": 10.0,
        "droppedIterations": None, "achievedRate": None,
    }


# ---------------------------------------------------------------- medians and spread

def test_median_measurement_takes_each_figure_separately():
    runs = [measurement(100, 1.0, 9.0, requests=1000, l1=0.9),
            measurement(300, 3.0, 5.0, requests=3000, l1=0.99),
            measurement(200, 2.0, 7.0, requests=2000, l1=0.95)]
    m = stats.median_measurement(runs)
    assert m["throughputRps"] == 200
    assert m["requests"] == 2000
    assert m["latencyMs"]["p50"] == 2.0
    assert m["latencyMs"]["p99"] == 7.0  # the median p99, not the p99 of the run with median p50
    assert m["hitRatio"] == {"l1": 0.95, "l2": None, "overall": 0.95}
    assert m["droppedIterations"] is None
    assert set(m) == set(runs[0])


def test_median_of_an_even_count_is_the_midpoint():
    runs = [measurement(100, 1.0, 4.0), measurement(200, 2.0, 6.0)]
    assert stats.median_measurement(runs)["throughputRps"] == 150


def test_median_skips_missing_figures():
    runs = [measurement(100, 1.0, 4.0), measurement(200, 2.0, 6.0), measurement(300, 3.0, 8.0)]
    runs[0]["latencyMs"] = {k: None for k in runs[0]["latencyMs"]}  # a window where every call failed
    m = stats.median_measurement(runs)
    assert m["latencyMs"]["p50"] == 2.5
    assert stats.median([None, None]) is None


def test_median_measurement_refuses_empty_or_mismatched_runs():
    with pytest.raises(ValueError):
        stats.median_measurement([])
    a, b = measurement(1, 1, 1), measurement(1, 1, 1)
    del b["bodyBytes"]
    with pytest.raises(ValueError, match="disagree"):
        stats.median_measurement([a, b])


def test_spread():
    runs = [measurement(100, 1.0, 9.0), measurement(300, 3.0, 5.0), measurement(200, 2.0, 7.0)]
    assert stats.spread(runs) == {
        "throughputRps": {"min": 100, "max": 300},
        "latencyMs": {"p50": {"min": 1.0, "max": 3.0}, "p99": {"min": 5.0, "max": 9.0}},
    }


# ---------------------------------------------------------------- fit

def test_fit_perfect_line():
    points = [{"pageSize": n, "latencyMs": 0.5 + 0.01 * n} for n in (1, 10, 50, 200)]
    fit = stats.fit_linear(points)
    assert fit["a"] == pytest.approx(0.5)
    assert fit["b"] == pytest.approx(0.01)
    assert fit["r2"] == pytest.approx(1.0)


def test_fit_known_noisy_data():
    # y = 1 + 2x plus residuals +1, -1, -1, +1 at x = 0..3; the residuals sum to 0 and are
    # orthogonal to x, so least squares recovers a = 1, b = 2 exactly
    points = [(0, 2.0), (1, 2.0), (2, 4.0), (3, 8.0)]
    fit = stats.fit_linear(points)
    assert fit["b"] == pytest.approx(2.0)
    assert fit["a"] == pytest.approx(1.0)
    # SS_res = 1 + 1 + 1 + 1 = 4, SS_tot = 4 + 4 + 0 + 16 = 24
    assert fit["r2"] == pytest.approx(1 - 4 / 24)


def test_fit_degenerate_single_page_size_is_a_clear_error():
    with pytest.raises(stats.FitError, match="two distinct page sizes"):
        stats.fit_linear([{"pageSize": 50, "latencyMs": 1.0}, {"pageSize": 50, "latencyMs": 1.2}])
    with pytest.raises(stats.FitError):
        stats.fit_linear([])


def test_fit_flat_line_has_no_r2():
    fit = stats.fit_linear([(1, 2.0), (10, 2.0), (50, 2.0)])
    assert fit["b"] == 0 and fit["a"] == 2.0
    assert fit["r2"] is None


def cell(cid, protocol="rest", tool="k6", op="ListGroups", n=10, mode="hybrid", temp="warm",
         conc=10, model="closed", rps=100.0, p50=1.0, body=100, tls=None):
    m = measurement(rps, p50, p50 * 5)
    m["bodyBytes"] = body
    c = {"id": cid, "protocol": protocol, "tool": tool, "operation": op,
         "pageSize": n if op == "ListGroups" else None, "cacheMode": mode, "temperature": temp,
         "model": model, "concurrency": conc, "summary": m}
    if tls is not None:  # None: a cell of a run written before the tls dimension (plain)
        c["tls"] = tls
    return c


def test_fits_from_cells_groups_and_notes_single_sizes():
    cells = [cell(f"a{n}", n=n, p50=1 + 0.1 * n) for n in (1, 10, 50)]
    cells += [cell("b50", protocol="grpc", n=50)]  # one page size only
    cells += [cell("get", op="GetGroup")]            # not a ListGroups cell
    cells += [cell("open10", n=10, model="open"), cell("open50", n=50, model="open")]
    fits, notes = stats.fits_from_cells(cells)
    assert len(fits) == 1
    f = fits[0]
    assert (f["protocol"], f["tool"], f["cacheMode"], f["temperature"], f["concurrency"]) == \
        ("rest", "k6", "hybrid", "warm", 10)
    assert f["a"] == pytest.approx(1.0) and f["b"] == pytest.approx(0.1) and f["r2"] == pytest.approx(1)
    assert f["cellIds"] == ["a1", "a10", "a50"] and f["metric"] == "p50"
    assert len(notes) == 1 and "protocol=grpc" in notes[0]


# ---------------------------------------------------------------- headline

def test_headline_pairs_only_cells_that_differ_in_the_compared_thing():
    cells = [
        cell("rest-warm", op="GetGroup", p50=2.0, rps=1000, body=400),
        cell("grpc-warm", protocol="grpc", op="GetGroup", p50=1.0, rps=1500, body=200),
        cell("grpc-warm-c50", protocol="grpc", op="GetGroup", conc=50, p50=0.1),  # no REST at c50
        cell("grpc-ghz", protocol="grpc", tool="ghz", op="GetGroup", p50=0.01),   # ghz vs k6: never
        cell("hello-rest", op="Hello", mode="hybrid", temp="none", rps=2000),
        cell("list-hybrid", n=20, rps=600),
        cell("list-none", n=20, mode="none", temp="none", rps=100),
        cell("list-open", n=20, mode="none", temp="none", model="open", rps=1),
    ]
    head, detail = headline.compute(cells)
    assert head["grpcOverRestP50Warm"] == pytest.approx(0.5)
    assert [(p["numeratorCellId"], p["denominatorCellId"]) for p in detail["grpcOverRestP50Warm"]["pairs"]] \
        == [("grpc-warm", "rest-warm")]
    assert head["warmHybridOverNoneThroughput"] == pytest.approx(6.0)
    assert head["jsonOverProtobufBodyBytes"] == pytest.approx(2.0)
    assert head["getGroupOverHelloThroughput"] == pytest.approx(0.5)
    assert all(detail[name]["reason"] is None for name in headline.NAMES if not name.startswith("tls"))
    # no TLS cells: the TLS ratios are null and say why
    assert all(head[name] is None and "no pair" in detail[name]["reason"]
               for name in headline.NAMES if name.startswith("tls"))


def test_headline_tls_over_plain_per_protocol_from_matched_cells():
    cells = [
        # plain: one with the field, one from an older run without it
        cell("rest-plain", op="GetGroup", conc=50, p50=2.0, rps=1000, tls=False),
        cell("grpc-k6-plain", protocol="grpc", op="GetGroup", conc=50, p50=1.0, rps=2000),
        cell("grpc-ghz-plain", protocol="grpc", tool="ghz", op="GetGroup", conc=50, p50=0.8, rps=3000),
        cell("rest-tls", op="GetGroup", conc=50, p50=2.5, rps=800, tls=True),
        cell("grpc-k6-tls", protocol="grpc", op="GetGroup", conc=50, p50=1.2, rps=1600, tls=True),
        cell("grpc-ghz-tls", protocol="grpc", tool="ghz", op="GetGroup", conc=50, p50=1.2, rps=2400, tls=True),
        # no plain twin (other concurrency, other temperature): never paired
        cell("rest-tls-c1", op="GetGroup", conc=1, p50=9.0, tls=True),
        cell("grpc-tls-cold", protocol="grpc", op="GetGroup", conc=50, temp="cold", p50=9.0, tls=True),
        # open model: never counts
        cell("rest-tls-open", op="GetGroup", conc=50, model="open", p50=9.0, tls=True),
    ]
    head, detail = headline.compute(cells)
    assert head["tlsOverPlainP50Rest"] == pytest.approx(1.25)
    assert head["tlsOverPlainThroughputRest"] == pytest.approx(0.8)
    # gRPC: the median over the k6 pair (1.2) and the ghz pair (1.5), each within one tool
    assert head["tlsOverPlainP50Grpc"] == pytest.approx(1.35)
    assert head["tlsOverPlainThroughputGrpc"] == pytest.approx(0.8)
    assert [(p["numeratorCellId"], p["denominatorCellId"]) for p in detail["tlsOverPlainP50Grpc"]["pairs"]] \
        == [("grpc-k6-tls", "grpc-k6-plain"), ("grpc-ghz-tls", "grpc-ghz-plain")]
    # the protocol ratio pairs TLS with TLS and plain with plain, never across
    pairs = {(p["numeratorCellId"], p["denominatorCellId"]) for p in detail["grpcOverRestP50Warm"]["pairs"]}
    assert pairs == {("grpc-k6-plain", "rest-plain"), ("grpc-k6-tls", "rest-tls")}


def test_fits_keep_tls_and_plain_cells_apart():
    cells = [cell(f"p{n}", n=n, p50=1 + 0.1 * n) for n in (1, 10)]
    cells += [cell(f"t{n}", n=n, p50=2 + 0.2 * n, tls=True) for n in (1, 10)]
    fits, _ = stats.fits_from_cells(cells)
    assert {(f["tls"], tuple(f["cellIds"])) for f in fits} == {(False, ("p1", "p10")), (True, ("t1", "t10"))}


def test_headline_is_null_with_a_reason_when_nothing_matches():
    head, detail = headline.compute([cell("only", op="GetGroup")])
    assert all(v is None for v in head.values())
    assert all("no pair" in d["reason"] for d in detail.values())


def test_headline_median_over_pairs():
    cells = []
    for conc, (rest, grpc) in {1: (1.0, 0.5), 10: (2.0, 1.8), 50: (4.0, 4.0)}.items():
        cells += [cell(f"r{conc}", op="GetGroup", conc=conc, p50=rest),
                  cell(f"g{conc}", protocol="grpc", op="GetGroup", conc=conc, p50=grpc)]
    head, detail = headline.compute(cells)
    assert head["grpcOverRestP50Warm"] == pytest.approx(0.9)
    assert len(detail["grpcOverRestP50Warm"]["pairs"]) == 3


def test_example_run_headline_detail_points_at_its_cells():
    run = json.loads((FIXTURES / "run-example.json").read_text())
    ids = {c["id"] for c in run["cells"]}
    for d in run["headlineDetail"].values():
        for p in d["pairs"]:
            assert {p["numeratorCellId"], p["denominatorCellId"]} <= ids
