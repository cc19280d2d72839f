"""`make bench`: measure every cell of a profile against freshly started services and write
results/<run-id>/run.json.

    python loadtest/bench.py [--profile quick|full|smoke|path.toml] [--results-dir DIR] [--dry-run]
                             [--target rest=URL,grpc=HOST:PORT,...]

With --target (make bench TARGET=...) the bench measures services that are already running
instead: steps 1-3 below are replaced by target.py's checks and plan (no servers or services
started, nothing seeded, only the cells of the cache mode and TLS setting the target reports).

What happens, in order (scripts/bench.sh has already installed the tools and built the jars):
  1. MariaDB and Redis are started if they are not running (and stopped at the end if so), and
     pinned with the services (cpu.Placement); the generators run on the other CPUs.
  2. The bench database tandem_bench_s<scale> is seeded unless it already holds that scale.
  3. Per cache mode of the profile's cells, `starts` times: both services are (re)started with
     TANDEM_CACHE_MODE=<mode> on the bench's own ports (and, when the mode has TLS cells, a second
     TLS port each, TANDEM_TLS_EXTRA_PORT, with a certificate from scripts/tls-cert.sh, so that TLS
     and plain cells measure the same processes), their caches flushed, the JIT warmed (hot keys
     with oha and h2load on every port the cells use, the miss path with k6 over reserved keys;
     excluded), and then pinned. Response body bytes are fetched with curl on both wires.
  4. Then `repetitions` rounds: each cell gets one window per round, in an order rotated every
     round and reversed every other one (windows.interleave). Before a cell's first window in a
     start: a warm-up at its concurrency (excluded; it primes warm cells) and more warm-up until
     the service's JIT settles. Cold windows ask a slice of keys no other window asked; warm and
     no-cache windows cycle over the hot keys. Around each window the service's cache, JIT, GC and
     call counters and MariaDB's row counters are read, and every process's CPU is sampled
     (windows.build turns it all into the window's record and flags). After the last start of a
     configuration, its rate sweeps run.
  5. The run is assembled (pooled percentiles, bootstrap intervals, fits, headline ratios with
     verdicts, sweeps with knees, notes), validated against the schema and written; the summary
     table is printed.
Whatever happens (failure, Ctrl-C, SIGTERM), the services it started and the servers it started
are stopped.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import zlib
from datetime import datetime, timezone
from pathlib import Path

from . import (cachestats, cpu, environment, headline, keys, loadgen, pooled, probes, profile, report, results,
               services, stats, windows, wire)
from .windows import CellRun, interleave
from . import target as targets

ROOT = Path(__file__).resolve().parents[2]
GRPC_JAR = ROOT / "grpc-service/target/grpc-service.jar"
REST_JAR = ROOT / "rest-service/target/rest-service.jar"

# The JIT warm-up drives each port with as many users as the configuration's busiest measured cell
# (at most this many): at 16 the first 50-user REST window after it still compiled for 44 % of its
# 3 s and ran at half the rate of the next ones, in both results/20261124T082640Z-quick-428f022
# and results/20261124T084358Z-quick-4bc40bf; code paths that only many users reach (contention,
# more connections) were compiled inside the window.
JIT_MAX_CONCURRENCY = 64
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
JIT_SETTLE_MAX_SECONDS = 4
BODY_SAMPLE_KEYS = 20        # responses fetched per operation and wire to measure body bytes
# the services' heap, fixed so that GC behaves the same in every start (recorded in the run); a
# fixed set of JIT compiler threads, whose CPU the bench reads from /proc (a dynamic one may end a
# thread and take its CPU time out of the sum)
JAVA_OPTIONS = ["-Xms512m", "-Xmx512m", "-XX:-UseDynamicNumberOfCompilerThreads"]
SERVICE_NAMES = windows.SERVICE_NAMES
CPU_NAMES = ["rest-service", "grpc-service", "mariadb", "redis", "generator", "bench"]


def say(*parts) -> None:
    print(*parts, flush=True)


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def mmss(seconds: float) -> str:
    seconds = max(0, int(round(seconds)))
    return f"{seconds // 60}:{seconds % 60:02d}" if seconds < 3600 else \
        f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


def java_home() -> str:
    r = subprocess.run([str(ROOT / "scripts/java-home.sh")], capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout.strip():
        raise SystemExit(f"bench: no JDK >= 21 found (scripts/java-home.sh): {r.stderr.strip()}")
    return r.stdout.strip()


class Terminated(Exception):
    pass


def _on_sigterm(signum, frame):
    raise Terminated()


class Bench:
    def __init__(self, prof: dict, cells: list[profile.CellPlan], *, results_dir: Path | None, ports: services.Ports,
                 work_dir: Path, java: str, target: targets.Target | None = None):
        self.prof = prof
        # already-running services to measure (make bench TARGET=...); None: the bench starts its own
        self.target = target
        self.target_plan: targets.Plan | None = None
        self.cells = cells
        self.settings = prof["settings"]
        self.results_dir = results_dir
        self.ports = ports
        self.work = work_dir
        self.java = java
        self.java_bin = str(Path(java) / "bin" / "java")
        self.scale = self.settings["seed_scale"]
        self.db_name = f"tandem_bench_s{self.scale}"
        self.notes: list[str] = []
        self.servers = services.Servers()
        self.placement = cpu.Placement.plan(os.cpu_count() or 1, self.settings.get("cpus")) if not target else \
            cpu.Placement("none", None, None, "against a target: nothing pinned (its processes are not the bench's)")
        self.services = services.Services(self.java_bin, ports, self.db_name, work_dir / "logs", say=say,
                                          java_opts=JAVA_OPTIONS + self.placement.service_java_options(),
                                          launch_prefix=self.placement.service_launch_prefix())
        self.keyfiles = keys.KeyFiles(work_dir / "keys", self.scale, self.settings["hot_keys"])
        self.proto_paths: list[str] = []
        self.encoder: wire.Encoder | None = None
        self.runs: dict[str, CellRun] = {}
        self.body_bytes: dict[tuple, float] = {}
        self.heap_max: int | None = None
        self.sampler = cpu.Sampler()
        self.order = 0
        self.t0 = time.monotonic()
        self.measure_t0 = None
        self.cache_endpoint_missing = False
        self.write_token: str | None = None
        self.load_at_start = (0.0, 0.0, 0.0)
        # the certificate of the TLS cells (scripts/tls-cert.sh), made when the profile has any
        self.tls_files: services.TlsFiles | None = None

    # ------------------------------------------------------------ helpers

    def invocation(self, cell: profile.CellPlan, *, executor: str, vus: int, duration: float | None, which: str,
                   tag: str, iterations: int | None = None, rate: float | None = None, raw: bool = False,
                   key_list: list | None = None, tool: str | None = None) -> loadgen.Invocation:
        keys_file, n = self.keyfiles.get(cell.protocol, cell.operation, cell.page_size, which, key_list)
        if executor == "shared-iterations" and iterations is None:
            iterations = n
        tool = tool or cell.tool
        stem = f"{cell.id}-{tag}"
        inv = loadgen.Invocation(
            protocol=cell.protocol, tool=tool, operation=cell.operation,
            method=keys.GRPC_METHODS[cell.operation] if cell.protocol == "grpc" else None,
            executor=executor, vus=vus, duration=duration, keys_file=keys_file,
            out_file=self.work / "out" / f"{stem}.json", log_file=self.work / "logs" / f"{tool}.log",
            iterations=iterations, rate=rate, tls=cell.tls, prefix=self.placement.generator_prefix(), raw=raw,
            streams=cell.streams if tool == "h2load" else 1, encoding=cell.encoding, http=cell.http,
            compression=cell.compression, revalidate=cell.revalidate)
        if tool in ("h2load", "oha") and cell.protocol == "rest":
            base = self.rest_base(cell.tls)
            inv.uris_file = loadgen.absolute_uris(base, keys_file, keys_file.with_suffix(f".{base.split(':')[0]}.uris"))
        if tool == "h2load" and cell.protocol == "grpc":
            first = json.loads(keys_file.read_text())[0]
            gzip_call = cell.compression == "gzip"
            frame_file = keys_file.with_suffix(".gz.frame" if gzip_call else ".frame")
            frame_file.write_bytes(wire.frame(self.encoder.encode(inv.method, first), compressed=gzip_call))
            inv.request_frame = frame_file
        return inv

    def rest_base(self, tls: bool) -> str:
        """Where a cell's REST requests go: the target's, else the plain or TLS port of ours."""
        return self.target.rest_base if self.target else self.ports.rest_base_for(tls)

    def grpc_address(self, tls: bool) -> str:
        return self.target.grpc_address if self.target else self.ports.grpc_address_for(tls)

    def ca_file(self) -> Path | None:
        if self.target:
            return self.target_ca()
        return self.tls_files.certificate if self.tls_files else None

    def generate(self, inv: loadgen.Invocation) -> loadgen.Outcome:
        try:
            return loadgen.run(inv, grpc_address=self.grpc_address(inv.tls), rest_base=self.rest_base(inv.tls),
                               proto_paths=self.proto_paths, ca_file=self.ca_file(),
                               on_start=lambda pid: self.sampler.track("generator", pid))
        finally:
            self.sampler.flush()
            self.sampler.untrack("generator")

    def target_ca(self) -> Path | None:
        """The CA a TLS target's certificates are checked against: ca=FILE, else the system's."""
        if not self.target or not self.target.tls:
            return None
        return self.target.ca_file or Path("/etc/ssl/certs/ca-certificates.crt")

    def flush_caches(self) -> None:
        """L2 and the L1 of both services. Each flush also tells the other instance (through the
        invalidation log) to flush its L1; the pause lets that row be followed."""
        if self.target:
            if self.target.flush_base:
                cachestats.flush(self.target.flush_base, token=self.write_token)
                time.sleep(1.0)
            return
        for protocol in ("grpc", "rest"):
            cachestats.flush(self.ports.management_base(protocol), token=self.write_token)
        time.sleep(0.3)

    def read_cache(self, protocol: str) -> dict | None:
        if self.target:
            # every instance's counters summed, or nothing: one instance's are not the service's
            if not (self.target_plan and self.target_plan.hit_ratios):
                return None
            try:
                return targets.combine([targets.read_instance(b) for b in self.target.management_bases(protocol)])
            except cachestats.CacheEndpointError as e:
                self._cache_missing(e)
                return None
        try:
            return cachestats.read(self.ports.management_base(protocol))
        except cachestats.CacheEndpointError as e:
            self._cache_missing(e)
            return None

    def _cache_missing(self, e) -> None:
        if not self.cache_endpoint_missing:
            self.notes.append(f"cache counters could not be read ({e}); hit ratios are null")
            self.cache_endpoint_missing = True

    def management_base(self, protocol: str) -> str | None:
        if self.target:
            bases = self.target.management_bases(protocol)
            return bases[0] if len(bases) == 1 else None   # one instance's JVM is not the service's
        return self.ports.management_base(protocol)

    def read_service(self, cell: profile.CellPlan) -> dict:
        base = self.management_base(cell.protocol)
        if base is None:
            return {"jitMs": None, "jitCpuMs": None, "gcPauseMs": None, "gcPauses": None, "okCalls": None,
                    "heapMaxBytes": None}
        out = probes.jvm_and_calls(base, cell.protocol, cell.operation,
                                   keys.GRPC_METHODS[cell.operation] if cell.protocol == "grpc" else None)
        out["jitCpuMs"] = self.compiler_cpu_ms(cell.protocol)
        return out

    def compiler_cpu_ms(self, protocol: str) -> float | None:
        """CPU ms the service's JIT compiler threads have used (None against a target: its
        processes are not on this machine's /proc, or not ours to read)."""
        if self.target:
            return None
        pid = self.services.pids().get(SERVICE_NAMES[protocol])
        seconds = cpu.compiler_seconds(pid) if pid else None
        return seconds * 1000 if seconds is not None else None

    def read_db(self) -> dict:
        return probes.db_counters() if not self.target else {"rowsRead": None, "queries": None}

    # ------------------------------------------------------------ phases

    def start_services(self, mode: str, tls: bool, start: int, http2: bool = False) -> None:
        """tls: also serve TLS on the extra ports (the mode has TLS cells); http2: REST speaks HTTP/2
        too (the mode has REST cells over HTTP/2; an HTTP/1.1 client still gets HTTP/1.1)."""
        if tls and self.tls_files is None:
            self.tls_files = services.tls_certificate()
        p = self.ports
        tls_ports = f"; over TLS REST {p.rest_base_for(True)}, gRPC {p.grpc_address_for(True)}" if tls else ""
        say(f"\nbench: start {start + 1}: rest-service and grpc-service with TANDEM_CACHE_MODE={mode}"
            f" (REST {p.rest_base}{' with HTTP/2' if http2 else ''}, gRPC {p.grpc_address}{tls_ports}) ...")
        seconds = self.services.start(mode, self.tls_files if tls else None, http2=http2)
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

    def jit_warmup(self, mode: str, cells: list[profile.CellPlan]) -> None:
        """Both wires, every operation, excluded, in passes until the JIT of both services has
        settled: each pass drives the hot keys of every operation for JIT_PASS_SECONDS with as many
        users as the busiest measured cell (at most JIT_MAX_CONCURRENCY) with the native generators, on
        each port (plain, TLS) the operation's cells use (oha, h2load: tens of thousands of calls a
        second, so the hot paths reach C2 sooner than under k6). The first pass is first contact:
        one call per connection, counted rather than timed; with a cache it also sends k6 over
        keys reserved for it, so the miss path (L2 miss, JDBC, fill) is compiled before the first
        counted cold window. It stops after the first pass in which neither service's compiler
        threads used more than JIT_SETTLED_SHARE of a core, or once jit_warmup_seconds have
        passed. A fixed 8 s left the first window of each start compiling for its whole 3 s (runs
        results/20261124T030625Z-quick-b16f784 and results/20261124T032104Z-quick-b16f784)."""
        cap = self.settings["jit_warmup_seconds"]
        if cap <= 0:
            return
        # per operation, every way a cell reaches a service (port, representation, HTTP version,
        # compression), and the plain default on both wires, so that both services warm together
        ops: dict[tuple, set[tuple]] = {}
        for c in cells:
            ways = ops.setdefault((c.operation, c.page_size), {("rest", False, "json", "1.1", "identity"),
                                                               ("grpc", False, "protobuf", "2", "identity")})
            ways.add((c.protocol, c.tls, c.encoding, c.http, c.compression))
        measured = [c.concurrency for c in cells if c.sweep is None] or [c.concurrency for c in cells]
        conc = min(JIT_MAX_CONCURRENCY, max(measured))
        t0 = time.monotonic()
        passes, shares = 0, {}
        while True:
            before, p0 = self.compile_ms(), time.monotonic()
            for (op, size), ways in ops.items():
                invs = []
                for protocol, tls, encoding, http, compression in sorted(ways):
                    native = "oha" if protocol == "rest" else "h2load"
                    fake = profile.CellPlan(protocol, native, op, size, mode, "none", "closed", conc, None,
                                            JIT_PASS_SECONDS, 0, 1, tls=tls, encoding=encoding, http=http,
                                            compression=compression)
                    if passes == 0:
                        # first contact: one call per connection, counted rather than timed. The
                        # first calls of a fresh service can take longer than a pass, and h2load
                        # over TLS whose duration ends while its clients are still shaking hands never
                        # exits (reproduced by SIGSTOPping the service for 1.5 s of a 1 s run: hung
                        # until killed; --requests does not hang), which cost every hybrid start
                        # JIT_HANG_SECONDS
                        invs.append(self.invocation(fake, executor="shared-iterations", vus=conc,
                                                    duration=None, iterations=conc, which="hot", tag="jit-first"))
                    else:
                        invs.append(self.invocation(fake, executor="constant-vus", vus=conc,
                                                    duration=JIT_PASS_SECONDS, which="hot", tag="jit"))
                    invs[-1].hang_seconds = JIT_HANG_SECONDS
                for protocol in ("rest", "grpc"):
                    if passes == 0 and mode != "none" and op != "Hello":
                        # the miss path (L2, JDBC, fill) is the same code behind either port
                        fake = profile.CellPlan(protocol, "k6", op, size, mode, "none", "closed", conc, None,
                                                JIT_MISS_SECONDS, 0, 1)
                        miss = keys.jit_miss_keys(op, self.scale, size, self.settings["hot_keys"])
                        invs.append(self.invocation(fake, executor="shared-iterations", vus=conc,
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
            passes += 1
            shares = probes.compile_shares(before, self.compile_ms(), time.monotonic() - p0)
            settled = bool(shares) and all(share < JIT_SETTLED_SHARE for share in shares.values())
            if settled or not shares or time.monotonic() - t0 >= cap:
                break
        names = ", ".join(f"{o}{s or ''}" + (f" ({len(w)} ways)" if len(w) > 2 else "") for (o, s), w in ops.items())
        if not shares:
            state = "compile time not readable, one pass"
        else:
            state = "settled" if settled else f"still compiling at the {cap:g} s cap"
            state += " (share of the last pass spent compiling: " + \
                ", ".join(f"{p} {share:.0%}" for p, share in shares.items()) + ")"
        say(f"bench: JIT warm-up ({names} on both wires, {conc} VUs, hot keys and the miss path): "
            f"{passes} pass(es) in {time.monotonic() - t0:.0f} s, {state}; excluded from the figures")

    def compile_ms(self) -> dict[str, float | None]:
        """Each service's cumulative JIT compiler CPU (ms); against a target, which the bench cannot
        see in /proc, the JVM's own compilation time; None where neither can be read."""
        out = {}
        for protocol in ("rest", "grpc"):
            out[protocol] = self.compiler_cpu_ms(protocol)
            base = self.management_base(protocol)
            if out[protocol] is None and base:
                out[protocol] = probes.jvm_and_calls(base, protocol, "Hello", None)["jitMs"]
        return out

    def _generate_quiet(self, inv: loadgen.Invocation) -> loadgen.Outcome:
        """A generator run that is not a window (no CPU tracking)."""
        return loadgen.run(inv, grpc_address=self.grpc_address(inv.tls), rest_base=self.rest_base(inv.tls),
                           proto_paths=self.proto_paths, ca_file=self.ca_file())

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
        if cell.temperature == "warm" and (requests < hot_n or cell.tool == "h2load"):
            # every hot key once (h2load asks one key only): shared iterations over the hot set
            self._generate_quiet(self.invocation(cell, executor="shared-iterations", tool="k6",
                                                 vus=min(cell.concurrency, hot_n), duration=None, which="hot",
                                                 tag="priming"))
        self.settle_jit(cell)

    def settle_jit(self, cell: profile.CellPlan) -> None:
        """More warm-up, in steps of JIT_SETTLE_STEP_SECONDS at the cell's load, until the measured
        service compiles for less than JIT_SETTLED_SHARE of a step (at most JIT_SETTLE_MAX_SECONDS):
        on one core, a window that starts while C2 is still compiling the cell's path measures the
        compiler (results/20261124T023939Z-quick-8788d64: first windows with 3 s of JIT in 3 s ran
        at a sixth of the next ones). There is no early stop on a plateau: a step that compiles
        the whole time compiles about as much as the one before, which read as "steady" and
        ended the settling exactly when it was needed most."""
        spent = 0.0
        while spent < JIT_SETTLE_MAX_SECONDS:
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

    def cold_keys(self, cell: profile.CellPlan, start: int, rnd: int) -> list:
        """The slice of never-asked keys of this cell's window (start, round)."""
        cold_cells = [c for c in self.cells if c.temperature == "cold" and c.operation == cell.operation
                      and c.page_size == cell.page_size]
        per_cell = max(c.windows for c in cold_cells)
        slices = keys.cold_slices(cell.operation, self.scale, cell.page_size, self.settings["hot_keys"],
                                  len(cold_cells) * per_cell)
        index = cold_cells.index(cell) * per_cell + start * cell.repetitions + rnd
        return slices[index]

    def window(self, cell: profile.CellPlan, start: int, rnd: int) -> None:
        run = self.runs[cell.id]
        self.order += 1
        which, key_list = "hot", None
        if cell.temperature == "cold":
            which, key_list = f"cold-s{start}-r{rnd}", self.cold_keys(cell, start, rnd)
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
        outcome = self.generate(inv)
        cache_after, service_after, db_after = self.read_cache(cell.protocol), self.read_service(cell), self.read_db()
        if not self.target:
            self.services.check_alive()
        if service_after.get("heapMaxBytes"):
            self.heap_max = service_after["heapMaxBytes"]
        hit = None
        notes = list(outcome.notes)
        if cache_before is not None and cache_after is not None and cell.cache_mode != "none":
            hit, ratio_notes = cachestats.hit_ratio(cache_before, cache_after, cell.operation)
            notes += ratio_notes + cachestats.health_notes(cache_before, cache_after)
        elif cache_before is not None and cache_after is not None and cell.operation != "Hello":
            r, _ = cachestats.hit_ratio(cache_before, cache_after, cell.operation)
            if any(v is not None for v in r.values()):
                notes.append(f"cache mode none but the cache counters moved {r}")
        calls = probes.delta(service_before, service_after)
        run.add_window(windows.build(
            cell, start=start, rnd=rnd, order=self.order, outcome=outcome, sampler=self.sampler,
            generator_cores=self.placement.generator_cores, hit_ratio=hit, service_delta=calls,
            db_delta=probes.delta(db_before, db_after), n_keys=n_keys, notes=notes,
            measured_service=SERVICE_NAMES[cell.protocol], cpu_names=CPU_NAMES))

    def sweep(self, cells: list[profile.CellPlan]) -> None:
        """One sweep's points in ascending rate, each after a short warm-up at its rate, until a
        point's p99 or dropped arrivals pass the sweep's limits (that point is the last)."""
        for cell in sorted(cells, key=lambda c: c.target_rate):
            self.runs[cell.id] = CellRun(cell)
            self.window(cell, 0, 0)
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

    # ------------------------------------------------------------ the run

    def run(self) -> dict:
        started = datetime.now(timezone.utc)
        commit = environment.git("rev-parse", "--short=7", "HEAD") or "nogit"
        run_id = f"{started:%Y%m%dT%H%M%SZ}-{self.prof['name']}-{commit}"
        for jar in (REST_JAR, GRPC_JAR):
            if not jar.exists():
                raise services.ServiceError(f"missing {jar.relative_to(ROOT)}: build first (./mvnw -B -q package -DskipTests)")
        # DELETE /actuator/cache is a write: one token for the whole run, minted as `make token` does
        # (a target's own token in TANDEM_TOKEN wins: its secret need not be known here)
        self.write_token = os.environ.get("TANDEM_TOKEN") if self.target else None
        self.write_token = self.write_token or services.mint_write_token(self.java_bin)
        if self.target:
            self.prepare_target()
        else:
            self.servers.start()
            self.notes.append(services.ensure_seeded(self.java_bin, self.db_name, self.scale,
                                                     self.work / "logs" / "seed.log", say=say))
        self.placement.pin_self()
        server_pids = services.server_pids() if not self.target else {}
        self.placement.pin_services(server_pids.values())
        env = environment.collect(self.java_bin)
        env.update(h2load=loadgen.tool_version("h2load"), oha=loadgen.tool_version("oha"),
                   placement=self.placement.describe())
        if self.target:
            # the local servers' versions say nothing of the target's; its endpoints say where it was
            env.update(redis=None, mariadb=None, target=self.target.describe(),
                       loadGeneratorNote="the generators ran on this machine against the target "
                                         f"{self.target.rest_base} / {self.target.grpc_address}; whether they "
                                         "shared cores with it is not known to the bench.")
        else:
            env["loadGeneratorNote"] = self.placement.note
        self.proto_paths = loadgen.extract_protos(GRPC_JAR, self.work / "protos")
        self.encoder = wire.Encoder(wire.descriptor_set(self.proto_paths, self.work / "protos" / "tandem.protoset"))
        starts = profile.service_configs_in_order(self.cells)
        n = len(self.cells)
        say(f"bench: run {run_id}: {n} cells, {sum(c.windows for c in self.cells)} windows over "
            f"{sum(max(c.starts for c in self.cells if c.service_config == s) for s in starts)} service starts; about "
            f"{mmss(profile.estimate_seconds(self.prof, self.cells))} of measuring")
        self.load_at_start = os.getloadavg()
        self.measure_t0 = time.monotonic()
        with self.sampler:
            self.sampler.track("bench", os.getpid())
            for name, pid in server_pids.items():
                self.sampler.track(name, pid)
            for mode in starts:
                self.measure_config(mode)
        self.services.stop()
        if not self.target:
            self.placement.release(server_pids.values())
        finished = datetime.now(timezone.utc)
        return self.assemble(run_id, started, finished, env)

    def measure_config(self, mode: str) -> None:
        cells = [c for c in self.cells if c.service_config == mode]
        tls = any(c.tls for c in cells)
        http2 = any(c.protocol == "rest" and c.http == "2" for c in cells)
        rounds_cells = [c for c in cells if c.sweep is None]
        sweeps: dict[str, list] = {}
        for c in cells:
            if c.sweep:
                sweeps.setdefault(c.sweep, []).append(c)
        n_starts = 1 if self.target else max(c.starts for c in cells)
        for c in rounds_cells:
            self.runs[c.id] = CellRun(c)
        for start in range(n_starts):
            if self.target:
                self.check_target_mode(mode)
            else:
                self.start_services(mode, tls, start, http2)
            self.jit_warmup(mode, cells)
            if not self.target:
                self.pin_services()
                self.measure_body_bytes(cells)
            warmed: set[str] = set()
            rounds = max((c.repetitions for c in rounds_cells), default=0)
            for rnd in range(rounds):
                for cell in interleave([c for c in rounds_cells if rnd < c.repetitions and start < c.starts],
                                       start * rounds + rnd):
                    if cell.id not in warmed:
                        self.warm_up(cell)
                        warmed.add(cell.id)
                    self.window(cell, start, rnd)
                    self.progress(cell)
            if start == n_starts - 1:
                for sweep_cells in sweeps.values():
                    self.sweep(sweep_cells)
        if not self.target:
            self.services.stop()

    def measure_body_bytes(self, cells: list[profile.CellPlan]) -> None:
        """Mean response body bytes per (protocol, operation, page size, encoding, compression) as
        they travelled, fetched with curl over the first hot keys: the same client and the same
        count on both wires; each cell's own kind, and JSON and Protobuf uncompressed (the
        headline's JSON ÷ Protobuf)."""
        for c in cells:
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

    def progress(self, cell: profile.CellPlan) -> None:
        w = self.runs[cell.id].windows[-1]
        elapsed = time.monotonic() - self.t0
        hit = w["hitRatio"]["overall"]
        flags = ", ".join(f["code"] for f in w["flags"])
        say(f"[{self.order}] {cell.id} s{w['start'] + 1}r{w['round'] + 1}: {w['throughputRps']:,.0f} ok/s, "
            f"p50 {windows.fmt_ms(w['latencyMs']['p50'])}, hit {'-' if hit is None else f'{hit:.1%}'}, "
            f"generator {w['generatorCores']:.2f} cores{f', FLAGS {flags}' if flags else ''} | {mmss(elapsed)}"
            if w["generatorCores"] is not None else
            f"[{self.order}] {cell.id}: {w['throughputRps']:,.0f} ok/s | {mmss(elapsed)}")

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

    def check_target_mode(self, mode: str) -> None:
        """The target still runs the mode planned for (nobody restarted it in between)."""
        readings = self.target_readings() or [targets.read_instance(self.target.rest_base)]
        wrong = {r.base: r.mode for r in readings if r.mode != mode}
        if wrong:
            raise services.ServiceError(f"planned for cache mode {mode}, the target now reports {wrong}")
        say(f"bench: target {self.target.rest_base} / {self.target.grpc_address} runs cache mode {mode}")

    def assemble(self, run_id: str, started: datetime, finished: datetime, env: dict) -> dict:
        draws = pooled.Plans(seed=zlib.crc32(run_id.encode()))
        records = []
        for cell_id, run in self.runs.items():
            if not run.windows:
                continue
            c = run.plan
            # a 304 has no body
            body = 0.0 if c.revalidate else self.body_bytes.get(body_key(c))
            summary, cell_flags = run.summary(draws.for_group(headline.group_of(c), list(run.data)), body)
            window_flags = [dict(f, reason=f"start {w['start'] + 1} round {w['round'] + 1}: {f['reason']}")
                            for w in run.windows for f in w["flags"]]
            for w in run.windows:
                self.notes += [f"{c.id} start {w['start'] + 1} round {w['round'] + 1}: {n}" for n in w.pop("notes")]
            records.append({
                "id": c.id, "protocol": c.protocol, "tool": c.tool, "transport": c.transport,
                "operation": c.operation, "pageSize": c.page_size, "cacheMode": c.cache_mode,
                "temperature": c.temperature, "model": c.model, "concurrency": c.concurrency,
                # k6 connects once per VU; ghz and oha are told connections = concurrency; h2load
                # multiplexes `streams` requests per connection
                "connections": c.connections, "targetRate": c.target_rate,
                "durationSeconds": c.duration_seconds, "warmupSeconds": c.warmup_seconds,
                "repetitions": c.repetitions, "starts": 1 if self.target else c.starts, "tls": c.tls,
                "encoding": c.encoding, "http": c.http, "compression": c.compression,
                "revalidate": c.revalidate, "sweep": c.sweep, "role": c.role, "windows": run.windows, "summary": summary,
                "flags": window_flags + cell_flags, "headlineEligible": bool(run.eligible()),
            })
        fits, fit_notes = stats.fits_from_cells([r for r in records if r["model"] == "closed" and r["concurrency"] > 1])
        head = headline.compute(self.runs, draws, self.body_bytes)
        sweeps = sweep_records(records, self.cells)
        hot = self.settings["hot_keys"]
        resolved = {
            "database": None if self.target else self.db_name,
            "ports": None if self.target else
            {"rest": self.ports.rest, "grpc": self.ports.grpc, "grpcManagement": self.ports.grpc_management,
             **({"restTls": self.ports.rest_tls, "grpcTls": self.ports.grpc_tls} if self.tls_files else {})},
            "hotKeys": hot,
            "helloEndpoints": {"rest": "GET /api/v1/hello", "grpc": keys.GRPC_METHODS["Hello"]},
            "bootstrapReplicates": draws.replicates,
            "source": self.prof["source"],
        }
        if self.tls_files:
            resolved["tlsCertificate"] = str(self.tls_files.certificate)
        env["jvm"] = {"options": self.services.java_opts, "heapMaxBytes": self.heap_max}
        load_end = os.getloadavg()
        notes = [
            f"Placement: {self.placement.note}.",
            "Throughput counts successful requests only, per second of the measured span (first request sent to "
            "last response); errors are their own figure. Latency percentiles are pooled from every window's "
            "requests (HdrHistogram), and reported only with enough samples (p99 from 1,000, p99.9 from 10,000).",
            "Intervals: bootstrap 95 % over service starts and rounds (two-level), "
            f"{draws.replicates} replicates; cells of the same service processes are resampled together.",
            "Latency figures that mean latency come from one-user cells and open-model cells (role latency); "
            "closed cells at many users measure capacity, and their p50 is queueing.",
            f"Machine load average (1/5/15 min) before measuring: "
            f"{' / '.join(f'{x:.2f}' for x in self.load_at_start)}; at the end: "
            f"{' / '.join(f'{x:.2f}' for x in load_end)}.",
            "Cold windows: each asks keys no earlier window, start or warm-up asked (caches flushed at every service "
            f"start, the keys cut into one disjoint slice per window); warm windows cycle over the {hot} hot keys "
            "primed by the cell's warm-up. The miss path is JIT-warmed on keys of its own before any window.",
            "Body bytes: the same responses fetched with curl on both wires (JSON body; Protobuf message without "
            "the gRPC frame's 5-byte prefix). h2load sends one pre-encoded request (the first hot key) per cell; "
            "its gRPC successes are checked against the service's own count of successful calls.",
            *([TLS_NOTE] if any(c.tls for c in self.cells) else []),
            *self.notes, *condense_fit_notes(fit_notes),
        ]
        return {
            "schemaVersion": 2, "runId": run_id, "startedAt": iso(started), "finishedAt": iso(finished),
            "profile": {"name": self.prof["name"], "description": self.prof["description"],
                        **{k: v for k, v in self.prof["settings"].items()}, "matrix": self.prof["matrix"],
                        "sweep": self.prof.get("sweep", []), "resolved": resolved},
            "environment": env, "cells": records, "sweeps": sweeps, "fits": fits, "headline": head,
            "notes": notes,
        }


def jit_reading(service: dict) -> float | None:
    """The JIT's cumulative cost in ms: its compiler threads' CPU where the bench can read it, else
    the JVM's compilation time."""
    return service["jitCpuMs"] if service.get("jitCpuMs") is not None else service.get("jitMs")


def sweep_records(records: list[dict], plans: list) -> list[dict]:
    """One record per sweep: its points in ascending rate and the knee (the last rate whose p99
    and dropped arrivals stayed within the limits, when a later one passed them)."""
    out = {}
    limits = {c.sweep: c.sweep_limits for c in plans if c.sweep}
    for r in records:
        if not r["sweep"]:
            continue
        s = out.setdefault(r["sweep"], {
            "id": r["sweep"], "protocol": r["protocol"], "tool": r["tool"], "operation": r["operation"],
            "pageSize": r["pageSize"], "cacheMode": r["cacheMode"], "temperature": r["temperature"], "tls": r["tls"],
            "limits": {"p99Ms": limits[r["sweep"]][0], "dropRate": limits[r["sweep"]][1]}, "points": [], "knee": None})
        sm = r["summary"]
        s["points"].append({"cellId": r["id"], "targetRate": r["targetRate"], "achievedRate": sm["achievedRate"],
                            "throughputRps": sm["throughputRps"]["value"], "p50": sm["latencyMs"]["p50"],
                            "p99": sm["latencyMs"]["p99"], "p999": sm["latencyMs"]["p999"],
                            "droppedIterations": sm["droppedIterations"], "errorRate": sm["errorRate"],
                            "flags": r["flags"]})
    for s in out.values():
        s["points"].sort(key=lambda p: p["targetRate"])
        p99_limit, drop_limit = s["limits"]["p99Ms"], s["limits"]["dropRate"]
        good = None
        for p in s["points"]:
            due = p["targetRate"]
            dropped = (p["droppedIterations"] or 0) / max(due, 1)
            broke = (p["p99"] is not None and p["p99"] > p99_limit) or dropped > drop_limit or \
                (p["achievedRate"] is not None and p["achievedRate"] < windows.RATE_SHORT * due)
            if broke:
                if good:
                    why = (f"p99 {p['p99']:.3g} ms above {p99_limit:g} ms" if p["p99"] and p["p99"] > p99_limit
                           else "arrivals dropped or started late")
                    s["knee"] = {"targetRate": good["targetRate"], "throughputRps": good["throughputRps"],
                                 "reason": f"{why} at {due:g}/s; {good['targetRate']:g}/s was the last rate within limits"}
                break
            good = p
    return list(out.values())


def body_key(c: profile.CellPlan) -> tuple:
    """What a cell's response bodies look like: the same for every cell that asks the same way."""
    return c.protocol, c.operation, c.page_size, c.encoding, c.compression


TLS_NOTE = (
    "TLS cells (tls: true): the same service processes as the plain cells, through a second port each that "
    "serves the API over TLS (tandem.tls.extra-port; a self-signed P-256 certificate from scripts/tls-cert.sh): "
    "REST is HTTP/1.1 over TLS, gRPC HTTP/2 over TLS (ALPN h2). "
    "k6 and ghz verify the certificate (k6 through SSL_CERT_FILE, ghz with --cacert), not skip "
    "verification; each connection shakes hands once, before the window's steady state. Their wire "
    "bytes include TLS's overhead (record headers and authentication tags, and the handshake of "
    "connections opened in the window), so they exceed the plain cells' by more than the payload. "
    "Compare TLS with plain through the tlsOverPlain* ratios, which pair cells of this run only.")


def condense_fit_notes(notes: list[str]) -> list[str]:
    """stats.fits_from_cells says, for every ListGroups cell group measured at one page size only,
    that it has no fit; one line says the same for all of them."""
    single = [n for n in notes if n.startswith("no A + B·N fit") and "got [" in n]
    other = [n for n in notes if n not in single]
    if single:
        other.append(f"no A + B·N fit for {len(single)} ListGroups cell group(s) measured at a single page size "
                     "(a fit needs two or more)")
    return other


def parse_ports(text: str) -> services.Ports:
    try:
        ports = [int(x) for x in text.split(",")]
    except ValueError:
        ports = []
    if len(ports) not in (3, 5):
        raise argparse.ArgumentTypeError("--ports wants REST,GRPC,GRPC_MANAGEMENT[,REST_TLS,GRPC_TLS], "
                                         "e.g. 18080,19090,18081,18443,19443")
    return services.Ports(*ports)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make bench", description="Tandem bench: see loadtest/README.md")
    parser.add_argument("--profile", default="quick", help="quick (default), full, smoke, or a path to a .toml")
    parser.add_argument("--results-dir", type=Path, default=None, help="default: results/ at the repository root")
    parser.add_argument("--work-dir", type=Path, default=None, help="logs, key files, raw outputs (default .run/bench/<run>)")
    parser.add_argument("--ports", type=parse_ports, default=services.Ports(), help="REST,GRPC,GRPC_MANAGEMENT[,REST_TLS,GRPC_TLS] (the TLS ports serve TLS cells)")
    parser.add_argument("--dry-run", action="store_true", help="list the cells and the estimated time, measure nothing")
    parser.add_argument("--keep-raw", action="store_true",
                        help="keep the generators' raw outputs (per-request samples) under the work dir's out/")
    parser.add_argument("--target", default=None,
                        help="measure already-running services: rest=URL,grpc=HOST:PORT[,rest-mgmt=URL]..."
                             "[,grpc-mgmt=URL]...[,ca=FILE] (see tandem_bench/target.py)")
    args = parser.parse_args(argv)
    target = None
    if args.target:
        try:
            target = targets.parse(args.target)
        except targets.TargetError as e:
            say(f"bench: TARGET: {e}")
            return 2

    try:
        prof = profile.load(args.profile)
        cells = profile.expand(prof)
    except profile.ProfileError as e:
        say(f"bench: {e}")
        return 2
    problems = profile.check_scale(prof, cells)
    if problems:
        say("bench: the profile does not fit its seed scale:\n  " + "\n  ".join(problems))
        return 2
    if args.dry_run:
        say(profile.describe(cells))
        say(f"{len(cells)} cells, modes {', '.join(profile.modes_in_order(cells))}; about "
            f"{mmss(profile.estimate_seconds(prof, cells))} of measuring (without build, seeding)")
        return 0

    loadgen.KEEP_RAW = args.keep_raw
    work = args.work_dir or ROOT / ".run" / "bench" / datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    work.mkdir(parents=True, exist_ok=True)
    bench = Bench(prof, cells, results_dir=args.results_dir, ports=args.ports, work_dir=work, java=java_home(),
                  target=target)
    previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        run = bench.run()
    except (KeyboardInterrupt, Terminated):
        say("\nbench: interrupted; stopping what it started")
        return 130
    except (services.ServiceError, loadgen.LoadGenError, cachestats.CacheEndpointError, targets.TargetError,
            subprocess.CalledProcessError) as e:
        say(f"\nbench: FAILED: {e}\n(logs in {work / 'logs'})")
        return 1
    finally:
        bench.services.stop()
        bench.servers.stop()
        signal.signal(signal.SIGTERM, previous)
    try:
        path = results.write_run(run, args.results_dir)
    except results.InvalidRun as e:
        broken = work / "run.invalid.json"
        broken.write_text(json.dumps(run, indent=1))
        say(f"bench: the run does not pass the schema, not written ({broken} kept):\n{e}")
        return 1
    for scratch in ("keys", "protos") if args.keep_raw else ("keys", "out", "protos"):  # the logs stay
        shutil.rmtree(work / scratch, ignore_errors=True)
    say("\n" + report.summary(run))
    say(f"\nbench: wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path} "
        f"in {mmss(time.monotonic() - bench.t0)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
