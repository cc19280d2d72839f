"""A generator run becomes a window: successes only in throughput, CPU over the measured span,
and the flags that keep a window out of the headline."""
from types import SimpleNamespace

import numpy as np
import pytest

from tandem_bench import cachestats, cpu, loadgen, measure, profile, samples, windows
from tandem_bench.headline import compute
from tandem_bench.pooled import Plans


def plan(**kw):
    base = dict(protocol="grpc", tool="h2load", operation="GetGroup", page_size=None, cache_mode="hybrid",
                temperature="warm", model="closed", concurrency=50, target_rate=None, duration_seconds=3.0,
                warmup_seconds=1.0, repetitions=2, starts=2)
    base.update(kw)
    return profile.CellPlan(**base)


def sampler(generator_cores: float, service_cores: float = 0.5, other_cores: float = 0.0, t0=1000.0, seconds=4.0):
    s = cpu.Sampler()
    for name in ("generator", "grpc-service", "rest-service", "mariadb", "redis", "bench"):
        s.series[name] = cpu.Series()
    rate = {"generator": generator_cores, "grpc-service": service_cores, "rest-service": 0.0, "mariadb": 0.05,
            "redis": 0.05, "bench": 0.0}
    for i in range(int(seconds / 0.05) + 1):
        t = t0 + i * 0.05
        for name, r in rate.items():
            s.series[name].add(t, r * i * 0.05)
        s.machine.add(t, (sum(rate.values()) + other_cores) * i * 0.05)
    return s


def outcome(n=3000, ok_share=1.0, t0=1000.5, seconds=3.0, **measurement):
    sent = t0 + np.linspace(0, seconds, n, endpoint=False)
    ok = np.arange(n) < int(n * ok_share)
    m = {"requests": n, **measurement}
    return loadgen.Outcome(m, 1.0, 3.5, [], samples.Samples(sent, np.full(n, 500.0), ok))


def build(cell, out, smp, hit=None, service_delta=None, start=0, rnd=0, db_delta=None):
    return windows.build(cell, start=start, rnd=rnd, order=1, outcome=out, sampler=smp, generator_cores=1,
                         hit_ratio=hit or {"l1": 0.999, "l2": None, "overall": 0.999},
                         service_delta=service_delta or {"okCalls": 10**9},
                         db_delta=db_delta or {"rowsRead": 0, "queries": 30},
                         n_keys=None, notes=[], measured_service="grpc-service", cpu_names=windows_cpu_names())


def windows_cpu_names():
    return ["rest-service", "grpc-service", "mariadb", "redis", "generator", "bench"]


def test_throughput_counts_successes_over_the_measured_span_and_cpu_is_per_request():
    record, data = build(plan(), outcome(n=3000, ok_share=0.9), sampler(0.6))
    assert record["requests"] == 3000 and record["ok"] == 2700 and record["errors"] == 300
    assert record["throughputRps"] == pytest.approx(2700 / 3.0, rel=0.01)
    assert record["generatorCores"] == pytest.approx(0.6, rel=0.05)
    # the service at 0.5 core + MariaDB and Redis at 0.05 each, over ~3 s, per successful request
    assert data.server_cpu / data.ok * 1e6 == pytest.approx(0.6 * 3.0 / 2700 * 1e6, rel=0.05)
    assert {f["code"] for f in record["flags"]} == {"errors"} and not data.eligible


def test_a_saturated_generator_flags_the_window_and_keeps_it_out_of_the_headline():
    record, data = build(plan(), outcome(), sampler(0.97))
    assert [f["code"] for f in record["flags"]] == ["generator-saturated"]
    assert "0.97 of its 1 core" in record["flags"][0]["reason"] and not data.eligible


def test_a_one_thread_generator_at_its_one_core_is_saturated_whatever_it_was_given():
    # oha and h2load run with one thread: given 4 cores, one at 0.97 of a core was never flagged
    def window(tool, smp):
        return windows.build(plan(tool=tool), start=0, rnd=0, order=1, outcome=outcome(), sampler=smp, generator_cores=4,
                             hit_ratio={"l1": 0.999, "l2": None, "overall": 0.999}, service_delta={"okCalls": 10**9},
                             db_delta={"rowsRead": 0, "queries": 30}, n_keys=None, notes=[],
                             measured_service="grpc-service", cpu_names=windows_cpu_names())[0]
    for tool, saturated in (("oha", True), ("h2load", True), ("ghz", False), ("k6", False)):
        record = window(tool, sampler(0.97))
        assert ("generator-saturated" in [f["code"] for f in record["flags"]]) == saturated, tool
    assert "oha used 0.97 of the 1 core(s) it can use" in window("oha", sampler(0.97))["flags"][0]["reason"]
    # a paired window (overload): oha at its core beside an idle ghz, the pair far from the 4 cores
    paired = sampler(0.0)
    for name, cores in (("generator-rest", 0.97), ("generator-grpc", 0.2)):
        paired.series[name] = cpu.Series()
        for i in range(81):
            paired.series[name].add(1000.0 + i * 0.05, cores * i * 0.05)
    record = window("oha", measure.BothGenerators(paired, "rest"))
    assert [f["code"] for f in record["flags"]] == ["generator-saturated"]
    assert record["generatorCores"] == pytest.approx(1.17, rel=0.05)
    assert window("ghz", measure.BothGenerators(paired, "grpc"))["flags"] == []


