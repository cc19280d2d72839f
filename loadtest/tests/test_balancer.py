"""The compose balancer as the bench runs it in front of its services for overload cells that go
through it: the real nginx from the file compose runs (scripts/balancer.sh render), one process, its
REST limit read from the rendered file, and the cells' requests sent to it."""
import os
import random
import socket
from pathlib import Path

import pytest

from tandem_bench import loadgen, services
from tandem_bench.service_access import ServiceAccess
from tandem_bench.services import Ports, Services, http_get


def free_port() -> int:
    """A free port below the kernel's ephemeral range, as test-support's FreePort picks one: a port
    from bind(0) is ephemeral, and an outgoing connection can take it before nginx binds it."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        ephemeral_low = int(f.read().split()[0])
    for _ in range(100):
        port = random.randrange(20000, ephemeral_low)
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
            return port
    raise RuntimeError("no free loopback port below the ephemeral range")


@pytest.fixture
def bench_services(tmp_path):
    # upstream ports nothing listens on: the balancer's own health needs none, a proxied request 502s
    ports = Ports(rest=free_port(), grpc=free_port(), grpc_management=free_port(),
                  balancer_rest=free_port(), balancer_grpc=free_port())
    s = Services("java", ports, "tandem_bench_test", tmp_path / "logs")
    (tmp_path / "logs").mkdir()
    yield s
    s.stop()


def test_the_balancer_runs_as_one_nginx_process_from_the_compose_file_and_stops(bench_services):
    bench_services.start_balancer()
    pid = bench_services.pids()["balancer"]
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    assert children == [], "one process to pin, cap and count: no worker forked"
    assert bench_services.balancer_rest_in_flight == services.rest_in_flight(
        (services.ROOT / "deploy/compose/nginx.conf").read_text())
    base = bench_services.ports.balancer_rest_base
    assert http_get(f"{base}/balancer-health")[0] == 200
    assert http_get(f"{base}/api/v1/groups/1")[0] == 502, "proxied to the (absent) REST service"
    bench_services.check_alive()
    bench_services.stop()
    assert "balancer" not in bench_services.pids()
    assert not os.path.exists(f"/proc/{pid}") or Path(f"/proc/{pid}/stat").read_text().split()[2] == "Z"


def test_the_limit_comes_from_the_environment_as_the_services_settings_do(bench_services, monkeypatch):
    monkeypatch.setenv("TANDEM_BALANCER_REST_IN_FLIGHT", "7")
    bench_services.start_balancer()
    assert bench_services.balancer_rest_in_flight == 7
    rendered = (bench_services.log_dir.parent / "balancer" / "nginx.conf").read_text()
    assert services.rest_in_flight(rendered) == 7


def test_a_taken_port_is_reported_rather_than_measured_through(bench_services):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", bench_services.ports.balancer_rest))
        taken.listen()
        with pytest.raises(services.ServiceError, match="taken by another process"):
            bench_services.start_balancer()


def test_cells_through_the_balancer_send_their_requests_to_it():
    class Bench(ServiceAccess):
        target = None
        ports = Ports()
    bench = Bench()
    assert bench.rest_base(False, "balancer") == "http://127.0.0.1:18088"
    assert bench.grpc_address(False, "balancer") == "127.0.0.1:19098"
    assert bench.rest_base(False) == "http://127.0.0.1:18080" and bench.grpc_address(False) == "127.0.0.1:19090"
    assert loadgen.Invocation.__dataclass_fields__["front"].default is None


def test_the_rest_limit_is_read_from_a_configuration():
    assert services.rest_in_flight("  limit_conn rest_in_flight 32;\n") == 32
    assert services.rest_in_flight("limit_conn other 5;") is None
