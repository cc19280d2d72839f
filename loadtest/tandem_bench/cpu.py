"""Where each process runs, and how much CPU each one used during exactly the measured window.

Placement: the load generator shares the machine with two JVMs, MariaDB and Redis. Unpinned, they
fight over the same cores and a saturated generator is indistinguishable from a slow service. So
by default (machines with 2+ cores) the services and the servers get the first half of the cores
and the generator (and this bench process) the rest — on 2 cores: services and servers on CPU 0,
the generator on CPU 1 — applied with taskset(1), which works as root or as the processes' owner
on Debian without cgroups. The JVMs are started with -XX:ActiveProcessorCount equal to their share,
so they size their GC and thread pools for the cores they really have (as in a container), and are
pinned after their JIT warm-up (start-up and warm-up may use every core: neither is measured).
A profile may set
cpus = { services = "0", generator = "1" }; on one core nothing is pinned and the run says so.

Accounting: a sampler thread reads every tracked process's utime + stime (/proc/<pid>/stat) and the
machine's busy time (/proc/stat) every 50 ms. A window's CPU per process is the difference of the
values interpolated at the window's first send and last completion (taken from the requests
themselves), so neither the generator's start-up nor the pauses between windows count. "other" is
the machine's busy time not explained by the tracked processes.
"""
from __future__ import annotations

import bisect
import os
import subprocess
import threading
import time
from dataclasses import dataclass

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
SAMPLE_SECONDS = 0.05


def parse_cpus(text: str) -> list[int]:
    """A taskset CPU list ("0", "0-2", "0,3") → sorted CPU numbers."""
    out = set()
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-", 1)
            out.update(range(int(a), int(b) + 1))
        else:
            out.add(int(part))
    if not out:
        raise ValueError(f"empty CPU list {text!r}")
    return sorted(out)


def format_cpus(cpus: list[int]) -> str:
    return ",".join(str(c) for c in cpus)


@dataclass
class Placement:
    method: str                 # taskset | none
    services: list[int] | None  # also MariaDB and Redis
    generator: list[int] | None
    note: str

    @classmethod
    def plan(cls, cores: int, setting: dict | None = None, available: bool | None = None) -> "Placement":
        available = _taskset_works() if available is None else available
        if setting:
            services, generator = parse_cpus(setting["services"]), parse_cpus(setting["generator"])
            bad = [c for c in services + generator if c >= cores]
            if bad:
                raise ValueError(f"cpus names CPU(s) {bad}, this machine has {cores} (0-{cores - 1})")
            if set(services) & set(generator):
                raise ValueError(f"cpus: services {services} and generator {generator} overlap")
        elif cores >= 2:
            split = cores // 2 if cores > 2 else 1
            services, generator = list(range(split)), list(range(split, cores))
        else:
            return cls("none", None, None, "one core: nothing pinned; the generator and the services share it, "
                                           "so CPU per request is the honest figure, throughput is not")
        if not available:
            return cls("none", None, None, "taskset is not usable here: nothing pinned; the generator and the "
                                           "services share every core")
        return cls("taskset", services, generator,
                   f"services, MariaDB and Redis on CPU {format_cpus(services)}, the load generator and the bench on "
                   f"CPU {format_cpus(generator)} (taskset); the JVMs run with -XX:ActiveProcessorCount="
                   f"{len(services)}")

    @property
    def pinned(self) -> bool:
        return self.method == "taskset"

    def describe(self) -> dict:
        return {"method": self.method,
                "services": format_cpus(self.services) if self.services else None,
                "servers": format_cpus(self.services) if self.services else None,
                "generator": format_cpus(self.generator) if self.generator else None,
                "note": self.note}

    def generator_prefix(self) -> list[str]:
        return ["taskset", "-c", format_cpus(self.generator)] if self.pinned else []

    def service_launch_prefix(self) -> list[str]:
        """What a service's command starts with: every core. A child inherits its parent's CPU
        mask, and the bench runs on the generator's CPUs (pin_self), so without it the services
        started up and JIT-warmed on the generator's core, sharing it with the warm-up's
        generators (both services UP in 26-30 s instead of 13 s, results/20261124T122923Z-quick-d91c8fa)."""
        return ["taskset", "-c", format_cpus(list(range(os.cpu_count() or 1)))] if self.pinned else []

    def service_java_options(self) -> list[str]:
        return [f"-XX:ActiveProcessorCount={len(self.services)}"] if self.pinned else []

    @property
    def generator_cores(self) -> int:
        return len(self.generator) if self.pinned else (os.cpu_count() or 1)

    def pin_services(self, pids) -> None:
        if self.pinned:
            for pid in pids:
                pin(pid, self.services)

    def pin_self(self) -> None:
        if self.pinned:
            os.sched_setaffinity(0, self.generator)

    def release(self, pids) -> None:
        """Back to every core (servers the bench did not start outlive it)."""
        if self.pinned:
            every = list(range(os.cpu_count() or 1))
            for pid in pids:
                pin(pid, every)
            os.sched_setaffinity(0, every)


