"""make bench TARGET=...: parsing the target, deciding whether its counters are complete, and the plan."""
from pathlib import Path

import pytest

from tandem_bench import cachestats, profile
from tandem_bench import target as targets


def test_plain_target_with_one_management_url_per_instance():
    t = targets.parse("rest=http://localhost:8080,grpc=localhost:9090,"
                      "rest-mgmt=http://10.0.0.1:8080,rest-mgmt=http://10.0.0.2:8080/,grpc-mgmt=http://10.0.0.3:8081")
    assert t.rest_base == "http://localhost:8080"
    assert t.grpc_address == "localhost:9090" and not t.grpc_tls and not t.tls
    assert t.rest_management == ["http://10.0.0.1:8080", "http://10.0.0.2:8080"]
    assert t.grpc_management == ["http://10.0.0.3:8081"]
    assert t.flush_base == "http://10.0.0.1:8080"
    assert t.describe()["grpc"] == "localhost:9090"


def test_without_management_urls_the_rest_actuator_flushes():
    t = targets.parse("rest=http://balancer:8080, grpc=balancer:9090")
    assert t.rest_management == [] and t.grpc_management == []
    assert t.flush_base == "http://balancer:8080"


def test_tls_target(tmp_path: Path):
    ca = tmp_path / "ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    t = targets.parse(f"rest=https://tandem.example:443,grpc=grpcs://tandem.example:443,ca={ca}")
    assert t.tls and t.grpc_tls and t.grpc_address == "tandem.example:443" and t.ca_file == ca
    assert t.describe()["grpc"] == "grpcs://tandem.example:443"


@pytest.mark.parametrize("text, complaint", [
    ("grpc=localhost:9090", "needs rest"),
    ("rest=http://localhost:8080", "needs grpc"),
    ("rest=localhost:8080,grpc=localhost:9090", "http(s)://"),
    ("rest=http://localhost:8080/api/v1,grpc=localhost:9090", "without a path"),
    ("rest=http://localhost:8080,grpc=localhost", "host:port"),
    ("rest=http://localhost:8080,grpc=localhost:9090,rest=http://other:8080", "given twice"),
    ("rest=http://localhost:8080,grpc=localhost:9090,token=abc", "unknown key"),
    ("rest=http://localhost:8080,grpc=localhost:9090,rest-mgmt", "key=value"),
    ("rest=https://localhost:8443,grpc=localhost:9090", "disagree on TLS"),
    ("rest=http://localhost:8080,grpc=localhost:9090,ca=/no/such/ca.pem", "no such file"),
])
def test_bad_targets_say_what_is_wrong(text, complaint):
    with pytest.raises(targets.TargetError, match=complaint.replace("(", r"\(").replace(")", r"\)")):
        targets.parse(text)


def reading(instance, peers, mode="hybrid", l1=(0, 0), l2=(0, 0), trusted=True):
    doc = {"mode": mode, "instanceId": instance, "log": {"peers": peers},
           "caches": {"group": {"l1": {"hits": l1[0], "misses": l1[1]}, "l2": {"hits": l2[0], "misses": l2[1]}}},
           "l1": {"enabled": True, "trusted": trusted}, "breaker": "CLOSED", "redisErrors": {}}
    return targets.Reading(f"http://{instance}:8080", instance, peers, mode, cachestats.normalise(doc))


def test_counters_are_complete_only_when_every_instance_heard_is_read():
    a, b, c = reading("a", ["b", "c"]), reading("b", ["a", "c"]), reading("c", ["a", "b"])
    assert targets.coverage([a, b, c])[0]
    complete, why = targets.coverage([a, b])
    assert not complete and "1 instance(s)" in why
    assert not targets.coverage([])[0]


def test_two_urls_answering_for_one_instance_is_a_balancer_not_instances():
    complete, why = targets.coverage([reading("a", ["b"]), reading("a", ["b"])])
    assert not complete and "same instance" in why