def test_other_cpu_is_noted_but_does_not_exclude():
    record, data = build(plan(), outcome(), sampler(0.5, other_cores=0.4))
    assert [f["code"] for f in record["flags"]] == ["other-cpu"] and data.eligible


def test_grpc_errors_h2load_cannot_see_are_taken_from_the_services_count():
    record, data = build(plan(), outcome(n=3000), sampler(0.5), service_delta={"okCalls": 2000})
    assert record["ok"] == 2000 and record["errors"] == 1000
    assert {f["code"] for f in record["flags"]} == {"unverified", "errors"}


def test_open_model_drops_and_short_rates_are_flagged():
    cell = plan(tool="ghz", model="open", target_rate=1000.0)
    record, _ = build(cell, outcome(n=2400, droppedIterations=600, achievedRate=800.0), sampler(0.5))
    assert {f["code"] for f in record["flags"]} == {"dropped-arrivals", "rate-short"}


def test_cold_and_warm_windows_with_the_wrong_hit_ratio_are_flagged():
    record, _ = build(plan(temperature="cold", tool="k6"), outcome(), sampler(0.5),
                      hit={"l1": 0.3, "l2": 0.0, "overall": 0.3})
    assert [f["code"] for f in record["flags"]] == ["hit-ratio"]
    record, _ = build(plan(), outcome(), sampler(0.5), hit={"l1": 0.5, "l2": 0.5, "overall": 0.75})
    assert [f["code"] for f in record["flags"]] == ["hit-ratio"]


def _run(cell, tputs, gen=0.5):
    run = windows.CellRun(cell)
    for (s, r), tp in zip([(0, 0), (0, 1), (1, 0), (1, 1)], tputs):
        run.add_window(build(cell, outcome(n=int(tp * 3)), sampler(gen), start=s, rnd=r))
    return run


def test_headline_excludes_flagged_cells_and_says_when_the_interval_includes_one():
    grpc = plan()
    rest = plan(protocol="rest", tool="oha")
    runs = {grpc.id: _run(grpc, [9000, 9100, 8900, 9050]), rest.id: _run(rest, [6000, 6100, 5900, 6050])}
    head = compute(runs, Plans(seed=1), {})
    t = head["grpcOverRestThroughputWarm"]
    assert t["verdict"] == "finding" and t["value"] == pytest.approx(1.5, rel=0.02)
    assert t["low"] < t["value"] < t["high"] and t["high"] < 1.6

    runs[rest.id] = _run(rest, [8000, 10000, 8500, 9500])
    t = compute(runs, Plans(seed=1), {})["grpcOverRestThroughputWarm"]
    assert t["verdict"] == "inconclusive" and "includes 1" in t["reason"]

    runs[rest.id] = _run(rest, [6000, 6100, 5900, 6050], gen=0.99)
    t = compute(runs, Plans(seed=1), {})["grpcOverRestThroughputWarm"]
    assert t["verdict"] == "flagged" and "generator-saturated" in t["reason"]
    assert t["pairs"][0]["excluded"] is True
    assert compute(runs, Plans(seed=1), {})["tlsOverPlainP50Rest"]["verdict"] == "missing"


def test_a_headline_with_a_cell_of_one_window_has_no_interval_and_is_no_finding():
    # a run against a target measures one start of one round: every cell has one window
    grpc = plan(repetitions=1, starts=1)
    rest = plan(protocol="rest", tool="oha", repetitions=1, starts=1)
    runs = {grpc.id: _run(grpc, [1030]), rest.id: _run(rest, [1000])}
    t = compute(runs, Plans(seed=1), {})["grpcOverRestThroughputWarm"]
    assert t["value"] == pytest.approx(1.03, rel=0.01)
    assert t["low"] is None and t["high"] is None
    assert t["verdict"] == "inconclusive" and "single window" in t["reason"]
    # one window against four: still no interval (the single window's spread is unknown)
    runs[rest.id] = _run(plan(protocol="rest", tool="oha"), [1000, 1020, 980, 1010])
    t = compute(runs, Plans(seed=1), {})["grpcOverRestThroughputWarm"]
    assert t["low"] is None and t["verdict"] == "inconclusive"


