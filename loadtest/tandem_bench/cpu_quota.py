"""A CPU cap on the two service JVMs, and on the compose balancer when the bench runs one in front
of them (profile setting service_cpu_quota: a fraction of one core),
applied with a Linux cgroup.

Why: under overload the generators on the other core must offer up to 3× what the services serve.
On two cores, one generator core cannot offer 3× what a whole service core does (the upper steps
of results/20261125T030911Z-overload-d993c17 were rate-short and generator-saturated), so the
profile shrinks the services' core instead. The capacity window runs under the same cap, so every
step's percent is of the capped capacity.

How: one group holds both JVMs, as they share one core in the issue's scenario (the cap shrinks
that core, it does not split it between the wires). MariaDB, Redis and the generators stay out.
The group is made at the root of the cpu hierarchy when the run begins:
  * cgroup v2 (<root>/cgroup.controllers): "+cpu" into the root's cgroup.subtree_control (the
    controller must be enabled in the parent), then cpu.max = "<quota µs> <period µs>";
  * cgroup v1 (<root>/cpu/cpu.cfs_quota_us): cpu.cfs_period_us, then cpu.cfs_quota_us.
The JVMs are moved in (cgroup.procs takes a whole process, every thread) when they are pinned,
after their JIT warm-up, and at the end any process still inside goes back to the group it came
from (/proc/<pid>/cgroup) and the group is removed: release() runs on success, failure, Ctrl-C and
SIGTERM alike.

The period is 10 ms, not the kernel's 100 ms default: CFS bandwidth control stops every thread of
a group for the rest of the period once the group has spent its quota, so at 0.4 of a core a
100 ms period lets a burst stall the JVMs for up to 60 ms at a time (a pause no request would see
on a slower core), while a 10 ms period bounds it at 6 ms.

Where neither layout works (not root, no cpu controller, a read-only cgroupfs), nothing is capped,
the run goes on, and the record says why.
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

CGROUP_ROOT = Path("/sys/fs/cgroup")
PROC = Path("/proc")
GROUP_PREFIX = "tandem-bench-"
PERIOD_US = 10_000
MIN_QUOTA_US = 1_000   # the kernel refuses a smaller quota (EINVAL): small caps get a longer period


class CpuQuotaError(RuntimeError):
    """A service could not be moved into the capped group of a cap that was set up."""


@dataclass
class CpuQuota:
    cores: float | None       # what the profile asked for; None: no cap asked
    method: str               # cgroup-v2 | cgroup-v1 | none
    period_us: int | None
    quota_us: int | None
    note: str
    group: Path | None = None
    mount: Path | None = None   # the root of the hierarchy the group is in
    proc: Path = PROC
    # os.rmdir removes a cgroup (the kernel drops its interface files with it); a test laid out in
    # a plain directory passes shutil.rmtree
    rmdir: Callable[[Path], None] = field(default=os.rmdir, repr=False)
    origins: dict[int, Path] = field(default_factory=dict)

    @classmethod
    def uncapped(cls, cores: float | None, note: str) -> "CpuQuota":
        return cls(cores, "none", None, None, note)

    @classmethod
    def setup(cls, cores: float | None, root: Path = CGROUP_ROOT, name: str | None = None, proc: Path = PROC,
              rmdir: Callable[[Path], None] = os.rmdir) -> "CpuQuota":
        """Makes the capped group (nothing in it yet); an uncapped CpuQuota saying why when it cannot."""
        if cores is None:
            return cls.uncapped(None, "no service_cpu_quota in the profile: the services may use all of their CPUs")
        period = max(PERIOD_US, math.ceil(MIN_QUOTA_US / cores))
        quota = round(cores * period)
        name = name or f"{GROUP_PREFIX}{os.getpid()}"
        if (root / "cgroup.controllers").is_file():
            method, mount = "cgroup-v2", root
        elif (root / "cpu" / "cpu.cfs_quota_us").is_file():
            method, mount = "cgroup-v1", root / "cpu"
        else:
            return cls.uncapped(cores, f"service_cpu_quota = {cores:g} asked, but {root} has no cpu controller "
                                       "(neither cgroup v2's cgroup.controllers nor v1's cpu/cpu.cfs_quota_us): "
                                       "the services ran uncapped")
        group, made = mount / name, False
        try:
            if method == "cgroup-v2":
                if "cpu" not in (root / "cgroup.controllers").read_text().split():
                    raise OSError(f"the cpu controller is not available in {root}/cgroup.controllers")
                write(root / "cgroup.subtree_control", "+cpu")
            group.mkdir()
            made = True
            if method == "cgroup-v2":
                write(group / "cpu.max", f"{quota} {period}")
            else:
                write(group / "cpu.cfs_period_us", str(period))
                write(group / "cpu.cfs_quota_us", str(quota))
        except OSError as e:
            if made:
                try:
                    rmdir(group)
                except OSError:
                    pass
            return cls.uncapped(cores, f"service_cpu_quota = {cores:g} asked, but {method} at {mount} did not take "
                                       f"it ({e}): the services ran uncapped")
        return cls(cores, method, period, quota,
                   f"the two service JVMs (and the balancer, where overload cells go through it) capped "
                   f"together at {cores:g} of a core ({method} group {group}: "
                   f"{quota} µs of CPU per {period} µs period), from their pinning after the JIT warm-up to their "
                   "stop; MariaDB, Redis and the generators uncapped",
                   group=group, mount=mount, proc=proc, rmdir=rmdir)

    @property
    def capped(self) -> bool:
        return self.method != "none"

    def describe(self) -> dict:
        return {"cores": self.cores, "method": self.method, "periodMicros": self.period_us,
                "quotaMicros": self.quota_us, "note": self.note}

    def throttling(self) -> dict | None:
        """The group's cumulative CFS bandwidth counters (its cpu.stat): periods with a runnable
        thread, periods in which it ran out of quota (every thread stopped until the next period), and
        the time stopped, in ms. None uncapped or unreadable. A window's difference says whether the
        cap, rather than the services, made requests wait: a throttled period holds every request in
        the group for up to the rest of it (6 ms at 0.4 of a 10-ms period)."""
        if self.group is None:
            return None
        try:
            stat = dict(line.split() for line in (self.group / "cpu.stat").read_text().splitlines() if line.strip())
            # v1 gives the time stopped in ns, v2 in µs
            throttled_ms = (int(stat["throttled_time"]) / 1e6 if "throttled_time" in stat
                            else int(stat["throttled_usec"]) / 1e3)
            return {"periods": int(stat["nr_periods"]), "throttledPeriods": int(stat["nr_throttled"]),
                    "throttledMs": throttled_ms}
        except (OSError, KeyError, ValueError):
            return None

    def apply(self, pids: Iterable[int]) -> None:
        """Moves each process (every thread it has and will start) into the capped group."""
        if self.group is None:
            return
        for pid in pids:
            self.origins.setdefault(pid, self.origin(pid))
            try:
                write(self.group / "cgroup.procs", str(pid))
            except OSError as e:
                raise CpuQuotaError(f"could not move process {pid} into {self.group} ({e}); the cap would hold "
                                    "for some windows and not others, so the run stops") from e

    def origin(self, pid: int) -> Path:
        """The group of this hierarchy that pid is in now (the root when that is not known)."""
        try:
            lines = (self.proc / str(pid) / "cgroup").read_text().splitlines()
        except OSError:
            return self.mount
        for line in lines:
            hierarchy, controllers, path = line.split(":", 2)
            if (hierarchy == "0" and self.method == "cgroup-v2") or \
                    (self.method == "cgroup-v1" and "cpu" in controllers.split(",")):
                where = self.mount / path.lstrip("/")
                return where if where.is_dir() else self.mount
        return self.mount

    def release(self) -> list[str]:
        """Every process still in the group back where it came from, and the group removed. Never
        raises (it runs while a failure unwinds); returns what it could not undo."""
        if self.group is None:
            return []
        problems = []
        try:
            left = [int(p) for p in (self.group / "cgroup.procs").read_text().split()]
        except (OSError, ValueError) as e:
            left = []
            problems.append(f"could not list the processes in {self.group}: {e}")
        for pid in left:
            try:
                write(self.origins.get(pid, self.mount) / "cgroup.procs", str(pid))
            except OSError as e:
                if (self.proc / str(pid)).exists():   # one that exited meanwhile has left by itself
                    problems.append(f"could not move process {pid} out of {self.group}: {e}")
        try:
            self.rmdir(self.group)
        except OSError as e:
            problems.append(f"could not remove {self.group}: {e}")
        else:
            self.group = None
        return problems


def throttling_between(before: dict | None, after: dict | None) -> dict | None:
    """What the group's throttling counters (CpuQuota.throttling) counted between two readings."""
    if before is None or after is None:
        return None
    return {k: after[k] - before[k] for k in after}


def write(path: Path, text: str) -> None:
    """One write(2) per value, as the cgroup files want (a pid per write to cgroup.procs)."""
    with open(path, "w") as f:
        f.write(text)