def test_combined_counters_are_the_sum_of_the_instances():
    combined = targets.combine([reading("a", [], l1=(10, 5), l2=(3, 2)), reading("b", [], l1=(1, 1), l2=(0, 1),
                                                                                   trusted=False)])
    assert combined["caches"]["group"]["l1"] == {"hits": 11.0, "misses": 6.0}
    assert combined["caches"]["group"]["l2"] == {"hits": 3.0, "misses": 3.0}
    assert combined["health"]["l1Trusted"] is False
    # bypasses and refreshes are summed too (a service older than refresh ahead has none)
    with_refreshes = []
    for name, bypasses in (("a", 2), ("b", 3)):
        r = reading(name, [])
        r.counters["health"].update(l1Bypasses=bypasses, l2Bypasses=10 * bypasses,
                                    l1Refreshes={"replaced": 1.0, "superseded": bypasses})
        with_refreshes.append(r)
    health = targets.combine(with_refreshes)["health"]
    assert health["l1Bypasses"] == 5 and health["l1Refreshes"] == {"replaced": 2.0, "superseded": 5}
    assert health["l2Bypasses"] == 50
    assert "l1Bypasses" not in combined["health"] and "l2Bypasses" not in combined["health"]
    # and a window's hit ratio over the combined counters is the service's
    later = targets.combine([reading("a", [], l1=(20, 5), l2=(3, 2)), reading("b", [], l1=(11, 1), l2=(0, 1))])
    ratio, _ = cachestats.hit_ratio(combined, later, "GetGroup")
    assert ratio["overall"] == 1.0


def cell(mode, temperature, tls=False, protocol="rest"):
    return profile.CellPlan(protocol, "k6", "GetGroup", None, mode, temperature, "closed", 4, None, 1, 0, 1, tls=tls)


CELLS = [cell("none", "none"), cell("hybrid", "cold"), cell("hybrid", "warm"), cell("local", "warm"),
         cell("hybrid", "warm", tls=True), cell("hybrid", "warm", protocol="grpc")]
PLAIN = targets.parse("rest=http://localhost:8080,grpc=localhost:9090")


def test_plan_runs_only_the_reported_mode_and_tls_setting():
    plan = targets.plan(CELLS, "hybrid", PLAIN, complete=True, why="all 6 instances' counters read", can_flush=True)
    assert [c.id for c in plan.cells] == [CELLS[1].id, CELLS[2].id, CELLS[5].id]
    assert plan.cache_mode == "hybrid" and plan.hit_ratios
    assert any("local, none" in n for n in plan.notes)
    assert any("1 TLS cell(s) not run" in n for n in plan.notes)


def test_plan_without_every_instance_does_not_record_hit_ratios():
    plan = targets.plan(CELLS, "hybrid", PLAIN, complete=False, why="no management URL given", can_flush=True)
    assert not plan.hit_ratios
    assert any(n.startswith("hit ratios not measured (no management URL given)") for n in plan.notes)
    assert any(c.temperature == "cold" for c in plan.cells)  # still flushed, so still cold


def test_plan_drops_cold_cells_when_nothing_can_flush():
    plan = targets.plan(CELLS, "hybrid", PLAIN, complete=False, why="x", can_flush=False)
    assert all(c.temperature != "cold" for c in plan.cells)
    assert any("1 cold cell(s) not run" in n for n in plan.notes)


def test_plan_for_a_target_without_cache_has_no_hit_ratios_to_record():
    plan = targets.plan(CELLS, "none", PLAIN, complete=True, why="all", can_flush=True)
    assert [c.id for c in plan.cells] == [CELLS[0].id] and not plan.hit_ratios


def test_plan_drops_the_pairs_that_go_through_the_benchs_own_balancer():
    prof = profile.normalise({"name": "t", "overload": [
        {"operations": ["GetGroup"], "drivers": ["rest/oha", "grpc/ghz"], "percents": [100, 200]},
        {"operations": ["GetGroup"], "drivers": ["rest/oha", "grpc/ghz"], "percents": [100, 200], "balancer": ["rest"]}]})
    cells = profile.expand(prof)
    plan = targets.plan(cells, "hybrid", PLAIN, complete=True, why="all", can_flush=True)
    assert {c.pair for c in plan.cells} == {"overload-GetGroup-hybrid-warm"}
    assert any("6 overload cell(s) of pairs through the bench's compose balancer not run" in n for n in plan.notes)
