"""LiveBench dated table CSV + categories JSON -> global and per-category observations.

Payload: files named ``table_YYYY_MM_DD.csv`` (``model,<task>,<task>,...``, task scores in
percent, 0-100) and ``categories_YYYY_MM_DD.json`` (``{category: [task, ...]}``), possibly
for several dates (keys may carry a folder, e.g. ``public/table_2026_01_08.csv``). Only the
latest table is read (LiveBench counts by its latest linked dated CSV only), with the
categories file of its own date, or else the latest one not newer than the table (the same
rule ``builder.fetch`` uses). The task set changes between releases (21 tasks on 2025-12-23,
23 on 2026-01-08), which is why the dates matter: a task the categories file names but the
table lacks makes that category incomplete; a table column no category names is ignored.

Feeds: ``<source>/global`` plus one per category. A category's feed slug is its name in
lower case with every run of non-alphanumerics turned into ``_`` (``Data Analysis`` ->
``data_analysis``, ``Agentic Coding`` -> ``agentic_coding``), except the names in
``FEED_ALIASES`` (LiveBench's ``IF`` is ``instruction_following``); ``options.feed_names``
in ``site.yml`` (``{category: slug}``) overrides both.

Scores (percent), for one model row of the table:

    category[c] = summary column of c, when the CSV has one (a column named like the
                  category, its slug, or ``<slug>_average``, that is not a task column);
                else  mean(task[t] for t in tasks(c))       (all tasks valid, else incomplete)
    global      = the CSV's global summary column when present (``global_average``,
                  ``livebench_average``, ``average``);
                else  mean(category[c] for the complete categories c)   (equal weights)

An incomplete category (a task column missing from the table, or a cell that is empty,
non-numeric, non-finite or outside [0, 100]) contributes nothing: its own observation is
kept as excluded with the reason, and the global score is the equal mean of the categories
that are complete (``details["categories"]`` lists them, ``details["incomplete_categories"]``
the others). With no complete category the global observation is excluded too.

A ragged row (a different number of fields from the header, e.g. ``nemotron-3-super-120b-a12b``
with 21 of 24 in ``table_2026_01_08.csv``) cannot be aligned with the header, so it is never
read by position: it yields one excluded observation per feed whose reason names the file,
line, model and field counts.

date = release = the table's date (``release`` is its ISO string, grouping a calibration fit).

Observation.details: ``table`` (file name), ``categories_file`` (file name), ``category`` (upstream category name, or
``"global"``), ``from_summary`` (bool: read from a summary column), ``tasks`` (category
rows: the task columns averaged), and on global rows ``categories`` and
``incomplete_categories``.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import PurePosixPath
from statistics import fmean

from builder.config import SourceConfig
from builder.records import Observation, ParseResult, Payload
from builder.sources.base import PayloadError, row_url
from builder.sources.validate import check_score

FEED_ALIASES: dict[str, str] = {"if": "instruction_following"}
GLOBAL_SUMMARY_COLUMNS = ("global_average", "livebench_average", "average", "global")

_TABLE = re.compile(r"^table_(\d{4})_(\d{2})_(\d{2})\.csv$")
_CATEGORIES = re.compile(r"^categories_(\d{4})_(\d{2})_(\d{2})\.json$")


def slug(name: str) -> str:
    """``"Data Analysis"`` -> ``"data_analysis"`` (lower case, non-alphanumeric runs -> ``_``)."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


def feed_slug(category: str, overrides: dict[str, str] | None = None) -> str:
    """Feed suffix of a LiveBench category (``IF`` -> ``instruction_following``)."""
    if overrides and category in overrides:
        return str(overrides[category])
    s = slug(category)
    return FEED_ALIASES.get(s, s)


