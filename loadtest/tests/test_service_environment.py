"""The environment the bench starts the services with: their per-client rate limit on, as a
deployment runs it, and the bench's own clients exempt by configuration, whatever the user's; the
profile's admission settings, under the user's."""
from tandem_bench import assemble, orchestrate, services


def test_the_services_limit_clients_but_exempt_the_benchs_own(tmp_path, monkeypatch):
    monkeypatch.setenv("TANDEM_RATE_LIMIT_ENABLED", "false")              # a user's setting must not leak in
    monkeypatch.setenv("TANDEM_RATE_LIMIT_EXEMPT_ADDRESSES", "10.0.0.1")
    svc = services.Services("java", services.Ports(28080, 29090, 28081, 28443, 29443), "tandem_bench_s1", tmp_path)
    defined = svc._define("hybrid")
    assert {s.name for s in defined} == {"rest-service", "grpc-service"}
    for service in defined:
        assert service.env["TANDEM_RATE_LIMIT_ENABLED"] == "true"
        # every generator and probe connects to 127.0.0.1 (or ::1 for "localhost")
        assert service.env["TANDEM_RATE_LIMIT_EXEMPT_ADDRESSES"].split(",") == ["127.0.0.1", "::1"]


def test_the_profile_s_admission_settings_reach_the_services_and_the_environment_wins(tmp_path, monkeypatch):
    monkeypatch.delenv("TANDEM_ADMISSION_MAX_LIMIT", raising=False)
    monkeypatch.setenv("TANDEM_ADMISSION_ENABLED", "false")   # a run without it: TANDEM_ADMISSION_ENABLED=false make bench
    svc = services.Services("java", services.Ports(28080, 29090, 28081, 28443, 29443), "tandem_bench_s1", tmp_path,
                            profile_env={"TANDEM_ADMISSION_ENABLED": "true", "TANDEM_ADMISSION_MAX_LIMIT": "100"})
    for service in svc._define("hybrid"):
        assert service.env["TANDEM_ADMISSION_MAX_LIMIT"] == "100"
        assert service.env["TANDEM_ADMISSION_ENABLED"] == "false"


def test_run_json_records_the_admission_settings_in_force_and_none_against_a_target():
    settings = {"admission_env": {"TANDEM_ADMISSION_ENABLED": "true", "TANDEM_ADMISSION_MAX_LIMIT": "100"}}
    environ = {"TANDEM_ADMISSION_ENABLED": "false", "PATH": "/usr/bin"}
    assert assemble.admission_settings(settings, environ, against_target=False) == {
        "TANDEM_ADMISSION_ENABLED": "false", "TANDEM_ADMISSION_MAX_LIMIT": "100"}
    assert assemble.admission_settings({}, {}, against_target=False) == {}
    assert assemble.admission_settings(settings, environ, against_target=True) == {}


def test_the_user_s_java_options_come_after_the_bench_s_so_that_they_win():
    assert orchestrate.service_java_options({}, ["-XX:ActiveProcessorCount=1"]) == \
        orchestrate.JAVA_OPTIONS + ["-XX:ActiveProcessorCount=1"]
    got = orchestrate.service_java_options({"TANDEM_BENCH_JAVA_OPTIONS": " -XX:+UseZGC  -Xmn256m "}, [])
    assert got == orchestrate.JAVA_OPTIONS + ["-XX:+UseZGC", "-Xmn256m"]
