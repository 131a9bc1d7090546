"""Any published leaderboard, by configuration: a table of rows -> ``<source>/<feed>`` observations.

``site.yml`` says where the rows are and which columns mean what (``options``, checked at
config time by ``check_options``, each problem one line naming the option)::

    - name: polyglot
      kind: table
      url: https://raw.githubusercontent.com/Aider-AI/aider/main/aider/website/_data/polyglot_leaderboard.yml
      evaluator: aider
      options:
        format: yaml            # csv, tsv, json, jsonl or yaml (default: from the file name)
        rows: null              # JSON / YAML: a dotted path ("data.results") or a simple
                                # JSONPath ("$.data.results[*]") to the list of rows; none: the top
        model: model            # the column that names the model (as published)
        scores:                 # one or more score columns, each its own feed
          - {column: pass_rate_2, feed: pass_rate, scale: 0-100}
          - {column: seconds_per_case, feed: speed, scale: unbounded, higher_is_better: false}
        date: date              # optional: the row's date (ISO 8601)
        configuration: edit_format  # optional: the run's configuration (effort, harness, ...)
        url: link               # optional: the row's own link (else the source's URL)

Columns of a JSON / YAML row may be dotted paths into the row (``scores.overall``). A rows path
that ends in an object of objects (``{"gpt-5": {...}, ...}``) reads each value as a row, with
its key under the column ``_key``.

Scales: ``0-100`` (a percentage: the value must lie in [0, 100]), ``0-1`` (a fraction in
[0, 1]), ``unbounded`` (any finite number, e.g. an Elo or index). A score where lower is
better (``higher_is_better: false``: seconds, cost, error rate) is kept as its negation,
``raw = -value`` (the published value is in ``details["published"]``), so that selection's
"highest wins" and calibration's positive slope read it the right way round.

Rows go through the same rules as every source: a score that is missing, not a number, a
boolean, not finite or off its scale, a row without a model, a ragged CSV row or a JSON
Lines line that does not parse is kept as an excluded observation with its reason. A
payload that does not match the mapping as a whole (not the format, no rows at the path,
the model or a score column in no row) raises ``PayloadError``: the source fails with that
reason and its last good payload stays.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator, Mapping
from datetime import date, datetime
from pathlib import PurePosixPath
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from builder.config import SourceConfig
from builder.records import Observation, ParseResult, Payload
from builder.sources.base import PayloadError, row_url
from builder.sources.safe_yaml import NoAliasLoader, check_yaml_size
from builder.sources.validate import check_score

Format = Literal["csv", "tsv", "json", "jsonl", "yaml"]
SUFFIXES: dict[str, Format] = {".csv": "csv", ".tsv": "tsv", ".json": "json", ".jsonl": "jsonl",
                               ".ndjson": "jsonl", ".yml": "yaml", ".yaml": "yaml"}
KEY_COLUMN = "_key"
"The column that holds a row's key when the rows are an object of objects."


class ScoreColumn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    column: str = Field(min_length=1)
    "The column (or dotted path into a JSON / YAML row) holding the score."
    feed: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    "The feed's name: the observations go to ``<source>/<feed>``."
    scale: Literal["0-1", "0-100", "unbounded"]
    "0-1: a fraction; 0-100: a percentage; unbounded: any finite number."
    higher_is_better: bool = True
    "False: lower is better (the value is kept negated, see the module docstring)."


class TableOptions(BaseModel):
    """The ``options`` of a ``table`` source (see the module docstring)."""

    model_config = ConfigDict(extra="forbid")

    format: Format | None = None
    "csv, tsv, json, jsonl or yaml; default: from the payload file's suffix."
    rows: str | None = None
    "JSON / YAML: a dotted path or a simple JSONPath to the rows; none: the document itself."
    model: str = Field(min_length=1)
    "The column naming the model."
    scores: list[ScoreColumn] = Field(min_length=1)
    "The score columns, each mapped to a feed."
    date: str | None = None
    "The column holding the row's date (ISO 8601), optional."
    configuration: str | None = None
    "The column holding the run's configuration (effort, harness, agent), optional."
    url: str | None = None
    "The column holding the row's own link, optional."

    def model_post_init(self, _context: Any) -> None:
        feeds = [s.feed for s in self.scores]
        dupes = sorted({f for f in feeds if feeds.count(f) > 1})
        if dupes:
            raise ValueError(f"scores: feed {dupes[0]!r} is mapped twice")
        if self.rows is not None:
            path_segments(self.rows)  # raises ValueError naming the problem


def check_options(options: dict[str, Any]) -> list[str]:
    """Config-time problems of a ``table`` source's options, one line each (``options.<field>: ...``)."""
    try:
        TableOptions.model_validate(options)
    except ValidationError as exc:
        out = []
        for err in exc.errors():
            loc = ".".join(str(p) for p in err["loc"])
            msg = str(err["msg"]).removeprefix("Value error, ")
            out.append(f"options.{loc}: {msg}" if loc else f"options.{msg}")  # the message names its field
        return out
    except ValueError as exc:
        return [f"options.{exc}"]
    return []