def _dated_files(payload: Payload) -> tuple[date, str, str]:
    """The latest table and its categories file: ``(table date, table_key, categories_key)``.

    The categories file is the one of the table's date, or else the latest one not newer
    than the table (the rule ``builder.fetch`` uses to pick what it downloads).
    """
    tables: dict[date, str] = {}
    cats: dict[date, str] = {}
    for key in payload.files:
        base = PurePosixPath(key).name
        for pattern, into in ((_TABLE, tables), (_CATEGORIES, cats)):
            m = pattern.match(base)
            if m:
                try:
                    into[date(int(m[1]), int(m[2]), int(m[3]))] = key
                except ValueError:
                    pass  # an impossible date in a file name is not a release
    if not tables:
        raise PayloadError(f"{payload.origin}: no table_YYYY_MM_DD.csv file ({len(payload.files)} files)")
    day = max(tables)
    usable = [d for d in cats if d <= day]
    if not usable:
        raise PayloadError(f"{payload.origin}: no categories_YYYY_MM_DD.json dated on or before {tables[day]}")
    return day, tables[day], cats[max(usable)]


def pick_release_files(names: list[str]) -> tuple[str, str]:
    """``(table, categories)``: the file names of the latest release in a folder listing.

    The latest ``table_YYYY_MM_DD.csv``; the categories file of the same date, or else the
    latest ``categories_YYYY_MM_DD.json`` not newer than the table (the rule ``parse`` reads
    by). Raises ValueError when the listing holds no such pair.
    """
    def dated(pattern: re.Pattern[str]) -> list[tuple[date, str]]:
        out = []
        for name in names:
            m = pattern.match(name)
            if m:
                try:
                    out.append((date(int(m[1]), int(m[2]), int(m[3])), name))
                except ValueError:
                    continue  # an impossible date in a file name is not a release
        return sorted(out)

    tables = dated(_TABLE)
    if not tables:
        raise ValueError("LiveBench index lists no table_YYYY_MM_DD.csv file")
    table_date, table = tables[-1]
    cats = [(d, n) for d, n in dated(_CATEGORIES) if d <= table_date]
    if not cats:
        raise ValueError(f"LiveBench index lists no categories file dated on or before {table}")
    return table, cats[-1][1]


