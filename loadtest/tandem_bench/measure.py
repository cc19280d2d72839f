"""Measuring the cells within one start of the services: before a cell's first window, a warm-up at
its own load and more until the JIT settles; then each window (its keys, the generator with the
CPU sampler on, the caches', services' and MariaDB's counters read before and after), handed to
windows.build for its record; and the rate sweeps, which stop at the first point past their
limits. Measure is a mixin of orchestrate.Bench; windows.py holds the pure part (records, flags).
"""
from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

from . import cachestats, cpu_quota, keys, loadgen, probes, profile, services, watch, windows
from .console import say
from .service_access import PROCESS_COUNTERS, SERVICE_NAMES, jit_reading
from .service_start import JIT_SETTLE_STEP_SECONDS, JIT_SETTLED_SHARE
from .windows import CellRun

# how long after a window's settle seconds its services' latency histograms are read: the
# generators start a little after the bench asks them to, and their settle second is by their own
# first request (windows.settled)
SETTLED_READ_MARGIN_SECONDS = 0.25

# tools whose run over the hot keys need not ask each of them, however many requests it makes
KEYS_AT_RANDOM_OR_ONE = ("h2load", "oha")

CPU_NAMES = ["rest-service", "grpc-service", "balancer", "mariadb", "redis", "generator", "bench"]
# the two generators of a paired (overload) window, tracked apart while they run
PAIRED_GENERATORS = {"rest": "generator-rest", "grpc": "generator-grpc"}


def cache_figures(cell: profile.CellPlan, before: dict | None, after: dict | None) -> tuple[dict | None, list, dict | None]:
    """(hit ratio, notes, the hits and misses it was read from: cachestats.hit_counts) of a window from
    the cache counters read around it."""
    if before is None or after is None:
        return None, [], None
    if cell.cache_mode != "none":
        counts, notes = cachestats.hit_counts(before, after, cell.operation)
        return cachestats.ratios(counts), notes + cachestats.health_notes(before, after), counts
    if cell.operation != "Hello":
        r, _ = cachestats.hit_ratio(before, after, cell.operation)
        if any(v is not None for v in r.values()):
            return None, [f"cache mode none but the cache counters moved {r}"], None
    return None, [], None


def settled_process_delta(settled: dict | None, after: dict) -> dict:
    """The service's /proc counters (ServiceAccess.process_counters) from the reading taken once a
    window's settle seconds were over to the one after its run: each None when the settled reading
    is missing (unknown, rather than a figure that counts the settle second)."""
    if settled is None:
        return {k: None for k in PROCESS_COUNTERS}
    return probes.delta(settled, {k: after.get(k) for k in PROCESS_COUNTERS})


SHARED_SERVERS = ("mariadb", "redis")


class BothGenerators:
    """The CPU sampler as windows.build reads it for a paired window: its generator is both
    generators, which share the generator's cores (so generator-saturated says the pair was), and
    its own generator, the window's wire's, apart (windows.OWN_GENERATOR: a one-thread tool can be
    at its ceiling while the pair is not at the cores'). MariaDB and Redis serve both wires at once:
    the window gets its wire's `share` of their CPU (pair_shares), so that the pair's two records
    do not each count all of it (1 keeps all of it)."""

    def __init__(self, sampler, protocol: str, share: float = 1.0):
        self.sampler = sampler
        self.own = PAIRED_GENERATORS[protocol]
        self.share = share

    def window(self, t0: float, t1: float, names: list[str]) -> dict:
        out = self.sampler.window(t0, t1, [*names, *PAIRED_GENERATORS.values()])
        parts = {name: out.pop(name) for name in PAIRED_GENERATORS.values()}
        out["generator"] = None if any(v is None for v in parts.values()) else sum(parts.values())
        out[windows.OWN_GENERATOR] = parts[self.own]
        for name in SHARED_SERVERS:
            if out.get(name) is not None:
                out[name] *= self.share
        return out


