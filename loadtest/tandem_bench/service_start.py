"""What happens at each start of the services before its first window: the start itself (cache
mode checked, caches flushed), the JIT warm-up in passes until both services' compilers settle,
pinning the services to their CPUs, and the response body bytes; against a target, the checks
that replace all of that. ServiceStart is a mixin of orchestrate.Bench; the constants that tune
the warm-up sit here, with the results that set their values.
"""
from __future__ import annotations

import concurrent.futures
import json
import time

from . import cachestats, keys, loadgen, otlp_sink, probes, profile, services, wire
from . import target as targets
from .console import say

# The JIT warm-up drives each operation at every concurrency its measured cells use (at most this
# many users): at 16 users the first 50-user REST window after it still compiled for 44 % of its
# 3 s and ran at half the rate of the next ones, in both results/20261124T082640Z-quick-428f022
# and results/20261124T084358Z-quick-4bc40bf; code paths that only many users reach (contention,
# more connections) were compiled inside the window. Warmed at 64 users only, the first one-user
# REST window of each start compiled for 1.1-1.75 s of its 3 s and the 500-user gRPC ListGroups
# windows for 0.4-0.7 s (results/20261128T003437Z-hotpath-110da69, and a run whose warm-up had
# settled after 66 s): one user deoptimises code compiled under many (-Xlog:deoptimization shows
# unstable_if traps in the poller's AbstractSelectionKey.isValid and the carrier's
# ForkJoinPool.tryTrim the moment one user follows 64).
JIT_MAX_CONCURRENCY = 500
JIT_MISS_MAX_CONCURRENCY = 64  # k6 users on the miss path's keys in the first pass
JIT_PRIMING_MAX_USERS = 8       # k6 users of the priming in each later pass (k6 needs a key per user)
JIT_PASS_SECONDS = 1          # per operation, in each pass of the warm-up after a service start
JIT_MISS_SECONDS = 3          # the first pass's k6 run over the keys reserved for the miss path (at most)
# A warm-up generator still running this long after its end is killed and the pass goes on: h2load
# over TLS, started together with its plain twin against a service seconds old whose first calls
# had not answered within the pass, stayed hung until killed at 61 s, in both hybrid starts of
# results/20261124T084358Z-quick-4bc40bf (--connection-inactivity-timeout did not end it; the
# first pass now counts its calls instead, see jit_warmup)
JIT_HANG_SECONDS = 10
JIT_SETTLE_STEP_SECONDS = 1   # the per-cell settling steps
JIT_SETTLED_SHARE = 0.05      # of a core, used by a service's JIT compiler threads in a pass or step: compiled
BODY_SAMPLE_KEYS = 20        # responses fetched per operation and wire to measure body bytes
# curls at once when every hot key's gRPC answer is fetched to choose the one request an h2load cell
# sends (a curl is a process of its own: 200 one after the other take seconds)
H2LOAD_KEY_WORKERS = 8