def test_wire_headlines_compare_the_default_bodies_only():
    # a REST cell asking for protobuf over HTTP/2 is not REST as its clients use it by default:
    # gRPC ÷ REST pairs the JSON-over-HTTP/1.1 twin, and without one there is no pair
    grpc = plan()
    protobuf_h2 = plan(protocol="rest", tool="oha", encoding="protobuf", http="2")
    runs = {grpc.id: _run(grpc, [9000] * 4), protobuf_h2.id: _run(protobuf_h2, [8000] * 4)}
    assert compute(runs, Plans(seed=1), {})["grpcOverRestThroughputWarm"]["verdict"] == "missing"
    json_h1 = plan(protocol="rest", tool="oha")
    runs[json_h1.id] = _run(json_h1, [6000] * 4)
    pairs = compute(runs, Plans(seed=1), {})["grpcOverRestThroughputWarm"]["pairs"]
    assert [p["denominatorCellId"] for p in pairs] == [json_h1.id]


def test_latency_ratios_never_use_closed_cells_at_many_users():
    grpc, rest = plan(tool="k6"), plan(protocol="rest", tool="k6")
    runs = {grpc.id: _run(grpc, [9000] * 4), rest.id: _run(rest, [6000] * 4)}
    assert compute(runs, Plans(seed=1), {})["grpcOverRestP50Warm"]["verdict"] == "missing"
    grpc1, rest1 = plan(tool="k6", concurrency=1), plan(protocol="rest", tool="k6", concurrency=1)
    runs = {grpc1.id: _run(grpc1, [900] * 4), rest1.id: _run(rest1, [600] * 4)}
    assert compute(runs, Plans(seed=1), {})["grpcOverRestP50Warm"]["pairs"]


def test_interleaving_rotates_and_reverses_so_no_cell_is_always_first():
    cells = list("abcd")   # e.g. a REST cell, then its gRPC twin, ...
    orders = [windows.interleave(cells, t) for t in range(4)]
    assert len({o[0] for o in orders}) >= 2
    assert orders[1] == ["a", "d", "c", "b"]
    # every cell runs before its neighbour in some rounds and after it in others
    for x, y in zip(cells, cells[1:]):
        assert {o.index(x) < o.index(y) for o in orders} == {True, False}


def test_a_multiplexed_cell_is_never_paired_with_one_stream_cells():
    grpc, grpc_mux = plan(), plan(streams=10)
    rest, hello = plan(protocol="rest", tool="oha"), plan(operation="Hello", temperature="none")
    rest_pb_h2 = plan(protocol="rest", tool="oha", encoding="protobuf", http="2")
    runs = {c.id: _run(c, [9000] * 4) for c in (grpc, grpc_mux, rest, hello, rest_pb_h2)}
    head = compute(runs, Plans(seed=1), {})
    for name in ("grpcOverRestThroughputWarm", "getGroupOverHelloThroughput", "stepGrpcServerCpu", "stepGrpcThroughput"):
        assert [p["numeratorCellId"] for p in head[name]["pairs"]] == [grpc.id], name


def test_a_window_spent_compiling_is_flagged_but_not_excluded():
    record, data = build(plan(), outcome(), sampler(0.5), service_delta={"okCalls": 10**9, "jitMs": 2500.0})
    assert [f["code"] for f in record["flags"]] == ["jit"] and "2500 ms" in record["flags"][0]["reason"]
    assert data.eligible
    record, data = build(plan(), outcome(), sampler(0.5), service_delta={"okCalls": 10**9, "jitMs": 120.0})
    assert record["flags"] == [] and data.eligible


def test_the_compiler_threads_cpu_decides_the_jit_flag_when_it_was_read():
    # on a saturated core the JVM's compilation time is mostly waiting for the CPU: 2.5 s of it
    # with 90 ms of compiler CPU is a window that was not compiling much
    record, _ = build(plan(), outcome(), sampler(0.5), service_delta={"okCalls": 10**9, "jitMs": 2500.0,
                                                                      "jitCpuMs": 90.0})
    assert record["flags"] == [] and record["jvm"]["jitCpuMs"] == 90.0
    record, _ = build(plan(), outcome(), sampler(0.5), service_delta={"okCalls": 10**9, "jitMs": 400.0,
                                                                      "jitCpuMs": 1200.0})
    assert [f["code"] for f in record["flags"]] == ["jit"] and "1200 ms of CPU" in record["flags"][0]["reason"]


