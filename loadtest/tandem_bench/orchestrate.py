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
     excluded), and then pinned (and, when the profile sets service_cpu_quota, capped together in a
     cgroup: cpu_quota.py). Response body bytes are fetched with curl on both wires.
  4. Then `repetitions` rounds: each cell gets one window per round, in an order rotated every
     round and reversed every other one (windows.interleave). Before a cell's first window in a
     start: a warm-up at its concurrency (excluded; it primes warm cells) and more warm-up until
     the service's JIT settles; before each later window of a warm cell, a priming pass over its
     hot keys (an L1 entry read by no window for a TTL is gone). Cold windows ask a slice of keys
     no other window asked; warm and no-cache windows cycle over the hot keys. Around each window the service's cache, JIT, GC and
     call counters and MariaDB's row counters are read, and every process's CPU is sampled
     (windows.build turns it all into the window's record and flags). After the last start of a
     configuration, its rate sweeps run. WatchGroup cells (watch.py) come last in each start they
     are measured in: their writes make groups stale. Traced cells are a configuration of their own
     (services started with tracing on, spans to an OTLP sink in this process: otlp_sink.py).
  5. The run is assembled (pooled percentiles, bootstrap intervals, fits, headline ratios with
     verdicts, sweeps with knees, notes), validated against the schema and written; the summary
     table is printed.
Whatever happens (failure, Ctrl-C, SIGTERM), the services it started and the servers it started
are stopped, and the CPU cap's cgroup is emptied and removed.

Where the steps are: Bench (below) holds a run's state and its loop (run, measure_config); its
mixins hold the steps, service_start.py step 3, measure.py step 4 and assemble.py step 5, and
service_access.py how each of them reaches the services (the bench's own or a target's).
servers.py (steps 1-2) and services.py (step 3) manage the processes; run_plan.py orders the
cells and estimates the time.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

from . import (cachestats, cpu, cpu_quota, environment, keys, loadgen, otlp_sink, profile, report, results, run_plan, servers,
               services, toolchain, windows, wire)
from .assemble import Assemble
from .console import mmss, say
from .measure import Measure
from .service_access import ServiceAccess
from .service_start import ServiceStart
from .windows import CellRun, interleave
from . import target as targets

ROOT = Path(__file__).resolve().parents[2]
GRPC_JAR = ROOT / "grpc-service/target/grpc-service.jar"
REST_JAR = ROOT / "rest-service/target/rest-service.jar"

# the services' heap, fixed so that GC behaves the same in every start (recorded in the run); a
# fixed set of JIT compiler threads, whose CPU the bench reads from /proc (a dynamic one may end a
# thread and take its CPU time out of the sum)
JAVA_OPTIONS = ["-Xms512m", "-Xmx512m", "-XX:-UseDynamicNumberOfCompilerThreads"]
# more options for the service JVMs, whitespace-separated, after the bench's own (a later option
# wins in HotSpot): TANDEM_BENCH_JAVA_OPTIONS="-XX:+UseZGC" make bench ... measures another collector.
# run.json's environment.jvm.options records every option the services ran with.
EXTRA_JAVA_OPTIONS = "TANDEM_BENCH_JAVA_OPTIONS"


def service_java_options(environ, placement_options: list[str]) -> list[str]:
    """The services' JVM options: the bench's, the placement's, then the user's from the environment."""
    return JAVA_OPTIONS + placement_options + (environ.get(EXTRA_JAVA_OPTIONS) or "").split()


def java_home() -> str:
    r = subprocess.run([str(ROOT / "scripts/java-home.sh")], capture_output=True, text=True)
    if r.returncode != 0 or not r.stdout.strip():
        raise SystemExit(f"bench: no JDK >= 21 found (scripts/java-home.sh): {r.stderr.strip()}")
    return r.stdout.strip()


class Terminated(Exception):
    pass


def _on_sigterm(signum, frame):
    raise Terminated()


class Bench(ServiceAccess, ServiceStart, Measure, Assemble):
    """One run: the state every step shares (set here) and the loop over service configurations;
    the steps' methods come from the mixins."""

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
        self.servers = servers.Servers()
        self.placement = cpu.Placement.plan(os.cpu_count() or 1, self.settings.get("cpus")) if not target else \
            cpu.Placement("none", None, None, "against a target: nothing pinned (its processes are not the bench's)")
        # the services' CPU cap (profile service_cpu_quota): its group is made when the run begins
        self.cpu_quota = cpu_quota.CpuQuota.uncapped(self.settings.get("service_cpu_quota"), "not set up yet")
        self.services = services.Services(self.java_bin, ports, self.db_name, work_dir / "logs", say=say,
                                          java_opts=service_java_options(os.environ, self.placement.service_java_options()),
                                          launch_prefix=self.placement.service_launch_prefix(),
                                          profile_env=self.settings.get("admission_env"))
        self.keyfiles = keys.KeyFiles(work_dir / "keys", self.scale, self.settings["hot_keys"])
        self.proto_paths: list[str] = []
        self.encoder: wire.Encoder | None = None
        self.runs: dict[str, CellRun] = {}
        self.body_bytes: dict[tuple, float] = {}
        # body_key → (the one request gRPC's h2load cells of that kind send, its answer's bytes)
        self.h2load_requests: dict[tuple, tuple] = {}
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
        # where traced services send their spans, started with the first traced start
        self.otlp_sink: otlp_sink.OtlpSink | None = None
        # WatchGroup cells: cell id → its windows' (record, latencies from the answer, from the request)
        self.watch_runs: dict[str, list] = {}

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
            self.notes.append(servers.ensure_seeded(self.java_bin, self.db_name, self.scale,
                                                    self.work / "logs" / "seed.log", say=say))
        self.placement.pin_self()
        self.set_up_cpu_quota()
        server_pids = servers.server_pids() if not self.target else {}
        self.placement.pin_services(server_pids.values())
        env = environment.collect(self.java_bin)
        env.update(h2load=toolchain.tool_version("h2load"), oha=toolchain.tool_version("oha"),
                   placement={**self.placement.describe(), "serviceCpuQuota": self.cpu_quota.describe()})
        if self.target:
            # the local servers' versions say nothing of the target's; its endpoints say where it was
            env.update(redis=None, mariadb=None, target=self.target.describe(),
                       loadGeneratorNote="the generators ran on this machine against the target "
                                         f"{self.target.rest_base} / {self.target.grpc_address}; whether they "
                                         "shared cores with it is not known to the bench.")
        else:
            env["loadGeneratorNote"] = self.placement.note
        self.proto_paths = toolchain.extract_protos(GRPC_JAR, self.work / "protos")
        self.encoder = wire.Encoder(wire.descriptor_set(self.proto_paths, self.work / "protos" / "tandem.protoset"))
        starts = run_plan.service_configs_in_order(self.cells)
        n = len(self.cells)
        say(f"bench: run {run_id}: {n} cells, {sum(c.windows for c in self.cells)} windows over "
            f"{sum(max(c.starts for c in self.cells if c.service_config == s) for s in starts)} service starts; about "
            f"{mmss(run_plan.estimate_seconds(self.prof, self.cells))} of measuring")
        self.load_at_start = os.getloadavg()
        self.measure_t0 = time.monotonic()
        with self.sampler:
            self.sampler.track("bench", os.getpid())
            for name, pid in server_pids.items():
                self.sampler.track(name, pid)
            for mode in starts:
                self.measure_config(mode)
        self.services.stop()
        self.release_cpu_quota()
        if not self.target:
            self.placement.release(server_pids.values())
        finished = datetime.now(timezone.utc)
        return self.assemble(run_id, started, finished, env)

    def set_up_cpu_quota(self) -> None:
        asked = self.settings.get("service_cpu_quota")
        if self.target:
            self.cpu_quota = cpu_quota.CpuQuota.uncapped(asked, "against a target: nothing capped (its processes "
                                                                "are not the bench's)")
        else:
            self.cpu_quota = cpu_quota.CpuQuota.setup(asked)
        if asked is not None:
            say(f"bench: service CPU cap: {self.cpu_quota.note}")

    def release_cpu_quota(self) -> None:
        """The JVMs out of the capped group and the group removed (also when the run fails)."""
        for problem in self.cpu_quota.release():
            say(f"bench: service CPU cap: {problem}")

    def measure_config(self, config: str) -> None:
        """Every start of one service configuration (a cache mode, traced or not) and its cells."""
        cells = [c for c in self.cells if c.service_config == config]
        mode, traced = cells[0].cache_mode, cells[0].tracing
        tls = any(c.tls for c in cells)
        http2 = any(c.protocol == "rest" and c.http == "2" for c in cells)
        watch_cells = [c for c in cells if c.operation == profile.WATCH]
        rounds_cells = [c for c in cells if c.sweep is None and c.pair is None and c.operation != profile.WATCH]
        sweeps: dict[str, list] = {}
        pairs: dict[str, list] = {}
        for c in cells:
            if c.sweep:
                sweeps.setdefault(c.sweep, []).append(c)
            if c.pair:
                pairs.setdefault(c.pair, []).append(c)
        n_starts = 1 if self.target else max(c.starts for c in cells)
        for c in rounds_cells:
            self.runs[c.id] = CellRun(c)
        for start in range(n_starts):
            if self.target:
                self.check_target_mode(mode)
            else:
                self.start_services(mode, tls, start, http2, traced=traced,
                                    balancer=any(c.front == "balancer" for c in cells))
                # curl's requests before the warm-up, not between it and the first window: a request
                # unlike any the JIT saw deoptimises what it compiled (service_start.jit_warmup)
                self.measure_body_bytes(cells)
            self.jit_warmup(mode, cells)
            if not self.target:
                self.pin_services()
            warmed: set[str] = set()
            rounds = max((c.repetitions for c in rounds_cells), default=0)
            for rnd in range(rounds):
                for cell in interleave([c for c in rounds_cells if rnd < c.repetitions and start < c.starts],
                                       start * rounds + rnd):
                    if cell.id not in warmed:
                        self.warm_up(cell)
                        warmed.add(cell.id)
                    elif cell.temperature == "warm":
                        self.prime(cell)
                    self.window(cell, start, rnd)
                    self.progress(cell)
            for pair_cells in pairs.values():
                if start < max(c.starts for c in pair_cells):
                    self.overload(pair_cells, start)
            if start == n_starts - 1:
                for sweep_cells in sweeps.values():
                    self.sweep(sweep_cells, start)
            # last: their writes make stale what the cells above read warm (the next start flushes)
            for cell in watch_cells:
                for rnd in range(cell.repetitions if start < cell.starts else 0):
                    self.watch_window(cell, start, rnd)
        if not self.target:
            self.services.stop()

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
    problems = run_plan.check_scale(prof, cells)
    if problems:
        say("bench: the profile does not fit its seed scale:\n  " + "\n  ".join(problems))
        return 2
    if args.dry_run:
        say(run_plan.describe(cells))
        say(f"{len(cells)} cells, modes {', '.join(run_plan.modes_in_order(cells))}; about "
            f"{mmss(run_plan.estimate_seconds(prof, cells))} of measuring (without build, seeding)")
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
            subprocess.CalledProcessError, cpu_quota.CpuQuotaError) as e:
        say(f"\nbench: FAILED: {e}\n(logs in {work / 'logs'})")
        return 1
    finally:
        bench.release_cpu_quota()
        bench.services.stop()
        bench.servers.stop()
        if bench.otlp_sink:
            bench.otlp_sink.close()
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