class ServiceStart:
    def start_services(self, mode: str, tls: bool, start: int, http2: bool = False, traced: bool = False,
                       balancer: bool = False) -> None:
        """tls: also serve TLS on the extra ports (the mode has TLS cells); http2: REST speaks HTTP/2
        too (the mode has REST cells over HTTP/2; an HTTP/1.1 client still gets HTTP/1.1); traced:
        trace every request and export its spans to the bench's OTLP sink (started here once);
        balancer: the compose balancer in front of them (the mode has overload cells through it),
        pinned, capped and counted with them."""
        if tls and self.tls_files is None:
            self.tls_files = services.tls_certificate()
        if traced and self.otlp_sink is None:
            self.otlp_sink = otlp_sink.OtlpSink().__enter__()
        p = self.ports
        tls_ports = f"; over TLS REST {p.rest_base_for(True)}, gRPC {p.grpc_address_for(True)}" if tls else ""
        traced_text = f", traced (spans to {self.otlp_sink.endpoint('<service>')})" if traced else ""
        say(f"\nbench: start {start + 1}: rest-service and grpc-service with TANDEM_CACHE_MODE={mode}{traced_text}"
            f" (REST {p.rest_base}{' with HTTP/2' if http2 else ''}, gRPC {p.grpc_address}{tls_ports}) ...")
        seconds = self.services.start(mode, self.tls_files if tls else None, http2=http2,
                                      tracing=self.otlp_sink if traced else None, balancer=balancer)
        if balancer:
            say(f"bench: the compose balancer in front (nginx, REST {p.balancer_rest_base} with at most "
                f"{self.services.balancer_rest_in_flight} requests in flight, gRPC {p.balancer_grpc_address})")
        # not pinned yet: the JIT warm-up runs with every core (see pin_services)
        for name, pid in self.services.pids().items():
            self.sampler.track(name, pid)
        reported = {}
        for protocol in ("rest", "grpc"):
            reading = self.read_cache(protocol)
            reported[protocol] = reading and reading.get("mode")
        wrong = {p: m for p, m in reported.items() if m is not None and str(m).lower() != mode}
        if wrong:
            raise services.ServiceError(f"asked for cache mode {mode}, the services report {wrong}")
        # every start begins from empty caches: L2 outlives the services, and a cold key must never
        # have been asked in any earlier start
        self.flush_caches()
        say(f"bench: both services UP in {seconds:.0f} s (cache mode reported: "
            f"{', '.join(f'{p} {m}' for p, m in reported.items())})")

    def pin_services(self) -> None:
        """Onto their CPUs, after the JIT warm-up, so that the warm-up's compilers may use the idle
        core too (what they compile does not depend on where it ran; every measured window is
        pinned). Runs up to results/20261124T122923Z-quick-d91c8fa did not get that: the services
        inherited the bench's own mask, the generator's core, and started and warmed up there
        (cpu.Placement.service_launch_prefix now starts them on every core)."""
        self.placement.pin_services(self.services.pids().values())
        say(f"bench: pinned: {self.placement.note}")
        # capped at the same moment, for the same reason: the warm-up is not measured, and a
        # capped JIT would take longer to settle (cpu_quota.py)
        if self.cpu_quota.capped:
            self.cpu_quota.apply(self.services.pids().values())
            say(f"bench: capped: {self.cpu_quota.note}")

    def jit_warmup(self, mode: str, cells: list[profile.CellPlan]) -> None:
        """Both wires, every operation, excluded, in passes until the JIT of both services has
        settled: each pass drives the hot keys of every operation for JIT_PASS_SECONDS at each
        concurrency its measured cells use (jit_warmup_plan) with the native generators, on each
        port (plain, TLS) the operation's cells use (oha, h2load: tens of thousands of calls a
        second, so the hot paths reach C2 sooner than under k6). The first pass is first contact:
        one call per connection, counted rather than timed; with a cache it also sends k6 over
        keys reserved for it, so the miss path (L2 miss, JDBC, fill) is compiled before the first
        counted cold window. It stops after the first pass in which neither service's compiler
        threads used more than JIT_SETTLED_SHARE of a core, or once jit_warmup_seconds have
        passed. A fixed 8 s left the first window of each start compiling for its whole 3 s (runs
        results/20261124T030625Z-quick-b16f784 and results/20261124T032104Z-quick-b16f784)."""
        cap = self.settings["jit_warmup_seconds"]
        plan = jit_warmup_plan(cells)
        if cap <= 0 or not plan:
            return
        t0 = time.monotonic()
        passes, shares = 0, {}
        while True:
            before, p0 = self.compile_ms(), time.monotonic()
            for (op, size), (ways, levels) in plan.items():
                for conc in (levels if passes else levels[-1:]):
                    invs = []
                    for protocol, tls, encoding, http, compression in sorted(ways):
                        native = "oha" if protocol == "rest" else "h2load"
                        fake = profile.CellPlan(protocol, native, op, size, mode, "none", "closed", conc, None,
                                                JIT_PASS_SECONDS, 0, 1, tls=tls, encoding=encoding, http=http,
                                                compression=compression)
                        if passes == 0:
                            # first contact, at the operation's busiest level: one call per connection,
                            # counted rather than timed. The first calls of a fresh service can take
                            # longer than a pass, and h2load over TLS whose duration ends while its
                            # clients are still shaking hands never exits (reproduced by SIGSTOPping
                            # the service for 1.5 s of a 1 s run: hung until killed; --requests does
                            # not hang), which cost every hybrid start JIT_HANG_SECONDS
                            invs.append(self.invocation(fake, executor="shared-iterations", vus=conc,
                                                        duration=None, iterations=conc, which="hot", tag="jit-first"))
                        else:
                            invs.append(self.invocation(fake, executor="constant-vus", vus=conc,
                                                        duration=JIT_PASS_SECONDS, which="hot", tag="jit"))
                        invs[-1].hang_seconds = JIT_HANG_SECONDS
                    for protocol in ("rest", "grpc"):
                        if passes and conc == levels[-1]:
                            # what comes before a window besides its own generator: k6 priming the
                            # hot keys (its requests differ from oha's and h2load's in their headers)
                            fake = profile.CellPlan(protocol, "k6", op, size, mode, "none", "closed", 1, None,
                                                    JIT_PASS_SECONDS, 0, 1)
                            _, hot_n = self.keyfiles.get(protocol, op, size, "hot")
                            invs.append(self.invocation(fake, executor="shared-iterations",
                                                        vus=min(conc, JIT_PRIMING_MAX_USERS, hot_n),
                                                        duration=None, which="hot", tag="jit-k6"))
                        if passes == 0 and mode != "none" and op != "Hello":
                            # the miss path (L2, JDBC, fill) is the same code behind either port
                            vus = min(conc, JIT_MISS_MAX_CONCURRENCY)
                            fake = profile.CellPlan(protocol, "k6", op, size, mode, "none", "closed", vus, None,
                                                    JIT_MISS_SECONDS, 0, 1)
                            miss = keys.jit_miss_keys(op, self.scale, size, self.settings["hot_keys"])
                            invs.append(self.invocation(fake, executor="shared-iterations", vus=vus,
                                                        duration=JIT_MISS_SECONDS, which="jit-miss", tag="jit-miss",
                                                        key_list=miss))
                    # both wires at once: each service warms its own code while the other does
                    with concurrent.futures.ThreadPoolExecutor(len(invs)) as pool:
                        for inv, f in [(inv, pool.submit(self._generate_quiet, inv)) for inv in invs]:
                            try:
                                f.result()
                            except loadgen.LoadGenError as e:
                                # a warm-up measures nothing: a generator that failed or hung there
                                # costs its time and a note, not the run
                                note = f"a JIT warm-up run of {inv.tool} ({inv.protocol}) failed and was skipped: {e}"
                                say(f"  {note}")
                                self.notes.append(note)
            # and what the bench asks each service around every window (its cache statistics, its
            # metrics): after a warm-up without them the first window of each start compiled for
            # 0.4-0.9 s of its 3 s (run 20261128T041629Z-hotpath-a5f6444); -Xlog:jit+compilation
            # of a one-start copy of that profile showed Tomcat's request parsing and Spring's
            # content negotiation "made not entrant: uncommon trap" right after the first scrape,
            # k6 priming and curl, and recompiled in the window
            self.probe_like_a_window(mode)
            passes += 1
            shares = probes.compile_shares(before, self.compile_ms(), time.monotonic() - p0)
            settled = bool(shares) and all(share < JIT_SETTLED_SHARE for share in shares.values())
            if settled or not shares or time.monotonic() - t0 >= cap:
                break
        names = ", ".join(f"{o}{s or ''}" + (f" ({len(w)} ways)" if len(w) > 2 else "")
                          + f" at {'/'.join(map(str, levels))} users" for (o, s), (w, levels) in plan.items())
        if not shares:
            state = "compile time not readable, one pass"
        else:
            state = "settled" if settled else f"still compiling at the {cap:g} s cap"
            state += " (share of the last pass spent compiling: " + \
                ", ".join(f"{p} {share:.0%}" for p, share in shares.items()) + ")"
        say(f"bench: JIT warm-up ({names}, on both wires, hot keys and the miss path): "
            f"{passes} pass(es) in {time.monotonic() - t0:.0f} s, {state}; excluded from the figures")

    def probe_like_a_window(self, mode: str) -> None:
        """The probes a window makes of each service before and after its generator runs."""
        for protocol in ("rest", "grpc"):
            self.read_cache(protocol)
            self.read_service(profile.CellPlan(protocol, "k6", "GetGroup", None, mode, "none", "closed", 1, None,
                                               JIT_PASS_SECONDS, 0, 1))

    def measure_body_bytes(self, cells: list[profile.CellPlan]) -> None:
        """Mean response body bytes per (protocol, operation, page size, encoding, compression) as
        they travelled, fetched with curl over the first hot keys: the same client and the same
        count on both wires; each cell's own kind, and JSON and Protobuf uncompressed (the
        headline's JSON ÷ Protobuf). And for gRPC's h2load cells, which send one request for the
        whole window, the request they send (h2load_request)."""
        for c in cells:
            if c.operation == profile.WATCH:
                continue
            for k in {body_key(c), ("rest", c.operation, c.page_size, "json", "identity"),
                      ("grpc", c.operation, c.page_size, "protobuf", "identity")}:
                if k in self.body_bytes:
                    continue
                protocol, _, _, encoding, compression = k
                path, _ = self.keyfiles.get(protocol, c.operation, c.page_size, "hot")
                requests = json.loads(path.read_text())[:BODY_SAMPLE_KEYS]
                self.body_bytes[k] = wire.mean_body_bytes(
                    protocol, rest_base=self.ports.rest_base, grpc_base=f"http://{self.ports.grpc_address}",
                    encoder=self.encoder, method=keys.GRPC_METHODS[c.operation], requests=requests,
                    encoding=encoding, compression=compression)
            if c.protocol == "grpc" and c.tool == "h2load" and body_key(c) not in self.h2load_requests:
                self.choose_h2load_request(c)

    def choose_h2load_request(self, c: profile.CellPlan) -> None:
        """The one request gRPC's h2load cells of c's kind send: h2load sends one pre-encoded body
        for a whole run, where ghz and k6 cycle the hot keys and oha picks among them at random. It once sent the first hot key
        and recorded the first 20 keys' mean body: GetGroup's cell received 149 bytes a call on the
        wire, frames and headers included, and recorded a 231.5-byte body
        (results/20261201T043039Z-hotpath-bf45c25). So every hot key's answer is fetched (as the
        cell asks: compressed or not), the key whose answer is the median of them is sent, and the
        cell's bodyBytes is that answer's size."""
        path, _ = self.keyfiles.get(c.protocol, c.operation, c.page_size, "hot")
        requests = json.loads(path.read_text())
        sizes = wire.body_sizes(c.protocol, rest_base=self.ports.rest_base,
                                grpc_base=f"http://{self.ports.grpc_address}", encoder=self.encoder,
                                method=keys.GRPC_METHODS[c.operation], requests=requests,
                                compression=c.compression, workers=H2LOAD_KEY_WORKERS)
        request, size = median_request(requests, sizes)
        self.h2load_requests[body_key(c)] = (request, size)
        kind = f"{c.operation}{c.page_size or ''}" + (" gzip" if c.compression == "gzip" else "")
        self.notes.append(
            f"gRPC's h2load cells of {kind} send one request for the whole window (h2load cannot vary the body), "
            f"{json.dumps(request)}: the hot key whose answer ({size:g} bytes) is the median of the {len(requests)} "
            f"hot keys' answers ({min(sizes)}-{max(sizes)} bytes); their bodyBytes is that answer's size. ghz and k6 "
            f"cycle the hot keys, REST's oha cells pick among them at random, and their bodyBytes is the mean over the first "
            f"{min(BODY_SAMPLE_KEYS, len(requests))}.")

    def h2load_request(self, c: profile.CellPlan, keys_file, which: str):
        """What a gRPC h2load run of cell c sends: over the hot keys, the one choose_h2load_request
        chose; otherwise (a warm-up over other keys, or a target, whose answers are not fetched) the
        file's first."""
        chosen = self.h2load_requests.get(body_key(c)) if which == "hot" else None
        return chosen[0] if chosen else json.loads(keys_file.read_text())[0]

    def cell_body_bytes(self, c: profile.CellPlan) -> float | None:
        """The body bytes a cell's record gives: what its requests were answered, as curl measured
        it. A revalidating cell's 304 has no body; a gRPC h2load cell sends one request, so its
        answer's size (None where it was not measured) rather than a mean over keys it never asked."""
        if c.revalidate:
            return 0.0
        if c.protocol == "grpc" and c.tool == "h2load":
            chosen = self.h2load_requests.get(body_key(c))
            return chosen[1] if chosen else None
        return self.body_bytes.get(body_key(c))

    def target_readings(self) -> list[targets.Reading]:
        return [targets.read_instance(b) for b in self.target.rest_management + self.target.grpc_management]

    def prepare_target(self) -> None:
        """Instead of servers, seeding and services: trust the target's CA, check it holds the
        profile's data, read the cache mode it runs, and keep only the cells it can run honestly."""
        t = self.target
        if t.tls:
            services.trust(self.target_ca())
        targets.check_seeded(t, self.scale)
        readings = self.target_readings()   # a management URL given but not answering is an error
        mode_source = readings[0] if readings else targets.read_instance(t.rest_base)
        if mode_source.mode is None:
            raise services.ServiceError(f"{mode_source.base}/actuator/cache reports no cache mode")
        different = {r.base: r.mode for r in readings if r.mode != mode_source.mode}
        if different:
            raise services.ServiceError(f"the target's instances run different cache modes: "
                                        f"{mode_source.base} {mode_source.mode}, {different}")
        complete, why = targets.coverage(readings)
        try:
            cachestats.flush(t.flush_base, token=self.write_token)
            can_flush = True
        except cachestats.CacheEndpointError as e:
            say(f"bench: the target's caches cannot be flushed ({e})")
            can_flush = False
        self.target_plan = targets.plan(self.cells, mode_source.mode, t, complete, why, can_flush)
        self.notes += self.target_plan.notes
        for note in self.target_plan.notes:
            say(f"bench: {note}")
        if not self.target_plan.cells:
            raise services.ServiceError("no cell of the profile fits the target (see the notes above)")
        self.cells = self.target_plan.cells
        if any(c.protocol == "grpc" and c.tool == "h2load" for c in self.cells):
            # the bench fetches no answer from a target (measure_body_bytes), so it cannot choose
            self.notes.append("gRPC's h2load cells send one request for the whole window (h2load cannot vary the "
                              "body): against a target, the first hot key's, whose answer was not measured (their "
                              "bodyBytes is null); REST's oha cells, ghz and k6 cycle the hot keys.")

    def check_target_mode(self, mode: str) -> None:
        """The target still runs the mode planned for (nobody restarted it in between)."""
        readings = self.target_readings() or [targets.read_instance(self.target.rest_base)]
        wrong = {r.base: r.mode for r in readings if r.mode != mode}
        if wrong:
            raise services.ServiceError(f"planned for cache mode {mode}, the target now reports {wrong}")
        say(f"bench: target {self.target.rest_base} / {self.target.grpc_address} runs cache mode {mode}")


