"""The parsing and figures of loadtest/watch_latency.py (the probe itself needs running services)."""

import watch_latency


def test_sse_events_keep_id_event_data_and_comments_and_join_data_lines():
    lines = ["id:2\n", "event:group\n", 'data:{"memberCount":3}\n', "\n",
             "id:3\n", ":heartbeat\n", "\n",
             "data: a\n", "data: b\n", "\n"]
    assert list(watch_latency.sse_events(lines)) == [
        {"id": "2", "event": "group", "data": '{"memberCount":3}'},
        {"id": "3", "comment": "heartbeat"},
        {"data": "a\nb"},
    ]


def test_grpcurl_messages_are_parsed_as_each_one_completes():
    lines = ['{\n', '  "position": "3",\n', '  "group": {\n', '    "member_count": 4\n', '  }\n', '}\n',
             '{\n', '  "position": "3",\n', '  "heartbeat": {}\n', '}\n']
    assert list(watch_latency.grpcurl_messages(lines)) == [
        {"position": "3", "group": {"member_count": 4}},
        {"position": "3", "heartbeat": {}},
    ]


def test_summary_uses_nearest_rank_percentiles():
    figures = watch_latency.summary([float(v) for v in range(1, 101)])
    assert figures == {"n": 100, "p50": 50.0, "p90": 90.0, "p99": 99.0, "max": 100.0}
