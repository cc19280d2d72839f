"""Hit ratios from the cache endpoint's counters: deltas per level, the overall figure, notes."""
import pytest

from tandem_bench import cachestats


def status(mode="hybrid", **caches):
    """An /actuator/cache answer; caches: name=(l1 hits, l1 misses, l2 hits, l2 misses)."""
    doc = {"mode": mode, "instanceId": "x", "caches": {}, "total": {}, "l1": {"enabled": True, "trusted": True},
           "breaker": "CLOSED", "redisErrors": {}}
    for name, (h1, m1, h2, m2) in caches.items():
        doc["caches"][name] = {"l1": {"hits": h1, "misses": m1, "hitRatio": 0.0},
                               "l2": {"hits": h2, "misses": m2, "hitRatio": 0.0}, "l1Size": 3}
    return cachestats.normalise(doc)


def test_warm_hybrid_window_is_all_l1_hits():
    before = status(group=(100, 50, 10, 40))
    after = status(group=(10_100, 50, 10, 40))
    ratio, notes = cachestats.hit_ratio(before, after, "GetGroup")
    assert ratio == {"l1": 1.0, "l2": None, "overall": 1.0}  # l2 saw no lookup: not in play
    assert notes == []


def test_cold_hybrid_window_misses_both_levels():
    before = status(group=(500, 500, 0, 500))
    after = status(group=(500, 1500, 0, 1500))
    ratio, _ = cachestats.hit_ratio(before, after, "GetGroup")
    assert ratio == {"l1": 0.0, "l2": 0.0, "overall": 0.0}


def test_overall_counts_l2_hits_behind_l1_misses():
    # 1000 lookups: 600 L1 hits, 400 L1 misses of which L2 answers 300 and the database 100
    before = status(group=(0, 0, 0, 0))
    after = status(group=(600, 400, 300, 100))
    ratio, _ = cachestats.hit_ratio(before, after, "GetGroup")
    assert ratio["l1"] == pytest.approx(0.6)
    assert ratio["l2"] == pytest.approx(0.75)
    assert ratio["overall"] == pytest.approx(0.9)


def test_redis_mode_overall_is_the_l2_ratio():
    before = status("redis", group=(0, 0, 10, 10))
    after = status("redis", group=(0, 0, 1010, 10))
    ratio, _ = cachestats.hit_ratio(before, after, "GetGroup")
    assert ratio == {"l1": None, "l2": 1.0, "overall": 1.0}


def test_only_the_operations_cache_counts():
    before = status(**{"group": (0, 0, 0, 0), "groups-page": (0, 0, 0, 0), "user": (0, 0, 0, 0)})
    after = status(**{"group": (0, 100, 0, 100), "groups-page": (900, 100, 0, 100), "user": (1000, 0, 0, 0)})
    assert cachestats.hit_ratio(before, after, "ListGroups")[0]["l1"] == pytest.approx(0.9)
    assert cachestats.hit_ratio(before, after, "GetGroup")[0]["l1"] == 0.0


def test_hello_and_an_idle_window_have_no_ratio():
    s = status(group=(5, 5, 5, 5))
    assert cachestats.hit_ratio(s, s, "Hello")[0] == {"l1": None, "l2": None, "overall": None}
    assert cachestats.hit_ratio(s, s, "GetGroup")[0] == {"l1": None, "l2": None, "overall": None}


def test_counters_going_down_make_the_window_unmeasured():
    before = status(group=(1000, 10, 0, 10))
    after = status(group=(20, 0, 0, 0))  # reset (or restart) during the window
    ratio, notes = cachestats.hit_ratio(before, after, "GetGroup")
    assert ratio == {"l1": None, "l2": None, "overall": None}
    assert "went down" in notes[0]


def test_unknown_cache_names_fall_back_to_every_cache_with_a_note():
    before = status(**{"groups": (0, 0, 0, 0)})
    after = status(**{"groups": (50, 50, 0, 50)})
    ratio, notes = cachestats.hit_ratio(before, after, "GetGroup")
    assert ratio["l1"] == 0.5
    assert "none of ['group']" in notes[0]


def test_normalise_accepts_missing_levels_and_ignores_other_fields():
    doc = {"mode": "local", "caches": {"group": {"l1": {"hits": 3, "misses": 1}, "l1Size": 7}}, "total": {}}
    n = cachestats.normalise(doc)
    assert n["mode"] == "local"
    assert n["caches"] == {"group": {"l1": {"hits": 3.0, "misses": 1.0}}}


def test_normalise_refuses_non_numbers():
    with pytest.raises(cachestats.CacheEndpointError):
        cachestats.normalise({"caches": {"group": {"l1": {"hits": "many", "misses": 0}}}})


def test_health_notes():
    before = status(group=(0, 0, 0, 0))
    doc_after = {"mode": "hybrid", "caches": {}, "l1": {"trusted": False}, "breaker": "OPEN",
                 "redisErrors": {"get": 3, "set": 1}}
    notes = cachestats.health_notes(before, cachestats.normalise(doc_after))
    assert any("4 Redis errors" in n for n in notes)
    assert any("L1 not trusted" in n for n in notes)
    assert any("breaker OPEN" in n for n in notes)


def test_health_notes_count_bypasses_and_refreshes_that_left_an_entry_to_expire():
    def doc(bypasses, replaced, superseded, failed):
        return cachestats.normalise({"mode": "hybrid", "caches": {}, "l1": {
            "trusted": True, "bypasses": bypasses,
            "refreshes": {"replaced": replaced, "superseded": superseded, "failed": failed}}})
    assert cachestats.health_notes(doc(5, 10, 1, 0), doc(5, 400, 1, 0)) == []   # refreshes that replaced: normal
    notes = cachestats.health_notes(doc(5, 10, 1, 0), doc(25, 30, 4, 2))
    assert "20 reads bypassed L1" in notes[0]
    assert "L1 refreshes ahead of expiry: 20 replaced, 3 superseded, 2 failed" in notes[1]
    # reads past L2 (not readable then), which the service counts as L2 misses since 3db851f
    def with_l2(bypasses):
        return cachestats.normalise({"mode": "redis", "caches": {}, "l2": {"enabled": True, "bypasses": bypasses}})
    assert cachestats.health_notes(with_l2(2), with_l2(2)) == []
    assert cachestats.health_notes(with_l2(2), with_l2(9)) == [
        "7 reads bypassed L2 (not read then: an invalidation not relayed yet, a re-check after a reconnect, the log "
        "not read within the bound, or the breaker open); each counts as an L2 miss"]
    # a service without these counters (older than refresh ahead): no note, no error
    old = cachestats.normalise({"mode": "hybrid", "caches": {}, "l1": {"trusted": True}})
    assert cachestats.health_notes(old, old) == []


def test_flush_sends_the_write_token():
    """DELETE /actuator/cache is a write: the services refuse it without a bearer token."""
    import http.server
    import threading

    seen = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_DELETE(self):
            seen["path"], seen["authorization"] = self.path, self.headers.get("Authorization")
            ok = self.headers.get("Authorization") == "Bearer t.o.k"
            self.send_response(200 if ok else 401)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_port}"
        cachestats.flush(base, token="t.o.k")
        assert seen == {"path": "/actuator/cache", "authorization": "Bearer t.o.k"}
        with pytest.raises(cachestats.CacheEndpointError):
            cachestats.flush(base)
    finally:
        server.shutdown()
        server.server_close()
