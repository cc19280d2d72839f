"""`make bench`: measure every cell of a profile against freshly started services and write
results/<run-id>/run.json.

    python loadtest/bench.py [--profile quick|full|smoke|path.toml] [--results-dir DIR] [--dry-run]
                             [--target rest=URL,grpc=HOST:PORT,...]

With --target (make bench TARGET=...) the bench measures services that are already running
instead: steps 1-3 below are replaced by target.py's checks and plan (no servers or services
started, nothing seeded, only the cells of the cache mode and TLS setting the target reports).

What happens, in order (scripts/bench.sh has already installed the tools and built the jars):
  1. MariaDB and Redis are started if they are not running (and stopped at the end if so).
  2. The bench database tandem_bench_s<scale> is seeded unless it already holds that scale.
  3. Per cache mode of the profile (none, local, redis, hybrid), and within it per TLS setting of
     its cells (plain first, then TLS: one more start only for a mode that has TLS cells): both
     services are (re)started with TANDEM_CACHE_MODE=<mode> (and TANDEM_TLS_ENABLED with a
     certificate from scripts/tls-cert.sh) on the bench's own ports, the mode they report is
     checked, and the JIT is warmed (a run per operation on both wires, excluded) before the first
     counted cell.
  4. Per cell: a warm-up run at the cell's concurrency on the hot key set (excluded; for a warm
     cell it is also the priming pass and must touch every hot key, else a priming pass follows);
     then `repetitions` measured windows. Cold windows start from flushed caches (L1 of both
     services and L2) and give every request a key never asked before (shared iterations over the
     cold keys); warm and no-cache windows cycle over the hot keys. Around each window the
     service's cache counters (and, for gRPC, its response-size summary) are read, so hit ratios
     and Protobuf body bytes are that window's deltas.
  5. The run is assembled (medians, spread, fits, headline ratios, notes), validated against the
     schema and written; the summary table is printed.
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
from datetime import datetime, timezone
from pathlib import Path

from . import cachestats, environment, headline, keys, loadgen, profile, report, results, services, stats
from . import target as targets

ROOT = Path(__file__).resolve().parents[2]
GRPC_JAR = ROOT / "grpc-service/target/grpc-service.jar"
REST_JAR = ROOT / "rest-service/target/rest-service.jar"

COLD_MAX_OVERALL = 0.1   # a cold cell at or above this overall hit ratio gets a note
WARM_MIN_OVERALL = 0.9   # a warm cell at or below this one too
JIT_CONCURRENCY = 16
OTHER_CPU_NOTE_CORES = 0.2   # CPU of processes outside the bench, in cores, above which a window gets a note


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
        self.services = services.Services(self.java_bin, ports, self.db_name, work_dir / "logs", say=say)
        self.keyfiles = keys.KeyFiles(work_dir / "keys", self.scale, self.settings["hot_keys"])
        self.proto_paths: list[str] = []
        self.records: list[dict] = []
        self.t0 = time.monotonic()
        self.measure_t0 = None
        self.cache_endpoint_missing = False
        self.bytes_unknown_noted = False
        self.write_token: str | None = None
        self.load_at_start = (0.0, 0.0, 0.0)
        self.other_cpu: list[tuple[float, str, int]] = []
        # the certificate of the TLS cells (scripts/tls-cert.sh), made when the profile has any
        self.tls_files: services.TlsFiles | None = None

    # ------------------------------------------------------------ helpers

    def invocation(self, cell: profile.CellPlan, *, executor: str, vus: int, duration: float | None, which: str,
                   tag: str, iterations: int | None = None, rate: float | None = None) -> loadgen.Invocation:
        keys_file, n = self.keyfiles.get(cell.protocol, cell.operation, cell.page_size, which)
        if executor == "shared-iterations" and iterations is None:
            iterations = n
        stem = f"{cell.id}-{tag}"
        return loadgen.Invocation(
            protocol=cell.protocol, tool=cell.tool, operation=cell.operation,
            method=keys.GRPC_METHODS[cell.operation] if cell.protocol == "grpc" else None,
            executor=executor, vus=vus, duration=duration, keys_file=keys_file,
            out_file=self.work / "out" / f"{stem}.json", log_file=self.work / "logs" / f"{cell.tool}.log",
            iterations=iterations, rate=rate, tls=cell.tls)

    def generate(self, inv: loadgen.Invocation) -> loadgen.Outcome:
        if self.target:
            outcome = loadgen.run(inv, grpc_address=self.target.grpc_address, rest_base=self.target.rest_base,
                                  proto_paths=self.proto_paths, ca_file=self.target_ca())
        else:
            outcome = loadgen.run(inv, grpc_address=self.ports.grpc_address, rest_base=self.ports.rest_base,
                                  proto_paths=self.proto_paths,
                                  ca_file=self.tls_files.certificate if self.tls_files else None)
        if inv.tool == "ghz":
            inv.out_file.unlink(missing_ok=True)  # ~100 bytes per call; parsed, not needed any more
        return outcome

    def target_ca(self) -> Path | None:
        """The CA a TLS target's certificates are checked against: ca=FILE, else the system's."""
        if not self.target or not self.target.tls:
            return None
        return self.target.ca_file or Path("/etc/ssl/certs/ca-certificates.crt")

    def flush_caches(self) -> None:
        """L2 and the L1 of both services. Each flush also tells the other instance (through the
        invalidation log) to flush its L1; the pause lets that row be followed before a window."""
        if self.target:
            # One flush through any instance empties L2 and reaches every instance's L1 through the
            # invalidation log; within the staleness bound (1 s) each has applied it or stopped
            # serving its L1, so the window starts after that.
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
                if not self.cache_endpoint_missing:
                    self.notes.append(f"cache counters could not be read ({e}); hit ratios are null")
                    self.cache_endpoint_missing = True
                return None
        try:
            return cachestats.read(self.ports.management_base(protocol))
        except cachestats.CacheEndpointError as e:
            if not self.cache_endpoint_missing:
                self.notes.append(f"cache counters could not be read ({e}); hit ratios are null")
                self.cache_endpoint_missing = True
            return None

    def read_bytes(self, cell: profile.CellPlan) -> tuple[float, float] | None:
        if cell.protocol != "grpc":
            return None
        if self.target:
            # the mean response size: one instance's sample of the calls is as good as all of them
            if not self.target.grpc_management:
                return None
            return services.grpc_response_bytes(self.target.grpc_management[0], keys.GRPC_METHODS[cell.operation])
        return services.grpc_response_bytes(self.ports.grpc_management_base, keys.GRPC_METHODS[cell.operation])

    # ------------------------------------------------------------ phases

    def start_mode(self, mode: str, tls: bool = False) -> None:
        if tls and self.tls_files is None:
            self.tls_files = services.tls_certificate()
        self.ports.tls = tls
        say(f"\nbench: starting rest-service and grpc-service with TANDEM_CACHE_MODE={mode}"
            f"{', TLS on' if tls else ''} (REST {self.ports.rest_base}, gRPC "
            f"{self.ports.grpc_address}{' over TLS' if tls else ''}) ...")
        seconds = self.services.start(mode, self.tls_files if tls else None)
        reported = {}
        for protocol in ("rest", "grpc"):
            reading = self.read_cache(protocol)
            reported[protocol] = reading and reading.get("mode")
        wrong = {p: m for p, m in reported.items() if m is not None and str(m).lower() != mode}
        if wrong:
            raise services.ServiceError(f"asked for cache mode {mode}, the services report {wrong}")
        say(f"bench: both services UP in {seconds:.0f} s (cache mode reported: "
            f"{', '.join(f'{p} {m}' for p, m in reported.items())})")

    def jit_warmup(self, mode: str, cells: list[profile.CellPlan], tls: bool = False) -> None:
        seconds = self.settings["jit_warmup_seconds"]
        if seconds <= 0:
            return
        ops: dict[str, int | None] = {}
        for c in cells:
            ops.setdefault(c.operation, c.page_size)
        per_op = max(1.0, seconds / len(ops))
        conc = min(JIT_CONCURRENCY, max(c.concurrency for c in cells))
        t0 = time.monotonic()
        for op, size in ops.items():
            invs = []
            for protocol in ("rest", "grpc"):
                fake = profile.CellPlan(protocol, "k6", op, size, mode, "none", "closed", conc, None, per_op, 0, 1,
                                        tls=tls)
                invs.append(self.invocation(fake, executor="constant-vus", vus=conc, duration=per_op,
                                            which="hot", tag="jit"))
            # both wires at once: each service warms its own code while the other does
            with concurrent.futures.ThreadPoolExecutor(len(invs)) as pool:
                for f in [pool.submit(self.generate, inv) for inv in invs]:
                    f.result()
        # no flush here: cold windows flush for themselves, warm ones find part of their hot set primed
        say(f"bench: JIT warm-up ({', '.join(ops)} on both wires, {conc} VUs) took {time.monotonic() - t0:.0f} s, "
            "excluded from the figures")

    def warm_up(self, cell: profile.CellPlan) -> None:
        """Excluded run at the cell's concurrency over the hot keys; for a warm cell it is the
        priming pass, so every hot key must have been asked at least once."""
        _, hot_n = self.keyfiles.get(cell.protocol, cell.operation, cell.page_size, "hot")
        requests = 0
        if cell.warmup_seconds > 0:
            out = self.generate(self.invocation(cell, executor="constant-vus", vus=cell.concurrency,
                                                duration=cell.warmup_seconds, which="hot", tag="warmup"))
            requests = out.measurement["requests"]
        if cell.temperature == "warm" and requests < hot_n:
            # every hot key once: shared iterations over the hot set
            self.generate(self.invocation(cell, executor="shared-iterations", vus=min(cell.concurrency, hot_n),
                                          duration=None, which="hot", tag="priming"))

    def window(self, cell: profile.CellPlan, rep: int) -> tuple[dict, list[str]]:
        notes = []
        if cell.temperature == "cold":
            self.flush_caches()
        which = "cold" if cell.temperature == "cold" else "hot"
        keys_file, n_keys = self.keyfiles.get(cell.protocol, cell.operation, cell.page_size, which)
        if cell.model == "open":
            inv = self.invocation(cell, executor="constant-arrival-rate", vus=cell.concurrency,
                                  duration=cell.duration_seconds, which=which, tag=f"r{rep}", rate=cell.target_rate)
        elif cell.temperature == "cold":
            inv = self.invocation(cell, executor="shared-iterations", vus=cell.concurrency,
                                  duration=cell.duration_seconds, which=which, tag=f"r{rep}")
        else:
            inv = self.invocation(cell, executor="constant-vus", vus=cell.concurrency,
                                  duration=cell.duration_seconds, which=which, tag=f"r{rep}")
        cache_before = self.read_cache(cell.protocol)
        bytes_before = self.read_bytes(cell)
        watch = services.CpuWatch([*self.services.pids().values(), *services.server_pids()])
        outcome = self.generate(inv)
        cpu = watch.stop(outcome.cpu_seconds)
        cache_after = self.read_cache(cell.protocol)
        bytes_after = self.read_bytes(cell)
        self.services.check_alive()
        # A target's processes are not the bench's to know: "outside the bench" would count them.
        if not self.target:
            self.other_cpu.append((cpu["otherCores"], cell.id, rep))
        if not self.target and cpu["otherCores"] > OTHER_CPU_NOTE_CORES:
            notes.append(f"{cell.id} rep {rep}: processes outside the bench used {cpu['otherCores']:.2f} cores "
                         f"during the window (of {os.cpu_count()}); its figures are disturbed by them")

        m = dict(outcome.measurement)
        if cache_before is not None and cache_after is not None and cell.cache_mode != "none":
            ratio, ratio_notes = cachestats.hit_ratio(cache_before, cache_after, cell.operation)
            ratio_notes += cachestats.health_notes(cache_before, cache_after)
            notes += [f"{cell.id} rep {rep}: {x}" for x in ratio_notes]
        else:
            ratio = {"l1": None, "l2": None, "overall": None}
            if cache_before is not None and cache_after is not None and cell.operation != "Hello":
                # no cache: the counters must not move; say so if they did
                r, _ = cachestats.hit_ratio(cache_before, cache_after, cell.operation)
                if any(v is not None for v in r.values()):
                    notes.append(f"{cell.id} rep {rep}: cache mode none but the cache counters moved {r}")
        m["hitRatio"] = ratio
        if cell.protocol == "grpc":
            if bytes_after is not None:
                c0, s0 = bytes_before or (0.0, 0.0)
                c1, s1 = bytes_after
                m["bodyBytes"] = (s1 - s0) / (c1 - c0) if c1 > c0 else None
            else:
                m["bodyBytes"] = None
                if self.target and not self.target.grpc_management:
                    if not self.bytes_unknown_noted:
                        notes.append("no grpc-mgmt URL in the target: Protobuf body bytes of the gRPC cells unknown")
                        self.bytes_unknown_noted = True
                else:
                    notes.append(f"{cell.id}: the gRPC service publishes no tandem_grpc_response_bytes; "
                                  "Protobuf body bytes unknown")
        m["loadGenCpuSeconds"] = outcome.cpu_seconds
        m["loadGenCpuPercent"] = 100 * outcome.cpu_seconds / outcome.wall_seconds if outcome.wall_seconds else None
        notes += outcome.notes
        if cell.temperature == "cold" and cell.tool == "k6" and cell.model == "closed" and m["requests"] >= n_keys:
            notes.append(f"{cell.id} rep {rep}: the window touched all {n_keys} cold keys and ended before "
                         f"{cell.duration_seconds:g} s; raise seed_scale for longer cold windows")
        if cell.temperature == "cold" and (cell.model == "open" or cell.tool == "ghz") and m["requests"] > n_keys:
            notes.append(f"{cell.id} rep {rep}: {m['requests']} requests over {n_keys} cold keys: keys repeated")
        return m, notes

    def measure(self, i: int, n: int, cell: profile.CellPlan) -> dict:
        self.warm_up(cell)
        runs, cell_notes = [], []
        for rep in range(1, cell.repetitions + 1):
            m, notes = self.window(cell, rep)
            runs.append(m)
            cell_notes += notes
        summary = stats.median_measurement(runs)
        record = {
            "id": cell.id, "protocol": cell.protocol, "tool": cell.tool, "operation": cell.operation,
            "pageSize": cell.page_size, "cacheMode": cell.cache_mode, "temperature": cell.temperature,
            "model": cell.model, "concurrency": cell.concurrency,
            # k6 connects once per VU, ghz is told --connections = concurrency
            "connections": cell.concurrency,
            "targetRate": cell.target_rate, "durationSeconds": cell.duration_seconds,
            "warmupSeconds": cell.warmup_seconds, "repetitions": cell.repetitions,
            "tls": cell.tls, "runs": runs, "summary": summary, "spread": stats.spread(runs),
        }
        # against a target whose counters are not all read, the plan's note already says why every
        # hit ratio is null; judging each cell by it would only repeat that
        unmeasured = self.target is not None and not self.target_plan.hit_ratios
        self.notes += cell_notes + self.judge(record, hit_ratios_measured=not unmeasured)
        return record

    @staticmethod
    def judge(cell: dict, hit_ratios_measured: bool = True) -> list[str]:
        notes = []
        s = cell["summary"]
        overall = s["hitRatio"]["overall"]
        if hit_ratios_measured and cell["temperature"] == "cold" and (overall is None or overall >= COLD_MAX_OVERALL):
            notes.append(f"{cell['id']}: cold cell with overall hit ratio "
                         f"{'unmeasured' if overall is None else f'{overall:.3f}'} (expected < {COLD_MAX_OVERALL})")
        if hit_ratios_measured and cell["temperature"] == "warm" and (overall is None or overall <= WARM_MIN_OVERALL):
            notes.append(f"{cell['id']}: warm cell with overall hit ratio "
                         f"{'unmeasured' if overall is None else f'{overall:.3f}'} (expected > {WARM_MIN_OVERALL})")
        if s["errors"]:
            notes.append(f"{cell['id']}: {s['errors']:g} failed requests (median per window, "
                         f"error rate {s['errorRate']:.2%})")
        if cell["model"] == "open" and s["achievedRate"] is not None and s["achievedRate"] < 0.95 * cell["targetRate"]:
            notes.append(f"{cell['id']}: open model achieved {s['achievedRate']:.0f}/s of the "
                         f"{cell['targetRate']:g}/s asked for (dropped iterations: {s['droppedIterations']})")
        return notes

    def progress(self, i: int, n: int, cell: profile.CellPlan, record: dict) -> None:
        s = record["summary"]
        elapsed = time.monotonic() - self.t0
        measured = time.monotonic() - self.measure_t0
        done, rest = self.cells[:i], self.cells[i:]
        est_done = profile.estimate_seconds(self.prof, done) or 1
        eta = measured / est_done * profile.estimate_seconds(self.prof, rest) if rest else 0
        hit = s["hitRatio"]["overall"]
        p50 = s["latencyMs"]["p50"]
        say(f"[{i}/{n}] {cell.id}: {s['throughputRps']:,.0f} req/s, p50 "
            f"{'-' if p50 is None else f'{p50:.3f}'} ms, hit {'-' if hit is None else f'{hit:.1%}'}, "
            f"errors {s['errors']:g}, generator CPU {s['loadGenCpuPercent'] or 0:.0f}% "
            f"| elapsed {mmss(elapsed)}, ETA {mmss(eta)}")

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
        env = environment.collect(self.java_bin)
        if self.target:
            # the local servers' versions say nothing of the target's; its endpoints say where it was
            env.update(redis=None, mariadb=None, target=self.target.describe(),
                       loadGeneratorNote="k6/ghz ran on this machine against the target "
                                         f"{self.target.rest_base} / {self.target.grpc_address}; whether they "
                                         "shared cores with it is not known to the bench. Each cell records "
                                         "the CPU its generator used (loadGenCpuPercent, percent of one core).")
        self.proto_paths = loadgen.extract_protos(GRPC_JAR, self.work / "protos")
        modes = profile.modes_in_order(self.cells)
        starts = profile.service_configs_in_order(self.cells)
        n = len(self.cells)
        say(f"bench: run {run_id}: {n} cells over cache modes {', '.join(modes)}"
            f"{f' ({sum(1 for _, t in starts if t)} of the {len(starts)} service starts with TLS)' if any(t for _, t in starts) else ''}; about "
            f"{mmss(profile.estimate_seconds(self.prof, self.cells))} of measuring")
        self.load_at_start = os.getloadavg()
        if self.load_at_start[0] > (os.cpu_count() or 1) * 0.5:
            say(f"bench: WARNING: load average {self.load_at_start[0]:.1f} before measuring on "
                f"{os.cpu_count()} cores: something else is running, and the figures will show it")
        self.measure_t0 = time.monotonic()
        i = 0
        for mode, tls in starts:
            mode_cells = [c for c in self.cells if c.service_config == (mode, tls)]
            if self.target:
                self.check_target_mode(mode)
            else:
                self.start_mode(mode, tls)
            self.jit_warmup(mode, mode_cells, tls)
            for cell in mode_cells:
                i += 1
                record = self.measure(i, n, cell)
                self.records.append(record)
                self.progress(i, n, cell, record)
        self.services.stop()
        finished = datetime.now(timezone.utc)
        return self.assemble(run_id, started, finished, env)

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
        fits, fit_notes = stats.fits_from_cells(self.records)
        head, detail = headline.compute(self.records)
        hot = self.settings["hot_keys"]
        resolved = {
            "database": None if self.target else self.db_name,
            "ports": None if self.target else
            {"rest": self.ports.rest, "grpc": self.ports.grpc, "grpcManagement": self.ports.grpc_management},
            "hotKeys": hot,
            "coldKeys": {f"{op}{ps or ''}": len(keys.all_keys(op, self.scale, ps)) - hot
                         for op, ps in sorted({(c.operation, c.page_size) for c in self.cells if c.operation != "Hello"},
                                              key=str)},
            "helloEndpoints": {"rest": "GET /api/v1/hello", "grpc": keys.GRPC_METHODS["Hello"]},
            "source": self.prof["source"],
        }
        if self.tls_files:
            resolved["tlsCertificate"] = str(self.tls_files.certificate)
        cpu = sorted((c["summary"]["loadGenCpuPercent"], c["id"]) for c in self.records
                     if c["summary"]["loadGenCpuPercent"] is not None)
        load_end = os.getloadavg()
        notes = [
            "Load generator and services share this machine's cores; see environment.loadGeneratorNote."
            if not self.target else "Load generator against an already-running target; see environment.target.",
            *([f"Load generator CPU per cell (median over windows, percent of one core, start-up included): "
               f"median {stats.median([p for p, _ in cpu]):.0f}%, from {cpu[0][0]:.0f}% ({cpu[0][1]}) "
               f"to {cpu[-1][0]:.0f}% ({cpu[-1][1]})"] if cpu else []),
            *([f"CPU of processes outside the bench (not the services, MariaDB, Redis or the generator) per "
               f"window: median {stats.median([x for x, _, _ in self.other_cpu]):.2f} cores, at most "
               f"{max(self.other_cpu)[0]:.2f} ({max(self.other_cpu)[1]} rep {max(self.other_cpu)[2]})"]
              if self.other_cpu else []),
            f"Machine load average (1/5/15 min) before measuring: "
            f"{' / '.join(f'{x:.2f}' for x in self.load_at_start)}; at the end: "
            f"{' / '.join(f'{x:.2f}' for x in load_end)}.",
            "Cold windows: caches flushed (L1 of both services and L2), then shared iterations over keys "
            "never asked before in that window (GetGroup ids, ListGroups pages of one subject starting after "
            f"a given group), so each request is a first touch. Warm windows: the {hot} hot keys, primed by "
            "the excluded warm-up. Hit ratios are deltas of the service's own counters "
            "(GET /actuator/cache) around each window"
            + (", summed over every instance of the target." if self.target and self.target_plan.hit_ratios
               else " (not measured against this target: see below)." if self.target else "."),
            "gRPC body bytes: serialized size of the response messages during the window, recorded by the "
            "service (tandem.grpc.response.bytes); REST body bytes: k6's byte count of the JSON bodies. "
            "ghz counts no bytes on the wire, so its wire bytes are null.",
            *([TLS_NOTE if not self.target else
               f"TLS cells (tls: true): the target speaks TLS (REST https://, gRPC grpcs://); k6 and ghz verify its "
               f"certificate against {self.target_ca()}, not skip verification. Their wire bytes include TLS's overhead."]
              if any(c.tls for c in self.cells) else []),
            *self.notes, *condense_fit_notes(fit_notes),
        ]
        return {
            "schemaVersion": 1, "runId": run_id, "startedAt": iso(started), "finishedAt": iso(finished),
            "profile": {"name": self.prof["name"], "description": self.prof["description"],
                        **self.prof["settings"], "matrix": self.prof["matrix"], "resolved": resolved},
            "environment": env, "cells": self.records, "fits": fits, "headline": head,
            "headlineDetail": detail, "notes": notes,
        }


TLS_NOTE = (
    "TLS cells (tls: true): the services ran with TLS on their API ports (a self-signed P-256 "
    "certificate from scripts/tls-cert.sh): REST is HTTP/1.1 over TLS, gRPC HTTP/2 over TLS (ALPN h2). "
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
        rest, grpc, mgmt = (int(x) for x in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError("--ports wants REST,GRPC,GRPC_MANAGEMENT, e.g. 18080,19090,18081")
    return services.Ports(rest, grpc, mgmt)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make bench", description="Tandem bench: see loadtest/README.md")
    parser.add_argument("--profile", default="quick", help="quick (default), full, smoke, or a path to a .toml")
    parser.add_argument("--results-dir", type=Path, default=None, help="default: results/ at the repository root")
    parser.add_argument("--work-dir", type=Path, default=None, help="logs, key files, raw outputs (default .run/bench/<run>)")
    parser.add_argument("--ports", type=parse_ports, default=services.Ports(), help="REST,GRPC,GRPC_MANAGEMENT")
    parser.add_argument("--dry-run", action="store_true", help="list the cells and the estimated time, measure nothing")
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
    for scratch in ("keys", "out", "protos"):  # regenerated by every run; the logs stay
        shutil.rmtree(work / scratch, ignore_errors=True)
    say("\n" + report.summary(run))
    say(f"\nbench: wrote {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path} "
        f"in {mmss(time.monotonic() - bench.t0)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
