"""The bench finds MariaDB and Redis where scripts/servers.sh and the services it starts do: on the
ports of TANDEM_DB_PORT and SPRING_DATA_REDIS_PORT, 13306 and 16379 when they are unset. (It used to
read its database counters on 13306 whatever the services used.)"""
from tandem_bench import probes, servers
from tandem_bench.service_access import ServiceAccess


def test_the_ports_default_to_the_project_servers(monkeypatch):
    monkeypatch.delenv("TANDEM_DB_PORT", raising=False)
    monkeypatch.delenv("SPRING_DATA_REDIS_PORT", raising=False)
    assert (servers.mariadb_port(), servers.redis_port()) == (13306, 16379)
    assert "-P13306" in servers.mysql()


def test_the_ports_move_with_the_variables_the_services_read(monkeypatch):
    monkeypatch.setenv("TANDEM_DB_PORT", "23306")
    monkeypatch.setenv("SPRING_DATA_REDIS_PORT", "26379")
    assert "-P23306" in servers.mysql() and servers.redis_port() == 26379


def test_the_database_counters_are_read_where_the_services_write(monkeypatch):
    monkeypatch.setenv("TANDEM_DB_PORT", "23306")
    asked = []
    monkeypatch.setattr(probes, "db_counters", lambda port: asked.append(port) or {"rowsRead": 0, "queries": 0})
    bench = ServiceAccess()
    bench.target = None  # the bench's own services, not a deployment given by TARGET
    bench.read_db()
    assert asked == [23306]
