"""Change-to-client latency of group watches (WatchGroup and its SSE twin), under write load: what
a WatchGroup cell ([[watch]] blocks) measures in each window, and what loadtest/watch_latency.py
runs by hand.

Each watched group has a watch open on every wire measured (REST: GET /api/v1/groups/{id}/events
read as Server-Sent Events; gRPC: WatchGroup through grpcurl, which prints each message as it
arrives) and a writer of its own that changes it through REST, one change at a time — a user
joins, then leaves, so the member count alternates — after a random pause (0 to `pause` s: a
write made right after the last one was seen lands just after a pass of the invalidation log
every time, and measures the whole poll interval). For each change it notes when the write's
answer arrived (the change had committed by then) and when each watch received the group with the
new member count. The latency is receipt minus answer (it understates the commit-to-client time by
the part of the write after its commit; a receipt before the answer counts 0) and, as an upper
bound, receipt minus the write's request. Meanwhile load writers join and leave other groups at a
set rate, so the log the watches follow is busy.

A change reaches a watch with its instance's next pass of the log (tandem.cache.log.poll-interval,
100 ms): half an interval on average, one at most, plus one read of the group.
"""
from __future__ import annotations

import http.client
import json
import math
import random
import socket
import subprocess
import threading
import time
import urllib.parse
from dataclasses import dataclass, field

from .pooled import min_samples
from .stats import percentile_nearest_rank

GRPC_WATCH_METHOD = "tandem.v1.StudyGroupService/WatchGroup"
SEEN_TIMEOUT_SECONDS = 10       # a change no watch showed within this is missed
FIRST_STATE_TIMEOUT_SECONDS = 15
# a load writer thread keeps up with about this many writes a second (one HTTP call at a time)
WRITES_PER_LOAD_THREAD = 20


class WatchError(RuntimeError):
    """A watch could not be opened or never showed the group's state."""


def sse_events(lines):
    """The events of a text/event-stream, from its lines: dicts of their fields ("comment" for ':' lines)."""
    event: dict[str, str] = {}
    for raw in lines:
        line = raw.rstrip("\r\n")
        if not line:
            if event:
                yield event
            event = {}
        elif line.startswith(":"):
            event["comment"] = line[1:]
        else:
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            event[name] = event[name] + "\n" + value if name == "data" and name in event else value
    if event:
        yield event


def grpcurl_messages(lines):
    """The JSON messages grpcurl prints (pretty, one after another), parsed as they complete."""
    buffer: list[str] = []
    depth = 0
    for line in lines:
        buffer.append(line)
        depth += line.count("{") - line.count("}")
        if depth == 0 and "".join(buffer).strip():
            yield json.loads("".join(buffer))
            buffer = []


def figures(latencies_ms: list[float]) -> dict:
    """n, p50, p99 and max, nearest rank, 0.1 ms; a percentile only from as many changes as the
    harness asks of any percentile (pooled.min_samples: 20 for p50, 1,000 for p99), else None: a
    p99 of 300 changes is their fourth-largest."""
    values = sorted(latencies_ms)

    def at(percent: float) -> float | None:
        return round(percentile_nearest_rank(values, percent), 1) if len(values) >= min_samples(percent) else None

    return {"n": len(values), "p50": at(50), "p99": at(99), "max": round(values[-1], 1) if values else None}


