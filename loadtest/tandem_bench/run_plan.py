"""What a run of the expanded cells will be, before anything starts: the order of the service
starts, a rough duration (for the dry run and the first progress line), whether the seed scale fits
the cells, and the dry run's listing. profile.py turns a TOML file into cells; this reads the cells.
"""
from __future__ import annotations

from .profile import CACHE_MODES, WATCH, CellPlan


def modes_in_order(cells: list[CellPlan]) -> list[str]:
    return [m for m in CACHE_MODES if any(c.cache_mode == m for c in cells)]


def service_configs_in_order(cells: list[CellPlan]) -> list[str]:
    """The cache mode of each start of the services, in the order the cells need them: one
    start per mode, the fewest a run can do."""
    return list(dict.fromkeys(c.service_config for c in cells))


# rough costs (seconds) of what is not a measured window, measured on the 2-core machine
TOOL_START_SECONDS = 0.8
PROBE_SECONDS = 0.4          # counters read before and after each window
SERVICE_START_SECONDS = 25
WATCH_SETUP_SECONDS = 3      # a WatchGroup window's watches opened and given their first state


def estimate_seconds(profile: dict, cells: list[CellPlan]) -> float:
    """A rough duration of the measuring part (service starts, warm-ups, windows), for the
    dry run and the first progress line."""
    total = 0.0
    for cell in cells:
        if cell.pair and cell.protocol != "rest":
            continue   # an overload pair's gRPC twin runs at the same time as its REST cell
        if cell.operation == WATCH:
            total += cell.windows * (cell.duration_seconds + WATCH_SETUP_SECONDS)
            continue
        total += cell.starts * (cell.warmup_seconds + TOOL_START_SECONDS)
        total += cell.windows * (cell.duration_seconds + cell.settle_seconds + TOOL_START_SECONDS + PROBE_SECONDS
                                 + cell.drain_seconds)
    for config in service_configs_in_order(cells):
        starts = max(c.starts for c in cells if c.service_config == config)
        total += starts * (SERVICE_START_SECONDS + profile["settings"]["jit_warmup_seconds"])
    return total


def groups_per_subject(scale: int) -> int:
    return 5 * scale


def check_scale(profile: dict, cells: list[CellPlan], subjects: int = 10) -> list[str]:
    """Problems with the seed scale: a page size larger than a subject's groups (no full page),
    or a hot key set larger than the keys there are."""
    scale = profile["settings"]["seed_scale"]
    hot = profile["settings"]["hot_keys"]
    per_subject = groups_per_subject(scale)
    problems = []
    sizes = sorted({c.page_size for c in cells if c.page_size})
    for n in sizes:
        pages = subjects * (per_subject - n + 1)
        if per_subject < n:
            problems.append(f"page size {n} exceeds the {per_subject} groups a subject has at seed "
                            f"scale {scale}: no full page")
        elif pages < 2 * hot:
            problems.append(f"page size {n}: only {pages} distinct full pages at seed scale {scale}, "
                            f"fewer than twice hot_keys ({hot}); raise seed_scale")
    if 50 * scale < 2 * hot:
        problems.append(f"hot_keys {hot} leaves too few of the {50 * scale} groups for cold cells")
    return problems


def describe(cells: list[CellPlan]) -> str:
    lines = []
    for i, c in enumerate(cells, 1):
        pair = ""
        if c.pair:
            pair = (f", {c.pair}: " + ("closed, both wires at once" if c.step is None else
                                       f"{c.step:g} % of capacity, both wires at once") +
                    f", deadline {c.timeout_seconds:g}s")
        if c.operation == WATCH:
            lines.append(f"{i:>4}  {c.id}  ({c.starts} starts × {c.repetitions} × {c.duration_seconds:g}s, "
                         f"{c.concurrency} watches, {c.target_rate:g} load writes/s, watch)")
            continue
        traced = ", traced" if c.tracing else ""
        lines.append(f"{i:>4}  {c.id}  ({c.starts} starts × {c.repetitions} × {c.duration_seconds:g}s, "
                     f"warm-up {c.warmup_seconds:g}s, {c.role}{traced}{pair})")
    return "\n".join(lines)

