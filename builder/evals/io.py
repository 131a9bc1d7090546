"""Reading EvalRun records from JSONL, CSV and JSON files.

An eval run is the operator's own file, so any bad record rejects the whole run with one
``UserError`` line naming the file, where in it, and the value:

- JSONL: ``runs.jsonl: line 7: ...`` (physical line, 1-based, blank lines skipped);
- CSV: ``runs.csv: row 3 (line 4): ...`` (data row after the header, 1-based);
- JSON: ``runs.json: row 3: ...`` (1-based element of the top-level array, or of the
  ``"runs"`` array when the top level is an object).

Fields: ``model_id``, ``task_id``, ``metric_name``, ``score`` (required); ``category`` and
``weight`` (optional). A score must be a finite number in [0, 1] and not a boolean; a
weight, when given, a finite number > 0. One record per (model, task, metric).
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from builder.errors import UserError
from builder.evals.records import EvalRun

REQUIRED = ("model_id", "task_id", "metric_name", "score")
OPTIONAL = ("category", "weight")
FORMATS = {".jsonl": "jsonl", ".ndjson": "jsonl", ".csv": "csv", ".json": "json"}
_CSV_BOOLEANS = {"true", "false"}


def read_eval_runs(paths: Iterable[str | Path]) -> tuple[EvalRun, ...]:
    """Read every file in ``paths`` (in order) and check the union for duplicates.

    Raises ``UserError`` on the first bad record, naming file and line/row.
    """
    runs: list[EvalRun] = []
    for p in paths:
        runs.extend(parse_eval_file(Path(p)))
    check_eval_runs(runs)
    return tuple(runs)


def parse_eval_file(path: Path) -> tuple[EvalRun, ...]:
    """Parse one ``.jsonl`` / ``.csv`` / ``.json`` file into EvalRun records (no duplicate check)."""
    fmt = FORMATS.get(path.suffix.lower())
    if fmt is None:
        raise UserError(f"{path}: unknown eval file type {path.suffix!r} (expected .jsonl, .csv or .json)")
    text = read_eval_text(path)
    items = {"jsonl": _jsonl_items, "csv": _csv_items, "json": _json_items}[fmt](path, text)
    return tuple(parse_eval_record(rec, f"{path}: {where}", csv_cells=fmt == "csv") for where, rec in items)


def parse_eval_record(rec: Any, where: str, *, csv_cells: bool = False) -> EvalRun:
    """Validate one record (a mapping) into an EvalRun; ``where`` prefixes every error.

    ``csv_cells``: values arrive as strings (scores and weights are parsed from text; an
    empty cell is missing).
    """
    if not isinstance(rec, Mapping):
        raise UserError(f"{where}: expected an object, got {_short(rec)}")
    values = {k: rec.get(k) for k in REQUIRED + OPTIONAL}
    if csv_cells:
        values = {k: (None if isinstance(v, str) and not v.strip() else v) for k, v in values.items()}
    for k in REQUIRED:
        if values[k] is None:
            raise UserError(f"{where}: missing field {k!r}")
    model_id = _text(values["model_id"], "model_id", where, numbers_ok=False)
    task_id = _text(values["task_id"], "task_id", where)
    metric = _text(values["metric_name"], "metric_name", where)
    score = _number(values["score"], "score", where, csv_cells)
    if not 0.0 <= score <= 1.0:
        raise UserError(f"{where}: score out of [0, 1] ({_short(values['score'])})")
    category = None
    if values["category"] is not None:
        category = _text(values["category"], "category", where)
    weight = None
    if values["weight"] is not None:
        weight = _number(values["weight"], "weight", where, csv_cells)
        if not weight > 0:
            raise UserError(f"{where}: weight must be > 0 ({_short(values['weight'])})")
    return EvalRun(model_id, task_id, metric, score, category, weight, origin=where)


def check_eval_runs(runs: Iterable[EvalRun]) -> None:
    """Scores in [0, 1]; one record per (model, task, metric); one category and weight per task and metric.

    Raises ``UserError`` naming the second record's origin and the first one's.
    """
    seen: dict[tuple[str, str, str], EvalRun] = {}
    task_cat: dict[tuple[str, str], EvalRun] = {}
    task_weight: dict[tuple[str, str], EvalRun] = {}
    for r in runs:
        # Records built in code skip the reader: hold them to the same score contract.
        if isinstance(r.score, bool) or not isinstance(r.score, (int, float)) or not 0.0 <= r.score <= 1.0:
            raise UserError(f"{r.origin or 'record'}: score must be a finite number in [0, 1] ({_short(r.score)})")
        key = (r.model_id, r.task_id, r.metric_name)
        if key in seen:
            raise UserError(
                f"{r.origin or 'record'}: duplicate record for model {r.model_id!r}, task {r.task_id!r}, "
                f"metric {r.metric_name!r} (first at {seen[key].origin or '?'})"
            )
        seen[key] = r
        tkey = (r.task_id, r.metric_name)
        if r.category is not None:
            first = task_cat.setdefault(tkey, r)
            if first.category != r.category:
                raise UserError(
                    f"{r.origin or 'record'}: task {r.task_id!r} has category {r.category!r} "
                    f"but {first.category!r} at {first.origin or '?'}"
                )
        if r.weight is not None:
            first = task_weight.setdefault(tkey, r)
            if first.weight != r.weight:
                raise UserError(
                    f"{r.origin or 'record'}: task {r.task_id!r} has weight {r.weight!r} "
                    f"but {first.weight!r} at {first.origin or '?'}"
                )


# --------------------------------------------------------------------------- helpers


def read_eval_text(path: Path, what: str = "eval file") -> str:
    """The UTF-8 text of an eval file (a byte-order mark dropped); ``UserError`` naming the file
    and what is wrong (``what``: what the file should be, for the message)."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise UserError(f"{path}: {what} not found") from None
    except IsADirectoryError:
        raise UserError(f"{path}: is a directory, expected an {what}") from None
    except UnicodeDecodeError as exc:
        raise UserError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read: {exc.strerror}") from None


