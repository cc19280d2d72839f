"""Pooled percentiles (HdrHistogram's definition, whatever the tool), the minimum sample counts,
and the two-level bootstrap."""
import numpy as np
import pytest
from hdrh.histogram import HdrHistogram

from tandem_bench import pooled, windows


def test_percentiles_of_summed_counts_are_hdrhistograms_own():
    rng = np.random.default_rng(1)
    a, b = rng.lognormal(6, 1, 4000), rng.lognormal(7, 0.5, 3000)
    h = HdrHistogram(pooled.LOWEST_US, pooled.HIGHEST_US, pooled.SIGNIFICANT_DIGITS)
    for v in np.rint(np.concatenate([a, b])).astype(int):
        h.record_value(int(v))
    counts = pooled.histogram_counts(a) + pooled.histogram_counts(b)
    for p in (1, 50, 90, 99, 99.9, 100):
        assert pooled.percentile_us(counts, p) == h.get_value_at_percentile(p)


def test_pooling_is_not_the_median_of_window_percentiles():
    fast = np.full(1000, 100.0)      # one window all at 100 µs
    slow = np.full(1000, 10_000.0)   # another all at 10 ms
    slower = np.full(1000, 20_000.0)
    pool = pooled.Pool.of([fast, slow, slower])
    latency, _ = pool.latency_ms()
    # pooled p50 is in the middle window (10 ms); the pooled p33 sits at the fast one
    assert latency["p50"] == pytest.approx(10.0, rel=1e-3)
    assert pooled.percentile_us(pool.counts, 30) == pytest.approx(100, rel=1e-3)
    assert latency["max"] == 20.0 and latency["mean"] == pytest.approx((0.1 + 10 + 20) / 3)


@pytest.mark.parametrize("percent,needed", [(50, 20), (90, 100), (99, 1000), (99.9, 10_000), (99.99, 100_000)])
def test_a_percentile_needs_ten_samples_beyond_it(percent, needed):
    assert pooled.min_samples(percent) == needed


def test_too_few_samples_leave_the_tail_null_and_say_so():
    pool = pooled.Pool.of([np.arange(1, 301, dtype=float)])
    latency, too_few = pool.latency_ms()
    assert latency["p50"] is not None and latency["p95"] is not None
    assert latency["p99"] is None and latency["p999"] is None
    assert too_few == ["p99", "p999", "p9999"]
    assert [p["percentile"] for p in pool.spectrum()][-1] == 100.0
    assert 99.0 not in [p["percentile"] for p in pool.spectrum()]


def _data(values):
    return windows.WindowData(throughput=values, ok=1000, counts=pooled.histogram_counts(np.full(1000, values)),
                              lat_sum_us=values * 1000, lat_max_us=values, server_cpu=values / 1000, eligible=True)


def test_bootstrap_interval_brackets_the_median_and_is_reproducible():
    ws = {(s, r): _data(v) for (s, r), v in zip([(0, 0), (0, 1), (1, 0), (1, 1)], [100.0, 110.0, 90.0, 105.0])}
    draws = pooled.Plans(seed=7).for_group("g", list(ws))
    out = pooled.bootstrap(ws, draws, windows.throughput)
    assert out["value"] == 102.5
    assert 90.0 <= out["low"] <= out["value"] <= out["high"] <= 110.0
    again = pooled.bootstrap(ws, pooled.Plans(seed=7).for_group("g", list(ws)), windows.throughput)
    assert again == out


def test_one_window_has_no_interval():
    out = pooled.bootstrap({(0, 0): _data(100.0)}, pooled.Plans().for_group("g", [(0, 0)]), windows.throughput)
    assert out == {"value": 100.0, "low": None, "high": None}


def test_draws_resample_starts_then_rounds_within_them():
    keys = [(0, 0), (0, 1), (1, 0), (1, 1)]
    for draw in pooled.Plans(seed=3, replicates=200).for_group("g", keys):
        assert len(draw) == 4
        # each drawn start contributes its own rounds: pairs of the same start
        assert draw[0][0] == draw[1][0] and draw[2][0] == draw[3][0]


def test_cells_of_one_group_share_their_draws_so_ratios_are_paired():
    keys = [(0, 0), (0, 1), (1, 0), (1, 1)]
    plans = pooled.Plans(seed=5)
    assert plans.for_group("hybrid", keys) is plans.for_group("hybrid", keys)
    # a ratio of two cells that move together in every window has no spread
    num = {k: _data(v) for k, v in zip(keys, [100.0, 200.0, 300.0, 400.0])}
    den = {k: _data(v / 2) for k, v in zip(keys, [100.0, 200.0, 300.0, 400.0])}
    d = plans.for_group("hybrid", keys)
    r, reps = pooled.ratio_interval(num, d, windows.throughput, den, d, windows.throughput)
    assert len(reps) == len(d) and set(reps) == {2.0}
    assert r["value"] == pytest.approx(2.0) and r["low"] == pytest.approx(2.0) and r["high"] == pytest.approx(2.0)


