"""Writing runs and the index: validate first, refuse naming the bad path, index newest first."""
import copy
import json
from pathlib import Path

import pytest

from tandem_bench import results

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture
def run():
    return json.loads((FIXTURES / "run-example.json").read_text())


def with_id(run, run_id, started):
    r = copy.deepcopy(run)
    r["runId"], r["startedAt"], r["finishedAt"] = run_id, started, started
    return r


def test_write_run_creates_file_and_index(tmp_path, run):
    path = results.write_run(run, tmp_path)
    assert path == tmp_path / run["runId"] / "run.json"
    assert json.loads(path.read_text()) == run
    index = json.loads((tmp_path / "index.json").read_text())
    assert index == {"schemaVersion": 1, "runs": [{
        "runId": run["runId"], "path": f"{run['runId']}/run.json", "startedAt": run["startedAt"],
        "profile": "quick", "gitCommit": "a262159", "cellCount": len(run["cells"])}]}
    assert not list(tmp_path.rglob("*.tmp"))  # no leftovers of the atomic write


def test_invalid_run_is_refused_with_its_path_and_nothing_is_written(tmp_path, run):
    run["cells"][3]["summary"]["latencyMs"]["p99"] = "fast"
    with pytest.raises(results.InvalidRun) as e:
        results.write_run(run, tmp_path)
    assert "$.cells[3].summary.latencyMs.p99" in str(e.value)
    assert any(err.startswith("$.cells[3].summary.latencyMs.p99") for err in e.value.errors)
    assert list(tmp_path.iterdir()) == []


def test_consistency_beyond_the_schema(tmp_path, run):
    run["cells"][1]["id"] = run["cells"][0]["id"]
    run["cells"][2]["windows"] += run["cells"][2]["windows"]
    run["finishedAt"] = "2026-11-22T06:00:00Z"
    run["headline"]["getGroupOverHelloThroughput"]["pairs"][0]["denominatorCellId"] = "ghost"
    run["sweeps"][0]["points"][0]["cellId"] = "ghost"
    errors = results.validate_run(run)
    assert any(e.startswith("$.cells[1].id: duplicate") for e in errors)
    assert any(e.startswith("$.cells[2].windows: 4 window(s), more than starts × repetitions (1 × 2)") for e in errors)
    assert any(e.startswith("$.finishedAt") for e in errors)
    assert "$.headline.getGroupOverHelloThroughput.pairs[0].denominatorCellId: no cell 'ghost'" in errors
    assert "$.sweeps[0].points[0].cellId: no cell 'ghost'" in errors
    with pytest.raises(results.InvalidRun):
        results.write_run(run, tmp_path)


def test_newer_schema_is_refused(tmp_path):
    run = json.loads((FIXTURES / "run-newer-schema.json").read_text())
    with pytest.raises(results.InvalidRun, match=r"\$\.schemaVersion"):
        results.write_run(run, tmp_path)


def test_run_id_cannot_escape_the_results_dir(tmp_path, run):
    run["runId"] = "../../etc"
    with pytest.raises(results.InvalidRun, match=r"\$\.runId"):
        results.write_run(run, tmp_path / "results")
    assert not (tmp_path / "etc").exists()


def test_index_is_newest_first_and_idempotent(tmp_path, run):
    old = with_id(run, "20261120T070000Z-quick-aaaaaaa", "2026-11-20T07:00:00Z")
    new = with_id(run, "20261122T090000Z-full-bbbbbbb", "2026-11-22T09:00:00Z")
    mid = with_id(run, "20261121T070000Z-quick-ccccccc", "2026-11-21T08:00:00+01:00")
    for r in (old, new, mid):
        results.write_run(r, tmp_path)
    ids = [e["runId"] for e in results.load_index(tmp_path)["runs"]]
    assert ids == [new["runId"], mid["runId"], old["runId"]]

    # writing the same run again replaces its entry instead of adding one
    mid["cells"] = mid["cells"][:5]
    mid["fits"], mid["sweeps"] = [], []
    mid["headline"] = {k: {**v, "pairs": []} for k, v in mid["headline"].items()}
    results.write_run(mid, tmp_path)
    index = results.load_index(tmp_path)
    assert [e["runId"] for e in index["runs"]] == ids
    assert next(e for e in index["runs"] if e["runId"] == mid["runId"])["cellCount"] == 5


