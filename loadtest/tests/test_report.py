"""The end-of-run summary text: figures to three significant digits, intervals, verdicts."""
import json
from pathlib import Path

import pytest

from tandem_bench import report

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def example():
    return json.loads((FIXTURES / "run-example.json").read_text())


def test_summary_has_table_headline_with_verdicts_notes_and_dashboard_line():
    run = example()
    text = report.summary(run)
    lines = text.splitlines()
    assert lines[-1] == "Open the dashboard: make dashboard  →  http://127.0.0.1:5173"
    header = next(l for l in lines if l.startswith("protocol"))
    for col in ("ok req/s [95% CI]", "p50 ms [95% CI]", "p99 ms", "server µs/req", "gen cores", "flags"):
        assert col in header
    rows = [l for l in lines if l.startswith(("rest ", "grpc "))]
    assert len(rows) == len(run["cells"])
    for name, h in run["headline"].items():
        line = next(l for l in lines if l.strip().startswith(name))
        assert h["verdict"] in line
        if h["reason"]:
            assert h["reason"] in line
    assert run["notes"][0] in text


def test_the_body_bytes_headline_says_its_brackets_are_a_range_not_an_interval():
    """headline.py gives JSON ÷ Protobuf body bytes its lowest and highest over the operations and
    page sizes (no bootstrap): under a heading that calls the brackets 95 % intervals it must say so."""
    lines = report.summary(example()).splitlines()
    line = next(l for l in lines if l.strip().startswith("jsonOverProtobufBodyBytes"))
    assert "[2.28–2.76] min–max" in line
    other = next(l for l in lines if l.strip().startswith("grpcOverRestP50Warm"))
    assert "min–max" not in other


def test_where_each_service_spent_its_cpu_is_printed_by_thread_for_the_cells_that_have_it():
    run = example()
    assert "by thread" not in report.summary(run)   # a run from before it was recorded
    first = run["cells"][0]
    first["summary"]["serviceThreads"] = {"systemShare": 0.5, "contextSwitchesPerRequest": 2.0,
                                          "cpuUsPerRequestByKind": {"carrier": 17.4, "io": 15.3, "redis": 0.0,
                                                                    "gc": 0.31, "jit": 0.06, "other": 0.2}}
    lines = report.summary(run).splitlines()
    start = next(i for i, l in enumerate(lines) if "by thread" in l)
    assert lines[start + 1].split() == ["cell", "carrier", "io", "redis", "gc", "jit", "other", "all"]
    assert lines[start + 3].split() == [first["id"], "17.4", "15.3", "0", "0.31", "0.06", "0.2", "33.3"]
    assert not lines[start + 4].strip()   # only the cell that has it


# The dashboard prints the same figures (format.ts); both read these cases, so the two texts agree.
AS_TEXT = json.loads((FIXTURES / "figures-as-text.json").read_text())


@pytest.mark.parametrize("case", AS_TEXT["numbers"], ids=lambda c: repr(c[0]))
def test_figures_are_printed_to_three_significant_digits_as_the_dashboard_prints_them(case):
    value, text = case[:2]
    assert report.sig(value) == text


@pytest.mark.parametrize("case", AS_TEXT["intervals"], ids=lambda c: c[1])
def test_intervals_print_value_and_bounds_each_to_three_digits_as_the_dashboard_does(case):
    iv, text = case[:2]
    assert report.interval(iv) == text


@pytest.mark.parametrize("case", AS_TEXT["ratios"], ids=lambda c: c[1])
def test_ratios_print_as_the_dashboard_prints_them_never_as_1_when_they_are_not(case):
    iv, text = case[:2]
    assert report.ratio(iv) == text


def test_an_absent_figure_prints_as_a_dash():
    assert report.sig(None) == "-"
    assert report.interval(None) == "-"


def test_report_command_prints_a_stored_run(capsys):
    assert report.main([str(FIXTURES / "run-example.json")]) == 0
    assert "Headline" in capsys.readouterr().out


