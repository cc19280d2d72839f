"""Running the load generators: k6 (REST and gRPC, loadtest/k6/*.js) and ghz (gRPC), each as one
bounded subprocess against 127.0.0.1, with the CPU it used.

Every invocation is bounded twice: by its own settings (a duration, or a number of requests with a
maximum duration) and by a subprocess timeout a little longer than that, after which it is killed.
The CPU a generator used is the change of getrusage(RUSAGE_CHILDREN) user+sys across the
subprocess (it is waited for, so its whole usage is counted), and the percent is that over the
invocation's wall time (start-up included) — percent of one core, on the same two cores as the
services.

TLS cells (Invocation.tls): every generator verifies the services' certificate against the bench's
own self-signed one (scripts/tls-cert.sh) rather than skipping verification, as a real client
would — the handshake then costs what it costs in production. k6 gets it as SSL_CERT_FILE (Go's
crypto/x509 takes its roots from that file: k6 has no CA option for HTTP), for REST over https and
for gRPC with `plaintext: false`; ghz gets `--cacert` instead of `--insecure`. Verification runs
once per connection, and each VU or ghz connection connects once, so it is outside the steady state.
"""
from __future__ import annotations

import io
import os
import re
import resource
import shutil
import subprocess
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

from . import parse_ghz, parse_k6

ROOT = Path(__file__).resolve().parents[2]
K6_DIR = ROOT / "loadtest" / "k6"
PROTO_SRC = ROOT / "proto" / "src" / "main" / "protobuf"
TOOLS_BIN = ROOT / ".tools" / "bin"


PRIMING_MAX_SECONDS = 120


class LoadGenError(RuntimeError):
    pass


def tool_path(name: str) -> str:
    local = TOOLS_BIN / name
    if local.exists():
        return str(local)
    found = shutil.which(name)
    if not found:
        raise LoadGenError(f"{name} not found in .tools/bin or on PATH: run scripts/deps.sh tools")
    return found


def tool_version(name: str) -> str | None:
    try:
        if name == "k6":
            out = subprocess.run([tool_path("k6"), "version"], capture_output=True, text=True, timeout=30).stdout
            m = re.search(r"k6 (v\S+)", out)
            return f"k6 {m.group(1)}" if m else out.strip() or None
        out = subprocess.run([tool_path("ghz"), "--version"], capture_output=True, text=True, timeout=30)
        v = (out.stdout or out.stderr).strip()
        return f"ghz {v if v.startswith('v') else 'v' + v}" if v else None
    except (LoadGenError, OSError, subprocess.SubprocessError):
        return None


# ---------------------------------------------------------------- .proto import paths

PROTO_LIBS = re.compile(r"BOOT-INF/lib/(proto-google-common-protos|grpc-services)-[0-9][^/]*\.jar$")


