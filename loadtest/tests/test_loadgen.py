"""The generators as the bench runs them, against a local HTTP server that records what it was sent."""
import http.server
import threading

import pytest

from tandem_bench import loadgen


@pytest.fixture
def recorder():
    seen = []

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            seen.append(dict((k.lower(), v) for k, v in self.headers.items()))
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
    uris = tmp_path / "uris"
    uris.write_text(f"{base}/api/v1/groups/1\n")
    inv = loadgen.Invocation(protocol="rest", tool="oha", operation="GetGroup", method=None,
                             executor="shared-iterations", vus=1, duration=None, keys_file=tmp_path / "keys.json",
                             out_file=tmp_path / "out.json", log_file=tmp_path / "oha.log", iterations=3, raw=False,
                             uris_file=uris)
    loadgen.run(inv, grpc_address="127.0.0.1:1", rest_base=base, proto_paths=[])
    assert len(seen) == 3
    assert {h.get("accept-encoding") for h in seen} == {"identity"}
