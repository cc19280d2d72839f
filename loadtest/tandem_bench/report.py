"""The end-of-run summary printed by `make bench`: a plain aligned table, the A + B·N fits, the
headline ratios recomputed from the cells, the run's notes, and how to open the dashboard."""
from __future__ import annotations

from . import headline, stats
from .headline import tls_of

DASHBOARD_LINE = "Open the dashboard: make dashboard  →  http://127.0.0.1:5173"

OP_ORDER = {"Hello": 0, "GetGroup": 1, "ListGroups": 2}
CACHE_ORDER = {"none": 0, "local": 1, "redis": 2, "hybrid": 3}
TEMP_ORDER = {"none": 0, "cold": 1, "warm": 2}

HEADLINE_LABELS = {
    "grpcOverRestP50Warm": ("gRPC ÷ REST p50, warm (k6 both)", "below 1: gRPC answers faster"),
    "warmHybridOverNoneThroughput": ("warm hybrid ÷ no cache, ListGroups throughput", ""),
    "jsonOverProtobufBodyBytes": ("JSON ÷ Protobuf body bytes", ""),
    "getGroupOverHelloThroughput": ("warm GetGroup ÷ Hello throughput", "share of the framework's ceiling"),
    "tlsOverPlainP50Rest": ("REST TLS ÷ plain p50", "what HTTPS adds to a call"),
    "tlsOverPlainP50Grpc": ("gRPC TLS ÷ plain p50", "what TLS adds to a call"),
    "tlsOverPlainThroughputRest": ("REST TLS ÷ plain throughput", "below 1: capacity TLS costs"),
    "tlsOverPlainThroughputGrpc": ("gRPC TLS ÷ plain throughput", "below 1: capacity TLS costs"),
}


def _ms(v):
    if v is None:
        return "-"
    return f"{v:.3f}" if v < 10 else f"{v:.2f}" if v < 100 else f"{v:.1f}"


def _num(v, digits=0):
    return "-" if v is None else f"{v:,.{digits}f}"


def _pct(v):
    return "-" if v is None else f"{v * 100:.1f}"


def _ratio(v):
    return "-" if v is None else f"{v:.2f}"


COLUMNS = [
    # header, right-aligned?, value of a cell
    ("protocol", False, lambda c: c["protocol"]),
    ("tool", False, lambda c: c["tool"]),
    ("tls", False, lambda c: "tls" if tls_of(c) else "-"),
    ("cache", False, lambda c: c["cacheMode"]),
    ("temp", False, lambda c: c["temperature"]),
    ("operation", False, lambda c: c["operation"] + (f" n={c['pageSize']}" if c["pageSize"] else "")),
    ("conc", True, lambda c: str(c["concurrency"])),
    ("model", False, lambda c: "closed" if c["model"] == "closed" else f"open {c['targetRate']:g}/s"),
    ("p50 ms", True, lambda c: _ms(c["summary"]["latencyMs"]["p50"])),
    ("p95 ms", True, lambda c: _ms(c["summary"]["latencyMs"]["p95"])),
    ("p99 ms", True, lambda c: _ms(c["summary"]["latencyMs"]["p99"])),
    ("req/s", True, lambda c: _num(c["summary"]["throughputRps"])),
    ("err %", True, lambda c: _pct(c["summary"]["errorRate"])),
    ("body B", True, lambda c: _num(c["summary"]["bodyBytes"])),
    ("sent B", True, lambda c: _num(c["summary"]["wireBytesSentPerRequest"])),
    ("recv B", True, lambda c: _num(c["summary"]["wireBytesReceivedPerRequest"])),
    ("hit L1 %", True, lambda c: _pct(c["summary"]["hitRatio"]["l1"])),
    ("hit L2 %", True, lambda c: _pct(c["summary"]["hitRatio"]["l2"])),
    ("hit %", True, lambda c: _pct(c["summary"]["hitRatio"]["overall"])),
]


