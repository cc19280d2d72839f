"""The JIT warm-up after a service start (service_start.ServiceStart.jit_warmup): what it drives,
at which concurrencies, pass after pass, with every generator recorded instead of run; and each
cell's settling steps after its own warm-up (measure.Measure.settle_jit)."""
import time

from tandem_bench import measure, profile, service_start

BASE = {"name": "t", "seed_scale": 100, "repetitions": 1, "duration_seconds": 3, "warmup_seconds": 1,
        "hot_keys": 50}
NATIVE = ["rest/oha", "grpc/h2load"]


def cells(*blocks, sweeps=()):
    return profile.expand(profile.normalise({**BASE, "matrix": list(blocks), "sweep": list(sweeps)}))


def test_an_operation_is_warmed_at_every_concurrency_its_cells_measure():
    # Warmed at 64 users only, the first one-user window of each start compiled for up to 1.75 s
    # of its 3 s (results/20261128T003437Z-hotpath-110da69): one user deoptimises code compiled
    # under many.
    plan = service_start.jit_warmup_plan(cells(
        {"operations": ["GetGroup", "Hello"], "drivers": NATIVE, "cache_modes": ["hybrid"],
         "temperatures": ["warm"], "concurrency": [1, 50]},
        {"operations": ["ListGroups"], "drivers": NATIVE, "cache_modes": ["hybrid"], "temperatures": ["warm"],
         "concurrency": [50, 500], "page_sizes": [20]}))
    assert {key: levels for key, (_, levels) in plan.items()} == {
        ("GetGroup", None): [1, 50], ("Hello", None): [1, 50], ("ListGroups", 20): [50, 500]}


def test_both_wires_warm_together_on_every_way_a_cell_reaches_them():
    plan = service_start.jit_warmup_plan(cells(
        {"operations": ["GetGroup"], "drivers": ["rest/oha"], "cache_modes": ["hybrid"], "temperatures": ["warm"],
         "concurrency": [50], "encodings": ["protobuf"], "tls": [True]}))
    ways, _ = plan[("GetGroup", None)]
    assert ways == {("rest", False, "json", "1.1", "identity"), ("grpc", False, "protobuf", "2", "identity"),
                    ("rest", True, "protobuf", "1.1", "identity")}


def test_levels_are_capped_and_an_operation_measured_only_in_sweeps_is_warmed_at_its_busiest_point():
    plan = service_start.jit_warmup_plan(cells(
        {"operations": ["Hello"], "drivers": NATIVE, "concurrency": [2000]},
        sweeps=[{"operations": ["GetGroup"], "drivers": ["grpc/ghz"], "rates": [100, 200], "concurrency": 10}]))
    assert plan[("Hello", None)][1] == [service_start.JIT_MAX_CONCURRENCY]
    assert plan[("GetGroup", None)][1] == [10]


class Recorder(service_start.ServiceStart):
    """A ServiceStart whose generators are recorded, not run, and whose services' cumulative JIT
    CPU reads from a script: `compiling` passes in which both services compile, then none."""

    def __init__(self, compiling):
        self.settings, self.scale, self.notes, self.generated = {"jit_warmup_seconds": 600, "hot_keys": 50}, 100, [], []
        self.keyfiles = type("Keys", (), {"get": lambda _, protocol, op, size, which: (None, 1 if op == "Hello" else 50)})()
        self.readings = iter([0.0] + [1e9 * n for n in range(1, compiling + 1) for _ in (0, 1)] + [1e9 * compiling] * 2)

    def compile_ms(self):
        ms = next(self.readings)
        return {"rest": ms, "grpc": ms}

    def invocation(self, cell, **kw):
        return type("Invocation", (), {"tool": cell.tool, "protocol": cell.protocol, "tag": kw["tag"],
                                       "vus": kw["vus"]})()

    def _generate_quiet(self, inv):
        self.generated.append((inv.tag, inv.protocol, inv.vus))

    def read_cache(self, protocol):
        self.generated.append(("cache statistics", protocol))

    def read_service(self, cell):
        self.generated.append(("metrics", cell.protocol))