def _load_categories(key: str, blob: bytes) -> dict[str, list[str]]:
    try:
        data = json.loads(blob.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise PayloadError(f"{key}: not valid JSON ({exc})") from None
    if not isinstance(data, dict) or not data:
        raise PayloadError(f"{key}: expected a non-empty object mapping category -> [task]")
    bad = [c for c, tasks in data.items() if not isinstance(tasks, list) or not all(isinstance(t, str) for t in tasks)]
    if bad:
        raise PayloadError(f"{key}: category {bad[0]!r} does not map to a list of task names")
    return {str(c): list(tasks) for c, tasks in data.items()}


def _row_url(source: SourceConfig, payload: Payload, table_name: str) -> str:
    if source.url and source.url.endswith("/"):
        return source.url + table_name
    return row_url(source, payload)


def _summary_columns(categories: Mapping[str, Sequence[str]], feeds: Mapping[str, str],
                     column: Mapping[str, int]) -> tuple[dict[str, int], int | None]:
    """(category -> index of its summary column, index of the global summary column).

    A summary column is any non-task column named after the category (its name, slug, feed
    name, or either with ``_average``); the global one is named like ``GLOBAL_SUMMARY_COLUMNS``.
    Column 0 (the model) never is.
    """
    task_columns = {t for tasks in categories.values() for t in tasks}
    summary: dict[str, int] = {}
    for c in categories:
        wanted = {c.lower(), slug(c), feeds[c], f"{slug(c)}_average", f"{feeds[c]}_average"}
        for h, i in column.items():
            if i > 0 and h not in task_columns and (h.lower() in wanted or slug(h) in wanted):
                summary[c] = i
                break
    global_col = next(
        (i for h, i in column.items() if i > 0 and h not in task_columns and slug(h) in GLOBAL_SUMMARY_COLUMNS),
        None,
    )
    return summary, global_col


def _task_mean(row: Sequence[str], tasks: Sequence[str], column: Mapping[str, int],
               table_name: str) -> tuple[float | None, str | None]:
    """(mean of the category's task scores, None) or (None, why not): every task must be a
    column of the table with a valid score, and the category must have at least one."""
    values: list[float] = []
    for t in tasks:
        if t not in column:
            return None, f"task {t!r} is not in {table_name}"
        value, why = check_score(row[column[t]], percent=True)
        if why or value is None:
            return None, f"task {t!r}: {why}"
        values.append(value)
    if not values:
        return None, "category has no tasks"
    return fmean(values), None


def parse(payload: Payload, source: SourceConfig) -> ParseResult:
    """Parse the latest LiveBench release into ``<source>/global`` and per-category rows."""
    day, table_key, cats_key = _dated_files(payload)
    categories = _load_categories(cats_key, payload.files[cats_key])
    table_name = PurePosixPath(table_key).name
    cats_name = PurePosixPath(cats_key).name
    try:
        text = payload.files[table_key].decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PayloadError(f"{table_key}: not UTF-8 text ({exc})") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if not header or header[0].strip().lower() != "model":
        raise PayloadError(f"{table_key}: the first column must be 'model' (header {header!r})")
    header = [h.strip() for h in header]
    column = {h: i for i, h in enumerate(header)}

    overrides = source.options.get("feed_names") or {}
    feeds = {c: feed_slug(c, overrides) for c in categories}
    slugs = list(feeds.values())
    clash = sorted({f for f in slugs if slugs.count(f) > 1} | ({"global"} & set(slugs)))
    if clash:
        raise PayloadError(f"{cats_key}: categories share the feed name(s) {', '.join(clash)}")
    summary, global_col = _summary_columns(categories, feeds, column)

    url = _row_url(source, payload, table_name)
    release = day.isoformat()
    observations: list[Observation] = []

    def emit(model: str, feed: str, raw: float | None, problem: str | None, details: dict) -> None:
        observations.append(
            Observation(
                source=source.name,
                feed=f"{source.name}/{feed}",
                evaluator=source.evaluator_id,
                model=model,
                raw=raw,
                date=day,
                url=url,
                release=release,
                percent=True,
                details={"table": table_name, "categories_file": cats_name, **details},
                excluded=problem,
            )
        )

    for row in reader:
        line = reader.line_num
        if not row or not any(cell.strip() for cell in row):
            continue
        model = row[0].strip()
        if len(row) != len(header):
            reason = f"{table_name} line {line} ({model!r}): ragged row, {len(row)} fields, header has {len(header)}"
            emit(model, "global", None, reason, {"category": "global", "from_summary": False})
            for c in categories:
                emit(model, feeds[c], None, reason, {"category": c, "from_summary": False,
                                                     "tasks": list(categories[c])})
            continue

        scores: dict[str, float] = {}
        incomplete: list[str] = []
        for c, tasks in categories.items():
            details = {"category": c, "from_summary": c in summary, "tasks": list(tasks)}
            if c in summary:
                raw, problem = check_score(row[summary[c]], percent=True)
                problem = f"{header[summary[c]]}: {problem}" if problem else None
            else:
                raw, problem = _task_mean(row, tasks, column, table_name)
            if problem is None:
                raw, problem = check_score(raw, percent=True)
            if problem or raw is None:
                incomplete.append(c)
                emit(model, feeds[c], raw if c in summary else None, f"category {c!r} incomplete: {problem}", details)
            else:
                scores[c] = raw
                emit(model, feeds[c], raw, None, details)

        complete = [c for c in categories if c in scores]
        gdetails = {
            "category": "global",
            "from_summary": global_col is not None,
            "categories": complete,
            "incomplete_categories": incomplete,
        }
        if global_col is not None:
            raw, problem = check_score(row[global_col], percent=True)
            emit(model, "global", raw, f"{header[global_col]}: {problem}" if problem else None, gdetails)
        elif complete:
            raw, problem = check_score(fmean(scores[c] for c in complete), percent=True)
            emit(model, "global", raw, problem, gdetails)
        else:
            emit(model, "global", None, "no complete category", gdetails)
    return ParseResult(observations=tuple(observations), published=day)
