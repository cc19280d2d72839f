"""Pooled latency distributions and bootstrap intervals: how a cell's windows become one figure
with an honest interval.

Latency: every window's successful requests are recorded in an HdrHistogram (1 µs to 1 h, 3
significant digits; HdrHistogram_py), and a cell's percentiles are read from the sum of its
windows' histograms — pooled over all repetitions, with HdrHistogram's one definition whatever
tool measured the requests (never a median of per-window percentiles). A percentile is reported
only when the pool holds enough samples for it to be more than its few largest values:
n >= 10 / (1 - p), so p99 needs 1,000 samples, p99.9 10,000, p99.99 100,000; below that it is
null and the cell gets a few-samples flag.

Intervals: a cell's windows come from several service starts and rounds. A bootstrap replicate
resamples the starts with replacement, then the rounds within each chosen start (a two-level
bootstrap: windows of one start share a JIT and a heap, so they are not independent), and
recomputes the figure on the chosen windows; the 95 % interval is the 2.5th and 97.5th
percentiles of 1,000 replicates. Cells measured in the same service process share their
replicates' choices (the same starts and rounds), so a ratio of two such cells is bootstrapped
paired, as they were measured. The random generator is seeded from the run, so the same run
always gets the same intervals.
"""
from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Hashable, Sequence

import numpy as np
from hdrh.histogram import HdrHistogram

LOWEST_US = 1
HIGHEST_US = 3_600_000_000
SIGNIFICANT_DIGITS = 3
REPLICATES = 1000

# reported percentiles: name in the run → percent
PERCENTILES = {"p50": 50.0, "p90": 90.0, "p95": 95.0, "p99": 99.0, "p999": 99.9, "p9999": 99.99}
SPECTRUM = (0.0, 25.0, 50.0, 75.0, 90.0, 95.0, 97.5, 99.0, 99.5, 99.9, 99.95, 99.99, 99.995, 99.999)


def min_samples(percent: float) -> int:
    """The fewest samples a percentile is reported from: 10 / (1 - p), e.g. 1,000 for p99."""
    if percent >= 100:
        return 1
    return math.ceil(round(10 / (1 - percent / 100), 6))


# ---------------------------------------------------------------- histograms as count vectors

def new_histogram() -> HdrHistogram:
    return HdrHistogram(LOWEST_US, HIGHEST_US, SIGNIFICANT_DIGITS)


@lru_cache(maxsize=1)
def _index_values() -> np.ndarray:
    """The value HdrHistogram reports for each counts index (its highest equivalent value)."""
    h = new_histogram()
    return np.array([h.get_highest_equivalent_value(h.get_value_from_index(i)) for i in range(h.counts_len)],
                    dtype=np.float64)


def histogram_counts(latency_us: np.ndarray) -> np.ndarray:
    """The latencies recorded in an HdrHistogram, returned as its counts vector (int64), so that
    pooling is a vector sum. Values below 1 µs count as 1 µs, above an hour as an hour."""
    h = new_histogram()
    values = np.clip(np.rint(np.asarray(latency_us, dtype=np.float64)), LOWEST_US, HIGHEST_US).astype(np.int64)
    uniq, reps = np.unique(values, return_counts=True)
    for v, c in zip(uniq.tolist(), reps.tolist()):
        h.record_value(v, c)
    return np.ctypeslib.as_array(h.counts)[:h.counts_len].astype(np.int64).copy()


def percentile_us(counts: np.ndarray, percent: float) -> float | None:
    """HdrHistogram's value at a percentile of a counts vector (its getValueAtPercentile: the
    highest equivalent value of the bucket where the running count reaches p/100 of the total,
    rounded half up, at least 1)."""
    return percentile_us_of_sum([used_buckets(counts)], percent)


