"""The generators as the bench runs them, against local servers: an HTTP/1.1 one that records what
it was sent, and an HTTP/2 one over TLS that is slow to shake hands."""
import http.server
import socket
import ssl
import struct
import threading
import time
import urllib.request

import numpy as np
import pytest

from tandem_bench import loadgen, samples, services


@pytest.fixture
def recorder(request):
    """A server that records the headers of each GET. It answers If-None-Match: * with 304, as the
    service does, unless parametrized with {"answers_any_tag": False} (as Spring alone does)."""
    seen = []
    answers_any_tag = getattr(request, "param", {}).get("answers_any_tag", True)

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            seen.append(dict((k.lower(), v) for k, v in self.headers.items()))
            if answers_any_tag and self.headers.get("If-None-Match") == "*":
                self.send_response(304)
                self.send_header("ETag", '"1.json"')
                self.end_headers()
                return
            body = b'{"id":1}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def test_oha_asks_for_identity_like_the_other_generators(recorder, tmp_path):
    # left to itself oha asks for gzip, compress, deflate and br, and the services gzip a body of
    # 1 KB or more for a client that asks: a REST cell would measure gzip without saying so
    base, seen = recorder
    loadgen.run(_oha_three_gets(base, tmp_path), grpc_address="127.0.0.1:1", rest_base=base, proto_paths=[])
    assert len(seen) == 3
    assert {h.get("accept-encoding") for h in seen} == {"identity"}


def test_a_revalidating_client_sends_if_none_match_and_its_304s_are_successes(recorder, tmp_path):
    base, seen = recorder
    outcome = loadgen.run(_oha_three_gets(base, tmp_path, raw=True, revalidate=True), grpc_address="127.0.0.1:1",
                          rest_base=base, proto_paths=[])
    assert [h.get("if-none-match") for h in seen] == ["*"] * 3
    assert outcome.measurement["requests"] == 3 and outcome.measurement["errors"] == 0
    assert outcome.samples.succeeded == 3


@pytest.mark.parametrize("recorder", [{"answers_any_tag": False}], indirect=True)
def test_a_revalidating_cell_answered_with_full_bodies_fails_instead_of_measuring_full_reads(recorder, tmp_path):
    # Spring 7 answers If-None-Match: * on a GET with 200 and the body; until the service handled
    # "*" itself, the bench's "revalidated" cells measured full reads.
    base, _ = recorder
    with pytest.raises(loadgen.LoadGenError, match="answered 200"):
        loadgen.run(_oha_three_gets(base, tmp_path, raw=True, revalidate=True), grpc_address="127.0.0.1:1",
                    rest_base=base, proto_paths=[])


def _oha_three_gets(base, tmp_path, raw=False, **kw):
    """oha as the bench runs it: one user, three GETs of one group from the recorder."""
    uris = tmp_path / "uris"
    uris.write_text(f"{base}/api/v1/groups/1\n")
    return loadgen.Invocation(protocol="rest", tool="oha", operation="GetGroup", method=None,
                              executor="shared-iterations", vus=1, duration=None, keys_file=tmp_path / "keys.json",
                              out_file=tmp_path / "out.json", log_file=tmp_path / "oha.log", iterations=3, raw=raw,
                              uris_file=uris, **kw)


