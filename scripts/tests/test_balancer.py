"""How the compose balancer (deploy/compose/nginx.conf) treats the replicas behind it, shown with
Debian's nginx on loopback in front of fake replicas (a few lines of Python each), the file rendered
by scripts/balancer.sh as for scripts/nginx-config-test.sh. nginx listens on free ephemeral ports,
never on 8080/9090, and is stopped by its own pid; no Docker, no service. Needs nginx
(scripts/deps.sh tools), and for TLS openssl and .tools/bin/grpcurl; takes about ten seconds.

    .tools/venv/bin/python -m pytest -q scripts/tests/test_balancer.py
"""
import http.client
import os
import re
import shutil
import socket
import ssl
import subprocess
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "deploy" / "compose" / "nginx.conf"
BALANCER = ROOT / "scripts" / "balancer.sh"

pytestmark = pytest.mark.skipif(shutil.which("nginx") is None, reason="nginx not installed (scripts/deps.sh tools)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Replicas:
    """Fake REST replicas sharing one record of the requests they received. `drop` says which
    arrivals (0 = the first request any replica received) are read and then answered with nothing
    but a closed connection, as by a replica that dies with the request in hand."""

    def __init__(self, count: int, drop=(), tls: ssl.SSLContext | None = None):
        self.drop = set(drop)
        self.tls = tls
        self.arrivals: list[tuple[int, str, str]] = []   # (port, method, path)
        self.closed_idle: list[float] = []               # when nginx closed an idle connection
        self.lock = threading.Lock()
        self.sockets = []
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            s.listen(64)
            self.sockets.append(s)
            threading.Thread(target=self._accept, args=(s,), daemon=True).start()

    @property
    def ports(self) -> list[int]:
        return [s.getsockname()[1] for s in self.sockets]

    def _accept(self, server: socket.socket) -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn, server.getsockname()[1]), daemon=True).start()

    def _serve(self, conn: socket.socket, port: int) -> None:
        buf = b""
        if self.tls is not None:
            try:
                conn = self.tls.wrap_socket(conn, server_side=True)
            except (ssl.SSLError, OSError):
                conn.close()
                return
        with conn:
            while True:
                while b"\r\n\r\n" not in buf:
                    data = conn.recv(65536)
                    if not data:
                        with self.lock:
                            self.closed_idle.append(time.monotonic())
                        return
                    buf += data
                head, buf = buf.split(b"\r\n\r\n", 1)
                length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
                need = int(length.group(1)) if length else 0
                while len(buf) < need:
                    buf += conn.recv(65536)
                buf = buf[need:]
                method, path = head.split(b" ")[:2]
                with self.lock:
                    n = len(self.arrivals)
                    self.arrivals.append((port, method.decode(), path.decode()))
                if n in self.drop:
                    return
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\nok\n")

    def close(self) -> None:
        for s in self.sockets:
            s.close()


