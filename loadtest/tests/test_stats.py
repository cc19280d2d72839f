"""The A + B·N fit and nearest-rank percentiles, on known data (pooling and intervals: test_pooled)."""
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
         conc=10, model="closed", rps=100.0, p50=1.0, body=100, tls=None, cpu_us=None, **dims):
    m = measurement(rps, p50, p50 * 5)
    m["bodyBytes"] = body
    if cpu_us is not None:
        m["cpuUsPerRequest"] = {"server": {"value": cpu_us, "low": None, "high": None}}
    c = {"id": cid, "protocol": protocol, "tool": tool, "operation": op,
         "pageSize": n if op == "ListGroups" else None, "cacheMode": mode, "temperature": temp,
         "model": model, "concurrency": conc, "summary": m}
    if tls is not None:  # None: a cell of a run written before the tls dimension (plain)
        c["tls"] = tls
    c.update(dims)       # encoding, http, compression (absent: a run written before them)
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


def test_fits_leave_out_multiplexed_and_overload_cells():
    # h2load at 500 users over 50 connections (10 streams each) beside one stream per connection:
    # one line through all four fitted neither (r² 0.26)
    cells = [cell(f"one{n}", n=n, conc=500, p50=p50, connections=500) for n, p50 in ((20, 10), (100, 20))]
    cells += [cell(f"ten{n}", n=n, conc=500, p50=p50, connections=50) for n, p50 in ((20, 3), (100, 6))]
    cells += [cell(f"pair{n}", n=n, conc=500, p50=50, connections=500, overload={"pair": "p", "step": None})
              for n in (20, 100)]
    fits, _ = stats.fits_from_cells(cells)
    assert [(f["cellIds"], f["r2"]) for f in fits] == [(["one20", "one100"], pytest.approx(1))]


def test_fits_keep_tls_and_plain_cells_apart():
    cells = [cell(f"p{n}", n=n, p50=1 + 0.1 * n) for n in (1, 10)]
    cells += [cell(f"t{n}", n=n, p50=2 + 0.2 * n, tls=True) for n in (1, 10)]
    fits, _ = stats.fits_from_cells(cells)
    assert {(f["tls"], tuple(f["cellIds"])) for f in fits} == {(False, ("p1", "p10")), (True, ("t1", "t10"))}


def test_fits_keep_each_representation_apart_and_fit_server_cpu_per_row():
    # REST JSON and Protobuf pages cost differently per row: one line through both would be neither
    json_cells = [cell(f"j{n}", n=n, p50=1 + 0.01 * n, cpu_us=100 + 2.0 * n) for n in (1, 20, 100)]
    pb_cells = [cell(f"p{n}", n=n, p50=1 + 0.005 * n, cpu_us=90 + 1.0 * n, encoding="protobuf") for n in (1, 20, 100)]
    h2_cells = [cell(f"h{n}", n=n, p50=1, encoding="protobuf", http="2") for n in (1, 20)]
    fits, _ = stats.fits_from_cells(json_cells + pb_cells + h2_cells)
    by = {(f["encoding"], f["http"], f["compression"]): f for f in fits}
    assert set(by) == {("json", "1.1", "identity"), ("protobuf", "1.1", "identity"), ("protobuf", "2", "identity")}
    assert by["json", "1.1", "identity"]["cellIds"] == ["j1", "j20", "j100"]
    assert by["json", "1.1", "identity"]["serverCpu"]["b"] == pytest.approx(2.0)
    assert by["protobuf", "1.1", "identity"]["serverCpu"]["a"] == pytest.approx(90.0)
    assert by["protobuf", "1.1", "identity"]["points"][0] == {"pageSize": 1, "latencyMs": 1.005, "serverCpuUs": 91.0}
    # no CPU figure in a cell: no CPU line, the latency one all the same
    assert by["protobuf", "2", "identity"]["serverCpu"] is None and by["protobuf", "2", "identity"]["b"] == 0


def test_a_grpc_cell_without_body_fields_is_protobuf_over_http2():
    fits, _ = stats.fits_from_cells([cell(f"g{n}", protocol="grpc", n=n, p50=n) for n in (1, 2)])
    assert (fits[0]["encoding"], fits[0]["http"], fits[0]["compression"]) == ("protobuf", "2", "identity")
