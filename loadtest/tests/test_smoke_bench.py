"""The smoke profile end to end against the real services, run in-process (TANDEM_SMOKE_BENCH=1;
without it this test is skipped, as in `make test`'s plain `pytest loadtest` stage, which has no
jars or servers to count on). `make test` itself runs the smoke bench once, as the README's
`make bench PROFILE=smoke` in its readme stage, and checks that run with the same smoke_run checks;
this test is the quicker loop while working on the bench.

It builds nothing: the jars come from a build before it (make build, or make test's build stage).
It starts MariaDB/Redis if they are not running, its own services on ports 28080/29090/28081, and
writes into a temporary results directory, never the user's results/. Logs stay in .run/bench/smoke-<time>/logs.
"""
import json
import os
import time
from pathlib import Path

import pytest

from smoke_run import check_smoke_run
from tandem_bench import orchestrate, results

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(os.environ.get("TANDEM_SMOKE_BENCH") != "1",
                                reason="runs the smoke bench in-process only with TANDEM_SMOKE_BENCH=1")


def test_smoke_profile_measures_and_writes_a_valid_run(tmp_path):
    results_dir = tmp_path / "results"
    work = ROOT / ".run" / "bench" / time.strftime("smoke-%Y%m%dT%H%M%SZ", time.gmtime())
    rc = orchestrate.main(["--profile", "smoke", "--results-dir", str(results_dir), "--work-dir", str(work),
                           "--ports", "28080,29090,28081,28443,29443"])
    assert rc == 0, f"bench failed; logs in {work / 'logs'}"
    written = list(results_dir.glob("*/run.json"))
    assert len(written) == 1
    run = json.loads(written[0].read_text())
    assert results.validate_run(run) == []
    assert results.load_index(results_dir)["runs"][0]["runId"] == run["runId"]
    assert not (ROOT / "results" / run["runId"]).exists()
    check_smoke_run(run)
