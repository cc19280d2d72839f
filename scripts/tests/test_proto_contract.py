"""The proto contract's checks catch what they are there for (scripts/proto-contract.sh, make test's
proto-contract stage; README "The proto contract").

Each test copies proto/ (buf.yaml, the baseline image, the protos, the Google imports) to a temporary
directory, changes the copy, and runs the script on it as make test runs it on proto/: a breaking
change must fail buf breaking, a STANDARD violation must fail buf lint (also where an exception is
close by but does not reach), and a compatible change must pass against the baseline as it is. The
committed protos pass, and the README's commands are the ones that work. Needs buf in .tools/bin
(scripts/deps.sh proto); takes a few seconds. make test runs it in its readme stage, after the build,
because one test compares proto/third_party with the jar the gRPC service is built with.
"""
import os
import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from readme import ROOT, code_blocks, section

SCRIPT = ROOT / "scripts" / "proto-contract.sh"
BUF = ROOT / ".tools" / "bin" / "buf"
PROTO = ROOT / "proto"
STUDY_GROUPS = "src/main/protobuf/tandem/v1/study_groups.proto"
HELLO = "src/main/protobuf/tandem/v1/hello.proto"
GRPC_JAR = ROOT / "grpc-service" / "target" / "grpc-service.jar"
COMMON_PROTOS = re.compile(r"BOOT-INF/lib/proto-google-common-protos-[0-9][^/]*\.jar$")

# A new RPC of StudyGroupService as STANDARD wants it: a server stream, as WatchGroup will be.
LAST_RPC = '    option (google.api.http) = {get: "/api/v1/users/{id}"};\n  }\n'
# A new server-streaming RPC with STANDARD names (the proto's own WatchGroup is one already).
STANDARD_STREAMING_RPC = "\n  rpc WatchLeaderboard(WatchLeaderboardRequest) returns (stream WatchLeaderboardResponse);\n"
STANDARD_STREAMING_MESSAGES = """
message WatchLeaderboardRequest {
  int32 limit = 1;
}

message WatchLeaderboardResponse {
  Leaderboard leaderboard = 1;
}
"""


@pytest.fixture(scope="module", autouse=True)
def buf_installed():
    if not BUF.exists():
        pytest.fail(f"no {BUF.relative_to(ROOT)}: run scripts/deps.sh proto", pytrace=False)


@pytest.fixture
def proto_copy(tmp_path: Path) -> Path:
    """proto/ as buf sees it, without the Maven module around it."""
    copy = tmp_path / "proto"
    copy.mkdir()
    for name in ("buf.yaml", "buf-baseline.binpb"):
        shutil.copy2(PROTO / name, copy / name)
    for tree in ("src/main/protobuf", "third_party"):
        shutil.copytree(PROTO / tree, copy / tree)
    return copy


