"""The bench's own rest-service and grpc-service, started per cache mode: their ports, the TLS
certificate of their TLS ports, the write token for cache flushes, and a plain HTTP GET. MariaDB,
Redis and the seed data are in servers.py, the Prometheus text the services publish in probes.py.

The bench runs its own service instances on their own ports (REST 18080, gRPC 19090 with its
actuator on 18081 by default; for overload cells that go through it, the compose balancer in front
of them on 18088 and 19098) and its own database (tandem_bench_s<scale>, seeded once per scale
and reused), so it neither disturbs nor is disturbed by `make run` on 8080/9090 and the `tandem`
database. It stops exactly the processes it started.

For the cells of the tls dimension the services get a second API port each (tandem.tls.extra-port,
REST 18443 and gRPC 19443 by default) that serves the same API over TLS with a certificate from
scripts/tls-cert.sh, next to their plain ports: a TLS cell and its plain twin then measure the same
processes, so their ratio is free of the spread between service starts. The bench's own health,
cache and metrics requests always use the plain ports.
"""
from __future__ import annotations

import os
import re
import signal
import socket
import ssl
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


class ServiceError(RuntimeError):
    pass


@dataclass
class Ports:
    rest: int = 18080
    grpc: int = 19090
    grpc_management: int = 18081
    # the same API over TLS from the same processes (tandem.tls.extra-port), started for TLS cells
    rest_tls: int = 18443
    grpc_tls: int = 19443
    # the compose balancer in front of them, started for overload cells that go through it
    balancer_rest: int = 18088
    balancer_grpc: int = 19098

    @property
    def rest_base(self) -> str:
        return f"http://127.0.0.1:{self.rest}"

    @property
    def grpc_address(self) -> str:
        return f"127.0.0.1:{self.grpc}"

    def rest_base_for(self, tls: bool) -> str:
        return f"https://127.0.0.1:{self.rest_tls}" if tls else self.rest_base

    def grpc_address_for(self, tls: bool) -> str:
        return f"127.0.0.1:{self.grpc_tls}" if tls else self.grpc_address

    @property
    def balancer_rest_base(self) -> str:
        return f"http://127.0.0.1:{self.balancer_rest}"

    @property
    def balancer_grpc_address(self) -> str:
        return f"127.0.0.1:{self.balancer_grpc}"

    @property
    def grpc_management_base(self) -> str:
        return f"http://127.0.0.1:{self.grpc_management}"

    def management_base(self, protocol: str) -> str:
        return self.rest_base if protocol == "rest" else self.grpc_management_base


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.3)
        return s.connect_ex(("127.0.0.1", port)) == 0


@dataclass(frozen=True)
class TlsFiles:
    certificate: Path
    private_key: Path


def tls_certificate(directory: Path | None = None) -> TlsFiles:
    """A self-signed certificate and key for 127.0.0.1/localhost from scripts/tls-cert.sh (which
    keeps a still-valid pair), under .run/tls unless `directory` is given."""
    cmd = [str(ROOT / "scripts" / "tls-cert.sh")] + ([str(directory)] if directory else [])
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise ServiceError(f"scripts/tls-cert.sh failed: {(r.stderr or r.stdout).strip()}")
    found = dict(line.split("=", 1) for line in r.stdout.splitlines() if "=" in line)
    files = TlsFiles(Path(found["TANDEM_TLS_CERTIFICATE"]), Path(found["TANDEM_TLS_PRIVATE_KEY"]))
    trust(files.certificate)
    return files


def trust(certificate: Path) -> None:
    """Makes every urllib request of this process (health, /actuator/cache, metrics) trust the
    bench's certificate for https URLs: a process-wide opener, so the modules that read the
    services need no TLS code of their own. Plain http URLs are unaffected."""
    context = ssl.create_default_context(cafile=str(certificate))
    urllib.request.install_opener(urllib.request.build_opener(urllib.request.HTTPSHandler(context=context)))