def _jit_run(jit_windows):
    """A cell whose windows (start, round) in jit_windows were flagged jit, the others not."""
    run = windows.CellRun(plan())
    for s, r in [(0, 0), (0, 1), (1, 0), (1, 1)]:
        record = {"start": s, "round": r, "flags": [windows.flag("jit", "compiling")] if (s, r) in jit_windows else []}
        data = windows.WindowData(throughput=1.0, ok=1, counts=None, lat_sum_us=1.0, lat_max_us=1.0, server_cpu=None,
                                  eligible=True, jit=(s, r) in jit_windows)
        run.add_window((record, data))
    return run


def test_headlines_leave_out_jit_windows_while_every_start_keeps_a_steady_one():
    # the first window of start 1 compiled: the other three carry the figure
    assert set(_jit_run({(0, 0)}).eligible()) == {(0, 1), (1, 0), (1, 1)}
    # start 2 compiled in every window: leaving them out would leave start 2 unmeasured, so all stay
    assert set(_jit_run({(0, 0), (1, 0), (1, 1)}).eligible()) == {(0, 0), (0, 1), (1, 0), (1, 1)}
    assert set(_jit_run(set()).eligible()) == {(0, 0), (0, 1), (1, 0), (1, 1)}


def test_a_revalidating_client_is_compared_with_its_full_twin_only():
    full, revalidating = plan(protocol="rest", tool="oha"), plan(protocol="rest", tool="oha", revalidate=True)
    pb = plan(protocol="rest", tool="oha", encoding="protobuf")
    grpc = plan()
    runs = {full.id: _run(full, [6000] * 4), revalidating.id: _run(revalidating, [9000] * 4),
            pb.id: _run(pb, [7000] * 4), grpc.id: _run(grpc, [9000] * 4)}
    head = compute(runs, Plans(seed=1), {})
    pairs = head["revalidatedOverFullThroughput"]["pairs"]
    assert [(p["numeratorCellId"], p["denominatorCellId"]) for p in pairs] == [(revalidating.id, full.id)]
    assert head["revalidatedOverFullThroughput"]["value"] == pytest.approx(1.5, rel=0.02)
    # a 304 is not what REST's clients get by default, nor a step between the wires
    for name in ("grpcOverRestThroughputWarm", "stepEncodingThroughput"):
        assert revalidating.id not in {p["denominatorCellId"] for p in head[name]["pairs"]} | \
            {p["numeratorCellId"] for p in head[name]["pairs"]}, name


def test_the_hot_path_goals_pair_each_wire_with_its_own_hello_world_and_fifty_users():
    cells = [plan(protocol=p, tool=t, operation=op, temperature=temp, concurrency=conc, page_size=size)
             for p, t in (("rest", "oha"), ("grpc", "h2load"))
             for op, temp, conc, size in (("GetGroup", "warm", 50, None), ("Hello", "none", 50, None),
                                          ("ListGroups", "warm", 50, 20), ("ListGroups", "warm", 500, 20))]
    cells += [plan(protocol=p, tool="k6", operation=op, temperature=temp, concurrency=1)
              for p in ("rest", "grpc") for op, temp in (("GetGroup", "warm"), ("Hello", "none"))]
    runs = {c.id: _run(c, [9000] * 4) for c in cells}
    head = compute(runs, Plans(seed=1), {})
    for suffix, wire in (("Rest", "rest"), ("Grpc", "grpc")):
        cpu = head[f"getGroupOverHelloServerCpu{suffix}"]["pairs"]
        assert [(p["numeratorCellId"].split("-")[2], p["denominatorCellId"].split("-")[2]) for p in cpu] == \
            [("GetGroup", "Hello")]
        assert {p["numeratorCellId"].split("-")[0] for p in cpu} == {wire}
        p50 = head[f"getGroupOverHelloP50{suffix}"]["pairs"]
        assert [p["numeratorCellId"] for p in p50] == [f"{wire}-k6-GetGroup-hybrid-warm-c1"]
        users = head[f"users500Over50Throughput{suffix}"]["pairs"]
        assert [(p["numeratorCellId"].endswith("-c500"), p["denominatorCellId"].endswith("-c50")) for p in users] == \
            [(True, True)]
        assert head[f"users500Over50Throughput{suffix}"]["value"] == pytest.approx(1, rel=0.02)


