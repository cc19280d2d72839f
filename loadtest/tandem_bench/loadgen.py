"""Running the load generators, each as one bounded subprocess against 127.0.0.1, pinned to the
generator's CPUs (cpu.Placement), with every request's latency written to a raw file:

  k6      REST and gRPC (loadtest/k6/*.js): the same tool on both wires, the reference; closed
          (constant-vus), or open (constant-arrival-rate, dropped iterations reported)
  ghz     gRPC; open model with --async, so each call starts on its schedule
  h2load  REST (HTTP/1.1, --h1) and gRPC (HTTP/2, one pre-encoded request frame): a C generator
          cheap enough to leave the services the bottleneck on two cores
  oha     REST, open model with --latency-correction (latency timed from each request's due time,
          as wrk2 does)

Every invocation is bounded twice: by its own settings (a duration, or a number of requests with a
maximum duration) and by a subprocess timeout a little longer than that, after which it is killed.
The CPU a generator used during the measured window is read by cpu.Sampler from its pid (the
caller tracks it through on_start and on_end); the CPU the kernel counted for the whole
invocation (start-up included) is kept as a cross-check.

TLS cells (Invocation.tls): every generator verifies the services' certificate against the bench's
own self-signed one (scripts/tls-cert.sh) rather than skipping verification, as a real client
would — the handshake then costs what it costs in production. k6 gets it as SSL_CERT_FILE (Go's
crypto/x509 takes its roots from that file: k6 has no CA option for HTTP), for REST over https and
for gRPC with `plaintext: false`; ghz gets `--cacert` instead of `--insecure`. Verification runs
once per connection, and each VU or ghz connection connects once, so it is outside the steady state.

Longer than ~350 lines on purpose: run() dispatches to the four runners, which share Invocation,
the subprocess wrapper (_run) and the raw-file handling (KEEP_RAW, _discard); split off, the
runners would import the module that imports them. The tools' versions and the .proto import
paths, which are not about running them, are in toolchain.py.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import parse_ghz, parse_k6, samples as raw

ROOT = Path(__file__).resolve().parents[2]
K6_DIR = ROOT / "loadtest" / "k6"
TOOLS_BIN = ROOT / ".tools" / "bin"


PRIMING_MAX_SECONDS = 120
# keep every raw output (per-request samples) after parsing: `bench.py --keep-raw`, for inspecting
# a run or recording test fixtures; by default they are deleted once parsed (MBs per window)
KEEP_RAW = False


def _discard(path: Path) -> None:
    if not KEEP_RAW:
        path.unlink(missing_ok=True)


class LoadGenError(RuntimeError):
    pass


# what a REST client asks for, by the cell's encoding and compression (profile.ENCODINGS,
# COMPRESSIONS) and whether it revalidates, and what a gRPC call that asks for gzip sends with its
# compressed frame
ACCEPT = {"json": "application/json", "protobuf": "application/x-protobuf"}
GRPC_GZIP_HEADERS = ["grpc-encoding: gzip", "grpc-accept-encoding: gzip"]


def rest_headers(encoding: str, compression: str, revalidate: bool = False) -> list[str]:
    """A revalidating client sends If-None-Match with the tag of the copy it holds. The generators
    send one header for every key they cycle over, so the bench's sends "*" (RFC 9110: true for any
    current representation), which the service answers exactly as a current tag: it computes the
    read model's tag, compares, and sends 304 with no body."""
    return [f"accept: {ACCEPT[encoding]}", f"accept-encoding: {compression}",
            *(["if-none-match: *"] if revalidate else [])]


def tool_path(name: str) -> str:
    local = TOOLS_BIN / name
    if local.exists():
        return str(local)
    found = shutil.which(name)
    if not found:
        raise LoadGenError(f"{name} not found in .tools/bin or on PATH: run scripts/deps.sh tools")
    return found


# ---------------------------------------------------------------- one invocation

TOOLS = ("k6", "ghz", "h2load", "oha")


