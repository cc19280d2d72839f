"""Expanding a profile into cells: the cartesian product, the schema's rules, order, errors."""
import os
import re

import pytest

from tandem_bench import profile, run_plan

BASE = {"name": "t", "seed_scale": 100, "repetitions": 2, "duration_seconds": 5, "warmup_seconds": 1,
        "hot_keys": 50}


def expand(*blocks, **settings):
    return profile.expand(profile.normalise({**BASE, **settings, "matrix": list(blocks)}))


def ids(cells):
    return [c.id for c in cells]


def test_cartesian_product_of_a_block():
    cells = expand({"operations": ["GetGroup"], "drivers": ["rest/k6", "grpc/k6"],
                    "cache_modes": ["hybrid"], "temperatures": ["cold", "warm"], "concurrency": [1, 10]})
    assert len(cells) == 2 * 2 * 2
    assert {(c.protocol, c.tool) for c in cells} == {("rest", "k6"), ("grpc", "k6")}
    assert {c.temperature for c in cells} == {"cold", "warm"}
    assert all(c.page_size is None and c.model == "closed" and c.target_rate is None for c in cells)
    assert all(c.repetitions == 2 and c.duration_seconds == 5 and c.warmup_seconds == 1 for c in cells)


def test_no_cache_and_hello_have_no_temperature():
    cells = expand({"operations": ["GetGroup", "Hello"], "drivers": ["rest/k6"],
                    "cache_modes": ["none", "local"], "temperatures": ["cold", "warm"], "concurrency": [5]})
    by = {(c.operation, c.cache_mode): sorted(x.temperature for x in cells
                                              if (x.operation, x.cache_mode) == (c.operation, c.cache_mode))
          for c in cells}
    assert by[("GetGroup", "none")] == ["none"]
    assert by[("GetGroup", "local")] == ["cold", "warm"]
    assert by[("Hello", "none")] == ["none"]
    assert by[("Hello", "local")] == ["none"]  # Hello records the mode the service ran in


def test_list_groups_gets_one_cell_per_page_size_others_none():
    cells = expand({"operations": ["ListGroups", "GetGroup"], "drivers": ["grpc/k6"], "cache_modes": ["none"],
                    "concurrency": [50], "page_sizes": [1, 20, 200]})
    assert sorted(c.page_size for c in cells if c.operation == "ListGroups") == [1, 20, 200]
    assert [c.page_size for c in cells if c.operation == "GetGroup"] == [None]


def test_target_rates_make_open_model_cells():
    cells = expand({"operations": ["GetGroup"], "drivers": ["rest/k6"], "cache_modes": ["hybrid"],
                    "temperatures": ["warm"], "concurrency": [50], "target_rates": [500, 1000]})
    assert [(c.model, c.target_rate) for c in cells] == [("open", 500.0), ("open", 1000.0)]
    assert ids(cells) == ["rest-k6-GetGroup-hybrid-warm-c50-open500", "rest-k6-GetGroup-hybrid-warm-c50-open1000"]


def test_block_settings_override_and_duplicates_are_measured_once():
    cells = expand(
        {"operations": ["GetGroup"], "drivers": ["rest/k6"], "cache_modes": ["none"], "concurrency": [1],
         "repetitions": 5, "duration_seconds": 60},
        {"operations": ["GetGroup"], "drivers": ["rest/k6", "grpc/k6"], "cache_modes": ["none"], "concurrency": [1]})
    assert ids(cells) == ["rest-k6-GetGroup-none-none-c1", "grpc-k6-GetGroup-none-none-c1"]
    assert (cells[0].repetitions, cells[0].duration_seconds) == (5, 60)  # the first block wins
    assert (cells[1].repetitions, cells[1].duration_seconds) == (2, 5)


def test_cells_are_grouped_by_cache_mode_in_study_order():
    cells = expand(
        {"operations": ["GetGroup"], "drivers": ["rest/k6"], "cache_modes": ["hybrid", "none"],
         "temperatures": ["warm"], "concurrency": [1]},
        {"operations": ["Hello"], "drivers": ["grpc/k6"], "cache_modes": ["local", "none"], "concurrency": [1]})
    assert [c.cache_mode for c in cells] == ["none", "none", "local", "hybrid"]
    assert run_plan.modes_in_order(cells) == ["none", "local", "hybrid"]
    # within a mode, block order is kept
    assert ids(cells)[:2] == ["rest-k6-GetGroup-none-none-c1", "grpc-k6-Hello-none-none-c1"]


