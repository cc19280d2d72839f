"""The first five minutes of a new user, as a test: the make targets a newcomer types, then the
README's own commands, top to bottom, exactly as written.

`make test` runs this in its `readme` stage (scripts/test.sh sets TANDEM_README_TEST=1; without it
the module is skipped). It needs the jars (make test's build stage makes them) and the pinned tools. It uses
a fresh data directory (TANDEM_RUN_DIR under pytest's tmp) and its own MariaDB/Redis ports (23306,
26379, through the same TANDEM_DB_PORT / SPRING_DATA_REDIS_PORT the services read), so it never
touches `.run/` or the servers of the other stages; the services are on the README's own ports 8080,
9090 and 8081, which must therefore be free (stop your own `make run` first). Bench results go to a
temporary TANDEM_RESULTS_DIR, never results/.

The tests run in file order and share one state, as a reader's terminal does: `make run`, then the
API table, the API fuzzer, `make run` again, `make down`, the TLS example, the smoke bench and the
dashboard. That shared, ordered state is why this is one file of ~430 lines.
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from readme import ROOT, api_table, code_blocks, section

# The smoke bench below is make test's one smoke bench: its run is checked as loadtest's is.
sys.path.insert(0, str(ROOT / "loadtest" / "tests"))
pytest.register_assert_rewrite("smoke_run")
from smoke_run import check_smoke_run  # noqa: E402

pytestmark = pytest.mark.skipif(os.environ.get("TANDEM_README_TEST") != "1",
                                reason="runs in make test's readme stage (TANDEM_README_TEST=1)")

SERVER_PORTS = {"TANDEM_DB_PORT": "23306", "SPRING_DATA_REDIS_PORT": "26379"}
SERVICE_PORTS = (8080, 9090, 8081)
DASHBOARD_PORT = 5173
STATUS_MARK = "README_TEST_HTTP_STATUS="


# ------------------------------------------------------------------------------------------ shell
class Shell:
    """A reader's terminal: commands run with bash in the repository, in a clean environment (no
    make variables from an outer `make test`), with the test's run and results directories."""

    def __init__(self, tmp: Path):
        self.tmp = tmp
        self.results = tmp / "results"
        bin_dir = tmp / "bin"
        bin_dir.mkdir()
        # curl as written, plus its status code on stderr, so a check can see a 404 behind `curl -s`.
        real_curl = shutil.which("curl") or "/usr/bin/curl"
        (bin_dir / "curl").write_text(
            f"#!/bin/sh\nexec {real_curl} -w '%{{stderr}}\\n{STATUS_MARK}%{{http_code}}\\n' \"$@\"\n")
        (bin_dir / "curl").chmod(0o755)
        self.curl_dir = bin_dir
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("MAKE", "MFLAGS", "TANDEM_", "SPRING_")) and k != "JAVA_HOME"}
        env.update(SERVER_PORTS)
        env["TANDEM_RUN_DIR"] = str(tmp / "run")
        env["TANDEM_RESULTS_DIR"] = str(self.results)
        self.env = env

    def run(self, command: str, *, timeout: float = 300, env: dict | None = None,
            with_curl_status: bool = False) -> "Result":
        full_env = dict(self.env if env is None else env)
        if with_curl_status:
            full_env["PATH"] = f"{self.curl_dir}:{full_env['PATH']}"
        started = time.monotonic()
        # its own process group, killed whole on a timeout: subprocess.run's timeout kills bash
        # only, and a hung make bench or make run would leave its services and generators running
        proc = subprocess.Popen(["bash", "-c", command], cwd=ROOT, env=full_env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        try:
            stdout, stderr = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
        return Result(command, proc.returncode, stdout, stderr, time.monotonic() - started)

    def start(self, command: str, log: Path) -> subprocess.Popen:
        """A long-running command (make dashboard) in its own process group."""
        with open(log, "w") as out:
            return subprocess.Popen(["bash", "-c", command], cwd=ROOT, env=self.env, stdout=out,
                                    stderr=subprocess.STDOUT, start_new_session=True)


class Result:
    def __init__(self, command, rc, stdout, stderr, seconds):
        self.command, self.rc, self.stdout, self.seconds = command, rc, stdout, seconds
        statuses = re.findall(rf"^{STATUS_MARK}(\d+)$", stderr, re.MULTILINE)
        self.status = int(statuses[-1]) if statuses else None
        self.stderr = re.sub(rf"\n?{STATUS_MARK}\d+\n?", "", stderr)

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def json(self):
        try:
            return json.loads(self.stdout)
        except json.JSONDecodeError as e:
            raise AssertionError(f"not JSON ({e}) from: {self.command}\n{self.output[:2000]}")

    def describe(self) -> str:
        return (f"$ {self.command}\nexit {self.rc}, HTTP {self.status}, {self.seconds:.1f} s\n"
                f"--- stdout\n{self.stdout[-3000:]}\n--- stderr\n{self.stderr[-3000:]}")


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _interrupted(signum, frame):
    raise KeyboardInterrupt(f"signal {signum}")


@pytest.fixture(scope="module")
def shell(tmp_path_factory):
    busy = [p for p in SERVICE_PORTS if port_open(p)]
    if busy:
        pytest.fail(f"ports {busy} are taken: the README's commands need 8080, 9090 and 8081 (make down first)")
    sh = Shell(tmp_path_factory.mktemp("first-five-minutes"))
    # make test ends its stages with SIGTERM on Ctrl-C; the services and servers below run in
    # sessions of their own (setsid), so only this teardown stops them, and pytest runs teardowns on
    # a KeyboardInterrupt but dies at once of a SIGTERM it does not handle.
    previous = signal.signal(signal.SIGTERM, _interrupted)
    try:
        yield sh
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second TERM must not cut the teardown short
        try:
            sh.run("make down", timeout=180)  # whatever a failed or interrupted test left running
        finally:
            signal.signal(signal.SIGTERM, previous)


# ------------------------------------------------------------------------------------------ make targets
def test_make_alone_and_make_help_list_the_targets(shell):
    for command in ("make", "make help"):
        r = shell.run(command)
        assert r.rc == 0, r.describe()
        for target in ("run", "down", "test", "bench", "dashboard", "token", "seed"):
            assert re.search(rf"^\s+make {target}\s+\S", r.stdout, re.MULTILINE), \
                f"`{command}` does not describe make {target}\n{r.describe()}"


def test_make_down_with_nothing_running_says_so_and_succeeds(shell):
    r = shell.run("make down")
    assert r.rc == 0, r.describe()
    for name in ("rest-service", "grpc-service", "mariadb", "redis"):
        assert f"{name} not running" in r.output, r.describe()
    assert "ERROR" not in r.output, r.describe()


def test_make_dashboard_before_any_bench_explains_what_to_run(shell):
    r = shell.run("make dashboard", timeout=120)
    assert r.rc != 0, r.describe()
    assert "no bench results yet" in r.stderr and "make bench" in r.stderr, r.describe()
    assert not port_open(DASHBOARD_PORT), "make dashboard served although there is nothing to show"


# ------------------------------------------------------------------------------------------ make run
def test_make_run_seeds_an_empty_database_and_prints_what_to_try(shell):
    jars_fresh = shell.run("scripts/build.sh --check").rc == 0
    r = shell.run("make run", timeout=600)
    assert r.rc == 0, r.describe()
    assert "is empty: seeding scale 1" in r.output and "Seeded scale 1: 100 users, 50 groups" in r.output, r.describe()
    if jars_fresh:
        assert "jars are up to date" in r.output and "mvnw" not in r.output.split("jars are up to date")[0], r.describe()
    for shown in ("http://127.0.0.1:8080/api/v1/groups", "127.0.0.1:9090", "TOKEN=ey", "make down"):
        assert shown in r.output, f"make run does not print {shown}\n{r.describe()}"
    assert r.output.index("UP") < r.output.index("TOKEN="), "the hints came before the services were up"
    # each jar from its extracted layout, with the AOT cache its training run made (scripts/jar-launch.sh)
    # (the cache needs JDK 25; scripts/java-home.sh picks the newest JDK there is)
    jdk = shell.run("scripts/java-home.sh").stdout.strip()
    with_cache = int(shell.run(f"{jdk}/bin/java -XshowSettings:properties -version 2>&1 | "
                               "sed -n 's/^ *java.specification.version = //p'").stdout.strip()) >= 25
    for name in ("rest-service", "grpc-service"):
        pid = (Path(shell.env["TANDEM_RUN_DIR"]) / "pids" / f"{name}.pid").read_text().strip()
        command = (Path("/proc") / pid / "cmdline").read_bytes().split(b"\0")
        assert f"{name}/target/launch/extracted/{name}.jar".encode() in command[-2], command
        assert not with_cache or any(arg.startswith(b"-XX:AOTCache=") for arg in command), command


def test_the_api_table_runs_top_to_bottom_as_written(shell):
    """README "The API on both wires": every command of every row, REST then gRPC, as written."""
    body = section("The API on both wires")
    env = reader_env(shell, body)

    # "users 101 and 102, groups 51 and 52": the ids the prose promises the writes will create
    created = re.search(r"users (\d+) and (\d+), groups (\d+) and (\d+)", body)
    assert created, "the section no longer says which ids the writes create"
    users, groups = list(map(int, created.groups()[:2])), list(map(int, created.groups()[2:]))

    rows = api_table(body)
    assert [r.operation for r in rows][:3] == ["GetGroup", "ListGroups", "next page"], rows
    seen: dict[str, dict[str, object]] = {}  # operation -> wire -> parsed answer
    for row in rows:
        answers = {}
        for wire, commands in (("REST", row.rest), ("gRPC", row.grpc)):
            assert commands, f"row {row.operation} has no {wire} command"
            for i, command in enumerate(commands):
                if "NEXT_PAGE_TOKEN" in command:
                    previous = seen["ListGroups"][wire]
                    command = command.replace("NEXT_PAGE_TOKEN", previous.get("nextPageToken")
                                              or previous.get("next_page_token"))
                r = shell.run(command, env=env, timeout=60, with_curl_status=True)
                assert r.rc == 0, f"row {row.operation}, {wire}:\n{r.describe()}"
                if r.status is not None:
                    assert 200 <= r.status < 300, f"row {row.operation}, {wire}:\n{r.describe()}"
                answers.setdefault(wire, []).append(r)
        check_row(row.operation, answers, users, groups)
        seen[row.operation] = {w: answer_json(rs[0]) for w, rs in answers.items()}

    # Reads agree across the wires: the same request gives the same data.
    for operation in ("GetGroup", "ListGroups", "next page", "GetUser", "GetLeaderboard"):
        assert normalise(seen[operation]["REST"]) == normalise(seen[operation]["gRPC"]), \
            f"{operation}: REST and gRPC disagree\nREST {seen[operation]['REST']}\ngRPC {seen[operation]['gRPC']}"
    assert seen["next page"]["REST"] != seen["ListGroups"]["REST"], "the next page repeated the first"
    # The deletes at the bottom removed both groups the table created.
    for group in groups:
        r = shell.run(f"curl -s 127.0.0.1:8080/api/v1/groups/{group}", with_curl_status=True)
        assert r.status == 404, r.describe()


def reader_env(shell: Shell, body: str) -> dict:
    """The environment after the set-up that the API section asks of a reader, run as written:
    grpcurl on the PATH, then a write token."""
    path_line, token_line = 'export PATH="$PWD/.tools/bin:$PATH"', "TOKEN=$(make -s token)"
    for line in (path_line, token_line):
        assert f"`{line}`" in body, f"the API section no longer says `{line}`"
    path = shell.run(f'{path_line}; printf %s "$PATH"').stdout
    token = shell.run(f'{token_line}; printf %s "$TOKEN"').stdout
    assert re.fullmatch(r"ey[\w-]+\.[\w-]+\.[\w-]+", token), f"make -s token printed {token!r}"
    return dict(shell.env, PATH=path, TOKEN=token)


def answer_json(result: Result):
    text = result.stdout.strip()
    return json.loads(text) if text.startswith(("{", "[")) else text


def check_row(operation: str, answers: dict[str, list[Result]], users: list[int], groups: list[int]) -> None:
    rest, grpc = answer_json(answers["REST"][0]), answer_json(answers["gRPC"][0])
    where = f"{operation}\nREST: {answers['REST'][0].describe()}\ngRPC: {answers['gRPC'][0].describe()}"
    match operation:
        case "GetGroup":
            assert int(rest["id"]) == 1 and int(grpc["id"]) == 1, where
        case "ListGroups" | "next page":
            assert rest["groups"] and all(g["subject"] == "physics" for g in rest["groups"]), where
        case "CreateUser":
            assert (int(rest["id"]), int(grpc["id"])) == tuple(users), where
        case "CreateGroup":
            assert (int(rest["id"]), int(grpc["id"])) == tuple(groups), where
            assert answers["REST"][0].status == 201, where
        case "UpdateGroup (field mask + expected version)":
            assert (rest["name"], rest["capacity"], int(rest["version"])) == ("Graph theory II", 12, 2), where
            assert (grpc["description"], int(grpc["version"])) == ("Cliques and cuts", 3), where
        case "GetUser":
            assert int(rest["id"]) == 1, where
        case "GetLeaderboard":
            assert rest["subject"] == "physics" and 1 <= len(rest["groups"]) <= 5, where
            ratings = [g.get("averageRating", 0) for g in rest["groups"]]
            assert ratings == sorted(ratings, reverse=True), where
        case "list services":
            assert rest.get("openapi", "").startswith("3."), where
            assert "tandem.v1.StudyGroupService" in grpc, where
        case "health":
            assert rest["status"] == "UP" and grpc["status"] == "SERVING", where
            assert answer_json(answers["gRPC"][1])["status"] == "UP", where
        case "Hello":
            assert rest == {"message": "hello"} and grpc == {"message": "hello"}, where
        case _:
            pass  # a write: its command succeeded (checked by the caller); its effect shows in later rows


def normalise(value):
    """Both wires' JSON in one form: lowerCamelCase keys (grpcurl prints the proto names), int64
    strings as numbers (protobuf's JSON mapping quotes them), default values left out (proto3 JSON
    omits them)."""
    if isinstance(value, dict):
        out = {}
        for key, v in value.items():
            v = normalise(v)
            if v in (0, "", False, [], {}, None):
                continue
            out[re.sub(r"_([a-z])", lambda m: m.group(1).upper(), key)] = v
        return out
    if isinstance(value, list):
        return [normalise(v) for v in value]
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value):
        return int(value)
    return value