def run(*args: str) -> subprocess.CompletedProcess:
    # without an outer make's variables (make test runs this), as in a reader's terminal
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS"))}
    return subprocess.run(["bash", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)


def check(proto_dir: Path) -> subprocess.CompletedProcess:
    return run(str(SCRIPT), "check", str(proto_dir))


def rules(result: subprocess.CompletedProcess) -> set[str]:
    """The buf rules named in the script's output (buf's msvs format: 'file(l,c) : error RULE : ...')."""
    return set(re.findall(r" : error ([A-Z_]+) : ", result.stdout + result.stderr))


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{path.name} no longer contains exactly one {old!r}: update this test"
    path.write_text(text.replace(old, new), encoding="utf-8")


def append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_the_committed_protos_pass_every_check():
    result = check(PROTO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "buf lint: ok" in result.stdout
    assert "buf breaking against" in result.stdout


# ------------------------------------------------------------------------------- buf breaking
BREAKING_CHANGES = {
    "a deleted field": (
        "  string owner_name = 7 [(google.api.field_behavior) = OUTPUT_ONLY];\n", "",
        "FIELD_NO_DELETE"),
    "a field's number changed": (
        "int32 rating_count = 10 ", "int32 rating_count = 14 ", "FIELD_NO_DELETE"),
    "a field's type changed": (
        "  int32 capacity = 5;\n", "  int64 capacity = 5;\n", "FIELD_SAME_TYPE"),
    "a field renamed (its JSON name on the REST wire)": (
        "int64 owner_id = 6;", "int64 owner_user_id = 6;", "FIELD_SAME_JSON_NAME"),
    "a deleted RPC": (
        '  rpc GetUser(GetUserRequest) returns (User) {\n'
        '    option (google.api.http) = {get: "/api/v1/users/{id}"};\n  }\n', "",
        "RPC_NO_DELETE"),
}


@pytest.mark.parametrize("old,new,rule", BREAKING_CHANGES.values(), ids=BREAKING_CHANGES.keys())
def test_a_breaking_change_fails_buf_breaking(proto_copy, old, new, rule):
    edit(proto_copy / STUDY_GROUPS, old, new)
    result = check(proto_copy)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "buf breaking FAILED" in result.stdout
    assert rule in rules(result), result.stdout + result.stderr
    assert "buf lint: ok" in result.stdout  # the change broke the contract, not a style rule


# ------------------------------------------------------------------------------------ buf lint
def test_a_standard_violation_fails_buf_lint(proto_copy):
    append(proto_copy / STUDY_GROUPS, "\nmessage GroupNote {\n  string noteText = 1;\n}\n")
    result = check(proto_copy)
    assert result.returncode == 1
    assert "buf lint FAILED" in result.stdout
    assert rules(result) == {"FIELD_LOWER_SNAKE_CASE"}, result.stdout + result.stderr


def test_the_unused_import_exception_covers_only_error_details(proto_copy):
    edit(proto_copy / STUDY_GROUPS, 'import "google/protobuf/empty.proto";\n',
         'import "google/protobuf/empty.proto";\nimport "google/protobuf/duration.proto";\n')
    result = check(proto_copy)
    assert result.returncode == 1
    assert rules(result) == {"IMPORT_USED"}, result.stdout + result.stderr
    assert "google/protobuf/duration.proto" in result.stdout


def test_the_response_name_exceptions_reach_no_other_file(proto_copy):
    # study_groups.proto's RPCs may return a resource; hello.proto's may not
    edit(proto_copy / HELLO, "rpc Hello(HelloRequest) returns (HelloResponse);",
         "rpc Hello(HelloRequest) returns (HelloResponse);\n  rpc Ping(PingRequest) returns (HelloResponse);")
    append(proto_copy / HELLO, "\nmessage PingRequest {}\n")
    result = check(proto_copy)
    assert result.returncode == 1
    assert rules(result) == {"RPC_RESPONSE_STANDARD_NAME", "RPC_REQUEST_RESPONSE_UNIQUE"}, \
        result.stdout + result.stderr


# ------------------------------------------------------------------------- compatible changes
def test_a_standard_new_rpc_passes_against_the_baseline_as_it_is(proto_copy):
    edit(proto_copy / STUDY_GROUPS, LAST_RPC, LAST_RPC + STANDARD_STREAMING_RPC)
    append(proto_copy / STUDY_GROUPS, STANDARD_STREAMING_MESSAGES)
    result = check(proto_copy)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "buf lint: ok" in result.stdout and "buf breaking against" in result.stdout


def test_a_deliberate_break_passes_once_the_baseline_is_rebuilt(proto_copy):
    edit(proto_copy / STUDY_GROUPS, *BREAKING_CHANGES["a deleted field"][:2])
    assert check(proto_copy).returncode == 1
    assert run(str(SCRIPT), "baseline", str(proto_copy)).returncode == 0
    assert check(proto_copy).returncode == 0


def test_a_comment_is_not_the_contract(proto_copy):
    edit(proto_copy / STUDY_GROUPS, "// Deletes a group with its members, sessions and ratings.",
         "// Deletes a group, and with it its members, sessions and ratings.")
    result = check(proto_copy)
    assert result.returncode == 0, result.stdout + result.stderr


# ------------------------------------------------------------------------ the Google imports
def test_the_google_imports_are_those_the_service_is_built_with():
    """proto/third_party holds copies, for buf; protoc compiles against the proto-google-common-protos
    jar that Maven resolves. A version bump of that jar must bring new copies along."""
    if not GRPC_JAR.exists():
        if os.environ.get("TANDEM_README_TEST") == "1":
            pytest.fail(f"no {GRPC_JAR.relative_to(ROOT)}: make test's build stage should have made it")
        pytest.skip(f"needs {GRPC_JAR.relative_to(ROOT)} (make build)")
    with zipfile.ZipFile(GRPC_JAR) as boot:
        libs = [name for name in boot.namelist() if COMMON_PROTOS.search(name)]
        assert len(libs) == 1, f"expected one proto-google-common-protos jar in {GRPC_JAR.name}, found {libs}"
        with zipfile.ZipFile(boot.open(libs[0])) as common:
            copies = sorted(p for p in (PROTO / "third_party").rglob("*.proto"))
            assert copies, "proto/third_party has no .proto files"
            for copy in copies:
                name = copy.relative_to(PROTO / "third_party").as_posix()
                assert common.read(name) == copy.read_bytes(), \
                    f"proto/third_party/{name} differs from {name} in {libs[0].rsplit('/', 1)[-1]}: copy it again"


# --------------------------------------------------------------------------------- the README
def test_the_readmes_proto_commands_run_as_written():
    """The first block of the README's "The proto contract" checks; the second (rebuilding the
    baseline) changes the tree, so it is run above on copies through the script it names."""
    blocks = code_blocks(section("The proto contract"))
    assert len(blocks) >= 2, "README 'The proto contract' should have a block of checks and one for the baseline"
    for command in blocks[0]:
        result = run("-c", command)
        assert result.returncode == 0, f"{command}\n{result.stdout}{result.stderr}"
    assert any("proto-baseline" in c or "proto-contract.sh baseline" in c for c in blocks[1]), blocks[1]
