"""Change-to-client latency of a group watch, on both wires, under write load: a probe, not yet a
bench cell (README, "Watching a group").

One watcher per wire follows group GROUP (REST: GET /api/v1/groups/{id}/events read as Server-Sent
Events; gRPC: WatchGroup through grpcurl, which prints each message as it arrives). A writer then
makes WRITES changes to that group through REST, one at a time — user USER joins, then leaves, so
the member count alternates — and for each one notes when the write's answer arrived (the change
had committed by then) and when each watcher received the group with the new member count. The
latency is receipt minus answer (the change had committed before the answer, so this understates
the commit-to-client time by the part of the write that follows its commit; receipts before the
answer count 0) and, as an upper bound, receipt minus the write's request. Meanwhile LOAD writer threads join and leave other groups as fast as they can, so the
log the watches follow is busy.

    .tools/venv/bin/python loadtest/watch_latency.py --rest http://127.0.0.1:8080 \\
        --grpc 127.0.0.1:9090 --token "$(make -s token)" --group 1 --user 100 --writes 200 --load 4

Prints p50/p90/p99/max per wire in milliseconds and exits 0; 1 if a watcher missed a change
(no matching state within 10 s).
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import shutil
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tandem_bench.stats import percentile_nearest_rank  # noqa: E402


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
            field, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            event[field] = event[field] + "\n" + value if field == "data" and field in event else value
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


def summary(latencies_ms: list[float]) -> dict[str, float]:
    values = sorted(latencies_ms)
    return {"n": len(values), **{f"p{p}": round(percentile_nearest_rank(values, p), 1) for p in (50, 90, 99)},
            "max": round(values[-1], 1)}


class Receipts:
    """member count -> receipt times, per wire; the writer waits on it."""

    def __init__(self):
        self.condition = threading.Condition()
        self.seen: list[tuple[float, int]] = []

    def add(self, member_count: int):
        with self.condition:
            self.seen.append((time.monotonic(), member_count))
            self.condition.notify_all()

    def first_after(self, since: float, member_count: int, timeout: float) -> float | None:
        deadline = time.monotonic() + timeout
        with self.condition:
            while True:
                for at, count in self.seen:
                    if at >= since and count == member_count:
                        return at
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.condition.wait(left)


def watch_rest(base: urllib.parse.SplitResult, group: int, receipts: Receipts):
    connection = http.client.HTTPConnection(base.hostname, base.port, timeout=None)
    connection.request("GET", f"/api/v1/groups/{group}/events", headers={"Accept": "text/event-stream"})
    response = connection.getresponse()
    lines = (line.decode() for line in response)
    for event in sse_events(lines):
        if event.get("event") == "group":
            receipts.add(json.loads(event["data"])["memberCount"])


def watch_grpc(target: str, group: int, receipts: Receipts, grpcurl: str) -> subprocess.Popen:
    process = subprocess.Popen([grpcurl, "-plaintext", "-d", json.dumps({"id": group}), target,
                                "tandem.v1.StudyGroupService/WatchGroup"], stdout=subprocess.PIPE, text=True)

    def read():
        for message in grpcurl_messages(process.stdout):
            if "group" in message:
                receipts.add(message["group"].get("member_count", 0))

    threading.Thread(target=read, daemon=True).start()
    return process


def call(base: urllib.parse.SplitResult, token: str, method: str, path: str, body: dict | None = None) -> int:
    connection = http.client.HTTPConnection(base.hostname, base.port, timeout=30)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
    response = connection.getresponse()
    response.read()
    connection.close()
    return response.status


def load(base, token: str, group: int, user: int, stop: threading.Event, done: list[int]):
    """Join and leave one group (not the watched one) as fast as answers come back; counts the writes applied."""
    while not stop.is_set():
        for method, path, body in (("POST", f"/api/v1/groups/{group}/members", {"userId": user}),
                                   ("DELETE", f"/api/v1/groups/{group}/members/{user}", None)):
            if call(base, token, method, path, body) in (201, 204):
                done[0] += 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rest", default="http://127.0.0.1:8080")
    parser.add_argument("--grpc", default="127.0.0.1:9090")
    parser.add_argument("--token", required=True)
    parser.add_argument("--group", type=int, default=1)
    parser.add_argument("--user", type=int, default=100, help="a user who is not a member of --group")
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--load", type=int, default=4, help="writer threads on other groups")
    parser.add_argument("--pause", type=float, default=0.2,
                        help="most seconds between a write being seen and the next write (uniformly random)")
    parser.add_argument("--grpcurl", default=shutil.which("grpcurl") or "grpcurl")
    args = parser.parse_args()
    base = urllib.parse.urlsplit(args.rest)

    receipts = {"rest": Receipts(), "grpc": Receipts()}
    threading.Thread(target=watch_rest, args=(base, args.group, receipts["rest"]), daemon=True).start()
    grpc_process = watch_grpc(args.grpc, args.group, receipts["grpc"], args.grpcurl)
    stop = threading.Event()
    # Group g + 1 .. g + load, users user - 1, user - 2, ...: distinct pairs, none on the watched group.
    load_writes = [0]
    loaders = [threading.Thread(target=load, args=(base, args.token, args.group + 1 + i, args.user - 1 - i, stop,
                                                   load_writes), daemon=True) for i in range(args.load)]
    time.sleep(2)  # both watchers have their first state
    for thread in loaders:
        thread.start()

    first = receipts["rest"].first_after(0, receipts["rest"].seen[-1][1], 10) if receipts["rest"].seen else None
    if first is None:
        print("watch-latency: the REST watcher got no first state", file=sys.stderr)
        return 1
    member_count = receipts["rest"].seen[-1][1]
    latencies: dict[str, list[float]] = {"rest": [], "grpc": []}
    from_send: dict[str, list[float]] = {"rest": [], "grpc": []}
    missed = 0
    load_started = time.monotonic()
    try:
        for i in range(args.writes):
            for seen in receipts.values():
                with seen.condition:
                    seen.seen.clear()
            joining = i % 2 == 0
            # A random pause: a write made right after the last one was seen would land just after
            # a pass of the log every time, and measure the whole poll interval.
            time.sleep(random.uniform(0, args.pause))
            sent = time.monotonic()
            status = (call(base, args.token, "POST", f"/api/v1/groups/{args.group}/members", {"userId": args.user})
                      if joining else
                      call(base, args.token, "DELETE", f"/api/v1/groups/{args.group}/members/{args.user}"))
            answered = time.monotonic()
            if status not in (201, 204):
                print(f"watch-latency: write {i} answered {status}", file=sys.stderr)
                return 1
            wanted = member_count + 1 if joining else member_count
            # The next write starts once both wires have shown this one, so receipts cannot be mixed up.
            for wire, seen in receipts.items():
                at = seen.first_after(sent, wanted, timeout=10)
                if at is None:
                    missed += 1
                    print(f"watch-latency: {wire} never showed write {i} (member count {wanted})", file=sys.stderr)
                else:
                    latencies[wire].append(max(0.0, at - answered) * 1000)
                    from_send[wire].append((at - sent) * 1000)
    finally:
        stop.set()
        grpc_process.terminate()
    seconds = time.monotonic() - load_started
    print(f"watch-latency: {args.writes} watched writes and {load_writes[0]} load writes "
          f"({load_writes[0] / seconds:.0f}/s) in {seconds:.1f} s")

    for wire, values in latencies.items():
        if values:
            print(f"watch-latency {wire}: from the write's answer {json.dumps(summary(values))}; "
                  f"from its request {json.dumps(summary(from_send[wire]))}")
        else:
            print(f"watch-latency {wire}: no samples")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