def test_the_api_fuzzer_finds_no_server_error_and_no_undocumented_answer(shell):
    """scripts/api-fuzz.sh (Schemathesis, pinned) against make run's REST service, from its OpenAPI
    document: ~1,000 generated requests, no 5xx (a 504 only after the request's own timeout), every
    answer as documented. It writes (and may delete seeded groups): so it runs after the API table."""
    r = shell.run("scripts/deps.sh fuzz && scripts/api-fuzz.sh http://127.0.0.1:8080", timeout=600)
    assert r.rc == 0, r.describe()
    # As a user would after such a run: back to the seed data (the examples below use group 1).
    seeded = shell.run("make seed", timeout=300)
    assert seeded.rc == 0 and "Seeded scale 1" in seeded.output, seeded.describe()


def test_make_run_again_leaves_the_data_and_the_services_alone(shell):
    before = shell.run("curl -s 127.0.0.1:8080/api/v1/groups/1").stdout
    assert '"id":1' in before, before
    r = shell.run("make run", timeout=300)
    assert r.rc == 0, r.describe()
    assert "already has data" in r.output and "not seeding" in r.output, r.describe()
    assert "rest-service already running" in r.output and "grpc-service already running" in r.output, r.describe()
    assert "TOKEN=ey" in r.output, r.describe()
    assert shell.run("curl -s 127.0.0.1:8080/api/v1/groups/1").stdout == before