def _sort_key(c):
    return (OP_ORDER[c["operation"]], c["pageSize"] or 0, c["model"], c["concurrency"],
            CACHE_ORDER[c["cacheMode"]], TEMP_ORDER[c["temperature"]], c["protocol"], c["tool"], tls_of(c))


def table(cells) -> str:
    """One aligned row per cell (medians over repetitions), a blank line between operations."""
    cells = sorted(cells, key=_sort_key)
    rows = [[get(c) for _, _, get in COLUMNS] for c in cells]
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, (h, _, _) in enumerate(COLUMNS)]

    def line(values):
        return "  ".join(v.rjust(w) if right else v.ljust(w)
                         for v, w, (_, right, _) in zip(values, widths, COLUMNS)).rstrip()

    out = [line([h for h, _, _ in COLUMNS]), line(["-" * w for w in widths])]
    previous = None
    for cell, row in zip(cells, rows):
        group = (cell["operation"], cell["pageSize"])
        if previous is not None and group != previous:
            out.append("")
        previous = group
        out.append(line(row))
    return "\n".join(out)


def headline_lines(cells) -> list[str]:
    head, detail = headline.compute(cells)
    width = max(len(label) for label, _ in HEADLINE_LABELS.values())
    lines = []
    for name in headline.NAMES:
        label, meaning = HEADLINE_LABELS[name]
        value = head[name]
        if value is None:
            lines.append(f"  {label.ljust(width)}  -     ({detail[name]['reason']})")
            continue
        ratios = [p["ratio"] for p in detail[name]["pairs"] if p["ratio"] is not None]
        spread = f"pairs {min(ratios):.2f}..{max(ratios):.2f}" if len(ratios) > 1 else "1 pair"
        n = f"{len(ratios)} pair{'s' if len(ratios) != 1 else ''}"
        extra = f"; {meaning}" if meaning else ""
        lines.append(f"  {label.ljust(width)}  {_ratio(value):>5}  (median of {n}, {spread}{extra})")
    return lines


def fit_lines(fits) -> list[str]:
    lines = []
    for f in fits:
        r2 = "-" if f["r2"] is None else f"{f['r2']:.4f}"
        lines.append(f"  {f['protocol']:<4} {f['tool']:<3} {'tls' if f.get('tls') else '':<3} {f['cacheMode']:<6} {f['temperature']:<4} "
                     f"c={f['concurrency']:<3}  A = {_ms(f['a'])} ms  B = {f['b']:.5f} ms/row  R² = {r2}"
                     f"  (N = {', '.join(str(p['pageSize']) for p in f['points'])})")
    return lines


def summary(run: dict) -> str:
    """The text `make bench` prints at the end of a run."""
    cells = run["cells"]
    fits = run.get("fits")
    if fits is None:
        fits, _ = stats.fits_from_cells(cells)
    parts = [
        f"Run {run['runId']} (profile {run['profile']['name']}, {len(cells)} cells, "
        f"medians of {_repetitions(cells)})",
        "",
        table(cells) if cells else "(no cells)",
        "",
        "Cycle time = A + B·N (ListGroups, p50, least squares):",
        *(fit_lines(fits) or ["  (no cell group with two or more page sizes)"]),
        "",
        "Headline (each the median over pairs of cells that differ only in what is compared):",
        *headline_lines(cells),
    ]
    if run.get("notes"):
        parts += ["", "Notes:", *(f"  - {n}" for n in run["notes"])]
    parts += ["", DASHBOARD_LINE]
    return "\n".join(parts)


def _repetitions(cells) -> str:
    reps = sorted({c["repetitions"] for c in cells})
    if not reps:
        return "no repetitions"
    return f"{'/'.join(map(str, reps))} repetition{'s' if reps != [1] else ''}"


def main(argv: list[str] | None = None) -> int:
    """python -m tandem_bench.report results/<run-id>/run.json: print a stored run's summary."""
    import argparse
    import json

    parser = argparse.ArgumentParser(prog="python -m tandem_bench.report", description=main.__doc__)
    parser.add_argument("run_json")
    args = parser.parse_args(argv)
    with open(args.run_json) as f:
        print(summary(json.load(f)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
