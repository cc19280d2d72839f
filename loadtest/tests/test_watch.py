"""WatchGroup cells (tandem_bench/watch.py): the stream parsing, the figures, the pairs the writers
use, the [[watch]] block's cells and what run.json and the end-of-run report make of the windows.
The measurement itself needs running services (make bench PROFILE=watch)."""
import pytest

from tandem_bench import profile, report, run_plan, watch

BASE = {"name": "t", "seed_scale": 100, "repetitions": 2, "duration_seconds": 5, "warmup_seconds": 1,
        "hot_keys": 50, "starts": 3}


def test_sse_events_keep_id_event_data_and_comments_and_join_data_lines():
    lines = ["id:2\n", "event:group\n", 'data:{"memberCount":3}\n', "\n",
             "id:3\n", ":heartbeat\n", "\n",
             "data: a\n", "data: b\n", "\n"]
    assert list(watch.sse_events(lines)) == [
        {"id": "2", "event": "group", "data": '{"memberCount":3}'},
        {"id": "3", "comment": "heartbeat"},
        {"data": "a\nb"},
    ]


def test_grpcurl_messages_are_parsed_as_each_one_completes():
    lines = ['{\n', '  "position": "3",\n', '  "group": {\n', '    "member_count": 4\n', '  }\n', '}\n',
             '{\n', '  "position": "3",\n', '  "heartbeat": {}\n', '}\n']
    assert list(watch.grpcurl_messages(lines)) == [
        {"position": "3", "group": {"member_count": 4}},
        {"position": "3", "heartbeat": {}},
    ]


def test_figures_use_nearest_rank_and_the_harness_s_sample_rule():
    """A percentile from as many changes as pooled.min_samples asks (p99: 1,000, p50: 20), as every
    other percentile of the bench; before, a p99 came from 100 changes (their second-largest)."""
    assert watch.figures([float(v) for v in range(1, 1001)]) == {"n": 1000, "p50": 500.0, "p99": 990.0, "max": 1000.0}
    assert watch.figures([float(v) for v in range(1, 301)]) == {"n": 300, "p50": 150.0, "p99": None, "max": 300.0}
    assert watch.figures([5.0, 1.0, 9.0]) == {"n": 3, "p50": None, "p99": None, "max": 9.0}
    assert watch.figures([]) == {"n": 0, "p50": None, "p99": None, "max": None}


def test_every_writer_gets_a_membership_of_its_own_far_from_the_hot_keys():
    watched, load = watch.pairs_for(100, 4, watch.load_threads(200))
    assert len(watched) == 4 and len(load) == 10         # 200 writes/s at 20 a thread
    pairs = watched + load
    assert len({g for g, _ in pairs}) == len(pairs) and len({u for _, u in pairs}) == len(pairs)
    assert min(g for g, _ in pairs) > 50 * 100 - 20 and max(u for _, u in pairs) <= 100 * 100
    assert watch.load_threads(0) == 0 and watch.load_threads(1) == 1


def test_a_watch_block_gives_one_cell_per_wire_rate_and_mode_in_the_first_starts():
    prof = profile.normalise({**BASE, "watch": [{"write_rates": [0, 200], "watchers": 8, "duration_seconds": 4,
                                                 "starts": 1}]})
    cells = profile.expand(prof)
    assert [c.id for c in cells] == ["rest-sse-WatchGroup-hybrid-c8-w0", "grpc-grpcurl-WatchGroup-hybrid-c8-w0",
                                     "rest-sse-WatchGroup-hybrid-c8-w200", "grpc-grpcurl-WatchGroup-hybrid-c8-w200"]
    assert all(c.role == "watch" and c.starts == 1 and c.repetitions == 2 and c.pause_ms == 200 for c in cells)
    # no service start of its own: a watch block's cells share the starts of their cache mode
    assert run_plan.service_configs_in_order(cells) == ["hybrid"]
    assert run_plan.estimate_seconds(prof, cells) == pytest.approx(
        4 * 2 * (4 + run_plan.WATCH_SETUP_SECONDS) + run_plan.SERVICE_START_SECONDS + prof["settings"]["jit_warmup_seconds"])
    assert "8 watches, 200 load writes/s" in run_plan.describe(cells)


@pytest.mark.parametrize("block, message", [
    ({"cache_modes": ["none"]}, "invalidation log"),
    ({"protocols": ["soap"]}, "protocols"),
    ({"write_rates": [-1]}, "write_rates"),
    ({"watchers": 0}, "watchers"),
    ({"drivers": ["rest/k6"]}, "unknown key"),
])
def test_a_watch_block_is_checked(block, message):
    with pytest.raises(profile.ProfileError, match=message):
        profile.normalise({**BASE, "watch": [block]})


def _result(answers, changes, missed=0, load_writes=400, seconds=2.0):
    return watch.Result({"grpc": answers}, {"grpc": [a + 2 for a in answers]}, changes=changes,
                        missed={"grpc": missed}, load_writes=load_writes, seconds=seconds)


def test_records_pool_every_change_of_the_cell_and_the_report_prints_them():
    cell = profile.expand(profile.normalise({**BASE, "watch": [{"protocols": ["grpc"], "write_rates": [200]}]}))[0]
    first = _result([float(v) for v in range(1, 601)], 600)
    second = _result([float(v) for v in range(601, 1201)], 601, missed=1)
    runs = {cell.id: [(watch.window_record(r, "grpc", start=s, rnd=0, order=s + 1), r.from_answer_ms["grpc"],
                       r.from_request_ms["grpc"]) for s, r in enumerate((first, second))]}
    [record] = watch.records(runs, [cell])
    s = record["summary"]
    assert (s["changes"], s["missed"], s["errors"]) == (1201, 1, 0)
    assert s["latencyMs"] == {"n": 1200, "p50": 600.0, "p99": 1188.0, "max": 1200.0}
    assert s["fromRequestMs"]["max"] == 1202.0
    assert s["achievedWriteRate"] == pytest.approx(200)
    # the windows alone have too few changes for a p99 (600 of the 1,000 it needs)
    assert [w["latencyMs"]["p99"] for w in record["windows"]] == [None, None]
    assert s["windowP50Ms"] == {"min": 300.0, "max": 900.0}
    lines = report.watch_lines([record])
    assert lines[0].startswith("Change to client")
    # the p99 of 1,188 ms to three digits, as every figure (and the dashboard) prints it
    assert lines[2].split()[:4] == ["gRPC", "grpcurl", "hybrid", "4"] and "1,190" in lines[2]