def test_make_run_rebuilds_only_when_a_source_is_newer_than_the_jars(shell):
    assert shell.run("scripts/build.sh --check").rc == 0, "the jars should be fresh after make run"
    source = ROOT / "shared-domain" / "pom.xml"
    kept = source.stat()
    try:
        os.utime(source, None)  # "edited" now, after the jars were built
        r = shell.run("scripts/build.sh --check")
        assert r.rc == 1 and "shared-domain/pom.xml changed" in r.output, r.describe()
    finally:
        os.utime(source, ns=(kept.st_atime_ns, kept.st_mtime_ns))
    assert shell.run("scripts/build.sh --check").rc == 0


def test_the_bench_against_make_runs_services_as_the_readme_shows(shell, tmp_path):
    """README "The bench against a deployment": its first example as written (a scale-1 profile,
    TARGET naming the running services: here make run's, where a compose deployment would be), then
    the same with each instance's management URL, the README's second form. Nothing is started or
    seeded; without management URLs hit ratios are null and the run says why; with them, cold
    windows (after flushes, which are writes with a minted token) read from the database and warm
    ones from the cache, by the target's own counters."""
    example = next(c for c in code_blocks(section("The bench against a deployment"))[0] if "TARGET=" in c)
    assert example.startswith("make bench PROFILE=my-scale1.toml TARGET="), example
    profile = tmp_path / "my-scale1.toml"
    profile.write_text('name = "my-scale1"\nseed_scale = 1\nstarts = 1\nrepetitions = 1\n'
                       'duration_seconds = 2\nwarmup_seconds = 1\njit_warmup_seconds = 2\nhot_keys = 10\n'
                       '[[matrix]]\noperations = ["GetGroup"]\ndrivers = ["rest/k6", "grpc/k6"]\n'
                       'cache_modes = ["hybrid"]\ntemperatures = ["cold", "warm"]\nconcurrency = [2]\n')
    as_written = example.replace("my-scale1.toml", str(profile))
    with_management = as_written + ",rest-mgmt=http://127.0.0.1:8080,grpc-mgmt=http://127.0.0.1:8081"
    for command, counted in ((as_written, False), (with_management, True)):
        r = shell.run(command, timeout=600)
        assert r.rc == 0, r.describe()
        assert "bench: start 1:" not in r.output and "bench: seeding" not in r.output, r.describe()
        index = json.loads((shell.results / "index.json").read_text())
        run = json.loads((shell.results / index["runs"][0]["runId"] / "run.json").read_text())
        assert run["environment"]["target"]["rest"] == "http://127.0.0.1:8080", run["environment"]["target"]
        hits = {c["id"]: c["summary"]["hitRatio"]["overall"] for c in run["cells"]}
        assert len(hits) == 4, hits
        if not counted:
            assert all(v is None for v in hits.values()), hits
            assert any("hit ratios not measured (no management URL given" in n for n in run["notes"]), run["notes"]
            # A one-shot JVM (make run's or make seed's seeder) follows the invalidation log while it
            # runs and stays among the services' peers for 30 s after; until it drops out, the two
            # management URLs do not cover every instance and hit ratios would rightly stay null.
            wait_until_the_services_are_each_others_only_peers()
            continue
        for cell_id, overall in hits.items():
            assert overall is not None and ((overall < 0.1) if "-cold-" in cell_id else (overall > 0.9)), \
                (cell_id, overall)