@dataclass
class Invocation:
    """One run of a load generator. executor: constant-vus (closed, for duration), shared-iterations
    (each of `iterations` requests on the next key, at most `duration`), constant-arrival-rate
    (open: `rate` per second for duration, at most `vus` in flight)."""
    protocol: str                 # rest | grpc
    tool: str                     # k6 | ghz | h2load | oha
    operation: str
    method: str | None            # gRPC method; None for REST
    executor: str
    vus: int
    duration: float | None        # None: shared-iterations bounded by count only (PRIMING_MAX_SECONDS)
    keys_file: Path
    out_file: Path
    log_file: Path
    iterations: int | None = None
    rate: float | None = None
    extra_env: dict = field(default_factory=dict)
    tls: bool = False             # TLS to the services (they must have been started with it)
    prefix: list = field(default_factory=list)   # e.g. taskset -c 1
    raw: bool = True              # keep per-request samples (measured windows); warm-ups need none
    request_frame: Path | None = None   # h2load gRPC: the one pre-encoded request it sends
    uris_file: Path | None = None       # h2load/oha REST: the request URIs, one per line
    streams: int = 1              # h2load: requests in flight per connection (vus / streams connections)
    # how long past its own end a generator may run before it is killed as hung
    hang_seconds: float = 60
    # what the client asks for (profile.ENCODINGS, HTTP_VERSIONS, COMPRESSIONS): REST only for the
    # first two; gzip on gRPC is a compressed request (the frame is built compressed by the caller)
    encoding: str = "json"
    http: str = "1.1"
    compression: str = "identity"
    revalidate: bool = False      # REST: If-None-Match (rest_headers)
    # the longest a request may wait for its answer (the overload profile gives the services' own
    # request timeout, so a request that outlives its deadline is counted, not waited for); None:
    # the tool's default (oha: none, ghz: 20 s, k6: 60 s)
    timeout_seconds: float | None = None
    # "balancer": to the compose balancer in front of the services (an overload cell's front)
    front: str | None = None


@dataclass
class Outcome:
    measurement: dict             # the tool's own totals (requests, wire bytes, dropped, ...)
    cpu_seconds: float            # the kernel's count for the whole invocation (wait4), start-up included
    wall_seconds: float
    notes: list
    samples: raw.Samples | None = None


def _reap(proc: subprocess.Popen, timeout: float) -> tuple[int, float, bool]:
    """Waits for proc as Popen.wait(timeout) does, killing it when the timeout passes, but through
    wait4: (exit code, the CPU seconds this child used, whether it was killed). getrusage's
    RUSAGE_CHILDREN would sum every child reaped meanwhile, and a pair's two generators run at once."""
    killed = threading.Event()

    def kill():
        killed.set()
        proc.kill()
    timer = threading.Timer(timeout, kill)
    timer.daemon = True
    timer.start()
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    finally:
        timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)   # reaped here: Popen must not wait for it again
    return proc.returncode, usage.ru_utime + usage.ru_stime, killed.is_set()


