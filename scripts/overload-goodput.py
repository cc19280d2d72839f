#!/usr/bin/env python3
"""Goodput at the 2× step ÷ the peak goodput, recomputed from a run's windows with the bench's
current statistic (loadtest/tandem_bench/overload.py goodput_over_peak: the peak re-chosen in each
bootstrap replicate), beside the figure and verdict the run recorded.

    .tools/venv/bin/python scripts/overload-goodput.py results/<run-id>/run.json ...

Why: until the bench re-chose the peak in each replicate, a run whose 2× step was itself its peak
recorded a ratio of 1 [1–1], "met", and the other steps' spread never reached the interval. A run's
window records keep each window's goodput, which is all this statistic reads, so the older runs'
figures can be put right without running them again. The draws are seeded from the run id as the
bench seeds them, but grouped per wire rather than by the bench's service starts, so an interval may
differ from a fresh run's in its third digit.
"""
import json
import sys
import zlib
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "loadtest"))

from tandem_bench import overload, pooled  # noqa: E402


def interval_text(figure: dict) -> str:
    if figure["value"] is None:
        return "—"
    if figure["low"] is None:
        return f"{figure['value']:.3g}"
    return f"{figure['value']:.3g} [{figure['low']:.3g}–{figure['high']:.3g}]"


def wire_lines(run_id: str, cells: dict, pair: dict, wire: dict, plans: pooled.Plans) -> str:
    recorded = next(g for g in wire["goals"] if g["key"] == "goodputAt2xOverPeak")
    double = wire.get("doubleStep")
    name = f"{pair['id']} · {wire['protocol']}{' behind the balancer' if wire.get('front') else ''}"
    if not double:
        return f"{run_id} {name}: no 2× step ({recorded['status']})"
    runs = [SimpleNamespace(step=s["step"], data={(w["start"], w["round"]): SimpleNamespace(throughput=w["throughputRps"])
                                                  for w in cells[s["cellId"]]["windows"]})
            for s in wire["steps"]]
    double_run = next(r for r in runs if r.step == double["step"])
    figure = overload.goodput_over_peak(double_run, runs,
                                        lambda r: plans.for_group((pair["id"], wire["protocol"]), list(r.data)))
    # the verdict as the bench gives it (overload.wire_record): a shortfall of the generator at the
    # 2× step or the peak can only flatter the figure, so it turns a "met" into "undecided"
    steps = {s["step"]: s for s in wire["steps"]}
    goal = overload._goal("goodputAt2xOverPeak", name, overload.GOODPUT_KEPT, False,
                          figure["value"], figure["low"], figure["high"],
                          flattering_flags=overload._generator_flags(steps[double["step"]], steps[wire["peak"]["step"]]))
    return (f"{run_id} {name}: peak at {wire['peak']['step']:g} %, 2× at {double['step']:g} %; recorded "
            f"{interval_text(wire['goodputAt2xOverPeak'])} {recorded['status']}; now {interval_text(figure)} {goal['status']}")


def main(paths: list[str]) -> int:
    for path in paths:
        run = json.loads(Path(path).read_text())
        cells = {c["id"]: c for c in run["cells"]}
        plans = pooled.Plans(seed=zlib.crc32(run["runId"].encode()))
        for pair in run.get("overload") or []:
            for wire in pair["wires"]:
                print(wire_lines(run["runId"], cells, pair, wire, plans))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
