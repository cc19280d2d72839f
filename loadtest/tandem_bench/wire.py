"""gRPC requests as bytes, and response body sizes measured the same way on both wires.

h2load speaks HTTP/2, not gRPC: it sends one pre-encoded request body, a gRPC frame (1 byte
"not compressed", 4 bytes big-endian length, the Protobuf message), as HttpArena's gRPC tests do.
The message is encoded with protobuf's own JSON parser (json_format) from the same request dicts
k6 and ghz send, against the descriptors grpcurl compiles from the project's .proto files
(-protoset-out), so no field number is written by hand.

Body bytes: the same client (curl) fetches the same keys on both wires and counts the bytes of the
response body as it travelled — the JSON document or Protobuf message for REST (gzip-compressed
when the cell asks for gzip), the Protobuf message (the gRPC frame minus its 5-byte prefix,
compressed when the call asked) for gRPC — instead of a server-side counter on one wire only.
"""
from __future__ import annotations

import concurrent.futures
import gzip
import json
import struct
import subprocess
from pathlib import Path

from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

from . import loadgen


class WireError(RuntimeError):
    pass


PROTO_FILES = ("tandem/v1/study_groups.proto", "tandem/v1/hello.proto")


def descriptor_set(proto_paths: list[str], out: Path) -> Path:
    files = [f for f in PROTO_FILES if any((Path(p) / f).exists() for p in proto_paths)]
    cmd = [loadgen.tool_path("grpcurl")]
    for p in proto_paths:
        cmd += ["-import-path", p]
    for f in files:
        cmd += ["-proto", f]
    cmd += ["-protoset-out", str(out), "describe"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if r.returncode != 0 or not out.exists():
        raise WireError(f"grpcurl could not compile {files}: {r.stderr.strip()[-400:]}")
    return out


class Encoder:
    def __init__(self, protoset: Path):
        fds = descriptor_pb2.FileDescriptorSet.FromString(Path(protoset).read_bytes())
        self.pool = descriptor_pool.DescriptorPool()
        for f in fds.file:
            self.pool.Add(f)

    def request_class(self, method: str):
        service, _, rpc = method.partition("/")
        desc = self.pool.FindServiceByName(service).FindMethodByName(rpc).input_type
        return message_factory.GetMessageClass(desc)

    def encode(self, method: str, request: dict) -> bytes:
        message = json_format.ParseDict(request, self.request_class(method)())
        return message.SerializeToString()


def frame(message: bytes, compressed: bool = False) -> bytes:
    """A gRPC length-prefixed message: uncompressed, or gzip-compressed with the flag set (what a
    call that asks for compression sends, with grpc-encoding: gzip)."""
    if compressed:
        message = gzip.compress(message, mtime=0)
    return struct.pack(">BI", 1 if compressed else 0, len(message)) + message



def _curl(args: list[str], ca_file: Path | None) -> tuple[bytes, dict]:
    cmd = ["curl", "-sS", "--max-time", "10", "-D", "-", *(["--cacert", str(ca_file)] if ca_file else []), *args]
    r = subprocess.run(cmd, capture_output=True, timeout=30)
    if r.returncode != 0:
        raise WireError(f"curl {' '.join(args[-1:])} failed: {r.stderr.decode(errors='replace').strip()}")
    head, _, body = r.stdout.partition(b"\r\n\r\n")
    headers = {}
    for line in head.decode(errors="replace").splitlines()[1:]:
        k, _, v = line.partition(":")
        headers[k.strip().lower()] = v.strip()
    return body, headers


def rest_body(base: str, path: str, ca_file: Path | None = None, headers: list[str] | None = None) -> bytes:
    """The body as it travelled (curl does not decompress without --compressed)."""
    args = [a for h in headers or [] for a in ("-H", h)]
    body, _ = _curl([*args, f"{base}{path}"], ca_file)
    return body


def grpc_call(base: str, method: str, request_frame: bytes, ca_file: Path | None = None,
              headers: list[str] | None = None) -> tuple[bytes, str]:
    """(response message as it travelled, grpc-status) of one unary call over HTTP/2 (h2c prior
    knowledge on http). curl prints trailers with the headers (-D -)."""
    scheme_args = ["--http2-prior-knowledge"] if base.startswith("http://") else ["--http2"]
    cmd_args = [*scheme_args, "-H", "content-type: application/grpc", "-H", "te: trailers",
                *[a for h in headers or [] for a in ("-H", h)], "--data-binary", "@-", f"{base}/{method}"]
    cmd = ["curl", "-sS", "--max-time", "10", "-D", "/dev/stderr", "-o", "-",
           *(["--cacert", str(ca_file)] if ca_file else []), *cmd_args]
    r = subprocess.run(cmd, input=request_frame, capture_output=True, timeout=30)
    if r.returncode != 0:
        raise WireError(f"curl {method} failed (exit {r.returncode})")
    status = None
    for line in r.stderr.decode(errors="replace").splitlines():
        if line.lower().startswith("grpc-status:"):
            status = line.split(":", 1)[1].strip()
    body = r.stdout
    if len(body) < 5:
        return b"", status or "?"
    _, length = struct.unpack(">BI", body[:5])
    return body[5:5 + length], status or "?"


def body_sizes(protocol: str, *, rest_base: str, grpc_base: str, encoder: Encoder | None, method: str | None,
               requests: list, ca_file: Path | None = None, encoding: str = "json",
               compression: str = "identity", workers: int = 1) -> list[int]:
    """Each response body's size over `requests` (REST paths or gRPC request dicts) as it
    travelled, in their order, fetched with curl asking for what the cell asks for (REST: its
    encoding and compression; gRPC: a compressed call for gzip); every call must succeed. workers:
    curls at once (each is a process of its own: a few hundred one after the other take seconds)."""
    gzip_call = compression == "gzip"

    def size(req) -> int:
        if protocol == "rest":
            return len(rest_body(rest_base, req, ca_file, loadgen.rest_headers(encoding, compression)))
        msg, status = grpc_call(grpc_base, method, frame(encoder.encode(method, req), compressed=gzip_call),
                                ca_file, loadgen.GRPC_GZIP_HEADERS if gzip_call else None)
        if status != "0":
            raise WireError(f"{method} {json.dumps(req)}: grpc-status {status}")
        return len(msg)

    if workers > 1 and len(requests) > 1:
        with concurrent.futures.ThreadPoolExecutor(min(workers, len(requests))) as pool:
            return list(pool.map(size, requests))
    return [size(req) for req in requests]


def mean_body_bytes(protocol: str, *, rest_base: str, grpc_base: str, encoder: Encoder | None, method: str | None,
                    requests: list, ca_file: Path | None = None, encoding: str = "json",
                    compression: str = "identity") -> float:
    """The mean response body size over `requests` as it travelled (body_sizes)."""
    sizes = body_sizes(protocol, rest_base=rest_base, grpc_base=grpc_base, encoder=encoder, method=method,
                       requests=requests, ca_file=ca_file, encoding=encoding, compression=compression)
    if not sizes:
        raise WireError("no request to measure")
    return sum(sizes) / len(sizes)