# --------------------------------------------------------------------------- paths

_SEGMENT = re.compile(r"\.?([^.\[\]]+)|\[(\d+|\*|'[^']*'|\"[^\"]*\")\]")


def path_segments(path: str) -> list[str | int]:
    """``"data.results"``, ``"$.data.results[*]"``, ``"$['data'][0]"`` -> ``["data", "results"]`` /
    ``["data", 0]``. A trailing ``[*]`` (every row) is dropped; raises ValueError on anything else."""
    text = path.strip()
    if text.startswith("$"):
        text = text[1:]
    if text.endswith("[*]"):
        text = text[:-3]
    out: list[str | int] = []
    pos = 0
    while pos < len(text):
        m = _SEGMENT.match(text, pos)
        if m is None or m.end() == pos:
            raise ValueError(f"rows: {path!r} is not a dotted path or a simple JSONPath (at {text[pos:]!r})")
        name, bracket = m.group(1), m.group(2)
        if bracket is None:
            out.append(name)
        elif bracket == "*":
            raise ValueError(f"rows: {path!r}: [*] may only end the path")
        elif bracket.isdigit():
            out.append(int(bracket))
        else:
            out.append(bracket[1:-1])
        pos = m.end()
    return out


def _walk(doc: Any, segments: list[str | int], where: str) -> Any:
    node = doc
    for i, seg in enumerate(segments):
        at = ".".join(str(s) for s in segments[: i + 1])
        if isinstance(seg, int) and isinstance(node, list) and -len(node) <= seg < len(node):
            node = node[seg]
        elif isinstance(node, Mapping) and str(seg) in node:
            node = node[str(seg)]
        else:
            raise PayloadError(f"{where}: no {at!r} in the document (options.rows)")
    return node


def _cell(row: Mapping[str, Any], column: str) -> Any:
    """A row's value: the column itself, else the dotted path into the row; None when absent."""
    if column in row:
        return row[column]
    node: Any = row
    for part in column.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


# --------------------------------------------------------------------------- reading


def _format(name: str, options: TableOptions) -> Format:
    if options.format is not None:
        return options.format
    fmt = SUFFIXES.get(PurePosixPath(name).suffix.lower())
    if fmt is None:
        raise PayloadError(f"{name}: cannot tell the table's format from the file name; set options.format "
                           f"({', '.join(sorted(set(SUFFIXES.values())))})")
    return fmt