GET_GROUP_AT_1_AND_50 = {"operations": ["GetGroup"], "drivers": NATIVE, "cache_modes": ["hybrid"],
                         "temperatures": ["warm"], "concurrency": [1, 50]}


def test_the_first_pass_makes_contact_at_the_busiest_level_only():
    bench = Recorder(compiling=0)
    bench.jit_warmup("hybrid", cells(GET_GROUP_AT_1_AND_50))
    assert sorted(bench.generated) == [("cache statistics", "grpc"), ("cache statistics", "rest"),
                                       ("jit-first", "grpc", 50), ("jit-first", "rest", 50),
                                       ("jit-miss", "grpc", 50), ("jit-miss", "rest", 50),
                                       ("metrics", "grpc"), ("metrics", "rest")]


def test_each_later_pass_drives_every_level_until_the_jit_settles():
    bench = Recorder(compiling=2)
    bench.jit_warmup("hybrid", cells(GET_GROUP_AT_1_AND_50))
    # pass 1 (first contact) and pass 2 compile, pass 3 does not and is the last: 2 and 3 drive both
    # levels, and at the busiest also prime with k6 as the bench does before a warm window
    assert sorted(g for g in bench.generated if g[0] == "jit") == sorted(
        [("jit", p, n) for p in ("rest", "grpc") for n in (1, 50)] * 2)
    assert sorted(g for g in bench.generated if g[0] == "jit-k6") == sorted(
        [("jit-k6", "grpc", 8), ("jit-k6", "rest", 8)] * 2)
    # every pass asks each service what the bench asks around a window
    assert sorted(g for g in bench.generated if g[0] in ("cache statistics", "metrics")) == sorted(
        [(what, p) for what in ("cache statistics", "metrics") for p in ("rest", "grpc")] * 3)


def test_priming_asks_for_no_more_k6_users_than_there_are_hot_keys():
    # k6 refuses a shared-iterations run with fewer iterations than users: the hello-world has one key
    bench = Recorder(compiling=1)
    bench.jit_warmup("none", cells({"operations": ["Hello"], "drivers": NATIVE, "concurrency": [50]}))
    assert sorted(g for g in bench.generated if g[0] == "jit-k6") == [("jit-k6", "grpc", 1), ("jit-k6", "rest", 1)]


class Settler(measure.Measure):
    """A Measure whose settling steps are recorded, not run, and whose service compiles through the
    first `compiling` steps (a whole step's worth of JIT CPU each), then not at all."""

    def __init__(self, compiling, cap):
        self.settings, self.steps, self.compiling = {"jit_settle_max_seconds": cap}, 0, compiling

    def read_service(self, cell):
        return {"jitCpuMs": 1e6 * min(self.steps, self.compiling)}

    def invocation(self, cell, **kw):
        return kw

    def _generate_quiet(self, inv):
        self.steps += 1
        time.sleep(0.001)   # a step takes time: "compiled for less than 5 % of it" needs some


SETTLED_CELL = cells(GET_GROUP_AT_1_AND_50)[0]


def test_a_cell_settles_in_steps_until_its_service_stops_compiling():
    bench = Settler(compiling=2, cap=4)
    bench.settle_jit(SETTLED_CELL)
    assert bench.steps == 3   # two that compiled, one that did not


def test_settling_stops_at_the_profiles_jit_settle_max_seconds():
    bench = Settler(compiling=100, cap=4)
    bench.settle_jit(SETTLED_CELL)
    assert bench.steps == 4 / service_start.JIT_SETTLE_STEP_SECONDS
    bench = Settler(compiling=100, cap=0)
    bench.settle_jit(SETTLED_CELL)
    assert bench.steps == 0
