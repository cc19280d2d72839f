"""MariaDB and Redis for a bench run, and the data in them: started through scripts/servers.sh when
they are not running (and then only those stopped again), their pids and versions, and the bench
database tandem_bench_s<scale> seeded once per scale and reused. Apart from services.py, which
starts and stops the bench's own Java services per cache mode, because these are shared servers
the bench finds running or starts once, not processes of its own.
"""
from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

from .services import ServiceError, launch_arguments

ROOT = Path(__file__).resolve().parents[2]


class Servers:
    """scripts/servers.sh start; remembers which servers were not running, to stop only those."""

    def __init__(self, root: Path = ROOT):
        self.script = root / "scripts" / "servers.sh"
        self.started: list[str] = []

    def start(self) -> None:
        for name in ("mariadb", "redis"):
            running = subprocess.run([self.script, "status", name], capture_output=True).returncode == 0
            if not running:
                self.started.append(name)
        if self.started:
            subprocess.run([self.script, "start"], check=True)

    def stop(self) -> None:
        for name in reversed(self.started):
            subprocess.run([self.script, "stop", name], check=False)
        self.started = []


def mariadb_port() -> int:
    """The MariaDB port, under the name scripts/servers.sh and the services read it by."""
    return int(os.environ.get("TANDEM_DB_PORT") or 13306)


def redis_port() -> int:
    """The Redis port, under the name scripts/servers.sh and the services read it by."""
    return int(os.environ.get("SPRING_DATA_REDIS_PORT") or 16379)


def mysql() -> list[str]:
    """The mariadb client on the servers' MariaDB, batch mode (tab-separated, no headers)."""
    return ["mariadb", "-h127.0.0.1", f"-P{mariadb_port()}", "-utandem", "-ptandem", "-N", "-B"]


def db_counts(db_name: str) -> tuple[int, int, int, int] | None:
    """(users, groups, sessions, ratings) of the bench database; None if it has no schema yet."""
    sql = ("SELECT (SELECT COUNT(*) FROM users), (SELECT COUNT(*) FROM study_groups), "
           "(SELECT COUNT(*) FROM study_sessions), (SELECT COUNT(*) FROM ratings)")
    r = subprocess.run(mysql() + ["-e", f"CREATE DATABASE IF NOT EXISTS `{db_name}`; USE `{db_name}`; {sql}"],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        return None
    return tuple(int(x) for x in r.stdout.split())


def server_versions() -> dict:
    """Versions of the MariaDB and Redis servers, as they report them."""
    out = {"mariadb": None, "redis": None}
    r = subprocess.run(mysql() + ["-e", "SELECT VERSION()"], capture_output=True, text=True, timeout=30)
    if r.returncode == 0:
        out["mariadb"] = "MariaDB " + r.stdout.strip()
    r = subprocess.run(["redis-cli", "-h", "127.0.0.1", "-p", str(redis_port()), "INFO", "server"],
                       capture_output=True, text=True, timeout=30)
    m = re.search(r"redis_version:(\S+)", r.stdout or "")
    if m:
        out["redis"] = f"Redis {m.group(1)}"
    return out


def ensure_seeded(java: str, db_name: str, scale: int, log: Path, say=print) -> str:
    """Seeds the bench database at `scale` unless it already holds exactly that scale's rows.
    Returns what it did, for the run's notes."""
    want = (100 * scale, 50 * scale, 200 * scale, 500 * scale)
    have = db_counts(db_name)
    if have == want:
        return f"database {db_name} already held seed scale {scale} ({want[1]} groups); not reseeded"
    say(f"bench: seeding {db_name} at scale {scale} ({want[1]:,} groups, {want[3]:,} ratings; "
        f"found {have or 'no schema'}) ...")
    t0 = time.monotonic()
    env = dict(os.environ, TANDEM_DB_NAME=db_name, TANDEM_SEED_MODE="reset", TANDEM_SEED_SCALE=str(scale),
               TANDEM_SEED_EXIT="true", SPRING_MAIN_WEB_APPLICATION_TYPE="none", TANDEM_CACHE_MODE="none")
    env.pop("SERVER_PORT", None)
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "ab") as out:
        r = subprocess.run([java, *launch_arguments(java, ROOT / "rest-service/target/rest-service.jar")], env=env,
                           stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=1800)
    have = db_counts(db_name)
    if r.returncode != 0 or have != want:
        raise ServiceError(f"seeding {db_name} at scale {scale} failed (exit {r.returncode}, rows {have}); "
                           f"see {log}")
    return f"database {db_name} seeded at scale {scale} in {time.monotonic() - t0:.0f} s"


def server_pids() -> dict[str, int]:
    """MariaDB and Redis as scripts/servers.sh started them (pid files under TANDEM_RUN_DIR or .run/)."""
    run_dir = Path(os.environ.get("TANDEM_RUN_DIR") or ROOT / ".run")
    pids = {}
    for name, f in (("mariadb", run_dir / "mariadb/mariadb.pid"), ("redis", run_dir / "redis/redis.pid")):
        try:
            pids[name] = int(f.read_text().strip())
        except (OSError, ValueError):
            pass
    return pids
