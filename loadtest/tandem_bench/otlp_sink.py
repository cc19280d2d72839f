"""A tiny OTLP/HTTP receiver for traced services: it accepts every POST of spans (…/v1/traces),
counts the exports and the spans in them per path, and answers 200 with an empty
ExportTraceServiceResponse. The bench runs one in its own process for the cells of the tracing
dimension (each service exports to its own path, so the counts say which service sent what);
scripts/tracing-cost.sh runs it as `python3 -m tandem_bench.otlp_sink PORT`.

A real collector would do more with the spans (decode, batch, forward); the sink's work is not
the service's, and what the service spends making, batching, encoding and sending them is.
"""
from __future__ import annotations

import gzip
import http.server
import sys
import threading


def _varint(data: bytes, i: int) -> tuple[int, int]:
    shift = value = 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, i
        shift += 7


def _fields(data: bytes):
    """(field number, value) of a protobuf message's top-level fields: a length-delimited
    field's value is its bytes, the others' are skipped (None)."""
    i = 0
    while i < len(data):
        key, i = _varint(data, i)
        number, kind = key >> 3, key & 7
        if kind == 0:
            _, i = _varint(data, i)
            yield number, None
        elif kind == 1:
            i += 8
            yield number, None
        elif kind == 2:
            n, i = _varint(data, i)
            yield number, data[i:i + n]
            i += n
        elif kind == 5:
            i += 4
            yield number, None
        else:
            raise ValueError(f"protobuf wire type {kind} not expected in OTLP")


def span_count(body: bytes) -> int:
    """Spans in an ExportTraceServiceRequest (protobuf): resource_spans (1) → scope_spans (2) →
    spans (2), counted without decoding the spans themselves."""
    return sum(1 for rn, resource in _fields(body) if rn == 1
               for sn, scope in _fields(resource) if sn == 2
               for pn, _ in _fields(scope) if pn == 2)


class OtlpSink:
    """Listens on 127.0.0.1:port (0: any free port) in a daemon thread; counts() per request path."""

    def __init__(self, port: int = 0):
        sink = self
        self._lock = threading.Lock()
        self._counts: dict[str, dict[str, int]] = {}

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                try:
                    message = gzip.decompress(body) if self.headers.get("Content-Encoding") == "gzip" else body
                    spans = span_count(message) if "protobuf" in (self.headers.get("Content-Type") or "") else 0
                except (ValueError, IndexError, OSError):
                    spans = 0   # not OTLP protobuf (JSON, or broken): counted as an export without spans
                sink._add(self.path, len(body), spans)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self._thread = threading.Thread(target=self.server.serve_forever, name="otlp-sink", daemon=True)

    def _add(self, path: str, size: int, spans: int) -> None:
        with self._lock:
            c = self._counts.setdefault(path, {"exports": 0, "spans": 0, "bytes": 0})
            c["exports"] += 1
            c["spans"] += spans
            c["bytes"] += size

    def endpoint(self, name: str) -> str:
        """The OTLP traces endpoint a service named `name` exports to (its own path)."""
        return f"http://127.0.0.1:{self.port}/{name}/v1/traces"

    def spans(self, name: str) -> int:
        with self._lock:
            return self._counts.get(f"/{name}/v1/traces", {}).get("spans", 0)

    def counts(self) -> dict[str, dict[str, int]]:
        with self._lock:
            return {path: dict(c) for path, c in self._counts.items()}

    def __enter__(self) -> "OtlpSink":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def main(argv: list[str] | None = None) -> int:
    """python3 -m tandem_bench.otlp_sink PORT: serve until killed."""
    port = int((argv if argv is not None else sys.argv[1:])[0])
    with OtlpSink(port) as sink:
        sink._thread.join()
    return 0


if __name__ == "__main__":
    sys.exit(main())