def test_users_on_connections_of_their_own_and_users_multiplexed_are_two_headlines_never_pooled():
    # on a connection each, 500 users get 0.6 of the 50-user rate; multiplexed ten to a connection over
    # the 50-user cell's 50 connections, 0.9 of it (50 users over 5 connections is another question)
    rate = {(50, 1): 10000, (500, 1): 6000, (500, 10): 9000, (50, 10): 13000}
    cells = [plan(operation="ListGroups", page_size=20, concurrency=conc, streams=streams)
             for conc, streams in rate]
    runs = {c.id: _run(c, [rate[c.concurrency, c.streams]] * 4) for c in cells}
    head = compute(runs, Plans(seed=1), {})
    own, shared = head["users500Over50ThroughputGrpc"], head["users500Over50ThroughputMultiplexedGrpc"]
    by_id = {c.id: (c.concurrency, c.streams) for c in cells}
    assert [(by_id[p["numeratorCellId"]], by_id[p["denominatorCellId"]]) for p in own["pairs"]] == [((500, 1), (50, 1))]
    assert [(by_id[p["numeratorCellId"]], by_id[p["denominatorCellId"]]) for p in shared["pairs"]] == \
        [((500, 10), (50, 1))]
    assert own["value"] == pytest.approx(0.6, rel=0.02) and shared["value"] == pytest.approx(0.9, rel=0.02)
    # without multiplexed cells there is no such headline
    plain = {c.id: runs[c.id] for c in cells if c.streams == 1}
    assert "users500Over50ThroughputMultiplexedGrpc" not in compute(plain, Plans(seed=1), {})


def test_tracing_is_priced_against_the_untraced_twin_and_kept_out_of_the_other_headlines():
    # traced services serve 6,000 a second where untraced ones serve 9,000, at the same CPU: 1.5 × the CPU
    # per request; the traced cells pair with their own untraced twins only, per wire
    cells = [plan(protocol=p, tool=t, tracing=traced) for p, t in (("rest", "oha"), ("grpc", "h2load"))
             for traced in (False, True)]
    runs = {c.id: _run(c, [6000 if c.tracing else 9000] * 4) for c in cells}
    head = compute(runs, Plans(seed=1), {})
    for suffix, wire, tool in (("Rest", "rest", "oha"), ("Grpc", "grpc", "h2load")):
        cpu = head[f"tracedOverUntracedServerCpu{suffix}"]
        assert [(p["numeratorCellId"], p["denominatorCellId"]) for p in cpu["pairs"]] == \
            [(f"{wire}-{tool}-GetGroup-hybrid-warm-c50-traced", f"{wire}-{tool}-GetGroup-hybrid-warm-c50")]
        assert cpu["value"] == pytest.approx(1.5, rel=0.02) and cpu["verdict"] == "finding"
        assert head[f"tracedOverUntracedThroughput{suffix}"]["value"] == pytest.approx(2 / 3, rel=0.02)
    # gRPC ÷ REST compares untraced services only
    pairs = head["grpcOverRestThroughputWarm"]["pairs"]
    assert [(p["numeratorCellId"], p["denominatorCellId"]) for p in pairs] == \
        [("grpc-h2load-GetGroup-hybrid-warm-c50", "rest-oha-GetGroup-hybrid-warm-c50")]


def test_a_run_without_traced_cells_has_no_tracing_headlines():
    grpc = plan()
    assert not any(name.startswith("tracedOverUntraced")
                   for name in compute({grpc.id: _run(grpc, [9000] * 4)}, Plans(seed=1), {}))


def test_a_window_keeps_the_service_s_user_and_system_time_and_switches_and_the_cell_sums_them():
    by_kind = {"carrier": 300.0, "io": 600.0, "redis": 0.0, "gc": 60.0, "jit": 15.0, "other": 25.0}
    counters = {"okCalls": 10**9, "userCpuMs": 400.0, "systemCpuMs": 600.0, "contextSwitches": 6000,
                "threadCpuMs": by_kind}
    run = windows.CellRun(plan())
    for s, r in [(0, 0), (0, 1)]:
        run.add_window(build(plan(), outcome(n=3000), sampler(0.5), service_delta=counters, start=s, rnd=r))
    assert run.windows[0]["serviceThreads"] == {"userCpuMs": 400.0, "systemCpuMs": 600.0, "contextSwitches": 6000,
                                                "cpuMsByKind": by_kind}
    summary, _ = run.summary(Plans(seed=1).for_group("g", list(run.data)), None)
    # 2 × 300 ms of the carriers over the 2 × 3,000 answers: 100 µs a request
    assert summary["serviceThreads"] == {"systemShare": pytest.approx(0.6), "contextSwitchesPerRequest": 2.0,
                                         "cpuUsPerRequestByKind": {"carrier": pytest.approx(100), "io": pytest.approx(200),
                                                                   "redis": 0, "gc": pytest.approx(20),
                                                                   "jit": pytest.approx(5), "other": pytest.approx(25 / 3)}}