def test_tls_is_a_dimension_and_groups_restarts_per_mode():
    cells = expand(
        {"operations": ["GetGroup"], "drivers": ["rest/k6", "grpc/ghz"], "cache_modes": ["none", "hybrid"],
         "temperatures": ["warm"], "concurrency": [1], "tls": [True, False]},
        {"operations": ["Hello"], "drivers": ["grpc/k6"], "cache_modes": ["hybrid"], "concurrency": [1]})
    assert len(cells) == 2 * 2 * 2 + 1
    # plain cells keep their old ids; TLS cells say so
    assert "rest-k6-GetGroup-none-none-c1" in ids(cells)
    assert "rest-k6-GetGroup-none-none-c1-tls" in ids(cells)
    assert all(c.id.endswith("-tls") == c.tls for c in cells)
    # one start per mode: a TLS cell runs against its plain twin's processes (their TLS ports);
    # within a mode plain cells come first, and the cells of one start are contiguous
    assert run_plan.service_configs_in_order(cells) == ["none", "hybrid"]
    configs = [c.service_config for c in cells]
    assert configs == sorted(configs, key=profile.CACHE_MODES.index)
    for mode in ("none", "hybrid"):
        tls_flags = [c.tls for c in cells if c.cache_mode == mode]
        assert tls_flags == sorted(tls_flags)
    assert run_plan.modes_in_order(cells) == ["none", "hybrid"]
    # without the key, every cell is plain
    assert not any(c.tls for c in expand({"operations": ["Hello"], "drivers": ["rest/k6"], "concurrency": [1]}))


def test_tls_cells_add_their_windows_but_no_restarts_to_the_estimate():
    block = {"operations": ["GetGroup"], "drivers": ["rest/k6"], "cache_modes": ["hybrid"],
             "temperatures": ["warm"], "concurrency": [1]}
    prof = profile.normalise({**BASE, "matrix": [block]})
    with_tls = profile.normalise({**BASE, "matrix": [{**block, "tls": [False, True]}]})
    plain, both = profile.expand(prof), profile.expand(with_tls)
    extra = run_plan.estimate_seconds(with_tls, both) - run_plan.estimate_seconds(prof, plain)
    (cell,) = plain
    assert extra == pytest.approx(cell.starts * (cell.warmup_seconds + run_plan.TOOL_START_SECONDS)
                                  + cell.windows * (cell.duration_seconds + run_plan.TOOL_START_SECONDS
                                                    + run_plan.PROBE_SECONDS))


def test_quick_profile_has_tls_twins_and_two_starts_of_each_cache_mode():
    cells = profile.expand(profile.load("quick"))
    tls = [c for c in cells if c.tls]
    assert {c.driver for c in tls} == {"rest/k6", "grpc/k6", "rest/oha", "grpc/h2load"}
    plain = {c.id for c in cells if not c.tls}
    assert all(c.id.removesuffix("-tls") in plain for c in tls)   # the headline pairs each with its twin
    # but its WatchGroup cells, measured in the first start only (its time budget)
    assert all(c.starts >= 2 and c.windows >= 3 for c in cells if c.sweep is None and c.operation != profile.WATCH)


def test_cell_ids_are_unique_and_cells_fit_the_schema_rules():
    for name in ("quick", "smoke", "full"):
        prof = profile.load(name)
        cells = profile.expand(prof)
        assert len(set(ids(cells))) == len(cells)
        # WatchGroup cells are run.json's "watch" records, not cell records
        for c in (c for c in cells if c.operation != profile.WATCH):
            assert (c.page_size is not None) == (c.operation == "ListGroups")
            if c.cache_mode == "none" or c.operation == "Hello":
                assert c.temperature == "none"
            else:
                assert c.temperature in ("cold", "warm")
            assert (c.model == "open") == (c.target_rate is not None)
        assert not run_plan.check_scale(prof, cells), name


