"""Validate a run, write results/<run-id>/run.json, keep results/index.json up to date.

A run that does not pass the schema is never written: the dashboard trusts these files, and a
bad one found at write time names its broken field, where a bad one found in the browser
only says "unreadable".
"""
from __future__ import annotations

import json
import os
import tempfile
from datetime import datetime
from pathlib import Path

import jsonschema

LOADTEST = Path(__file__).resolve().parents[1]
DEFAULT_RESULTS_DIR = LOADTEST.parent / "results"
SCHEMA_DIR = LOADTEST / "schema"
MAX_LISTED_ERRORS = 20
SCHEMA_VERSION = 2


class InvalidRun(ValueError):
    """The run (or index) breaks the schema; .errors lists 'json.path: message' strings."""

    def __init__(self, what: str, errors: list[str]):
        self.errors = errors
        shown = errors[:MAX_LISTED_ERRORS]
        more = f"\n  ... and {len(errors) - len(shown)} more" if len(errors) > len(shown) else ""
        super().__init__(f"{what} refused, {len(errors)} problem(s):\n  " + "\n  ".join(shown) + more)


def _validator(name: str) -> jsonschema.Draft202012Validator:
    schema = json.loads((SCHEMA_DIR / name).read_text())
    return jsonschema.Draft202012Validator(schema)


RUN_VALIDATOR = _validator("run.schema.json")
INDEX_VALIDATOR = _validator("index.schema.json")


def _schema_errors(validator, doc) -> list[str]:
    errors = sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
    return [f"{e.json_path}: {e.message}" for e in errors]


def validate_run(run: dict) -> list[str]:
    """Every problem of a run, as 'json.path: message'; empty when it may be written.

    The schema first; then what a schema cannot say: one run per repetition, unique cell ids,
    references that point at cells, finish not before start.
    """
    version = run.get("schemaVersion") if isinstance(run, dict) else None
    if version != SCHEMA_VERSION:
        # a run of another version fails everywhere; say the one thing that matters
        return [f"$.schemaVersion: {version!r}: this bench reads and writes schema version {SCHEMA_VERSION} only"]
    errors = _schema_errors(RUN_VALIDATOR, run)
    if errors:
        return errors  # the checks below assume the shape is right
    ids = [c["id"] for c in run["cells"]]
    seen = set()
    for i, cell in enumerate(run["cells"]):
        if cell["id"] in seen:
            errors.append(f"$.cells[{i}].id: duplicate cell id {cell['id']!r}")
        seen.add(cell["id"])
        if cell["sweep"] is None and len(cell["windows"]) > cell["starts"] * cell["repetitions"]:
            errors.append(f"$.cells[{i}].windows: {len(cell['windows'])} window(s), more than starts × repetitions "
                          f"({cell['starts']} × {cell['repetitions']})")
    known = set(ids)
    for i, fit in enumerate(run["fits"]):
        for cid in fit["cellIds"]:
            if cid not in known:
                errors.append(f"$.fits[{i}].cellIds: no cell {cid!r}")
    for name, figure in run["headline"].items():
        if name == "jsonOverProtobufBodyBytes":
            continue   # its pairs name operations (body sizes are measured per operation, not per cell)
        for j, pair in enumerate(figure["pairs"]):
            for side in ("numeratorCellId", "denominatorCellId"):
                if pair[side] not in known:
                    errors.append(f"$.headline.{name}.pairs[{j}].{side}: no cell {pair[side]!r}")
    for i, sweep in enumerate(run["sweeps"]):
        for j, point in enumerate(sweep["points"]):
            if point["cellId"] not in known:
                errors.append(f"$.sweeps[{i}].points[{j}].cellId: no cell {point['cellId']!r}")
    if _when(run["finishedAt"]) < _when(run["startedAt"]):
        errors.append("$.finishedAt: earlier than startedAt")
    return errors


def _when(timestamp: str) -> datetime:
    return datetime.fromisoformat(timestamp.replace("Z", "+00:00"))