def jit_warmup_plan(cells: list[profile.CellPlan]) -> dict[tuple, tuple[set[tuple], list[int]]]:
    """Per (operation, page size) the JIT warm-up drives: every way its cells reach a service (port,
    representation, HTTP version, compression) and the plain default on both wires, so that both
    services warm together; and, ascending, every concurrency its measured cells use (at most
    JIT_MAX_CONCURRENCY), or its busiest sweep point when it is measured only in sweeps. WatchGroup
    is left out: its path is the log's and the writes', which its own window warms."""
    by_operation: dict[tuple, list[profile.CellPlan]] = {}
    for c in cells:
        if c.operation != profile.WATCH:
            by_operation.setdefault((c.operation, c.page_size), []).append(c)
    plan = {}
    for key, mine in by_operation.items():
        ways = {("rest", False, "json", "1.1", "identity"), ("grpc", False, "protobuf", "2", "identity")}
        ways |= {(c.protocol, c.tls, c.encoding, c.http, c.compression) for c in mine}
        levels = {c.concurrency for c in mine if c.sweep is None} or {max(c.concurrency for c in mine)}
        plan[key] = (ways, sorted({min(JIT_MAX_CONCURRENCY, n) for n in levels}))
    return plan


def body_key(c: profile.CellPlan) -> tuple:
    """What a cell's response bodies look like: the same for every cell that asks the same way."""
    return c.protocol, c.operation, c.page_size, c.encoding, c.compression


def median_request(requests: list, sizes: list[int]) -> tuple:
    """(request, size) of the request whose answer is the lower median of the answers' sizes (an
    answer that exists: no mean of two), the first of those whose answer is that size."""
    median = sorted(sizes)[(len(sizes) - 1) // 2]
    i = sizes.index(median)
    return requests[i], sizes[i]