def _text(name: str, data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PayloadError(f"{name}: not UTF-8 text ({exc})") from None


Row = tuple[int, Mapping[str, Any] | None, str | None]  # (row number, row or None, why it is no row)


def _csv_rows(name: str, text: str, delimiter: str) -> Iterator[Row]:
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = next(reader)
    except StopIteration:
        raise PayloadError(f"{name}: empty file, no header row") from None
    except csv.Error as exc:
        raise PayloadError(f"{name}: unreadable header row ({exc})") from None
    header = [h.strip() for h in header]
    line = 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            line = reader.line_num
            yield line, None, f"line {line}: unreadable CSV ({exc})"
            continue
        line = reader.line_num
        if not any(c.strip() for c in cells):
            continue
        if len(cells) != len(header):
            yield line, None, f"line {line}: ragged row ({len(cells)} cells, the header has {len(header)})"
            continue
        yield line, dict(zip(header, cells, strict=True)), None


def _document_rows(name: str, doc: Any, options: TableOptions) -> Iterator[Row]:
    node = _walk(doc, path_segments(options.rows), name) if options.rows else doc
    if isinstance(node, Mapping) and node and all(isinstance(v, Mapping) for v in node.values()):
        node = [{KEY_COLUMN: k, **v} for k, v in node.items()]  # an object of objects: key -> row
    if not isinstance(node, list):
        where = f"at {options.rows!r} " if options.rows else ""
        raise PayloadError(f"{name}: expected a list of rows {where}(options.rows), got {type(node).__name__}")
    for i, row in enumerate(node, start=1):
        if isinstance(row, Mapping):
            yield i, row, None
        else:
            yield i, None, f"row {i}: not an object ({type(row).__name__})"


def _jsonl_rows(name: str, text: str) -> Iterator[Row]:
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            yield n, None, f"line {n}: not JSON ({exc.msg})"
            continue
        if isinstance(row, Mapping):
            yield n, row, None
        else:
            yield n, None, f"line {n}: not a JSON object ({type(row).__name__})"


def read_rows(name: str, data: bytes, options: TableOptions) -> list[Row]:
    """The payload's rows, in order: ``(row number, row, None)`` or ``(row number, None, why not)``."""
    fmt = _format(name, options)
    if fmt in ("csv", "tsv"):
        return list(_csv_rows(name, _text(name, data), "," if fmt == "csv" else "\t"))
    if fmt == "jsonl":
        rows = list(_jsonl_rows(name, _text(name, data)))
        if rows and all(r[1] is None for r in rows):
            raise PayloadError(f"{name}: no line is a JSON object ({rows[0][2]})")
        return rows
    text = _text(name, data)
    if fmt == "json":
        try:
            doc = json.loads(text)
        except json.JSONDecodeError as exc:
            raise PayloadError(f"{name}: line {exc.lineno}: not valid JSON ({exc.msg})") from None
    else:
        try:
            check_yaml_size(data, name)
            doc = yaml.load(text, Loader=NoAliasLoader)  # noqa: S506 (a SafeLoader that refuses aliases)
        except ValueError as exc:
            raise PayloadError(str(exc)) from None
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            where = f"line {mark.line + 1}: " if mark else ""
            raise PayloadError(f"{name}: {where}invalid YAML ({getattr(exc, 'problem', None) or exc})") from None
    return list(_document_rows(name, doc, options))


def _date(value: Any) -> date | None:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str) and value.strip():
        try:
            return date.fromisoformat(value.strip()[:10])
        except ValueError:
            return None
    return None


def _score(value: Any, col: ScoreColumn) -> tuple[float | None, str | None]:
    raw, why = check_score(value, percent=col.scale == "0-100")
    if why is None and raw is not None and col.scale == "0-1" and not 0.0 <= raw <= 1.0:
        why = f"fraction score out of [0, 1] ({raw!r})"
    return raw, why


# --------------------------------------------------------------------------- parse


def parse(payload: Payload, source: SourceConfig) -> ParseResult:
    """One observation per row and score column (see the module docstring)."""
    try:
        options = TableOptions.model_validate(source.options)
    except (ValidationError, ValueError) as exc:  # checked at config time; a snapshot of another config
        raise PayloadError(f"{source.name}: options do not describe a table: {exc}") from None
    if len(payload.files) != 1:
        raise PayloadError(f"{payload.origin}: expected one table file, found {len(payload.files)} files")
    name, data = next(iter(payload.files.items()))
    rows = read_rows(name, data, options)
    good = [r for _, r, _ in rows if r is not None]
    if not good:
        raise PayloadError(f"{name}: no rows")
    for column, what in [(options.model, "model"), *((s.column, "scores") for s in options.scores)]:
        if not any(_cell(r, column) is not None for r in good):
            raise PayloadError(f"{name}: no row has the column {column!r} (options.{what})")
    url = row_url(source, payload)
    release = source.release or ""
    observations: list[Observation] = []
    for number, row, why_not in rows:
        model = _cell(row, options.model) if row is not None else None
        spelling = str(model).strip() if model is not None and not isinstance(model, (dict, list)) else ""
        when = _date(_cell(row, options.date)) if row is not None and options.date else None
        link = _cell(row, options.url) if row is not None and options.url else None
        config = _cell(row, options.configuration) if row is not None and options.configuration else None
        for col in options.scores:
            value = _cell(row, col.column) if row is not None else None
            raw, why = _score(value, col) if row is not None else (None, why_not)
            if row is not None and not spelling:
                why = f"row {number}: no model in column {options.model!r}"
            elif why is not None and row is not None:
                why = f"{col.column}: {why}"
            details: dict[str, Any] = {"row": number}
            if config is not None:
                details["configuration"] = str(config)
            if not col.higher_is_better:
                details["published"] = raw
                raw = -raw if raw is not None else None
            observations.append(Observation(
                source=source.name, feed=f"{source.name}/{col.feed}", evaluator=source.evaluator_id,
                model=spelling or f"(row {number})", raw=raw, date=when,
                url=str(link) if isinstance(link, str) and link.startswith(("http://", "https://")) else url,
                release=release, percent=col.scale == "0-100" and col.higher_is_better, details=details,
                excluded=why,
            ))
    return ParseResult(observations=tuple(observations))
