"""The run and index schemas: valid themselves, accept the example, refuse what they must."""
import copy
import json
from pathlib import Path

import jsonschema
import pytest

from tandem_bench import headline, stats

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


def test_example_covers_what_the_dashboard_plots(example):
    cells = example["cells"]
    assert {c["protocol"] for c in cells} == {"rest", "grpc"}
    assert {c["tool"] for c in cells} == {"k6", "ghz"}
    assert {c["cacheMode"] for c in cells} == {"none", "local", "redis", "hybrid"}
    assert {c["temperature"] for c in cells} == {"cold", "warm", "none"}
    assert {1, 10, 50} <= {c["concurrency"] for c in cells}
    assert {c["pageSize"] for c in cells if c["operation"] == "ListGroups"} == {1, 10, 50, 200}
    assert {c["operation"] for c in cells} == {"GetGroup", "ListGroups", "Hello"}
    assert {c["model"] for c in cells} == {"closed", "open"}
    assert all(c["repetitions"] == 3 == len(c["runs"]) for c in cells)
    assert example["fits"] and all(v is not None for v in example["headline"].values())


def test_example_is_consistent_with_the_code(example):
    # the dashboard trusts summary, spread, fits and headline: they must be what the code computes
    for c in example["cells"]:
        assert c["summary"] == stats.median_measurement(c["runs"]), c["id"]
        assert c["spread"] == stats.spread(c["runs"]), c["id"]
    fits, _ = stats.fits_from_cells(example["cells"])
    assert example["fits"] == fits
    assert (example["headline"], example["headlineDetail"]) == headline.compute(example["cells"])


def test_runs_written_before_the_tls_dimension_still_validate_and_mean_plain(example):
    old = copy.deepcopy(example)
    old["cells"] = [c for c in old["cells"] if not c["tls"]]
    for c in old["cells"]:
        del c["tls"]
    for f in old["fits"]:
        del f["tls"]
    old["headline"], old["headlineDetail"] = (
        {k: v for k, v in d.items() if not k.startswith("tls")} for d in headline.compute(old["cells"]))
    assert errors(RUN, old) == []
    # read without the field, every cell is plain: no TLS ratio can be made
    head, detail = headline.compute(old["cells"])
    assert head["tlsOverPlainP50Rest"] is None and "no pair" in detail["tlsOverPlainP50Rest"]["reason"]


def test_tls_is_a_boolean(example):
    doc = copy.deepcopy(example)
    doc["cells"][0]["tls"] = "yes"
    assert any(e.startswith("$.cells[0].tls") for e in errors(RUN, doc))


def test_example_has_tls_cells_on_every_wire_with_their_ratios(example):
    assert {(c["protocol"], c["tool"]) for c in example["cells"] if c["tls"]} == \
        {("rest", "k6"), ("grpc", "k6"), ("grpc", "ghz")}
    for name in ("tlsOverPlainP50Rest", "tlsOverPlainP50Grpc", "tlsOverPlainThroughputRest",
                 "tlsOverPlainThroughputGrpc"):
        assert example["headline"][name] is not None, name


def test_malformed_fixture_is_not_json():
    with pytest.raises(json.JSONDecodeError):
        json.loads((FIXTURES / "run-malformed.json").read_text())


def test_newer_schema_fixture_is_refused_for_its_version():
    doc = json.loads((FIXTURES / "run-newer-schema.json").read_text())
    assert doc["schemaVersion"] == 2
    assert any(e.json_path == "$.schemaVersion" for e in RUN.iter_errors(doc))


@pytest.mark.parametrize("path, value, where", [
    # temperature none only without cache (or for Hello)
    (("cells", 1, "temperature"), "none", "$.cells[1]"),
    # ghz speaks gRPC only
    (("cells", 0, "tool"), "ghz", "$.cells[0]"),
    # GetGroup has no page size (the last cell is a GetGroup)
    (("cells", -1, "pageSize"), 20, "$.cells[67]"),
    # the closed model has no target rate
    (("cells", 0, "targetRate"), 100, "$.cells[0]"),
    # hit ratios are fractions
    (("cells", 2, "runs", 0, "hitRatio", "l1"), 1.5, "$.cells[2].runs[0].hitRatio.l1"),
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
    doc["cells"][0]["runs"][0]["latencyMs"]["p9999"] = 1.0
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