class Balancer:
    """nginx on the rendered file; with `tls` (a directory holding tandem.crt and tandem.key),
    started as docker-compose.yml starts it with TANDEM_TLS_ENABLED=true."""

    def __init__(self, work: Path, replicas: Replicas, tls: Path | None = None, grpc_replica: int | None = None):
        self.work = work
        self.port = free_port()
        self.grpc_port = free_port()
        env = dict(os.environ,
                   TANDEM_BALANCER_REST_UPSTREAM=f"127.0.0.1:{replicas.ports[0]}",
                   TANDEM_BALANCER_GRPC_UPSTREAM=f"127.0.0.1:{grpc_replica or free_port()}",
                   TANDEM_BALANCER_REST_PORT=str(self.port),
                   TANDEM_BALANCER_GRPC_PORT=str(self.grpc_port),
                   TANDEM_BALANCER_WORKERS="1")
        subprocess.run([str(BALANCER), "render", str(work), str(CONFIG)], env=env, check=True)
        conf = work / "nginx.conf"
        text = conf.read_text()
        # every replica, each with the parameters the file gives its one server line
        line = re.search(rf"server 127\.0\.0\.1:{replicas.ports[0]}\b[^;]*;", text).group(0)
        more = "".join(f"\n        {line.replace(str(replicas.ports[0]), str(p))}" for p in replicas.ports[1:])
        text = text.replace(line, line + more, 1)
        # temporary files under the prefix, not Debian's /var/lib/nginx
        temp = "".join(f"    {d}_temp_path {work}/{d};\n" for d in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        text = re.sub(r"(?m)^http \{\n", lambda m: m.group(0) + temp, text, count=1)
        conf.write_text(text)
        if tls is not None:
            conf = compose_start(conf, dict(TANDEM_TLS_ENABLED="true",
                                            TANDEM_TLS_CERTIFICATE=str(tls / "tandem.crt"),
                                            TANDEM_TLS_PRIVATE_KEY=str(tls / "tandem.key")))
        self.log = open(work / "logs" / "stderr.log", "wb")
        self.process = subprocess.Popen(
            ["nginx", "-p", str(work), "-c", str(conf), "-e", str(work / "logs" / "error.log"), "-g", "daemon off;"],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > deadline:
                    raise AssertionError("nginx did not start: " + self.errors())
                time.sleep(0.05)

    def errors(self) -> str:
        return "".join((self.work / "logs" / f).read_text(errors="replace")
                       for f in ("error.log", "stderr.log") if (self.work / "logs" / f).exists())

    def request(self, method: str, path: str, tls: ssl.SSLContext | None = None) -> int:
        conn = (http.client.HTTPConnection("127.0.0.1", self.port, timeout=10) if tls is None
                else http.client.HTTPSConnection("127.0.0.1", self.port, timeout=10, context=tls))
        try:
            conn.request(method, path)
            response = conn.getresponse()
            response.read()
            return response.status
        finally:
            conn.close()

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.log.close()


@pytest.fixture
def balancer(tmp_path):
    started = []

    def start(replicas: Replicas, tls: Path | None = None, grpc_replica: int | None = None) -> Balancer:
        b = Balancer(tmp_path, replicas, tls, grpc_replica)
        started.append((b, replicas))
        return b

    yield start
    for b, replicas in started:
        b.stop()
        replicas.close()


# ---------------------------------------------------------------- retries (README, "Graceful shutdown
# and rolling restarts", what a balancer must do, and the file's own comment on them)

@pytest.mark.parametrize("method", ["POST", "PATCH"])
def test_a_post_or_patch_that_reached_a_replica_is_not_resent(balancer, method):
    replicas = Replicas(2, drop={0})
    b = balancer(replicas)
    status = b.request(method, "/api/v1/groups/7")
    assert [a[1:] for a in replicas.arrivals] == [(method, "/api/v1/groups/7")], \
        f"{method} sent {len(replicas.arrivals)} times: {replicas.arrivals}"
    assert status == 502


@pytest.mark.parametrize("method", ["GET", "HEAD", "DELETE", "PUT"])
def test_an_idempotent_request_whose_replica_failed_before_answering_goes_to_another(balancer, method):
    """nginx resends these: a DELETE that went through on the first replica answers 404 from the
    second (the README says so; turning resends off for them would also fail a refused DELETE)."""
    replicas = Replicas(2, drop={0})
    b = balancer(replicas)
    assert b.request(method, "/api/v1/groups/7") == 200
    assert [a[1] for a in replicas.arrivals] == [method, method]
    assert replicas.arrivals[0][0] != replicas.arrivals[1][0]


@pytest.mark.parametrize("method", ["GET", "POST", "PATCH", "DELETE"])
def test_a_request_whose_connection_was_refused_goes_to_another_replica(balancer, method):
    replicas = Replicas(1)
    refused = free_port()   # nothing listens there: a replica stopped or gone
    replicas.sockets.insert(0, _Closed(refused))
    b = balancer(replicas)
    # round robin: one of the first two requests goes to the refused port first
    assert [b.request(method, "/api/v1/groups/7") for _ in range(2)] == [200, 200]
    assert len(replicas.arrivals) == 2
    assert "Connection refused" in b.errors()


class _Closed:
    """A replica port with nothing listening (stands in a Replicas socket list)."""

    def __init__(self, port: int):
        self.port = port

    def getsockname(self):
        return ("127.0.0.1", self.port)

    def close(self):
        pass


# ---------------------------------------------------------------- pooled connections

def compose_drain_delay() -> float:
    compose = (ROOT / "docker-compose.yml").read_text()
    value = re.search(r"TANDEM_SHUTDOWN_DRAIN_DELAY:\s*\"?(\d+)s", compose)
    assert value, "docker-compose.yml sets no TANDEM_SHUTDOWN_DRAIN_DELAY in seconds"
    return float(value.group(1))


def upstream_keepalive_timeout(upstream: str) -> float:
    """The keepalive_timeout of an upstream block in nginx.conf, in seconds (nginx's default 60 s)."""
    block = re.search(r"upstream " + upstream + r" \{(.*?)\n    \}", CONFIG.read_text(), re.S)
    assert block, f"nginx.conf has no upstream {upstream}"
    value = re.search(r"^\s*keepalive_timeout (\d+)s;", block.group(1), re.M)
    return float(value.group(1)) if value else 60.0


def test_an_idle_pooled_connection_is_closed_by_nginx_within_the_drain_delay(balancer):
    """A replica told to stop keeps serving for the drain delay (its responses say Connection:
    close), then stops accepting, and a request on a connection still pooled would get the stopped
    connector's 503, which nginx does not retry. Closing idle ones before the drain ends leaves none;
    it also keeps nginx clear of Tomcat's own idle close (keep-alive 60 s) racing a request.

    The bound is the configuration's (the idle timeout below the drain delay); what nginx is seen to
    do is that it closes the connection at all, waited for well short of its default of 60 s, so that
    a slow machine cannot fail it and the default would."""
    drain = compose_drain_delay()
    idle = upstream_keepalive_timeout("rest_replicas")
    assert idle < drain, f"rest_replicas keeps idle connections {idle:g} s, past the drain delay ({drain:g} s)"
    replicas = Replicas(1)
    b = balancer(replicas)
    assert b.request("GET", "/api/v1/groups/1") == 200
    deadline = time.monotonic() + 30
    while not replicas.closed_idle and time.monotonic() < deadline:
        time.sleep(0.1)
    assert replicas.closed_idle, "nginx kept its idle connection to the replica for 30 s (its default is 60 s)"


# ---------------------------------------------------------------- TLS (README, "TLS": under Docker)

def compose_start(conf: Path, env: dict) -> Path:
    """What the balancer of docker-compose.yml runs nginx on, given the rendered `conf`: the file
    itself, or what its entrypoint script (mounted from deploy/compose/) makes of it."""
    compose = (ROOT / "docker-compose.yml").read_text()
    block = re.search(r"(?ms)^  balancer:\n(.*?)(?=^  [a-z]|\Z)", compose).group(1)
    entrypoint = re.search(r"entrypoint:\s*\[([^\]]*)\]", block)
    if not entrypoint:
        return conf
    script = re.findall(r'"([^"]*)"', entrypoint.group(1))[-1]
    source = re.search(rf"- \./([^:\s]+):{re.escape(script)}(?::ro)?\s*$", block, re.MULTILINE)
    assert source, f"the balancer's entrypoint {script} is not mounted from the repository"
    out = conf.with_name("nginx-started.conf")
    subprocess.run(["sh", str(ROOT / source.group(1))], check=True,
                   env=dict(os.environ, **env, TANDEM_BALANCER_CONFIG=str(conf),
                            TANDEM_BALANCER_OUT=str(out), TANDEM_BALANCER_NO_EXEC="1"))
    return out


@pytest.fixture
def certificate(tmp_path) -> Path:
    subprocess.run([str(ROOT / "scripts" / "tls-cert.sh"), str(tmp_path / "tls")], check=True,
                   stdout=subprocess.DEVNULL)
    return tmp_path / "tls"


def test_with_tls_on_the_published_ports_speak_tls_and_reach_tls_replicas(balancer, certificate):
    """TANDEM_TLS_ENABLED=true docker compose up: the replicas' API ports speak TLS, and the README's
    curl --cacert https://127.0.0.1:8080/... must work through the balancer."""
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.load_cert_chain(certificate / "tandem.crt", certificate / "tandem.key")
    replicas = Replicas(1, tls=server)
    b = balancer(replicas, tls=certificate)
    client = ssl.create_default_context(cafile=str(certificate / "tandem.crt"))
    assert b.request("GET", "/api/v1/groups/1", tls=client) == 200
    assert [a[1:] for a in replicas.arrivals] == [("GET", "/api/v1/groups/1")]


def test_with_tls_on_grpc_goes_over_tls_both_ways(balancer, certificate):
    """grpcurl -cacert to the published 9090, and from nginx HTTP/2 over TLS (ALPN h2, which a gRPC
    server requires) to the replica."""
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.load_cert_chain(certificate / "tandem.crt", certificate / "tandem.key")
    server.set_alpn_protocols(["h2"])
    upstream = socket.socket()
    upstream.bind(("127.0.0.1", 0))
    upstream.listen(8)
    upstream.settimeout(15)
    b = balancer(Replicas(1), tls=certificate, grpc_replica=upstream.getsockname()[1])
    call = subprocess.Popen(
        [str(ROOT / ".tools" / "bin" / "grpcurl"), "-cacert", str(certificate / "tandem.crt"),
         "-import-path", str(ROOT / "proto" / "src" / "main" / "protobuf"), "-proto", "tandem/v1/hello.proto",
         "-max-time", "10", f"127.0.0.1:{b.grpc_port}", "tandem.v1.HelloService/Hello"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        conn, _ = upstream.accept()
        with server.wrap_socket(conn, server_side=True) as replica:
            assert replica.selected_alpn_protocol() == "h2"
            assert replica.recv(24) == b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"   # the HTTP/2 preface
    finally:
        upstream.close()
        out = call.communicate(timeout=20)[0].decode(errors="replace")
    # the call reached the replica through both TLS legs; the fake replica then hung up
    assert "Code: Unavailable" in out, out


def test_with_tls_off_the_balancer_runs_the_file_as_it_is(tmp_path):
    conf = tmp_path / "nginx.conf"
    conf.write_text(CONFIG.read_text())
    started = compose_start(conf, dict(TANDEM_TLS_ENABLED="false"))
    assert started.read_text() == CONFIG.read_text()