def pairs_for(scale: int, watched: int, loaders: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """(group, user) pairs of the watched groups and of the load writers: the last groups of the
    seed (far from the hot keys at its start) and the last users, one distinct pair each, so that
    no two writers touch the same membership."""
    groups, users = 50 * scale, 100 * scale
    pairs = [(groups - i, users - i) for i in range(watched + loaders)]
    return pairs[:watched], pairs[watched:]


def load_threads(rate: float) -> int:
    return 0 if rate <= 0 else max(1, math.ceil(rate / WRITES_PER_LOAD_THREAD))


class Receipts:
    """(receipt time, member count) of one watch; writers wait on it."""

    def __init__(self):
        self.condition = threading.Condition()
        self.seen: list[tuple[float, int]] = []

    def add(self, member_count: int) -> None:
        with self.condition:
            self.seen.append((time.monotonic(), member_count))
            self.condition.notify_all()

    def clear(self) -> None:
        with self.condition:
            self.seen.clear()

    def first_after(self, since: float, member_count: int | None, timeout: float) -> float | None:
        """When the watch first showed member_count (any state when None) at or after `since`."""
        deadline = time.monotonic() + timeout
        with self.condition:
            while True:
                for at, count in self.seen:
                    if at >= since and (member_count is None or count == member_count):
                        return at
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.condition.wait(left)

    def last_count(self) -> int | None:
        with self.condition:
            return self.seen[-1][1] if self.seen else None


class Client:
    """REST calls with the write token, one connection per call (as the probe did)."""

    def __init__(self, rest_base: str, token: str):
        self.base = urllib.parse.urlsplit(rest_base)
        self.token = token

    def call(self, method: str, path: str, body: dict | None = None) -> int:
        connection = http.client.HTTPConnection(self.base.hostname, self.base.port, timeout=30)
        try:
            connection.request(method, path, body=json.dumps(body) if body is not None else None,
                               headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            return response.status
        finally:
            connection.close()

    def join(self, group: int, user: int) -> int:
        return self.call("POST", f"/api/v1/groups/{group}/members", {"userId": user})

    def leave(self, group: int, user: int) -> int:
        return self.call("DELETE", f"/api/v1/groups/{group}/members/{user}")


class Watch:
    """One watch held open on one wire, feeding its Receipts until closed."""

    def __init__(self, protocol: str, group: int, *, rest_base: str, grpc_address: str, grpcurl: str):
        self.protocol = protocol
        self.receipts = Receipts()
        self.process: subprocess.Popen | None = None
        self.connection: http.client.HTTPConnection | None = None
        if protocol == "rest":
            base = urllib.parse.urlsplit(rest_base)
            self.connection = http.client.HTTPConnection(base.hostname, base.port, timeout=None)
            self.connection.request("GET", f"/api/v1/groups/{group}/events", headers={"Accept": "text/event-stream"})
            threading.Thread(target=self._read_sse, daemon=True).start()
        else:
            self.process = subprocess.Popen([grpcurl, "-plaintext", "-d", json.dumps({"id": group}), grpc_address,
                                             GRPC_WATCH_METHOD], stdout=subprocess.PIPE,
                                            stderr=subprocess.DEVNULL, text=True)
            threading.Thread(target=self._read_grpcurl, daemon=True).start()

    def _read_sse(self) -> None:
        try:
            response = self.connection.getresponse()
            for event in sse_events(line.decode() for line in response):
                if event.get("event") == "group":
                    self.receipts.add(json.loads(event["data"])["memberCount"])
        except Exception:  # noqa: BLE001 - closed under it by close() (http.client then fails in
            pass           # several ways), or the stream ended: the changes it missed are counted

    def _read_grpcurl(self) -> None:
        try:
            for message in grpcurl_messages(self.process.stdout):
                if "group" in message:
                    # proto3 JSON leaves out a zero
                    self.receipts.add(message["group"].get("member_count", 0))
        except (OSError, ValueError):
            pass

    def close(self) -> None:
        if self.connection is not None and self.connection.sock is not None:
            try:
                self.connection.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            self.connection.close()
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()


@dataclass
class Result:
    """One window: per wire, the latencies from each change's answer and from its request (ms)."""
    from_answer_ms: dict[str, list[float]]
    from_request_ms: dict[str, list[float]]
    changes: int = 0
    missed: dict[str, int] = field(default_factory=dict)
    load_writes: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)


def measure(*, rest_base: str, grpc_address: str, token: str, protocols: list[str], watched: list[tuple[int, int]],
            load: list[tuple[int, int]], seconds: float, write_rate: float, pause_seconds: float,
            grpcurl: str = "grpcurl", say=print) -> Result:
    """One window: the watches opened (each group on every wire of `protocols`), their first state
    awaited, then for `seconds` every watched group's writer makes changes while the load writers
    write at `write_rate` in all; memberships are put back as they were found (the users not
    members) before returning."""
    client = Client(rest_base, token)
    result = Result({p: [] for p in protocols}, {p: [] for p in protocols}, missed={p: 0 for p in protocols})
    lock = threading.Lock()
    # a user left over from an interrupted run (a member) would make the first join a conflict
    for group, user in watched + load:
        client.leave(group, user)
    watches = {pair: [Watch(p, pair[0], rest_base=rest_base, grpc_address=grpc_address, grpcurl=grpcurl)
                      for p in protocols] for pair in watched}
    try:
        for pair, ws in watches.items():
            for w in ws:
                if w.receipts.first_after(0, None, FIRST_STATE_TIMEOUT_SECONDS) is None:
                    raise WatchError(f"the {w.protocol} watch of group {pair[0]} got no first state within "
                                       f"{FIRST_STATE_TIMEOUT_SECONDS} s")
        stop = threading.Event()

        def load_writer(group: int, user: int, interval: float) -> None:
            t0, k, member = time.monotonic(), 0, False
            while not stop.is_set():
                due = t0 + k * interval
                time.sleep(max(0.0, due - time.monotonic()))
                status = client.leave(group, user) if member else client.join(group, user)
                k += 1
                if status in (201, 204):
                    member = not member
                    with lock:
                        result.load_writes += 1
            if member:
                client.leave(group, user)

        def watched_writer(group: int, user: int, ws: list[Watch], deadline: float) -> None:
            member_count = ws[0].receipts.last_count()
            joining = True
            while time.monotonic() < deadline:
                for w in ws:
                    w.receipts.clear()
                time.sleep(random.uniform(0, pause_seconds))
                sent = time.monotonic()
                status = client.join(group, user) if joining else client.leave(group, user)
                answered = time.monotonic()
                if status not in (201, 204):
                    with lock:
                        result.errors.append(f"group {group}: {'join' if joining else 'leave'} answered {status}")
                    return
                wanted = member_count + 1 if joining else member_count
                joining = not joining
                with lock:
                    result.changes += 1
                # the next change waits until every wire showed this one, so receipts cannot mix
                for w in ws:
                    at = w.receipts.first_after(sent, wanted, SEEN_TIMEOUT_SECONDS)
                    with lock:
                        if at is None:
                            result.missed[w.protocol] += 1
                        else:
                            result.from_answer_ms[w.protocol].append(max(0.0, at - answered) * 1000)
                            result.from_request_ms[w.protocol].append((at - sent) * 1000)
            if not joining:
                client.leave(group, user)

        n_load = min(len(load), load_threads(write_rate))
        loaders = [threading.Thread(target=load_writer, args=(g, u, n_load / write_rate), daemon=True)
                   for g, u in load[:n_load]]
        t0 = time.monotonic()
        for thread in loaders:
            thread.start()
        writers = [threading.Thread(target=watched_writer, args=(g, u, ws, t0 + seconds), daemon=True)
                   for (g, u), ws in watches.items()]
        for thread in writers:
            thread.start()
        for thread in writers:
            thread.join()
        result.seconds = time.monotonic() - t0
        stop.set()
        for thread in loaders:
            thread.join(timeout=30)
    finally:
        for ws in watches.values():
            for w in ws:
                w.close()
    return result


# ---------------------------------------------------------------- run.json's records (pure)

def window_record(result: Result, protocol: str, *, start: int, rnd: int, order: int) -> dict:
    """One WatchGroup window as run.json holds it (the latencies themselves stay in memory)."""
    return {"start": start, "round": rnd, "order": order, "seconds": round(result.seconds, 3),
            "changes": result.changes, "missed": result.missed[protocol], "loadWrites": result.load_writes,
            "achievedWriteRate": result.load_writes / result.seconds if result.seconds else 0.0,
            "latencyMs": figures(result.from_answer_ms[protocol]),
            "fromRequestMs": figures(result.from_request_ms[protocol]), "errors": list(result.errors)}


def records(watch_runs: dict[str, list], plans: list) -> list[dict]:
    """One record per WatchGroup cell: its windows and the figures pooled over all their changes.
    watch_runs: cell id → [(window record, latencies from the answer, from the request)]."""
    by_id = {c.id: c for c in plans}
    out = []
    for cell_id, windows in watch_runs.items():
        c = by_id[cell_id]
        seconds = sum(w["seconds"] for w, _, _ in windows)
        p50s = [w["latencyMs"]["p50"] for w, _, _ in windows if w["latencyMs"]["p50"] is not None]
        out.append({
            "id": c.id, "protocol": c.protocol, "client": c.tool, "cacheMode": c.cache_mode,
            "watchers": c.concurrency, "writeRate": c.target_rate, "pauseMs": c.pause_ms,
            "durationSeconds": c.duration_seconds, "starts": c.starts, "repetitions": c.repetitions,
            "windows": [w for w, _, _ in windows],
            "summary": {
                "changes": sum(w["changes"] for w, _, _ in windows),
                "missed": sum(w["missed"] for w, _, _ in windows),
                "errors": sum(len(w["errors"]) for w, _, _ in windows),
                "achievedWriteRate": sum(w["loadWrites"] for w, _, _ in windows) / seconds if seconds else 0.0,
                "latencyMs": figures([v for _, answer, _ in windows for v in answer]),
                "fromRequestMs": figures([v for _, _, request in windows for v in request]),
                # how much one window's median differs from the next: the spread the pooled figures hide
                "windowP50Ms": {"min": min(p50s), "max": max(p50s)} if p50s else None,
            }})
    return out


WATCH_NOTE = (
    "WatchGroup cells: per window, each of the cell's watches (on its wire) follows a group of its own that a "
    "writer changes through REST at random moments (a join, then a leave, after a uniformly random pause of up to "
    "pauseMs), while load writers join and leave other groups at writeRate writes/s in all. Latency: from the "
    "write's answer to the watch's receipt of the group with the new member count (understates commit-to-client "
    "by the part of the write after its commit; fromRequestMs is the upper bound from the write's request). "
    "Pooled nearest-rank percentiles over every change of the cell, each from as many changes as the bench asks of any percentile (p50: 20, p99: 1,000), else null. The services follow the "
    "invalidation log every tandem.cache.log.poll-interval (100 ms by default), which bounds what a watch can do; "
    "the gRPC watches are on the other instance than the writes (the gRPC service), so theirs include the log's "
    "trip between instances. WatchGroup cells run after each start's other cells: their writes make groups stale.")
