"""The smoke profile end to end against the real services: what `make test` runs in its
smoke-bench stage (scripts/test.sh sets TANDEM_SMOKE_BENCH=1; without it this test is skipped, as
in the plain `pytest loadtest` stage, which has no jars or servers to count on).

It builds nothing: the jars come from the Maven stage before it. It starts MariaDB/Redis if they
are not running, its own services on ports 28080/29090/28081, and writes into a temporary results
directory, never the user's results/. Logs stay in .run/bench/smoke-<time>/logs.
"""
import json
import os
import time
from pathlib import Path

import pytest

from tandem_bench import orchestrate, results

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(os.environ.get("TANDEM_SMOKE_BENCH") != "1",
                                reason="runs in make test's smoke-bench stage (TANDEM_SMOKE_BENCH=1)")


def test_smoke_profile_measures_and_writes_a_valid_run(tmp_path):
    results_dir = tmp_path / "results"
    work = ROOT / ".run" / "bench" / time.strftime("smoke-%Y%m%dT%H%M%SZ", time.gmtime())
    rc = orchestrate.main(["--profile", "smoke", "--results-dir", str(results_dir), "--work-dir", str(work),
                           "--ports", "28080,29090,28081"])
    assert rc == 0, f"bench failed; logs in {work / 'logs'}"

    written = list(results_dir.glob("*/run.json"))
    assert len(written) == 1
    run = json.loads(written[0].read_text())
    assert results.validate_run(run) == []
    assert results.load_index(results_dir)["runs"][0]["runId"] == run["runId"]
    assert run["profile"]["name"] == "smoke"
    assert not (ROOT / "results" / run["runId"]).exists()

    cells = run["cells"]
    assert {c["temperature"] for c in cells} == {"cold", "warm", "none"}
    assert {(c["protocol"], c["tool"]) for c in cells} == {("rest", "k6"), ("grpc", "k6"), ("grpc", "ghz")}
    for cell in cells:
        for m in cell["runs"]:
            assert m["requests"] > 0 and m["errors"] == 0, cell["id"]
            assert m["latencyMs"]["p50"] is not None, cell["id"]
            assert m["bodyBytes"] and m["bodyBytes"] > 0, f"{cell['id']}: body bytes not measured"
            assert m["loadGenCpuSeconds"] is not None, cell["id"]
            overall = m["hitRatio"]["overall"]
            # read from the service's own counters, window by window
            if cell["temperature"] == "warm":
                assert overall is not None and overall > 0.9, f"{cell['id']}: warm hit ratio {overall}"
            elif cell["temperature"] == "cold":
                assert overall is not None and overall < 0.1, f"{cell['id']}: cold hit ratio {overall}"
            else:
                assert overall is None, cell["id"]
        if cell["tool"] == "k6":
            assert cell["summary"]["wireBytesReceivedPerRequest"] > 0
    # the tls dimension: one cell per wire and tool over TLS, measured without an error (the loop
    # above), recorded as such; every other cell plain
    tls = [c for c in cells if c.get("tls")]
    assert {(c["protocol"], c["tool"]) for c in tls} == {("rest", "k6"), ("grpc", "k6"), ("grpc", "ghz")}
    assert all(c["id"].endswith("-tls") and c["summary"]["requests"] > 0 for c in tls)
    assert all(c["tls"] is False for c in cells if c not in tls)
    assert any("TLS cells" in n for n in run["notes"])
    env = run["environment"]
    assert env["cores"] and env["jdk"] and env["k6"] and env["ghz"] and env["loadGeneratorNote"]
