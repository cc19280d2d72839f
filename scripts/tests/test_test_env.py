"""make test runs without the services' settings that the caller's shell holds (scripts/test-env.sh).

A setting left in the shell (say TANDEM_ADMISSION_ENABLED=true after trying the README's overload
advice) would reach every test's Spring context, the system tests' jars and the README stage's make
run: the tests would check a configuration they did not set up. What moves make test's own servers
(README "Commands") stays.
"""
import os
import re
import subprocess

from readme import ROOT

CALLERS = {
    # the services' settings: dropped
    "TANDEM_ADMISSION_ENABLED": "true",
    "TANDEM_CACHE_MODE": "none",
    "TANDEM_REST_PORT": "18080",
    "SPRING_PROFILES_ACTIVE": "someone-elses",
    "SPRING_DATA_REDIS_HOST": "10.0.0.9",
    "MANAGEMENT_SERVER_PORT": "18082",
    "SERVER_PORT": "18081",
    "LOGGING_LEVEL_ROOT": "TRACE",
    # what moves make test's own servers and finds the JDK: kept
    "TANDEM_DB_PORT": "23306",
    "SPRING_DATA_REDIS_PORT": "26379",
    "TANDEM_RUN_DIR": "/tmp/elsewhere",
    "TANDEM_JVM_DIRS": "/opt/jdks",
    "TANDEM_RESULTS_DIR": "/tmp/results",
    # nobody's business of ours: kept
    "TANDEMONIUM": "1",
    "JAVA_TOOL_OPTIONS": "-Xss1m",
}
DROPPED = {"TANDEM_ADMISSION_ENABLED", "TANDEM_CACHE_MODE", "TANDEM_REST_PORT", "SPRING_PROFILES_ACTIVE",
           "SPRING_DATA_REDIS_HOST", "MANAGEMENT_SERVER_PORT", "SERVER_PORT", "LOGGING_LEVEL_ROOT"}


def test_the_callers_service_settings_are_dropped_and_the_harness_knobs_kept():
    env = {k: v for k, v in os.environ.items() if not re.match(r"(TANDEM|SPRING|MANAGEMENT|SERVER|LOGGING)_", k)}
    env.update(CALLERS)
    run = subprocess.run(["bash", "-c", "source scripts/test-env.sh && drop_service_settings && env -0"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, run.stderr
    after = dict(entry.split("=", 1) for entry in run.stdout.split("\0") if entry)
    assert DROPPED.isdisjoint(after), sorted(DROPPED & after.keys())
    for name in CALLERS.keys() - DROPPED:
        assert after.get(name) == CALLERS[name], name
    # said, each by name, so that a reader knows why make test did not do what the shell asked
    said = run.stderr
    assert "running without these settings" in said, said
    assert all(name in said for name in DROPPED), said


def test_make_test_drops_them_before_its_first_stage():
    # test.sh cannot be run here (it is what runs this test); its order is what matters: the
    # settings go before any stage, so no Maven run, jar or make run of the README stage sees them.
    lines = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8").splitlines()
    def first(pattern):
        return next(i for i, line in enumerate(lines) if re.match(pattern, line))
    assert first(r"source scripts/test-env\.sh$") < first(r"drop_service_settings$") < first(r"stage 1 ")