def _taskset_works() -> bool:
    try:
        return subprocess.run(["taskset", "-p", str(os.getpid())], capture_output=True, timeout=10).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def pin(pid: int, cpus: list[int]) -> None:
    """Every thread of pid onto cpus (threads it starts later inherit the mask)."""
    subprocess.run(["taskset", "-a", "-p", "-c", format_cpus(cpus), str(pid)], check=True,
                   capture_output=True, timeout=30)


# ---------------------------------------------------------------- sampling

def user_system_seconds(pid: int) -> tuple[float, float] | None:
    """(utime, stime) of a process, all its threads: the time it ran its own code and the time the
    kernel ran on its behalf (system calls, page faults). None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            after_name = f.read().rsplit(")", 1)[1].split()
        return int(after_name[11]) / CLOCK_TICKS, int(after_name[12]) / CLOCK_TICKS
    except (OSError, IndexError, ValueError):
        return None


def process_seconds(pid: int) -> float | None:
    """utime + stime of a process (all its threads), or None when it is gone."""
    times = user_system_seconds(pid)
    return sum(times) if times else None


# HotSpot names its JIT compiler threads "C1 CompilerThread<n>" / "C2 CompilerThread<n>"; the
# kernel keeps the first 15 characters of a thread's name
COMPILER_THREADS = ("C1 CompilerThre", "C2 CompilerThre")

# A service thread's kind, from the start of its name as the kernel keeps it (15 characters), first
# match wins. The kinds say whose a request's CPU is (README "Reading a bench run"): its own code on
# the carriers that run the virtual threads (REST's requests, gRPC's calls), the server's I/O
# threads that read and write the connections, the Redis client's, the collector's (with the
# serial collector the bench's one-core JVMs get, young collections run on the VM thread), the JIT's.
THREAD_KINDS = (
    ("carrier", ("ForkJoinPool-",)),                      # the default virtual-thread scheduler's workers
    ("io", ("grpc-default-wo", "grpc-default-bo",                # Netty's loops
            "MasterPoller", "Read-Poller", "Write-Poller")),     # the JDK's pollers for virtual threads' sockets
    ("redis", ("lettuce-",)),
    ("gc", ("GC Thread", "G1 ", "VM Thread")),
    ("jit", COMPILER_THREADS),
)
OTHER_KIND = "other"
KINDS = tuple(kind for kind, _ in THREAD_KINDS) + (OTHER_KIND,)
# Tomcat's threads: its poller and acceptor, and on a management port its own pool of platform
# threads (ManagementThreads). The kernel keeps "http-nio-127.0.0.1-18081-Poller" and
# "…-18081-exec-1" as one name, so the service tells them apart: on REST they carry the requests
# (io), on the gRPC service only its management port, probes and the bench's own scrapes (other).
TOMCAT_THREADS = ("http-nio-",)


def thread_kind(name: str, servlet_is_io: bool = True) -> str:
    """The kind (THREAD_KINDS) of a thread with this name; 'other' for the rest (the cache's and the
    watch's own threads, the pools of the database driver and of Micrometer, the JVM's housekeeping).
    servlet_is_io: whether the process's Tomcat serves the API (REST) or only management (gRPC)."""
    if name.startswith(TOMCAT_THREADS):
        return "io" if servlet_is_io else OTHER_KIND
    return next((kind for kind, prefixes in THREAD_KINDS if name.startswith(prefixes)), OTHER_KIND)


def _thread_files(pid: int, name: str):
    """(tid, the text of /proc/<pid>/task/<tid>/<name>) for each thread the process has now; a thread
    that ends between the listing and the read is skipped. Raises OSError when the process is gone."""
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/{name}") as f:
                yield int(tid), f.read()
        except OSError:
            continue


def _thread_stats(pid: int):
    """(tid, name, utime + stime in seconds) of each thread the process has now. Raises OSError
    when the process is gone."""
    for tid, stat in _thread_files(pid, "stat"):
        # the name sits in parentheses and may hold spaces ("C2 CompilerThre"): fields count from after it
        name, after_name = stat[stat.find("(") + 1:stat.rfind(")")], stat[stat.rfind(")") + 1:].split()
        yield tid, name, (int(after_name[11]) + int(after_name[12])) / CLOCK_TICKS


def compiler_seconds(pid: int) -> float | None:
    """utime + stime of a JVM's JIT compiler threads: the CPU the JIT has really used. The JVM's
    own compilation time (jvm_compilation_time_ms_total) is wall time spent inside compilations,
    which on a saturated core grows with every moment a compiler thread waits for the CPU.
    None when the process is gone or shows no compiler thread."""
    try:
        seconds = [s for _, name, s in _thread_stats(pid) if name.startswith(COMPILER_THREADS)]
    except OSError:
        return None
    return sum(seconds) if seconds else None