def test_unreadable_index_is_rebuilt_from_the_run_files(tmp_path, run):
    old = with_id(run, "20261120T070000Z-quick-aaaaaaa", "2026-11-20T07:00:00Z")
    results.write_run(old, tmp_path)
    (tmp_path / "index.json").write_text('{"schemaVersion": 1, "runs": [')  # truncated
    # a stray malformed run file is skipped, not fatal
    (tmp_path / "20261119T070000Z-quick-broken0").mkdir()
    (tmp_path / "20261119T070000Z-quick-broken0" / "run.json").write_text("{")
    results.write_run(run, tmp_path)
    ids = [e["runId"] for e in results.load_index(tmp_path)["runs"]]
    assert ids == [run["runId"], old["runId"]]


def test_load_index_when_there_is_none(tmp_path):
    assert results.load_index(tmp_path) == {"schemaVersion": 1, "runs": []}


def test_default_results_dir_is_the_repo_results_folder():
    assert results.DEFAULT_RESULTS_DIR == Path(__file__).resolve().parents[2] / "results"


def test_validate_command(capsys):
    ok = results.main([str(FIXTURES / "run-example.json")])
    assert ok == 0 and "valid" in capsys.readouterr().out
    bad = results.main([str(FIXTURES / "run-example.json"), str(FIXTURES / "run-malformed.json"),
                        str(FIXTURES / "run-newer-schema.json")])
    err = capsys.readouterr().err
    assert bad == 1
    assert "run-malformed.json: INVALID" in err and "run-newer-schema.json: INVALID" in err
    assert "$.schemaVersion" in err


def test_a_sweeps_knee_counts_dropped_arrivals_against_what_was_due_over_the_window():
    """30 arrivals dropped at 2,000/s over a 2-s window are 0.75 % of the 4,000 due, under a 1 % limit:
    no knee. The record once divided by the rate alone (1.5 %) and put the knee at 1,000/s, where
    the live sweep had gone on."""
    from types import SimpleNamespace
    from tandem_bench.assemble import sweep_records

    def point(rate, dropped):
        return {"id": f"sweep-{rate}", "sweep": "s", "protocol": "rest", "tool": "k6", "operation": "GetGroup",
                "pageSize": None, "cacheMode": "hybrid", "temperature": "warm", "tls": False, "targetRate": rate,
                "durationSeconds": 2, "windows": [{}], "flags": [],
                "summary": {"achievedRate": rate, "throughputRps": {"value": rate}, "droppedIterations": dropped,
                            "errorRate": 0, "latencyMs": {"p50": 1.0, "p99": 2.0, "p999": 3.0}}}

    plans = [SimpleNamespace(sweep="s", sweep_limits=(100.0, 0.01))]
    [sweep] = sweep_records([point(1000, 0), point(2000, 30)], plans)
    assert sweep["knee"] is None
    [sweep] = sweep_records([point(1000, 0), point(2000, 50)], plans)  # 1.25 %: past the limit
    assert sweep["knee"]["targetRate"] == 1000


def test_a_sweep_past_its_limits_at_its_lowest_rate_says_so_rather_than_no_knee():
    """knee null alone reads as "never saturated"; a sweep whose lowest rate already broke the
    limits saturated at or below that rate, and the record says so (saturatedAtLowest)."""
    from types import SimpleNamespace
    from tandem_bench.assemble import sweep_records

    def point(rate, p99):
        return {"id": f"sweep-{rate}", "sweep": "s", "protocol": "rest", "tool": "k6", "operation": "GetGroup",
                "pageSize": None, "cacheMode": "hybrid", "temperature": "warm", "tls": False, "targetRate": rate,
                "durationSeconds": 2, "windows": [{}], "flags": [],
                "summary": {"achievedRate": rate, "throughputRps": {"value": rate * 0.9}, "droppedIterations": 0,
                            "errorRate": 0, "latencyMs": {"p50": 1.0, "p99": p99, "p999": 3.0}}}

    plans = [SimpleNamespace(sweep="s", sweep_limits=(50.0, 0.01))]
    [sweep] = sweep_records([point(2000, 400.0), point(1000, 120.0)], plans)
    assert sweep["knee"] is None
    assert sweep["saturatedAtLowest"] == {
        "targetRate": 1000, "throughputRps": 900.0,
        "reason": "p99 120 ms above 50 ms at 1000/s, the sweep's lowest rate: the knee is at or below it"}
    # within the limits throughout: no knee, and not saturated either
    [sweep] = sweep_records([point(1000, 2.0), point(2000, 3.0)], plans)
    assert sweep["knee"] is None and sweep["saturatedAtLowest"] is None
    # a knee inside the sweep: not saturated at the lowest rate
    [sweep] = sweep_records([point(1000, 2.0), point(2000, 300.0)], plans)
    assert sweep["knee"]["targetRate"] == 1000 and sweep["saturatedAtLowest"] is None