def http_get(url: str, timeout: float = 3.0) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def rest_in_flight(config: str) -> int | None:
    """The REST in-flight limit of a balancer configuration (limit_conn rest_in_flight N)."""
    m = re.search(r"limit_conn\s+rest_in_flight\s+(\d+)\s*;", config)
    return int(m.group(1)) if m else None


# ---------------------------------------------------------------- the write token

TOKEN_MAIN = "dev.tandem.auth.DevTokens"
PROPERTIES_LAUNCHER = "org.springframework.boot.loader.launch.PropertiesLauncher"


def mint_write_token(java: str, jar: Path = ROOT / "rest-service/target/rest-service.jar") -> str:
    """A bearer token that may write (scope tandem:write), for the bench's cache flushes: DevTokens'
    main run from the REST jar, as `make token` does, so it is signed with TANDEM_AUTH_JWT_SECRET
    from this environment (the development secret when unset) — the one the bench's services get."""
    r = subprocess.run([java, "-cp", str(jar), f"-Dloader.main={TOKEN_MAIN}", PROPERTIES_LAUNCHER],
                       capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    token = r.stdout.strip()
    if r.returncode != 0 or token.count(".") != 2:
        raise ServiceError(f"could not mint a write token with {jar.name} (exit {r.returncode}): "
                           f"{r.stderr.strip()[-500:]}")
    return token


# ---------------------------------------------------------------- the two services

@dataclass
class Service:
    name: str
    jar: Path
    env: dict
    health_url: str
    ports: tuple[int, ...]
    process: subprocess.Popen | None = None


# Where the bench's load generators and probes connect from (the services listen on 127.0.0.1):
# exempt from the services' rate limit (tandem.rate-limit.exempt-addresses).
BENCH_CLIENT_ADDRESSES = "127.0.0.1,::1"


def launch_arguments(java: str, jar: Path) -> list[str]:
    """What starts `jar` after the JVM's own flags, as make run starts it: its extracted layout and
    AOT class cache, made on first use of a built jar (scripts/jar-launch.sh)."""
    r = subprocess.run([str(ROOT / "scripts/jar-launch.sh"), str(jar)], env=dict(os.environ, JAVA=java),
                       capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        raise ServiceError(f"scripts/jar-launch.sh {jar.name} failed (exit {r.returncode}): {r.stderr.strip()}")
    if r.stderr.strip():
        print(r.stderr.strip())
    return r.stdout.split()


class Services:
    """Both services, started together with one cache mode, stopped together."""

    def __init__(self, java: str, ports: Ports, db_name: str, log_dir: Path, java_opts: list[str] | None = None,
                 start_timeout: float = 180, say=print, redis_key_prefix: str | None = None,
                 launch_prefix: list[str] | None = None, profile_env: dict[str, str] | None = None):
        """launch_prefix: what the java command is started with (cpu.Placement.service_launch_prefix);
        profile_env: the profile's settings of the services (its admission table), under the bench's
        own environment, which wins."""
        self.java = java
        self.profile_env = dict(profile_env or {})
        self.launch_prefix = launch_prefix or []
        self.ports = ports
        self.db_name = db_name
        self.log_dir = Path(log_dir)
        self.java_opts = java_opts or []
        self.launch_options: list[str] = []
        self.start_timeout = start_timeout
        self.say = say
        # its own Redis keyspace: the bench's entries (of its own
        # database) never meet those of services running on the `tandem` database
        self.redis_key_prefix = redis_key_prefix or f"tandem:bench:{db_name}:"
        self.mode: str | None = None
        self.tls = False     # whether the running services also serve TLS (on ports.rest_tls / grpc_tls)
        self.services: list[Service] = []
        # the compose balancer in front of them (start_balancer), and its REST in-flight limit
        self.balancer: subprocess.Popen | None = None
        self.balancer_rest_in_flight: int | None = None

    def _define(self, mode: str, tls: TlsFiles | None = None, http2: bool = False, tracing=None) -> list[Service]:
        """tracing: None for untraced services, or the OTLP sink (otlp_sink.OtlpSink) traced ones
        export every request's spans to, each service to its own path of it."""
        common = dict({**self.profile_env, **os.environ}, TANDEM_DB_NAME=self.db_name, TANDEM_SEED_MODE="off", TANDEM_CACHE_MODE=mode,
                      TANDEM_CACHE_REDIS_KEY_PREFIX=self.redis_key_prefix,
                      # the cache's actuator endpoint (counters, flush) next to health and prometheus
                      MANAGEMENT_ENDPOINTS_WEB_EXPOSURE_INCLUDE="health,prometheus,cache",
                      # the API ports stay plain; TLS, when asked for, is on the extra ports below
                      TANDEM_TLS_ENABLED="false",
                      # the per-client rate limit on, as a deployment runs it, so its check is on every
                      # measured request; the bench's own clients (every generator and probe of this
                      # machine, on loopback) are exempt by address: by configuration, not by code
                      TANDEM_RATE_LIMIT_ENABLED="true",
                      TANDEM_RATE_LIMIT_EXEMPT_ADDRESSES=BENCH_CLIENT_ADDRESSES,
                      # untraced unless the cell asks (the tracing dimension), whatever the shell says;
                      # traced: every request sampled (the costliest setting, the one README's table
                      # measures), whatever the shell says either
                      TANDEM_TRACING_ENABLED="true" if tracing else "false",
                      SERVER_HTTP2_ENABLED="true" if http2 else "false")
        for k in ("SERVER_PORT", "SPRING_GRPC_SERVER_PORT", "MANAGEMENT_SERVER_PORT", "TANDEM_SEED_EXIT",
                  "TANDEM_SEED_SCALE", "SPRING_MAIN_WEB_APPLICATION_TYPE", "TANDEM_TLS_CERTIFICATE",
                  "TANDEM_TLS_PRIVATE_KEY", "TANDEM_TLS_EXTRA_PORT", "MANAGEMENT_TRACING_SAMPLING_PROBABILITY",
                  "MANAGEMENT_OPENTELEMETRY_TRACING_EXPORT_OTLP_ENDPOINT"):
            common.pop(k, None)
        traced = {}
        if tracing:
            common["MANAGEMENT_TRACING_SAMPLING_PROBABILITY"] = "1.0"
            traced = {name: dict(MANAGEMENT_OPENTELEMETRY_TRACING_EXPORT_OTLP_ENDPOINT=tracing.endpoint(name))
                      for name in ("rest-service", "grpc-service")}
        if tls:
            common.update(TANDEM_TLS_CERTIFICATE=str(tls.certificate), TANDEM_TLS_PRIVATE_KEY=str(tls.private_key))
        p = self.ports
        rest_tls = dict(TANDEM_TLS_EXTRA_PORT=str(p.rest_tls)) if tls else {}
        grpc_tls = dict(TANDEM_TLS_EXTRA_PORT=str(p.grpc_tls)) if tls else {}
        return [
            Service("rest-service", ROOT / "rest-service/target/rest-service.jar",
                    dict(common, SERVER_PORT=str(p.rest), **rest_tls, **traced.get("rest-service", {})),
                    f"{p.rest_base}/actuator/health",
                    (p.rest,) + ((p.rest_tls,) if tls else ())),
            Service("grpc-service", ROOT / "grpc-service/target/grpc-service.jar",
                    dict(common, SERVER_PORT=str(p.grpc_management), SPRING_GRPC_SERVER_PORT=str(p.grpc), **grpc_tls,
                         **traced.get("grpc-service", {})),
                    f"{p.grpc_management_base}/actuator/health",
                    (p.grpc, p.grpc_management) + ((p.grpc_tls,) if tls else ())),
        ]

    def start(self, mode: str, tls: TlsFiles | None = None, http2: bool = False, tracing=None,
              balancer: bool = False) -> float:
        """Starts both services with TANDEM_CACHE_MODE=mode (and TLS on their extra ports when `tls`
        names a certificate, REST with HTTP/2 when `http2`) and waits until both are UP, then, when
        `balancer`, the compose balancer in front of them. Returns the seconds it took."""
        if self.services:
            self.stop()
        services = self._define(mode, tls, http2, tracing)
        for s in services:
            if not s.jar.exists():
                raise ServiceError(f"missing {s.jar.relative_to(ROOT)}: build first (./mvnw -B -q package -DskipTests)")
            busy = [port for port in s.ports if port_open(port)]
            if busy:
                raise ServiceError(f"port(s) {busy} on 127.0.0.1 (for the bench's {s.name}) are taken by "
                                   "another process; stop it or choose other ports (--ports)")
        self.log_dir.mkdir(parents=True, exist_ok=True)
        t0 = time.monotonic()
        for s in services:
            log = open(self.log_dir / f"{s.name}.log", "ab")
            log.write(f"==== {time.strftime('%FT%TZ', time.gmtime())} starting {s.name}, "
                      f"TANDEM_CACHE_MODE={mode} TANDEM_TLS_EXTRA_PORT={s.env.get('TANDEM_TLS_EXTRA_PORT', '(none)')} "
                      f"TANDEM_TRACING_ENABLED={s.env['TANDEM_TRACING_ENABLED']}\n".encode())
            log.flush()
            # own session: a Ctrl-C on the terminal reaches the bench, which then stops the services
            launch = launch_arguments(self.java, s.jar)
            # the AOT cache flag, when there is one, is a JVM option the run records (environment.jvm),
            # with the path each service's own
            self.launch_options = [o.replace(str(ROOT) + "/", "").replace(s.name, "<service>")
                                   for o in launch[:launch.index("-jar")]]
            s.process = subprocess.Popen([*self.launch_prefix, self.java, *self.java_opts, *launch],
                                         env=s.env, cwd=ROOT,
                                         stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True)
            log.close()
            self.services.append(s)
        self.mode = mode
        self.tls = tls is not None
        pending = list(services)
        while pending:
            for s in list(pending):
                if s.process.poll() is not None:
                    tail = self._tail(s)
                    self.stop()
                    raise ServiceError(f"{s.name} exited during start-up (exit {s.process.returncode}):\n{tail}")
                try:
                    status, body = http_get(s.health_url)
                    if status == 200 and b'"UP"' in body:
                        pending.remove(s)
                except (urllib.error.URLError, OSError):
                    pass
            if pending and time.monotonic() - t0 > self.start_timeout:
                names = ", ".join(s.name for s in pending)
                tails = "\n".join(self._tail(s) for s in pending)
                self.stop()
                raise ServiceError(f"{names} not UP within {self.start_timeout:.0f} s:\n{tails}")
            if pending:
                time.sleep(0.5)
        # UP on the health endpoint, and the API itself answers: a REST request, and every port
        # (gRPC's, and the TLS ones) accepts connections
        while True:
            try:
                status, _ = http_get(f"{self.ports.rest_base}/api/v1/groups/1")
                if status and all(port_open(port) for s in services for port in s.ports):
                    break
            except (urllib.error.URLError, OSError):
                pass
            if time.monotonic() - t0 > self.start_timeout:
                self.stop()
                raise ServiceError(f"the services report UP but the API does not answer within {self.start_timeout:.0f} s")
            time.sleep(0.5)
        if balancer:
            try:
                self.start_balancer()
            except ServiceError:
                self.stop()
                raise
        return time.monotonic() - t0

    def start_balancer(self, bound: float = 20) -> None:
        """The compose balancer (deploy/compose/nginx.conf, rendered for loopback by scripts/balancer.sh)
        in front of the running services, as one nginx process (master_process off: one pid to pin,
        cap and count, where nginx's master would fork a worker the bench would have to find). The
        rendering takes TANDEM_BALANCER_REST_IN_FLIGHT from the environment, as the services take
        their settings."""
        p = self.ports
        busy = [port for port in (p.balancer_rest, p.balancer_grpc) if port_open(port)]
        if busy:
            raise ServiceError(f"port(s) {busy} on 127.0.0.1 (for the bench's balancer) are taken by another process")
        directory = self.log_dir.parent / "balancer"
        env = dict(os.environ, TANDEM_BALANCER_REST_UPSTREAM=f"127.0.0.1:{p.rest}",
                   TANDEM_BALANCER_GRPC_UPSTREAM=f"127.0.0.1:{p.grpc}",
                   TANDEM_BALANCER_REST_PORT=str(p.balancer_rest), TANDEM_BALANCER_GRPC_PORT=str(p.balancer_grpc))
        rendered = subprocess.run([str(ROOT / "scripts" / "balancer.sh"), "render", str(directory)], env=env,
                                  capture_output=True, text=True, timeout=60)
        if rendered.returncode != 0:
            raise ServiceError(f"scripts/balancer.sh render failed: {(rendered.stderr or rendered.stdout).strip()}")
        config = directory / "nginx.conf"
        self.balancer_rest_in_flight = rest_in_flight(config.read_text())
        log_path = self.log_dir / "balancer.log"
        # -e stderr: what nginx says before reading the file goes where the file's error_log
        # (stderr) sends the rest, into this one log
        with open(log_path, "ab") as log:
            self.balancer = subprocess.Popen(
                [*self.launch_prefix, "nginx", "-p", str(directory), "-c", str(config), "-e", "stderr",
                 "-g", "daemon off; master_process off;"],
                cwd=ROOT, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        t0 = time.monotonic()
        while time.monotonic() - t0 < bound:
            if self.balancer.poll() is not None:
                break
            try:
                if http_get(f"{p.balancer_rest_base}/balancer-health")[0] == 200 and port_open(p.balancer_grpc):
                    return
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.2)
        tail = log_path.read_text(errors="replace")[-3000:] if log_path.exists() else ""
        raise ServiceError(f"the balancer (nginx) did not answer within {bound:.0f} s:\n{tail}")

    def _tail(self, s: Service, lines: int = 30) -> str:
        path = self.log_dir / f"{s.name}.log"
        try:
            text = path.read_text(errors="replace").splitlines()[-lines:]
        except OSError:
            return ""
        return f"---- last lines of {path} ----\n" + "\n".join(text)

    def pids(self) -> dict[str, int]:
        """The services' and, when it runs, the balancer's: what is pinned, capped and counted as theirs."""
        pids = {s.name: s.process.pid for s in self.services if s.process and s.process.poll() is None}
        if self.balancer and self.balancer.poll() is None:
            pids["balancer"] = self.balancer.pid
        return pids

    def check_alive(self) -> None:
        for s in self.services:
            if s.process.poll() is not None:
                raise ServiceError(f"{s.name} died (exit {s.process.returncode}):\n{self._tail(s)}")
        if self.balancer and self.balancer.poll() is not None:
            raise ServiceError(f"the balancer (nginx) died (exit {self.balancer.returncode}); "
                               f"see {self.log_dir / 'balancer.log'}")

    def stop(self, timeout: float = 40) -> None:
        if self.balancer:
            if self.balancer.poll() is None:
                self.balancer.terminate()   # nginx's fast shutdown
                try:
                    self.balancer.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.balancer.kill()
                    self.balancer.wait()
            self.balancer = None
        for s in self.services:
            if s.process and s.process.poll() is None:
                try:
                    s.process.send_signal(signal.SIGTERM)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + timeout
        for s in self.services:
            if not s.process:
                continue
            try:
                s.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.say(f"bench: {s.name} (pid {s.process.pid}) did not stop in {timeout:.0f} s; killing it")
                s.process.kill()
                s.process.wait()
        self.services = []
        self.mode = None
        self.tls = False