def _run(cmd: list[str], log_file: Path, timeout: float, env: dict | None = None, on_start=None,
         on_end=None, stdout_file: Path | None = None) -> tuple[float, float]:
    """Runs one generator to its end; on_start(pid) once it runs, on_end(cpu_seconds) once it is
    reaped (its /proc entry, which the CPU sampler reads, is gone from then on)."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    with open(log_file, "ab") as log:
        log.write((f"\n# {time.strftime('%H:%M:%S')}\n$ " + " ".join(cmd) + "\n").encode())
        log.flush()
        t0 = time.monotonic()
        out = open(stdout_file, "wb") if stdout_file else log
        try:
            proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT if not stdout_file else log,
                                    stdin=subprocess.DEVNULL, env=env, cwd=ROOT)
            if on_start:
                on_start(proc.pid)
            rc, cpu, killed = _reap(proc, timeout)
            if on_end:
                on_end(cpu)
            if killed:
                raise LoadGenError(f"{Path(cmd[0]).name} did not finish within {timeout:.0f} s and was killed; "
                                   f"see {log_file}")
        finally:
            if stdout_file:
                out.close()
        wall = time.monotonic() - t0
        log.write(f"# exit {rc} after {wall:.1f} s, {cpu:.1f} s CPU\n".encode())
    if rc != 0:
        raise LoadGenError(f"{Path(cmd[0]).name} exited {rc}; see {log_file}")
    return cpu, wall


def _seconds(x: float) -> str:
    return f"{max(1, int(round(x * 1000)))}ms"


def run(inv: Invocation, *, grpc_address: str, rest_base: str, proto_paths: list[str],
        ca_file: Path | None = None, on_start=None, on_end=None) -> Outcome:
    """ca_file: the certificate a TLS invocation trusts (required when inv.tls). on_start(pid) is
    called once the generator runs (the CPU sampler tracks it), on_end(cpu_seconds) once it has
    ended, with the CPU it used in all (the sampler's last reading of it)."""
    if inv.tls and ca_file is None:
        raise LoadGenError(f"{inv.out_file.name}: a TLS invocation needs the certificate to trust (ca_file)")
    if inv.tls and inv.protocol == "rest" and not rest_base.startswith("https://"):
        raise LoadGenError(f"{inv.out_file.name}: a TLS invocation against {rest_base}")
    inv.out_file.parent.mkdir(parents=True, exist_ok=True)
    inv.out_file.unlink(missing_ok=True)
    runner = {"k6": _run_k6, "ghz": _run_ghz, "h2load": _run_h2load, "oha": _run_oha}.get(inv.tool)
    if runner is None:
        raise LoadGenError(f"unknown tool {inv.tool}; known: {TOOLS}")
    return runner(inv, grpc_address=grpc_address, rest_base=rest_base, proto_paths=proto_paths,
                  ca_file=ca_file, on_start=on_start, on_end=on_end)


def _timeout(inv: Invocation) -> float:
    # the invocation stops by itself; the timeout only catches a hung generator
    return (inv.duration if inv.duration is not None else PRIMING_MAX_SECONDS) + inv.hang_seconds


def _raw_path(inv: Invocation, suffix: str) -> Path:
    return inv.out_file.with_suffix(suffix)


def _run_k6(inv, *, grpc_address, rest_base, proto_paths, ca_file, on_start, on_end) -> Outcome:
    open_model = inv.executor == "constant-arrival-rate"
    duration = inv.duration if inv.duration is not None else PRIMING_MAX_SECONDS
    script = K6_DIR / ("rest.js" if inv.protocol == "rest" else "grpc.js")
    env_args = {
        "EXECUTOR": inv.executor, "VUS": inv.vus, "DURATION": _seconds(duration),
        "ITERATIONS": inv.iterations or 0, "RATE": inv.rate or 0, "KEYS_FILE": inv.keys_file,
        "SUMMARY_OUT": inv.out_file, "OPERATION": inv.operation,
    }
    if inv.protocol == "rest":
        env_args.update(BASE_URL=rest_base, ACCEPT=ACCEPT[inv.encoding],
                        ACCEPT_ENCODING=inv.compression)
    else:
        env_args.update(GRPC_ADDR=grpc_address, METHOD=inv.method, PROTO_PATHS=",".join(proto_paths),
                        TLS="true" if inv.tls else "false")
    if inv.timeout_seconds is not None:
        env_args["TIMEOUT"] = _seconds(inv.timeout_seconds)
    env_args.update(inv.extra_env)
    csv_file = _raw_path(inv, ".csv")
    csv_file.unlink(missing_ok=True)
    cmd = [*inv.prefix, tool_path("k6"), "run", "--quiet", "--no-color", "--no-usage-report", "--address=",
           # status (HTTP or gRPC code) is what the samples' success comes from; the rest is weight
           "--system-tags", "status,scenario"]
    if inv.raw:
        cmd += ["--out", f"csv={csv_file}"]
    for k, v in env_args.items():
        cmd += ["-e", f"{k}={v}"]
    cmd.append(str(script))
    env = dict(os.environ, K6_NO_USAGE_REPORT="true", K6_CSV_TIME_FORMAT="unix_micro", K6_CSV_SAVE_INTERVAL="1s")
    env.pop("SSL_CERT_FILE", None)
    if inv.tls:
        env["SSL_CERT_FILE"] = str(ca_file)
    if inv.protocol == "rest" and inv.http != "2":
        # Go's client takes h2 whenever ALPN offers it (a TLS port of a service with HTTP/2 on)
        env["GODEBUG"] = "http2client=0"
    cpu, wall = _run(cmd, inv.log_file, _timeout(inv), env, on_start, on_end)
    if not inv.out_file.exists():
        raise LoadGenError(f"k6 wrote no summary ({inv.out_file}); see {inv.log_file}")
    measurement = parse_k6.parse(inv.out_file, open_model=open_model, duration=duration if open_model else None)
    samples = raw.from_k6_csv(csv_file, inv.protocol) if inv.raw else None
    if samples is not None:
        samples.body_bytes = measurement["bodyBytes"]
        _discard(csv_file)
    return Outcome(measurement, cpu, wall, [], samples)


def _run_ghz(inv, *, grpc_address, rest_base, proto_paths, ca_file, on_start, on_end) -> Outcome:
    open_model = inv.executor == "constant-arrival-rate"
    proto = "tandem/v1/hello.proto" if inv.operation == "Hello" else "tandem/v1/study_groups.proto"
    proto_file = next((Path(p) / proto for p in proto_paths if (Path(p) / proto).exists()), None)
    if proto_file is None:
        raise LoadGenError(f"{proto} not under {proto_paths}")
    transport = ["--cacert", str(ca_file)] if inv.tls else ["--insecure"]
    cmd = [*inv.prefix, tool_path("ghz"), *transport, "--proto", str(proto_file), "--import-paths", ",".join(proto_paths),
           "--call", inv.method, "--data-file", str(inv.keys_file),
           "--concurrency", str(inv.vus), "--connections", str(inv.vus),
           "--format", "json", "--output", str(inv.out_file)]
    if inv.executor == "shared-iterations" and inv.duration is None:
        # a fixed set (the priming pass): every key once, bounded by count. (ghz v0.120.0
        # ignores --total when --max-duration is given and runs for the whole duration.)
        cmd += ["--total", str(inv.iterations)]
    else:
        # wait: calls in flight when the window closes finish and count, as k6's graceful stop
        # lets its iterations finish (ghz's default, close, cancels them and reports errors)
        cmd += ["--duration", _seconds(inv.duration), "--duration-stop", "wait"]
    rps = int(inv.rate) if open_model else None
    if open_model:
        # --async: each call starts on its tick, not when a worker is free, so latency is timed
        # from the intended send (no coordinated omission); --concurrency bounds the workers
        cmd += ["--rps", str(rps), "--async"]
    if inv.compression == "gzip":
        # compresses each request: how a gRPC client asks for compressed responses
        cmd.append("--enable-compression")
    if inv.timeout_seconds is not None:
        # the call's deadline, which gRPC also sends to the service (grpc-timeout); past it the call
        # ends DEADLINE_EXCEEDED
        cmd += ["--timeout", _seconds(inv.timeout_seconds)]
    cmd.append(grpc_address)
    cpu, wall = _run(cmd, inv.log_file, _timeout(inv), None, on_start, on_end)
    measurement, notes = parse_ghz.parse_with_notes(inv.out_file, open_model=open_model)
    # open model: latency from each call's due time, also where ghz's pacer fell behind
    samples = raw.from_ghz(inv.out_file, planned_rate=rps) if inv.raw else None
    _discard(inv.out_file)  # ~100 bytes per call; parsed, not needed any more
    return Outcome(measurement, cpu, wall, notes, samples)


H2LOAD_IDLE_SECONDS = 10
H2LOAD_TOTALS = re.compile(r"requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, "
                           r"(\d+) errored, (\d+) timeout")
H2LOAD_TRAFFIC = re.compile(r"traffic: .*?\((\d+)\) total, .*?\((\d+)\) headers .*?, .*?\((\d+)\) data")


def parse_h2load_stdout(text: str, source: str = "h2load") -> dict:
    m = H2LOAD_TOTALS.search(text)
    t = H2LOAD_TRAFFIC.search(text)
    if not m or not t:
        raise LoadGenError(f"{source}: no 'requests:'/'traffic:' lines in h2load's output")
    total, started, done, succeeded, failed, errored, timeout = (int(x) for x in m.groups())
    wire_total, headers, data = (int(x) for x in t.groups())
    return {"requests": done, "succeeded": succeeded, "failed": failed + errored + timeout,
            "wireBytesReceived": wire_total, "headerBytes": headers, "dataBytes": data}


def _run_h2load(inv, *, grpc_address, rest_base, proto_paths, ca_file, on_start, on_end) -> Outcome:
    """Closed model: vus requests in flight over vus / streams connections (--clients), each with
    --max-concurrent-streams streams (1: one request per connection, as k6's VUs; more: HTTP/2
    multiplexing), for --duration; one thread (the generator has one core)."""
    if inv.executor == "constant-arrival-rate":
        raise LoadGenError("h2load cells are closed-model (use oha or k6 for REST, ghz for gRPC in the open model)")
    log_file = _raw_path(inv, ".h2load.log")
    log_file.unlink(missing_ok=True)
    stdout_file = _raw_path(inv, ".h2load.txt")
    if inv.vus % inv.streams:
        raise LoadGenError(f"{inv.out_file.name}: {inv.vus} users do not split into connections of {inv.streams} streams")
    # "When no timeout value is set, h2load will keep a connection open indefinitely, waiting for
    # a response" (h2load --help). Once, in a TLS warm-up pass right after a start, h2load stopped
    # its clients and never exited (killed after 61 s, and the run with it; not reproduced since).
    # An idle connection is closed after H2LOAD_IDLE_SECONDS; its requests count as timeouts.
    cmd = [*inv.prefix, tool_path("h2load"), "--clients", str(inv.vus // inv.streams),
           "--max-concurrent-streams", str(inv.streams),
           "--threads", "1", "--connection-inactivity-timeout", str(H2LOAD_IDLE_SECONDS)]
    if inv.raw:
        cmd += ["--log-file", str(log_file)]
    if inv.executor == "shared-iterations" or inv.duration is None:
        cmd += ["--requests", str(inv.iterations)]
    else:
        # h2load takes whole seconds only ("-D: value error 7.5")
        cmd += ["--duration", str(max(1, round(inv.duration)))]
    if inv.protocol == "rest":
        if inv.http != "2":
            raise LoadGenError("h2load drives REST over HTTP/2 only (its HTTP/1.1 parser fails on Tomcat's status line)")
        cmd += [a for h in rest_headers(inv.encoding, inv.compression, inv.revalidate) for a in ("--header", h)]
        cmd += ["--input-file", str(inv.uris_file)]
    else:
        scheme = "https" if inv.tls else "http"
        cmd += ["--header", "content-type: application/grpc", "--header", "te: trailers"]
        if inv.compression == "gzip":
            cmd += [a for h in GRPC_GZIP_HEADERS for a in ("--header", h)]
        cmd += ["--data", str(inv.request_frame), f"{scheme}://{grpc_address}/{inv.method}"]
    cpu, wall = _run(cmd, inv.log_file, _timeout(inv), None, on_start, on_end, stdout_file=stdout_file)
    text = stdout_file.read_text(errors="replace")
    with open(inv.log_file, "a") as log:
        log.write(text)
    totals = parse_h2load_stdout(text, str(stdout_file))
    samples = raw.from_h2load_log(log_file) if inv.raw else None
    done = max(totals["requests"], 1)
    measurement = {
        "requests": totals["requests"], "errors": totals["failed"],
        # HTTP/2 DATA payload per request: for gRPC the frame (5-byte prefix + message), for REST
        # over HTTP/1.1 the body; headers and framing are the rest of wireBytesReceived
        "dataBytesPerRequest": totals["dataBytes"] / done,
        "wireBytesSentPerRequest": None, "wireBytesReceivedPerRequest": totals["wireBytesReceived"] / done,
        "droppedIterations": None, "achievedRate": None,
    }
    _discard(log_file)
    _discard(stdout_file)
    return Outcome(measurement, cpu, wall, [], samples)


def _run_oha(inv, *, grpc_address, rest_base, proto_paths, ca_file, on_start, on_end) -> Outcome:
    if inv.protocol != "rest":
        raise LoadGenError("oha drives REST only (gRPC: ghz or h2load)")
    db = _raw_path(inv, ".oha.db")
    db.unlink(missing_ok=True)
    open_model = inv.executor == "constant-arrival-rate"
    cmd = [*inv.prefix, tool_path("oha"), "--no-tui", "--output-format", "json", "--output", str(inv.out_file),
           "-c", str(inv.vus), "--urls-from-file", str(inv.uris_file), "--worker-threads", "1",
           # calls in flight at the deadline finish and count, as with k6 and ghz
           "--wait-ongoing-requests-after-deadline",
           # oha asks for gzip, compress, deflate and br unless told otherwise, and the services
           # gzip a body of 1 KB or more for a client that asks: the cell's own Accept-Encoding
           *[a for h in rest_headers(inv.encoding, inv.compression, inv.revalidate) for a in ("-H", h)]]
    if inv.http == "2":
        cmd.append("--http2")
    if inv.tls:
        cmd += ["--cacert", str(ca_file)]
    if inv.raw:
        cmd += ["--db-url", str(db)]
    if inv.duration is None:
        cmd += ["-n", str(inv.iterations)]
    else:
        cmd += ["-z", f"{_seconds(inv.duration)}"]
    if inv.timeout_seconds is not None:
        cmd += ["-t", _seconds(inv.timeout_seconds)]
    if open_model:
        cmd += ["-q", f"{inv.rate:g}", "--latency-correction"]
    launched_at = time.time()
    cpu, wall = _run(cmd, inv.log_file, _timeout(inv), None, on_start, on_end)
    timed_out, failed = raw.oha_error_counts(inv.out_file)
    report = json.loads(inv.out_file.read_text())
    full_reads = (report.get("statusCodeDistribution") or {}).get("200", 0)
    if inv.revalidate and full_reads:
        # A revalidating cell answered 200 measures full reads under another name: Spring 7 answered
        # If-None-Match: * with 200 and the body until the service handled "*" itself (#14).
        _discard(db)
        raise LoadGenError(f"a revalidating client (If-None-Match: *) was answered 200 with the body {full_reads} "
                           "times: the service does not answer it 304, so the cell would measure full reads")
    samples = raw.from_oha_db(db, launched_at, planned_rate=inv.rate if open_model else None) if inv.raw else None
    measurement = oha_measurement(report, samples, timed_out, failed, open_model=open_model, duration=inv.duration)
    _discard(db)
    _discard(inv.out_file)
    return Outcome(measurement, cpu, wall, [], samples)


def oha_measurement(report: dict, samples: raw.Samples | None, timed_out: int, failed: int, *,
                    open_model: bool, duration: float | None) -> dict:
    """An oha run's totals from its JSON report, its database's samples (None: not kept) and its
    error counts (oha_error_counts). open_model: a -q run; duration: its -z (None: a -n run)."""
    failures = timed_out + failed
    if samples is not None:
        answered, failed_answers = samples.requests, samples.requests - samples.succeeded
    else:
        # no database (a warm-up): the report's status codes count the answered requests
        codes = {int(k): int(n) for k, n in (report.get("statusCodeDistribution") or {}).items()}
        answered = sum(codes.values())
        failed_answers = sum(n for code, n in codes.items() if not 200 <= code < 400)
    requests = answered + failures
    # The arrival rate oha offered: the requests it began per second of its -z. Not per second of
    # summary.total, its whole run, which with --wait-ongoing-requests-after-deadline lasts until its
    # slowest request in flight has its answer: with answers 0.6 s late a 2-s window at 1,000/s read
    # 769/s and was flagged rate-short, as ghz's rps once was (parse_ghz._begun_per_second). A run
    # bounded by count (-n) has no duration: its whole run it is.
    seconds = duration or float((report.get("summary") or {}).get("total") or 0) or 1.0
    return {
        "requests": requests, "errors": failures + failed_answers,
        "wireBytesSentPerRequest": None, "wireBytesReceivedPerRequest": None,
        "droppedIterations": None,
        "achievedRate": requests / seconds if open_model else None,
        # requests that outlived -t: not in oha's database (no response), counted from its report
        "timeouts": timed_out,
    }


def absolute_uris(base: str, paths_json: Path, out: Path) -> Path:
    """The REST key file (a JSON array of paths) as absolute URIs, one per line: what h2load
    --input-file and oha --urls-from-file read."""
    paths = json.loads(Path(paths_json).read_text())
    out.write_text("".join(f"{base}{p}\n" for p in paths))
    return out
