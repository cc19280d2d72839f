"""The run and index schemas: valid themselves, accept the example, refuse what they must."""
import copy
import json
from pathlib import Path

import jsonschema
import pytest


LOADTEST = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def load_schema(name):
    schema = json.loads((LOADTEST / "schema" / name).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


RUN = load_schema("run.schema.json")
INDEX = load_schema("index.schema.json")


@pytest.fixture
def example():
    return json.loads((FIXTURES / "run-example.json").read_text())


def errors(validator, doc):
    return sorted(f"{e.json_path}: {e.message}" for e in validator.iter_errors(doc))


def test_example_is_valid(example):
    assert errors(RUN, example) == []


def test_tls_is_a_boolean(example):
    doc = copy.deepcopy(example)
    doc["cells"][0]["tls"] = "yes"
    assert any(e.startswith("$.cells[0].tls") for e in errors(RUN, doc))


def test_malformed_fixture_is_not_json():
    with pytest.raises(json.JSONDecodeError):
        json.loads((FIXTURES / "run-malformed.json").read_text())


def test_newer_schema_fixture_is_refused_for_its_version():
    doc = json.loads((FIXTURES / "run-newer-schema.json").read_text())
    assert doc["schemaVersion"] == 3
    assert any(e.json_path == "$.schemaVersion" for e in RUN.iter_errors(doc))


@pytest.mark.parametrize("path, value, where", [
    # temperature none only without cache (or for Hello)
    (("cells", 1, "temperature"), "none", "$.cells[1]"),
    # ghz speaks gRPC only
    (("cells", 0, "tool"), "ghz", "$.cells[0]"),
    # oha speaks REST only
    (("cells", 3, "tool"), "oha", "$.cells[3]"),
    # GetGroup has no page size
    (("cells", 0, "pageSize"), 20, "$.cells[0]"),
    # the closed model has no target rate
    (("cells", 0, "targetRate"), 100, "$.cells[0]"),
    # hit ratios are fractions
    (("cells", 2, "windows", 0, "hitRatio", "l1"), 1.5, "$.cells[2].windows[0].hitRatio.l1"),
    (("cells", 2, "flags"), [{"code": "bored", "reason": "x"}], "$.cells[2].flags[0].code"),
    (("headline", "grpcOverRestP50Warm", "verdict"), "probably", "$.headline.grpcOverRestP50Warm.verdict"),
    (("cells", 0, "protocol"), "soap", "$.cells[0].protocol"),
    (("environment", "cores"), "two", "$.environment.cores"),
    (("runId",), "yesterday", "$.runId"),
])
def test_cross_field_rules(example, path, value, where):
    doc = copy.deepcopy(example)
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    found = errors(RUN, doc)
    assert found, f"{path} = {value!r} was accepted"
    assert any(f.startswith(where) for f in found), found


def test_missing_field_and_unknown_field_are_refused(example):
    doc = copy.deepcopy(example)
    del doc["cells"][0]["summary"]["latencyMs"]["p999"]
    doc["cells"][0]["windows"][0]["latencyMs"]["p9999"] = 1.0
    found = errors(RUN, doc)
    assert any("p999" in f and "required" in f for f in found)
    assert any("p9999" in f for f in found)


def test_hello_may_run_under_any_cache_mode_without_temperature(example):
    hello = next(c for c in example["cells"] if c["operation"] == "Hello")
    assert hello["cacheMode"] == "hybrid" and hello["temperature"] == "none"
    doc = copy.deepcopy(example)
    next(c for c in doc["cells"] if c["operation"] == "Hello")["temperature"] = "warm"
    assert errors(RUN, doc)


def test_index_schema():
    good = {"schemaVersion": 1, "runs": [{
        "runId": "20261122T070000Z-quick-a262159", "path": "20261122T070000Z-quick-a262159/run.json",
        "startedAt": "2026-11-22T07:00:00Z", "profile": "quick", "gitCommit": "a262159", "cellCount": 65}]}
    assert errors(INDEX, good) == []
    bad = copy.deepcopy(good)
    bad["runs"][0]["path"] = "../etc/passwd"
    assert errors(INDEX, bad)


def test_traced_cells_and_watch_records_are_optional_and_valid(example):
    from tandem_bench import profile, watch
    doc = copy.deepcopy(example)
    assert "watch" not in doc and "tracing" not in doc["cells"][0]     # older runs stay valid
    doc["cells"][0]["tracing"] = True
    doc["cells"][0]["windows"][0]["exportedSpans"] = 30000
    settings = {"repetitions": 1, "starts": 1, "duration_seconds": 5}
    cell = profile.watch_cells(dict(profile.WATCH_DEFAULTS), settings)[0]
    result = watch.Result({"rest": [50.0, 60.0]}, {"rest": [52.0, 63.0]}, changes=2, missed={"rest": 0},
                          load_writes=0, seconds=5.0)
    doc["watch"] = watch.records({cell.id: [(watch.window_record(result, "rest", start=0, rnd=0, order=1),
                                             [50.0, 60.0], [52.0, 63.0])]}, [cell])
    assert errors(RUN, doc) == []
    doc["watch"][0]["cacheMode"] = "none"
    assert any(e.startswith("$.watch[0].cacheMode") for e in errors(RUN, doc))


def test_the_service_cpu_cap_record_is_optional_and_checked(example, tmp_path):
    from tandem_bench.cpu_quota import CpuQuota
    assert "serviceCpuQuota" not in example["environment"]["placement"]      # older runs stay valid
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("-1")
    for cap in (CpuQuota.setup(None), CpuQuota.setup(0.4, root=tmp_path / "nothing"),
                CpuQuota.setup(0.4, root=tmp_path, name="t")):
        doc = copy.deepcopy(example)
        doc["environment"]["placement"]["serviceCpuQuota"] = cap.describe()
        assert errors(RUN, doc) == []
    doc["environment"]["placement"]["serviceCpuQuota"]["method"] = "cgroups"
    assert any(e.startswith("$.environment.placement.serviceCpuQuota.method") for e in errors(RUN, doc))
