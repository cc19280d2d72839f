"""Change-to-client latency of a group watch, on both wires at once, by hand: a thin command over
tandem_bench/watch.py, the measurement the bench's WatchGroup cells run (`make bench PROFILE=watch`
measures it against the bench's own services, one wire per cell, and records it in run.json).

Watches group GROUP on both wires, changes it through REST for SECONDS (user USER joins, then
leaves, after a random pause each time), while load writers join and leave other groups at
WRITE_RATE writes a second in all (0: none). Against services that are already running:

    .tools/venv/bin/python loadtest/watch_latency.py --rest http://127.0.0.1:8080 \\
        --grpc 127.0.0.1:9090 --token "$(make -s token)" --group 1 --user 100 --seconds 60 --write-rate 200

Prints n/p50/p99/max per wire in milliseconds and exits 0; 1 if a watch missed a change (no
matching state within 10 s) or a write failed.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from tandem_bench import loadgen, watch  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rest", default="http://127.0.0.1:8080")
    parser.add_argument("--grpc", default="127.0.0.1:9090")
    parser.add_argument("--token", required=True)
    parser.add_argument("--group", type=int, default=1)
    parser.add_argument("--user", type=int, default=100, help="a user who is not the owner of --group")
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--write-rate", type=float, default=0, help="load writes per second on other groups")
    parser.add_argument("--pause", type=float, default=0.2,
                        help="most seconds before each change of the watched group (uniformly random)")
    args = parser.parse_args()
    # load writers on the next groups, with the users below --user: distinct pairs, none on the watched group
    load = [(args.group + 1 + i, args.user - 1 - i) for i in range(watch.load_threads(args.write_rate))]
    result = watch.measure(rest_base=args.rest, grpc_address=args.grpc, token=args.token, protocols=["rest", "grpc"],
                           watched=[(args.group, args.user)], load=load, seconds=args.seconds,
                           write_rate=args.write_rate, pause_seconds=args.pause, grpcurl=loadgen.tool_path("grpcurl"))
    print(f"watch-latency: {result.changes} watched changes and {result.load_writes} load writes "
          f"({result.load_writes / result.seconds:.0f}/s) in {result.seconds:.1f} s")
    for error in result.errors:
        print(f"watch-latency: {error}", file=sys.stderr)
    for wire in ("rest", "grpc"):
        print(f"watch-latency {wire}: from the write's answer {json.dumps(watch.figures(result.from_answer_ms[wire]))}; "
              f"from its request {json.dumps(watch.figures(result.from_request_ms[wire]))}; "
              f"missed {result.missed[wire]}")
    return 1 if result.errors or any(result.missed.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
