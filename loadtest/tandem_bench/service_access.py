"""How the bench reaches the services it measures, its own or a target's: where a cell's requests
go, the generator invocation a cell asks for, the generator runs themselves, and the counters read
around windows (caches, JVM, JIT compiler CPU, MariaDB). ServiceAccess is a mixin of
orchestrate.Bench, whose __init__ sets the state these methods read; they are kept apart so that
the phases (service_start, measure) read as steps rather than plumbing, and so that every "is
this a target?" answer sits in one place.
"""
from __future__ import annotations

import json
import time
from pathlib import Path

from . import cachestats, cpu, keys, loadgen, probes, profile, servers, windows, wire
from . import target as targets

SERVICE_NAMES = windows.SERVICE_NAMES
# what ServiceAccess.process_counters reads of the service process
PROCESS_COUNTERS = ("userCpuMs", "systemCpuMs", "contextSwitches", "threadCpuMs")


class ServiceAccess:
    def invocation(self, cell: profile.CellPlan, *, executor: str, vus: int, duration: float | None, which: str,
                   tag: str, iterations: int | None = None, rate: float | None = None, raw: bool = False,
                   key_list: list | None = None, tool: str | None = None) -> loadgen.Invocation:
        keys_file, n = self.keyfiles.get(cell.protocol, cell.operation, cell.page_size, which, key_list)
        if executor == "shared-iterations" and iterations is None:
            iterations = n
        tool = tool or cell.tool
        stem = f"{cell.id}-{tag}"
        inv = loadgen.Invocation(
            protocol=cell.protocol, tool=tool, operation=cell.operation,
            method=keys.GRPC_METHODS[cell.operation] if cell.protocol == "grpc" else None,
            executor=executor, vus=vus, duration=duration, keys_file=keys_file,
            out_file=self.work / "out" / f"{stem}.json", log_file=self.work / "logs" / f"{tool}.log",
            iterations=iterations, rate=rate, tls=cell.tls, prefix=self.placement.generator_prefix(), raw=raw,
            streams=cell.streams if tool == "h2load" else 1, encoding=cell.encoding, http=cell.http,
            compression=cell.compression, revalidate=cell.revalidate, front=cell.front)
        if tool in ("h2load", "oha") and cell.protocol == "rest":
            base = self.rest_base(cell.tls, cell.front)
            inv.uris_file = loadgen.absolute_uris(base, keys_file, keys_file.with_suffix(f".{base.split(':')[0]}.uris"))
        if tool == "h2load" and cell.protocol == "grpc":
            # h2load sends this one request for the whole run (service_start.choose_h2load_request)
            request = self.h2load_request(cell, keys_file, which)
            gzip_call = cell.compression == "gzip"
            frame_file = keys_file.with_suffix(".gz.frame" if gzip_call else ".frame")
            frame_file.write_bytes(wire.frame(self.encoder.encode(inv.method, request), compressed=gzip_call))
            inv.request_frame = frame_file
        return inv

    def rest_base(self, tls: bool, front: str | None = None) -> str:
        """Where a cell's REST requests go: the target's, else the balancer in front of ours (an
        overload cell through it, front "balancer"), else the plain or TLS port of ours."""
        if self.target:
            return self.target.rest_base
        return self.ports.balancer_rest_base if front == "balancer" else self.ports.rest_base_for(tls)

    def grpc_address(self, tls: bool, front: str | None = None) -> str:
        if self.target:
            return self.target.grpc_address
        return self.ports.balancer_grpc_address if front == "balancer" else self.ports.grpc_address_for(tls)

    def ca_file(self) -> Path | None:
        if self.target:
            return self.target_ca()
        return self.tls_files.certificate if self.tls_files else None

    def generate(self, inv: loadgen.Invocation) -> loadgen.Outcome:
        try:
            return loadgen.run(inv, grpc_address=self.grpc_address(inv.tls, inv.front),
                               rest_base=self.rest_base(inv.tls, inv.front),
                               proto_paths=self.proto_paths, ca_file=self.ca_file(),
                               on_start=lambda pid: self.sampler.track("generator", pid),
                               on_end=lambda cpu_seconds: self.sampler.ended("generator", cpu_seconds))
        finally:
            self.sampler.flush()
            self.sampler.untrack("generator")

    def _generate_quiet(self, inv: loadgen.Invocation) -> loadgen.Outcome:
        """A generator run that is not a window (no CPU tracking)."""
        return loadgen.run(inv, grpc_address=self.grpc_address(inv.tls, inv.front),
                           rest_base=self.rest_base(inv.tls, inv.front),
                           proto_paths=self.proto_paths, ca_file=self.ca_file())

    def target_ca(self) -> Path | None:
        """The CA a TLS target's certificates are checked against: ca=FILE, else the system's."""
        if not self.target or not self.target.tls:
            return None
        return self.target.ca_file or Path("/etc/ssl/certs/ca-certificates.crt")

    def flush_caches(self) -> None:
        """L2 and the L1 of both services. Each flush also tells the other instance (through the
        invalidation log) to flush its L1; the pause lets that row be followed."""
        if self.target:
            if self.target.flush_base:
                cachestats.flush(self.target.flush_base, token=self.write_token)
                time.sleep(1.0)
            return
        for protocol in ("grpc", "rest"):
            cachestats.flush(self.ports.management_base(protocol), token=self.write_token)
        time.sleep(0.3)

    def read_cache(self, protocol: str) -> dict | None:
        if self.target:
            # every instance's counters summed, or nothing: one instance's are not the service's
            if not (self.target_plan and self.target_plan.hit_ratios):
                return None
            try:
                return targets.combine([targets.read_instance(b) for b in self.target.management_bases(protocol)])
            except cachestats.CacheEndpointError as e:
                self._cache_missing(e)
                return None
        try:
            return cachestats.read(self.ports.management_base(protocol))
        except cachestats.CacheEndpointError as e:
            self._cache_missing(e)
            return None

    def _cache_missing(self, e) -> None:
        if not self.cache_endpoint_missing:
            self.notes.append(f"cache counters could not be read ({e}); hit ratios are null")
            self.cache_endpoint_missing = True

    def management_base(self, protocol: str) -> str | None:
        if self.target:
            bases = self.target.management_bases(protocol)
            return bases[0] if len(bases) == 1 else None   # one instance's JVM is not the service's
        return self.ports.management_base(protocol)

    def read_service(self, cell: profile.CellPlan) -> dict:
        base = self.management_base(cell.protocol)
        if base is None:
            return {"jitMs": None, "jitCpuMs": None, "gcPauseMs": None, "gcPauses": None, "okCalls": None,
                    "heapMaxBytes": None, "admissionLimit": None, "admissionRefused": None,
                    **self.process_counters(cell.protocol)}
        out = probes.jvm_and_calls(base, cell.protocol, cell.operation,
                                   keys.GRPC_METHODS[cell.operation] if cell.protocol == "grpc" else None)
        out["jitCpuMs"] = self.compiler_cpu_ms(cell.protocol)
        out.update(self.process_counters(cell.protocol))
        return out

    def span_counters(self, protocol: str) -> dict:
        """The service's /proc counters and its compiler threads' CPU (read_service's part that
        reads files), read right before and right after a window's generator runs: read_service's
        requests (a scrape, the cache's status) and what they compile are the bench's, not the
        load's, and read after them the counters counted one set of those probes a window."""
        return {"jitCpuMs": self.compiler_cpu_ms(protocol), **self.process_counters(protocol)}

    def read_latency_histogram(self, cell: profile.CellPlan) -> dict | None:
        """The service's latency histogram of the cell's operation alone (probes.latency_histogram)."""
        base = self.management_base(cell.protocol)
        if base is None:
            return None
        return probes.latency_histogram(base, cell.protocol, cell.operation,
                                        keys.GRPC_METHODS[cell.operation] if cell.protocol == "grpc" else None)

    def process_counters(self, protocol: str) -> dict:
        """The service process's cumulative user and system CPU (ms), its threads' context
        switches and each thread's CPU with its kind (cpu.ThreadTimes: two readings subtract to ms
        per kind), from /proc (None against a target: its processes are not on this machine)."""
        pid = None if self.target else self.services.pids().get(SERVICE_NAMES[protocol])
        times = cpu.user_system_seconds(pid) if pid else None
        return {"userCpuMs": times[0] * 1000 if times else None,
                "systemCpuMs": times[1] * 1000 if times else None,
                "contextSwitches": cpu.context_switches(pid) if pid else None,
                "threadCpuMs": cpu.ThreadTimes.read(pid, servlet_is_io=protocol == "rest") if pid else None}

    def compiler_cpu_ms(self, protocol: str) -> float | None:
        """CPU ms the service's JIT compiler threads have used (None against a target: its
        processes are not on this machine's /proc, or not ours to read)."""
        if self.target:
            return None
        pid = self.services.pids().get(SERVICE_NAMES[protocol])
        seconds = cpu.compiler_seconds(pid) if pid else None
        return seconds * 1000 if seconds is not None else None

    def compile_ms(self) -> dict[str, float | None]:
        """Each service's cumulative JIT compiler CPU (ms); against a target, which the bench cannot
        see in /proc, the JVM's own compilation time; None where neither can be read."""
        out = {}
        for protocol in ("rest", "grpc"):
            out[protocol] = self.compiler_cpu_ms(protocol)
            base = self.management_base(protocol)
            if out[protocol] is None and base:
                out[protocol] = probes.jvm_and_calls(base, protocol, "Hello", None)["jitMs"]
        return out

    def read_db(self) -> dict:
        return probes.db_counters(servers.mariadb_port()) if not self.target else {"rowsRead": None, "queries": None}


def jit_reading(service: dict) -> float | None:
    """The JIT's cumulative cost in ms: its compiler threads' CPU where the bench can read it, else
    the JVM's compilation time."""
    return service["jitCpuMs"] if service.get("jitCpuMs") is not None else service.get("jitMs")