def test_without_the_counters_a_cell_says_none_rather_than_a_share_of_part_of_its_windows():
    run = windows.CellRun(plan())
    run.add_window(build(plan(), outcome(n=3000), sampler(0.5), start=0, rnd=0,
                         service_delta={"okCalls": 10**9, "userCpuMs": 400.0, "systemCpuMs": 600.0,
                                        "contextSwitches": 6000}))
    run.add_window(build(plan(), outcome(n=3000), sampler(0.5), start=0, rnd=1))   # e.g. a target's
    assert run.windows[1]["serviceThreads"] == {"userCpuMs": None, "systemCpuMs": None, "contextSwitches": None,
                                                "cpuMsByKind": None}
    summary, _ = run.summary(Plans(seed=1).for_group("g", list(run.data)), None)
    assert summary["serviceThreads"] == {"systemShare": None, "contextSwitchesPerRequest": None,
                                         "cpuUsPerRequestByKind": None}


def test_a_window_keeps_the_services_own_timing_of_its_requests_and_the_cell_pools_them():
    inf = float("inf")
    run = windows.CellRun(plan())
    readings = [{0.0001: 1500, 0.0002: 1990, 0.0004: 2000, 0.0008: 2000, inf: 2000},
                {0.0001: 500, 0.0002: 700, 0.0004: 990, 0.0008: 1000, inf: 1000},
                {0.0001: 900, 0.0002: 900, 0.0004: 900, 0.0008: 900, inf: 900}]
    for r, buckets in enumerate(readings):
        run.add_window(build(plan(), outcome(n=3000), sampler(0.5), start=0, rnd=r,
                             service_delta={"okCalls": 10**9, "okLatencyBuckets": buckets}))
    first, second, third = (w["serviceLatencyMs"] for w in run.windows)
    assert first == {"count": 2000, "p50": pytest.approx(1000 * 0.0001 * 1000 / 1500), "p99": pytest.approx(0.1 + 0.1 * 480 / 490)}
    assert second["p50"] == pytest.approx(0.1) and second["p99"] == pytest.approx(0.4)
    assert third == {"count": 900, "p50": pytest.approx(0.05), "p99": None}   # p99 needs 1,000, as the window's own
    summary, _ = run.summary(Plans(seed=1).for_group("g", list(run.data)), None)
    # the windows' histograms summed (2,900 / 3,590 / 3,890 / 3,900), then read once, as the
    # generator's percentiles are pooled: not the median of the windows' own p99s (0.299 ms here)
    assert summary["serviceLatencyMs"] == {"p50": pytest.approx(0.1 * 1950 / 2900),
                                           "p99": pytest.approx(0.2 + 0.2 * (3861 - 3590) / (3890 - 3590))}


def test_a_service_without_a_histogram_times_nothing():
    record, _ = build(plan(), outcome(), sampler(0.5), service_delta={"okCalls": 10**9, "okLatencyBuckets": None})
    assert record["serviceLatencyMs"] is None


def test_a_warm_window_that_read_rows_from_mariadb_is_flagged_and_kept_out_of_the_headline():
    # every request hit L1, but a wave of background reloads read 5.3 million rows in the window
    record, data = build(plan(), outcome(n=3000), sampler(0.5), db_delta={"rowsRead": 5_264_808, "queries": 427})
    assert [f["code"] for f in record["flags"]] == ["db-reads"] and not data.eligible
    assert "1.75e+03 rows a request" in record["flags"][0]["reason"]
    # the bench's own probes read a few rows: no flag
    record, data = build(plan(), outcome(n=3000), sampler(0.5), db_delta={"rowsRead": 80, "queries": 70})
    assert record["flags"] == [] and data.eligible
    # a cold window reads rows by design
    cold = plan(temperature="cold", model="closed")
    record, _ = build(cold, outcome(n=3000), sampler(0.5), hit={"l1": 0.0, "l2": 0.0, "overall": 0.0},
                      db_delta={"rowsRead": 30_000, "queries": 3000})
    assert "db-reads" not in [f["code"] for f in record["flags"]]