def test_quick_profile_has_what_the_headline_needs():
    cells = profile.expand(profile.load("quick"))
    have = {(c.protocol, c.tool, c.operation, c.page_size, c.cache_mode, c.temperature, c.concurrency, c.model)
            for c in cells}
    for wire in (("rest", "k6"), ("grpc", "k6")):
        assert (*wire, "GetGroup", None, "hybrid", "warm", 1, "closed") in have        # warm p50 at 1 user
    for wire in (("rest", "oha"), ("grpc", "h2load")):                                 # native generators
        assert (*wire, "ListGroups", 20, "hybrid", "warm", 50, "closed") in have       # hybrid ÷ none
        assert (*wire, "ListGroups", 20, "none", "none", 50, "closed") in have
        assert (*wire, "GetGroup", None, "hybrid", "warm", 50, "closed") in have       # GetGroup ÷ Hello
        assert (*wire, "Hello", None, "hybrid", "none", 50, "closed") in have           # same processes
    assert {c.temperature for c in cells} >= {"cold", "warm", "none"}
    assert any(c.model == "open" and c.tool == "oha" for c in cells)
    assert any(c.model == "open" and c.tool == "ghz" for c in cells)
    sweeps = {c.sweep for c in cells if c.sweep}
    assert {s.split("-")[1] for s in sweeps} == {"rest", "grpc"}


def test_h2load_cannot_be_asked_for_a_cold_cell():
    raw = {"name": "x", "matrix": [{"operations": ["GetGroup"], "drivers": ["grpc/h2load"], "concurrency": [4],
                                    "cache_modes": ["hybrid"]}]}
    with pytest.raises(profile.ProfileError, match="h2load sends one pre-encoded request"):
        profile.expand(profile.normalise(raw))


@pytest.mark.parametrize("driver", ["grpc/ghz", "rest/oha"])
def test_tools_that_cycle_their_key_list_cannot_be_asked_for_a_cold_cell(driver):
    raw = {"name": "x", "matrix": [{"operations": ["GetGroup"], "drivers": [driver], "concurrency": [4],
                                    "cache_modes": ["hybrid"], "temperatures": ["cold"]}]}
    with pytest.raises(profile.ProfileError, match="cycles its key list"):
        profile.expand(profile.normalise(raw))


def test_a_sweep_block_gives_one_open_cell_per_rate():
    raw = {"name": "x", "matrix": [{"operations": ["Hello"], "drivers": ["rest/k6"], "concurrency": [1]}],
           "sweep": [{"operations": ["GetGroup"], "drivers": ["grpc/ghz"], "rates": [100, 200], "concurrency": 10}]}
    cells = [c for c in profile.expand(profile.normalise(raw)) if c.sweep]
    assert [(c.target_rate, c.model, c.role, c.starts, c.repetitions) for c in cells] == \
        [(100.0, "open", "sweep", 1, 1), (200.0, "open", "sweep", 1, 1)]
    bad = dict(raw, sweep=[{"operations": ["GetGroup"], "drivers": ["grpc/h2load"], "rates": [100]}])
    with pytest.raises(profile.ProfileError, match="cannot hold an arrival rate"):
        profile.normalise(bad)


@pytest.mark.parametrize("change, message", [
    ({"matrix": []}, "at least one"),
    ({"colour": "blue"}, "unknown key"),
    ({"matrix": [{"operations": ["Get"], "drivers": ["rest/k6"], "concurrency": [1]}]}, "operations"),
    ({"matrix": [{"operations": ["GetGroup"], "drivers": ["rest/ghz"], "concurrency": [1]}]}, "drivers"),
    ({"matrix": [{"operations": ["ListGroups"], "drivers": ["rest/k6"], "concurrency": [1]}]}, "page_sizes"),
    ({"matrix": [{"operations": ["GetGroup"], "drivers": ["rest/k6"], "concurrency": [0]}]}, "concurrency"),
    ({"matrix": [{"operations": ["GetGroup"], "drivers": ["rest/k6"], "concurrency": 5}]}, "must be a list"),
    ({"repetitions": 0, "matrix": [{"operations": ["Hello"], "drivers": ["rest/k6"], "concurrency": [1]}]},
     "repetitions"),
    ({"matrix": [{"operations": ["Hello"], "drivers": ["rest/k6"], "concurrency": [1], "tls": ["yes"]}]}, "tls"),
    ({"matrix": [{"operations": ["Hello"], "drivers": ["rest/k6"], "concurrency": [1], "tls": True}]},
     "must be a list"),
])
def test_bad_profiles_are_refused_with_the_key_named(change, message):
    with pytest.raises(profile.ProfileError, match=message):
        profile.normalise({**BASE, **change})


def test_scale_too_small_for_a_page_size_is_reported():
    prof = profile.normalise({**BASE, "seed_scale": 10, "matrix": [
        {"operations": ["ListGroups"], "drivers": ["rest/k6"], "cache_modes": ["none"], "concurrency": [1],
         "page_sizes": [200]}]})
    problems = run_plan.check_scale(prof, profile.expand(prof))
    assert problems and "no full page" in problems[0]


