"""The services' CPU cap: the cgroup files it writes (in temporary directories laid out like cgroup
v1 and v2), where the processes go back to, the fallback when the cgroup will not take it, and
once for real on this machine when it allows."""
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tandem_bench import cpu_quota
from tandem_bench.cpu_quota import CpuQuota


def lay_out(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def fake_proc(tmp_path: Path, cgroups: dict[int, str]) -> Path:
    proc = tmp_path / "proc"
    for pid, text in cgroups.items():
        lay_out(proc, {f"{pid}/cgroup": text})
    return proc


def set_up(root, proc, cores=0.4):
    return CpuQuota.setup(cores, root=root, name="tandem-bench-t", proc=proc, rmdir=shutil.rmtree)


def test_v1_writes_the_period_then_the_quota_and_moves_each_process_back_where_it_came_from(tmp_path):
    root = tmp_path / "cgroup"
    lay_out(root, {"cpu/cpu.cfs_quota_us": "-1", "cpu/cgroup.procs": "", "cpu/user.slice/cgroup.procs": ""})
    proc = fake_proc(tmp_path, {111: "5:memory:/x\n4:cpu,cpuacct:/user.slice\n0::/\n", 222: "4:cpu,cpuacct:/gone\n"})
    q = set_up(root, proc)
    group = root / "cpu" / "tandem-bench-t"
    assert (q.method, q.period_us, q.quota_us, q.group) == ("cgroup-v1", 10_000, 4_000, group)
    assert (group / "cpu.cfs_period_us").read_text() == "10000"
    assert (group / "cpu.cfs_quota_us").read_text() == "4000"
    assert (root / "cpu" / "cpu.cfs_quota_us").read_text() == "-1"   # the parent is left alone

    q.apply([111])
    assert (group / "cgroup.procs").read_text() == "111"
    q.apply([222])
    assert (group / "cgroup.procs").read_text() == "222"

    (group / "cgroup.procs").write_text("111\n222\n")   # what the kernel lists while they run
    assert q.release() == []
    assert (root / "cpu" / "user.slice" / "cgroup.procs").read_text() == "111"
    assert (root / "cpu" / "cgroup.procs").read_text() == "222"   # its group is gone: the root
    assert not group.exists() and q.group is None
    assert q.release() == []                                      # again (the run's end, then main's finally)
    assert q.describe() == {"cores": 0.4, "method": "cgroup-v1", "periodMicros": 10_000, "quotaMicros": 4_000,
                            "note": q.note}
    assert "0.4 of a core" in q.note


def test_v2_enables_the_cpu_controller_in_the_parent_and_writes_cpu_max(tmp_path):
    root = tmp_path / "cgroup"
    lay_out(root, {"cgroup.controllers": "cpuset cpu io memory pids\n", "cgroup.subtree_control": "",
                   "cgroup.procs": "", "system.slice/ssh.service/cgroup.procs": ""})
    proc = fake_proc(tmp_path, {111: "0::/system.slice/ssh.service\n"})
    q = set_up(root, proc)
    group = root / "tandem-bench-t"
    assert q.method == "cgroup-v2"
    assert (root / "cgroup.subtree_control").read_text() == "+cpu"
    assert (group / "cpu.max").read_text() == "4000 10000"
    q.apply([111])
    assert (group / "cgroup.procs").read_text() == "111"
    assert q.release() == []
    assert (root / "system.slice" / "ssh.service" / "cgroup.procs").read_text() == "111"
    assert not group.exists()


def test_a_cap_too_small_for_the_kernel_minimum_quota_gets_a_longer_period(tmp_path):
    root = tmp_path / "cgroup"
    lay_out(root, {"cgroup.controllers": "cpu", "cgroup.subtree_control": ""})
    q = set_up(root, tmp_path, cores=0.05)
    assert (q.quota_us, q.period_us) == (1_000, 20_000)
    assert (root / "tandem-bench-t" / "cpu.max").read_text() == "1000 20000"
    q = CpuQuota.setup(1.5, root=root, name="wide", rmdir=shutil.rmtree)
    assert (root / "wide" / "cpu.max").read_text() == "15000 10000"


def test_no_cap_asked_does_nothing(tmp_path):
    q = CpuQuota.setup(None, root=tmp_path)
    assert (q.method, q.cores, q.capped) == ("none", None, False)
    q.apply([os.getpid()])
    assert q.release() == [] and list(tmp_path.iterdir()) == []


def test_without_a_cpu_controller_the_run_goes_on_uncapped_and_says_why(tmp_path):
    q = set_up(tmp_path, tmp_path)
    assert (q.method, q.cores, q.period_us, q.quota_us) == ("none", 0.4, None, None)
    assert "no cpu controller" in q.note and "uncapped" in q.note

    v2 = tmp_path / "v2"
    lay_out(v2, {"cgroup.controllers": "memory pids", "cgroup.subtree_control": ""})
    q = set_up(v2, tmp_path)
    assert q.method == "none" and "not available" in q.note and "uncapped" in q.note
    assert not (v2 / "tandem-bench-t").exists()


def test_a_write_the_cgroup_refuses_leaves_no_group_behind(tmp_path, monkeypatch):
    # v2 whose parent will not enable the controller (a cgroup with processes of its own: EBUSY)
    v2 = tmp_path / "v2"
    lay_out(v2, {"cgroup.controllers": "cpu"})
    (v2 / "cgroup.subtree_control").mkdir()
    q = set_up(v2, tmp_path)
    assert q.method == "none" and "cgroup-v2" in q.note and "uncapped" in q.note
    assert not (v2 / "tandem-bench-t").exists()

    # v1 whose quota is refused after the group was made
    v1 = tmp_path / "v1"
    lay_out(v1, {"cpu/cpu.cfs_quota_us": "-1"})
    real_write = cpu_quota.write

    def refuse_quota(path, text):
        if path.name == "cpu.cfs_quota_us":
            raise OSError(22, "Invalid argument")
        real_write(path, text)

    monkeypatch.setattr(cpu_quota, "write", refuse_quota)
    q = set_up(v1, tmp_path)
    assert q.method == "none" and "Invalid argument" in q.note
    assert not (v1 / "cpu" / "tandem-bench-t").exists()


def test_a_process_that_cannot_be_moved_in_stops_the_run(tmp_path):
    root = tmp_path / "cgroup"
    lay_out(root, {"cpu/cpu.cfs_quota_us": "-1"})
    q = set_up(root, tmp_path)
    (q.group / "cgroup.procs").mkdir()
    with pytest.raises(cpu_quota.CpuQuotaError, match="process 111"):
        q.apply([111])


def real_cap_or_skip(name):
    if os.geteuid() != 0:
        pytest.skip("needs root to make a cpu cgroup")
    q = CpuQuota.setup(0.5, name=name)
    if not q.capped:
        pytest.skip(f"no writable cpu cgroup here: {q.note}")
    return q


def test_a_real_process_enters_the_group_and_leaves_it_on_release():
    name = f"tandem-bench-test-{os.getpid()}"
    q = real_cap_or_skip(name)
    sleeper = subprocess.Popen(["sleep", "30"])
    try:
        q.apply([sleeper.pid])
        group = q.group
        assert f"/{name}" in Path(f"/proc/{sleeper.pid}/cgroup").read_text()
        assert (group / "cgroup.procs").read_text().split() == [str(sleeper.pid)]
        limits = [(group / "cpu.max").read_text()] if q.method == "cgroup-v2" else \
            [(group / f).read_text() for f in ("cpu.cfs_quota_us", "cpu.cfs_period_us")]
        assert [v.split() for v in limits] == ([["5000", "10000"]] if q.method == "cgroup-v2" else [["5000"], ["10000"]])
        assert q.release() == []
        assert not group.exists()
        assert f"/{name}" not in Path(f"/proc/{sleeper.pid}/cgroup").read_text()
    finally:
        sleeper.kill()
        sleeper.wait()
        q.release()


def test_pinning_the_services_after_their_warm_up_caps_them_in_the_same_step(tmp_path):
    from types import SimpleNamespace

    from tandem_bench import cpu
    from tandem_bench.service_start import ServiceStart
    root = tmp_path / "cgroup"
    lay_out(root, {"cgroup.controllers": "cpu", "cgroup.subtree_control": ""})
    bench = SimpleNamespace(placement=cpu.Placement.plan(2, available=False),   # nothing pinned: the cap alone
                            services=SimpleNamespace(pids=lambda: {"rest-service": 4242}),
                            cpu_quota=set_up(root, tmp_path))
    ServiceStart.pin_services(bench)
    assert (root / "tandem-bench-t" / "cgroup.procs").read_text() == "4242"


def test_the_group_s_throttling_is_read_from_its_cpu_stat_in_either_layout(tmp_path):
    root = tmp_path / "cgroup"
    lay_out(root, {"cpu/cpu.cfs_quota_us": "-1", "cpu/cgroup.procs": ""})
    q = set_up(root, fake_proc(tmp_path, {}))
    assert q.throttling() is None                      # no cpu.stat (yet): unknown, not zero
    (q.group / "cpu.stat").write_text("nr_periods 800\nnr_throttled 120\nthrottled_time 540000000\n")
    assert q.throttling() == {"periods": 800, "throttledPeriods": 120, "throttledMs": 540.0}
    v2 = tmp_path / "v2"
    lay_out(v2, {"cgroup.controllers": "cpu io", "cgroup.subtree_control": ""})
    q2 = set_up(v2, fake_proc(tmp_path, {}))
    (q2.group / "cpu.stat").write_text("usage_usec 9\nnr_periods 10\nnr_throttled 4\nthrottled_usec 2500\n")
    assert q2.throttling() == {"periods": 10, "throttledPeriods": 4, "throttledMs": 2.5}
    assert CpuQuota.uncapped(0.4, "no cgroup").throttling() is None