def test_a_multi_pair_headline_leaves_out_the_replicates_in_which_a_pair_drew_no_window():
    # 3 starts × 1 round; pair A's ratio about 0.35, pair B's about 0.665 with start 2 of its numerator
    # flagged. A replicate that draws start 2 three times holds none of B's eligible windows (1 in 27,
    # more than the 2.5 % tail): its mean was A's alone, so a bound of the interval became A's value.
    def three_starts(cell, tputs, flagged=None):
        run = windows.CellRun(cell)
        for s, tp in enumerate(tputs):
            run.add_window(build(cell, outcome(n=int(tp * 3)), sampler(0.99 if s == flagged else 0.5), start=s))
        return run
    cells = {(p, op): plan(protocol=p, tool=t, operation=op, page_size=20 if op == "ListGroups" else None,
                           repetitions=1, starts=3)
             for p, t in (("rest", "oha"), ("grpc", "h2load")) for op in ("GetGroup", "ListGroups")}
    runs = {cells["rest", "GetGroup"].id: three_starts(cells["rest", "GetGroup"], [10000, 10100, 9900]),
            cells["grpc", "GetGroup"].id: three_starts(cells["grpc", "GetGroup"], [3500, 3560, 3440]),
            cells["rest", "ListGroups"].id: three_starts(cells["rest", "ListGroups"], [10000, 10100, 9900]),
            cells["grpc", "ListGroups"].id: three_starts(cells["grpc", "ListGroups"], [6650, 6700, 6600], flagged=1)}
    t = compute(runs, Plans(seed=1), {})["grpcOverRestThroughputWarm"]
    assert [p["excluded"] for p in t["pairs"]] == [False, False]
    assert t["value"] == pytest.approx((0.35 * 0.665) ** 0.5, rel=0.01)
    # every replicate's mean holds both pairs: no bound near A's 0.35 alone
    assert t["low"] > 0.45, (t["low"], t["high"])
    assert t["low"] < t["value"] < t["high"]


def test_the_direct_figure_over_the_steps_pairs_is_the_steps_product():
    # the same cells' figures cancel along the chain REST JSON/1.1 → Protobuf/1.1 → Protobuf/2 → gRPC,
    # so over the same pairs the geometric means multiply to the direct one; a pair the steps do not
    # hold (here ListGroups(20), with no Protobuf cells) stays out of it, not out of grpcOverRest*
    chain = {("rest", "json", "1.1"): 6000, ("rest", "protobuf", "1.1"): 6600, ("rest", "protobuf", "2"): 5000,
             ("grpc", "protobuf", "2"): 12000}
    cells = [plan(protocol=p, tool="oha" if p == "rest" else "h2load", operation=op, page_size=size,
                  encoding=enc, http=http) for (p, enc, http) in chain for op, size in (("GetGroup", None), ("ListGroups", 100))]
    cells += [plan(protocol=p, tool=t, operation="ListGroups", page_size=20, encoding=enc, http=http)
              for p, t, enc, http in (("rest", "oha", "json", "1.1"), ("grpc", "h2load", "protobuf", "2"))]
    # ListGroups(20): gRPC 4× REST, far from the steps' 2×
    rate = lambda c: chain[c.protocol, c.encoding, c.http] * (2 if c.page_size == 20 and c.protocol == "grpc" else 1)
    runs = {c.id: _run(c, [rate(c) * f for f in (1.0, 1.02, 0.98, 1.01)]) for c in cells}
    head = compute(runs, Plans(seed=1), {})
    for figure in ("ServerCpu", "Throughput"):
        product = np.prod([head[f"step{s}{figure}"]["value"] for s in ("Encoding", "Http2", "Grpc")])
        assert head[f"stepDirect{figure}"]["value"] == pytest.approx(product, rel=1e-9), figure
        assert len(head[f"stepDirect{figure}"]["pairs"]) == 2
    assert len(head["grpcOverRestThroughputWarm"]["pairs"]) == 3
    assert head["stepDirectThroughput"]["value"] == pytest.approx(2.0, rel=0.01)