def test_a_cell_of_a_group_measured_in_more_rounds_gets_draws_that_reach_them():
    # a [[matrix]] block may give its cells more repetitions than another block of the same group:
    # draws made for the first cell's one round would never pick the later cell's other two
    plans = pooled.Plans(seed=2)
    plans.for_group("hybrid", [(0, 0), (1, 0)])
    keys = [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    more = {k: _data(100.0 if k[1] == 0 else 120.0) for k in keys}
    out = pooled.bootstrap(more, plans.for_group("hybrid", keys), windows.throughput)
    assert out["value"] == 120.0 and out["low"] <= out["value"] <= out["high"]
    assert {k for d in plans.for_group("hybrid", keys) for k in d} == set(keys)


def test_a_ratio_with_one_window_on_either_side_has_no_interval():
    # one window says nothing of its side's spread: resampling the other side alone would give an
    # interval that passes half the uncertainty off as all of it (and, with one window on both
    # sides, a zero-width one)
    keys = [(0, 0), (0, 1), (1, 0), (1, 1)]
    plans = pooled.Plans(seed=5)
    many = {k: _data(v) for k, v in zip(keys, [100.0, 102.0, 104.0, 98.0])}
    one = {(0, 0): _data(110.0)}
    for num, den in ((one, many), (many, one), (one, {(0, 0): _data(100.0)})):
        r, reps = pooled.ratio_interval(num, plans.for_group("g", list(num)), windows.throughput,
                                        den, plans.for_group("g", list(den)), windows.throughput)
        assert r["value"] is not None and r["low"] is None and r["high"] is None
        assert reps == [None] * len(plans.for_group("g", list(num)))


def test_a_figure_the_windows_cannot_give_has_no_interval_either():
    # windows of 600 and 300 samples: p99 needs 1,000, and a resample repeating the larger window
    # (1,200) must not conjure an interval around a figure that is not there
    small = {(0, 0): _data(100.0), (0, 1): _data(200.0)}
    small[(0, 0)].counts = pooled.histogram_counts(np.full(600, 100.0))
    small[(0, 1)].counts = pooled.histogram_counts(np.full(300, 100.0))
    out = pooled.bootstrap(small, pooled.Plans(seed=1).for_group("g", list(small)), windows.percentile_ms(99))
    assert out == {"value": None, "low": None, "high": None}


def test_a_replicate_that_draws_none_of_the_windows_left_is_missing_not_the_point_value():
    # A headline applies the draws made for all of a cell's windows to the windows its flags left.
    # A replicate that drew only flagged windows used to fall back to every window left, the point
    # value itself, and a share of replicates sitting on the point narrowed the interval.
    keys = [(s, r) for s in range(3) for r in range(2)]
    left = {k: _data(100.0 + 10 * k[0] + k[1]) for k in keys if k[0] != 2}
    only_the_flagged_start = [(2, 0), (2, 1), (2, 0), (2, 1), (2, 1), (2, 0)]
    assert pooled.choose(left, only_the_flagged_start) == []
    draws = pooled.Plans(seed=11).for_group("g", keys)
    missed = [d for d in draws if not any(k in left for k in d)]
    assert missed
    for d in draws:
        assert (windows.throughput(pooled.choose(left, d)) is None) == (d in missed)


def test_windows_left_from_one_start_of_several_have_no_interval():
    # The starts differ most (the module's docstring): windows of one start alone would give an
    # interval of its rounds' spread, far narrower than the cell's.
    keys = [(s, r) for s in range(3) for r in range(3)]
    plans = pooled.Plans(seed=4)
    one_start = {k: _data(100.0 + k[1]) for k in keys if k[0] == 1}
    out = pooled.bootstrap(one_start, plans.for_group("g", keys), windows.throughput)
    assert out == {"value": 101.0, "low": None, "high": None}
    every = {k: _data(100.0 + 10 * k[0] + k[1]) for k in keys}
    r, reps = pooled.ratio_interval(one_start, plans.for_group("g", keys), windows.throughput,
                                    every, plans.for_group("g", keys), windows.throughput)
    assert r["value"] is not None and r["low"] is None and r["high"] is None
    assert reps == [None] * len(plans.for_group("g", keys))
    # a cell measured in one start by design (smoke, quick's single-start cells) keeps its rounds' interval
    single = {(0, r): _data(100.0 + r) for r in range(3)}
    out = pooled.bootstrap(single, plans.for_group("g", list(single)), windows.throughput)
    assert out["low"] is not None and out["high"] is not None


def test_a_percentile_of_a_sum_from_the_used_buckets_alone_is_the_summed_vectors_one():
    rng = np.random.default_rng(7)
    vectors = [pooled.histogram_counts(rng.lognormal(mean, 0.6, size)) for mean, size in
               ((6.0, 3000), (6.3, 500), (5.8, 1), (6.0, 20000))]
    used = [pooled.used_buckets(v) for v in vectors]
    for percent in (0.0, 1.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0):
        for picked in ([0], [0, 1], [1, 2], [0, 0, 3], [2]):
            summed = sum((vectors[i] for i in picked), np.zeros_like(vectors[0]))
            assert pooled.percentile_us_of_sum([used[i] for i in picked], percent) == \
                pooled.percentile_us(summed, percent), (percent, picked)
    assert pooled.percentile_us_of_sum([used[2]], 99.0, min_count=pooled.min_samples(99.0)) is None
