"""make test drops the log directories that earlier runs' tests left (scripts/prune-test-runs.sh).

Servers a test starts on free ports live under .run/<name>-<port> and leave their logs there; every
run picks new ports, so without this one directory per test class and run accumulated. One whose
servers still run (a test started by hand, another make test) must survive, and so must every
directory that is not a test's (the shared servers', make test's own logs, the bench's, TLS files).
"""
import os
import re
import subprocess

from readme import ROOT


def prune(run_dir):
    run = subprocess.run(["bash", "-c", 'source scripts/prune-test-runs.sh && prune_earlier_test_runs "$1"', "prune",
                          str(run_dir)], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert run.returncode == 0, run.stderr


def test_earlier_runs_go_and_live_or_foreign_directories_stay(tmp_path):
    def made(name, pid=None):
        server = tmp_path / name / "mariadb"
        server.mkdir(parents=True)
        (server / "mariadb.log").write_text("log\n")
        if pid is not None:
            (server / "mariadb.pid").write_text(f"{pid}\n")
        return tmp_path / name

    stopped = made("rolling-31271")                  # stopped as a test stops it: no pid file
    dead = made("outage-db-24670", pid=2 ** 22 + 1)  # above pid_max's ceiling: no such process
    running = made("replica-primary-29399", pid=os.getpid())
    for kept in ("mariadb", "redis", "make-test", "bench", "tls", "redis-cluster-test"):
        made(kept)

    prune(tmp_path)

    assert not stopped.exists() and not dead.exists()
    assert running.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["mariadb", "redis", "make-test", "bench", "tls", "redis-cluster-test", "replica-primary-29399"])


def test_make_test_prunes_before_its_first_stage():
    lines = (ROOT / "scripts" / "test.sh").read_text(encoding="utf-8").splitlines()
    def first(pattern):
        return next(i for i, line in enumerate(lines) if re.match(pattern, line))
    assert first(r"source scripts/prune-test-runs\.sh$") < first(r'prune_earlier_test_runs "\$ROOT/\.run"$') < first(r"stage 1 ")