def test_a_figure_read_against_a_mark_never_prints_as_that_mark_when_it_is_not():
    # Three significant digits print 0.9996 as "1": a headline whose interval excludes 1 (a finding)
    # read "[0.997–1] finding", and an overload goal's 0.96996 beside its bound of 0.97 read
    # "≥ 0.97: 0.97 not met". The dashboard keeps a ratio off 1 (format.ts awayFromOne); so must the
    # text make bench prints.
    head = {"grpcOverRestServerCpuPerRequest": {"value": 0.998, "low": 0.9971, "high": 0.9996, "verdict": "finding",
                                                "reason": None}}
    [line] = report.headline_lines(head)
    assert "0.998× [0.997–0.9996]" in line and "finding" in line
    goals = [{"key": "minWarmHitRatio", "label": "gRPC · lowest warm hit ratio", "bound": 0.97, "atMost": False,
              "value": 0.96996, "low": 0.96996, "high": 0.96996, "status": "not met", "reason": None},
             {"key": "p99At2xOverUnloaded", "label": "gRPC · accepted p99 at 2×", "bound": 10, "atMost": True,
              "value": 7.5, "low": 5.21, "high": 10.02, "status": "undecided", "reason": None},
             {"key": "pastDeadlineAt2x", "label": "gRPC · past deadline", "bound": 0, "atMost": True,
              "value": 0, "low": 0, "high": 0, "status": "met", "reason": None}]
    lines = report.goal_lines(goals)
    assert "≥ 0.97: 0.96996  not met" in lines[0]
    assert "≤ 10: 7.5× [5.21–10.02]  undecided" in lines[1]
    assert "≤ 0: 0  met" in lines[2]


def test_a_fit_over_server_cpu_is_printed_under_its_p50_fit_with_its_r2():
    """The server CPU fit (fits[].serverCpu) is what the README reads a row's cost from; the text
    printed the p50 fit only, whose A and B at many users are queueing."""
    fit = {"protocol": "grpc", "tool": "h2load", "tls": False, "cacheMode": "hybrid", "temperature": "warm",
           "concurrency": 50, "a": 2.5, "b": 0.004, "r2": 0.9991, "points": [{"pageSize": 1}, {"pageSize": 1000}],
           "serverCpu": {"a": 30.1, "b": 0.0551, "r2": 0.99712}}
    lines = report.fit_lines([fit])
    assert len(lines) == 2
    assert "server CPU  A = 30.1 µs  B = 0.0551 µs/row  R² = 0.9971" in lines[1]
    assert report.fit_lines([{**fit, "serverCpu": None}]) == lines[:1]


# The dashboard's goal cards judge the same goals (decomposition.ts goalVerdict): both read these.
HOT_PATH = json.loads((FIXTURES / "hot-path-goals.json").read_text())


def test_the_text_has_the_hot_path_goals_the_dashboard_has():
    assert [{"key": k, "bound": b, "atMost": at_most, "noErrors": no_errors}
            for k, b, at_most, no_errors in report.HOT_PATH_GOALS] == HOT_PATH["goals"]


@pytest.mark.parametrize("case", HOT_PATH["cases"], ids=lambda c: f"{c['goal']}-{c['status']}-{c.get('why', c.get('run'))}")
def test_a_hot_path_goal_is_judged_as_the_dashboard_judges_it(case):
    ids = {i for p in (case["headline"] or {}).get("pairs", []) for i in (p["numeratorCellId"], p["denominatorCellId"])}
    cells = [{"id": i, "summary": {"errors": 3 if i in case["failedCells"] else 0}} for i in ids]
    status, _ = report.hot_path_goal(case["headline"], case["goal"], cells)
    assert status == case["status"]


def test_the_summary_prints_each_hot_path_goal_with_its_status():
    run = example()
    assert "Hot path goals" not in report.summary(run)   # a run without the hot path's headlines
    [case] = [c for c in HOT_PATH["cases"] if c.get("run") and c["goal"] == "users500Over50ThroughputGrpc"]
    run["headline"]["users500Over50ThroughputGrpc"] = {"description": "d", **case["headline"]}
    lines = report.summary(run).splitlines()
    start = lines.index("Hot path goals (met: the whole 95 % interval on the goal's side of its bound):")
    assert lines[start + 1].split()[:2] == ["users500Over50ThroughputGrpc", "≥"]
    assert "≥ 0.9 with no errors" in lines[start + 1] and "0.635× [0.616–0.854]" in lines[start + 1]
    assert lines[start + 1].endswith("not met — the whole 95 % interval is below 0.9")
