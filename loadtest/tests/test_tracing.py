"""The bench measures untraced services: tracing (README, "Tracing") is off in every service it
starts, even when the shell that runs the bench has it on."""
from tandem_bench import services


def test_the_bench_starts_untraced_services_whatever_the_environment_says(tmp_path, monkeypatch):
    monkeypatch.setenv("TANDEM_TRACING_ENABLED", "true")    # a user's setting must not leak in
    ports = services.Ports(28080, 29090, 28081, 28443, 29443)
    svc = services.Services("java", ports, "tandem_bench_s1", tmp_path)
    for service in svc._define("hybrid"):
        assert service.env["TANDEM_TRACING_ENABLED"] == "false", service.name