def test_streams_multiplex_h2load_connections_and_only_h2load():
    raw = {"name": "x", "matrix": [{"operations": ["GetGroup"], "drivers": ["grpc/h2load"], "concurrency": [50],
                                    "cache_modes": ["hybrid"], "temperatures": ["warm"], "streams": 10}]}
    (cell,) = profile.expand(profile.normalise(raw))
    assert (cell.connections, cell.streams, cell.id) == (5, 10, "grpc-h2load-GetGroup-hybrid-warm-c50-m10")
    for bad in ({"drivers": ["grpc/k6"]}, {"concurrency": [45]}):
        with pytest.raises(profile.ProfileError, match="streams = 10 needs"):
            profile.normalise({"name": "x", "matrix": [{**raw["matrix"][0], **bad}]})


def test_representation_http_version_and_compression_are_dimensions_of_rest_cells():
    cells = expand({"operations": ["GetGroup"], "drivers": ["rest/oha", "grpc/h2load"], "cache_modes": ["hybrid"],
                    "temperatures": ["warm"], "concurrency": [50], "encodings": ["json", "protobuf"],
                    "http": ["1.1", "2"], "compression": ["identity", "gzip"]})
    rest = [c for c in cells if c.protocol == "rest"]
    grpc = [c for c in cells if c.protocol == "grpc"]
    assert len(rest) == 8
    # gRPC is protobuf over HTTP/2 whatever the block says; only its compression varies
    assert len(grpc) == 2 and {(c.encoding, c.http) for c in grpc} == {("protobuf", "2")}
    assert set(ids(grpc)) == {"grpc-h2load-GetGroup-hybrid-warm-c50", "grpc-h2load-GetGroup-hybrid-warm-c50-gz"}
    # the defaults keep the ids they had; the others say how they differ
    assert "rest-oha-GetGroup-hybrid-warm-c50" in ids(rest)
    assert "rest-oha-GetGroup-hybrid-warm-c50-pb-h2-gz" in ids(rest)
    assert {c.transport for c in rest if c.http == "2"} == {"h2"}
    assert {c.transport for c in rest if c.http == "1.1"} == {"http1"}


def test_what_each_generator_cannot_send_is_refused_naming_the_alternative():
    with pytest.raises(profile.ProfileError, match="HTTP/2 only"):
        expand({"operations": ["GetGroup"], "drivers": ["rest/h2load"], "cache_modes": ["hybrid"],
                "temperatures": ["warm"], "concurrency": [50]})
    assert expand({"operations": ["GetGroup"], "drivers": ["rest/h2load"], "cache_modes": ["hybrid"],
                   "temperatures": ["warm"], "concurrency": [50], "http": ["2"]})
    with pytest.raises(profile.ProfileError, match="only over TLS"):
        expand({"operations": ["GetGroup"], "drivers": ["rest/k6"], "cache_modes": ["hybrid"],
                "temperatures": ["warm"], "concurrency": [1], "http": ["2"]})
    with pytest.raises(profile.ProfileError, match="no compression"):
        expand({"operations": ["GetGroup"], "drivers": ["grpc/k6"], "cache_modes": ["hybrid"],
                "temperatures": ["warm"], "concurrency": [1], "compression": ["gzip"]})
    with pytest.raises(profile.ProfileError, match="encodings"):
        expand({"operations": ["GetGroup"], "drivers": ["rest/oha"], "concurrency": [1], "encodings": ["xml"]})


def test_revalidation_is_a_dimension_of_rest_get_group_cells_on_the_native_generators():
    cells = expand({"operations": ["GetGroup"], "drivers": ["rest/oha"], "cache_modes": ["hybrid"],
                    "temperatures": ["warm"], "concurrency": [50], "revalidate": [False, True]})
    assert ids(cells) == ["rest-oha-GetGroup-hybrid-warm-c50", "rest-oha-GetGroup-hybrid-warm-c50-304"]
    assert [c.revalidate for c in cells] == [False, True]
    for block, named in ((dict(drivers=["grpc/h2load"]), "gRPC has no conditional request"),
                         (dict(drivers=["rest/k6"]), "rest/k6"),
                         (dict(operations=["ListGroups"], page_sizes=[20]), "GetGroup")):
        with pytest.raises(profile.ProfileError, match=named):
            expand({"operations": ["GetGroup"], "drivers": ["rest/oha"], "cache_modes": ["hybrid"],
                    "temperatures": ["warm"], "concurrency": [50], "revalidate": [True], **block})
    with pytest.raises(profile.ProfileError, match="true and/or false"):
        expand({"operations": ["GetGroup"], "drivers": ["rest/oha"], "concurrency": [50], "revalidate": ["yes"]})