@pytest.fixture
def slow_tls_h2_server(tmp_path):
    """An HTTP/2 server over TLS that, like a service seconds old under load, takes STALL_SECONDS
    before it shakes hands, then answers every request 200 with no body (all h2load asks of it).
    Just enough HTTP/2 for h2load (RFC 9113: preface, SETTINGS and their ACK, PING, HEADERS with
    the static table's :status 200)."""
    files = services.tls_certificate(tmp_path / "tls")
    urllib.request.install_opener(None)  # tls_certificate installs a trusting opener; not needed here
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(files.certificate, files.private_key)
    context.set_alpn_protocols(["h2"])
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
        return struct.pack(">I", len(payload))[1:] + bytes([kind, flags]) + struct.pack(">I", stream) + payload

    def serve(raw: socket.socket) -> None:
        time.sleep(STALL_SECONDS)
        try:
            with context.wrap_socket(raw, server_side=True) as conn:
                stream = conn.makefile("rb")
                stream.read(24)  # the client's connection preface
                conn.sendall(frame(0x4, 0, 0))  # our SETTINGS: the defaults
                while not stop.is_set():
                    head = stream.read(9)
                    if len(head) < 9:
                        return
                    length, kind, flags, sid = int.from_bytes(head[:3]), head[3], head[4], \
                        int.from_bytes(head[5:]) & 0x7FFFFFFF
                    payload = stream.read(length)
                    if kind == 0x4 and not flags & 0x1:
                        conn.sendall(frame(0x4, 0x1, 0))                  # SETTINGS ACK
                    elif kind == 0x6 and not flags & 0x1:
                        conn.sendall(frame(0x6, 0x1, 0, payload))         # PING ACK
                    elif kind in (0x0, 0x1) and flags & 0x1:              # a request's END_STREAM
                        conn.sendall(frame(0x1, 0x5, sid, b"\x88"))       # :status 200, END_STREAM|END_HEADERS
                    elif kind == 0x7:
                        return
        except (OSError, ssl.SSLError):
            pass

    def accept() -> None:
        while not stop.is_set():
            try:
                raw, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(raw,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"127.0.0.1:{listener.getsockname()[1]}", files.certificate
    finally:
        stop.set()
        listener.close()


STALL_SECONDS = 1.5


def _h2load_grpc_over_tls(tmp_path, frame_file, **timing) -> loadgen.Invocation:
    return loadgen.Invocation(protocol="grpc", tool="h2load", operation="GetGroup",
                              method="tandem.v1.StudyGroupService/GetGroup", vus=4, keys_file=tmp_path / "keys.json",
                              out_file=tmp_path / "out.json", log_file=tmp_path / "h2load.log", raw=False, tls=True,
                              request_frame=frame_file, hang_seconds=3, **timing)


def test_h2load_over_tls_counting_its_calls_outlasts_a_service_slow_to_shake_hands(slow_tls_h2_server, tmp_path):
    # the bench's JIT warm-up makes first contact with a fresh service this way (service_start.ServiceStart.jit_warmup)
    address, certificate = slow_tls_h2_server
    frame_file = tmp_path / "get.frame"
    frame_file.write_bytes(b"\x00\x00\x00\x00\x02\x08\x07")
    counted = _h2load_grpc_over_tls(tmp_path, frame_file, executor="shared-iterations", duration=None, iterations=4)
    outcome = loadgen.run(counted, grpc_address=address, rest_base="http://127.0.0.1:1", proto_paths=[],
                          ca_file=certificate)
    assert outcome.measurement["requests"] == 4 and outcome.measurement["errors"] == 0


def test_h2load_over_tls_whose_duration_ends_during_the_handshake_never_exits(slow_tls_h2_server, tmp_path):
    # why the first contact counts: timed, h2load (nghttp2 1.52) stops its clients at the end of
    # --duration and then waits for ever on those still shaking hands (--connection-inactivity-timeout
    # does not end it); the bench kills it as hung. Should a newer h2load exit, this fails, and
    # the first contact may go back to being timed
    address, certificate = slow_tls_h2_server
    frame_file = tmp_path / "get.frame"
    frame_file.write_bytes(b"\x00\x00\x00\x00\x02\x08\x07")
    timed = _h2load_grpc_over_tls(tmp_path, frame_file, executor="constant-vus", duration=1)
    with pytest.raises(loadgen.LoadGenError, match="did not finish"):
        loadgen.run(timed, grpc_address=address, rest_base="http://127.0.0.1:1", proto_paths=[], ca_file=certificate)



def test_an_open_oha_runs_achieved_rate_is_per_second_of_its_duration_not_of_its_wait_for_late_answers():
    # oha -z 2s -q 1000 --wait-ongoing-requests-after-deadline began its 2,000 requests on time; the
    # last answers came 0.6 s after the deadline, and oha's summary.total (its whole run: lib.rs takes
    # start.elapsed() after the workers it waited for) is 2.6 s. Divided by that, 2,000 requests read
    # as 769/s, under windows.RATE_SHORT of the 1,000/s asked: the window was flagged rate-short, left
    # out of the headlines, and a sweep stopped there with "arrivals dropped or started late".
    sent = 1000.0 + np.arange(2000) / 1000
    lat = np.full(2000, 800.0)
    lat[-1] = 600_000.0
    s = samples.Samples(sent, lat, np.ones(2000, dtype=bool))
    report = {"summary": {"total": 2.6}}
    m = loadgen.oha_measurement(report, s, 0, 0, open_model=True, duration=2.0)
    assert m["requests"] == 2000 and m["achievedRate"] == pytest.approx(1000.0)
    # failures oha counted without a response were begun too
    assert loadgen.oha_measurement(report, s, 3, 1, open_model=True, duration=2.0)["achievedRate"] == pytest.approx(1002.0)
    # a closed run has no arrival rate to fall short of
    assert loadgen.oha_measurement(report, s, 0, 0, open_model=False, duration=2.0)["achievedRate"] is None


def test_an_oha_run_without_its_database_still_counts_its_requests():
    # A warm-up keeps no per-request samples (raw=False), and oha's requests were its failures
    # alone: 0 for every warm-up, so Measure.warm_up, which skips the priming pass when the warm-up
    # asked every hot key, primed after every oha warm-up. The report's status codes count the rest.
    report = {"summary": {"total": 2.0}, "statusCodeDistribution": {"200": 1500, "404": 2}}
    m = loadgen.oha_measurement(report, None, 2, 1, open_model=False, duration=2.0)
    assert m["requests"] == 1505 and m["errors"] == 5
