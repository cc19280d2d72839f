"""The end-of-run summary text."""
import copy
import json
from pathlib import Path

from tandem_bench import report

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def example():
    return json.loads((FIXTURES / "run-example.json").read_text())


def test_summary_has_table_fits_headline_notes_and_dashboard_line():
    run = example()
    text = report.summary(run)
    lines = text.splitlines()
    assert lines[-1] == "Open the dashboard: make dashboard  →  http://127.0.0.1:5173"
    header = next(l for l in lines if l.startswith("protocol"))
    for col in ("p50 ms", "p95 ms", "p99 ms", "req/s", "body B", "sent B", "recv B", "hit %"):
        assert col in header
    # one table row per cell
    rows = [l for l in lines if l.startswith(("rest ", "grpc "))]
    assert len(rows) == len(run["cells"])
    assert "Cycle time = A + B·N" in text
    assert "0.80" in text  # gRPC ÷ REST p50, warm, in the example
    assert run["notes"][0] in text


def test_table_columns_are_aligned():
    lines = report.table(example()["cells"]).splitlines()
    header = lines[0]
    rows = [l for l in lines[2:] if l]
    # right-aligned number columns end at the same offset as their header
    end = header.index("p50 ms") + len("p50 ms")
    for row in rows:
        assert row[end - 1] != " " and row[end] == " "


def test_table_row_values():
    run = example()
    cell = next(c for c in run["cells"] if c["id"] == "rest-k6-GetGroup-hybrid-warm-c1")
    row = next(l for l in report.table(run["cells"]).splitlines()
               if l.split()[:9] == ["rest", "k6", "-", "hybrid", "warm", "GetGroup", "1", "closed",
                                    report._ms(cell["summary"]["latencyMs"]["p50"])])
    assert f"{cell['summary']['throughputRps']:,.0f}" in row
    assert " 412 " in row  # JSON body bytes


def test_headline_is_recomputed_from_cells_not_copied():
    run = example()
    run["headline"] = {k: 99.0 for k in run["headline"]}
    assert "99.00" not in report.summary(run)


def test_summary_of_a_run_without_matches_says_why():
    run = example()
    run["cells"] = [c for c in run["cells"] if c["protocol"] == "rest" and c["operation"] == "GetGroup"]
    run["fits"], run["notes"] = [], []
    text = report.summary(run)
    assert "no pair of matching cells" in text
    assert "(no cell group with two or more page sizes)" in text


def test_open_model_cells_show_their_rate():
    text = report.table(example()["cells"])
    assert "open 2000/s" in text


def test_report_command_prints_a_stored_run(capsys):
    assert report.main([str(FIXTURES / "run-example.json")]) == 0
    assert capsys.readouterr().out.rstrip().endswith("http://127.0.0.1:5173")