def _write_json_atomically(path: Path, doc) -> None:
    # write beside the target, then rename: a reader never sees half a file
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as f:
            json.dump(doc, f, indent=1, ensure_ascii=False)
            f.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_run(run: dict, results_dir: str | Path | None = None) -> Path:
    """Validates the run, writes <results_dir>/<runId>/run.json, updates index.json.

    Raises InvalidRun (naming each bad path) and writes nothing if the run is invalid.
    Writing the same runId again replaces that run and its index entry.
    Returns the path of run.json.
    """
    results_dir = Path(results_dir) if results_dir is not None else DEFAULT_RESULTS_DIR
    errors = validate_run(run)
    if errors:
        raise InvalidRun(f"run {run.get('runId', '?') if isinstance(run, dict) else '?'}", errors)
    # runId matched the schema's pattern, so it is one safe path component
    path = results_dir / run["runId"] / "run.json"
    _write_json_atomically(path, run)
    update_index(run, results_dir)
    return path


def index_entry(run: dict) -> dict:
    return {
        "runId": run["runId"],
        "path": f"{run['runId']}/run.json",
        "startedAt": run["startedAt"],
        "profile": run["profile"]["name"],
        "gitCommit": run["environment"]["gitCommit"],
        "cellCount": len(run["cells"]),
    }


def load_index(results_dir: str | Path) -> dict:
    """The index as stored; an empty one when there is none yet. Raises InvalidRun if the file
    exists but is not a valid index."""
    path = Path(results_dir) / "index.json"
    if not path.exists():
        return {"schemaVersion": 1, "runs": []}
    try:
        index = json.loads(path.read_text())
    except json.JSONDecodeError as e:
        raise InvalidRun(f"{path}", [f"$: not JSON: {e}"]) from e
    errors = _schema_errors(INDEX_VALIDATOR, index)
    if errors:
        raise InvalidRun(f"{path}", errors)
    return index


def rebuild_index(results_dir: str | Path) -> dict:
    """An index made from the run files present: every <dir>/run.json that passes validation."""
    runs = []
    for path in sorted(Path(results_dir).glob("*/run.json")):
        try:
            run = json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            continue
        if isinstance(run, dict) and not validate_run(run) and path.parent.name == run["runId"]:
            runs.append(index_entry(run))
    return {"schemaVersion": 1, "runs": _newest_first(runs)}


def _newest_first(entries: list[dict]) -> list[dict]:
    return sorted(entries, key=lambda e: (_when(e["startedAt"]), e["runId"]), reverse=True)


def update_index(run: dict, results_dir: str | Path) -> dict:
    """Adds (or replaces) the run's entry in index.json, newest first, and returns the index.

    An index.json that cannot be read is rebuilt from the run files rather than blocking the
    run that was just measured.
    """
    results_dir = Path(results_dir)
    try:
        index = load_index(results_dir)
    except InvalidRun:
        index = rebuild_index(results_dir)
    entries = [e for e in index["runs"] if e["runId"] != run["runId"]]
    entries.append(index_entry(run))
    index = {"schemaVersion": 1, "runs": _newest_first(entries)}
    errors = _schema_errors(INDEX_VALIDATOR, index)
    if errors:  # cannot happen with a valid run; kept so a bad index is never written
        raise InvalidRun("index", errors)
    _write_json_atomically(results_dir / "index.json", index)
    return index


def main(argv: list[str] | None = None) -> int:
    """python -m tandem_bench.results RUN_JSON...: validate run files; exit 1 naming each problem."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(prog="python -m tandem_bench.results", description=main.__doc__)
    parser.add_argument("run_json", nargs="+")
    args = parser.parse_args(argv)
    bad = 0
    for name in args.run_json:
        try:
            errors = validate_run(json.loads(Path(name).read_text()))
        except (OSError, json.JSONDecodeError) as e:
            errors = [f"$: {e}"]
        if errors:
            bad += 1
            print(f"{name}: INVALID", *(f"  {e}" for e in errors[:MAX_LISTED_ERRORS]), sep="\n", file=sys.stderr)
        else:
            print(f"{name}: valid")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
