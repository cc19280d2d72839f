"""The order of a start's steps (orchestrate.Bench.measure_config), with every step that reaches a
service recorded instead of run: which windows are primed, and by what."""
from tandem_bench import orchestrate, profile


class Recorder(orchestrate.Bench):
    """A Bench whose steps only say that they ran."""

    def __init__(self, cells):
        self.cells, self.target, self.runs, self.steps = cells, None, {}, []
        self.services = type("Stopped", (), {"stop": lambda _: None})()

    def start_services(self, mode, tls, start, http2, traced=False, balancer=False):
        self.steps.append(("start", start))

    def jit_warmup(self, mode, cells):
        pass

    def pin_services(self):
        pass

    def measure_body_bytes(self, cells):
        pass

    def warm_up(self, cell):
        self.steps.append(("warm-up", cell.id))

    def prime(self, cell):
        self.steps.append(("prime", cell.id))

    def window(self, cell, start, rnd):
        self.steps.append(("window", cell.id, start, rnd))
        # what a sweep reads of its point's window: met its limits, so the sweep goes on
        self.runs[cell.id].windows.append({"latencyMs": {"p99": None}, "droppedIterations": 0, "achievedRate": None,
                                           "throughputRps": 0})

    def progress(self, cell):
        pass


def smoke_cells():
    return profile.expand(profile.load("smoke"))


def test_every_warm_window_follows_a_warm_up_or_a_priming_pass_of_its_own_cell():
    # A later round comes after every other cell's window: on a saturated machine that took longer
    # than the L1 TTL, and a smoke run's second window of a warm cell found its hot keys expiring.
    cells = smoke_cells()
    bench = Recorder(cells)
    bench.measure_config(cells[0].service_config)
    by_id = {c.id: c for c in cells}
    windows = [i for i, s in enumerate(bench.steps) if s[0] == "window"]
    assert windows
    seen = set()
    for i in windows:
        cell = by_id[bench.steps[i][1]]
        before = bench.steps[i - 1]
        if cell.id not in seen and cell.sweep is None:
            assert before == ("warm-up", cell.id), bench.steps[i - 1:i + 1]
        elif cell.temperature == "warm":
            assert before == ("prime", cell.id), bench.steps[i - 1:i + 1]
        else:
            assert before[0] == "window", f"{cell.id} ({cell.temperature}) is neither warmed again nor primed"
        seen.add(cell.id)
    assert {by_id[s[1]].temperature for s in bench.steps if s[0] == "prime"} == {"warm"}
    assert any(by_id[s[1]].sweep for s in bench.steps if s[0] == "prime"), "sweep points are primed too"


class ProbeCounting(orchestrate.Bench):
    """A Bench whose service counts its CPU in a fake /proc: the generator adds 100 ms, and each of
    the bench's own probes (the scrape, the cache's status) 20 ms."""

    def __init__(self, cells):
        from tandem_bench.windows import CellRun
        self.cells, self.target, self.order, self.cpu_ms, self.sampler = cells, None, 0, 0.0, None
        self.placement = type("Placement", (), {"generator_cores": []})()
        self.runs = {c.id: CellRun(c) for c in cells}
        self.services = type("Alive", (), {"check_alive": lambda _: None})()

    def invocation(self, cell, **kwargs):
        return None

    def probe(self):
        self.cpu_ms += 20
        return {}

    def read_cache(self, protocol):
        return self.probe() or None

    def read_service(self, cell):
        return {**self.probe(), **self.span_counters(cell.protocol)}

    def read_db(self):
        return {}

    def exported_spans(self, cell):
        return None

    def span_counters(self, protocol):
        return {"jitCpuMs": 0.0, "userCpuMs": self.cpu_ms}

    def generate(self, inv):
        self.cpu_ms += 100
        return type("Outcome", (), {"notes": []})()


def test_a_windows_process_counters_leave_out_the_benchs_own_probes(monkeypatch):
    """The /proc reading after the generator came after a scrape and a cache status request, so each
    window counted one set of the bench's probes as the service's work (failed before: 140 ms)."""
    from tandem_bench import windows
    cell = next(c for c in smoke_cells() if c.model == "closed" and c.temperature == "warm")
    seen = {}

    def build(cell, **kwargs):
        seen.update(kwargs["service_delta"])
        return {"start": 0, "round": 0}, None

    monkeypatch.setattr(windows, "build", build)
    ProbeCounting([cell]).window(cell, 0, 0)
    assert seen["userCpuMs"] == 100


def test_a_sweeps_windows_are_recorded_in_the_start_they_were_measured_in():
    # The sweep runs after the last start's cells; its windows said start 0, so the run (the notes'
    # "start 1 round 1", the Timeline's "start 1 · round 1") placed them in the first start's
    # processes, two starts and a restart away from where they ran.
    cells = profile.expand(profile.normalise({
        "name": "t", "seed_scale": 100, "starts": 3, "repetitions": 1, "duration_seconds": 1, "warmup_seconds": 0,
        "hot_keys": 50,
        "matrix": [{"operations": ["GetGroup"], "drivers": ["rest/oha"], "cache_modes": ["hybrid"],
                    "temperatures": ["warm"], "concurrency": [4]}],
        "sweep": [{"operations": ["GetGroup"], "drivers": ["rest/oha"], "cache_modes": ["hybrid"], "rates": [100, 200],
                   "concurrency": 4, "duration_seconds": 1, "p99_limit_ms": 100}]}))
    bench = Recorder(cells)
    bench.measure_config("hybrid")
    by_id = {c.id: c for c in cells}
    sweep_windows = [s for s in bench.steps if s[0] == "window" and by_id[s[1]].sweep]
    assert len(sweep_windows) == 2
    assert {(s[2], s[3]) for s in sweep_windows} == {(2, 0)}


class WarmingUp(orchestrate.Bench):
    """A Bench whose warm-up makes `requests` requests over 200 hot keys, recording its priming passes."""

    def __init__(self, requests):
        self.requests, self.primed = requests, []
        self.keyfiles = type("Keys", (), {"get": lambda _, *a: (None, 200)})()

    def invocation(self, cell, **kwargs):
        return None

    def _generate_quiet(self, inv):
        return type("Outcome", (), {"measurement": {"requests": self.requests}})()

    def prime(self, cell):
        self.primed.append(cell.id)

    def settle_jit(self, cell):
        pass


def test_a_warm_up_primes_unless_its_tool_asked_every_hot_key():
    # k6 and ghz take the keys in turn: 200 requests ask all 200. oha picks each request's key at
    # random, so its warm-up is always followed by a priming pass (an oha warm-up counted only its
    # failures as requests, which primed it by accident) and so is h2load's, which asks one key.
    cells = {c.tool: c for c in smoke_cells() if c.temperature == "warm" and c.model == "closed" and not c.sweep}
    for tool, requests, primed in (("k6", 5000, False), ("k6", 150, True), ("oha", 5000, True), ("h2load", 5000, True)):
        bench = WarmingUp(requests)
        bench.warm_up(cells[tool])
        assert bool(bench.primed) == primed, (tool, requests)