def iter_json_lines(path: Path, text: str) -> Iterator[tuple[int, Any]]:
    """(line number, value) of each non-blank line of a JSON Lines text; ``UserError`` naming
    the file and line at the first line that is not JSON."""
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            yield lineno, json.loads(line)
        except json.JSONDecodeError as exc:
            raise UserError(f"{path}: line {lineno}: invalid JSON: {exc.msg} ({_short(line)})") from None


def _jsonl_items(path: Path, text: str) -> Iterator[tuple[str, Any]]:
    for lineno, rec in iter_json_lines(path, text):
        yield f"line {lineno}", rec


def _csv_items(path: Path, text: str) -> Iterator[tuple[str, Any]]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        return
    header = [h.strip() for h in header]
    missing = [k for k in REQUIRED if k not in header]
    if missing:
        raise UserError(f"{path}: line 1: header lacks column {missing[0]!r} ({','.join(header)})")
    row_no = 0
    for cells in reader:
        if not any(c.strip() for c in cells):
            continue
        row_no += 1
        where = f"row {row_no} (line {reader.line_num})"
        if len(cells) != len(header):
            raise UserError(f"{path}: {where}: {len(cells)} cells for {len(header)} columns "
                            f"({_short(','.join(cells))})")
        yield where, dict(zip(header, cells, strict=True))


def _json_items(path: Path, text: str) -> Iterator[tuple[str, Any]]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserError(f"{path}: line {exc.lineno}: invalid JSON: {exc.msg}") from None
    if isinstance(doc, Mapping) and isinstance(doc.get("runs"), list):
        doc = doc["runs"]
    if not isinstance(doc, list):
        raise UserError(f"{path}: expected a JSON array of records (or {{\"runs\": [...]}}), got {type(doc).__name__}")
    for i, rec in enumerate(doc, start=1):
        yield f"row {i}", rec


def _text(v: Any, name: str, where: str, *, numbers_ok: bool = True) -> str:
    # Integer ids (task 17) are common in hand-written files; booleans and floats are not ids.
    # A model is named, never numbered: a number there is a column mix-up, so it is refused.
    if isinstance(v, bool) or not isinstance(v, (str, int)) or (not numbers_ok and not isinstance(v, str)):
        raise UserError(f"{where}: {name} must be a string ({_short(v)})")
    s = str(v).strip()
    if not s:
        raise UserError(f"{where}: {name} is empty")
    return s


def _number(v: Any, name: str, where: str, csv_cells: bool) -> float:
    if isinstance(v, bool):
        raise UserError(f"{where}: {name} is a boolean ({_short(v)})")
    if csv_cells and isinstance(v, str):
        if v.strip().lower() in _CSV_BOOLEANS:
            raise UserError(f"{where}: {name} is a boolean ({_short(v)})")
        try:
            x = float(v.strip())
        except ValueError:
            raise UserError(f"{where}: {name} is not a number ({_short(v)})") from None
    elif isinstance(v, (int, float)):
        x = float(v)
    else:
        raise UserError(f"{where}: {name} is not a number ({_short(v)})")
    if not math.isfinite(x):
        raise UserError(f"{where}: {name} is not finite ({_short(v)})")
    return x


def _short(v: Any, limit: int = 60) -> str:
    """The offending value as the user wrote it (strings quoted, JSON literals as JSON), cut short."""
    if isinstance(v, (str, float)):
        s = repr(v)
    else:
        s = json.dumps(v, default=str)
    s = " ".join(s.split())
    return s if len(s) <= limit else s[: limit - 3] + "..."