def pair_shares(succeeded: dict[str, int]) -> dict[str, float]:
    """Each wire's share of what the pair's servers did in a paired window: its share of the pair's
    successful requests (a refusal costs MariaDB and Redis nothing); halves when neither succeeded."""
    total = sum(succeeded.values())
    return {p: (n / total if total else 1 / len(succeeded)) for p, n in succeeded.items()}


def db_share(db_delta: dict, share: float) -> dict:
    """A wire's share of the pair's MariaDB counters (pair_shares)."""
    return {k: (None if v is None else round(v * share)) for k, v in db_delta.items()}


class Measure:
    def warm_up(self, cell: profile.CellPlan) -> None:
        """Excluded run at the cell's concurrency with the cell's own tool, over the hot keys; for a
        warm cell it primes the cache, so every hot key must have been asked at least once."""
        _, hot_n = self.keyfiles.get(cell.protocol, cell.operation, cell.page_size, "hot")
        requests = 0
        if cell.warmup_seconds > 0:
            if cell.model == "open":
                inv = self.invocation(cell, executor="constant-arrival-rate", vus=cell.concurrency,
                                      duration=cell.warmup_seconds, which="hot", tag="warmup", rate=cell.target_rate)
            else:
                inv = self.invocation(cell, executor="constant-vus", vus=cell.concurrency,
                                      duration=cell.warmup_seconds, which="hot", tag="warmup")
            out = self._generate_quiet(inv)
            requests = out.measurement["requests"]
        # as many requests as hot keys ask each only where the tool takes the keys in turn (k6, ghz):
        # h2load's gRPC warm-up asks one key, and oha picks each request's key at random (by hand,
        # oha 1.16.0 -n 1000 over 200 URLs asked 199 of them)
        if cell.temperature == "warm" and (requests < hot_n or cell.tool in KEYS_AT_RANDOM_OR_ONE):
            self.prime(cell)
        self.settle_jit(cell)

    def prime(self, cell: profile.CellPlan) -> None:
        """Every hot key of a warm cell asked once (k6, shared iterations over the hot set), so that
        its window starts with each of them in L1: a key filled once and not read again leaves L1
        after tandem.cache.l1.ttl, and one read after refresh-after is reloaded ahead of that. Before
        every warm window but the one the warm-up just primed: a later round of a cell comes after
        every other cell's window, and on a saturated machine that took longer than the L1 TTL (the
        smoke run's second h2load window found its whole hot set expiring at once, 75 % from L1)."""
        _, hot_n = self.keyfiles.get(cell.protocol, cell.operation, cell.page_size, "hot")
        self._generate_quiet(self.invocation(cell, executor="shared-iterations", tool="k6",
                                             vus=min(cell.concurrency, hot_n), duration=None, which="hot",
                                             tag="priming"))

    def settle_jit(self, cell: profile.CellPlan) -> None:
        """More warm-up, in steps of JIT_SETTLE_STEP_SECONDS at the cell's load, until the measured
        service compiles for less than JIT_SETTLED_SHARE of a step (at most jit_settle_max_seconds):
        on one core, a window that starts while C2 is still compiling the cell's path measures the
        compiler (results/20261124T023939Z-quick-8788d64: first windows with 3 s of JIT in 3 s ran
        at a sixth of the next ones). There is no early stop on a plateau: a step that compiles
        the whole time compiles about as much as the one before, which read as "steady" and
        ended the settling exactly when it was needed most."""
        spent = 0.0
        while spent < self.settings["jit_settle_max_seconds"]:
            before = jit_reading(self.read_service(cell))
            if before is None:
                return
            if cell.model == "open":
                inv = self.invocation(cell, executor="constant-arrival-rate", vus=cell.concurrency,
                                      duration=JIT_SETTLE_STEP_SECONDS, which="hot", tag="settle",
                                      rate=cell.target_rate)
            else:
                inv = self.invocation(cell, executor="constant-vus", vus=cell.concurrency,
                                      duration=JIT_SETTLE_STEP_SECONDS, which="hot", tag="settle")
            t0 = time.monotonic()
            self._generate_quiet(inv)
            spent += JIT_SETTLE_STEP_SECONDS
            after = jit_reading(self.read_service(cell))
            if after is None or after - before < JIT_SETTLED_SHARE * (time.monotonic() - t0) * 1000:
                return
        say(f"  {cell.id}: the JIT was still compiling after {spent:g} s of extra warm-up; its windows say so")

    def cold_keys(self, cell: profile.CellPlan, start: int, rnd: int) -> tuple[str, list]:
        """The name and the slice of never-asked keys of this cell's window (start, round)."""
        cold_cells = [c for c in self.cells if c.temperature == "cold" and c.operation == cell.operation
                      and c.page_size == cell.page_size]
        per_cell = max(c.windows for c in cold_cells)
        slices = keys.cold_slices(cell.operation, self.scale, cell.page_size, self.settings["hot_keys"],
                                  len(cold_cells) * per_cell)
        index = cold_cells.index(cell) * per_cell + start * cell.repetitions + rnd
        return keys.cold_name(index, start, rnd), slices[index]

    def window(self, cell: profile.CellPlan, start: int, rnd: int) -> None:
        run = self.runs[cell.id]
        self.order += 1
        which, key_list = "hot", None
        if cell.temperature == "cold":
            which, key_list = self.cold_keys(cell, start, rnd)
        tag = f"s{start}r{rnd}"
        if cell.model == "open":
            inv = self.invocation(cell, executor="constant-arrival-rate", vus=cell.concurrency,
                                  duration=cell.duration_seconds, which=which, tag=tag, rate=cell.target_rate,
                                  raw=True, key_list=key_list)
        elif cell.temperature == "cold":
            inv = self.invocation(cell, executor="shared-iterations", vus=cell.concurrency,
                                  duration=cell.duration_seconds, which=which, tag=tag, raw=True, key_list=key_list)
        else:
            inv = self.invocation(cell, executor="constant-vus", vus=cell.concurrency,
                                  duration=cell.duration_seconds, which=which, tag=tag, raw=True)
        n_keys = len(key_list) if key_list is not None else None
        cache_before, service_before, db_before = self.read_cache(cell.protocol), self.read_service(cell), self.read_db()
        spans_before = self.exported_spans(cell)
        service_before.update(self.span_counters(cell.protocol))
        outcome = self.generate(inv)
        span_end = self.span_counters(cell.protocol)
        cache_after, service_after, db_after = self.read_cache(cell.protocol), self.read_service(cell), self.read_db()
        service_after.update(span_end)
        spans_after = self.exported_spans(cell)
        if not self.target:
            self.services.check_alive()
        if service_after.get("heapMaxBytes"):
            self.heap_max = service_after["heapMaxBytes"]
        hit, notes, hit_counts = cache_figures(cell, cache_before, cache_after)
        notes = list(outcome.notes) + notes
        calls = probes.delta(service_before, service_after)
        record, data = windows.build(
            cell, start=start, rnd=rnd, order=self.order, outcome=outcome, sampler=self.sampler,
            generator_cores=self.placement.generator_cores, hit_ratio=hit, hit_counts=hit_counts,
            service_delta=calls, db_delta=probes.delta(db_before, db_after), n_keys=n_keys, notes=notes,
            measured_service=SERVICE_NAMES[cell.protocol], cpu_names=CPU_NAMES)
        if spans_before is not None:
            record["exportedSpans"] = spans_after - spans_before
        run.add_window((record, data))

    def exported_spans(self, cell: profile.CellPlan) -> int | None:
        """Spans the cell's service has exported so far (traced cells), as the bench's sink counted them."""
        if not cell.tracing or self.otlp_sink is None:
            return None
        return self.otlp_sink.spans(SERVICE_NAMES[cell.protocol])

    def watch_window(self, cell: profile.CellPlan, start: int, rnd: int) -> None:
        """One window of a WatchGroup cell: its watches on its wire, their groups changed through
        REST at random moments, the load writers at the cell's rate (watch.measure)."""
        self.order += 1
        watched, load = watch.pairs_for(self.scale, cell.concurrency, watch.load_threads(cell.target_rate))
        try:
            result = watch.measure(rest_base=self.rest_base(False), grpc_address=self.grpc_address(False),
                                   token=self.write_token, protocols=[cell.protocol], watched=watched, load=load,
                                   seconds=cell.duration_seconds, write_rate=cell.target_rate,
                                   pause_seconds=cell.pause_ms / 1000, grpcurl=loadgen.tool_path("grpcurl"))
        except (watch.WatchError, OSError) as e:
            raise services.ServiceError(f"{cell.id}: {e}") from e
        if not self.target:
            self.services.check_alive()
        record = watch.window_record(result, cell.protocol, start=start, rnd=rnd, order=self.order)
        self.watch_runs.setdefault(cell.id, []).append(
            (record, result.from_answer_ms[cell.protocol], result.from_request_ms[cell.protocol]))
        lat = record["latencyMs"]
        say(f"[{self.order}] {cell.id} s{start + 1}r{rnd + 1}: {record['changes']} changes, change to client p50 "
            f"{windows.fmt_ms(lat['p50'])}, p99 {windows.fmt_ms(lat['p99'])}, max {windows.fmt_ms(lat['max'])}, "
            f"{record['missed']} missed, {record['achievedWriteRate']:,.0f} load writes/s"
            + (f", ERRORS {'; '.join(record['errors'])}" if record["errors"] else ""))

    def sweep(self, cells: list[profile.CellPlan], start: int) -> None:
        """One sweep's points in ascending rate, each primed when warm (no warm-up: the sweep runs
        after the cells of its start, which warmed the JIT), until a point's p99 or dropped arrivals
        pass the sweep's limits (that point is the last). Each point is one window, recorded in the
        start it is measured in."""
        for cell in sorted(cells, key=lambda c: c.target_rate):
            self.runs[cell.id] = CellRun(cell)
            if cell.temperature == "warm":
                self.prime(cell)
            self.window(cell, start, 0)
            w = self.runs[cell.id].windows[-1]
            p99_limit, drop_limit = cell.sweep_limits
            p99 = w["latencyMs"]["p99"]
            dropped = (w["droppedIterations"] or 0) / max(cell.target_rate * cell.duration_seconds, 1)
            short = w["achievedRate"] is not None and w["achievedRate"] < windows.RATE_SHORT * cell.target_rate
            say(f"  sweep {cell.sweep} at {cell.target_rate:g}/s: p99 {windows.fmt_ms(p99)}, "
                f"{w['throughputRps']:,.0f} ok/s")
            # a p99 the samples cannot support (too few) does not end the sweep
            if (p99 is not None and p99 > p99_limit) or dropped > drop_limit or short:
                break

    # ------------------------------------------------------------ overload: both wires at once

    def overload(self, cells: list[profile.CellPlan], start: int) -> None:
        """One start of an overload pair: its capacity cells warmed up (each wire alone, which primes
        the hot keys and settles the JIT), then per round a capacity window of both wires at once
        (closed), and each step in ascending order at its percent of the capacity each wire just
        showed, both wires at once (open), with a pause after every window so that a step's backlog
        drains before the next."""
        steps: dict = {}
        for c in cells:
            steps.setdefault(c.step, {})[c.protocol] = c
            self.runs.setdefault(c.id, CellRun(c))
        capacity = steps.pop(None)
        for cell in capacity.values():
            self.warm_up(cell)
        for rnd in range(max(c.repetitions for c in cells)):
            goodput = self.paired_window(capacity, start, rnd, rates=None)
            for step in sorted(steps):
                rates = {p: max(1.0, goodput[p] * step / 100) for p in steps[step]}
                self.paired_window(steps[step], start, rnd, rates=rates)
                self.progress_pair(steps[step])

    def paired_window(self, cells: dict, start: int, rnd: int, rates: dict | None) -> dict:
        """One window of both wires at once: both generators start together, the counters of both
        services are read before and after; per wire a window record. Returns each wire's goodput.
        The generators run each cell's settle seconds first, which the record leaves out (windows.settled);
        the services' own counters (hit ratio, flushes, admissionRefused) span the whole run."""
        self.order += 1
        invs = {}
        for protocol, cell in cells.items():
            duration = cell.duration_seconds + cell.settle_seconds
            if rates is None:
                inv = self.invocation(cell, executor="constant-vus", vus=cell.concurrency,
                                      duration=duration, which="hot", tag=f"s{start}r{rnd}", raw=True)
            else:
                inv = self.invocation(cell, executor="constant-arrival-rate", vus=cell.concurrency,
                                      duration=duration, which="hot", tag=f"s{start}r{rnd}",
                                      rate=rates[protocol], raw=True)
            inv.timeout_seconds = cell.timeout_seconds
            invs[protocol] = inv
        before = {p: (self.read_cache(p), self.read_service(c)) for p, c in cells.items()}
        db_before = self.read_db()
        cap_before = self.cpu_quota.throttling()
        settled_reading = self.read_after_settling(cells)
        span_start = {p: self.process_counters(p) for p in cells}
        outcomes = self.generate_together(invs)
        span_end = {p: self.process_counters(p) for p in cells}  # before the probes below (span_counters)
        settled = settled_reading()
        # the cap's throttling over the measured span (from the settled reading), the pair's alike
        cap_throttling = cpu_quota.throttling_between(settled["cap"] if settled else cap_before,
                                                      self.cpu_quota.throttling())
        outcomes = {p: windows.settled(o, cells[p].settle_seconds, cells[p].duration_seconds)
                    for p, o in outcomes.items()}
        after = {p: (self.read_cache(p), self.read_service(c)) for p, c in cells.items()}
        db_after = self.read_db()
        if not self.target:
            self.services.check_alive()
        goodput = {}
        shares = pair_shares({p: o.samples.succeeded for p, o in outcomes.items()})
        for protocol, cell in cells.items():
            (cache_before, service_before), (cache_after, service_after) = before[protocol], after[protocol]
            hit, notes, hit_counts = cache_figures(cell, cache_before, cache_after)
            service_delta = probes.delta(service_before, service_after)
            service_delta.update(probes.delta(span_start[protocol], span_end[protocol]))
            if settled is not None:
                # the service's own latency of the measured span only (None when that reading failed:
                # unknown rather than a figure that counts the settle second)
                service_delta["okLatencyBuckets"] = probes.histogram_delta(settled["histograms"].get(protocol),
                                                                           service_after.get("okLatencyBuckets"))
                # and its CPU by thread and context switches, which the window divides by the requests
                # of the measured span: read from the whole run they counted the settle second's
                # work too (an eighth more a request at 1 s of settling and 8 s measured)
                service_delta.update(settled_process_delta(settled["process"].get(protocol), span_end[protocol]))
            record, data = windows.build(
                cell, start=start, rnd=rnd, order=self.order, outcome=outcomes[protocol],
                sampler=BothGenerators(self.sampler, protocol, shares[protocol]),
                generator_cores=self.placement.generator_cores,
                hit_ratio=hit, hit_counts=hit_counts, service_delta=service_delta,
                # MariaDB serves both services: its counters are the pair's, of which the wire's share
                db_delta=db_share(probes.delta(db_before, db_after), shares[protocol]), n_keys=None, notes=list(outcomes[protocol].notes) + notes,
                measured_service=SERVICE_NAMES[protocol], cpu_names=CPU_NAMES,
                offered_rate=None if rates is None else rates[protocol])
            record["l1Flushes"] = cachestats.flushes_between(cache_before, cache_after)
            record["admissionLimit"] = service_after.get("admissionLimit")
            record["capThrottling"] = cap_throttling
            # the service's own count, beside the generator's: a 503 / UNAVAILABLE that admission
            # control did not send (a failing database, a shutdown) shows as a difference
            record["admissionRefused"] = service_delta.get("admissionRefused")
            self.runs[cell.id].add_window((record, data))
            goodput[protocol] = record["throughputRps"]
        time.sleep(max(c.drain_seconds for c in cells.values()))
        return goodput

    def read_after_settling(self, cells: dict):
        """Reads each service's latency histogram, and the CPU cap's throttling counters, once the
        window's settle seconds are over (and SETTLED_READ_MARGIN_SECONDS more, for the generators'
        start-up), so that the window's serviceLatencyMs and capThrottling cover the measured span as
        its other figures do, not the first second's calls on connections still opening (on gRPC at
        10 %, about 220 of 2,000 calls, which put the service's p99 above the generator's in two of
        six windows of results/20261130T044531Z-overload-f3997a1). One
        read of the one series a window (probes.latency_histogram: about 20 KB on gRPC, 50 KB on
        REST) on the capped services. Returns a function that waits for the reading and gives
        {"histograms": {protocol: buckets or None}, "cap": counters or None}; one that gives None
        when the cells settle for no time (the readings around the run are then the window's)."""
        settle = max(c.settle_seconds for c in cells.values())
        if settle <= 0:
            return lambda: None
        readings: dict = {"histograms": {}, "cap": None, "process": {}}

        def read():
            readings["cap"] = self.cpu_quota.throttling()
            # /proc first: a read of files, where the histograms are a request to each service
            for protocol in cells:
                readings["process"][protocol] = self.process_counters(protocol)
            for protocol, cell in cells.items():
                readings["histograms"][protocol] = self.read_latency_histogram(cell)
        timer = threading.Timer(settle + SETTLED_READ_MARGIN_SECONDS, read)
        timer.daemon = True
        timer.start()

        def finished() -> dict:
            timer.join()
            return readings
        return finished

    def generate_together(self, invs: dict[str, loadgen.Invocation]) -> dict[str, loadgen.Outcome]:
        """Both generators at the same time (each a subprocess: the threads only wait on them),
        their CPU tracked apart."""
        def run(protocol: str, inv: loadgen.Invocation) -> loadgen.Outcome:
            return loadgen.run(inv, grpc_address=self.grpc_address(inv.tls, inv.front),
                               rest_base=self.rest_base(inv.tls, inv.front),
                               proto_paths=self.proto_paths, ca_file=self.ca_file(),
                               on_start=lambda pid: self.sampler.track(PAIRED_GENERATORS[protocol], pid),
                               on_end=lambda cpu_seconds: self.sampler.ended(PAIRED_GENERATORS[protocol],
                                                                             cpu_seconds))
        try:
            with ThreadPoolExecutor(max_workers=len(invs), thread_name_prefix="generator") as pool:
                futures = {p: pool.submit(run, p, inv) for p, inv in invs.items()}
                return {p: f.result() for p, f in futures.items()}
        finally:
            self.sampler.flush()
            for protocol in invs:
                self.sampler.untrack(PAIRED_GENERATORS[protocol])

    def progress_pair(self, cells: dict) -> None:
        parts = []
        for protocol, cell in cells.items():
            w = self.runs[cell.id].windows[-1]
            parts.append(f"{protocol} {w['offeredRate'] or 0:,.0f}/s offered: {w['throughputRps']:,.0f} ok/s, "
                         f"{w['refusals']} refused, {w['timeouts']} timed out, p99 {windows.fmt_ms(w['latencyMs']['p99'])}")
        say(f"  [{self.order}] {next(iter(cells.values())).pair} {next(iter(cells.values())).step:g} %: " + "; ".join(parts))

