"""scripts/deps.sh runs one at a time on a machine.

make test's two lanes both call it after the tools stage (the readme stage `deps.sh python node
proto`, the light stages `deps.sh python` and `deps.sh node`): two at once would run apt-get at once
(the second fails on dpkg's lock) or build the same venv or node_modules at once. So deps.sh takes
.tools/deps.lock for its whole run and says when it waits. Fast: `deps.sh java` has nothing to
install on a machine that ran make test's first stage.
"""
import fcntl
import subprocess
import time

from readme import ROOT

LOCK = ROOT / ".tools" / "deps.lock"


def test_a_second_deps_run_waits_for_the_first():
    # nothing to do: it ends at once when it does not wait
    assert subprocess.run(["scripts/deps.sh", "java"], cwd=ROOT, capture_output=True, timeout=120).returncode == 0

    LOCK.parent.mkdir(exist_ok=True)
    with open(LOCK, "a") as held:
        fcntl.flock(held, fcntl.LOCK_EX)   # as a running deps.sh holds it
        second = subprocess.Popen(["scripts/deps.sh", "java"], cwd=ROOT, text=True,
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        time.sleep(2)   # far longer than its run without the lock (~0.2 s)
        assert second.poll() is None, "deps.sh ran while another held .tools/deps.lock"
        fcntl.flock(held, fcntl.LOCK_UN)
    out, _ = second.communicate(timeout=120)
    assert second.returncode == 0, out
    assert "waiting" in out, out