def test_a_service_cpu_quota_is_a_share_of_the_machine_s_cores_and_absent_by_default():
    hello = {"matrix": [{"operations": ["Hello"], "drivers": ["rest/k6"], "concurrency": [1]}]}
    assert "service_cpu_quota" not in profile.normalise({**BASE, **hello})["settings"]
    assert profile.normalise({**BASE, **hello, "service_cpu_quota": 0.4})["settings"]["service_cpu_quota"] == 0.4
    cores = os.cpu_count() or 1
    assert profile.normalise({**BASE, **hello, "service_cpu_quota": cores})["settings"]["service_cpu_quota"] == cores
    for bad in (0, -0.5, cores + 0.1, "0.4", True, [0.4]):
        with pytest.raises(profile.ProfileError, match=rf"service_cpu_quota must be a number in \(0, {cores}\]"):
            profile.normalise({**BASE, **hello, "service_cpu_quota": bad})


def test_an_admission_table_becomes_the_services_admission_settings():
    hello = {"matrix": [{"operations": ["Hello"], "drivers": ["rest/k6"], "concurrency": [1]}]}
    assert "admission_env" not in profile.normalise({**BASE, **hello})["settings"]
    table = {"enabled": True, "algorithm": "gradient", "initial_limit": 100, "min_limit": 20, "max_limit": 100}
    assert profile.normalise({**BASE, **hello, "admission": table})["settings"]["admission_env"] == {
        "TANDEM_ADMISSION_ENABLED": "true", "TANDEM_ADMISSION_ALGORITHM": "gradient",
        "TANDEM_ADMISSION_INITIAL_LIMIT": "100", "TANDEM_ADMISSION_MIN_LIMIT": "20", "TANDEM_ADMISSION_MAX_LIMIT": "100"}
    for bad, named in (({"enabled": "yes"}, "enabled must be true or false"),
                       ({"algorithm": "aimd"}, "algorithm must be one of"),
                       ({"max_limit": 0}, "max_limit must be a whole number"),
                       ({"max_limit": True}, "max_limit must be a whole number"),
                       ({"retry": 1}, r"unknown \['retry'\]"),
                       ({}, "must be a table"), (True, "must be a table")):
        with pytest.raises(profile.ProfileError, match=named):
            profile.normalise({**BASE, **hello, "admission": bad})


@pytest.mark.parametrize("name", ["protocols", "quick"])
def test_the_direct_grpc_over_rest_headline_the_steps_are_compared_with_pools_the_steps_pairs(name):
    # the decomposition sets gRPC ÷ REST JSON "measured directly" beside the product of its steps: it must
    # pool the operations, page sizes and concurrencies the steps do (it once pooled every warm closed
    # pair: ListGroups(20) at 500 users in protocols, k6's reference pair and a TLS pair in quick)
    from tandem_bench import headline
    plans = [c for c in profile.expand(profile.load(name)) if c.pair is None and not c.tracing]
    specs = headline.pair_specs(plans) | headline.step_specs(plans)
    key = lambda c: (c.operation, c.page_size, c.cache_mode, c.concurrency, c.streams, c.tls, c.model)
    for figure in ("ServerCpu", "Throughput"):
        direct = f"stepDirect{figure}"
        direct_keys = sorted(key(num) for num, _ in specs[direct][0])
        assert direct_keys, direct
        for step in headline.STEPS:
            assert direct_keys == sorted(key(num) for num, _ in specs[f"step{step}{figure}"][0]), (direct, step)
        # gRPC over REST JSON over HTTP/1.1, the far ends of the steps' chain
        assert {(n.protocol, d.protocol, d.encoding, d.http) for n, d in specs[direct][0]} == \
            {("grpc", "rest", "json", "1.1")}



def test_the_profiles_readme_counts_each_profiles_cells():
    """loadtest/profiles/README.md's table says how many cells each profile has; a profile that gains
    or loses cells must say so there (smoke, protocols and hotpath had grown unnoticed)."""
    readme = (profile.PROFILES_DIR / "README.md").read_text()
    rows = re.findall(r"^\| `(\w+)\.toml` \| (\d+)\b", readme, re.M)
    assert rows, "no profile rows found in loadtest/profiles/README.md"
    stated = {name: int(count) for name, count in rows}
    actual = {name: len(profile.expand(profile.load(name))) for name in stated}
    assert stated == actual
