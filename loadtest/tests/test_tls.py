"""The bench's side of TLS: the certificate from scripts/tls-cert.sh, the scheme of the REST base
URL, and that the bench's own HTTP reads (health, /actuator/cache, metrics) trust that certificate
— with a real handshake against a local HTTPS server that presents it."""
import http.server
import ssl
import threading
import urllib.error
import urllib.request

import pytest

from tandem_bench import services


@pytest.fixture
def restore_urllib():
    yield
    urllib.request.install_opener(None)  # back to urllib's default opener


def test_tls_cells_use_the_extra_ports_and_the_bench_reads_the_plain_ones():
    ports = services.Ports(28080, 29090, 28081, 28443, 29443)
    assert ports.rest_base_for(False) == ports.rest_base == "http://127.0.0.1:28080"
    assert ports.rest_base_for(True) == "https://127.0.0.1:28443"
    assert ports.grpc_address_for(False) == "127.0.0.1:29090"
    assert ports.grpc_address_for(True) == "127.0.0.1:29443"
    # health, cache and metrics always over plain HTTP
    assert ports.management_base("grpc") == "http://127.0.0.1:28081"
    assert ports.management_base("rest") == "http://127.0.0.1:28080"


def test_services_get_a_tls_extra_port_next_to_their_plain_ones_only_for_tls_cells(tmp_path, monkeypatch):
    monkeypatch.setenv("TANDEM_TLS_ENABLED", "true")        # a user's setting must not leak in
    monkeypatch.setenv("TANDEM_TLS_EXTRA_PORT", "8443")
    ports = services.Ports(28080, 29090, 28081, 28443, 29443)
    svc = services.Services("java", ports, "tandem_bench_s1", tmp_path)
    files = services.TlsFiles(tmp_path / "c.crt", tmp_path / "k.key")
    plain = {s.name: s for s in svc._define("hybrid")}
    tls = {s.name: s for s in svc._define("hybrid", files)}
    for name in ("rest-service", "grpc-service"):
        assert plain[name].env["TANDEM_TLS_ENABLED"] == "false" and "TANDEM_TLS_CERTIFICATE" not in plain[name].env
        assert "TANDEM_TLS_EXTRA_PORT" not in plain[name].env
        # the API ports stay plain: TLS is on the extra port of the same process
        assert tls[name].env["TANDEM_TLS_ENABLED"] == "false"
        assert tls[name].env["TANDEM_TLS_CERTIFICATE"] == str(files.certificate)
        assert tls[name].env["TANDEM_TLS_PRIVATE_KEY"] == str(files.private_key)
    assert tls["rest-service"].env["TANDEM_TLS_EXTRA_PORT"] == "28443"
    assert tls["grpc-service"].env["TANDEM_TLS_EXTRA_PORT"] == "29443"
    # a start waits for, and first checks that nothing else holds, every port it uses
    assert plain["rest-service"].ports == (28080,) and tls["rest-service"].ports == (28080, 28443)
    assert plain["grpc-service"].ports == (29090, 28081) and tls["grpc-service"].ports == (29090, 28081, 29443)


def test_the_bench_trusts_its_certificate_in_a_real_handshake(tmp_path, restore_urllib):
    files = services.tls_certificate(tmp_path / "tls")  # also installs the trusting opener
    assert files.certificate.read_text().startswith("-----BEGIN CERTIFICATE-----")
    assert (files.certificate.stat().st_mode & 0o777, files.private_key.stat().st_mode & 0o777) == (0o644, 0o600)
    # idempotent: a pair still valid is kept
    assert services.tls_certificate(tmp_path / "tls") == files
    assert files.certificate.read_bytes() == (tmp_path / "tls" / "tandem.crt").read_bytes()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = b'{"status":"UP"}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(files.certificate, files.private_key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"https://127.0.0.1:{server.server_address[1]}/actuator/health"
        assert services.http_get(url, timeout=10) == (200, b'{"status":"UP"}')
        # without the bench's opener the same certificate is not trusted
        urllib.request.install_opener(None)
        with pytest.raises(urllib.error.URLError, match="CERTIFICATE_VERIFY_FAILED"):
            services.http_get(url, timeout=10)
    finally:
        server.shutdown()
        server.server_close()
