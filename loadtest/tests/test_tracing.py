"""The bench and tracing (README, "Tracing"): services are untraced unless a cell of the tracing
dimension asks, traced ones export to the bench's own OTLP sink (which counts what arrives), and
traced cells get service starts of their own."""
import gzip
import urllib.request

import pytest

from tandem_bench import otlp_sink, profile, services, target as targets


def test_the_bench_starts_untraced_services_whatever_the_environment_says(tmp_path, monkeypatch):
    monkeypatch.setenv("TANDEM_TRACING_ENABLED", "true")    # a user's setting must not leak in
    ports = services.Ports(28080, 29090, 28081, 28443, 29443)
    svc = services.Services("java", ports, "tandem_bench_s1", tmp_path)
    for service in svc._define("hybrid"):
        assert service.env["TANDEM_TRACING_ENABLED"] == "false", service.name


def test_traced_services_sample_every_request_and_export_to_their_own_path_of_the_sink(tmp_path, monkeypatch):
    monkeypatch.setenv("MANAGEMENT_TRACING_SAMPLING_PROBABILITY", "0.01")   # nor this one
    monkeypatch.setenv("MANAGEMENT_OPENTELEMETRY_TRACING_EXPORT_OTLP_ENDPOINT", "http://elsewhere:4318/v1/traces")
    svc = services.Services("java", services.Ports(28080, 29090, 28081, 28443, 29443), "tandem_bench_s1", tmp_path)
    sink = otlp_sink.OtlpSink()
    try:
        traced = {s.name: s.env for s in svc._define("hybrid", tracing=sink)}
        untraced = {s.name: s.env for s in svc._define("hybrid")}
    finally:
        sink.server.server_close()
    for name in ("rest-service", "grpc-service"):
        assert traced[name]["TANDEM_TRACING_ENABLED"] == "true"
        assert traced[name]["MANAGEMENT_TRACING_SAMPLING_PROBABILITY"] == "1.0"
        assert traced[name]["MANAGEMENT_OPENTELEMETRY_TRACING_EXPORT_OTLP_ENDPOINT"] == \
            f"http://127.0.0.1:{sink.port}/{name}/v1/traces"
        assert "MANAGEMENT_TRACING_SAMPLING_PROBABILITY" not in untraced[name]
        assert "MANAGEMENT_OPENTELEMETRY_TRACING_EXPORT_OTLP_ENDPOINT" not in untraced[name]


def _len(n: int) -> bytes:
    out = bytearray()
    while True:
        if n < 0x80:
            return bytes(out + bytes([n]))
        out.append((n & 0x7F) | 0x80)
        n >>= 7


def _field(number: int, payload: bytes) -> bytes:
    return bytes([number << 3 | 2]) + _len(len(payload)) + payload


def export_request(spans_per_scope: list[list[int]]) -> bytes:
    """An ExportTraceServiceRequest: per resource, its scopes' span counts; spans with a name and a
    fixed64 start time, scopes with a scope message, resources with attributes (all skipped)."""
    span = _field(5, b"http get /api/v1/groups/{id}") + bytes([7 << 3 | 1]) + b"\x00" * 8 + bytes([6 << 3]) + b"\x02"
    body = b""
    for scopes in spans_per_scope:
        resource = _field(1, _field(1, b"service.name=rest-service"))
        for n in scopes:
            resource += _field(2, _field(1, b"scope") + b"".join(_field(2, span) for _ in range(n)))
        body += _field(1, resource)
    return body


def test_the_sink_counts_the_spans_of_an_export_without_decoding_them():
    assert otlp_sink.span_count(export_request([[3, 200], [1]])) == 204
    assert otlp_sink.span_count(b"") == 0


def test_the_sink_answers_every_export_and_counts_per_service():
    with otlp_sink.OtlpSink() as sink:
        for name, scopes in (("rest-service", [3]), ("rest-service", [2]), ("grpc-service", [5])):
            request = urllib.request.Request(sink.endpoint(name), data=export_request([scopes]),
                                             headers={"Content-Type": "application/x-protobuf"})
            with urllib.request.urlopen(request, timeout=5) as r:
                assert r.status == 200 and r.read() == b""
        # an exporter set to compress its exports
        request = urllib.request.Request(sink.endpoint("grpc-service"), data=gzip.compress(export_request([[2]])),
                                         headers={"Content-Type": "application/x-protobuf", "Content-Encoding": "gzip"})
        urllib.request.urlopen(request, timeout=5).read()
        assert sink.spans("rest-service") == 5 and sink.spans("grpc-service") == 7
        assert sink.counts()["/rest-service/v1/traces"]["exports"] == 2


BASE = {"name": "t", "seed_scale": 100, "repetitions": 2, "duration_seconds": 5, "warmup_seconds": 1,
        "hot_keys": 50}


def test_tracing_twins_get_their_own_service_starts_after_the_untraced_ones():
    cells = profile.expand(profile.normalise({**BASE, "matrix": [
        {"operations": ["GetGroup"], "drivers": ["rest/oha"], "cache_modes": ["hybrid"], "temperatures": ["warm"],
         "concurrency": [50], "tracing": [True, False], "tls": [False, True]}]}))
    assert [c.id for c in cells] == ["rest-oha-GetGroup-hybrid-warm-c50", "rest-oha-GetGroup-hybrid-warm-c50-tls",
                                     "rest-oha-GetGroup-hybrid-warm-c50-traced",
                                     "rest-oha-GetGroup-hybrid-warm-c50-tls-traced"]
    assert [c.service_config for c in cells] == ["hybrid", "hybrid", "hybrid+traced", "hybrid+traced"]


def test_tracing_must_be_a_list_of_booleans():
    with pytest.raises(profile.ProfileError, match="tracing must hold true and/or false"):
        profile.normalise({**BASE, "matrix": [{"operations": ["GetGroup"], "drivers": ["rest/oha"],
                                               "concurrency": [5], "tracing": ["yes"]}]})


def test_a_target_runs_no_traced_cell():
    plain, traced = (profile.CellPlan("rest", "oha", "GetGroup", None, "hybrid", "warm", "closed", 50, None, 3, 1, 1,
                                      tracing=t) for t in (False, True))
    target = targets.parse("rest=http://127.0.0.1:8080,grpc=127.0.0.1:9090")
    plan = targets.plan([plain, traced], "hybrid", target, True, "one instance", True)
    assert plan.cells == [plain] and any("traced" in n for n in plan.notes)