class ThreadTimes:
    """A process's threads' CPU seconds at one moment, each thread with its kind (thread_kind).
    Subtracting an earlier reading gives the CPU each kind used in between, in ms (every kind
    present, 0 where none ran): counted per thread, so a thread started in between counts from
    zero, and one that ended in between (an idle carrier the scheduler let go) is left out rather
    than taking its whole past off its kind."""

    def __init__(self, threads: dict[int, tuple[str, float]]):
        self.threads = threads

    @classmethod
    def read(cls, pid: int, servlet_is_io: bool = True) -> "ThreadTimes | None":
        """The process's threads now (servlet_is_io as thread_kind's); None when it is gone."""
        try:
            return cls({tid: (thread_kind(name, servlet_is_io), seconds)
                        for tid, name, seconds in _thread_stats(pid)})
        except OSError:
            return None

    def __sub__(self, earlier: "ThreadTimes") -> dict[str, float]:
        ms = dict.fromkeys(KINDS, 0.0)
        for tid, (kind, seconds) in self.threads.items():
            before = earlier.threads.get(tid)
            same = before is not None and before[0] == kind and before[1] <= seconds   # not a reused tid
            ms[kind] += (seconds - (before[1] if same else 0.0)) * 1000
        return ms


def context_switches(pid: int) -> int | None:
    """The context switches, voluntary (a thread blocked or parked) and involuntary (it was
    preempted), of every thread a process has now: how often its work went from one thread to
    another or waited for the kernel. Cumulative per thread, so a thread that ended takes its own
    with it. None when the process is gone."""
    total = 0
    try:
        for _, status in _thread_files(pid, "status"):
            for line in status.splitlines():
                if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                    total += int(line.split()[1])
    except OSError:
        return None
    return total


def machine_busy_seconds() -> float:
    """CPU this machine's processes and kernel ran: not steal, time the hypervisor gave another
    guest, which no process here used (counted, it read as 'other' CPU that no tracked process
    explains, a process outside the bench that was not there)."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    user, nice, system, idle, iowait, irq, softirq = (fields + [0] * 7)[:7]
    return (user + nice + system + irq + softirq) / CLOCK_TICKS


class Series:
    """(time, value) readings of one counter, interpolated linearly between readings."""

    def __init__(self):
        self.times: list[float] = []
        self.values: list[float] = []

    def add(self, t: float, v: float) -> None:
        self.times.append(t)
        self.values.append(v)

    def at(self, t: float) -> float | None:
        if not self.times or t < self.times[0] - SAMPLE_SECONDS * 2 or t > self.times[-1] + SAMPLE_SECONDS * 2:
            return None
        i = bisect.bisect_left(self.times, t)
        if i <= 0:
            return self.values[0]
        if i >= len(self.times):
            return self.values[-1]
        t0, t1 = self.times[i - 1], self.times[i]
        v0, v1 = self.values[i - 1], self.values[i]
        return v0 if t1 == t0 else v0 + (v1 - v0) * (t - t0) / (t1 - t0)

    def between(self, t0: float, t1: float) -> float | None:
        a, b = self.at(t0), self.at(t1)
        return None if a is None or b is None else max(0.0, b - a)


class Sampler:
    """Reads the tracked processes' CPU seconds and the machine's busy seconds every 50 ms
    (epoch-second timestamps, to meet the generators' request times) while running."""

    def __init__(self):
        self.pids: dict[str, int] = {}
        self.series: dict[str, Series] = {}
        self.machine = Series()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def track(self, name: str, pid: int) -> None:
        with self._lock:
            self.pids[name] = pid
            self.series[name] = Series()
        self._read({name: pid})

    def untrack(self, name: str) -> None:
        with self._lock:
            self.pids.pop(name, None)

    def ended(self, name: str, cpu_seconds: float) -> None:
        """A tracked process has ended and been reaped, having used cpu_seconds in all (wait4): that
        is its last reading, taken now, and it is read no more (its /proc entry is gone, its pid free
        for another). Without it the series ended at the last sample before the end, which the
        sampler, sharing the generator's core, could take more than its tolerance (2 samples) before
        the window's last reply: that window's CPU was then unknown (a smoke run's 1-s sweep window
        in make test, 2026-11-30)."""
        with self._lock:
            self.pids.pop(name, None)
            if name in self.series:
                self.series[name].add(time.time(), cpu_seconds)

    def _read(self, pids: dict[str, int] | None = None) -> None:
        every = pids is None
        t = time.time()
        with self._lock:
            for name, pid in dict(self.pids if every else pids).items():
                v = process_seconds(pid)
                if v is not None:
                    self.series[name].add(t, v)
            if every:
                self.machine.add(t, machine_busy_seconds())

    def __enter__(self):
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="cpu-sampler", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=2)

    def _loop(self):
        while not self._stop.wait(SAMPLE_SECONDS):
            self._read()

    def flush(self) -> None:
        """One reading now (after a generator exits, so the window's end is bracketed)."""
        self._read()

    def window(self, t0: float, t1: float, names: list[str]) -> dict:
        """CPU seconds of each named process between t0 and t1 (None when not tracked then), and
        'other': the machine's busy seconds the tracked processes do not explain."""
        with self._lock:
            out = {n: (self.series[n].between(t0, t1) if n in self.series else None) for n in names}
            busy = self.machine.between(t0, t1)
            tracked = sum(s.between(t0, t1) or 0.0 for s in self.series.values())
        out["other"] = None if busy is None else max(0.0, busy - tracked)
        return out