def used_buckets(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(indices, counts) of a counts vector's nonzero buckets."""
    indices = np.flatnonzero(counts)
    return indices, counts[indices]


def percentile_us_of_sum(used: Sequence[tuple[np.ndarray, np.ndarray]], percent: float,
                         min_count: int = 1) -> float | None:
    """percentile_us of the sum of counts vectors, each given as its used_buckets; None when the sum
    counts fewer than min_count. The same bucket in several vectors needs no merging: sorted by
    bucket, the running count crosses the target in the same bucket."""
    indices = np.concatenate([i for i, _ in used])
    counts = np.concatenate([c for _, c in used])
    total = int(counts.sum())
    if total == 0 or total < min_count:
        return None
    order = np.argsort(indices, kind="stable")
    target = max(1, int(percent / 100 * total + 0.5))
    position = int(np.searchsorted(np.cumsum(counts[order]), target))
    return float(_index_values()[indices[order][position]])


@dataclass
class Pool:
    """A cell's pooled successful latencies: the summed histogram plus exact sum and max."""
    counts: np.ndarray
    n: int
    sum_us: float
    max_us: float | None

    @classmethod
    def of(cls, latencies_us: Sequence[np.ndarray]) -> "Pool":
        counts = sum((histogram_counts(l) for l in latencies_us), np.zeros(new_histogram().counts_len, np.int64))
        n = int(sum(len(l) for l in latencies_us))
        return cls(counts, n, float(sum(float(np.sum(l)) for l in latencies_us)),
                   float(max(float(np.max(l)) for l in latencies_us if len(l))) if n else None)

    def latency_ms(self) -> tuple[dict, list[str]]:
        """mean, p50..p99.99 and max in ms; a percentile the sample count cannot support is null
        and named in the returned list."""
        out = {"mean": self.sum_us / self.n / 1000 if self.n else None}
        too_few = []
        for name, p in PERCENTILES.items():
            if self.n and self.n >= min_samples(p):
                out[name] = percentile_us(self.counts, p) / 1000
            else:
                out[name] = None
                if self.n:
                    too_few.append(name)
        out["max"] = self.max_us / 1000 if self.max_us is not None else None
        return out, too_few

    def spectrum(self) -> list[dict]:
        """(percentile, ms) from 0 to the highest percentile the samples support, then 100 (max)."""
        points = [{"percentile": p, "ms": percentile_us(self.counts, p) / 1000}
                  for p in SPECTRUM if self.n and self.n >= min_samples(p)]
        if self.n:
            points.append({"percentile": 100.0, "ms": self.max_us / 1000})
        return points


# ---------------------------------------------------------------- the bootstrap

WindowKey = tuple[int, int]   # (service start, round)


@dataclass
class Plans:
    """Bootstrap choices per group of cells measured in the same service processes: for each
    replicate, the (start, round) keys drawn."""
    replicates: int = REPLICATES
    seed: int = 0
    _plans: dict = field(default_factory=dict)

    def for_group(self, group: Hashable, keys: Sequence[WindowKey]) -> list[list[WindowKey]]:
        """The replicates' draws for a group's cells with these windows' keys (drawn once per group
        and set of keys: the cells of a group measured in the same windows get the same draws, so
        their ratios are paired; a cell with other windows, say more rounds, gets draws of its own,
        since draws made for fewer windows would never pick its others)."""
        windows_of = tuple(sorted(set(keys)))
        plan_id = (group, windows_of)
        if plan_id not in self._plans:
            rng = np.random.default_rng([self.seed, zlib.crc32(repr(plan_id).encode())])
            by_start: dict[int, list[int]] = {}
            for s, r in windows_of:
                by_start.setdefault(s, []).append(r)
            starts = sorted(by_start)
            plans = []
            for _ in range(self.replicates):
                draw = []
                for s in rng.choice(starts, size=len(starts), replace=True).tolist():
                    rounds = by_start[s]
                    draw += [(s, r) for r in rng.choice(rounds, size=len(rounds), replace=True).tolist()]
                plans.append(draw)
            self._plans[plan_id] = plans
        return self._plans[plan_id]


def interval(replicates: Sequence[float | None]) -> tuple[float | None, float | None]:
    values = [v for v in replicates if v is not None and math.isfinite(v)]
    if len(values) < 2:
        return None, None
    low, high = np.percentile(values, [2.5, 97.5])
    return float(low), float(high)


def choose(windows: dict[WindowKey, object], draw: Sequence[WindowKey]) -> list:
    """The windows a draw picks (with repeats); none when it picks none of them, which happens
    where draws made for all of a cell's windows are applied to the windows its flags left (a
    headline): that replicate has no figure, and the figures of the windows' functions are None on
    no windows. (Taking every window then, as this once did, put the point value itself in the
    replicates as often as the draws missed, and narrowed the interval.)"""
    return [windows[k] for k in draw if k in windows]


def _one_start_of_several(windows: dict[WindowKey, object], draws: Sequence[Sequence[WindowKey]]) -> bool:
    """The windows come from one service start while the draws resample several: what is left is
    one start's rounds, whose spread leaves out the starts', the larger (module docstring)."""
    return len({s for s, _ in windows}) < 2 <= len({s for d in draws for s, _ in d})


def bootstrap(windows: dict[WindowKey, object], draws: Sequence[Sequence[WindowKey]],
              figure: Callable[[list], float | None]) -> dict:
    """{value, low, high}: the figure on all windows, and its 95 % bootstrap interval (low and high
    null with fewer than two windows: one window says nothing of its spread; null too for windows
    left from one start of several)."""
    value = figure(list(windows.values())) if windows else None
    # no figure (e.g. a p99 from too few samples), no interval: a resample that repeats a window
    # could reach the sample count the real windows do not
    if len(windows) < 2 or value is None or _one_start_of_several(windows, draws):
        return {"value": value, "low": None, "high": None}
    low, high = interval([figure(choose(windows, d)) for d in draws])
    return {"value": value, "low": low, "high": high}


def ratio_interval(num: dict[WindowKey, object], num_draws, num_figure,
                   den: dict[WindowKey, object], den_draws, den_figure) -> tuple[dict, list]:
    """A ratio of two cells' figures with its interval, and the replicates it came from (a
    headline takes the geometric mean of several pairs' replicates): replicate b divides the numerator's
    figure under its group's draw b by the denominator's under its group's draw b (the same draw
    when both cells share a group: paired). No interval, and no replicates (each None), when either
    cell has fewer than two windows: one window says nothing of its side's spread, and a bootstrap
    of the other side alone would pass off half the uncertainty as all of it; nor when either side's
    windows are left from one start of several."""
    def div(a, b):
        return a / b if a is not None and b not in (None, 0) else None

    value = div(num_figure(list(num.values())), den_figure(list(den.values())))
    if (len(num) < 2 or len(den) < 2 or value is None
            or _one_start_of_several(num, num_draws) or _one_start_of_several(den, den_draws)):
        return {"value": value, "low": None, "high": None}, [None] * len(num_draws)
    reps = [div(num_figure(choose(num, a)), den_figure(choose(den, b))) for a, b in zip(num_draws, den_draws)]
    low, high = interval(reps)
    return {"value": value, "low": low, "high": high}, reps