def extract_protos(service_jar: Path, out_dir: Path) -> list[str]:
    """The import paths k6 and ghz need for tandem/v1/study_groups.proto and
    grpc/health/v1/health.proto: the project's proto sources, and the google/api/*.proto and
    grpc/health/v1/*.proto files taken from the very jars the gRPC service runs with
    (proto-google-common-protos, grpc-services inside its BOOT-INF/lib). google/protobuf/*.proto
    are built into both tools."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    found = []
    with zipfile.ZipFile(service_jar) as outer:
        for name in outer.namelist():
            if not PROTO_LIBS.search(name):
                continue
            found.append(name)
            with zipfile.ZipFile(io.BytesIO(outer.read(name))) as inner:
                for entry in inner.namelist():
                    if entry.endswith(".proto"):
                        target = out_dir / entry
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.write_bytes(inner.read(entry))
    if len(found) < 2 or not (out_dir / "grpc/health/v1/health.proto").exists() \
            or not (out_dir / "google/api/annotations.proto").exists():
        raise LoadGenError(f"{service_jar}: could not find the google/api and grpc health .proto files "
                           f"(found {found})")
    return [str(PROTO_SRC), str(out_dir)]


# ---------------------------------------------------------------- one invocation

@dataclass
class Invocation:
    """One run of a load generator. executor: constant-vus (closed, for duration), shared-iterations
    (each of `iterations` requests on the next key, at most `duration`), constant-arrival-rate
    (open: `rate` per second for duration, at most `vus` in flight)."""
    protocol: str                 # rest | grpc
    tool: str                     # k6 | ghz
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


@dataclass
class Outcome:
    measurement: dict
    cpu_seconds: float
    wall_seconds: float
    notes: list


def _cpu_children() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run(cmd: list[str], log_file: Path, timeout: float, env: dict | None = None) -> tuple[float, float]:
    log_file.parent.mkdir(parents=True, exist_ok=True)
    with open(log_file, "ab") as log:
        log.write((f"\n# {time.strftime('%H:%M:%S')}\n$ " + " ".join(cmd) + "\n").encode())
        log.flush()
        cpu0, t0 = _cpu_children(), time.monotonic()
        try:
            r = subprocess.run(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                               timeout=timeout, env=env, cwd=ROOT)
        except subprocess.TimeoutExpired as e:
            raise LoadGenError(f"{Path(cmd[0]).name} did not finish within {timeout:.0f} s and was killed; "
                               f"see {log_file}") from e
        wall, cpu = time.monotonic() - t0, _cpu_children() - cpu0
        log.write(f"# exit {r.returncode} after {wall:.1f} s, {cpu:.1f} s CPU\n".encode())
    if r.returncode != 0:
        raise LoadGenError(f"{Path(cmd[0]).name} exited {r.returncode}; see {log_file}")
    return cpu, wall


def _seconds(x: float) -> str:
    return f"{max(1, int(round(x * 1000)))}ms"


def run(inv: Invocation, *, grpc_address: str, rest_base: str, proto_paths: list[str],
        ca_file: Path | None = None) -> Outcome:
    """ca_file: the certificate a TLS invocation trusts (required when inv.tls)."""
    if inv.tls and ca_file is None:
        raise LoadGenError(f"{inv.out_file.name}: a TLS invocation needs the certificate to trust (ca_file)")
    if inv.tls and inv.protocol == "rest" and not rest_base.startswith("https://"):
        raise LoadGenError(f"{inv.out_file.name}: a TLS invocation against {rest_base}")
    inv.out_file.parent.mkdir(parents=True, exist_ok=True)
    inv.out_file.unlink(missing_ok=True)
    open_model = inv.executor == "constant-arrival-rate"
    # the invocation stops by itself; the timeout only catches a hung generator
    duration = inv.duration if inv.duration is not None else PRIMING_MAX_SECONDS
    timeout = duration + 60
    if inv.tool == "k6":
        script = K6_DIR / ("rest.js" if inv.protocol == "rest" else "grpc.js")
        env_args = {
            "EXECUTOR": inv.executor, "VUS": inv.vus, "DURATION": _seconds(duration),
            "ITERATIONS": inv.iterations or 0, "RATE": inv.rate or 0, "KEYS_FILE": inv.keys_file,
            "SUMMARY_OUT": inv.out_file, "OPERATION": inv.operation,
        }
        if inv.protocol == "rest":
            env_args["BASE_URL"] = rest_base
        else:
            env_args.update(GRPC_ADDR=grpc_address, METHOD=inv.method, PROTO_PATHS=",".join(proto_paths),
                            TLS="true" if inv.tls else "false")
        env_args.update(inv.extra_env)
        cmd = [tool_path("k6"), "run", "--quiet", "--no-color", "--no-usage-report", "--address="]
        for k, v in env_args.items():
            cmd += ["-e", f"{k}={v}"]
        cmd.append(str(script))
        env = dict(os.environ, K6_NO_USAGE_REPORT="true")
        env.pop("SSL_CERT_FILE", None)
        if inv.tls:
            env["SSL_CERT_FILE"] = str(ca_file)
        cpu, wall = _run(cmd, inv.log_file, timeout, env)
        if not inv.out_file.exists():
            raise LoadGenError(f"k6 wrote no summary ({inv.out_file}); see {inv.log_file}")
        measurement = parse_k6.parse(inv.out_file, open_model=open_model)
        notes = []
    else:
        proto = "grpc/health/v1/health.proto" if inv.operation == "Hello" else "tandem/v1/study_groups.proto"
        proto_file = next((Path(p) / proto for p in proto_paths if (Path(p) / proto).exists()), None)
        if proto_file is None:
            raise LoadGenError(f"{proto} not under {proto_paths}")
        transport = ["--cacert", str(ca_file)] if inv.tls else ["--insecure"]
        cmd = [tool_path("ghz"), *transport, "--proto", str(proto_file), "--import-paths", ",".join(proto_paths),
               "--call", inv.method, "--data-file", str(inv.keys_file),
               "--concurrency", str(inv.vus), "--connections", str(inv.vus),
               "--format", "json", "--output", str(inv.out_file)]
        if inv.executor == "shared-iterations" and inv.duration is None:
            # a fixed set (the priming pass): every key once, bounded by count. (ghz v0.120.0
            # ignores --total when --max-duration is given and runs for the whole duration.)
            cmd += ["--total", str(inv.iterations)]
        else:
            # timed; over a key file, ghz takes request i from entry i mod length, so a window with
            # fewer requests than keys asks each key once (the caller checks the count)
            # wait: calls in flight when the window closes finish and count, as k6's graceful stop
            # lets its iterations finish (ghz's default, close, cancels them and reports errors)
            cmd += ["--duration", _seconds(inv.duration), "--duration-stop", "wait"]
        if open_model:
            cmd += ["--rps", str(int(inv.rate))]
        cmd.append(grpc_address)
        cpu, wall = _run(cmd, inv.log_file, timeout)
        measurement, notes = parse_ghz.parse_with_notes(inv.out_file, open_model=open_model)
    return Outcome(measurement, cpu, wall, notes)