def test_a_cells_hit_ratio_is_its_windows_hits_over_their_lookups_per_level():
    # One figure per level over the cell, as its CPU and rows a request are: hits ÷ lookups summed over
    # its windows. The median of each level's window ratios, as it was, took each level from another
    # window: l1 0.9, l2 0.5 and overall 1.0 here, an overall no L1 and L2 of those ratios can give
    # (every L1 miss would have had to hit L2), and a cell whose L1 missed a fifth of its lookups.
    counts = [{"l1": {"hits": 900.0, "misses": 100.0}, "l2": {"hits": 0.0, "misses": 100.0}},
              {"l1": {"hits": 500.0, "misses": 500.0}, "l2": {"hits": 500.0, "misses": 0.0}},
              {"l1": {"hits": 1000.0, "misses": 0.0}, "l2": {"hits": 0.0, "misses": 0.0}}]
    cell = plan(repetitions=1, starts=3)
    run = windows.CellRun(cell)
    for start, c in enumerate(counts):
        record, data = windows.build(
            cell, start=start, rnd=0, order=1, outcome=outcome(), sampler=sampler(0.5),
            generator_cores=1, hit_ratio=cachestats.ratios(c), hit_counts=c, service_delta={"okCalls": 10**9},
            db_delta={"rowsRead": 0, "queries": 30}, n_keys=None, notes=[], measured_service="grpc-service",
            cpu_names=windows_cpu_names())
        run.add_window((record, data))
    assert [w["hitRatio"]["l1"] for w in run.windows] == [0.9, 0.5, 1.0]
    summary, _ = run.summary(Plans(seed=1).for_group("g", list(run.data)), None)
    hit = summary["hitRatio"]
    assert hit["l1"] == pytest.approx(2400 / 3000) and hit["l2"] == pytest.approx(500 / 600)
    assert hit["overall"] == pytest.approx((2400 + 500) / 3000)
    assert hit["overall"] == pytest.approx(hit["l1"] + (1 - hit["l1"]) * hit["l2"])


def test_a_paired_cells_generator_cpu_a_request_is_its_own_wires_generator_not_the_pairs():
    # In an overload step both wires' generators share the generator's core; a window's "generator" is
    # the pair's (generator-saturated reads it so), but a cell's generator CPU per request divided the
    # pair's CPU by one wire's requests, as if each wire's generator had used both's.
    paired = sampler(0.0)
    for name, cores in (("generator-rest", 0.3), ("generator-grpc", 0.1)):
        paired.series[name] = cpu.Series()
        for i in range(81):
            paired.series[name].add(1000.0 + i * 0.05, cores * i * 0.05)
    cell = plan(protocol="grpc", tool="ghz", repetitions=1, starts=1)
    run = windows.CellRun(cell)
    out = outcome()
    run.add_window(windows.build(cell, start=0, rnd=0, order=1, outcome=out, sampler=measure.BothGenerators(paired, "grpc"),
                                 generator_cores=1, hit_ratio={"l1": 0.999, "l2": None, "overall": 0.999},
                                 service_delta={"okCalls": 10**9}, db_delta={"rowsRead": 0, "queries": 30},
                                 n_keys=None, notes=[], measured_service="grpc-service", cpu_names=windows_cpu_names()))
    record = run.windows[0]
    assert record["cpuSeconds"]["generator"] == pytest.approx(0.4 * record["seconds"], rel=0.05)
    assert record["cpuSeconds"]["ownGenerator"] == pytest.approx(0.1 * record["seconds"], rel=0.05)
    summary, _ = run.summary(Plans(seed=1).for_group("g", list(run.data)), None)
    assert summary["cpuUsPerRequest"]["generator"] == pytest.approx(0.1 * record["seconds"] / record["ok"] * 1e6, rel=0.05)
    # a window of one generator has no ownGenerator, and its cell divides its generator's CPU
    alone = windows.CellRun(cell)
    alone.add_window(build(cell, outcome(), sampler(0.25)))
    assert "ownGenerator" not in alone.windows[0]["cpuSeconds"]
    summary, _ = alone.summary(Plans(seed=1).for_group("g", list(alone.data)), None)
    w = alone.windows[0]
    assert summary["cpuUsPerRequest"]["generator"] == pytest.approx(w["cpuSeconds"]["generator"] / w["ok"] * 1e6)


@pytest.mark.parametrize("n, p50, p99", [(19, None, None), (20, 0.5, None), (999, 0.5, None), (1000, 0.5, 0.5)])
def test_a_windows_percentiles_come_only_from_as_many_samples_as_the_pooled_ones_ask(n, p50, p99):
    # the harness's 10 ÷ (1 − p) rule (pooled.min_samples), which a cell's pooled figures follow: a
    # window's p50 came from any number of samples, one request's time for a window of one
    record, _ = build(plan(), outcome(n=n), sampler(0.5))
    assert record["latencyMs"]["p50"] == p50 and record["latencyMs"]["p99"] == p99
    assert record["latencyMs"]["max"] == 0.5