def wait_until_the_services_are_each_others_only_peers(timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while True:
        docs = [json.loads(urllib.request.urlopen(f"http://127.0.0.1:{port}/actuator/cache", timeout=5).read())
                for port in (8080, 8081)]
        ids = {d["instanceId"] for d in docs}
        if all(set(d["log"]["peers"]) <= ids for d in docs):
            return
        assert time.monotonic() < deadline, [d["log"]["peers"] for d in docs]
        time.sleep(1)


def test_make_down_stops_everything(shell):
    r = shell.run("make down", timeout=180)
    assert r.rc == 0, r.describe()
    for name in ("rest-service", "grpc-service", "mariadb", "redis"):
        assert f"{name} stopped" in r.output, r.describe()
    assert not any(port_open(p) for p in SERVICE_PORTS), "a service port is still open after make down"


# ------------------------------------------------------------------------------------------ TLS
def test_the_tls_example_runs_as_written(shell):
    """README "TLS": make a certificate, make run with TLS, one call on each wire, then make down."""
    blocks = code_blocks(section("TLS"))
    assert blocks, "the TLS section has no sh block"
    commands = blocks[0]
    assert any("make run" in c for c in commands) and any(c.startswith("grpcurl") for c in commands), commands
    env = reader_env(shell, section("The API on both wires"))  # a reader who came down the README
    try:
        for command in commands:
            r = shell.run(command, env=env, timeout=600, with_curl_status=True)
            assert r.rc == 0, r.describe()
            if command.startswith(("curl", "grpcurl")):
                assert int(answer_json(r)["id"]) == 1, r.describe()
                if r.status is not None:
                    assert r.status == 200, r.describe()
    finally:
        assert shell.run("make down", timeout=180).rc == 0


def test_the_representations_example_runs_as_written(shell):
    """README "Representations": Protobuf over REST, gzip on both wires, a 304, then REST over
    HTTP/2 after a restart with it on; the block runs as one script (ETAG carries over)."""
    blocks = code_blocks(section("Representations: protobuf, gzip, conditional GET, HTTP/2"))
    assert len(blocks) == 1, blocks
    env = reader_env(shell, section("The API on both wires"))
    try:
        assert shell.run("make run", env=env, timeout=600).rc == 0
        # -e as a reader would notice a failed command; not pipefail: `| head -1` ends od with SIGPIPE
        r = shell.run("set -e\n" + "\n".join(blocks[0]), env=env, timeout=900)
        assert r.rc == 0, r.describe()
        lines = [line.strip() for line in r.stdout.splitlines() if line.strip()]
        protobuf, encoding, status_title, status, not_modified, version = lines[0], lines[1], lines[2], lines[3], \
            lines[4], lines[-1]
        assert protobuf.startswith("08 01 "), r.describe()      # tandem.v1.Group: field 1 (id), varint 1
        assert encoding.lower() == "content-encoding: gzip", r.describe()
        assert status_title.startswith("Status code") and re.fullmatch(r"\[OK\]\s+1 responses", status), r.describe()
        assert not_modified == "304", r.describe()
        assert version == "HTTP/2", r.describe()
    finally:
        assert shell.run("make down", timeout=180).rc == 0


# ------------------------------------------------------------------------------------------ bench → dashboard
def test_a_smoke_bench_then_make_dashboard_shows_that_run(shell, tmp_path):
    commands = section("Commands")
    assert "`make bench [PROFILE=" in commands and "smoke" in commands and "`make dashboard`" in commands
    # The bench starts (and stops again) this test's own pair and reads its counters there, through the
    # same TANDEM_RUN_DIR / TANDEM_DB_PORT / SPRING_DATA_REDIS_PORT: the rows-read checks count only
    # the bench's reads, whatever runs on the default servers meanwhile (make test's Java tests).
    r = shell.run("make bench PROFILE=smoke", timeout=900)
    assert r.rc == 0, r.describe()
    index = json.loads((shell.results / "index.json").read_text())
    run_id = index["runs"][0]["runId"]
    assert (shell.results / run_id / "run.json").is_file()
    assert "make dashboard" in r.output, "the bench does not say how to see its run\n" + r.describe()
    check_smoke_run(json.loads((shell.results / run_id / "run.json").read_text()))

    log = tmp_path / "dashboard.log"
    server = shell.start("make dashboard", log)
    try:
        deadline = time.monotonic() + 240
        while not port_open(DASHBOARD_PORT):
            assert server.poll() is None, f"make dashboard exited {server.returncode}:\n{log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"nothing on :{DASHBOARD_PORT} after 240 s:\n{log.read_text()[-3000:]}"
            time.sleep(1)
        shown = shell.run(f"node dashboard/scripts/shows-run.mjs http://127.0.0.1:{DASHBOARD_PORT} {run_id} "
                          f"{tmp_path / 'dashboard.png'}", timeout=180)
        assert shown.rc == 0 and f"shows {run_id}" in shown.stdout, shown.describe()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
